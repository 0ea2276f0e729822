"""The Playground's canvas heatmaps (mha.app.components.heatmap_view) as a learner meets them, in Chromium: where the
tooltip sits, what the pointer says can be clicked, the keyboard after the mouse has been there, how the grid's panels
wrap. Read through tests/browser/canvas.py; fixtures: conftest.py."""
from __future__ import annotations

import pytest
from harness.chromium import goto, wait_app_idle

from mha.core.i18n import text as i18n_text
from mha.core.tokens import display_labels, tokenize
from mha.weights.view import DEFAULT_TEXT

from . import canvas as cv

pytestmark = pytest.mark.browser

CHARTS = ("grid", "one_head_chart")
CHOSEN_HEAD = "document.querySelector(\".st-key-head button[aria-checked='true']\")?.innerText.trim()"


def overlap(a: dict, b: dict) -> bool:
    """Do two rectangles ({x, y, width|w, height|h}) share more than an edge?"""
    aw, ah = a.get("width", a.get("w")), a.get("height", a.get("h"))
    bw, bh = b.get("width", b.get("w")), b.get("height", b.get("h"))
    return a["x"] < b["x"] + bw - 0.5 and b["x"] < a["x"] + aw - 0.5 and a["y"] < b["y"] + bh - 0.5 \
        and b["y"] < a["y"] + ah - 0.5


def grid_shape(page, key: str) -> tuple[int, int]:
    """(queries, keys) of the chart's panels, from their size and the cell size."""
    p = cv.panels(page, key)[0]
    cw, ch = cv.cell_size(page, key)
    return round(p["h"] / ch), round(p["w"] / cw)


