"""The Playground in a real browser (headless Chromium): what AppTest cannot show.

Direct links on a freshly started server, controls that repaint the heatmaps, repeated words, tokens that look like
HTML, pointing at and clicking cells of the all-heads grid and the enlarged head (mouse and keyboard), and links
that reproduce a view. The grid and the enlarged head are canvases drawn in the page (mha.app.components.heatmap_view),
read through tests/browser/canvas.py; the numbers they show are compared with ``mha.weights.view.run_view`` run here.
Fixtures: conftest.py.
"""
from __future__ import annotations

import time
import urllib.parse

import numpy as np
import pytest
from harness.chromium import IDLE_TIMEOUT_MS, TITLE, goto, read_until, wait_app_idle
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from mha.charts.figures import ENGLISH
from mha.core.i18n import text as i18n_text
from mha.core.tokens import display_labels, tokenize
from mha.weights.view import DEFAULT_NUM_HEADS, DEFAULT_TEXT, ViewSpec, run_view

from . import canvas as cv
from .conftest import app_pages

pytestmark = pytest.mark.browser

GREY = (150, 150, 150)  # figures.MASKED_GREY


def en(key: str, **fmt) -> str:
    return i18n_text(key, "en", **fmt)


# ------------------------------------------------------------------------------------------------ DOM helpers
def selected_option(page, key: str) -> str:
    """What the selectbox with widget key ``key`` shows (a react-aria combobox in Streamlit 1.67)."""
    return page.locator(f".st-key-{key} input[role='combobox']").input_value().strip()


def choose(page, key: str, option: str) -> None:
    """Pick ``option`` in the selectbox with widget key ``key``.

    A selectbox low in a sidebar taller than the window scrolls the sidebar when it opens, and Streamlit's dropdown
    closes on that scroll (seen: open, sidebar scroll, closed within ~50 ms). The sidebar's main controls now fit a
    1000 px window (test_home_browser checks it), but a selectbox of a page's own may still sit low: the box is
    clicked again when no list is showing."""
    box = page.locator(f".st-key-{key} input[role='combobox']")
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(3):
        box.click()
        try:
            wanted.wait_for(state="visible", timeout=2000)
            break
        except PlaywrightTimeout:  # closed by the scroll: click again
            continue
    wanted.click()
    wait_app_idle(page, rerun=True)


def cell_box(page, chart_key: str, n_rows: int, n_cols: int, i: int, j: int) -> tuple[float, float, float]:
    """Viewport coordinates of the centre of cell (row i, column j) of a single Plotly heatmap (scrolled into view),
    and the cell width. (The Playground's grid and enlarged head are a canvas: tests/browser/canvas.py.)"""
    image = page.locator(f".st-key-{chart_key} .heatmaplayer image").first
    image.scroll_into_view_if_needed()
    box = image.bounding_box()
    w, h = box["width"] / n_cols, box["height"] / n_rows
    return box["x"] + (j + 0.5) * w, box["y"] + (i + 0.5) * h, w


def click_cell(page, chart_key: str, n: int, i: int, j: int, query_key: str, label: str) -> None:
    """Click cell (query i, key j) of a clickable n x n Plotly heatmap (Step by step's) and wait for the query picker
    to show it."""
    x, y, _ = cell_box(page, chart_key, n, n, i, j)
    page.mouse.move(x, y)
    page.mouse.click(x, y)
    wait_app_idle(page, rerun=True)
    page.wait_for_function("([sel, want]) => document.querySelector(sel)?.value.trim() === want",
                           arg=[f".st-key-{query_key} input[role='combobox']", f"{i}: {label}"])


def is_grey(rgb) -> bool:
    return all(abs(a - b) <= 6 for a, b in zip(rgb, GREY))


# ------------------------------------------------------------------------------------------------------ tests
PAGES = app_pages()
PLAYGROUND = next(path for file, _, path in PAGES if file == "pages/playground.py")


def _page_checks(page, url_path: str, title_key: str) -> None:
    """The page asked for is the one shown, with its title, and Streamlit did not fall back to the main page."""
    assert page.get_by_text("Page not found").count() == 0, "Streamlit showed its 'Page not found' dialog"
    active = page.locator("[data-testid='stSidebarNavLink'][aria-current='page']")
    assert active.count() == 1 and en(title_key) in active.inner_text(), "the sidebar marks another page as open"
    h1 = page.locator("h1").first.inner_text().strip()
    assert h1, f"/{url_path} shows no title"
    assert page.locator("[data-testid='stException']").count() == 0, f"/{url_path} shows an exception"


