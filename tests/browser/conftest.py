"""Real-browser fixtures: a Streamlit server on loopback, a headless Chromium, and pages that watch the console.

Every test in tests/browser/ is marked ``browser`` (declared in pytest.ini) and gets:

- ``server``: the app (``streamlit run app.py``, ``harness.server``) started once for the session on a free
  127.0.0.1 port; ``fresh_server``: a factory for a server of its own, for what only a freshly started server shows;
- ``page``: a new browser page (English locale, the server's URL as its base: ``harness.chromium.goto(page,
  "playground", num_heads=2)``) whose console is collected. At the end of the test a screenshot
  goes to ``test-artifacts/`` and the test fails on any console error, uncaught page error or JavaScript dialog,
  except the two 404s of Streamlit bug #7074 (see ``_is_known_streamlit_404``).

Browser: Debian's /usr/bin/chromium when it exists, else Playwright's own Chromium
(``python -m playwright install chromium``). Without either, the tests skip and say so.
"""
from __future__ import annotations

import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from harness.chromium import ACTION_TIMEOUT_MS, CHROMIUM, VIEWPORT, available, launch, wait_app_idle
from harness.server import ROOT, Server
from harness.server import launch as launch_server

ARTIFACTS = ROOT / "test-artifacts"


def app_pages() -> list[tuple[str, str, str]]:
    """Every page of the app as (file under pages/, title key, URL path), from the pure list in mha/app/pages.py that
    app.py registers: a page added there is covered by the direct-link tests automatically."""
    from mha.app.pages import PAGES, url_path

    return [(path, title_key, url_path(path)) for path, title_key, *_ in PAGES]


def pytest_collection_modifyitems(items):
    """Everything under tests/browser/ is a browser test, whether or not its file says so."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


# ---------------------------------------------------------------------------------------------------- server
def start_server(name: str = "server") -> Server:
    """The app on a server of its own (``harness.server``), its output in test-artifacts/<name>.log."""
    return launch_server(log=ARTIFACTS / f"{name}.log").wait_healthy()


@pytest.fixture(scope="session")
def server():
    s = start_server("server")
    yield s
    s.stop()


@pytest.fixture
def fresh_server(request):
    """A factory for servers that no browser has talked to yet (all stopped after the test): ``fresh_server()``
    gives one, ``fresh_server(n)`` a list of n started side by side."""
    started: list[Server] = []

    def make(count: int | None = None):
        batch = [launch_server(log=ARTIFACTS / f"fresh-{_safe_name(request.node.name)}-{len(started) + k}.log")
                 for k in range(count or 1)]
        started.extend(batch)
        for s in batch:
            s.wait_healthy()
        return batch if count is not None else batch[0]

    yield make
    for s in started:
        s.stop()


# --------------------------------------------------------------------------------------------------- browser
@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -r requirements-test.txt)")
    with sync_playwright() as pw:
        if not available(pw):
            pytest.skip(f"no Chromium: neither {CHROMIUM} (apt-get install chromium) nor Playwright's own "
                        "(python -m playwright install chromium)")
        b = launch(pw)
        yield b
        b.close()


def _is_known_streamlit_404(message: str, url: str, base: str) -> bool:
    """Streamlit bug #7074: on a direct link to a page (e.g. /Playground), the frontend also asks for
    /Playground/_stcore/health and /Playground/_stcore/host-config, which 404, before it falls back to the right
    /_stcore/... URLs; the app works. Only exactly those two URLs under one of app.py's page paths are let through:
    any other 404 (a missing asset, a wrong link) still fails the test."""
    if "404" not in message:
        return False
    paths = [re.escape(p[2]) for p in app_pages() if p[2]]
    pattern = rf"{re.escape(base)}/(?:{'|'.join(paths)})/_stcore/(?:health|host-config)"
    return bool(paths) and re.fullmatch(pattern, url) is not None


@dataclass
class Watch:
    """What a page said that a visitor could notice: console errors, uncaught errors, dialogs."""

    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


def watch_page(page, base_url: str) -> Watch:
    w = Watch()

    def on_console(msg):
        if msg.type != "error":
            return
        url = (msg.location or {}).get("url", "")
        (w.ignored if _is_known_streamlit_404(msg.text, url, base_url) else w.errors).append(f"{msg.text} [{url}]")

    def on_dialog(dialog):
        w.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("console", on_console)
    page.on("pageerror", lambda exc: w.errors.append(f"uncaught: {exc}"))
    page.on("dialog", on_dialog)
    return w


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:120] or "test"


def save_screenshot(page, name: str, max_height: int = 5000) -> Path:
    """A screenshot of the whole app into test-artifacts/<name>.png. Streamlit scrolls inside its own container,
    so the viewport is grown to the content's height first (capped), then put back."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{_safe_name(name)}.png"
    size = page.viewport_size or VIEWPORT
    tall = page.evaluate("Math.max(...[...document.querySelectorAll('*')].map(e => e.scrollHeight))")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(tall), max_height))})
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path


