"""The one-heatmap baseline of bench/bench_browser.py: the smallest honest Streamlit app for the same question.

    streamlit run bench/one_heatmap_app.py

The same sidebar controls as the app (``text``, ``d_model``, ``num_heads``, mirrored in the URL under the same
names), the course's MultiHeadAttention (tests/course_mha.py) run on random embeddings, and ONE heatmap: head 0's
attention weights (page "weights") or scores (page "scores"; two pages so that a page switch can be timed too).
No cache, no fragment: what a learner's first Streamlit script would be. Issue #16 item 3 asks that a change in the
Playground repaint within 1.5x this app's time, measured in the same run. Nothing here is imported by the app.
"""
import sys
from pathlib import Path

import plotly.express as px
import streamlit as st
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.course_mha import MultiHeadAttention  # noqa: E402

torch.set_num_threads(1)  # as the app does (mha.app.frame)
text = st.sidebar.text_area("Sentence", "Orange is my favorite fruit", key="text", bind="query-params")
d_model = st.sidebar.selectbox("d_model", [4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512], index=3,
                               key="d_model", bind="query-params")
heads = [h for h in range(1, 17) if d_model % h == 0]
num_heads = st.sidebar.selectbox("num_heads", heads, index=heads.index(4) if 4 in heads else 0, key="num_heads",
                                 bind="query-params")


def attention(kind: str) -> None:
    tokens = (text or "").split()[:128]
    if not tokens:
        st.stop()
    torch.manual_seed(0)
    model = MultiHeadAttention(d_model, num_heads)
    x = torch.randn(1, len(tokens), d_model)  # (B, T, d_model)
    with torch.no_grad():
        q = model.split_heads(model.query_linear(x), 1)  # (B, H, T, head_dim)
        k = model.split_heads(model.key_linear(x), 1)
        scores = q @ k.transpose(-2, -1) / model.head_dim ** 0.5  # (B, H, Tq, Tk)
        mat = scores.softmax(-1) if kind == "weights" else scores
    st.title(f"Head 0 {kind}")
    st.plotly_chart(px.imshow(mat[0, 0].numpy(), x=tokens, y=tokens, labels=dict(x="key", y="query", color=kind)),
                    key="heatmap")


st.navigation([st.Page(lambda: attention("weights"), title="weights", url_path="weights", default=True),
               st.Page(lambda: attention("scores"), title="scores", url_path="scores")]).run()
