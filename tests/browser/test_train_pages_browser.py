"""The Train and Induction pages in a real browser (headless Chromium), each opened by direct link on a freshly
started server: Train shows a progress bar and live charts, then the final charts; Stop keeps what was learned and
writes the steps done into the link, which retrains the very same heads in a new session. No console errors (the
fixtures check it). Fixtures and helpers: conftest.py; screenshots in test-artifacts/."""
from __future__ import annotations

import time
import urllib.parse

import numpy as np
import pytest
from harness.apptest import decode
from harness.chromium import goto, read_until, wait_app_idle

from .conftest import plotly_data, save_screenshot

pytestmark = pytest.mark.browser

TEXT = "the cat sat on the mat"
PROGRESS = "[data-testid='stMain'] [data-testid='stProgress']"


def _heatmaps(traces) -> list[np.ndarray]:
    """The attention heatmaps of a chart (the grey overlays of blocked cells, named "masked", left out)."""
    return [decode(tr["z"]).astype(float) for tr in traces
            if tr.get("type") == "heatmap" and "z" in tr and tr.get("name") != "masked"]


def _set_number(page, key: str, value: int) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")
    wait_app_idle(page, rerun=True)


def _address_params(page) -> dict:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(page.evaluate("location.href")).query)


def test_train_page_trains_stops_and_the_link_retrains_it(fresh_server, open_page):
    server = fresh_server()
    page = open_page(server.url, "train")
    goto(page, f"{server.url}/train?text=" + urllib.parse.quote(TEXT))
    _set_number(page, "tr_steps", 3000)  # long enough to press Stop in the middle
    page.locator(".st-key-tr_train button").click()
    page.wait_for_selector(PROGRESS, timeout=60_000)
    page.wait_for_function(  # the bar has moved: steps are being trained and the live charts drawn
        """() => /Step [1-9]/.test(document.querySelector("[data-testid='stMain'] [data-testid='stProgress']")
                                    ?.parentElement?.innerText || '')""", timeout=90_000)
    assert page.locator("[data-testid='stMain'] [class*='st-key-tr_live_loss_']").count() >= 1
    page.locator(".st-key-tr_stop button").click()
    wait_app_idle(page, rerun=True, timeout_ms=120_000)
    assert page.locator(PROGRESS).count() == 0
    stopped = page.locator("[data-testid='stAlert']", has_text="Stopped after").inner_text()
    done = int(stopped.split("Stopped after")[1].split()[0])
    assert 0 < done < 3000
    assert page.locator(".st-key-tr_steps input").input_value() == str(done)
    data = plotly_data(page)
    assert {"tr_loss", "tr_heads"} <= set(data)
    heads = _heatmaps(data["tr_heads"])
    assert len(heads) == 4 and heads[0].shape == (6, 6)
    save_screenshot(page, "train-stopped")

    # The address bar now names the steps done: a new session (another visitor) retrains exactly these heads. The
    # browser writes it when the run's messages have been applied, which on a busy machine can follow the idle state.
    params = read_until(page, lambda: _address_params(page), lambda p: p.get("tr_steps") == [str(done)])
    assert params.get("tr_steps") == [str(done)], params
    link = page.evaluate("location.href")
    other = open_page(server.url, "train-link")
    goto(other, link, timeout_ms=120_000)
    again = _heatmaps(plotly_data(other)["tr_heads"])
    for a, b in zip(heads, again):
        np.testing.assert_allclose(a, b, atol=1e-6)

    # Scrubbed back to step 0 (the slider's first step): the step stays in the address bar, and a new session opens
    # the trained view at step 0, not the Train button (tr_at used to drop out there: a bound control's default).
    page.locator(".st-key-tr_at_shown input[type='range']").press("Home")
    wait_app_idle(page, rerun=True, timeout_ms=60_000)
    page.wait_for_function("() => new URL(location.href).searchParams.get('tr_at') === '0'", timeout=15_000)
    assert _address_params(page)["tr_steps"] == [str(done)]
    start = _heatmaps(plotly_data(page)["tr_heads"])
    third = open_page(server.url, "train-link-step-0")
    goto(third, page.evaluate("location.href"), timeout_ms=120_000)
    shown = plotly_data(third)
    assert "tr_heads" in shown, sorted(shown)  # the trained view, not the Train button
    for a, b in zip(start, _heatmaps(shown["tr_heads"]), strict=True):  # at step 0, not at the last step
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert not np.allclose(start[0], heads[0], atol=1e-3)  # (step 0 and the last step do differ)


def test_induction_page_trains_live_by_direct_link(fresh_server, open_page):
    server = fresh_server()
    page = open_page(server.url, "induction")
    goto(page, f"{server.url}/induction?lang=ko&text=" + urllib.parse.quote(TEXT))
    _set_number(page, "ind_steps", 60)
    page.locator(".st-key-ind_train button").click()
    page.wait_for_selector(PROGRESS, timeout=60_000)
    deadline = time.monotonic() + 120
    while page.locator(PROGRESS).count() and time.monotonic() < deadline:  # live charts while it trains
        page.wait_for_timeout(200)
    wait_app_idle(page, rerun=True, timeout_ms=120_000)
    data = plotly_data(page)
    for key in ("ind_loss", "ind_l1_scores", "ind_l2_scores", "ind_grid_l1", "ind_grid_l2", "ind_l2_head"):
        assert key in data, key
    grid = _heatmaps(data["ind_grid_l2"])
    assert len(grid) == 4 and grid[0].shape == (12, 12)
    assert page.locator("h1", has_text="인덕션").count() == 1
    assert _address_params(page).get("ind_steps") == ["60"]
