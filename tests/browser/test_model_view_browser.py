"""The model view (#26.1) in Chromium: every layer x head of a tiny local BERT as thumbnails on the Playground, hover
(layer, head, query, key, the model's own number), a click and the keyboard opening that layer and head below.
Read through tests/browser/canvas.py; fixtures: conftest.py."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from harness.chromium import goto, wait_app_idle

from . import canvas as cv

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: tiny_models
import tiny_models  # noqa: E402

pytestmark = pytest.mark.browser

KEY = "pg_model_view"
TEXT = "the cat sat on the mat"
LAYERS, HEADS = 3, 4


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tiny_models.build("bert", tmp_path_factory.mktemp("mv_browser") / "bert", layers=LAYERS)


def open_model_view(page, folder, **params) -> None:
    """The Playground on ``folder``'s model at TEXT, its model view drawn."""
    query = {"source": "pretrained", "model": str(folder), "text": TEXT, **params}
    goto(page, "playground", timeout_ms=120_000, **query)  # the first pretrained run imports transformers
    cv.wait_ready(page, KEY)


def model_numbers(folder) -> np.ndarray:
    """(L, H, T, T) the model's own output_attentions for TEXT: what the hover must say."""
    import torch

    from mha.weights import pretrained as P

    loaded = P.load_model(str(folder))
    tokens = P.model_tokens(loaded, [TEXT])
    with torch.no_grad():
        out = loaded.model(input_ids=tokens.ids, attention_mask=tokens.attention_mask,
                           token_type_ids=tokens.token_type_ids, output_attentions=True)
    return torch.stack(out.attentions)[:, 0].numpy()


def layer_shown(page) -> str:
    return page.locator(".st-key-layer input").input_value()


def test_every_layer_and_head_is_a_thumbnail_whose_hover_names_it(page, server, folder):
    open_model_view(page, folder, layer="1")
    panels = cv.panels(page, KEY)
    assert [(p["layer"], p["head"]) for p in panels] == [(v, h) for v in range(LAYERS) for h in range(HEADS)]
    assert cv.titles(page, KEY) == [f"L{v} H{h}" for v in range(LAYERS) for h in range(HEADS)]
    # a layer a row, its heads side by side, no thumbnail over another
    assert len({round(p["y"]) for p in panels}) == LAYERS and len({round(p["x"]) for p in panels}) == HEADS
    assert cv.chart(page, KEY).evaluate("r => r.dataset.marked") == str(1 * HEADS + 0)  # layer 1, head 0 framed
    assert not cv.labels(page, KEY, "x") and not cv.labels(page, KEY, "y")  # tokens on hover only
    theirs = model_numbers(folder)
    for v, h, i, j in ((0, 0, 0, 0), (2, 3, 4, 1), (1, 2, 7, 7)):
        tip = cv.hover_cell(page, KEY, v * HEADS + h, i, j)
        lines = tip.split("\n")
        assert lines[0] == f"layer {v} · head {h}", tip
        assert lines[1].startswith(f"query {i}: ") and lines[2].startswith(f"key {j}: "), tip
        assert abs(cv.tooltip_number(tip) - theirs[v, h, i, j]) <= 1e-4, (tip, theirs[v, h, i, j])
    assert not cv.foreign_elements(page, KEY)


def test_a_click_opens_that_layer_and_head_below(page, server, folder):
    open_model_view(page, folder)
    assert layer_shown(page) == "0"
    grid_before = cv.ready(page, "grid")
    cv.click_cell(page, KEY, 2 * HEADS + 3, 1, 1)  # layer 2, head 3
    wait_app_idle(page, rerun=True)
    cv.poll(page, lambda: layer_shown(page) == "2", lambda: f"layer control at {layer_shown(page)!r}, not 2")
    cv.wait_ready(page, "grid", other_than=grid_before)  # the layer's grid is layer 2's now
    cv.poll(page, lambda: cv.chart(page, KEY).evaluate("r => r.dataset.marked") == str(2 * HEADS + 3),
            "the opened layer and head framed in the model view")
    cv.poll(page, lambda: "layer=2" in page.url, lambda: f"the link keeps the layer: {page.url}")
    theirs = model_numbers(folder)
    tip = cv.hover_cell(page, "one_head_chart", 0, 1, 2)  # the enlarged head is layer 2's head 3
    assert abs(cv.tooltip_number(tip) - theirs[2, 3, 1, 2]) <= 1e-4, tip


