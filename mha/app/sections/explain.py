"""The Step by step page (``page``, which pages/explain.py calls) and the Streamlit glue for the explanations: the
cell breakdown (Playground and Step by step), one course step, caches.

The numbers come from ``mha.lessons.explain`` (which reads the module's trace) and the pictures from
``mha.charts.explain``; this module only lays them out, with every string through ``t()``.

The steps' matrices (x, Q/K/V, QKᵀ, scores, masked scores, weights, head output, concat, output) are drawn on the
canvas in the page (``mha.app.components.heatmap_view``): it paints as soon as the page's own script runs, where
Plotly's charts wait for Plotly's script (12-17 s for a link with every step open on a busy machine, #27.4). Plotly
keeps the charts that are not one matrix: the bars, the waterfall, split_heads' panels and the cell's vectors.
"""
from __future__ import annotations

import math

import numpy as np
import streamlit as st

from mha.app import frame
from mha.app.components.heatmap_view import heatmaps, picked
from mha.app.components.paint_gate import chart, gate, hold_plotly
from mha.app.compute import SEEDED, cached, cached_figure
from mha.app.state import current_view, session_weights, settings
from mha.app.widgets import chart_words, head_picker, named_choice, t, token_picker, weights_scale
from mha.charts import explain as xf
from mha.charts import figures, heatmap_data
from mha.charts.figures import Words
from mha.core.markup import escape_for_plotly, escape_markdown
from mha.lessons import explain
from mha.weights.batch import PAD
from mha.weights.view import View


def pick_cell(chart_key: str, query_key: str, key_key: str) -> None:
    """on_pick callback of a clickable canvas heatmap: copy the clicked cell into the (query, key) selectors."""
    cell = picked(chart_key)
    if "query" in cell:  # the selectors are kept in range by keep_index before they are drawn
        st.session_state[query_key], st.session_state[key_key] = cell["query"], cell["key"]


def head_matrix(mat, view: View, kind: str, head: int, words: Words, *, zmax: float | None = None,
                allowed=None, name: str | None = None, **kw) -> dict:
    """One head's (Tq, Tk) step matrix as a canvas payload (layout "single": square cells, keys on top): the
    numbers, colour rule, token labels and hover of ``figures.head_heatmap``. ``kind`` "weights" (0 .. ``zmax``)
    or any other (scores, QKᵀ: ± ``zmax``, default the largest |value|; ``name`` is shown for it); ``allowed``
    greys blocked cells; ``kw``: ``pick``/``selected`` of ``heatmap_data.prepare``."""
    w = kind == "weights"
    return heatmap_data.prepare(np.asarray(mat)[None], view.labels, view.key_labels, kind="weights" if w else "scores",
                                heads=[head], allowed=None if allowed is None else np.asarray(allowed)[None],
                                words=words, layout="single", top=zmax if w else None,
                                scale_range=None if w else zmax, name=name, **kw)


def concat_bands(num_heads: int, head_dim: int, head_word: str, words: Words) -> dict:
    """``heatmap_data.features``' bands of concat: each head's head_dim columns in its colour, labelled as
    ``explain_figures.banded_features`` labels them (none for one head, no labels past 16 heads)."""
    if num_heads <= 1:
        return {}
    labels = xf.head_labels(num_heads, head_word, words)
    return dict(bands=[(h * head_dim, (h + 1) * head_dim, xf.head_color(h), labels[h] if num_heads <= 16 else "")
                       for h in range(num_heads)], band_stagger=num_heads > xf.CROWDED_HEADS)


def extras(view: View) -> explain.Extras:
    """``explain.extras`` of this session's view, cached (keyed on its spec and the weights' sha256)."""
    return cached(explain.extras, view, weights=session_weights(view.spec.d_model))


def sweep(n_tokens: int, seed: int) -> explain.Sweep:
    """The head_dim sweep, cached: it depends on the sequence length and the seed only (random q and k)."""
    return cached(explain.head_dim_sweep, explain.SWEEP_HEAD_DIMS, n_tokens=n_tokens, n_samples=64, seed=seed,
                  weights=SEEDED)


