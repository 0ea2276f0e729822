"""Streamlit glue for the explanations: the cell breakdown (Playground and Step by step), one course step, caches.

The numbers come from ``mha.lessons.explain`` (which reads the module's trace) and the pictures from
``mha.charts.explain``; this module only lays them out, with every string through ``t()``.

The steps' matrices (x, Q/K/V, QKᵀ, scores, masked scores, weights, head output, concat, output) are drawn on the
canvas in the page (``mha.app.components.heatmap_view``): it paints as soon as the page's own script runs, where Plotly's
charts wait for Plotly's script (12-17 s for a link with every step open on a busy machine, #27.4). Plotly keeps
the charts that are not one matrix: the bars, the waterfall, split_heads' panels and the cell's vectors.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from mha.app.components.heatmap_view import heatmaps, picked
from mha.app.components.paint_gate import chart
from mha.app.compute import SEEDED, cached, cached_figure
from mha.app.state import session_weights
from mha.app.widgets import chart_words, t
from mha.charts import explain as xf
from mha.charts import heatmap_data
from mha.charts.figures import Words
from mha.core.markup import escape_for_plotly, escape_markdown
from mha.lessons import explain
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
    ``fmt`` fills the explanation; ``hold``: Plotly's charts wait for the first canvas (``mha.app.components.paint_gate``).
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
                st.markdown(t("cb_softmax", row=i + 1, score=b.score - b.shift, num=float(b.exp_scores[j]),
                              den=b.exp_sum, weight=b.weight))
                if b.shift:
                    st.caption(t("cb_shifted", shift=b.shift))
            chart(cached_figure(xf.attention_bar, b.row_weights, b.row_allowed, view.key_labels,
                                highlight=j, masked_word=t("cb_masked_word"), y_title=t("cb_weight"), top=top,
                                title=t("cb_row_title", row=i + 1, q=escape_for_plotly(view.labels[i])),
                                words=chart_words()),
                  hold=hold, key=f"{key}_row")
