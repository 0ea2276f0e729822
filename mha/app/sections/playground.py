"""The Playground page (``page``, which pages/playground.py calls) and its pieces: the first screen's note on random
heads, with the one-click switch to trained ones, the all-heads grid of each head's output (the third matrix beside
weights and scores), and a pretrained model's model view (every layer x head; a click opens that layer and head)."""
from __future__ import annotations

import numpy as np
import streamlit as st

from mha.app import frame
from mha.app.components.head_view import head_view
from mha.app.components.heatmap_view import heatmaps, picked
from mha.app.compute import SEEDED, cached_figure, pretrained_layers
from mha.app.sections import explain as steps
from mha.app.sections.model_view import model_view
from mha.app.sections.neuron import neuron_section
from mha.app.share import RETIRED_KEYS
from mha.app.state import current_view, session_weights, settings
from mha.app.widgets import chart_words, head_picker, hide, named_choice, t, token_picker, weights_scale
from mha.charts import figures, head_view_data, heatmap_data
from mha.core.markup import escape_markdown
from mha.weights.view import View

MATRICES = ("weights", "scores", "head_outputs")  # the Playground's ``matrix`` link values
# Below the grid, one closer look at a time (the ``look`` link value): every head as lines (the head view), one head
# enlarged with the numbers behind a cell, or the outputs (each head's, and the module's). One at a time keeps a new
# sentence quick to draw (#24.4: all of them at once drew it ~1.4x as slowly as a one-heatmap app, one ~1.1-1.2x).
LOOKS = ("lines", "head", "outputs")
# A link that names the enlarged head's cell or folded sections (the course's "open in the Playground", links
# made before the choice) opens on that head; one that opened the outputs' old folds, on the outputs.
ONE_HEAD_PARAMS = ("cell_query", "cell_key", "show_cell", "show_neuron")  # ``head`` is kept under every look


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


def enlarge(head: int) -> None:
    """``head`` becomes the enlarged one, and the closer look below the grid shows it (a callback)."""
    st.session_state["head"] = head
    st.session_state["look"] = st.session_state["look_shown"] = "head"


def keep_head(num_heads: int) -> None:
    """The head picker, hidden, under the other closer looks: the enlarged head stays in the link, and a click on the
    grid changes a picker that was drawn in the last run (a value put in a bound widget before it is first drawn
    shows in it but never reaches the address bar or the link)."""
    hide("head")
    head_picker("head", num_heads)


def look_from_link() -> None:
    """A link without ``look`` that names the enlarged head's cell or folds opens on that head; one that opened
    the outputs' old folds, on the outputs (and then says ``look`` itself). Only while the choice has no state yet:
    the page's first run in a session, or the first after another page."""
    if "look" in st.query_params or st.session_state.get("look") in LOOKS:
        return
    if any(p in st.query_params for p in ONE_HEAD_PARAMS):
        st.session_state["look"] = "head"
    elif any(st.query_params.get(p) == "true" for p in RETIRED_KEYS):  # the outputs' folds before the choice
        st.session_state["look"] = "outputs"


def shown_look() -> str:
    """What ``look_choice`` will show, read before it is drawn (the grid above frames the enlarged head)."""
    for value in (st.session_state.get("look"), st.query_params.get("look")):
        if value in LOOKS:
            return value
    return LOOKS[0]


def look_choice() -> str:
    """Below the grid: the head view ("lines"), one head enlarged ("head") or the outputs; the URL keeps the id."""
    names = {"lines": t("hv_section_title"), "head": t("pg_one_head"), "outputs": t("pg_look_outputs")}
    return named_choice(t("pg_look"), LOOKS, "look", names, help=t("pg_look_help"))


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
    """A pretrained view's weights at every layer and their mask (``compute.pretrained_layers``), else None:
    the page's weights colour rule is worked out over them all."""
    return pretrained_layers(view) if view.spec.source == "pretrained" else None


def _open_layer(layer: int, head: int) -> None:
    """A click on the model view: that layer in the sidebar, that head enlarged (no model run: cached)."""
    st.session_state["layer"] = layer
    enlarge(head)


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


def outputs_section(view, grid_kind: str, words, d_model: int) -> None:
    """The closer look "outputs": each head's output (unless the grid above shows it) and the final output."""
    H = view.num_heads
    st.subheader(t("pg_head_outputs"))
    st.caption(t("pg_head_outputs_help", num_heads=H, head_dim=view.head_dim))
    if grid_kind == "head_outputs":
        st.caption(t("pg_head_outputs_above"))
    else:
        st.plotly_chart(cached_figure(figures.head_outputs_grid, view.head_outputs, view.labels, words=words),
                        key="head_outputs")
    st.subheader(t("pg_output"))
    st.caption(t("pg_output_help", num_heads=H, head_dim=view.head_dim, d_model=d_model))
    st.plotly_chart(cached_figure(figures.features_heatmap, view.output, view.labels, kind="output",
                                  col_title=words.d_model_feature, words=words), key="output")