def test_every_page_opens_by_direct_link_on_a_fresh_server(fresh_server, open_page):
    """The very first visitor of a just-started server arrives by a direct link: the page must simply open.
    (With a pages/ folder, Streamlit routes that first run differently from every later one: see mha/app/frame.py.)
    The link also carries a control's value and a parameter nothing reads: that first run must already use the
    one, and name and remove the other, exactly like any later run does.
    One fresh server per page, all started and visited side by side to keep the suite short."""
    servers = fresh_server(len(PAGES))
    pages = []
    for server, (_, _, path) in zip(servers, PAGES):
        page = open_page(server.url, f"fresh-{path or 'home'}")
        # each server's first script run starts now; they run side by side, so a page's load event can come late
        # on a busy machine: the navigation only has to start here, the waits below give each page its time (not
        # harness.chromium.goto, which would wait for each page before the next server is visited)
        page.goto(f"{server.url}/{path}?num_heads=2&zz_nobody_reads_this=1", wait_until="commit",
                  timeout=IDLE_TIMEOUT_MS)
        pages.append(page)
    failures = []
    for page, (_, title_key, path) in zip(pages, PAGES):
        try:
            page.wait_for_selector(TITLE, timeout=IDLE_TIMEOUT_MS)
            wait_app_idle(page)
            _page_checks(page, path, title_key)
            assert selected_option(page, "num_heads") == "2", "the link's num_heads was not used"
            notes = page.locator("[data-testid='stSidebar'] [data-testid='stCaptionContainer']").all_inner_texts()
            assert any("zz_nobody_reads_this" in n for n in notes), f"no note on the unknown parameter: {notes}"
            params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
            assert "zz_nobody_reads_this" not in params and params.get("num_heads") == ["2"], page.url
        except Exception as exc:  # report every page, not only the first that fails
            failures.append(f"/{path}: {exc}")
    assert not failures, "\n".join(failures)


def grey_corners(page, key: str, T: int) -> list[tuple[bool, bool]]:
    """For each panel of a canvas chart: (is its top-right cell grey, is its bottom-left cell grey)."""
    out = []
    for p in range(len(cv.panels(page, key))):
        out.append(tuple(is_grey(cv.pixel(page, key, *cv.cell_centre(page, key, p, i, j)))
                         for i, j in ((0, T - 1), (T - 1, 0))))
    return out


