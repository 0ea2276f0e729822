"""#27.4 "a slow page paints its first chart first": a direct link to Step by step with every step open, on a
freshly started server, in Chromium. Its matrices are drawn on canvases in the page (mha.app.components.heatmap_view),
so the first step's picture is drawn, token names and all, while Plotly's script (Streamlit's PlotlyChart chunk, 4.7 MB,
loaded only once a Plotly chart is on the page) is held back by the test; the page sends its Plotly charts once a
canvas has drawn (mha.app.components.paint_gate), and they draw once the test lets the script through. Read through
tests/browser/canvas.py; fixtures: conftest.py."""
from __future__ import annotations

import urllib.parse

import pytest
from harness.apptest import all_open
from harness.chromium import VIEWPORT, wait_app_idle

from mha.weights.view import ViewSpec, run_view

from . import canvas as cv

pytestmark = pytest.mark.browser

PLOTLY_CHUNK = "**/static/js/PlotlyChart*.js"
# every step's matrix, in page order: step 1 (x) first
MATRICES = ("ex_x", "ex_chart_query", "ex_qk", "ex_scores", "ex_masked", "ex_weights", "ex_head_output",
            "ex_concat", "ex_output", "ex_cell_chart")
PLOTLY_DRAWN = "[data-testid='stMain'] [data-testid='stPlotlyChart'] .main-svg"


def test_every_step_open_paints_the_first_steps_canvas_without_waiting_for_plotly(fresh_server, browser):
    server = fresh_server()
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    held = []  # Plotly's script, asked for and not answered until the canvases have been checked
    context.route(PLOTLY_CHUNK, lambda route: held.append(route))
    try:
        page = context.new_page()
        params = {**all_open("pages/explain.py"), "causal": "true"}
        # not harness.chromium.goto: it waits until every Plotly chart is drawn, and Plotly's script is held here
        page.goto(f"{server.url}/explain?" + urllib.parse.urlencode(params))
        tokens = list(run_view(ViewSpec(causal=True)).labels)
        cv.wait_ready(page, "ex_x", timeout_s=90)  # a fresh server's first run imports torch
        assert cv.axis_texts(page, "ex_x", "y") == tokens  # the first step's picture names its tokens
        assert [d["text"] for d in cv.labels(page, "ex_x", "xtitle")] == ["feature"]
        # it is the page's first chart (the highest on the page), the first step's
        tops = {key: page.locator(f".st-key-{key}").first.bounding_box()["y"] for key in ("ex_x", "ex_bar")}
        for key in MATRICES:  # every step's matrix is drawn meanwhile, with its token names
            cv.wait_ready(page, key, timeout_s=30)
            assert cv.axis_texts(page, key, "y") == tokens, key
            tops[key] = page.locator(f".st-key-{key}").first.bounding_box()["y"]
        assert min(tops, key=tops.get) == "ex_x", tops
        assert page.locator(PLOTLY_DRAWN).count() == 0  # and not one Plotly chart could be drawn yet
        # the page sends its Plotly charts once a canvas drew (mha.app.components.paint_gate): then it asks for Plotly's
        # script
        cv.poll(page, lambda: bool(held), "Plotly's script was never asked for", timeout_s=60)
        for route in held:  # let Plotly through: its charts draw after the canvases
            route.continue_()
        context.unroute(PLOTLY_CHUNK)
        wait_app_idle(page)
        page.wait_for_function(f"() => document.querySelectorAll(\"{PLOTLY_DRAWN}\").length >= 2", timeout=60_000)
        assert cv.ready(page, "ex_x")  # the canvases keep their pictures
        # the hover names what Plotly's did, with the module's numbers
        view = run_view(ViewSpec(causal=True))
        tip = cv.hover_cell(page, "ex_weights", 0, 3, 1).split("\n")
        assert tip == ["head 0", f"query 3: {tokens[3]}", f"key 1: {tokens[1]}",
                       f"weights: {view.weights[0, 3, 1]:.4f}"], tip
        tip = cv.hover_cell(page, "ex_masked", 0, 1, 3).split("\n")
        assert tip[1:3] == [f"query 1: {tokens[1]}", f"key 3: {tokens[3]}"] and tip[-1] == "masked", tip
        tip = cv.hover_cell(page, "ex_x", 0, 2, 5).split("\n")
        assert tip == [f"token 2: {tokens[2]}", "feature: 5",
                       f"x: {view.x[2, 5]:.4f}".replace("-", "\u2212")], tip
    finally:
        context.close()
