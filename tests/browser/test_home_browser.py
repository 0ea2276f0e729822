"""Home in a real browser (#16 item 7): every page's description shown in full at 1100 px and 1400 px, in English
and Korean (they were cut to one line inside the links), and "Start here" leading into the Playground."""
from __future__ import annotations

import re

import pytest

from mha.i18n import text as i18n_text

from .conftest import open_url, wait_app_idle

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width,lang", [(1100, "en"), (1400, "ko")])
def test_home_descriptions_are_not_cut_off(page, server, width, lang):
    page.set_viewport_size({"width": width, "height": 1000})
    open_url(page, f"{server.url}/?lang={lang}")
    cut = page.locator("[data-testid='stMain'] :is([data-testid='stCaptionContainer'], [data-testid='stPageLink'])"
                       ).evaluate_all("els => els.filter(e => e.scrollWidth > e.clientWidth + 1"
                                      " || [...e.querySelectorAll('*')].some(c => c.scrollWidth > c.clientWidth + 1"
                                      " && getComputedStyle(c).textOverflow === 'ellipsis')).map(e => e.innerText)")
    assert cut == [], f"cut off at {width} px ({lang}): {cut}"
    about = i18n_text("home_playground", lang)
    assert page.get_by_text(about, exact=True).is_visible()


def test_start_here_leads_into_the_playground(page, server):
    open_url(page, f"{server.url}/")
    page.locator(".st-key-home_start a").click()
    page.wait_for_url(re.compile(r"/playground(\?|$)"))
    wait_app_idle(page, rerun=True)
    assert page.locator("h1").first.inner_text().strip() == i18n_text("pg_title", "en")