def test_the_keyboard_moves_between_thumbnails_and_enter_opens_one(page, server, folder):
    open_model_view(page, folder)
    over = page.locator(f".st-key-{KEY} canvas.hm-over")
    over.focus()
    hover = lambda: cv.chart(page, KEY).evaluate("r => r.dataset.hover")  # noqa: E731
    T = round(cv.panels(page, KEY)[0]["h"] / cv.cell_size(page, KEY)[1])
    assert hover() == "0,0,0"  # the framed thumbnail (layer 0, head 0), first cell
    for _ in range(T):
        page.keyboard.press("ArrowRight")  # past the last key: the next head of the layer
    assert hover() == "1,0,0"
    for _ in range(T):
        page.keyboard.press("ArrowDown")  # past the last query: the same head one layer down
    assert hover() == f"{HEADS + 1},0,0"
    page.keyboard.press("Enter")
    wait_app_idle(page, rerun=True)
    cv.poll(page, lambda: layer_shown(page) == "1", lambda: f"layer control at {layer_shown(page)!r}, not 1")
    cv.poll(page, lambda: cv.chart(page, KEY).evaluate("r => r.dataset.marked") == str(HEADS + 1),
            "layer 1, head 1 framed after Enter")


def test_the_model_view_in_korean(page, server, folder):
    open_model_view(page, folder, lang="ko")
    assert cv.titles(page, KEY)[:2] == ["0층 헤드 0", "0층 헤드 1"]
    tip = cv.hover_cell(page, KEY, HEADS + 2, 0, 0)
    assert tip.split("\n")[0] == "1층 · 헤드 2", tip


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_model_lists_other_model_is_not_cut(page, server, folder, lang):
    """A folder is 'another model' in the model list: its name fits the sidebar's box (it was cut, #26.6)."""
    from mha.core.i18n import text as i18n_text

    open_model_view(page, folder, lang=lang)
    shown = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox'] input[role='combobox']")
    want = i18n_text("src_model_other", lang)
    values = [shown.nth(n).input_value() for n in range(shown.count())]
    assert want in values, values
    box = shown.nth(values.index(want))
    # the text's width in the box's own font against the room inside the box
    width, room = box.evaluate("i => { const s = getComputedStyle(i), c = document.createElement('canvas')"
                               ".getContext('2d'); c.font = s.font; return [c.measureText(i.value).width,"
                               " i.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)]; }")
    assert width <= room, (want, width, room)


def test_a_table_of_twelve_heads_is_shown_whole(page, server, tmp_path):
    """The Heads page's table, a row per head, on a 12-head model: every row in view, none behind a scroll bar
    (Streamlit shows ten rows by default: it was cut at head 9, #26.6)."""
    folder12 = tiny_models.build("bert", tmp_path / "bert12", d_model=48, num_heads=12, layers=2)
    goto(page, "heads", timeout_ms=120_000, source="pretrained", model=str(folder12), text=TEXT)
    grid = page.locator(".st-key-heads_stats_table [data-testid='stDataFrame']")
    grid.wait_for(timeout=60_000)
    height = grid.bounding_box()["height"]
    rows = 12 + 1  # the heads and the header row, 35 px each (Streamlit's row height)
    assert height >= rows * 35 - 2, (height, rows * 35)


def test_a_repeated_words_ticks_hold_no_invisible_character(page, server):
    """What a learner selects and copies from a chart's axis: a repeated word is written as itself, without the
    zero-width space that keeps its row apart (#26.6)."""
    goto(page, "masks", text="the cat saw the dog")
    page.wait_for_selector(".js-plotly-plot .xtick text", timeout=60_000)
    ticks = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot .xtick text, "
                          ".js-plotly-plot .ytick text')].map(t => t.textContent)")
    words = [t for t in ticks if t.replace("\u200b", "") == "the"]
    assert len(words) >= 2, ticks  # the repeated word is on the axes
    assert not [t for t in ticks if "\u200b" in t], [t for t in ticks if "\u200b" in t]
