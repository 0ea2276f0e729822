"""The Playground in a real browser (headless Chromium): what AppTest cannot show.

Direct links on a freshly started server, controls that repaint the heatmaps, repeated words, tokens that look like
HTML, clicking a cell of the enlarged head, and links that reproduce a view. Fixtures and helpers: conftest.py.
"""
from __future__ import annotations

import io
import time
import urllib.parse

import pytest
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from mha.i18n import text as i18n_text
from mha.text import display_labels, tokenize
from mha.view import DEFAULT_NUM_HEADS, DEFAULT_TEXT

from .conftest import app_pages, wait_app_idle

pytestmark = pytest.mark.browser

ZWSP = "\u200b"  # figures.axis_labels makes repeated labels unique with zero-width spaces
GREY = (150, 150, 150)  # figures.MASKED_GREY


def en(key: str, **fmt) -> str:
    return i18n_text(key, "en", **fmt)


# ------------------------------------------------------------------------------------------------ DOM helpers
def goto(page, base: str, path: str = "", **params) -> None:
    query = ("?" + urllib.parse.urlencode(params)) if params else ""
    page.goto(f"{base}/{path}{query}")
    wait_app_idle(page)


def subplot_count(page, chart_key: str) -> int:
    return page.locator(f".st-key-{chart_key} .cartesianlayer .subplot").count()


def tick_texts(page, chart_key: str, axis: str) -> list[str]:
    """The tick labels of the first subplot as drawn, in screen order (top to bottom, left to right), with the
    zero-width spaces that keep repeated labels apart removed."""
    ticks = page.locator(f".st-key-{chart_key} .{axis}axislayer-above .{axis}tick text").evaluate_all(
        "ts => ts.map(t => { const r = t.getBoundingClientRect(); return [r.top + r.height / 2, r.left + r.width / 2,"
        " t.textContent]; })")
    ticks.sort(key=lambda t: t[0] if axis == "y" else t[1])
    return [t[2].replace(ZWSP, "") for t in ticks]


def wait_for_ticks(page, chart_key: str, axis: str, expected: list[str], timeout_s: float = 20) -> None:
    """Wait until the chart shows exactly these tick labels (a repaint may still show the previous ones)."""
    deadline = time.monotonic() + timeout_s
    while (shown := tick_texts(page, chart_key, axis)) != expected:
        assert time.monotonic() < deadline, f"{chart_key} {axis} ticks: {shown} != {expected}"
        page.wait_for_timeout(200)


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


def wait_for_subplots(page, chart_key: str, n: int) -> None:
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length === n",
        arg=[f".st-key-{chart_key} .cartesianlayer .subplot", n])


def cell_box(page, chart_key: str, n_rows: int, n_cols: int, i: int, j: int) -> tuple[float, float, float]:
    """Viewport coordinates of the centre of cell (row i, column j) of a single heatmap (scrolled into view), and
    the cell width."""
    image = page.locator(f".st-key-{chart_key} .heatmaplayer image").first
    image.scroll_into_view_if_needed()
    box = image.bounding_box()
    w, h = box["width"] / n_cols, box["height"] / n_rows
    return box["x"] + (j + 0.5) * w, box["y"] + (i + 0.5) * h, w


def click_cell(page, chart_key: str, n: int, i: int, j: int, query_key: str, label: str) -> None:
    """Click cell (query i, key j) of a clickable n x n heatmap and wait for the query picker to show it."""
    x, y, _ = cell_box(page, chart_key, n, n, i, j)
    page.mouse.move(x, y)
    page.mouse.click(x, y)
    wait_app_idle(page, rerun=True)
    page.wait_for_function("([sel, want]) => document.querySelector(sel)?.value.trim() === want",
                           arg=[f".st-key-{query_key} input[role='combobox']", f"{i}: {label}"])


def pixel(page, x: float, y: float) -> tuple[int, int, int]:
    png = page.screenshot(clip={"x": x - 1, "y": y - 1, "width": 3, "height": 3})
    return Image.open(io.BytesIO(png)).convert("RGB").getpixel((1, 1))


def is_grey(rgb) -> bool:
    return all(abs(a - b) <= 6 for a, b in zip(rgb, GREY))


