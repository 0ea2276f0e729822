"""Readable charts at every size and Korean everywhere (#16 items 9 and 10), on the figure builders themselves.

Label counts against tokens, heights against rows, tick fonts, square cells, and the words inside the charts in
Korean mode. What only a browser shows (drawn sizes, line breaking) is in tests/browser/test_readability_browser.py.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from mha.app import widgets
from mha.charts import explain as xf
from mha.charts import figures, heatmap_data
from mha.charts import heads as hf
from mha.core import i18n
from mha.lessons import bugs, explain
from mha.weights.view import ViewSpec, run_view

HANGUL = re.compile(r"[\uac00-\ud7a3]")
KO = widgets._chart_words("ko")


def labels(n: int, word: str = "tok") -> list[str]:
    return [f"{word}{i}" for i in range(n)]


def weights(*shape) -> np.ndarray:
    w = np.random.default_rng(0).random(shape)
    return w / w.sum(-1, keepdims=True)


def named_every(axis) -> bool:
    """The axis shows a label for every category (Plotly drops some of a crowded axis unless dtick is 1)."""
    return axis.showticklabels is not False and axis.tickmode == "linear" and axis.dtick == 1


@pytest.mark.parametrize("n", [1, 5, 8, 16, 43, 64])
def test_one_head_names_every_token_in_readable_type_on_square_cells(n):
    fig = figures.head_heatmap(weights(n, n), labels(n), labels(n), head=0)
    lay = fig.layout
    for axis in (lay.xaxis, lay.yaxis):
        assert named_every(axis) and axis.tickfont.size >= figures.MIN_FONT
        assert axis.tickfont.color == figures.TICK_COLOR
    geo = figures.square_geometry(figures.axis_labels(labels(n)), figures.axis_labels(labels(n)))
    assert (lay.width, lay.height) == (geo.width, geo.height)
    assert geo.cell >= figures.LABEL_ROW_PX  # a row holds its 12 px label
    # the cells' area: the figure less the labels, titles and colour bar that square_geometry adds
    cells_w = lay.width - (figures.label_width_px(figures.axis_labels(labels(n))) + 24) - figures.COLORBAR_PX - 20
    assert cells_w == geo.cell * n or lay.width == 320  # the width follows the columns (320: the least width)
    assert lay.height >= geo.cell * n


def test_one_head_of_eight_tokens_is_not_wide_and_short():
    fig = figures.head_heatmap(weights(8, 8), labels(8), labels(8), head=0)  # was 700 px wide, 160 px high
    geo = figures.square_geometry(labels(8), labels(8))
    assert geo.cell * 8 <= fig.layout.height and fig.layout.width < 2 * fig.layout.height


def test_beyond_64_tokens_cells_shrink_and_names_move_to_hover():
    fig = figures.head_heatmap(weights(128, 128), labels(128), labels(128), head=0, clickable=False)
    assert fig.layout.xaxis.showticklabels is False and fig.layout.yaxis.showticklabels is False
    assert fig.layout.height < 1000 and "%{y}" in fig.data[0].hovertemplate and "%{x}" in fig.data[0].hovertemplate


def test_tick_angle_horizontal_when_labels_fit_upright_when_cells_are_narrow():
    assert figures.tick_angle(["a", "cat"], 44) == 0
    assert figures.tick_angle(["favorite"], 44) == -45
    assert figures.tick_angle(["favorite"], 14) == -90  # slanted labels 14 px apart would touch at 12 px
    assert figures.tick_angle(["고양이"], 30) == -45 and figures.tick_angle(["고양이"], 44) == 0  # CJK: 1 em each
    assert figures.label_band_px(["favorite"], 0) < figures.label_band_px(["favorite"], -45) < \
        figures.label_band_px(["favorite"], -90)


@pytest.mark.parametrize("n", [5, 20, 43, 64])
def test_features_heatmap_rows_are_tall_enough_for_every_label(n):
    fig = figures.features_heatmap(np.ones((n, 16)), labels(n))
    assert named_every(fig.layout.yaxis) and fig.layout.yaxis.tickfont.size >= figures.MIN_FONT
    assert (fig.layout.height - 100) / n >= figures.LABEL_ROW_PX  # grows with the rows, no cap that squeezes them


@pytest.mark.parametrize("H, n", [(4, 5), (4, 43), (16, 43), (16, 5), (2, 64)])
def test_all_heads_grid_names_every_query_and_says_when_keys_cannot_be_named(H, n):
    fig = figures.heads_grid(weights(H, n, n), labels(n), labels(n))
    lay = fig.layout
    first_y = lay.yaxis
    assert named_every(first_y) and first_y.tickfont.size >= figures.GRID_FONT >= figures.MIN_FONT
    rows = -(-H // 4)
    panel_px = (first_y.domain[1] - first_y.domain[0]) * (lay.height - 60)  # less the top and bottom margins
    assert panel_px / n >= figures.GRID_ROW_PX - 0.5, (panel_px, n)
    notes = [a.text for a in lay.annotations if a.text == figures.ENGLISH.keys_on_hover]
    if named_every(lay.xaxis):
        assert not notes and lay.xaxis.tickfont.size >= figures.MIN_FONT
    else:
        assert notes == [figures.ENGLISH.keys_on_hover]
    assert lay.height <= figures.GRID_MAX_PX and rows >= 1


def test_head_dim_16_cells_are_colour_only_with_numbers_on_hover():
    view = run_view(ViewSpec(text="the cat saw the dog", d_model=32, num_heads=2))  # head_dim 16
    b = explain.cell_breakdown(view, 0, 1, 2)
    wide = xf.cell_vectors(b.q, b.k, b.products)
    assert all(t.texttemplate is None for t in wide.data) and "%{z:.4f}" in wide.data[0].hovertemplate
    assert figures.ENGLISH.values_on_hover in wide.layout.xaxis2.title.text
    narrow = xf.cell_vectors(b.q[:8], b.k[:8], b.products[:8])
    assert all(t.texttemplate and t.textfont.size >= 12 for t in narrow.data)
    water = xf.contributions_waterfall(b.contributions(), b.raw)
    shown = [s for s in water.data[0].text if s]
    assert len(water.data[0].x) > xf.WATERFALL_TEXT_BARS and shown == [f"{b.raw:.4f}"]  # the sum only
    lo, hi = water.layout.yaxis.range
    running = np.cumsum(list(water.data[0].y[:-1]))
    assert lo < min(0, running.min(), b.raw) and hi > max(0, running.max(), b.raw)  # room above and below


def test_bar_numbers_only_where_they_fit():
    few = xf.attention_bar(np.full(5, 0.2), np.ones(5, bool), labels(5))
    many = xf.attention_bar(np.full(43, 1 / 43), np.ones(43, bool), labels(43))
    assert list(few.data[0].text) == ["0.20"] * 5 and many.data[0].text is None


def test_row_stats_key_labels_turn_in_a_narrow_column():
    # the lab's temperature stats sit in 3/5 of the page: "favorite" and "fruit" ran into each other, horizontal
    toks = ["Orange", "is", "my", "favorite", "fruit"]
    stats = {"a": explain.row_stats(weights(5, 5), np.ones((5, 5), bool))}
    wide = xf.row_stats_figure(toks, stats)
    narrow = xf.row_stats_figure(toks, stats, width_px=450)
    assert wide.layout.xaxis.tickangle == 0 and narrow.layout.xaxis.tickangle in (-45, -90)
    assert named_every(narrow.layout.xaxis)


def test_korean_names_the_weight_sources_as_the_sidebar_buttons_do():
    # the buttons read 무작위 / 학습됨 / 사전학습; the note on top of every page said "*trained* 또는 *pretrained*"
    from mha.strings import sources
    english = re.compile(r"(?<![A-Za-z_])(random|trained|pretrained)(?![A-Za-z_])")  # "random이나" too
    assert not [k for k, v in sources.STRINGS.items() if english.search(v["ko"])]
    note = i18n.text("src_note_random", "ko", seed=0)
    assert all(i18n.text(f"src_name_{name}", "ko") in note for name in ("random", "trained", "pretrained"))


def test_heads_entropy_heatmap_names_the_queries_it_has_room_for():
    for n in (5, 43):
        fig = hf.entropy_heatmap(np.ones((4, n)), np.ones((4, n), bool), labels(n), 3.0)
        assert named_every(fig.layout.xaxis) and fig.layout.xaxis.tickfont.size >= figures.MIN_FONT


def test_korean_chart_words_in_colour_bars_and_hover():
    w = weights(2, 5, 5)
    grid = figures.heads_grid(w, labels(5), labels(5), words=KO)
    title = grid.layout.coloraxis.colorbar.title.text
    assert title.startswith("가중치<br>") and "범위 0 … 1" in title and "<sub>" not in title  # <sub> drew ~8 px
    assert "가중치: %{z:.4f}" in grid.data[0].hovertemplate
    one = figures.head_heatmap(w[0] - 0.1, labels(5), labels(5), kind="scores", words=KO)
    assert one.layout.coloraxis.colorbar.title.text == "점수" and "점수: " in one.data[0].hovertemplate
    assert "weights" not in grid.data[0].hovertemplate and "scores" not in one.data[0].hovertemplate


def test_value_charts_say_in_their_colour_bar_what_the_colours_are():
    # the Playground's output and head outputs and Step by step's tensors had a bare colour bar
    out = figures.features_heatmap(np.ones((3, 4)), labels(3), kind="output", words=KO)
    assert out.layout.coloraxis.colorbar.title.text == KO.output != ""
    grid = figures.head_outputs_grid(np.ones((2, 3, 4)), labels(3), words=KO)
    assert grid.layout.coloraxis.colorbar.title.text == KO.head_outputs == "헤드 출력"  # in the page's language
    # Step by step's canvases and Course step 5's banded chart name head outputs and concat in Korean too
    for kind, word in (("head_outputs", "헤드 출력"), ("concat", "이어 붙인 헤드")):
        assert heatmap_data.features(np.ones((3, 4)), labels(3), kind=kind, words=KO)["bar"]["title"][0] == word
    banded = xf.banded_features(np.ones((3, 4)), labels(3), 2, kind="concat", words=KO)
    assert banded.layout.coloraxis.colorbar.title.text == "이어 붙인 헤드"
    # beside 3 short rows the bar is short: three ticks, not five on top of each other; tall plots keep Plotly's
    assert out.layout.coloraxis.colorbar.nticks == 4 and grid.layout.coloraxis.colorbar.nticks == 4
    tall = figures.features_heatmap(np.ones((43, 4)), labels(43), kind="output", words=KO)
    assert tall.layout.coloraxis.colorbar.nticks is None


def test_our_code_comments_follow_the_language_and_the_course_code_stays_verbatim():
    right = bugs.BUGS[0].right
    assert "# attention over the last two axes" in right
    ko = i18n.code_comments(right, "ko")
    assert "# 마지막 두 축" in ko and "attention over" not in ko
    assert i18n.code_comments(right, "en") == right
    for key, entry in i18n.CATALOG.items():
        if key.startswith("code_"):
            assert HANGUL.search(entry["ko"]), key
    for step, code in explain.COURSE_CODE.items():  # the course's own code: no comment of ours to translate
        assert i18n.code_comments(code, "ko") == code, step


def test_one_vector_of_d_model_numbers_not_d_model_vectors():
    for key, entry in i18n.CATALOG.items():
        assert "개의 벡터" not in entry.get("ko", ""), key  # "16개의 벡터" reads as sixteen vectors


def test_in_a_narrow_page_column_rows_keep_their_labels_and_keys_go_to_hover():
    n = 43
    fig = figures.head_heatmap(weights(n, n), labels(n), labels(n), head=0, clickable=False, width_px=340)
    geo = figures.square_geometry(figures.axis_labels(labels(n)), figures.axis_labels(labels(n)), max_width=340)
    assert fig.layout.width <= 340 and named_every(fig.layout.yaxis) and fig.layout.xaxis.showticklabels is False
    assert geo.row >= figures.LABEL_ROW_PX and fig.layout.height >= geo.row * n
    few = figures.mask_heatmap(np.ones((5, 5), bool), labels(5), labels(5), width_px=340)
    assert few.layout.width <= 340 and named_every(few.layout.xaxis) and named_every(few.layout.yaxis)


def test_a_grid_too_tall_for_labelled_rows_names_tokens_on_hover_instead_of_squeezing_them():
    fig = figures.heads_grid(weights(16, 64, 64), labels(64), labels(64))
    assert fig.layout.yaxis.showticklabels is False and fig.layout.height <= figures.GRID_MAX_PX
    assert "%{y}" in fig.data[0].hovertemplate and "%{x}" in fig.data[0].hovertemplate


@pytest.mark.parametrize("n", [3, 5, 8, 16, 43])
def test_the_labs_pair_is_no_wider_than_its_cells_labels_and_titles_need(n):
    """The lab's 'with and without 1/sqrt(head_dim)' pair was stretched over the page (cells ~65 x 30 px at 5
    tokens): it is as wide as its panels need (their key labels and titles), never wider than the page."""
    import numpy as np

    from mha.charts import explain as xf
    from mha.charts import figures

    labels = [f"w{i}" for i in range(n)]
    w = np.full((n, n), 1.0 / n)
    fig = xf.weights_pair(w, w, labels, labels)
    width = fig.layout.width
    assert width is not None and 420 <= width <= figures.GRID_WIDTH_PX
    assert (width < figures.GRID_WIDTH_PX) == (n <= 8)  # short sentences: narrower than the page
    need = sum(figures.label_width_px([lab], figures.GRID_FONT) for lab in labels)
    if n <= 8:  # both panels' upright key labels fit (longer sentences: heads_grid turns or hides them)
        assert width >= 2 * need + figures.COLORBAR_PX


@pytest.mark.parametrize("n", [5, 12, 13, 43])
def test_the_labs_temperature_map_gets_the_page_width_for_long_sentences(n):
    """43 keys in the 360 px column beside the row statistics were a 2-3 px strip: past 12 tokens the map is laid
    out for the page's width (its cells as square_geometry draws them alone)."""
    from harness.apptest import charts_by_key, open_page

    at = open_page("pages/lab.py", text=" ".join(f"w{i}" for i in range(n)))
    assert not at.exception
    spec = charts_by_key(at)["lab_temp_weights"]
    width = spec["layout"]["width"]
    assert (width <= 360) == (n <= 12), width
    cell = (width - spec["layout"]["margin"]["l"] - spec["layout"]["margin"]["r"]) / n
    assert cell >= 9 or n <= 12, cell  # at 43 keys: ~13 px cells, not 2-3 px
