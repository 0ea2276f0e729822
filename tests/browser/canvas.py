"""The Playground's heatmaps drawn on a canvas (``mha.app.components.heatmap_view``), read in Chromium: the one set of
helpers every browser test uses for them (the all-heads grid, key "grid", and the enlarged head, key "one_head_chart").

The chart lives in a component's open shadow root inside ``.st-key-<key>``; Playwright's CSS locators pierce it, so
``chart(page, key)`` is the chart's root ``.hm`` and ``evaluate`` on it reaches ``root.__hm`` (its test hooks). What
these helpers read is set by the same code that draws: ``data-ready`` (the payload's sig, once drawn), ``data-hover``,
``data-selected``, ``root.__hm.labels`` (every text drawn, with its font size) and ``root.__hm.box`` (a cell's
rectangle in the viewport). Hover and click go through the real mouse, at a cell's centre.
"""
from __future__ import annotations

import re
import time

from harness.chromium import wait_app_idle
from playwright.sync_api import TimeoutError as PlaywrightTimeout

HM = ".hm"


def chart(page, key: str):
    """The canvas chart's root (``.hm``) under the Streamlit element with key ``key``."""
    return page.locator(f".st-key-{key} {HM}")


def ready(page, key: str) -> str:
    """The sig of the picture the chart has drawn ("" while none)."""
    return chart(page, key).evaluate("r => r.dataset.ready || ''")


