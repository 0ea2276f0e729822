"""Readable at every size (#16 items 9 and 10), measured in Chromium: the text Plotly draws, the text the Playground's
canvas heatmaps draw, and Korean line breaks.

Plotly's sizes are read from the drawn SVG (``getBBox``, the computed font size, times any scale Plotly applies to
fit text in a bar), never estimated; the canvas heatmaps' from the list of texts they drew (font px, see
tests/browser/canvas.py), their widths measured with the page's font. Every tick label is at least MIN_PX high,
every token of a 43-token sentence is named down the enlarged head, Step by step and the all-heads grid, no label
overlaps another or the cells, the enlarged head's cells are near square, and Korean text breaks between words only.
"""
from __future__ import annotations

import pytest
from harness.apptest import all_open
from harness.chromium import goto, read_until

from mha.core.i18n import text as i18n_text
from mha.core.tokens import display_labels, tokenize

from . import canvas as cv

pytestmark = pytest.mark.browser

LONG = ("The quick brown fox jumps over the lazy dog while the small cat sleeps on a warm mat near the old red barn "
        "and the farmer walks slowly to the green field to see his tired horse eat fresh hay today and sleeps")
N_LONG = len(tokenize(LONG).tokens)
MIN_PX = 10.5  # tick labels are drawn at 11-12 px (mha.charts.figures.MIN_FONT)
CANVAS_MIN_PX = 11  # the canvas heatmaps draw whole pixel sizes: 11 px at least


def canvas_small_text(page, key: str) -> list[dict]:
    """The texts a canvas heatmap drew below CANVAS_MIN_PX (checked to have drawn some: the check could fail)."""
    drawn = cv.labels(page, key)
    assert drawn, f"{key}: no text drawn"
    return [d for d in drawn if d["font"] < CANVAS_MIN_PX]

_TEXTS_JS = """(root) => [
    ...root.querySelectorAll('.xtick text, .ytick text, .textpoint text, text.bartext, .annotation-text')]
    .map(t => { const b = t.getBBox(), m = t.getCTM(), s = Math.hypot(m.a, m.b);  // s: Plotly's shrink-to-fit scale
                return [t.closest('[class*=st-key-]')?.className.match(/st-key-(\\S+)/)?.[1]
                 || '?', t.textContent, s * parseFloat(getComputedStyle(t).fontSize), s * b.height]; })"""


def drawn_texts(page) -> list[tuple[str, str, float, float]]:
    """(chart key, text, drawn font size px, drawn height px) of every tick label, cell number, bar label and note in
    the charts."""
    return page.locator("[data-testid='stMain']").evaluate(_TEXTS_JS)


def plot_box(page, key: str) -> dict:
    """The drawn size of a Plotly chart's first heatmap (its cells, without labels)."""
    return page.locator(f".st-key-{key} .heatmaplayer image").first.evaluate(
        "r => { const b = r.getBoundingClientRect(); return {w: b.width, h: b.height}; }")


def word_break(page) -> str:
    return page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer'] p").first.evaluate(
        "p => getComputedStyle(p).wordBreak")


# Every folded section open (#16.3: their charts are sent only then), so that their text is measured too.
FOLDED_OPEN = {"playground": all_open("pages/playground.py"), "explain": all_open("pages/explain.py")}


def test_long_sentence_every_token_named_and_no_small_text(page, server):
    assert N_LONG == 43
    goto(page, "playground", text=LONG, lang="ko", **FOLDED_OPEN["playground"])
    tokens = display_labels(tokenize(LONG).tokens)
    # the enlarged head names all 43 queries and keys, and its cells are near square
    cv.wait_for_labels(page, "one_head_chart", "y", tokens)
    cv.wait_for_labels(page, "one_head_chart", "x", tokens)
    w, h = cv.cell_size(page, "one_head_chart")
    assert 0.8 <= w / h <= 1.25, (w, h)
    # the all-heads grid names every query down its first column (the keys: a note says to hover)
    cv.wait_for_labels(page, "grid", "y", tokens)
    assert not cv.labels(page, "grid", "x") and cv.note(page, "grid") == i18n_text("ch_keys_on_hover", "ko")
    for key in ("one_head_chart", "grid"):
        assert not cv.label_problems(page, key), (key, cv.label_problems(page, key)[:5])
        assert not canvas_small_text(page, key), (key, canvas_small_text(page, key)[:5])
    texts = drawn_texts(page)
    assert texts, "no chart text found: the check could not fail"
    small = [t for t in texts if t[2] < MIN_PX or 0 < t[3] < MIN_PX]
    assert not small, f"text drawn below {MIN_PX} px: {small[:10]}"
    assert word_break(page) == "keep-all"  # Korean: lines break between words only

    goto(page, "explain", text=LONG, lang="ko", **FOLDED_OPEN["explain"])
    for key in ("ex_x", "ex_concat", "ex_output"):  # every row named, none overlapping (drawn on canvases: #27.4)
        cv.wait_for_labels(page, key, "y", tokens)
        assert not cv.label_problems(page, key), (key, cv.label_problems(page, key)[:5])
        assert not canvas_small_text(page, key), (key, canvas_small_text(page, key)[:5])
    small = [t for t in drawn_texts(page) if t[2] < MIN_PX or 0 < t[3] < MIN_PX]
    assert not small, f"Step by step: text drawn below {MIN_PX} px: {small[:10]}"


