"""The link box follows the language back and forth: a copied link must open in the language on screen."""
from __future__ import annotations

import time

from .conftest import LINK_BOX, open_url, wait_app_idle


def box_text(page) -> str:
    return page.locator(f"{LINK_BOX} .mha-url").text_content() or ""


def test_the_link_box_says_the_language_on_screen_after_switching_back_and_forth(page, server):
    open_url(page, f"{server.url}/playground?lang=ko")
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
