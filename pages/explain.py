"""Step by step: the course's MultiHeadAttention, line by line, on the learner's own sentence and settings."""
import math

import streamlit as st

from mha import explain_figures as xf
from mha import figures
from mha.explain_ui import cell_breakdown, clamp_state, course_step, extras, pick_cell
from mha.frame import page_setup
from mha.text import escape_for_plotly
from mha.ui import current_view, settings, t

page_setup()

st.title(t("ex_title"))
view = current_view()
if view is None:
    st.stop()
s = settings()
H, T, hd, D = view.num_heads, len(view.tokens), view.head_dim, s.d_model
ex = extras(s.spec())  # what the View does not keep, computed by the same module
st.caption(t("ex_intro", n=T, d_model=D, num_heads=H, head_dim=hd, causal=t("ex_causal_suffix") if s.causal else ""))
clamp_state("ex_head", H)
head = st.segmented_control(t("ex_head"), list(range(H)), default=0, key="ex_head", bind="query-params",
                            required=True)
fmt = dict(n=T, d_model=D, num_heads=H, head_dim=hd, head=head, sqrt=f"{math.sqrt(hd):.4g}",
           positions=t("ex_positions_on" if s.positional else "ex_positions_off"))
axes = dict(x_title=t("ex_axis_key"), y_title=t("ex_axis_query"))
feat = dict(col_title=t("ex_feature"))
heads = dict(head_word=t("ex_head_word"))
B = lambda a: (1,) + a.shape  # noqa: E731 the View drops the batch axis (B = 1): put it back in the shapes

x_tabs = [("ex_x", t("ex_tab_x" if s.positional else "ex_tab_x_nopos"),
           figures.features_heatmap(view.x, view.labels, "x", **feat)),
          ("ex_embedding", t("ex_tab_embedding"),
           figures.features_heatmap(ex.embedding, view.labels, "embedding", **feat))]
if s.positional:
    x_tabs.append(("ex_positions", t("ex_tab_positions"),
                   figures.features_heatmap(ex.positions, view.labels, "position", **feat)))
course_step(1, "embed", B(view.x), x_tabs, **fmt)
course_step(2, "linear", B(ex.query), [
    (f"ex_chart_{name}", label, figures.features_heatmap(mat, view.labels, name, **feat))
    for name, label, mat in (("query", "Q = query_linear(x)", ex.query), ("key", "K = key_linear(x)", ex.key),
                             ("value", "V = value_linear(x)", ex.value))], **fmt)
course_step(3, "split_heads", B(view.q), [("ex_split", "", xf.split_heads_figure(
    ex.query, view.q, view.labels, top_title=t("ex_split_top"), **feat, **heads))], **fmt)
# steps 4-6 share QKᵀ's colour scale, so that dividing by √head_dim shows as paler colours
zmax = float(abs(ex.qk[head]).max()) or 1.0
course_step(4, "qk", B(ex.qk), [("ex_qk", "", xf.matrix(ex.qk[head], view.labels, "QKᵀ", head=head, zmax=zmax,
                                                        **axes))], **fmt)
course_step(5, "scale", B(view.scores), [("ex_scores", "", xf.matrix(view.scores[head], view.labels, "scores",
                                                                      head=head, zmax=zmax, **axes))], **fmt)
course_step(6, "mask", B(view.scores), [("ex_masked", "", xf.matrix(view.scores[head], view.labels, "scores",
                                                                     allowed=view.allowed[head], head=head, zmax=zmax,
                                                                     **axes))],
            note=None if s.causal else t("ex_no_mask"), **fmt)
course_step(7, "softmax", B(view.weights), [("ex_weights", "", xf.matrix(view.weights[head], view.labels, "weights",
                                                                          allowed=view.allowed[head], head=head,
                                                                          **axes))], **fmt)

st.markdown(f"**{t('ex_bar_title')}**")
st.caption(t("ex_bar_text", head=head))
clamp_state("ex_query", T)
bar_left, bar_right = st.columns([1, 3], gap="medium")
qi = bar_left.selectbox(t("ex_bar_query"), range(T), key="ex_query", bind="query-params",
                        format_func=lambda i: f"{i}: {view.labels[i]}")
bar_right.plotly_chart(xf.attention_bar(view.weights[head, qi], view.allowed[head, qi], view.labels,
                                 masked_word=t("cb_masked_word"), y_title=t("cb_weight"),
                                 title=t("ex_bar_chart_title", q=escape_for_plotly(view.labels[qi]), head=head)),
                key="ex_bar")

course_step(8, "weighted_sum", B(view.head_outputs), [("ex_head_output", "", figures.features_heatmap(
    view.head_outputs[head], view.labels, "head_outputs", col_title="head_dim"))], **fmt)
course_step(9, "combine_heads", B(view.concat), [("ex_concat", "", xf.banded_features(
    view.concat, view.labels, H, kind="concat", **feat, **heads))], **fmt)
course_step(10, "output_linear", B(view.output), [("ex_output", "", figures.features_heatmap(
    view.output, view.labels, "output", **feat))], **fmt)


@st.fragment
def click_into_a_cell() -> None:
    """A click or a selector change reruns only this part; the numbers come from the cache."""
    st.subheader(t("ex_cell_title"))
    st.caption(t("ex_cell_hint", head=head))
    # options shown as their URL values (a bound widget puts the displayed option in the URL), explained in help
    kind = st.segmented_control(t("ex_matrix"), ["weights", "scores"], default="weights", key="ex_matrix",
                                bind="query-params", required=True, help=t("ex_matrix_help"))
    for key in ("ex_cell_query", "ex_cell_key"):
        clamp_state(key, T)
    c1, c2 = st.columns(2)
    i = c1.selectbox(t("ex_cell_query"), range(T), key="ex_cell_query", bind="query-params",
                     format_func=lambda n: f"{n}: {view.labels[n]}")
    j = c2.selectbox(t("ex_cell_key"), range(T), key="ex_cell_key", bind="query-params",
                     format_func=lambda n: f"{n}: {view.labels[n]}")
    mats = view.weights if kind == "weights" else view.scores
    fig = xf.matrix(mats[head], view.labels, kind, head=head, clickable=True, selected=(i, j),
                    allowed=view.allowed[head] if kind == "weights" else None, **axes)
    st.plotly_chart(fig, key="ex_cell_chart", on_select=lambda: pick_cell("ex_cell_chart", "ex_cell_query",
                                                                          "ex_cell_key"), selection_mode="points")
    cell_breakdown(view, head, i, j, key="ex_cell")


click_into_a_cell()