def test_wide_heads_and_short_sentences_are_readable(page, server):
    # head_dim 16 (the cell breakdown) and 16 heads (Step 9's head labels): nothing small, every row named
    goto(page, "explain", d_model=256, num_heads=16, lang="en", **FOLDED_OPEN["explain"])
    cv.wait_for_labels(page, "ex_concat", "y", display_labels(tokenize("Orange is my favorite fruit").tokens))
    assert len(cv.labels(page, "ex_concat", "band")) == 16  # every head's block named (h0 … h15)
    assert not canvas_small_text(page, "ex_concat"), canvas_small_text(page, "ex_concat")[:5]
    # the dot product's sum over its bar is measured too (Plotly shrank it to ~8 px to fit its bar); the waterfall is a
    # Plotly chart that a first visit holds until the first canvas has drawn (components/paint_gate), and Plotly
    # draws its texts after the plot: read them once the sum is there (a busy machine took longer than one read)
    def has_sum(texts):
        return [t for t in texts if t[0].endswith("_sum") and t[1][-5:-4] == "."]

    texts = read_until(page, lambda: drawn_texts(page), has_sum)
    assert has_sum(texts), "the waterfall's sum label is missing"
    small = [t for t in texts if t[2] < MIN_PX or 0 < t[3] < MIN_PX]
    assert not small, f"text drawn below {MIN_PX} px: {small[:10]}"
    assert word_break(page) != "keep-all"  # English keeps the browser's own line breaking
    goto(page, "playground", text="the cat sat on the mat today", lang="en", look="head")
    cv.wait_ready(page, "one_head_chart")
    w, h = cv.cell_size(page, "one_head_chart")
    assert 0.8 <= w / h <= 1.25 and w >= 30, (w, h)  # 7 x 7 tokens: square cells, not 100 x 23 px
    xs = cv.labels(page, "one_head_chart", "x")
    assert len(xs) == 7 and all(d["angle"] == 0 for d in xs), xs  # short keys fit their cells: horizontal
    for key in ("one_head_chart", "grid"):
        assert not cv.label_problems(page, key), (key, cv.label_problems(page, key)[:5])
        assert not canvas_small_text(page, key), (key, canvas_small_text(page, key)[:5])


@pytest.mark.parametrize("path, params, keys", [
    ("masks", {}, ("mk_mask_chart", "mk_scores_chart", "mk_weights_chart")),
    ("bugs", {"bz_bug": "no_scaling"}, ("bz_bug_chart", "bz_ok_chart", "bz_diff_chart")),
    ("bugs", {}, ("bz_seed_chart", "bz_ok_chart")),
    ("lab", {}, ("lab_temp_weights",)),
    ("", {}, ("home_picture",)),
])
def test_charts_in_page_columns_keep_square_cells(page, server, path, params, keys):
    # charts laid out for columns wider than the ones they are drawn in get squeezed cells: the Masks page's and the
    # bug zoo's three side by side were 17 x 24 px, the lab's temperature map 28 x 40 px
    goto(page, path, lang="ko", **params)
    n = len(tokenize("Orange is my favorite fruit").tokens)
    for key in keys:
        box = plot_box(page, key)
        assert 0.8 <= box["w"] / box["h"] <= 1.25, (key, box)
        assert box["h"] / n >= 15, (key, box)  # a row still holds its 12 px label
        bar = page.locator(f".st-key-{key} .colorbar .cbfills").first
        if bar.count():  # beside a short plot the colour bar keeps room for its ticks (it was ~10 px high)
            assert bar.evaluate("b => b.getBoundingClientRect().height") >= 100, key


def test_colour_bar_titles_and_their_range_are_readable(page, server):
    # the weights bar says its range under its title ("범위 0 … 0.14 / (0 … 1 아님)" at 43 keys): it was a <sub>,
    # drawn at ~8 px
    goto(page, "playground", text=LONG, lang="ko", look="head")
    cv.wait_ready(page, "grid")
    for key in ("grid", "one_head_chart"):  # the Playground's colour bars are on its canvases
        bar = cv.labels(page, key, "bar") + cv.labels(page, key, "tick")
        assert any("범위 0" in d["text"] for d in bar), (key, bar)
        assert len(cv.labels(page, key, "tick")) >= 3, key
        small = [d for d in bar if d["font"] < CANVAS_MIN_PX]
        assert not small, f"{key}: colour bar text drawn below {CANVAS_MIN_PX} px: {small[:10]}"


@pytest.mark.parametrize("path", ["heads", "lab", "masks", "bugs"])
def test_other_pages_draw_no_small_chart_text_at_43_tokens(page, server, path):
    goto(page, path, text=LONG, lang="ko")
    texts = drawn_texts(page)
    assert texts, f"{path}: no chart text found: the check could not fail"
    small = [t for t in texts if t[2] < MIN_PX or 0 < t[3] < MIN_PX]
    assert not small, f"{path}: text drawn below {MIN_PX} px: {small[:10]}"
    assert word_break(page) == "keep-all"


def test_a_phone_wide_window_keeps_the_canvases_in_their_column(page, server):
    # 380 px: four panels of 23 keys would need cells under the 2 px minimum, and the grid ran 25 px past its column
    # (the colour bar's range cut off); it now puts fewer panels a row
    page.set_viewport_size({"width": 380, "height": 1000})
    text = " ".join(LONG.split()[:23])
    goto(page, "playground", text=text, lang="ko", look="head")
    for key in ("grid", "one_head_chart"):
        cv.wait_ready(page, key)
        assert not cv.label_problems(page, key), (key, cv.label_problems(page, key)[:5])
    assert len({p["y"] for p in cv.panels(page, "grid")}) > 1, "four panels of 23 keys do not fit a row at 380 px"