@contextmanager
def watched_page(browser, base_url: str, name: str):
    """A new page (own context: no shared storage; ``base_url`` its base for relative paths) that fails on console
    errors, page errors or dialogs."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US",
                                  **({"base_url": base_url} if base_url.startswith("http") else {}))
    page = context.new_page()
    page.set_default_timeout(ACTION_TIMEOUT_MS)
    w = watch_page(page, base_url)
    shown_errors = 0
    try:
        yield page
    finally:
        try:
            # An error box in the app (Streamlit's exception element) is a failure whatever the test checked.
            shown_errors = page.locator("[data-testid='stException']").count()
            save_screenshot(page, name)
        except Exception as exc:  # a crashed page must not hide the real failure
            print(f"screenshot {name} failed: {exc}")
        context.close()
    problems = [f"console: {e}" for e in w.errors] + [f"dialog: {d}" for d in w.dialogs]
    if shown_errors:
        problems.append(f"the app shows {shown_errors} error box(es): see test-artifacts/{_safe_name(name)}.png")
    assert not problems, f"{name}: the browser reported problems:\n" + "\n".join(problems)


@pytest.fixture
def page(browser, server, request):
    """A watched page on the session server; the test's screenshot is test-artifacts/<test name>.png."""
    with watched_page(browser, server.url, request.node.name) as p:
        yield p


@pytest.fixture
def open_page(browser, request):
    """A factory for more watched pages: ``open_page(base_url, suffix)`` (closed and checked after the test)."""
    stack = []

    def make(base_url: str, suffix: str):
        cm = watched_page(browser, base_url, f"{request.node.name}-{suffix}")
        stack.append(cm)
        return cm.__enter__()

    yield make
    errors = []
    for cm in reversed(stack):
        try:
            cm.__exit__(None, None, None)
        except AssertionError as exc:
            errors.append(str(exc))
    assert not errors, "\n".join(errors)


# ----------------------------------------------------------------------------- more helpers (journey, hostile input)
# The Plotly data of every chart, as JSON-able values: typed arrays as lists, Plotly's own bookkeeping (uid, the
# decoded copy of a base64 array, the points a click selected) left out, so two drawings of one view compare equal.
_PLOTLY_DATA_JS = """(charts) => Object.fromEntries(charts.map(chart => {
    const gd = chart.querySelector('.js-plotly-plot');
    const el = chart.closest("[class*='st-key-']") || chart;
    const skip = new Set(['uid', '_inputArray', 'selectedpoints']);
    const json = JSON.stringify(gd ? gd.data : null,
        (k, v) => skip.has(k) ? undefined : (ArrayBuffer.isView(v) ? Array.from(v) : v));
    const key = [...el.classList].find(c => c.startsWith('st-key-'));
    return [key ? key.slice(7) : '?', JSON.parse(json)];
}))"""


def plotly_data(page) -> dict[str, list]:
    """{chart key: its traces as Plotly holds them in the page} for every keyed Plotly chart in the main area."""
    return page.locator("[data-testid='stMain'] [data-testid='stPlotlyChart']").evaluate_all(_PLOTLY_DATA_JS)


def click_nav(page, url_path: str) -> None:
    """Go to another page the way a visitor does: its link in the sidebar navigation."""
    page.locator(f"[data-testid='stSidebarNavLink'][href$='/{url_path}']").click()
    page.wait_for_url(re.compile(rf"/{re.escape(url_path)}(\?|$)"))
    wait_app_idle(page, rerun=True)


LINK_BOX = ".st-key-share_link_box"


def copy_share_link(page) -> str:
    """Press the link box's copy button and return what it put on the clipboard (the context needs clipboard
    permissions: ``page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)``)."""
    page.locator(f"{LINK_BOX} .mha-copy").click()
    return page.evaluate("navigator.clipboard.readText()")


# A link's page and parameters, in order (a text that is no link: the text itself).
READ_LINK_JS = ("u => { try { const a = new URL(u); return [a.origin + a.pathname, [...a.searchParams]]; }"
                " catch (e) { return u; } }")


def wait_for_link_box(page, link: str, timeout_s: float = 5) -> None:
    """Wait until the link box shows ``link`` as plain text: no element inside it, and its text, read back as a
    link, is ``link`` (the same page and parameters; the box shows escapes as characters where that keeps the link
    the same: link_box.js). The box follows the address bar twice a second."""
    want = page.evaluate(READ_LINK_JS, link)
    box = page.locator(f"{LINK_BOX} .mha-url")  # inside the component's shadow root: locators reach it
    deadline = time.monotonic() + timeout_s
    while True:
        count, text = box.evaluate("c => [c.childElementCount, c.textContent]")
        if [count, page.evaluate(READ_LINK_JS, text)] == [0, want]:
            break
        assert time.monotonic() < deadline, f"the link box shows {[count, text]}, expected [0, {link!r}]"
        page.wait_for_timeout(200)
