"""The naive baseline for bench/bench_playground.py: the Playground as a student would first write it from the course.

    streamlit run bench/naive_playground.py        # it runs on its own too

What makes it naive, on purpose: the course's MultiHeadAttention copied as it is (../shared/seeds/000_*: its
forward returns only the output, so the scores and weights are recomputed by hand from its layers), one
``px.imshow`` figure per head per matrix (scores, weights, head outputs) plus one for the output, and everything
rebuilt on every rerun: no cache, no fragment, float32 numbers sent as Plotly Express makes them. It takes the same
controls and URL parameters as the app (``text``, ``d_model``, ``num_heads``, ``causal``, ``seed``), so the bench
can drive both with one set of query parameters. Nothing here is imported by the app.
"""
import plotly.express as px
import streamlit as st
import torch
import torch.nn as nn
import torch.nn.functional as F


# --- the course's class, copied verbatim ---------------------------------------------------------------------------
class MultiHeadAttention(nn.Module):

    def __init__(self, d_model, num_heads):
        super().__init__()

        assert d_model % num_heads == 0, "d_model must be divisible by num_heads."

        self.num_heads = num_heads
        self.d_model = d_model
        self.head_dim = d_model // num_heads

        self.query_linear = nn.Linear(d_model, d_model, bias=False)
        self.key_linear = nn.Linear(d_model, d_model, bias=False)
        self.value_linear = nn.Linear(d_model, d_model, bias=False)

        self.output_linear = nn.Linear(d_model, d_model)

    def split_heads(self, x, batch_size):

        seq_length = x.size(1)
        x = x.reshape(batch_size, seq_length, self.num_heads, self.head_dim)
        return x.permute(0, 2, 1, 3)


    def compute_attention(self, query, key, value, mask=None):

        scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)

        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))

        attention_weights = F.softmax(scores, dim=-1)
        return torch.matmul(attention_weights, value)


    def combine_heads(self, x, batch_size):

        x = x.permute(0, 2, 1, 3).contiguous()
        return x.view(batch_size, -1, self.d_model)

    def forward(self, query, key, value, mask=None):
        batch_size = query.size(0)

        query = self.split_heads(self.query_linear(query), batch_size)
        key = self.split_heads(self.key_linear(key), batch_size)
        value = self.split_heads(self.value_linear(value), batch_size)

        attention_weights = self.compute_attention(query, key, value, mask)


        output = self.combine_heads(attention_weights, batch_size)

        return self.output_linear(output)


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
