"""Step by step: the course's MultiHeadAttention, line by line, on the learner's own sentence and settings."""
import math

import streamlit as st

from mha.app.components.heatmap_view import heatmaps
from mha.app.components.paint_gate import chart, gate, hold_plotly
from mha.app.compute import cached_figure
from mha.app.frame import page_setup
from mha.app.sections.explain import cell_breakdown, concat_bands, course_step, extras, head_matrix, pick_cell
from mha.app.state import current_view, settings
from mha.app.widgets import chart_words, head_picker, named_choice, t, token_picker, weights_scale
from mha.charts import explain as xf
from mha.charts import figures, heatmap_data
from mha.core.markup import escape_for_plotly
from mha.weights.batch import PAD

page_setup()

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


# The steps' matrices are drawn on the canvas in the page (mha.app.sections.explain): they paint before Plotly has loaded.
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
    xf.attention_bar, view.weights[head, qi], view.allowed[head, qi], view.key_labels, masked_word=t("cb_masked_word"),
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
