"""The link box follows the language back and forth: a copied link must open in the language on screen."""
from __future__ import annotations

import time
import urllib.parse

from harness.chromium import goto, wait_app_idle

from .conftest import LINK_BOX, click_nav


def box_text(page) -> str:
    return page.locator(f"{LINK_BOX} .mha-url").text_content() or ""


def test_the_link_box_says_the_language_on_screen_after_switching_back_and_forth(page, server):
    goto(page, f"{server.url}/playground?lang=ko")
    for lang in ("en", "ko", "en", "ko", "en"):
        page.locator(".st-key-lang button", has_text=lang).first.click()
        wait_app_idle(page, rerun=True)
        deadline = time.monotonic() + 8
        # the box follows the address bar on a timer; lang is always in it (its default follows the browser)
        while not box_text(page).endswith(f"lang={lang}") and f"lang={lang}&" not in box_text(page):
            assert time.monotonic() < deadline, f"after choosing {lang} the link box says {box_text(page)}"
            page.wait_for_timeout(200)
        time.sleep(1.5)  # an older timer, had one survived, would overwrite the box within 0.6 s
        assert f"lang={lang}" in box_text(page), f"after choosing {lang} the link box says {box_text(page)}"


def address_lang(page) -> list[str]:
    """The ``lang`` values in the address bar (window.location, as a visitor would copy it)."""
    query = urllib.parse.urlsplit(page.evaluate("window.location.href")).query
    return urllib.parse.parse_qs(query).get("lang", [])


def wait_address_lang(page, lang: str, what: str, timeout_s: float = 8) -> None:
    deadline = time.monotonic() + timeout_s
    while address_lang(page) != [lang]:
        assert time.monotonic() < deadline, f"{what}: the address bar is {page.evaluate('window.location.href')}"
        page.wait_for_timeout(200)


def test_the_address_bar_always_says_the_language(page, server):
    """#16 item 12: "copy the address bar" (Home's advice) must open in the language on screen. Streamlit writes a
    control into the address only when it is not at its default, and lang's default follows the browser: so lang
    is put there from the first run, and kept through page switches and a switch back to the default."""
    goto(page, f"{server.url}/")  # an English browser, nothing in the link
    wait_address_lang(page, "en", "opened with no parameter")
    click_nav(page, "playground")
    wait_address_lang(page, "en", "after a page switch")
    page.locator(".st-key-causal label").first.click()
    wait_app_idle(page, rerun=True)
    for lang in ("ko", "en"):  # en is the default here: Streamlit alone would drop it from the address
        page.locator(".st-key-lang button", has_text=lang).first.click()
        wait_app_idle(page, rerun=True)
        wait_address_lang(page, lang, f"after choosing {lang}")
    time.sleep(1.5)  # nothing rewrites it a moment later
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.evaluate("window.location.href")).query)
    assert params.get("lang") == ["en"] and params.get("causal") == ["true"], params


def test_the_link_shown_selected_or_copied_by_hand_is_the_exact_link(page, server):
    """The box shows Hangul as Hangul but keeps every ASCII escape: a line break (two sentences), a percent sign, an
    ampersand and a hash in the text survive when the link is selected by hand or when the browser refuses the
    clipboard (plain http to a classroom server) and the button selects it instead."""
    text = "고양이가 쥐를 100% 쫓았다\nhello & #1"
    goto(page, f"{server.url}/masks?" + urllib.parse.urlencode({"text": text, "sentence": "1", "lang": "ko"}))

    def text_of(url: str) -> list[str]:
        return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("text", [])

    deadline = time.monotonic() + 8
    while text_of(box_text(page)) != [text]:
        assert time.monotonic() < deadline, f"the link box shows {box_text(page)!r}"
        page.wait_for_timeout(200)
    assert "고양이가" in box_text(page), "Hangul is shown as Hangul"
    assert text_of(page.evaluate("window.location.href")) == [text]
    page.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new Error('refused')); }")
    page.locator(f"{LINK_BOX} .mha-copy").click()
    page.wait_for_function("() => window.getSelection().toString().length > 0")
    assert text_of(page.evaluate("() => window.getSelection().toString()")) == [text]