def heatmap_images(page, chart_key: str) -> list[str]:
    """The painted heatmaps of a chart (Plotly draws each as a PNG data URL): equal lists = equal pictures."""
    return page.locator(f".st-key-{chart_key} .heatmaplayer image").evaluate_all(
        "imgs => imgs.map(i => i.getAttribute('href'))")


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
        # each server's first script run starts now; they run side by side
        page.goto(f"{server.url}/{path}?num_heads=2&zz_nobody_reads_this=1")
        pages.append(page)
    failures = []
    for page, (_, title_key, path) in zip(pages, PAGES):
        try:
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


def test_controls_repaint_and_the_link_reproduces_the_view(page, server, open_page):
    """Change the sentence, num_heads and the causal mask; each repaints the heatmaps; the URL carries the view."""
    goto(page, server.url, PLAYGROUND)
    _page_checks(page, PLAYGROUND, "nav_playground")
    assert page.locator("h1").first.inner_text().strip() == en("pg_title")
    assert subplot_count(page, "grid") == DEFAULT_NUM_HEADS
    n = len(tokenize(DEFAULT_TEXT).tokens)
    x, y, _ = cell_box(page, "one_head_chart", n, n, 0, n - 1)
    assert not is_grey(pixel(page, x, y)), "without the causal mask the top-right cell must not be grey"

    # A repeated word stays two rows and two columns.
    sentence = "the cat saw the mat"
    page.locator(".st-key-text textarea").fill(sentence)
    page.locator(".st-key-text textarea").press("Control+Enter")
    wait_app_idle(page, rerun=True)
    wait_for_ticks(page, "one_head_chart", "y", ["the", "cat", "saw", "the", "mat"])
    wait_for_ticks(page, "one_head_chart", "x", ["the", "cat", "saw", "the", "mat"])

    # Enlarge the last head, then ask for fewer heads: the enlarged head falls back to one that exists.
    page.locator(".st-key-head button").last.click()
    wait_app_idle(page, rerun=True)
    choose(page, "num_heads", "2")
    wait_for_subplots(page, "grid", 2)
    assert page.locator(".st-key-head button").count() == 2, "the head picker offers one button per head"
    assert page.locator("[data-testid='stException']").count() == 0

    page.locator(".st-key-causal label").first.click()
    wait_app_idle(page, rerun=True)
    page.wait_for_function(  # every head gets its grey overlay: two heatmaps per subplot, two in the enlarged head
        "([a, b]) => document.querySelectorAll(a).length === 4 && document.querySelectorAll(b).length === 2",
        arg=[".st-key-grid .heatmaplayer image", ".st-key-one_head_chart .heatmaplayer image"])
    x, y, _ = cell_box(page, "one_head_chart", 5, 5, 0, 4)
    assert is_grey(pixel(page, x, y)), "with the causal mask the top-right cell (a future key) must be grey"
    x, y, _ = cell_box(page, "one_head_chart", 5, 5, 4, 0)
    assert not is_grey(pixel(page, x, y)), "the last query may attend to the first key: not grey"

    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert params.get("text") == [sentence] and params.get("num_heads") == ["2"] and params.get("causal") == ["true"]

    # The copied link, opened in a new page, gives the same view.
    again = open_page(server.url, "reopened")
    again.goto(page.url)
    wait_app_idle(again)
    assert again.locator(".st-key-text textarea").input_value() == sentence
    assert selected_option(again, "num_heads") == "2"
    assert again.locator(".st-key-causal input[type='checkbox']").is_checked()
    assert subplot_count(again, "grid") == 2
    assert tick_texts(again, "one_head_chart", "y") == tick_texts(page, "one_head_chart", "y")
    assert heatmap_images(again, "grid") == heatmap_images(page, "grid"), "the same link drew different heatmaps"


# Short enough (29 tokens) for Plotly to label every row of the enlarged head.
HOSTILE = '<b>x</b> <a href=javascript:alert(1)>y</a> **z**'


def test_tokens_that_look_like_html_are_shown_as_text(page, server):
    goto(page, server.url, PLAYGROUND, text=HOSTILE)
    expected = display_labels(tokenize(HOSTILE).tokens)
    wait_for_ticks(page, "one_head_chart", "y", expected)
    wait_for_ticks(page, "one_head_chart", "x", expected)
    # Plotly turns <b> into a styled <tspan> and <a href> into an SVG link: no tick label may contain either, and
    # no chart may hold a link at all (a chart's own bold title is fine, a token's bold is not).
    injected = page.locator(".js-plotly-plot .main-svg").evaluate_all(
        "svgs => svgs.flatMap(s => [...s.querySelectorAll("
        "':is(.xtick, .ytick) :is(a, tspan[style]), a, [href^=\"javascript\"]')]).map(e => e.outerHTML)")
    assert injected == []
    assert page.locator("[data-testid='stMain'] a[href^='javascript']").count() == 0
    assert page.locator(".st-key-text textarea").input_value() == HOSTILE  # shown exactly as typed
    # No dialog opened: the page fixture fails the test on any dialog or console error.