def test_controls_repaint_and_the_link_reproduces_the_view(page, server, open_page):
    """Change the sentence, num_heads and the causal mask; each repaints the heatmaps; the URL carries the view, and
    the link opened anew draws the same pictures, pixel for pixel."""
    goto(page, PLAYGROUND, look="head")
    _page_checks(page, PLAYGROUND, "nav_playground")
    assert page.locator("h1").first.inner_text().strip() == en("pg_title")
    cv.wait_ready(page, "grid")
    assert cv.titles(page, "grid") == [f"head {h}" for h in range(DEFAULT_NUM_HEADS)]
    assert [p["head"] for p in cv.panels(page, "grid")] == list(range(DEFAULT_NUM_HEADS))
    n = len(tokenize(DEFAULT_TEXT).tokens)
    cv.wait_ready(page, "one_head_chart")
    assert grey_corners(page, "one_head_chart", n) == [(False, False)], "no mask: no grey cell"
    assert grey_corners(page, "grid", n) == [(False, False)] * DEFAULT_NUM_HEADS

    # A repeated word stays two rows and two columns, in the enlarged head and in every panel of the grid.
    sentence = "the cat saw the mat"
    words = ["the", "cat", "saw", "the", "mat"]
    page.locator(".st-key-text textarea").fill(sentence)
    page.locator(".st-key-text textarea").press("Control+Enter")
    wait_app_idle(page, rerun=True)
    cv.wait_for_labels(page, "one_head_chart", "y", words)
    cv.wait_for_labels(page, "one_head_chart", "x", words)
    cv.wait_for_labels(page, "grid", "y", words)
    for p in range(DEFAULT_NUM_HEADS):
        assert cv.axis_texts(page, "grid", "x", p) == words, p

    # Enlarge the last head, then ask for fewer heads: the enlarged head falls back to one that exists.
    page.locator(".st-key-head button").last.click()
    wait_app_idle(page, rerun=True)
    choose(page, "num_heads", "2")
    cv.poll(page, lambda: cv.titles(page, "grid") == ["head 0", "head 1"], "a grid of 2 heads")
    assert page.locator(".st-key-head button").count() == 2, "the head picker offers one button per head"
    assert page.locator("[data-testid='stException']").count() == 0

    before = {key: cv.ready(page, key) for key in ("grid", "one_head_chart")}
    page.locator(".st-key-causal label").first.click()
    wait_app_idle(page, rerun=True)
    for key in before:  # every head: future keys grey, the last query may attend to the first key
        cv.wait_ready(page, key, other_than=before[key])
    assert grey_corners(page, "grid", 5) == [(True, False)] * 2
    assert grey_corners(page, "one_head_chart", 5) == [(True, False)]

    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert params.get("text") == [sentence] and params.get("num_heads") == ["2"] and params.get("causal") == ["true"]

    # The copied link, opened in a new page, gives the same view: the same payloads and the same pixels.
    page.mouse.move(0, 0)  # nothing hovered (the hover outline is on a canvas of its own anyway)
    again = open_page(server.url, "reopened")
    goto(again, page.url)
    # A session's first page may draw its widgets twice (mha.app.frame): read them until they have settled.
    box = again.locator(".st-key-text textarea")
    assert read_until(again, box.input_value, lambda v: v == sentence) == sentence
    assert read_until(again, lambda: selected_option(again, "num_heads"), lambda v: v == "2") == "2"
    causal = again.locator(".st-key-causal input[type='checkbox']")
    assert read_until(again, causal.is_checked, bool)
    for key in ("grid", "one_head_chart"):
        assert cv.wait_ready(again, key) == cv.ready(page, key), f"{key}: the same link sent another picture"
        assert cv.labels(again, key) == cv.labels(page, key), key
        assert cv.picture(again, key) == cv.picture(page, key), f"{key}: the same link drew other pixels"


def test_hover_shows_each_cells_tokens_and_number(page, server):
    """Pointing at any cell of the grid or the enlarged head shows its head, query, key and number: the numbers equal
    the model's, run here (weights, then scores)."""
    spec = ViewSpec(text="the cat saw the mat", num_heads=4, causal=True)
    view = run_view(spec)
    labels = display_labels(tokenize(spec.text).tokens)
    T, H = len(labels), spec.num_heads
    for kind, mats in (("weights", view.weights), ("scores", view.scores)):
        goto(page, PLAYGROUND, text=spec.text, num_heads=H, causal="true", head=3, matrix=kind, look="head")
        cells = [(p, i, j) for p in range(H) for i in range(T) for j in range(T)]
        shown = {}
        for p, i, j in cells:
            tip = cv.hover_cell(page, "grid", p, i, j).split("\n")
            assert tip[:3] == [f"head {p}", f"query {i}: {labels[i]}", f"key {j}: {labels[j]}"], tip
            assert tip[3].startswith(f"{kind}: ")
            # causal: the weights' future keys are said to be masked (the scores chart shows every score)
            assert tip[4:] == (["masked"] if kind == "weights" and j > i else []), tip
            shown[p, i, j] = cv.tooltip_number("\n".join(tip))
        got = np.array([shown[c] for c in cells]).reshape(H, T, T)
        assert np.allclose(got, mats, atol=1e-4), (got, mats)
        # the enlarged head is head 3 (by link): its cells say so and show head 3's numbers
        one = [cv.hover_cell(page, "one_head_chart", 0, i, j) for i, j in ((T - 1, 0), (2, 1), (4, 4))]
        assert [t.split("\n")[0] for t in one] == ["head 3"] * 3
        assert np.allclose([cv.tooltip_number(t) for t in one],
                           [mats[3, T - 1, 0], mats[3, 2, 1], mats[3, 4, 4]], atol=1e-4)
    page.mouse.move(0, 0)
    cv.poll(page, lambda: cv.chart(page, "one_head_chart").evaluate("r => r.dataset.hover") == ""
            and not page.locator(".st-key-one_head_chart .hm-tip").is_visible(), "the tooltip gone off the chart")


# Hostile tokens: markup, a link, Markdown, bidi controls.
HOSTILE = '<b>x</b> <a href=javascript:alert(1)>y</a> **z** <img src=x onerror=alert(1)> \u202eevil\u202c'


