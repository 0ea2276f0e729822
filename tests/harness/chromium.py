"""Chromium for tests and bench/: launch it as the browser tests do, go to a page of the app, wait until it has run
and drawn.

    browser = launch(pw)                                  # pw: a sync_playwright()
    page = browser.new_context(base_url=server.url).new_page()
    goto(page, "playground", num_heads=2)                 # a path from the context's base URL, or a whole URL

Nothing here imports Playwright: the caller owns ``sync_playwright()``.
"""
from __future__ import annotations

import os
import urllib.parse

CHROMIUM = "/usr/bin/chromium"  # Debian's; else Playwright's own (python -m playwright install chromium)
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}
IDLE_TIMEOUT_MS = 60_000  # the first run of a fresh server imports torch: seconds on a busy 2-core machine
ACTION_TIMEOUT_MS = 15_000  # finding and clicking an element that is already drawn
APP = "[data-testid='stApp']"
TITLE = "[data-testid='stMain'] h1"  # every page of the app has one (st.title)


def available(pw) -> bool:
    """Is there a Chromium to launch: Debian's, or Playwright's own?"""
    return os.path.exists(CHROMIUM) or os.path.exists(pw.chromium.executable_path)


def launch(pw):
    """Headless Chromium (``pw``: a started ``sync_playwright()``): Debian's when installed, else Playwright's."""
    kw = {"args": CHROMIUM_ARGS, "headless": True}
    if os.path.exists(CHROMIUM):
        kw["executable_path"] = CHROMIUM
    return pw.chromium.launch(**kw)


def url_of(where: str = "", /, **query) -> str:
    """``where`` (a whole URL, or a path such as "playground" or "/masks?text=a") with ``query`` added as URL
    parameters (a list value repeats the parameter). A path stays relative to the page's base URL."""
    if "://" not in where:
        where = "/" + where.lstrip("/")
    if query:
        where += ("&" if "?" in where else "?") + urllib.parse.urlencode(query, doseq=True)
    return where


def goto(page, where: str = "", /, *, timeout_ms: int = IDLE_TIMEOUT_MS, ready: str | None = TITLE,
         **query) -> None:
    """Load a page of the app and wait until it has run and drawn: the ``ready`` element is there (the page's
    title by default: just after loading, the app may look idle for a moment before its first run; None for an app
    without one) and ``wait_app_idle``. ``where``: a path from the page's base URL (the context's ``base_url``)
    or a whole URL; ``query``: URL parameters. ``timeout_ms``: more for a fresh server that trains or loads a model
    before its first view."""
    # "commit": the page's own waits below decide when it is ready; a busy machine (a fresh server's first run
    # beside others) can keep the load event past the action timeout.
    page.goto(url_of(where, **query), wait_until="commit", timeout=timeout_ms)
    if ready:
        page.wait_for_selector(ready, timeout=timeout_ms)
    wait_app_idle(page, timeout_ms=timeout_ms)


def wait_app_idle(page, rerun: bool = False, timeout_ms: int = IDLE_TIMEOUT_MS) -> None:
    """Wait until the app is connected and its script is not running. With ``rerun``, first give a rerun that
    an action just triggered up to 2 s to start, so the wait does not end on the state from before the action."""
    if rerun:
        try:
            page.wait_for_selector(f"{APP}[data-test-script-state='running']", timeout=2000)
        except Exception:  # noqa: BLE001  the run was quicker than one poll: the checks below still wait for the DOM
            pass
    page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']", timeout=timeout_ms)
    page.wait_for_selector(f"{APP}[data-test-script-state='notRunning']", timeout=timeout_ms)
    # Charts are drawn after the script has finished (Plotly is loaded lazily, behind a skeleton): wait until no
    # skeleton is left, every Plotly chart has its plot area and every canvas heatmap (mha.app.components.heatmap_view,
    # in a component's shadow root) has drawn a picture. (After a rerun a canvas still shows its previous picture
    # until the new one is drawn: tests/browser/canvas.py's wait_ready(other_than=...) waits for that.)
    page.wait_for_function(
        """() => !document.querySelector("[data-testid='stMain'] :is([data-testid='stSkeleton'],"
                                          + "[data-testid='stSkeletonElement'])")
                 && [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
                    .every(c => c.querySelector('.main-svg .cartesianlayer'))
                 && [...document.querySelectorAll('*')].filter(e => e.shadowRoot)
                    .flatMap(e => [...e.shadowRoot.querySelectorAll('.hm')]).every(h => h.dataset.ready)""",
        timeout=timeout_ms)


def read_until(page, read, ok, timeout_s: float = 30, every_ms: int = 200):
    """``read()`` again every ``every_ms`` until ``ok(value)`` or ``timeout_s`` have passed; returns the last value
    (the caller asserts on it). For what the page writes after the app is idle (a chart's texts, the address bar)."""
    value = read()
    for _ in range(int(timeout_s * 1000 / every_ms)):
        if ok(value):
            break
        page.wait_for_timeout(every_ms)
        value = read()
    return value
