"""Pieces of the Playground page (pages/playground.py): the first screen's note on random heads, with the one-click
switch to trained ones, the all-heads grid of each head's output (the third matrix beside weights and scores), and
a pretrained model's model view (every layer x head; a click opens that layer and head)."""
from __future__ import annotations

import numpy as np
import streamlit as st

from mha.charts import figures
from mha.app.compute import SEEDED
from mha.app.controls import cached_figure, named_choice, session_weights, settings, t
from mha.app.sections.model_view import model_view, pretrained_layers
from mha.weights.view import View

MATRICES = ("weights", "scores", "head_outputs")  # the Playground's ``matrix`` link values


def _to_trained() -> None:
    """The sidebar's weight source becomes "trained" (its hidden bound control and the buttons that mirror it)."""
    st.session_state["source"] = st.session_state["source_shown"] = "trained"


def random_note(view: View) -> None:
    """Random parameters look pale (every row ~uniform): say so in one line, with the measured numbers, and offer
    trained heads in one click. Shown only while the seeded random parameters are in use."""
    s = settings()
    if s.source != "random" or session_weights(s.d_model) is not SEEDED:
        return
    live = view.allowed.any(axis=-1) & ~view.query_is_pad[None]  # (H, Tq) rows that attend somewhere
    top = float(view.weights.max(axis=-1)[live].mean()) if live.any() else 0.0
    even = float((1.0 / np.maximum(view.allowed.sum(axis=-1), 1))[live].mean()) if live.any() else 0.0
    with st.container(key="pg_random_note", horizontal=True, vertical_alignment="center"):
        st.caption("🎲 " + t("pg_random_note", top=f"{top:.2f}", even=f"{even:.2f}"))
        st.button(t("pg_to_trained"), key="pg_to_trained", on_click=_to_trained, icon="🎓")


def matrix_choice(words) -> str:
    """The Playground's matrix: the URL keeps the id in every language, the buttons show names in the page's."""
    names = {"weights": words.kind("weights"), "scores": words.kind("scores"), "head_outputs": t("pg_matrix_outputs")}
    return named_choice(t("pg_matrix"), MATRICES, "matrix", names, help=t("pg_matrix_help"))


def head_outputs_grid(view: View, words) -> None:
    """Every head's output (weights @ V) as small multiples: the Playground's third matrix."""
    st.caption(t("pg_head_outputs_help", num_heads=view.num_heads, head_dim=view.head_dim))
    st.plotly_chart(cached_figure(figures.head_outputs_grid, view.head_outputs, view.labels, words=words),
                    key="pg_head_outputs_grid")


def every_layer(view: View) -> tuple[np.ndarray, np.ndarray] | None:
    """A pretrained view's weights at every layer and their mask (``model_view.pretrained_layers``), else None:
    the page's weights colour rule is worked out over them all."""
    return pretrained_layers(view) if view.spec.source == "pretrained" else None


def _open_layer(layer: int, head: int) -> None:
    """A click on the model view: that layer in the sidebar, that head enlarged (no model run: cached)."""
    st.session_state["layer"], st.session_state["head"] = layer, head


def model_section(view: View, words, layers: tuple[np.ndarray, np.ndarray] | None, top: float) -> None:
    """Below the layer's grid, for a pretrained model: every layer x head (``layers`` from ``every_layer``) on
    the page's weights colour rule (``top``); the layer shown and the enlarged head framed."""
    if layers is None:
        return
    weights, allowed = layers
    head = st.session_state.get("head")
    marked = (view.spec.layer, head if isinstance(head, int) else 0)  # the head picker starts at 0
    model_view(weights, view.labels, view.key_labels, key="pg_model_view", words=words, top=top,
               allowed=allowed, marked=marked, on_open=_open_layer)


@st.fragment
def outputs_section(view, grid_kind: str, words, d_model: int) -> None:
    """After the weights, folded: each head's output (unless the grid above shows it) and the final output. Opening
    one reruns only this part and sends its chart; the link keeps it open."""
    H = view.num_heads
    head_box = st.expander(t("pg_head_outputs"), key="show_head_outputs", bind="query-params")
    with head_box:
        st.caption(t("pg_head_outputs_help", num_heads=H, head_dim=view.head_dim))
        if head_box.open and grid_kind == "head_outputs":
            st.caption(t("pg_head_outputs_above"))
        elif head_box.open:
            st.plotly_chart(cached_figure(figures.head_outputs_grid, view.head_outputs, view.labels, words=words),
                            key="head_outputs")
    output_box = st.expander(t("pg_output"), key="show_output", bind="query-params")
    with output_box:
        st.caption(t("pg_output_help", num_heads=H, head_dim=view.head_dim, d_model=d_model))
        if output_box.open:
            st.plotly_chart(cached_figure(figures.features_heatmap, view.output, view.labels, kind="output",
                                          col_title=words.d_model_feature, words=words), key="output")
