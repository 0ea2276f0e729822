"""Real-browser fixtures: a Streamlit server on loopback, a headless Chromium, and pages that watch the console.

Every test in tests/browser/ is marked ``browser`` (declared in pytest.ini) and gets:

- ``server``: the app (``streamlit run app.py``) started once for the session on a free 127.0.0.1 port;
  ``fresh_server``: a factory for a server of its own, for what only a freshly started server shows;
- ``page``: a new browser page (English locale) whose console is collected. At the end of the test a screenshot
  goes to ``test-artifacts/`` and the test fails on any console error, uncaught page error or JavaScript dialog,
  except the two 404s of Streamlit bug #7074 (see ``_is_known_streamlit_404``).

Browser: Debian's /usr/bin/chromium when it exists, else Playwright's own Chromium
(``python -m playwright install chromium``). Without either, the tests skip and say so.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
DEBIAN_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}
IDLE_TIMEOUT_MS = 60_000  # the first run of a fresh server imports torch: seconds on a busy 2-core machine
ACTION_TIMEOUT_MS = 15_000  # finding and clicking an element that is already drawn


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
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    url: str  # http://127.0.0.1:PORT
    proc: subprocess.Popen
    log: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


    def wait_healthy(self, timeout: float = 60) -> "Server":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {self.proc.returncode}; see {self.log}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"streamlit was not healthy after {timeout:.0f} s; see {self.log}")


def launch_server(name: str = "server") -> Server:
    """Start ``streamlit run app.py`` on a free loopback port, headless, no usage stats, no file watcher, without
    waiting for it. Its output goes to test-artifacts/<name>.log."""
    ARTIFACTS.mkdir(exist_ok=True)
    port = _free_port()
    log = ARTIFACTS / f"{name}.log"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True)
    return Server(url=f"http://127.0.0.1:{port}", proc=proc, log=log)


def start_server(name: str = "server", timeout: float = 60) -> Server:
    """A server that answers ok on /_stcore/health (see ``launch_server``)."""
    return launch_server(name).wait_healthy(timeout)


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
        batch = [launch_server(f"fresh-{_safe_name(request.node.name)}-{len(started) + k}")
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
        launch = {"args": CHROMIUM_ARGS, "headless": True}
        if os.path.exists(DEBIAN_CHROMIUM):
            launch["executable_path"] = DEBIAN_CHROMIUM
        elif not os.path.exists(pw.chromium.executable_path):
            pytest.skip(f"no Chromium: neither {DEBIAN_CHROMIUM} (apt-get install chromium) nor Playwright's own "
                        "(python -m playwright install chromium)")
        b = pw.chromium.launch(**launch)
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
    """A new page (own context: no shared storage) that fails on console errors, page errors or dialogs."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
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


# ----------------------------------------------------------------------------------------------- app helpers
APP = "[data-testid='stApp']"


def wait_app_idle(page, rerun: bool = False, timeout_ms: int = IDLE_TIMEOUT_MS) -> None:
    """Wait until the app is connected and its script is not running. With ``rerun``, first give a rerun that
    an action just triggered up to 2 s to start, so the wait does not end on the state from before the action."""
    if rerun:
        try:
            page.wait_for_selector(f"{APP}[data-test-script-state='running']", timeout=2000)
        except Exception:  # the run was quicker than one poll: the checks below still wait for the DOM
            pass
    page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']", timeout=timeout_ms)
    page.wait_for_selector(f"{APP}[data-test-script-state='notRunning']", timeout=timeout_ms)
    # Charts are drawn after the script has finished (Plotly is loaded lazily, behind a skeleton): wait until no
    # skeleton is left, every Plotly chart has its plot area and every canvas heatmap (mha.app.components.heatmap_view, in a
    # component's shadow root) has drawn a picture. (After a rerun a canvas still shows its previous picture until
    # the new one is drawn: tests/browser/canvas.py's wait_ready(other_than=...) waits for that.)
    page.wait_for_function(
        """() => !document.querySelector("[data-testid='stMain'] :is([data-testid='stSkeleton'],"
                                          + "[data-testid='stSkeletonElement'])")
                 && [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
                    .every(c => c.querySelector('.main-svg .cartesianlayer'))
                 && [...document.querySelectorAll('*')].filter(e => e.shadowRoot)
                    .flatMap(e => [...e.shadowRoot.querySelectorAll('.hm')]).every(h => h.dataset.ready)""",
        timeout=timeout_ms)


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


def plotly_array(value):
    """A trace array as numpy: Plotly's base64 form ({"dtype", "bdata", "shape"}) or a plain (nested) list."""
    import base64

    import numpy as np

    if isinstance(value, dict) and "bdata" in value:
        a = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            a = a.reshape([int(s) for s in str(shape).split(",")])
        return a
    return np.asarray(value)


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


def open_url(page, url: str, timeout_ms: int = IDLE_TIMEOUT_MS) -> None:
    """Load ``url`` and wait until its page has run and drawn: its title is there and the app is idle (just after
    loading, the app may look idle for a moment before its first run has started)."""
    page.goto(url)
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=timeout_ms)
    wait_app_idle(page, timeout_ms=timeout_ms)


def wait_for_link_box(page, link: str, timeout_s: float = 5) -> None:
    """Wait until the link box shows ``link`` as plain text: decoded for reading as the box does it (Hangul shown
    as Hangul), and no element inside it. The box follows the address bar twice a second."""
    want = page.evaluate("u => decodeURI(u)", link)
    box = page.locator(f"{LINK_BOX} .mha-url")  # inside the component's shadow root: locators reach it
    deadline = time.monotonic() + timeout_s
    while (shown := box.evaluate("c => [c.childElementCount, c.textContent]")) != [0, want]:
        assert time.monotonic() < deadline, f"the link box shows {shown}, expected [0, {want!r}]"
        page.wait_for_timeout(200)
