"""The Bug zoo page's tables (pages/bugs.py draws them): every bug's errors on the learner's sentence, and what one
head hides. Thin Streamlit glue over ``mha.lessons.bugs``."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from mha.lessons import bugs
from mha.app.widgets import t, table


def fmt(x) -> str:
    """A max error as the tables show it ("not comparable" when the bug's output has another shape)."""
    return t("bz_not_comparable") if x is None else f"{x:.4f}"


def summary_table(runs: dict) -> None:
    """Each bug by its name in the page's language and the check that catches it in words (the ids stay in the
    link), with its max errors; a static table wraps its cells, so nothing is cut off at any width."""
    with st.container(key="bz_table"):
        st.table(pd.DataFrame([{
            t("bz_col_bug"): t(f"bz_{b.name}_title"), t("bz_col_test"): t(f"bz_{b.name}_check"),
            t("bz_col_out"): fmt(runs[b.name].max_error_output), t("bz_col_w"): fmt(runs[b.name].max_error_weights),
            t("bz_col_one_head"): fmt(runs[b.name].max_error_one_head) if b.hidden_by_one_head else ""}
            for b in bugs.BUGS]).set_index(t("bz_col_bug")))


def one_head_table(runs: dict, num_heads: int) -> None:
    """The bugs one head hides: their output error with ``num_heads`` heads and with one."""
    table(pd.DataFrame([{t("bz_col_bug"): t(f"bz_{b.name}_title"),
                         t("bz_one_head_col_now", h=num_heads): fmt(runs[b.name].max_error_output),
                         t("bz_one_head_col_one"): fmt(runs[b.name].max_error_one_head)}
                        for b in bugs.BUGS if b.hidden_by_one_head]), "bz_one_head_table", hide_index=True)
