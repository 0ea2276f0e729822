"""Home in a real browser (#16 item 7): every page's description shown in full at 1100 px and 1400 px, in English
and Korean (they were cut to one line inside the links), and "Start here" leading into the Playground."""
from __future__ import annotations

import re

import pytest
from harness.chromium import goto, wait_app_idle

from mha.core.i18n import text as i18n_text
from mha.weights.view import DEFAULT_TEXT

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width,lang", [(1100, "en"), (1400, "ko")])
def test_home_descriptions_are_not_cut_off(page, server, width, lang):
    page.set_viewport_size({"width": width, "height": 1000})
    goto(page, f"{server.url}/?lang={lang}")
    cut = page.locator("[data-testid='stMain'] :is([data-testid='stCaptionContainer'], [data-testid='stPageLink'])"
                       ).evaluate_all("els => els.filter(e => e.scrollWidth > e.clientWidth + 1"
                                      " || [...e.querySelectorAll('*')].some(c => c.scrollWidth > c.clientWidth + 1"
                                      " && getComputedStyle(c).textOverflow === 'ellipsis')).map(e => e.innerText)")
    assert cut == [], f"cut off at {width} px ({lang}): {cut}"
    about = i18n_text("home_playground", lang)
    assert page.get_by_text(about, exact=True).is_visible()


def test_start_here_leads_into_the_playground_on_the_courses_sentence(page, server):
    goto(page, f"{server.url}/?text=words+the+learner+typed&d_model=32")
    page.locator(".st-key-home_start a").click()
    page.wait_for_url(re.compile(r"/playground(\?|$)"))
    wait_app_idle(page, rerun=True)
    assert page.locator("h1").first.inner_text().strip() == i18n_text("pg_title", "en")
    assert page.locator(".st-key-text textarea").input_value() == DEFAULT_TEXT  # the typed sentence is replaced
    page.wait_for_function("() => !location.search.includes('start=') && location.search.includes('d_model=32')")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_sidebar_controls_are_reached_without_scrolling(page, server, lang):
    # The sidebar outgrew a laptop window: opening num_heads scrolled it, and Streamlit's list closed on that scroll.
    # Rarely used controls are folded, d_model and num_heads share a row: both sit inside the 1000 px window.
    goto(page, f"{server.url}/playground?lang={lang}")
    height = page.viewport_size["height"]
    for key in ("d_model", "num_heads", "causal"):
        box = page.locator(f".st-key-{key}").bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, (key, box, height)
    page.locator(".st-key-num_heads input[role='combobox']").click()
    option = page.get_by_role("option", name="2", exact=True)
    option.wait_for(state="visible", timeout=5000)
    page.wait_for_timeout(300)  # the list closed within ~50 ms when opening it scrolled the sidebar
    option.click(timeout=2000)  # still open: the first click was enough
    wait_app_idle(page, rerun=True)
    assert "num_heads=2" in page.url