@pytest.mark.parametrize("width, lang", [(1400, "en"), (380, "ko")])
def test_the_tooltip_sits_beside_the_cell_it_names(page, server, width, lang):
    """The tooltip never covers the cell it describes (the enlarged head's cells are larger than the 12 px the
    tooltip used to keep from the pointer: it hid the cell's corner and its hover outline), and stays in the column."""
    page.set_viewport_size({"width": width, "height": 1000})
    goto(page, "playground", lang=lang, look="head")
    for key in CHARTS:
        Tq, Tk = grid_shape(page, key)
        last = len(cv.panels(page, key)) - 1
        for p, i, j in ((0, 0, 0), (0, Tq - 1, 0), (last, 0, Tk - 1), (last, Tq - 1, Tk - 1), (0, Tq // 2, Tk // 2)):
            cv.hover_cell(page, key, p, i, j)
            tip = page.locator(f".st-key-{key} .hm-tip").bounding_box()
            cell = cv.chart(page, key).evaluate("(r, [p, i, j]) => r.__hm.box(p, i, j)", [p, i, j])
            column = cv.chart(page, key).evaluate("r => { const b = r.getBoundingClientRect();"
                                                  " return {left: b.left, right: b.right}; }")
            assert not overlap(tip, cell), (key, (p, i, j), tip, cell)
            assert column["left"] - 0.5 <= tip["x"] and tip["x"] + tip["width"] <= column["right"] + 0.5, \
                (key, (p, i, j), tip, column)


def test_the_pointer_and_a_click_on_a_heads_title(page, server):
    """A hand over what a click answers (a cell; in the grid also a panel's title and key names), an arrow over the
    rest (the colour bar, the gaps); a click on the title "head 2" enlarges head 2, as a click on its cells does."""
    goto(page, "playground", num_heads=4)
    over = page.locator(".st-key-grid canvas.hm-over")
    cursor = lambda: over.evaluate("c => getComputedStyle(c).cursor")  # noqa: E731
    x, y = cv.cell_centre(page, "grid", 1, 2, 2)
    page.mouse.move(x, y)
    cv.poll(page, lambda: cursor() == "pointer", lambda: f"over a cell the cursor is {cursor()!r}")
    box = over.bounding_box()
    page.mouse.move(box["x"] + box["width"] - 3, y)  # the colour bar's ticks
    cv.poll(page, lambda: cursor() != "pointer", "an arrow over the colour bar")
    panel = cv.panels(page, "grid")[2]
    page.mouse.move(box["x"] + panel["x"] + panel["w"] / 2, box["y"] + panel["y"] - 10)  # on "head 2"
    cv.poll(page, lambda: cursor() == "pointer", lambda: f"over a head's title the cursor is {cursor()!r}")
    page.mouse.click(box["x"] + panel["x"] + panel["w"] / 2, box["y"] + panel["y"] - 10)
    wait_app_idle(page, rerun=True)
    page.wait_for_function(f"() => {CHOSEN_HEAD} === '2'", timeout=20_000)

    one = page.locator(".st-key-one_head_chart canvas.hm-over")
    b = one.bounding_box()
    page.mouse.move(b["x"] + 3, b["y"] + 3)  # the key axis title's corner: nothing to click
    cv.poll(page, lambda: one.evaluate("c => getComputedStyle(c).cursor") != "pointer", "an arrow off the cells")


def test_the_keys_take_up_where_the_mouse_left(page, server):
    """Tab to the enlarged head, point at a cell, move the mouse away: the arrows and Enter still work (they did
    nothing until the chart was focused again), from the cell the mouse left."""
    tokens = display_labels(tokenize(DEFAULT_TEXT).tokens)
    goto(page, "playground", num_heads=4, look="head")
    key = "one_head_chart"
    page.locator(f".st-key-{key} canvas.hm-over").focus()
    cv.hover_cell(page, key, 0, 3, 1)
    page.mouse.move(2, 2)
    hover = lambda: cv.chart(page, key).evaluate("r => r.dataset.hover")  # noqa: E731
    cv.poll(page, lambda: hover() == "", "the tooltip goes when the mouse leaves")
    page.keyboard.press("ArrowRight")
    assert hover() == "0,3,1"
    page.keyboard.press("ArrowRight")
    assert hover() == "0,3,2"
    page.keyboard.press("Enter")
    wait_app_idle(page, rerun=True)
    cv.wait_selected(page, key, 3, 2)
    cv.poll(page, lambda: (cv.picker_value(page, "cell_query"), cv.picker_value(page, "cell_key")) ==
            (f"3: {tokens[3]}", f"2: {tokens[2]}"), "the pickers at the cell picked by keyboard")


def test_grid_panels_wrap_in_even_rows_and_use_the_width(page, server):
    """128 tokens (no query names drawn): the width the names would take is not kept free. Four heads wrap 2 + 2 (not
    3 + 1); sixteen heads put as many panels a row as fit at the 2 px least cell width (two a row made the grid
    3,500 px tall while three fit)."""
    text = " ".join(f"w{i}" for i in range(128))
    for heads, d_model in ((4, 16), (16, 256)):
        goto(page, "playground", text=text, num_heads=heads, d_model=d_model)
        P = cv.panels(page, "grid")
        assert len(P) == heads and not cv.labels(page, "grid", "y")
        rows = sorted({p["y"] for p in P})
        per_row = [sum(p["y"] == y for p in P) for y in rows]
        cols = per_row[0]
        assert len(rows) == -(-heads // cols), per_row
        assert -(-heads // (cols - 1 or 1)) > len(rows) or cols == 1, f"{per_row}: fewer panels a row, as many rows"
        room = cv.chart(page, "grid").evaluate("r => r.getBoundingClientRect().width")
        canvas_w = cv.chart(page, "grid").evaluate("r => parseFloat(r.querySelector('canvas').style.width)")
        right = max(p["x"] + p["w"] for p in P)
        gap = P[1]["x"] - P[0]["x"] - P[0]["w"]
        bar = canvas_w - right  # the colour bar and its numbers, right of the cells

        def fits(k: int, gap=gap, bar=bar, room=room) -> bool:  # k panels of 128 keys at the 2 px least width here
            return k * 128 * 2 + (k - 1) * gap + bar <= room - 4

        most = max(k for k in range(1, 5) if k == 1 or fits(k))
        assert len(rows) == -(-heads // most), f"{per_row}: {most} panels fit a row ({room:.0f} px)"


# The overlay canvas's pixels inside a cell (device px), as [r, g, b] lists.
_OVERLAY_CELL_JS = """(r, [p, i, j]) => {
  const c = r.querySelector('canvas.hm-over'), b = c.getBoundingClientRect(), s = c.width / b.width;
  const box = r.__hm.box(p, i, j);
  const x = Math.round((box.x - b.left) * s), y = Math.round((box.y - b.top) * s);
  const d = c.getContext('2d').getImageData(x, y, Math.round(box.w * s), Math.round(box.h * s)).data;
  const out = [];
  for (let n = 0; n < d.length; n += 4) if (d[n + 3] > 200) out.push([d[n], d[n + 1], d[n + 2]]);
  return out;
}"""


def test_the_pointed_at_cell_is_outlined_dark_and_light(page, server):
    """The hover outline was one dark line: on the darkest cells (a trained head's ~1 weights, navy) it did not show.
    Now a dark line with a light one inside, on any cell big enough for both."""
    goto(page, "playground", num_heads=4, look="head")
    key = "one_head_chart"
    for cell in ((0, 1, 2), (0, 4, 0)):
        cv.hover_cell(page, key, *cell)
        drawn = cv.chart(page, key).evaluate(_OVERLAY_CELL_JS, list(cell))
        lum = [0.3 * r + 0.59 * g + 0.11 * b for r, g, b in drawn]
        assert lum and min(lum) < 60 and max(lum) > 220, (cell, len(drawn), min(lum or [0]), max(lum or [0]))


def overlay_colour(page, panel: dict) -> tuple[int, int, int] | None:
    """The colour of the grid's overlay canvas on the left edge of a panel's frame (3 px left of its cells, half
    way down), or None where the overlay is clear."""
    rgba = cv.chart(page, "grid").evaluate(
        """(r, [x, y]) => { const c = r.querySelector('canvas.hm-over'), s = c.width / c.getBoundingClientRect().width;
                            return Array.from(c.getContext('2d').getImageData(Math.round(x * s), Math.round(y * s),
                                                                              1, 1).data); }""",
        [panel["x"] - 3, panel["y"] + panel["h"] / 2])
    return tuple(rgba[:3]) if rgba[3] > 200 else None


def orange(colour) -> bool:
    """The selection's orange (#ff7f0e), up to the canvas's rounding."""
    return colour is not None and max(abs(a - b) for a, b in zip(colour, (255, 127, 14))) <= 3


def test_the_grid_frames_the_enlarged_head_and_follows_the_picker(page, server):
    """The grid shows which head is enlarged below (a frame in the selection's orange): from the link, after the head
    picker (which reruns only the enlarged head: the grid is not redrawn, it is told in the page) and after a click
    on a panel."""
    goto(page, "playground", num_heads=4, head=2, look="head")
    cv.wait_ready(page, "grid")
    root = cv.chart(page, "grid")
    page.wait_for_function("r => r.dataset.marked === '2'", arg=root.element_handle(), timeout=10_000)
    sig = cv.ready(page, "grid")
    assert orange(overlay_colour(page, cv.panels(page, "grid")[2]))
    assert all(overlay_colour(page, p) is None for p in cv.panels(page, "grid")[:2])
    page.locator(".st-key-head button").filter(has_text="3").first.click()
    page.wait_for_function("r => r.dataset.marked === '3'", arg=root.element_handle(), timeout=20_000)
    assert cv.ready(page, "grid") == sig  # not redrawn: told by the enlarged head
    assert orange(overlay_colour(page, cv.panels(page, "grid")[3]))
    assert overlay_colour(page, cv.panels(page, "grid")[2]) is None  # the old frame is gone
    cv.click_cell(page, "grid", 1, 0, 0)
    page.wait_for_function("r => r.dataset.marked === '1'", arg=root.element_handle(), timeout=20_000)
    page.wait_for_function(f"() => {CHOSEN_HEAD} === '1'", timeout=20_000)


def test_the_tooltip_tells_a_repeated_word_by_its_position(page, server):
    """"the cat saw the dog": two keys read "the"; the tooltip names each by its position, as the token pickers do."""
    goto(page, "playground", text="the cat saw the dog", look="head")
    cv.wait_ready(page, "one_head_chart")
    first = cv.hover_cell(page, "one_head_chart", 0, 1, 0).split("\n")
    second = cv.hover_cell(page, "one_head_chart", 0, 1, 3).split("\n")
    assert first[1:3] == ["query 1: cat", "key 0: the"] and second[1:3] == ["query 1: cat", "key 3: the"]


def test_screen_readers_hear_what_each_chart_shows(page, server):
    goto(page, "playground", num_heads=2, head=1, lang="ko", look="head")
    for key in CHARTS:
        cv.wait_ready(page, key)
    label = lambda key: cv.chart(page, key).locator("canvas.hm-over").get_attribute("aria-label")  # noqa: E731
    weights, head = i18n_text("ch_weights", "ko"), i18n_text("ch_head", "ko")
    assert label("grid") == f"{weights}: {head} 0, {head} 1"
    assert label("one_head_chart") == f"{head} 1: {weights}"
