"""Charts readable at every size (#27.4), the parts that need no browser: Hangul key labels too narrow to lie flat
are stacked upright, one character per line, instead of turned 90° (they piled into a jumble); Latin ones still
turn; the hover keeps naming the whole token. (Drawn boxes and overlaps: tests/browser/test_chart_sizes_browser.py.)"""
from __future__ import annotations

import html

import numpy as np
import pytest

from mha.charts import figures

KO = ["나는", "오늘", "학교에서", "친구와", "맛있는", "점심을", "먹었다"] * 2  # the Induction page's 14 tokens
EN = ["the", "cat", "sat", "on", "a", "mat", "."] * 2


def _grid(labels):
    T = len(labels)
    w = np.tril(np.ones((4, T, T))) / np.arange(1, T + 1)[None, :, None]
    return figures.heads_grid(w, labels, labels).to_plotly_json()


def test_hangul_keys_in_narrow_grid_columns_are_stacked_not_turned():
    layout = _grid(KO)["layout"]
    x = layout["xaxis"]
    assert x["tickangle"] == 0 and x["tickmode"] == "array"
    shown = [html.unescape(t.replace("<br>", "")) for t in x["ticktext"]]
    assert shown == KO  # every token named, in order, each character on its own line
    assert all(t.count("<br>") == len(k) - 1 for t, k in zip(x["ticktext"], KO))
    # ticks sit just past each category (as readable_ticks' do), so the hover names the category, not the tick
    assert np.allclose(np.asarray(x["tickvals"]) - np.arange(len(KO)), figures.RAW_TICK_SHIFT * len(KO))


def test_latin_keys_still_turn_and_the_band_fits_the_stack():
    x = _grid(EN)["layout"]["xaxis"]
    assert x["tickmode"] == "linear" and "ticktext" not in x
    assert figures.stacks(figures.axis_labels(KO), -90) and not figures.stacks(figures.axis_labels(KO), -45)
    assert not figures.stacks(figures.axis_labels(EN), -90)
    band = figures.label_band_px(figures.axis_labels(KO), -90, 11)
    assert band >= 4 * 11 * figures.STACK_LINE  # "학교에서": four lines


def test_a_long_token_is_cut_in_the_stack_and_markup_stays_text():
    long = ["가나다라마바사아", "<b>한</b>"]
    stack = figures.stacked_axis({}, figures.axis_labels(long))["ticktext"]
    assert stack[0].split("<br>") == list("가나다라마") + ["…"]
    assert "<b>" not in stack[1] and "&lt;" in stack[1]  # each character escaped on its own line


@pytest.mark.parametrize("builder", ["head_heatmap", "mask_heatmap"])
def test_one_head_charts_stack_hangul_too_when_columns_are_narrow(builder):
    T = 20
    labels = [f"단어{i}" for i in range(T)]
    mat = np.full((T, T), 1 / T)
    if builder == "head_heatmap":
        fig = figures.head_heatmap(mat, labels, labels, width_px=480)
    else:
        fig = figures.mask_heatmap(np.ones((T, T), bool), labels, labels, width_px=400)  # no colour bar
    x = fig.to_plotly_json()["layout"]["xaxis"]
    assert x["showticklabels"] and x["tickangle"] == 0 and x["tickmode"] == "array"  # stacked, not turned upright
    assert [html.unescape(t.replace("<br>", "")) for t in x["ticktext"]] == labels


def test_qk_names_are_spaced_the_query_always_named():
    from mha.charts import heads as hf

    together = np.zeros((6, 2))  # every point in one place: the chosen query above it, its top key below, no more
    q_on, k_on = hf.spaced_labels(together, together, list("abcdef"), list("abcdef"), [("q", 3), ("k", 1)])
    assert q_on == [False, False, False, True, False, False] and k_on == [False, True, False, False, False, False]
    apart = np.array([[i * 10.0, 0.0] for i in range(6)])  # far apart: every name fits
    q_on, k_on = hf.spaced_labels(apart, apart + [0, -5.0], list("abcdef"), list("abcdef"), [("q", 0)])
    assert all(q_on) and all(k_on)
    fig = hf.qk_figure(together, together, list("abcdef"), list("abcdef"), 3, [1], np.full(6, 1 / 6))
    assert hf.unnamed_points(fig) == 10
    assert [tr.text for tr in fig.data if tr.mode == "markers+text"][1][3] == "d"  # the query's name


def test_the_attention_bar_stacks_hangul_keys_too():
    from mha.charts import explain as xf

    keys = [f"단어{i}" for i in range(43)]
    w = np.full(43, 1 / 43)
    fig = xf.attention_bar(w, np.ones(43, bool), keys, masked_word="x", y_title="w", title="t", width_px=740)
    x = fig.to_plotly_json()["layout"]["xaxis"]
    assert x["showticklabels"] and x["tickangle"] == 0 and x["tickmode"] == "array", x
