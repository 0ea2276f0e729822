"""The naive baseline for bench/bench_playground.py: the Playground as a student would first write it from the course.

    streamlit run bench/naive_playground.py        # it runs on its own too

What makes it naive, on purpose: the course's MultiHeadAttention as it is (../shared/seeds/000_*, kept in
tests/course_mha.py: its forward returns only the output, so the scores and weights are recomputed by hand from its
layers), one ``px.imshow`` figure per head per matrix (scores, weights, head outputs) plus one for the output, and
everything rebuilt on every rerun: no cache, no fragment, float32 numbers sent as Plotly Express makes them. It takes
the same controls and URL parameters as the app (``text``, ``d_model``, ``num_heads``, ``causal``, ``seed``), so the
bench can drive both with one set of query parameters. Nothing here is imported by the app.
"""
import sys
from pathlib import Path

import plotly.express as px
import streamlit as st
import torch
import torch.nn.functional as F

# --- the course's class, as written in the course (kept once, in tests/course_mha.py) -----------------------------
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.course_mha import MultiHeadAttention  # noqa: E402

# --- the student's page ----------------------------------------------------------------------------------------------
st.title("Multi-head attention")
text = st.text_area("Sentence", "Orange is my favorite fruit", key="text", bind="query-params")
d_model = st.selectbox("d_model", [4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512], index=3,
                       key="d_model", bind="query-params")
heads = [h for h in range(1, 17) if d_model % h == 0]
num_heads = st.selectbox("num_heads", heads, index=heads.index(4) if 4 in heads else 0, key="num_heads",
                         bind="query-params")
causal = st.toggle("Causal mask", key="causal", bind="query-params")
seed = st.number_input("Seed", 0, 9999, 0, key="seed", bind="query-params")

tokens = text.split()[:128]
if not tokens:
    st.stop()
T = len(tokens)
torch.manual_seed(int(seed))
model = MultiHeadAttention(d_model, num_heads)
x = torch.randn(1, T, d_model)  # (B, T, d_model): a random embedding per position
mask = torch.tril(torch.ones(T, T)) if causal else None  # 1 = may attend

with torch.no_grad():
    q = model.split_heads(model.query_linear(x), 1)  # (B, H, T, head_dim)
    k = model.split_heads(model.key_linear(x), 1)
    v = model.split_heads(model.value_linear(x), 1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / (model.head_dim ** 0.5)  # (B, H, Tq, Tk)
    weights = F.softmax(scores.masked_fill(mask == 0, float("-inf")) if causal else scores, dim=-1)
    head_outputs = torch.matmul(weights, v)  # (B, H, Tq, head_dim)
    output = model(x, x, x, mask)  # (B, T, d_model)

for h in range(num_heads):
    st.subheader(f"Head {h}")
    st.plotly_chart(px.imshow(scores[0, h].numpy(), x=tokens, y=tokens, color_continuous_scale="RdBu_r",
                              labels=dict(x="key", y="query", color="score"), title="scores"), key=f"scores{h}")
    st.plotly_chart(px.imshow(weights[0, h].numpy(), x=tokens, y=tokens, zmin=0, zmax=1,
                              labels=dict(x="key", y="query", color="weight"), title="weights"), key=f"weights{h}")
    st.plotly_chart(px.imshow(head_outputs[0, h].numpy(), y=tokens, color_continuous_scale="RdBu_r",
                              labels=dict(x="dim", y="token"), title="head output"), key=f"head_out{h}")
st.subheader("Output")
st.plotly_chart(px.imshow(output[0].numpy(), y=tokens, color_continuous_scale="RdBu_r"), key="output")
