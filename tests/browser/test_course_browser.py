"""Follow the course in a real browser (#27 point 6): on a freshly started server a direct link /course?step=N opens
that step; Next and Back change the step and the address bar; a revealed step draws its charts. Screenshots of each
step, revealed, in English and Korean go to test-artifacts/."""
from __future__ import annotations

import re

import pytest
from harness.chromium import goto, wait_app_idle

from mha.core.i18n import text as i18n_text
from mha.lessons import course

from .conftest import save_screenshot

pytestmark = pytest.mark.browser


def _step(page) -> int:
    return int(page.locator("[data-testid='stMain'] h2").first.inner_text().split("·")[0])


def _url_step(page) -> str | None:
    return page.evaluate("() => new URLSearchParams(location.search).get('step')")


def test_a_direct_link_to_a_step_opens_it_on_a_fresh_server(browser, fresh_server, open_page):
    server = fresh_server()
    page = open_page(server.url, "direct")
    goto(page, f"{server.url}/course?step=5&lang=ko")
    assert _step(page) == 5
    assert i18n_text("co_step_heads", "ko") in page.locator("[data-testid='stMain'] h2").first.inner_text()
    assert page.locator("h1").first.inner_text().strip().endswith(i18n_text("co_title", "ko"))


def test_next_and_back_change_the_step_and_the_link(page, server):
    goto(page, f"{server.url}/course?step=2")
    assert _step(page) == 2
    page.locator(".st-key-co_next button").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '3'")
    wait_app_idle(page, rerun=True)
    assert _step(page) == 3
    page.locator(".st-key-co_back button").click()
    wait_app_idle(page, rerun=True)
    page.locator(".st-key-co_back button").click()
    page.wait_for_function("() => { const s = new URLSearchParams(location.search).get('step');"
                           " return s === null || s === '1'; }")  # the first step is the control's default
    wait_app_idle(page, rerun=True)
    assert _step(page) == 1 and page.locator(".st-key-co_back button").is_disabled()
    # the address bar, opened anew, shows the same step
    page.locator(".st-key-co_next button").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '2'")
    wait_app_idle(page, rerun=True)
    goto(page, page.url)
    assert _step(page) == 2


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_step_reveals_its_charts(page, server, lang):
    for number, step in enumerate(course.STEPS, start=1):
        goto(page, f"{server.url}/course?step={number}&lang={lang}")
        assert _step(page) == number and _url_step(page) in (str(number), None)
        page.locator(f".st-key-co_guess_{step} [role='radiogroup'] label").first.click()
        wait_app_idle(page, rerun=True)
        page.locator(f".st-key-co_reveal_{step} button").click()
        wait_app_idle(page, rerun=True)
        verdicts = page.locator("[data-testid='stAlertContainer']")
        assert verdicts.count() >= 1
        charts = page.locator("[data-testid='stPlotlyChart']").count()
        canvases = page.evaluate("() => [...document.querySelectorAll('*')].filter(e => e.shadowRoot)"
                                 ".flatMap(e => [...e.shadowRoot.querySelectorAll('.hm')]).length")
        assert charts + canvases >= 1, (step, charts, canvases)
        save_screenshot(page, f"course-{lang}-{number}-{step}")
    assert re.search(r"step=7", page.url)


def test_the_playground_switches_to_trained_heads_in_one_click(page, server):
    """#27 point 2: the first screen says why random heads look pale, and one click gives trained heads (the
    sidebar's source and the address bar follow); each head's output is one click beside weights and scores."""
    goto(page, f"{server.url}/playground")
    assert page.locator(".st-key-pg_random_note").is_visible()
    page.locator(".st-key-pg_to_trained button").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('source') === 'trained'")
    wait_app_idle(page, rerun=True)
    assert page.locator(".st-key-pg_random_note").count() == 0
    page.locator(".st-key-matrix_shown button").filter(has_text=i18n_text("pg_matrix_outputs", "en")).click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('matrix') === 'head_outputs'")
    wait_app_idle(page, rerun=True)
    assert page.locator(".st-key-pg_head_outputs_grid .main-svg").first.is_visible()  # the third heatmap
