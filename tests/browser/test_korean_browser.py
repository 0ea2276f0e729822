"""Streamlit's own English in a Korean page (#27.5): the file uploader's "Upload" and "9MB per file • PT, PTH, BIN",
the running indicator's "Stop". Streamlit has no option for them; a style in the frame (mha.app.frame) and one per
uploader (mha.app.widgets.file_uploader) write Korean over them. What a visitor sees is the ::after text, with the
English at font-size 0: both are measured in the page. English pages keep Streamlit's text."""
from __future__ import annotations

import pytest
from harness.chromium import goto

pytestmark = pytest.mark.browser

DROPZONE = "[data-testid='stFileUploaderDropzone']"
SHOWN = """(sel) => { const e = document.querySelector(sel); const a = getComputedStyle(e, '::after');
  return [getComputedStyle(e).fontSize, a.content, a.fontSize]; }"""
# The running indicator as Streamlit 1.67 draws it while a script runs (its button, copied from the page): it shows
# for a moment only, so a copy is put into the page and the page's own styles are measured on it.
STATUS = ('<div class="stStatusWidget" data-testid="stStatusWidget" id="status-copy">'
          '<button kind="header" data-testid="stBaseButton-header">Stop</button></div>')


def _status_shown(page, disabled: bool = False):
    page.evaluate("html => document.body.insertAdjacentHTML('beforeend', html)", STATUS)
    if disabled:
        page.evaluate("document.querySelector('#status-copy button').disabled = true")
    try:
        return page.evaluate(SHOWN, "#status-copy button")
    finally:
        page.evaluate("document.querySelector('#status-copy').remove()")


def test_korean_uploader_and_stop_button(page, server):
    goto(page, server.url + "/share?lang=ko")
    instructions = f"{DROPZONE} [data-testid='stFileUploaderDropzoneInstructions'] span"
    size, content, shown_size = page.evaluate(SHOWN, instructions)
    assert size == "0px" and content == '"파일 하나에 최대 9MB · PT, PTH, BIN"' and shown_size == "14px"
    assert "per file" in page.locator(instructions).inner_text()  # still there, only not shown
    size, content, shown_size = page.evaluate(SHOWN, f"{DROPZONE} button p")
    assert (size, content, shown_size) == ("0px", '"업로드"', "14px")
    assert _status_shown(page)[:2] == ["0px", '"중지"']
    assert _status_shown(page, disabled=True)[1] == '"멈추는 중…"'


def test_english_keeps_streamlits_words(page, server):
    goto(page, server.url + "/share?lang=en")
    # the drop zone names the app's own limit (9 MB; the widget lets 10 MB through to say so in the app's words)
    _, content, _ = page.evaluate(SHOWN, f"{DROPZONE} [data-testid='stFileUploaderDropzoneInstructions'] span")
    assert content == '"9MB per file • PT, PTH, BIN"'
    size, content, _ = page.evaluate(SHOWN, f"{DROPZONE} button p")
    assert size != "0px" and content == "none"
    assert page.locator(f"{DROPZONE} button p").inner_text() == "Upload"
    assert _status_shown(page)[1] == "none"