@frame.page
def page() -> None:
    """Scores, weights and every head's output for the learner's sentence, live."""
    st.title(t("pg_title"))
    view = current_view()
    if view is None:
        st.stop()
    s = settings()
    words = chart_words()  # the words inside the charts, in the page's language
    H, T = view.num_heads, len(view.tokens)
    Tk = len(view.key_tokens)  # keys: == T unless cross-attention
    st.caption(t("pg_intro", n=T, d_model=s.d_model, num_heads=H, head_dim=view.head_dim,
                 causal=t("pg_causal_suffix") if s.causal else ""))
    random_note(view)  # random heads look pale: one line says why, one click gives trained ones
    if view.fully_masked.any():
        st.warning(t("pg_fully_masked", n=int(view.fully_masked.any(axis=0).sum())))

    look_from_link()  # before the grid, which frames the enlarged head
    grid_kind = matrix_choice(words)  # weights / scores / head_outputs (the all-heads section shows it)
    kind = "scores" if grid_kind == "scores" else "weights"  # the enlarged head below: weights under head_outputs
    mats = view.weights if kind == "weights" else view.scores
    allowed = view.allowed if kind == "weights" else None

    st.subheader(t("pg_all_heads"))
    masked_note = t("pg_masked_note") if not view.allowed.all() else ""
    # One colour rule for every weights chart of this view (the grid, the enlarged head, the cell's row of weights): its
    # top is worked out once over all heads, "0 … 1" unless long rows or the learner's "fit to data" ask for less.
    layers = every_layer(view)  # a pretrained model's every layer (the model view below): one colour rule over all
    scale = weights_scale(view.weights if layers is None else layers[0],
                          toggle=grid_kind == "weights")  # no switch over head outputs
    top = scale.top if kind == "weights" else 1.0
    suffix = {"full": "", "fit": "_fit", "long": "_fitted"}[scale.reason] if kind == "weights" else ""
    if grid_kind != "head_outputs":
        st.caption(t(f"pg_all_heads_help_{kind}{suffix}", n_keys=Tk, top=f"{top:.2g}", masked=masked_note))

    def pick_head() -> None:
        """A click on a panel of the all-heads grid: its head becomes the enlarged one."""
        head = picked("grid").get("head")
        if head is not None and head < H:
            enlarge(head)

    # Drawn in the page (mha.app.components.heatmap_view): Plotly's SVG took ~300 ms of a change for this grid alone
    # (#16.3). The enlarged head's panel is framed; picking another head redraws only the enlarged one, which tells
    # the grid.
    enlarged = st.session_state.get("head") if shown_look() == "head" else None  # framed in the grid
    if grid_kind == "head_outputs":  # the design card's third heatmap, one click beside weights and scores
        head_outputs_grid(view, words)
    else:
        heatmaps(heatmap_data.prepare(mats, view.labels, view.key_labels, kind=kind, allowed=allowed, words=words,
                                      pick="head", top=top if kind == "weights" else None, group="pg",
                                      marked=enlarged if isinstance(enlarged, int) and enlarged < H else None),
                 key="grid", on_pick=pick_head)
        st.caption(t("pg_grid_click_hint"))
    model_section(view, words, layers, scale.top)  # pretrained: every layer x head; a click opens one below

    look = look_choice()  # the head view, one head enlarged or the outputs: one at a time
    if look == "lines":
        st.subheader(t("hv_section_title"))
        st.caption(t("hv_section_help"))
        # on the view's colour scale: at 43 tokens (weights ~1/43) lines were all but invisible
        head_view(view.weights, view.labels, view.key_labels, key="pg_head_view",
                  words=head_view_data.words(s.lang), top=scale.top)

    def pick_cell() -> None:
        """A click on a cell of the enlarged head: it becomes the query and key below."""
        cell = picked("one_head_chart")
        if "query" in cell and cell["query"] < T and cell["key"] < Tk:
            st.session_state["cell_query"], st.session_state["cell_key"] = cell["query"], cell["key"]

    @st.fragment
    def one_head() -> None:
        """Picking a head or a cell reruns only this part: the model's numbers come from the cache."""
        st.subheader(t("pg_one_head"))
        head = head_picker("head", H)
        st.caption(t("pg_click_hint"))
        c1, c2 = st.columns(2)
        qi = token_picker(t("pg_cell_query"), "cell_query", view.labels, container=c1)
        kj = token_picker(t("pg_cell_key"), "cell_key", view.key_labels, container=c2)
        scale_range = None if kind == "weights" else figures.symmetric_range(mats)  # every head's scores: one scale
        heatmaps(heatmap_data.prepare(mats[head][None], view.labels, view.key_labels, kind=kind, heads=[head],
                                      allowed=allowed[head][None] if allowed is not None else None, words=words,
                                      layout="single", pick="cell", selected=(qi, kj), scale_range=scale_range,
                                      top=top if kind == "weights" else None, group="pg"),
                 key="one_head_chart", on_pick=pick_cell)
        st.markdown(t("pg_cell_summary", head=head, q=escape_markdown(view.labels[qi]), i=qi,
                      k=escape_markdown(view.key_labels[kj]), j=kj, score=float(view.scores[head, qi, kj]),
                      weight=float(view.weights[head, qi, kj]),
                      masked=t("pg_cell_masked") if not view.allowed[head, qi, kj] else ""))
        # Folded sections send their charts only when open (three charts here; #16.3); the link keeps them open.
        cell_box = st.expander(t("cb_open"), key="show_cell", bind="query-params")
        with cell_box:
            if cell_box.open:
                steps.cell_breakdown(view, head, qi, kj, key="pg_cell", border=False, top=scale.top)
        neuron_section(view, head, qi, kj, top=scale.top)  # the query's row of keys, folded, bound to the link
        steps.weights_table(view, head)

    if look == "head":
        one_head()
    else:
        if look == "outputs":
            outputs_section(view, grid_kind, words, s.d_model)
        keep_head(H)