def test_tokens_that_look_like_html_are_shown_as_text(page, server):
    goto(page, PLAYGROUND, text=HOSTILE, look="head")
    expected = display_labels(tokenize(HOSTILE).tokens)
    assert "<" in expected and "evil" in expected and not any("\u202e" in s for s in expected)
    cv.wait_for_labels(page, "one_head_chart", "y", expected)
    cv.wait_for_labels(page, "one_head_chart", "x", expected)
    cv.wait_for_labels(page, "grid", "y", expected)
    assert not cv.labels(page, "grid", "x"), "42 keys are too many to name under a grid panel"
    assert cv.note(page, "grid") == ENGLISH.keys_on_hover  # the note says where they are
    # The tooltip of the cell (query "<", key "onerror"): the tokens as text, no element inside it.
    i, j = expected.index("<"), expected.index("onerror")
    tip = cv.hover_cell(page, "one_head_chart", 0, i, j)
    assert tip.split("\n")[1:3] == [f"query {i}: <", f"key {j}: onerror"], tip
    assert page.locator(".st-key-one_head_chart .hm-tip").evaluate("t => t.childElementCount") == 0
    # Nothing in the charts but what the component makes: divs, canvases and its PNG button.
    for key in ("grid", "one_head_chart"):
        assert not cv.foreign_elements(page, key), (key, cv.foreign_elements(page, key))
    assert page.locator("[data-testid='stMain'] :is(a[href^='javascript'], img[src='x'])").count() == 0
    assert page.locator(".st-key-text textarea").input_value() == HOSTILE  # shown exactly as typed
    # No dialog opened: the page fixture fails the test on any dialog or console error.


def test_clicking_a_cell_picks_its_query_and_key(page, server):
    """A click on a cell of the enlarged head: the Query and Key pickers, the summary line and the link follow, and
    the cell is outlined."""
    tokens = display_labels(tokenize(DEFAULT_TEXT).tokens)
    n = len(tokens)
    goto(page, PLAYGROUND, look="head")
    assert selected_option(page, "cell_query") == f"0: {tokens[0]}"
    cv.wait_ready(page, "one_head_chart")
    assert cv.selected(page, "one_head_chart") == "0,0"
    i, j = n - 2, 1
    cv.pick_cell(page, i, j, tokens[i], tokens[j])
    summary = page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer']").filter(
        has_text="): score").first.inner_text()
    assert f"query {tokens[i]} (token {i}) → key {tokens[j]} (token {j})" in summary, summary  # as the pickers
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    # The link names the cell too (a selectbox puts its shown label, "position: token", in the URL).
    assert [v.split(":")[0] for v in params.get("cell_query", []) + params.get("cell_key", [])] == [str(i), str(j)]


def test_clicking_a_grid_panel_enlarges_its_head(page, server):
    """Issue 16 item 2: a click on a head's panel in the all-heads grid enlarges that head (picker, link and the
    enlarged head's numbers follow)."""
    view = run_view(ViewSpec(num_heads=4))
    goto(page, PLAYGROUND, num_heads=4)
    assert not page.locator(".st-key-head").is_visible()  # below the grid the head view: no head enlarged yet
    cv.wait_ready(page, "grid")
    cv.click_cell(page, "grid", 2, 3, 1)
    wait_app_idle(page, rerun=True)
    page.wait_for_function("() => document.querySelector(\".st-key-head button[aria-checked='true']\")"
                           "?.innerText.trim() === '2'", timeout=20_000)
    page.wait_for_function("() => new URL(location.href).searchParams.get('head') === '2'", timeout=5_000)
    # the closer look below is the enlarged head now, and the address bar says so
    page.wait_for_function("() => new URL(location.href).searchParams.get('look') === 'head'", timeout=5_000)
    tip = cv.hover_cell(page, "one_head_chart", 0, 3, 1)
    assert tip.split("\n")[0] == "head 2" and abs(cv.tooltip_number(tip) - view.weights[2, 3, 1]) <= 1e-4, tip


