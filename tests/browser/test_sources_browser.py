"""Weight sources in a real browser (headless Chromium): a link to trained weights on a freshly started server
retrains and draws the trained heads; a link to a local pretrained model loads it and shows the badge. Fixtures:
conftest.py (every page fails on console errors and on Streamlit error boxes)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from harness.chromium import goto, wait_app_idle

from mha.core.i18n import text as i18n_text

from . import canvas as cv

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: tiny_models
import tiny_models  # noqa: E402

pytestmark = pytest.mark.browser


def heads_in_grid(page) -> int:
    cv.wait_ready(page, "grid")
    return len(cv.panels(page, "grid"))


def test_a_trained_link_on_a_fresh_server(fresh_server, open_page):
    server = fresh_server()
    page = open_page(server.url, "trained")
    goto(page, "playground", timeout_ms=120_000, source="trained", task="previous")
    note = i18n_text("src_note_trained", "en", task=i18n_text("tr_task_name_previous", "en"), steps=300, seed=0,
                     d_model=16, num_heads=4, half=8).replace("**", "")
    main = page.locator("[data-testid='stMain']")
    assert note.split(" Inputs")[0] in main.inner_text()
    assert heads_in_grid(page) == 4
    # the trained previous-word pattern is what the browser shows: some head puts every query's largest weight on
    # the key just before it (rows from 1; the first token has no previous one), read from every cell's tooltip
    T = len(cv.axis_texts(page, "grid", "y"))
    argmax = [[max(range(T), key=lambda j: cv.tooltip_number(cv.hover_cell(page, "grid", p, i, j))) for i in range(T)]
              for p in range(4)]
    assert any(rows[1:] == list(range(T - 1)) for rows in argmax), argmax


def test_a_local_pretrained_model_shows_its_badge(fresh_server, open_page, tmp_path):
    folder = tiny_models.build("bert", tmp_path / "bert")
    server = fresh_server()
    page = open_page(server.url, "pretrained")
    goto(page, "playground", timeout_ms=120_000, source="pretrained", model=str(folder), layer="1", text="the cat sat")
    page.wait_for_selector(".st-key-src_badge", timeout=120_000)  # a fresh server imports transformers first
    wait_app_idle(page)
    badge = page.locator(".st-key-src_badge")
    assert badge.count() == 1
    assert i18n_text("src_badge_ok", "en", diff=0.0).split(":")[0] in badge.inner_text()
    assert heads_in_grid(page) == 4
    assert {"[CLS]", "[SEP]"} <= set(cv.axis_texts(page, "grid", "y"))  # the model's own tokens
    assert page.locator("[data-testid='stSidebar'] [data-testid='stAlertContentError']").count() == 0


def test_pretrained_ticks_read_as_labels_and_the_hover_names_the_raw_piece(fresh_server, open_page, tmp_path):
    folder = tiny_models.build("gpt2", tmp_path / "gpt2")
    server = fresh_server()
    page = open_page(server.url, "pretrained")
    goto(page, "playground", timeout_ms=120_000, source="pretrained", model=str(folder), text="the cat playing")
    page.wait_for_selector(".st-key-src_badge", timeout=120_000)
    wait_app_idle(page)
    shown = ["t", "…he", "cat", "play", "…ing"]  # readable: no "Ġ", no raw part on the axis
    cv.wait_ready(page, "grid")
    assert cv.axis_texts(page, "grid", "y") == shown and cv.axis_texts(page, "grid", "x") == shown
    # the first head's middle cell ("cat" to "cat"): its hover names the raw piece "Ġcat" beside the label
    text = cv.hover_cell(page, "grid", 0, 2, 2)
    assert text.split("\n")[1:3] == ["query 2: cat · Ġcat", "key 2: cat · Ġcat"], text
    # the head view's token tooltip names it too
    title = page.locator(".hv .hv-q .hv-tok[data-i='2']").first.get_attribute("title")
    assert title == "2: cat · Ġcat", title