def wait_ready(page, key: str, *, other_than: str | None = None, timeout_s: float = 30) -> str:
    """Wait until the chart has drawn a picture (with ``other_than``: a different one from that sig); its sig."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            sig = ready(page, key)
        except PlaywrightTimeout:  # not in the page yet (the first run, a rerun replacing it)
            sig = ""
        if sig and sig != other_than:
            return sig
        assert time.monotonic() < deadline, f"{key}: no new picture drawn (data-ready {sig!r})"
        page.wait_for_timeout(100)


def labels(page, key: str, axis: str | None = None, panel: int | None = None) -> list[dict]:
    """The texts the chart drew (``root.__hm.labels``): {axis, panel, i, text, font (px), angle}; ``axis`` 'x', 'y'
    (tokens), 'title' (a panel's "head h"), 'bar', 'tick' (the colour bar), 'xtitle', 'ytitle'."""
    out = chart(page, key).evaluate("r => r.__hm ? r.__hm.labels : []")
    return [d for d in out if (axis is None or d["axis"] == axis) and (panel is None or d["panel"] == panel)]


def values(page, key: str) -> list[float] | None:
    """The exact numbers the chart holds (its payload's float32 values, panel by panel, row by row), or None when
    it holds none (a large grid sends colour codes only)."""
    return chart(page, key).evaluate("r => r.__hm && r.__hm.values ? r.__hm.values() : null")


def axis_texts(page, key: str, axis: str, panel: int = 0) -> list[str]:
    """The token labels drawn along ``axis`` of ``panel``, in position order (each drawn once, at its position)."""
    drawn = sorted((d["i"], d["text"]) for d in labels(page, key, axis, panel))
    assert [i for i, _ in drawn] == list(range(len(drawn))), f"{key} {axis}: positions {[i for i, _ in drawn]}"
    return [text for _, text in drawn]


def wait_for_labels(page, key: str, axis: str, expected: list[str], panel: int = 0, timeout_s: float = 20) -> None:
    """Wait until the chart shows exactly these token labels along ``axis`` (a repaint may still show the old ones)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            shown = axis_texts(page, key, axis, panel)
        except (PlaywrightTimeout, AssertionError) as exc:
            shown = f"not drawn ({exc})"
        if shown == expected:
            return
        assert time.monotonic() < deadline, f"{key} {axis} labels: {shown} != {expected}"
        page.wait_for_timeout(150)


def panels(page, key: str) -> list[dict]:
    """The chart's panels: {head, x, y, w, h} (in the canvas, CSS px), one per head shown."""
    return chart(page, key).evaluate("r => r.__hm.panels()")


def titles(page, key: str) -> list[str]:
    return [d["text"] for d in sorted(labels(page, key, "title"), key=lambda d: d["panel"])]


def note(page, key: str) -> str:
    """The note under the chart when it shows one ("" else): the keys are named on hover."""
    return chart(page, key).evaluate("r => { const n = r.querySelector('.hm-note');"
                                     " return n && n.style.display !== 'none' ? n.textContent : ''; }")


def foreign_elements(page, key: str) -> list[str]:
    """Elements inside the chart that it does not make itself (it makes divs, canvases and its PNG button, whose
    label is its own text): a token turned into markup would show here."""
    return chart(page, key).evaluate(
        "r => [...r.querySelectorAll('*')].filter(e => !['DIV', 'CANVAS'].includes(e.tagName)"
        " && !(e.matches('button.hm-png') && e.childElementCount === 0)).map(e => e.outerHTML.slice(0, 200))")


def cell_size(page, key: str) -> tuple[float, float]:
    """(width, height) of one cell in CSS px (``data-cell``)."""
    w, h = chart(page, key).evaluate("r => r.dataset.cell").split("x")
    return float(w), float(h)


# Bring a cell into the window: Streamlit scrolls its main area, not the document. The nearest scrolled ancestor
# (across the component's shadow root) is scrolled until the cell is in the middle band of the window.
_SCROLL_TO_CELL_JS = """(r, [p, i, j]) => {
  const b = r.__hm.box(p, i, j), mid = b.y + b.h / 2;
  if (mid < 120 || mid > innerHeight - 60) {
    let e = r;
    while ((e = e.parentElement || e.getRootNode().host)) {
      const s = getComputedStyle(e);
      if (/(auto|scroll)/.test(s.overflowY) && e.scrollHeight > e.clientHeight) {
        e.scrollBy(0, mid - innerHeight / 2); break;
      }
    }
  }
  return r.__hm.box(p, i, j);
}"""


def cell_centre(page, key: str, panel: int, i: int, j: int) -> tuple[float, float]:
    """The viewport coordinates of the centre of cell (query i, key j) of ``panel``, scrolled into the window."""
    b = chart(page, key).evaluate(_SCROLL_TO_CELL_JS, [panel, i, j])
    assert b["w"] > 0 and b["h"] > 0, b
    return b["x"] + b["w"] / 2, b["y"] + b["h"] / 2


def hover_cell(page, key: str, panel: int, i: int, j: int) -> str:
    """Point at a cell with the mouse; the tooltip's text once the chart says it points at that very cell."""
    x, y = cell_centre(page, key, panel, i, j)
    page.mouse.move(x, y)
    root = chart(page, key)
    want = f"{panel},{i},{j}"
    deadline = time.monotonic() + 5
    while (hover := root.evaluate("r => r.dataset.hover")) != want:
        assert time.monotonic() < deadline, f"{key}: pointing at ({x:.0f}, {y:.0f}) hovers {hover!r}, not {want}"
        page.wait_for_timeout(50)
    tip = page.locator(f".st-key-{key} .hm-tip")
    assert tip.is_visible(), f"{key}: no tooltip over cell {want}"
    return tip.text_content()


NUMBER_LINE = re.compile(r"^[^:\n]+: ([-\u2212]?\d+\.\d{4})$", re.M)  # a minus as the page writes it (U+2212)


def tooltip_number(text: str) -> float:
    """The number a tooltip shows (its line "<weights|scores>: 0.1234")."""
    lines = text.split("\n")
    m = NUMBER_LINE.fullmatch(lines[3]) if len(lines) > 3 else None
    assert m, f"no number in the tooltip's fourth line: {text!r}"
    return float(m.group(1).replace("\u2212", "-"))


def hover_values(page, key: str, panel: int, cells) -> list[float]:
    """The numbers the tooltips show for ``cells`` [(i, j), ...] of ``panel``."""
    return [tooltip_number(hover_cell(page, key, panel, i, j)) for i, j in cells]


def click_cell(page, key: str, panel: int, i: int, j: int) -> None:
    """Click the centre of a cell with the mouse (the chart must say it points at it first)."""
    hover_cell(page, key, panel, i, j)
    x, y = cell_centre(page, key, panel, i, j)
    page.mouse.click(x, y)


def selected(page, key: str) -> str:
    """The outlined cell, "query,key" ("" when none)."""
    return chart(page, key).evaluate("r => r.dataset.selected || ''")


def wait_selected(page, key: str, i: int, j: int, timeout_s: float = 20) -> None:
    """Wait until cell (i, j) is the outlined one."""
    poll(page, lambda: selected(page, key) == f"{i},{j}",
          lambda: f"{key}: cell {i},{j} never outlined (data-selected {selected(page, key)!r})", timeout_s)


def poll(page, check, what, timeout_s: float = 20) -> None:
    """Wait until ``check()`` holds; else fail saying ``what`` (a string, or a function giving one)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if check():
                return
        except PlaywrightTimeout:
            pass
        assert time.monotonic() < deadline, what() if callable(what) else f"never: {what}"
        page.wait_for_timeout(100)


def picture(page, key: str) -> str:
    """The chart's main canvas as a PNG data URL (the cells, labels and colour bar; the hover outline is on a canvas
    of its own): equal strings = the same picture, pixel for pixel."""
    return chart(page, key).evaluate("r => r.querySelector('canvas').toDataURL('image/png')")


def pixel(page, key: str, x: float, y: float) -> tuple[int, int, int]:
    """The colour of the main canvas at viewport point (x, y) (read from the canvas, at the device pixel)."""
    return tuple(chart(page, key).evaluate(
        """(r, [x, y]) => { const c = r.querySelector('canvas'), b = c.getBoundingClientRect(),
                              s = c.width / b.width;
                            const d = c.getContext('2d').getImageData(Math.floor((x - b.left) * s),
                                                                      Math.floor((y - b.top) * s), 1, 1).data;
                            return [d[0], d[1], d[2]]; }""", [x, y]))


# ----------------------------------------------------------------------------------- the Playground's enlarged head
def picker_value(page, key: str) -> str:
    """What the selectbox with widget key ``key`` shows ("position: token" for a token picker)."""
    return page.locator(f".st-key-{key} input[role='combobox']").input_value().strip()


def pick_cell(page, i: int, j: int, query_label: str, key_label: str, key: str = "one_head_chart") -> None:
    """Click cell (query i, key j) of the Playground's enlarged head; wait until the Query and Key token pickers show
    it and the chart outlines it."""
    click_cell(page, key, 0, i, j)
    wait_app_idle(page, rerun=True)
    want = (f"{i}: {query_label}", f"{j}: {key_label}")
    poll(page, lambda: (picker_value(page, "cell_query"), picker_value(page, "cell_key")) == want,
          lambda: f"the token pickers show {(picker_value(page, 'cell_query'), picker_value(page, 'cell_key'))}, "
                  f"not {want}", 20)
    wait_selected(page, key, i, j)


# Where each token label sits, in canvas px, as the chart draws it (mha.app.components.heatmap_view: a query label ends
# 5 px left
# of its row, a key label is centred on its column, turned upright when its cells are narrower than the text), its
# width measured with the chart's own font: [axis, panel, i, text, font, left, top, right, bottom].
_LABEL_BOXES_JS = """r => {
  const ctx = document.createElement('canvas').getContext('2d'), family = getComputedStyle(r).fontFamily;
  const [cw, ch] = r.dataset.cell.split('x').map(Number), P = r.__hm.panels();
  const single = P.length === 1 && !r.__hm.labels.some(d => d.axis === 'title');
  return r.__hm.labels.filter(d => d.axis === 'x' || d.axis === 'y').map(d => {
    ctx.font = `${d.font}px ${family}`;
    const w = ctx.measureText(d.text).width, p = P[d.panel];
    let box;
    if (d.axis === 'y') {
      const y = p.y + (d.i + 0.5) * ch; box = [p.x - 5 - w, y - d.font / 2, p.x - 5, y + d.font / 2];
    }
    else {
      const x = p.x + (d.i + 0.5) * cw, y = single ? p.y - 5 : p.y + p.h + 5;
      if (d.angle === 0) box = single ? [x - w / 2, y - d.font, x + w / 2, y] : [x - w / 2, y, x + w / 2, y + d.font];
      else box = single ? [x - d.font / 2, y - w, x + d.font / 2, y] : [x - d.font / 2, y, x + d.font / 2, y + w];
    }
    return [d.axis, d.panel, d.i, d.text, d.font, ...box];
  });
}"""


def label_problems(page, key: str) -> list[str]:
    """Token labels that overlap a neighbour, a panel's cells, or fall outside the canvas; a canvas wider than the
    column it is drawn in."""
    boxes = chart(page, key).evaluate(_LABEL_BOXES_JS)
    size = chart(page, key).evaluate("r => { const c = r.querySelector('canvas');"
                                     " return [parseFloat(c.style.width), parseFloat(c.style.height)]; }")
    room = chart(page, key).evaluate("r => r.getBoundingClientRect().width")
    cells = [(p["x"], p["y"], p["x"] + p["w"], p["y"] + p["h"]) for p in panels(page, key)]
    out = [f"the canvas is {size[0]} px wide in a {room} px column"] if size[0] > room + 0.5 else []
    for b in boxes:
        if b[5] < -0.5 or b[6] < -0.5 or b[7] > size[0] + 0.5 or b[8] > size[1] + 0.5:
            out.append(f"outside the {size} canvas: {b}")
        if any(b[5] < c[2] - 0.5 and c[0] + 0.5 < b[7] and b[6] < c[3] - 0.5 and c[1] + 0.5 < b[8] for c in cells):
            out.append(f"over the cells: {b}")
    for axis, lo, hi in (("y", 6, 8), ("x", 5, 7)):
        for panel in {b[1] for b in boxes if b[0] == axis}:
            row = sorted((b for b in boxes if b[0] == axis and b[1] == panel), key=lambda b: b[2])
            out += [f"{a[3]!r} overlaps {b[3]!r}: {a} {b}" for a, b in zip(row, row[1:]) if b[lo] < a[hi] - 0.5]
    return out
