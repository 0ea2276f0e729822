"""The Heads page's open section in a real browser: a direct link opens it, a click puts its id in the address bar,
the id stays the same when the language changes, the back button and a copied link bring it back.

The page keeps the section's id (measure, compare, ablate, qk, order, seeds) in ``hd_section``; the picker shows the
translated titles. Fixtures and helpers: conftest.py.
"""
from __future__ import annotations

import re
import time
import urllib.parse

import pytest
from harness.chromium import goto, wait_app_idle

from mha.core.i18n import text as i18n_text

from .conftest import LINK_BOX, save_screenshot

pytestmark = pytest.mark.browser

PICKER = ".st-key-hd_section_pick"
# What only each section draws (the word-order section: its shuffle control, as nothing is shuffled yet).
UNIQUE = {"measure": ".st-key-heads_stats_chart", "compare": ".st-key-heads_sim_chart",
          "ablate": ".st-key-heads_change_chart", "qk": ".st-key-heads_qk_chart", "order": ".st-key-heads_shuffle",
          "seeds": ".st-key-heads_seeds_chart"}


def title(section: str, lang: str) -> str:
    return i18n_text(f"hd_sec_{section}", lang)


def params(page) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)


def chosen(page) -> str:
    """The title of the section the picker shows as chosen, as the learner reads it (icon, then the words)."""
    return " ".join(page.locator(f"{PICKER} button[aria-checked='true']").inner_text().split())


def shown_sections(page) -> set[str]:
    return {name for name, sel in UNIQUE.items() if page.locator(f"[data-testid='stMain'] {sel}").count()}


def pick(page, section: str, lang: str) -> None:
    """Click a section's button, as a learner does (found by its words, without the icon)."""
    words = title(section, lang).split(" ", 1)[1]
    page.locator(f"{PICKER} button", has_text=re.compile(rf"^\W*{re.escape(words)}\s*$")).click()
    wait_app_idle(page, rerun=True)


def wait_for_address(page, want: dict[str, list[str] | None], timeout_s: float = 10) -> None:
    """Wait until the address bar holds these parameters (None: absent). Streamlit writes it after the run."""
    deadline = time.monotonic() + timeout_s
    while (got := {k: params(page).get(k) for k in want}) != want:
        assert time.monotonic() < deadline, f"address bar {page.url}: {got} != {want}"
        page.wait_for_timeout(200)


def link_box_text(page) -> str:
    return page.locator(f"{LINK_BOX} .mha-url").text_content() or ""


def test_a_korean_link_opens_its_section_and_clicks_write_the_id(page, server, open_page):
    goto(page, f"{server.url}/heads?hd_section=qk&lang=ko")
    assert page.locator("h1").first.inner_text().strip() == i18n_text("hd_title", "ko")
    assert chosen(page) == title("qk", "ko")
    assert shown_sections(page) == {"qk"}  # that section, and only it
    assert page.get_by_text(i18n_text("hd_about_qk", "ko")).is_visible()
    assert not page.locator(".st-key-hd_section").is_visible()  # the control that holds the id is not shown
    assert params(page)["hd_section"] == ["qk"]
    save_screenshot(page, "heads-link-qk-ko")

    pick(page, "order", "ko")
    assert chosen(page) == title("order", "ko") and shown_sections(page) == {"order"}
    wait_for_address(page, {"hd_section": ["order"], "lang": ["ko"]})  # the id, not "🔀 단어 순서"
    deadline = time.monotonic() + 5
    while "hd_section=order" not in link_box_text(page):  # the link box follows the address bar
        assert time.monotonic() < deadline, link_box_text(page)
        page.wait_for_timeout(200)
    link = page.evaluate("() => window.location.href")

    # The language changes, the section and its id stay.
    page.locator(".st-key-lang button", has_text="en").click()
    wait_app_idle(page, rerun=True)
    assert chosen(page) == title("order", "en") and shown_sections(page) == {"order"}
    wait_for_address(page, {"hd_section": ["order"]})
    assert page.get_by_text(i18n_text("hd_about_order", "en")).is_visible()
    save_screenshot(page, "heads-link-order-en")

    # The Korean link, opened by someone else (a new English browser): the same section, in Korean.
    other = open_page(server.url, "reopened")
    goto(other, link)
    assert chosen(other) == title("order", "ko") and shown_sections(other) == {"order"}


def test_each_section_keeps_its_controls_and_the_back_button_returns(page, server):
    goto(page, f"{server.url}/heads")
    assert chosen(page) == title("measure", "en") and shown_sections(page) == {"measure"}
    assert "hd_section" not in params(page)  # the first section is the default: not in the address

    pick(page, "compare", "en")
    page.locator(".st-key-heads_metric button", has_text="cosine").click()
    wait_app_idle(page, rerun=True)
    wait_for_address(page, {"hd_section": ["compare"], "heads_metric": ["cosine"]})

    pick(page, "ablate", "en")
    assert shown_sections(page) == {"ablate"}
    wait_for_address(page, {"hd_section": ["ablate"], "heads_metric": None})  # only what is on screen

    pick(page, "compare", "en")  # the choice made there is still there, and back in the address
    assert page.locator(".st-key-heads_metric button[aria-checked='true']").inner_text().strip() == "cosine"
    wait_for_address(page, {"hd_section": ["compare"], "heads_metric": ["cosine"]})

    pick(page, "measure", "en")
    wait_for_address(page, {"hd_section": None})
    assert shown_sections(page) == {"measure"}

    # Back: the previous section again. A switch can leave one in-between address in the history (Streamlit writes
    # the new section, then drops the controls of the section left), so the learner may need a second press.
    for _ in range(2):
        page.go_back()
        wait_app_idle(page, rerun=True)
        if params(page).get("hd_section") == ["compare"]:
            break
    wait_for_address(page, {"hd_section": ["compare"], "heads_metric": ["cosine"]})
    assert chosen(page) == title("compare", "en") and shown_sections(page) == {"compare"}
    assert page.locator(".st-key-heads_metric button[aria-checked='true']").inner_text().strip() == "cosine"


def test_a_section_that_does_not_exist_opens_the_first_with_a_note(page, server):
    goto(page, f"{server.url}/heads?" + urllib.parse.urlencode({"hd_section": "<b>zzz</b>", "lang": "ko"}))
    assert chosen(page) == title("measure", "ko") and shown_sections(page) == {"measure"}
    assert "hd_section" not in params(page)
    note = page.locator("[data-testid='stMain'] [data-testid='stCaptionContainer']", has_text="hd_section=")
    assert "<b>zzz</b>" in note.inner_text()  # quoted as given, as text
    assert page.locator("[data-testid='stMain'] b", has_text="zzz").count() == 0