def test_clicking_a_cell_picks_its_query_and_key(page, server):
    tokens = display_labels(tokenize(DEFAULT_TEXT).tokens)
    n = len(tokens)
    goto(page, server.url, PLAYGROUND)
    assert selected_option(page, "cell_query") == f"0: {tokens[0]}"
    i, j = n - 2, 1
    click_cell(page, "one_head_chart", n, i, j, "cell_query", tokens[i])
    assert selected_option(page, "cell_key") == f"{j}: {tokens[j]}"
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    # The link names the cell too (a selectbox puts its shown label, "position: token", in the URL).
    assert [v.split(":")[0] for v in params.get("cell_query", []) + params.get("cell_key", [])] == [str(i), str(j)]


def test_token_pickers_read_the_new_tokens_after_the_sentence_changes(page, server):
    """#16 item 4: the Query token / Key token boxes kept showing the old sentence's words ("0: Orange") when the
    chosen positions were still valid for the new one. Position 0 (the default) and a picked position both follow."""
    goto(page, server.url, PLAYGROUND, cell_key=2)  # key 2 picked (by a link: as the box would)
    old = display_labels(tokenize(DEFAULT_TEXT).tokens)
    assert (selected_option(page, "cell_query"), selected_option(page, "cell_key")) == (f"0: {old[0]}", f"2: {old[2]}")
    sentence = "cats sleep all day long"
    new = display_labels(tokenize(sentence).tokens)
    assert new[0] != old[0] and new[2] != old[2]
    page.locator(".st-key-text textarea").fill(sentence)
    page.locator(".st-key-text textarea").press("Control+Enter")
    wait_app_idle(page, rerun=True)
    wait_for_ticks(page, "one_head_chart", "y", new)
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
    """The Playground draws the grid and the enlarged head; the cell breakdown, the head outputs and the output are
    folded and sent only when open. A link naming them opens them, also as the very first request of a server (its
    first run goes through Streamlit's other route: mha/app/frame.py); a click opens one and the address bar says
    so; Step by step does the same for a folded step."""
    server = fresh_server()
    page = open_page(server.url, "folded-link")
    page.goto(f"{server.url}/{PLAYGROUND}?show_cell=true&show_output=true")
    wait_app_idle(page)
    _page_checks(page, PLAYGROUND, "nav_playground")
    wait_for_charts(page, {"grid", "one_head_chart", "pg_cell_vectors", "pg_cell_sum", "pg_cell_row", "output"})
    assert page.locator(".st-key-show_cell details").get_attribute("open") is not None
    assert page.locator(".st-key-show_head_outputs details").get_attribute("open") is None

    page.locator(".st-key-show_head_outputs summary").click()  # a learner opens the head outputs
    wait_app_idle(page, rerun=True)
    wait_for_charts(page, {"grid", "one_head_chart", "pg_cell_vectors", "pg_cell_sum", "pg_cell_row", "output",
                           "head_outputs"})
    page.wait_for_function("() => new URLSearchParams(location.search).get('show_head_outputs') === 'true'")
    page.locator(".st-key-show_cell summary").click()  # and folds the breakdown again: its charts go
    wait_app_idle(page, rerun=True)
    wait_for_charts(page, {"grid", "one_head_chart", "output", "head_outputs"})
    page.wait_for_function("() => !new URLSearchParams(location.search).has('show_cell')")

    step = open_page(server.url, "folded-step")
    step.goto(f"{server.url}/explain?ex_show_qk=true")
    wait_app_idle(step)
    wait_for_charts(step, {"ex_qk", "ex_scores", "ex_weights", "ex_bar", "ex_cell_chart"})
    step.locator(".st-key-ex_show_cell summary").click()
    wait_app_idle(step, rerun=True)
    wait_for_charts(step, {"ex_qk", "ex_scores", "ex_weights", "ex_bar", "ex_cell_chart", "ex_cell_vectors",
                           "ex_cell_sum", "ex_cell_row"})
