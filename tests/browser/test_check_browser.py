"""Check your code in a real browser (headless Chromium) on a freshly started server: a direct link with code opens
the page with that code in the editor; Check shows the verdict, both tensors of the first differing step as heatmaps,
the trace and the fix; a syntax error typed into the editor is explained right under it with a caret; Korean.

Fixtures and helpers: conftest.py. The screenshots (test-artifacts/) show the answer in English and in Korean.
"""
from __future__ import annotations

import urllib.parse

import pytest
from harness.apptest import decode
from harness.chromium import goto, wait_app_idle

from mha.check import code_link, examples
from mha.core.i18n import text as i18n_text

from .conftest import plotly_data, save_screenshot

pytestmark = pytest.mark.browser

EDITOR = ".st-key-ck_editor textarea"
RUN = ".st-key-ck_run button"
MAIN = "[data-testid='stMain']"
ANSWER_MS = 60_000  # the first check of a fresh server starts its worker (imports torch)


def _link(base: str, code: str, **params) -> str:
    return f"{base}/check?" + urllib.parse.urlencode({"code": code_link.encode(code), **params})


def _check(page) -> None:
    page.locator(RUN).click()
    wait_app_idle(page, rerun=True)


def test_direct_link_with_code_then_check_shows_verdict_and_heatmaps(fresh_server, open_page):
    server = fresh_server()
    page = open_page(server.url, "en")
    code = examples.bug_code("softmax_over_queries")
    goto(page, _link(server.url, code, lang="en", text="the cat sat on the mat"))
    assert page.locator(EDITOR).input_value() == code  # the first request of a fresh server: legacy routing too
    _check(page)
    step = i18n_text("ck_step_softmax", "en")
    page.get_by_text(step, exact=False).first.wait_for(timeout=ANSWER_MS)
    wait_app_idle(page)
    charts = plotly_data(page)
    keys = {k.split("-")[-1] if "-" in k else k: v for k, v in charts.items()}
    theirs = next(v for k, v in keys.items() if "ck_theirs_chart" in k)
    ours = next(v for k, v in keys.items() if "ck_ours_chart" in k)
    a, b = decode(theirs[0]["z"]), decode(ours[0]["z"])
    assert a.shape == b.shape == (6, 6)
    assert abs(a.sum(axis=0) - 1).max() < 1e-4 and abs(b.sum(axis=1) - 1).max() < 1e-4  # their columns, our rows
    assert page.locator(f"{MAIN} [data-testid='stCode']", has_text="dim=-1").count() >= 1  # the fix
    assert page.get_by_text(i18n_text("bz_softmax_over_queries_title", "en"), exact=False).count() >= 1
    save_screenshot(page, "check-answer-en")


def test_korean_answer_and_a_syntax_error_under_the_editor(fresh_server, open_page):
    server = fresh_server()
    page = open_page(server.url, "ko")
    goto(page, _link(server.url, examples.bug_code("no_scaling"), lang="ko"))
    _check(page)
    page.get_by_text(i18n_text("ck_step_scale", "ko"), exact=False).first.wait_for(timeout=ANSWER_MS)
    wait_app_idle(page)
    assert page.locator(f"{MAIN} .stPlotlyChart, {MAIN} [data-testid='stPlotlyChart']").count() >= 2
    save_screenshot(page, "check-answer-ko")

    page.locator(EDITOR).fill("import torch\nclass M(:\n    pass\n")
    page.locator(EDITOR).press("Control+Enter")  # a text area sends its value on Ctrl+Enter (or on leaving it)
    wait_app_idle(page, rerun=True)
    _check(page)
    page.get_by_text("^", exact=False).first.wait_for(timeout=ANSWER_MS)
    caret = page.locator(f"{MAIN} [data-testid='stCode']", has_text="class M(:").first.inner_text()
    assert "   2 | class M(:" in caret and caret.rstrip().endswith("^")
    warning = page.locator(f"{MAIN} [data-testid='stAlertContentWarning']").first.inner_text()
    assert "문법 오류" in warning
    # right under the editor: the editor, then the Check button, then the message
    boxes = [page.locator(sel).first.bounding_box() for sel in (EDITOR, RUN)]
    said = page.locator(f"{MAIN} [data-testid='stAlertContentWarning']").first.bounding_box()
    assert boxes[0]["y"] < boxes[1]["y"] < said["y"] < boxes[1]["y"] + 200
    save_screenshot(page, "check-syntax-ko")