def test_keyboard_points_and_picks(page, server):
    """Tab to a chart, arrows move the pointed-at cell (the tooltip follows), Enter picks it: in the enlarged head a
    cell, in the grid a head (the arrows cross into the next panel)."""
    tokens = display_labels(tokenize(DEFAULT_TEXT).tokens)
    T = len(tokens)
    goto(page, PLAYGROUND, num_heads=4, look="head")
    cv.wait_ready(page, "one_head_chart")
    over = page.locator(".st-key-one_head_chart canvas.hm-over")
    over.focus()
    hover = lambda key: cv.chart(page, key).evaluate("r => r.dataset.hover")  # noqa: E731
    assert hover("one_head_chart") == "0,0,0"  # from the selected cell
    for k in ("ArrowDown", "ArrowDown", "ArrowRight", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowLeft",
              "ArrowLeft", "ArrowRight", "ArrowRight", "ArrowRight"):  # left of 0 stays at 0
        page.keyboard.press(k)
    assert hover("one_head_chart") == "0,2,3"
    tip = page.locator(".st-key-one_head_chart .hm-tip").text_content().split("\n")
    assert tip[1:3] == [f"query 2: {tokens[2]}", f"key 3: {tokens[3]}"], tip
    page.keyboard.press("Enter")
    wait_app_idle(page, rerun=True)
    cv.wait_selected(page, "one_head_chart", 2, 3)
    cv.poll(page, lambda: (selected_option(page, "cell_query"), selected_option(page, "cell_key")) ==
            (f"2: {tokens[2]}", f"3: {tokens[3]}"), "the pickers at the cell chosen by keyboard")

    page.locator(".st-key-grid canvas.hm-over").focus()
    assert hover("grid") == "0,0,0"
    for _ in range(T):  # past the last key of head 0: head 1's first key
        page.keyboard.press("ArrowRight")
    assert hover("grid") == "1,0,0"
    page.keyboard.press("Enter")
    wait_app_idle(page, rerun=True)
    page.wait_for_function("() => document.querySelector(\".st-key-head button[aria-checked='true']\")"
                           "?.innerText.trim() === '1'", timeout=20_000)


def test_token_pickers_read_the_new_tokens_after_the_sentence_changes(page, server):
    """#16 item 4: the Query token / Key token boxes kept showing the old sentence's words ("0: Orange") when the
    chosen positions were still valid for the new one. Position 0 (the default) and a picked position both follow."""
    goto(page, PLAYGROUND, cell_key=2)  # key 2 picked (by a link: as the box would)
    old = display_labels(tokenize(DEFAULT_TEXT).tokens)
    assert (selected_option(page, "cell_query"), selected_option(page, "cell_key")) == (f"0: {old[0]}", f"2: {old[2]}")
    sentence = "cats sleep all day long"
    new = display_labels(tokenize(sentence).tokens)
    assert new[0] != old[0] and new[2] != old[2]
    page.locator(".st-key-text textarea").fill(sentence)
    page.locator(".st-key-text textarea").press("Control+Enter")
    wait_app_idle(page, rerun=True)
    cv.wait_for_labels(page, "one_head_chart", "y", new)
    deadline = time.monotonic() + 10
    while (shown := (selected_option(page, "cell_query"), selected_option(page, "cell_key"))) != \
            (f"0: {new[0]}", f"2: {new[2]}"):
        assert time.monotonic() < deadline, f"the token pickers show {shown} for {new}"
        page.wait_for_timeout(200)
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert params.get("cell_key") == [f"2: {new[2]}"], "the link names the key by its new word"


# ------------------------------------------------------------------------------------ folded sections (#16.3)
def chart_keys(page) -> set[str]:
    """The keys of the Plotly charts drawn in the main area."""
    return set(page.locator("[data-testid='stMain'] [data-testid='stPlotlyChart']").evaluate_all(
        "cs => cs.map(c => [...(c.closest(\"[class*='st-key-']\") || c).classList]"
        ".find(k => k.startsWith('st-key-')) || '?').map(k => k.slice(7))"))