def course_step(number: int, step: str, shape, charts, /, *, note: str | None = None, shown: bool = False,
                hold: bool = False, **fmt) -> None:
    """One step of the course code: the lines, the tensor's shape, a short explanation and the picture(s).

    The code and the text are always there (the page reads as a walkthrough); the picture is in an expander, open
    when ``shown``, whose charts are built and sent only while it is open (its state is in the link:
    ``ex_show_<step>``). ``charts`` is a list of (widget key, tab label, figure builder); several become tabs, and
    only the open tab's figure is built and sent (tabs that rerun on a switch, key ``<first chart key>_tab``).
    ``fmt`` fills the explanation; ``hold``: Plotly's charts wait for the first canvas
    (``mha.app.components.paint_gate``).
    """
    st.subheader(t("ex_step", n=number, title=t(f"ex_step_{step}")))
    st.code(explain.COURSE_CODE[step], language="python")
    left, right = st.columns([2, 3], gap="medium")
    name, letters = explain.STEP_SHAPES[step]
    with left:
        st.markdown(t("ex_shape", name=name, shape=explain.shape_text(letters, shape)))
        st.markdown(t(f"ex_step_{step}_text", **fmt))
        if note:
            st.info(note)
    with right:
        box = st.expander(t("ex_picture", name=name), expanded=shown, key=f"ex_show_{step}", bind="query-params")
        if not box.open:  # a closed step sends no chart (#16.3: 15 charts made Step by step the slowest page)
            return
        with box:
            if len(charts) == 1:
                _chart(charts[0][2](), charts[0][0], hold)
                return
            tabs = st.tabs([label for _, label, _ in charts], key=f"{charts[0][0]}_tab", on_change="rerun")
            for tab, (key, _, build) in zip(tabs, charts):
                if tab.open:  # a (128, 512) heatmap is ~0.4 MB: hidden tabs send nothing
                    with tab:
                        _chart(build(), key, hold)


def _chart(fig, key: str, hold: bool = False) -> None:
    """A canvas payload (a dict) is drawn in the page; a Plotly chart that sets its own width (square cells:
    ``figures.square_geometry``) keeps it, others fill the column (``hold``: a blank until the canvases drew)."""
    if isinstance(fig, dict):
        heatmaps(fig, key=key)
        return
    chart(fig, hold=hold, key=key, width="content" if fig.layout.width else "stretch")


def weights_table(view: View, head: int) -> None:
    """One head's weights as a folded table with its CSV: both built and sent only once the learner opens it (the
    T x Tk numbers are ~0.1 MB at 128 tokens)."""
    import pandas as pd

    box = st.expander(t("pg_table", head=head), key="pg_table_open", on_change="rerun")
    with box:
        if box.open:
            key_names = [f"{j}: {lab}" for j, lab in enumerate(view.key_labels)]
            table = pd.DataFrame(view.weights[head], columns=key_names, index=pd.Index(
                [f"{i}: {lab}" for i, lab in enumerate(view.labels)], name="query \\ key"))
            st.dataframe(table, column_config={c: st.column_config.NumberColumn(format="%.3f") for c in key_names},
                         width="stretch")
            st.download_button(t("pg_download_csv"), table.to_csv().encode("utf-8"), key="weights_csv",
                               file_name=f"weights_head{head}.csv", mime="text/csv")


def cell_breakdown(view: View, head: int, i: int, j: int, *, key: str, border: bool = True,
                   top: float = 1.0, hold: bool = False) -> None:
    """How scores[head, i, j] and weights[head, i, j] are made, for any head_dim. ``key`` prefixes chart keys;
    ``border=False`` inside an expander (which has one); ``top``: the page's weights scale (``weights_scale``), for
    the row of weights; ``hold``: its charts wait for the page's first canvas (``mha.app.components.paint_gate``)."""
    b = explain.cell_breakdown(view, head, i, j)
    q, k = escape_markdown(view.labels[i]), escape_markdown(view.key_labels[j])
    with st.container(border=border):
        st.markdown(t("cb_title", head=head, q=q, i=i, k=k, j=j))
        left, right = st.columns(2, gap="medium")
        with left:
            st.markdown(t("cb_vectors", q=q, k=k, head_dim=b.head_dim))
            # Figures go through cached_figure: rebuilding them is most of a rerun that only moved the cell.
            chart(cached_figure(xf.cell_vectors, b.q, b.k, b.products, dim_word=t("cb_dim"),
                                row_names=(f"q_{i}", f"k_{j}", f"q_{i} × k_{j}"), words=chart_words()),
                  hold=hold, key=f"{key}_vectors")
            c = b.contributions()
            st.markdown(t("cb_products"))
            if c.rest_count:
                st.caption(t("cb_products_cut", head_dim=b.head_dim, top_k=len(c.dims), rest=c.rest_count))
            chart(cached_figure(xf.contributions_waterfall, c, b.raw, dim_word=t("cb_dim"),
                                sum_text=t("cb_sum"), rest_text=t("cb_rest", n=c.rest_count), words=chart_words()),
                  hold=hold, key=f"{key}_sum")
            st.markdown(t("cb_raw", raw=b.raw, i=i, j=j))
        with right:
            st.markdown(t("cb_scaled", raw=b.raw, head_dim=b.head_dim, scale=b.scale, score=b.score))
            if b.fully_masked:
                st.markdown(t("cb_fully_masked", q=q))
            elif not b.allowed:
                st.markdown(t("cb_masked", q=q, k=k))
            else:
                st.markdown(t("cb_softmax", row=i, score=b.score - b.shift, num=float(b.exp_scores[j]),
                              den=b.exp_sum, weight=b.weight))
                if b.shift:
                    st.caption(t("cb_shifted", shift=b.shift))
            chart(cached_figure(xf.attention_bar, b.row_weights, b.row_allowed, view.key_labels,
                                highlight=j, masked_word=t("cb_masked_word"), y_title=t("cb_weight"), top=top,
                                title=t("cb_row_title", row=i, q=escape_for_plotly(view.labels[i])),
                                words=chart_words()),
                  hold=hold, key=f"{key}_row")


