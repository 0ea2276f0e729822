"""The Bug zoo page (``page``, which pages/bugs.py calls) and its tables: every bug's errors on the learner's
sentence, and what one head hides. Thin Streamlit glue over ``mha.lessons.bugs``."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from mha.app import frame
from mha.app.compute import cached, cached_figure
from mha.app.sections.check import page_link as check_link
from mha.app.sections.masks import SIDE_BY_SIDE_TOKENS
from mha.app.state import current_view, session_weights, settings
from mha.app.widgets import chart_words, head_picker, named_choice, t, table, token_picker, weights_scale
from mha.charts import figures
from mha.check.examples import bug_code
from mha.core.i18n import code_comments
from mha.core.markup import escape_markdown
from mha.lessons import bugs


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


@frame.page
def page() -> None:
    """Each bug on the learner's sentence beside the real module; why one head hides the transpose bugs."""
    st.title(t("bz_title"))
    view = current_view()
    if view is None:
        st.stop()
    s = settings()
    words = chart_words()  # the words inside the charts, in the page's language
    H, Tq, Tk = view.weights.shape
    st.markdown(t("bz_intro"))
    if s.source == "pretrained":  # the layer has Q/K/V biases: the bugs keep them
        st.caption(t("src_bugs_biases"))
    runs = cached(bugs.zoo_for_view, view, weights=session_weights(s.d_model))

    st.subheader(t("bz_summary"))
    st.caption(t("bz_summary_note"))
    summary_table(runs)

    name = named_choice(t("bz_pick"), bugs.BUG_NAMES, "bz_bug", {b: t(f"bz_{b}_title") for b in bugs.BUG_NAMES},
                        help=t("bz_pick_help"))
    bug, run = bugs.get_bug(name), runs[name]
    st.subheader(t(f"bz_{name}_title"))
    st.markdown(t(f"bz_{name}_explain"))
    check_link(bug_code(name), t("bz_check_link"))  # the bug as a learner's class, in Check your code
    c1, c2 = st.columns(2)
    c1.caption(t("bz_wrong"))
    c1.code(bug.wrong, language="python", wrap_lines=True)
    c2.caption(t("bz_right"))
    c2.code(code_comments(bug.right, s.lang), language="python", wrap_lines=True)  # our comments in the page's language
    st.markdown(t("bz_caught_by", check=t(f"bz_{name}_check")))
    # combine_heads leaves the weights exactly right and only the output wrong: show the output, no head to pick
    show_weights = name == bugs.SEED_TWO or run.max_error_weights > 0 or H == 1
    head = head_picker("bz_head", H) if show_weights else 0
    # The app's one colour rule, a scale per kind of map, each said in its colour bar: the bug and the correct module
    # side by side share one (one colour = one weight on both sides). The second handout's class weighs heads against
    # heads (rows of H, not of Tk keys): its (H, H) map gets its own, over every token's map (picking a token keeps it).
    shown = [run.weights_ok[head]] + ([run.weights_bug[head]] if name != bugs.SEED_TWO else []) if show_weights else []
    scale = weights_scale(shown, toggle=show_weights)
    # Figures through cached_figure (a warm visit skips Plotly's figure building), laid out for the columns they are
    # drawn in (Chromium, 1400 px window: halves 462 px, thirds 302 px; wider, Plotly squeezes the cells). Past
    # SIDE_BY_SIDE_TOKENS (as on Masks) the token maps go one under another at the page's width (43 keys were strips).
    HALF_PX, THIRD_PX = 460, 300
    side = max(len(view.labels), len(view.key_labels)) <= SIDE_BY_SIDE_TOKENS
    half, third = (HALF_PX, THIRD_PX) if side else (None, None)

    if name == bugs.SEED_TWO:
        if run.error:
            st.markdown(t("bz_seed_error", h=H, hd=view.head_dim, d=s.d_model))
            st.code(run.error, language="text")
        else:
            st.markdown(t("bz_seed_runs"))
        token = token_picker(t("bz_token"), "bz_token", view.labels)
        st.caption(t("bz_seed_heads", h=H, tok=escape_markdown(view.labels[token]), head=head))
        heads = [f"{words.head} {h}" for h in range(H)]
        left, right = st.columns(2) if side else (st.container(), st.container())
        head_words = replace(words, query_axis=t("bz_seed_query_axis"), key_axis=t("bz_seed_key_axis"))
        heads_top = figures.weights_top(run.head_weights, fit=scale.fit)
        left.plotly_chart(cached_figure(figures.head_heatmap, run.head_weights[token], heads, heads, kind="weights",
                                        clickable=False, zmax=heads_top, width_px=HALF_PX, words=head_words),
                          key="bz_seed_chart", width="content")
        right.plotly_chart(cached_figure(figures.head_heatmap, run.weights_ok[head], view.labels, view.key_labels,
                                         kind="weights", allowed=run.allowed, head=head, clickable=False,
                                         zmax=scale.top, width_px=half, words=words),
                           key="bz_ok_chart", width="content")
    else:
        if run.demo_mask:
            st.info(t("bz_demo_mask"))
        if bug.hidden_by_one_head and H == 1:
            st.info(t("bz_one_head_now"))
        elif run.max_error_output == 0:
            st.info(t("bz_no_effect"))
        st.markdown(t("bz_max_error", out=run.max_error_output, w=run.max_error_weights))
        st.caption(t("bz_weights_of", head=head) if show_weights else t("bz_outputs_of"))
        if show_weights:
            mats, kinds = (run.weights_bug[head], run.weights_ok[head], run.difference[head]), ("weights",) * 2
            draw = lambda m, kind: cached_figure(  # noqa: E731
                figures.head_heatmap, m, view.labels, view.key_labels, kind=kind, allowed=run.allowed, head=head,
                clickable=False, zmax=scale.top if kind == "weights" else None, width_px=third, words=words)
        else:  # (Tq, d_model) outputs, bug and correct on one colour scale
            mats, kinds = (run.output_bug, run.output_ok, run.output_bug - run.output_ok), ("output",) * 2
            zmax = float(max(abs(run.output_bug).max(), abs(run.output_ok).max())) or 1.0
            draw = lambda m, kind: cached_figure(  # noqa: E731
                figures.features_heatmap, m, view.labels, kind=kind, zmax=zmax if kind == "output" else None,
                words=words)
        cols = st.columns(3) if side else [st.container() for _ in range(3)]
        charts = zip(cols, ("bz_chart_bug", "bz_chart_ok", "bz_chart_diff"), mats, kinds + ("difference",),
                     ("bz_bug_chart", "bz_ok_chart", "bz_diff_chart"))
        for col, title, mat, kind, key in charts:
            col.markdown(f"**{t(title)}**")
            fig = draw(mat, kind)
            col.plotly_chart(fig, key=key, width="content" if fig.layout.width else "stretch")

    st.subheader(t("bz_one_head_title"))
    st.markdown(t("bz_one_head_explain"))
    one_head_table(runs, H)