def wait_for_charts(page, want: set[str], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while (drawn := chart_keys(page)) != want:
        assert time.monotonic() < deadline, f"charts {sorted(drawn)} != {sorted(want)}"
        page.wait_for_timeout(200)


def test_folded_sections_open_by_click_and_by_link_on_a_fresh_server(fresh_server, open_page):
    """The Playground draws the grid and, below it, one closer look (on canvases: tests/browser/canvas.py); the
    enlarged head's cell breakdown and neuron view are folded and sent only when open. A link naming them opens them
    (and the enlarged head), also as the very first request of a server (its first run goes through Streamlit's other
    route: mha/app/frame.py); a click folds one and the address bar says so; the outputs are one click away; Step by
    step does the same for a folded step."""
    server = fresh_server()
    page = open_page(server.url, "folded-link")
    goto(page, PLAYGROUND, show_cell="true", show_neuron="true")
    _page_checks(page, PLAYGROUND, "nav_playground")
    for key in ("grid", "one_head_chart"):
        cv.wait_ready(page, key)
    wait_for_charts(page, {"pg_cell_vectors", "pg_cell_sum", "pg_cell_row", "pg_neuron"})
    assert page.locator(".st-key-show_cell details").get_attribute("open") is not None

    page.locator(".st-key-show_cell summary").click()  # the learner folds the breakdown again: its charts go
    wait_app_idle(page, rerun=True)
    wait_for_charts(page, {"pg_neuron"})
    page.wait_for_function("() => !new URLSearchParams(location.search).has('show_cell')")
    page.locator(".st-key-look_shown button").filter(has_text=en("pg_look_outputs")).click()  # and looks at the outputs
    wait_app_idle(page, rerun=True)
    wait_for_charts(page, {"head_outputs", "output"})
    page.wait_for_function("() => new URLSearchParams(location.search).get('look') === 'outputs'")
    assert cv.ready(page, "grid") and page.locator(".st-key-one_head_chart").count() == 0

    step = open_page(server.url, "folded-step")
    goto(step, "explain", ex_show_qk="true")
    # its matrices are drawn on canvases (#27.4), its bars by Plotly
    wait_for_charts(step, {"ex_bar"})
    assert all(cv.wait_ready(step, key) for key in ("ex_qk", "ex_scores", "ex_weights", "ex_cell_chart"))
    step.locator(".st-key-ex_show_cell summary").click()
    wait_app_idle(step, rerun=True)
    wait_for_charts(step, {"ex_bar", "ex_cell_vectors", "ex_cell_sum", "ex_cell_row"})


def test_clicking_the_same_head_or_cell_again_after_picking_another(page, server):
    """A click is an event, not a state: clicking head 2's panel, picking head 0 with the buttons, then clicking head
    2's panel again enlarges head 2 again; the same for a cell after the Query picker moved away from it."""
    tokens = display_labels(tokenize(DEFAULT_TEXT).tokens)
    goto(page, PLAYGROUND, num_heads=4, look="head")
    chosen = "document.querySelector(\".st-key-head button[aria-checked='true']\")?.innerText.trim()"
    for head in ("2", "0", "2"):
        if head == "0":
            page.locator(".st-key-head button").nth(0).click()
        else:
            cv.wait_ready(page, "grid")
            cv.click_cell(page, "grid", 2, 1, 1)
        wait_app_idle(page, rerun=True)
        page.wait_for_function(f"() => {chosen} === '{head}'", timeout=20_000)
    cv.pick_cell(page, 3, 1, tokens[3], tokens[1])
    choose(page, "cell_query", f"0: {tokens[0]}")
    cv.wait_selected(page, "one_head_chart", 0, 1)
    cv.pick_cell(page, 3, 1, tokens[3], tokens[1])


def test_the_largest_view_answers_the_mouse(page, server):
    """128 tokens x 16 heads: the grid's cells are a few pixels wide and its tooltip names the tokens and says where
    the exact number is (the payload carries no numbers past 16 x 64 x 64 cells); the enlarged head's tooltip gives
    the model's number."""
    text = " ".join(f"w{i}" for i in range(128))
    view = run_view(ViewSpec(text=text, d_model=256, num_heads=16))
    labels = display_labels(tokenize(text).tokens)
    goto(page, PLAYGROUND, text=text, d_model=256, num_heads=16, head=9, look="head")
    cv.wait_ready(page, "grid")
    assert cv.titles(page, "grid") == [f"head {h}" for h in range(16)]
    assert not cv.labels(page, "grid", "y") and cv.note(page, "grid") == ENGLISH.keys_on_hover
    tip = cv.hover_cell(page, "grid", 13, 100, 7).split("\n")
    assert tip == ["head 13", f"query 100: {labels[100]}", f"key 7: {labels[7]}", ENGLISH.exact_below], tip
    for i, j in ((127, 0), (64, 100)):
        text = cv.hover_cell(page, "one_head_chart", 0, i, j)
        assert text.split("\n")[:3] == ["head 9", f"query {i}: {labels[i]}", f"key {j}: {labels[j]}"], text
        assert abs(cv.tooltip_number(text) - view.weights[9, i, j]) <= 1e-4, text