@frame.page
def page() -> None:
    """The course's MultiHeadAttention, line by line, on the learner's own sentence and settings."""
    st.title(t("ex_title"))
    view = current_view()
    if view is None:
        st.stop()
    s = settings()
    H, (Tq, Tk), hd, D = view.num_heads, view.weights.shape[1:], view.head_dim, s.d_model
    ex = extras(view)  # what the View does not keep, from the module's own intermediates
    st.caption(t("ex_intro", n=Tq, d_model=D, num_heads=H, head_dim=hd,
                 causal=t("ex_causal_suffix") if s.causal and not view.is_cross else ""))
    head = head_picker("ex_head", H, t("ex_head"))
    scale = weights_scale(view.weights[head])  # one colour rule for this head's weights charts (step 7, bars, cell)
    fmt = dict(n=Tq, d_model=D, num_heads=H, head_dim=hd, head=head, sqrt=f"{math.sqrt(hd):.4g}",
               positions=t("ex_positions_on" if s.positional else "ex_positions_off"))
    feat, heads = dict(col_title=t("ex_feature")), dict(head_word=t("ex_head_word"))
    words = chart_words()  # the words inside the charts, in the page's language
    B = lambda a: (view.batch_size,) + a.shape  # noqa: E731 the View keeps one sentence: put the batch axis back
    hold = hold_plotly()  # a browser's first visit: Plotly's charts come once the first canvas drew (#27.4)
    gate(hold)
    fmt["hold"] = hold  # course_step(..., **fmt): its Plotly charts wait too

    # The steps' matrices are drawn on the canvas in the page (head_matrix above): they paint before Plotly has loaded.
    def hm(mat, kind, **kw):
        """One head's (Tq, Tk) matrix, queries down the side, keys along the top (built when it is shown)."""
        return lambda: head_matrix(mat, view, kind, head, words, **kw)

    def features(mat, kind, labels=view.labels, **kw):
        """A (T, features) matrix, built when it is shown."""
        return lambda: heatmap_data.features(mat, labels, kind=kind, words=words, **{**feat, **kw})

    x_tabs = [("ex_x", t("ex_tab_x" if s.positional else "ex_tab_x_nopos"), features(view.x, "x"))]
    if ex.embedding is not None:  # a pretrained layer's x is the model's hidden state: no parts of ours to show
        x_tabs.append(("ex_embedding", t("ex_tab_embedding"), features(ex.embedding, "embedding")))
    if s.positional and ex.positions is not None:
        x_tabs.append(("ex_positions", t("ex_tab_positions"), features(ex.positions, "position")))
    if view.is_cross:
        x_tabs.append(("ex_x_kv", t("ex_tab_x_kv"), features(view.x_kv, "x_kv", view.key_labels)))
    x_note = {"split": t("src_explain_split", half=D // 2, rest=D - D // 2), "model": t("src_explain_model_x")}.get(
        ex.layout)  # how x was made, for trained (content | position) and pretrained weights
    course_step(1, "embed", B(view.x), x_tabs, note=" ".join(n for n in (
        x_note, t("ex_cross_note") if view.is_cross else None) if n) or None, **fmt)
    course_step(2, "linear", B(ex.query), [
        ("ex_chart_query", "Q = query_linear(x)", features(ex.query, "query")),
        ("ex_chart_key", "K = key_linear(x)", features(ex.key, "key", view.key_labels)),
        ("ex_chart_value", "V = value_linear(x)", features(ex.value, "value", view.key_labels))],
        note=t("src_explain_bias") if ex.layout == "model" else None, **fmt)  # a pretrained layer's Q/K/V biases
    course_step(3, "split_heads", B(view.q), [("ex_split", "", lambda: cached_figure(xf.split_heads_figure,
        ex.query, view.q, view.labels, top_title=t("ex_split_top"), words=words, **feat, **heads))], **fmt)
    zmax = float(abs(ex.qk[head]).max()) or 1.0  # steps 4-6 share QKᵀ's scale: dividing by √head_dim shows as paler
    course_step(4, "qk", B(ex.qk), [("ex_qk", "", hm(ex.qk[head], "QKᵀ", zmax=zmax, name="QKᵀ"))], **fmt)
    # The pictures of the two key steps are open (what attention computes: scores, then weights), and the mask's when
    # there is one; every other step keeps its code and text and folds its picture (#16.3: sent only when opened).
    course_step(5, "scale", B(view.scores), [("ex_scores", "", hm(view.scores[head], "scores", zmax=zmax))],
                shown=True, **fmt)
    no_mask = t("ex_no_mask_cross", pad=PAD) if view.is_cross else t("ex_no_mask")  # no causal mask in cross-attention
    course_step(6, "mask", B(view.scores), [("ex_masked", "", hm(view.scores[head], "scores", zmax=zmax,
                                                                 allowed=view.allowed[head]))],
                note=no_mask if view.allowed.all() else None, shown=not view.allowed.all(), **fmt)
    course_step(7, "softmax", B(view.weights), [("ex_weights", "", hm(view.weights[head], "weights", zmax=scale.top,
                                                                       allowed=view.allowed[head]))], shown=True, **fmt)

    st.markdown(f"**{t('ex_bar_title')}**")
    st.caption(t("ex_bar_text", head=head))
    bar_left, bar_right = st.columns([1, 3], gap="medium")
    qi = token_picker(t("ex_bar_query"), "ex_query", view.labels, container=bar_left)
    chart(cached_figure(
        xf.attention_bar, view.weights[head, qi], view.allowed[head, qi], view.key_labels,
        masked_word=t("cb_masked_word"),
        y_title=t("cb_weight"), title=t("ex_bar_chart_title", q=escape_for_plotly(view.labels[qi]), head=head),
        width_px=740, top=scale.top, words=words),  # 3/4 of the main column
        hold=hold, container=bar_right, key="ex_bar")

    course_step(8, "weighted_sum", B(view.head_outputs), [("ex_head_output", "", features(
        view.head_outputs[head], "head_outputs", col_title="head_dim"))], **fmt)
    course_step(9, "combine_heads", B(view.concat), [("ex_concat", "", features(
        view.concat, "concat", **concat_bands(H, hd, t("ex_head_word"), words)))], **fmt)
    course_step(10, "output_linear", B(view.output), [("ex_output", "", features(view.output, "output"))], **fmt)

    @st.fragment
    def click_into_a_cell() -> None:
        """A click or a selector change reruns only this part; the numbers come from the cache."""
        st.subheader(t("ex_cell_title"))
        clickable = max(Tq, Tk) <= figures.CLICK_MAX_TOKENS
        st.caption(t("ex_cell_hint" if clickable else "ex_cell_hint_large", head=head, n=figures.CLICK_MAX_TOKENS))
        kind = named_choice(t("ex_matrix"), ["weights", "scores"], "ex_matrix",
                            {k: words.kind(k) for k in ("weights", "scores")}, help=t("ex_matrix_help"))
        c1, c2 = st.columns(2)
        i = token_picker(t("ex_cell_query"), "ex_cell_query", view.labels, container=c1)
        j = token_picker(t("ex_cell_key"), "ex_cell_key", view.key_labels, container=c2)
        mats = view.weights if kind == "weights" else view.scores
        heatmaps(hm(mats[head], kind, pick="cell" if clickable else None, selected=(i, j),
                    **(dict(allowed=view.allowed[head], zmax=scale.top) if kind == "weights" else {}))(),
                 key="ex_cell_chart", on_pick=lambda: pick_cell("ex_cell_chart", "ex_cell_query", "ex_cell_key"))
        cell_box = st.expander(t("cb_open"), key="ex_show_cell", bind="query-params")
        with cell_box:
            if cell_box.open:  # three charts, sent only when open
                cell_breakdown(view, head, i, j, key="ex_cell", border=False, top=scale.top, hold=hold)

    click_into_a_cell()
