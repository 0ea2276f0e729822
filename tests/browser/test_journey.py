"""A learner's whole journey, in one browser page on a freshly started server (headless Chromium).

Arrive at the Playground by a direct link; type a sentence; look at the outputs; change d_model, num_heads and the
causal mask; click a head in the grid (it opens enlarged); click a cell of the enlarged head and read its breakdown;
switch to Korean; copy the link with the link box's button, open it in a new browser context (nothing shared but the
link) and get the same view, down to the numbers in every chart; then go to Step by step and Heads through the menu
with every setting kept. The numbers shown are checked against the model run in this process
(``mha.weights.view.run_view``: the same seeded weights in every process).

The ``open_page`` fixture fails the test on any console error (but Streamlit's known #7074 404s on a direct link),
uncaught error, dialog or error box; a screenshot of every step goes to test-artifacts/journey-NN-<step>.png.
"""
from __future__ import annotations

import re
import time
import urllib.parse

import numpy as np
import pytest
from harness.apptest import decode
from harness.chromium import goto, read_until, wait_app_idle

from mha.core.i18n import text as i18n_text
from mha.core.tokens import display_labels, tokenize
from mha.lessons import heads
from mha.weights.view import DEFAULT_D_MODEL, DEFAULT_NUM_HEADS, ViewSpec, run_view

from . import canvas as cv
from .conftest import click_nav, copy_share_link, plotly_data, save_screenshot, wait_for_link_box
from .test_playground_browser import choose, grey_corners, selected_option

pytestmark = pytest.mark.browser

SENTENCE = "the quick brown fox jumps over the lazy dog"  # "the" twice: two rows, two columns
D_MODEL, NUM_HEADS, HEAD = 32, 8, 5  # head_dim 4
CELL = (6, 2)  # query "the" (its second time) -> key "brown": an earlier key, so the causal mask allows it
SPEC = ViewSpec(text=SENTENCE, d_model=D_MODEL, num_heads=NUM_HEADS, causal=True)
NUMBER = re.compile(r"-?\d+\.\d+")


def ko(key: str, **fmt) -> str:
    return i18n_text(key, "ko", **fmt)


def en(key: str, **fmt) -> str:
    return i18n_text(key, "en", **fmt)


def trace_z(data: dict, chart_key: str, trace: int = 0) -> np.ndarray:
    return decode(data[chart_key][trace]["z"]).astype(np.float64)


def wait_for_data(page, check, what: str, timeout_s: float = 20, explain=lambda data: "") -> dict:
    """Poll the charts' Plotly data until ``check(data)`` holds (a repaint may still show the previous view)."""
    deadline = time.monotonic() + timeout_s
    while True:
        data = plotly_data(page)
        try:
            if check(data):
                return data
        except (KeyError, IndexError, ValueError):
            pass
        assert time.monotonic() < deadline, f"the charts never showed {what} {explain(data)}"
        page.wait_for_timeout(200)


def head_buttons(page, key: str):
    return page.locator(f".st-key-{key} button")


def chosen_head(page, key: str) -> str:
    return head_buttons(page, key).and_(page.locator("[aria-checked='true']")).inner_text().strip()


def url_params(url: str) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)


def shared_controls(page) -> dict:
    """What the sidebar shows for the shared controls."""
    return {"text": page.locator(".st-key-text textarea").input_value(),
            "d_model": selected_option(page, "d_model"), "num_heads": selected_option(page, "num_heads"),
            "causal": page.locator(".st-key-causal input[type='checkbox']").is_checked(),
            "lang": page.locator(".st-key-lang button[aria-checked='true']").inner_text().strip()}


# A few words of the cell summary under the enlarged head (pg_cell_summary) that its title (cb_title) lacks.
SUMMARY_MARK = {"en": "): score", "ko": "): 점수"}


def summary_strong(page, lang: str) -> list[str]:
    """The bold parts of the cell summary under the enlarged head: [query, key, score, weight]."""
    assert SUMMARY_MARK[lang] in i18n_text("pg_cell_summary", lang, head=0, q="", i=0, k="", j=0, score=0,
                                           weight=0, masked="")
    block = page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer']").filter(
        has_text=SUMMARY_MARK[lang])
    return block.first.locator("strong").all_text_contents()


