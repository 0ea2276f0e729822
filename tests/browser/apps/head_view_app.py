"""A page with only the head view, for its browser test and benchmark: ``streamlit run`` this file.

URL parameters: ``T`` query tokens (default 8), ``Tk`` key tokens (default T: self-attention with a causal mask;
another number: cross-attention, no mask), ``H`` heads (default 3), ``lang`` (en/ko). Query token 2 is hostile
markup, which must show as text. Imported (not run by Streamlit) it only defines the numbers, so a test can compute
what the page shows.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HOSTILE = "<img src=x onerror=alert(1)>"


def known_weights(H: int, Tq: int, Tk: int, seed: int = 0) -> np.ndarray:
    """Softmax of seeded scores (H, Tq, Tk); with Tq == Tk a causal mask, so masked weights are exactly 0."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(H, Tq, Tk)) * 2.5
    if Tq == Tk:
        s = np.where(np.tril(np.ones((Tq, Tk), bool)), s, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def query_labels(T: int) -> list[str]:
    return [HOSTILE if i == 2 else f"q{i}" for i in range(T)]


def key_labels(Tk: int) -> list[str]:
    return [f"k{i}" for i in range(Tk)]


def sizes(params) -> tuple[int, int, int]:
    T = int(params.get("T", 8))
    return int(params.get("H", 3)), T, int(params.get("Tk", T))


if __name__ == "__main__":  # Streamlit runs the script as __main__
    import streamlit as st

    from mha.app.components.head_view import head_view
    from mha.charts import head_view_data

    st.set_page_config(page_title="head view", layout="wide")
    H, T, Tk = sizes(st.query_params)
    st.title("Head view")
    head_view(known_weights(H, T, Tk), query_labels(T), key_labels(Tk), key="hv",
              words=head_view_data.words(st.query_params.get("lang", "en")))
