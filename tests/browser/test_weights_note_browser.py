"""The "which weights are in use" note on direct links (#27.3): a teacher's link to Train or Induction must not tell
students to pick trained weights in the sidebar (those pages train modules of their own), whichever session opens
it first. The note used to be drawn before ``st.navigation()``, when a session's first run on a server that had
already left legacy routing still named app.py as its page: every direct link but the server's very first one
showed it. Each link here is a new browser context (a new session), one after another on one fresh server."""
from __future__ import annotations

import pytest
from harness.chromium import goto

pytestmark = pytest.mark.browser

NOTE = "[data-testid='stMain'] [data-testid='stCaptionContainer']"
RANDOM_NOTE = {"en": "Weights: random", "ko": "가중치: 무작위"}


def _shows_random_note(page, lang: str) -> bool:
    return any(RANDOM_NOTE[lang] in text for text in page.locator(NOTE).all_inner_texts())


def test_direct_links_show_the_weights_note_only_where_it_belongs(fresh_server, open_page):
    server = fresh_server()
    # the playground first (the server's first request, in legacy routing), then the pages that train their own
    # modules, each a new session: the playground must show the note (the check can fail), the others must not
    cases = [("/playground?lang=ko", "ko", True), ("/train?lang=ko", "ko", False), ("/induction?lang=ko", "ko", False),
             ("/train?lang=ko&tr_at=300", "ko", False), ("/induction", "en", False), ("/heads?lang=ko", "ko", True)]
    for n, (link, lang, expected) in enumerate(cases):
        page = open_page(server.url, f"link{n}")
        goto(page, server.url + link)
        assert _shows_random_note(page, lang) is expected, link