def test_a_learners_journey_from_a_direct_link_to_a_shared_view(fresh_server, open_page):
    expected = run_view(SPEC)
    labels = display_labels(tokenize(SENTENCE).tokens)
    T = len(labels)
    assert expected.labels == labels and expected.weights.shape == (NUM_HEADS, T, T)
    server = fresh_server()
    page = open_page(server.url, "journey")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    step = iter(range(1, 100))

    def shot(name: str) -> None:
        save_screenshot(page, f"journey-{next(step):02d}-{name}")

    # 1. The first visitor of a just-started server, by a direct link.
    goto(page, f"{server.url}/playground")
    assert page.locator("h1").first.inner_text().strip() == en("pg_title")
    assert shared_controls(page)["d_model"] == str(DEFAULT_D_MODEL)
    cv.poll(page, lambda: cv.titles(page, "grid") == [f"head {h}" for h in range(DEFAULT_NUM_HEADS)],
            f"a grid of {DEFAULT_NUM_HEADS} heads")
    shot("arrived")

    # 2. Type a sentence (Ctrl+Enter applies it, as the text box says).
    box = page.locator(".st-key-text textarea")
    box.fill(SENTENCE)
    box.press("Control+Enter")
    wait_app_idle(page, rerun=True)
    cv.wait_for_labels(page, "grid", "y", labels)
    cv.wait_for_labels(page, "grid", "x", labels)
    shot("sentence")

    # Below the grid, one closer look at a time (the head view first): the learner looks at the outputs.
    page.locator(".st-key-look_shown button").filter(has_text=en("pg_look_outputs")).click()
    wait_app_idle(page, rerun=True)
    wait_for_data(page, lambda d: {"head_outputs", "output"} <= set(d), "the outputs")

    # 3-5. d_model, num_heads, causal mask: each repaints.
    choose(page, "d_model", str(D_MODEL))
    wait_for_data(page, lambda d: trace_z(d, "output").shape == (T, D_MODEL), f"an output with {D_MODEL} features")
    shot("d_model")
    choose(page, "num_heads", str(NUM_HEADS))
    cv.poll(page, lambda: cv.titles(page, "grid") == [f"head {h}" for h in range(NUM_HEADS)],
            f"a grid of {NUM_HEADS} heads")
    shot("num_heads")
    before = cv.ready(page, "grid")
    page.locator(".st-key-causal label").first.click()
    wait_app_idle(page, rerun=True)
    cv.wait_ready(page, "grid", other_than=before)
    # every head of the grid greys its blocked (future) keys: the last key of the first query, not the reverse
    assert grey_corners(page, "grid", T) == [(True, False)] * NUM_HEADS
    shot("causal")

    # 6. Click a head in the grid: it opens enlarged below, that head's weights as the model computes them.
    cv.click_cell(page, "grid", HEAD, 0, 0)
    wait_app_idle(page, rerun=True)
    cv.wait_ready(page, "one_head_chart")
    assert chosen_head(page, "head") == str(HEAD) and head_buttons(page, "head").count() == NUM_HEADS
    assert chosen_head(page, "look_shown") == en("pg_one_head")
    cv.poll(page, lambda: cv.chart(page, "grid").evaluate("r => r.dataset.marked") == str(HEAD),
            "the grid frames the enlarged head")
    # every cell's tooltip: head HEAD, its query and key, and the model's weight
    cells = [(i, j) for i in range(T) for j in range(T)]
    tips = [cv.hover_cell(page, "one_head_chart", 0, i, j).split("\n") for i, j in cells]
    assert all(tip[:3] == [f"head {HEAD}", f"query {i}: {labels[i]}", f"key {j}: {labels[j]}"]
               for tip, (i, j) in zip(tips, cells)), tips[:3]
    shown = np.array([cv.tooltip_number("\n".join(tip)) for tip in tips]).reshape(T, T)
    assert np.allclose(shown, expected.weights[HEAD], atol=1e-4), (shown, expected.weights[HEAD])
    shot("head")

    # 7. Click a cell: the query and key boxes follow, and the breakdown below shows that cell's numbers.
    i, j = CELL
    cv.pick_cell(page, i, j, labels[i], labels[j])
    strong = summary_strong(page, "en")
    assert strong[:2] == [labels[i], labels[j]], strong
    score, weight = (float(NUMBER.fullmatch(s).group()) for s in strong[2:4])
    assert score == pytest.approx(float(expected.scores[HEAD, i, j]), abs=2e-4)
    assert weight == pytest.approx(float(expected.weights[HEAD, i, j]), abs=2e-4)
    page.locator(".st-key-show_cell summary").click()  # the breakdown is folded: open it
    wait_app_idle(page, rerun=True)
    title = page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer']").filter(
        has_text="How this cell is made").first.inner_text()
    assert f"head {HEAD}, query {labels[i]} (token {i}) → key {labels[j]} (token {j})" in title, title
    row = plotly_data(page)["pg_cell_row"][0]  # the query's row of weights, after softmax
    assert np.allclose(decode(row["y"]).astype(float), expected.weights[HEAD, i], atol=1e-5)
    shot("cell")

    # 8. Korean: every word changes, no setting does.
    page.locator(".st-key-lang button").filter(has_text="ko").click()
    wait_app_idle(page, rerun=True)
    page.wait_for_function("want => document.querySelector('h1')?.innerText.trim() === want", arg=ko("pg_title"))
    assert shared_controls(page) == {"text": SENTENCE, "d_model": str(D_MODEL), "num_heads": str(NUM_HEADS),
                                     "causal": True, "lang": "ko"}
    assert chosen_head(page, "head") == str(HEAD)
    assert selected_option(page, "cell_query") == f"{i}: {labels[i]}"
    assert summary_strong(page, "ko") == strong  # the same query, key, score and weight, in Korean words
    head_ko = ko("ch_head")
    cv.poll(page, lambda: cv.titles(page, "grid") == [f"{head_ko} {h}" for h in range(NUM_HEADS)], "Korean titles")
    assert cv.hover_cell(page, "one_head_chart", 0, i, j).split("\n")[:3] == [
        f"{head_ko} {HEAD}", f"{ko('ch_query')} {i}: {labels[i]}", f"{ko('ch_key')} {j}: {labels[j]}"]
    assert cv.selected(page, "one_head_chart") == f"{i},{j}"
    shot("korean")

    # 9. Copy the link with the link box's button: the clipboard gets the link the box shows.
    link = copy_share_link(page)
    wait_for_link_box(page, link)
    params = url_params(link)
    assert {k: params.get(k) for k in ("text", "d_model", "num_heads", "causal", "head", "cell_query", "cell_key",
                                       "lang")} == {
        "text": [SENTENCE], "d_model": [str(D_MODEL)], "num_heads": [str(NUM_HEADS)], "causal": ["true"],
        "head": [str(HEAD)], "cell_query": [f"{i}: {labels[i]}"], "cell_key": [f"{j}: {labels[j]}"], "lang": ["ko"]}
    assert params.get("show_cell") == ["true"] and params.get("look") == ["head"], params
    shot("link-copied")
    charts = plotly_data(page)
    page.mouse.move(0, 0)
    canvases = {key: (cv.ready(page, key), cv.labels(page, key), cv.picture(page, key))
                for key in ("grid", "one_head_chart")}

    # 10. The link, opened in a new browser context (English browser, nothing shared): the same view.
    again = open_page(server.url, "journey-reopened")
    goto(again, link)
    assert again.locator("h1").first.inner_text().strip() == ko("pg_title")
    # the session's first page may draw its controls twice (mha/app/frame.py): read them until they settle
    want = shared_controls(page)
    assert read_until(again, lambda: shared_controls(again), lambda got: got == want) == want
    assert chosen_head(again, "head") == str(HEAD)
    assert selected_option(again, "cell_query") == f"{i}: {labels[i]}"
    assert selected_option(again, "cell_key") == f"{j}: {labels[j]}"
    same = wait_for_data(again, lambda d: d == charts, "the same charts as the page the link came from",
                         explain=lambda d: sorted(k for k in set(d) | set(charts) if d.get(k) != charts.get(k)))
    assert set(same) >= {"pg_cell_row", "pg_cell_vectors", "pg_cell_sum"}
    for key, (sig, drawn, picture) in canvases.items():  # the canvases: the same payload, texts and pixels
        assert cv.wait_ready(again, key) == sig, key
        assert cv.labels(again, key) == drawn, key
        cv.poll(again, lambda key=key, picture=picture: cv.picture(again, key) == picture, f"{key}: the same pixels")
    assert cv.selected(again, "one_head_chart") == f"{i},{j}"
    save_screenshot(again, "journey-10-reopened")
    next(step)

    # 11-12. Step by step and Heads, through the menu: the same sentence, sizes, mask and language.
    for path, title_key, check in (
            ("explain", "ex_title", lambda d: np.allclose(  # drawn on a canvas in the page (#27.4)
                np.array(cv.values(page, "ex_weights"), dtype=float).reshape(expected.weights[0].shape),
                expected.weights[0], atol=1e-5)),
            ("heads", "hd_title", lambda d: np.allclose(
                trace_z(d, "heads_entropy_chart"), heads.head_stats(expected.weights, expected.allowed).entropy,
                atol=1e-4))):
        click_nav(page, path)
        page.wait_for_function("want => document.querySelector('h1')?.innerText.trim() === want", arg=ko(title_key))
        assert shared_controls(page) == {"text": SENTENCE, "d_model": str(D_MODEL), "num_heads": str(NUM_HEADS),
                                         "causal": True, "lang": "ko"}, path
        params = url_params(page.url)
        assert (params.get("text"), params.get("num_heads"), params.get("causal")) == (
            [SENTENCE], [str(NUM_HEADS)], ["true"]), page.url
        wait_for_data(page, check, f"the journey's numbers on /{path}")
        shot(path)
    page.locator(".st-key-hd_section_pick button", has_text=ko("hd_sec_qk").split(" ", 1)[1]).click()
    wait_app_idle(page, rerun=True)  # the Heads page draws only its open section
    assert head_buttons(page, "heads_qk_head").count() == NUM_HEADS
