"""A file name with bidi overrides in Streamlit's own file chip (#23.7): Chromium would draw "evil<U+202E>gnp.pt" as
"eviltp.png"; the chip of that file shows what every message shows (the override as a space)."""
from __future__ import annotations

import pytest
import torch
from course_mha import MultiHeadAttention as CourseMHA
from harness.chromium import goto, wait_app_idle

pytestmark = pytest.mark.browser


def test_the_file_chip_shows_a_bidi_override_name_in_order(page, server):
    import io

    buf = io.BytesIO()
    torch.save(CourseMHA(16, 4).state_dict(), buf)
    goto(page, f"{server.url}/share?lang=en")
    page.locator(".st-key-share_upload input[type='file']").set_input_files(
        files=[{"name": "evil\u202egnp.pt", "mimeType": "application/octet-stream", "buffer": buf.getvalue()}])
    wait_app_idle(page, rerun=True)
    chip = page.locator(".st-key-share_upload [data-testid='stFileChipName']").first
    chip.wait_for(timeout=30_000)
    page.wait_for_function(
        """() => getComputedStyle(document.querySelector(
               ".st-key-share_upload [data-testid='stFileChipName']"), '::after').content !== 'none'""",
        timeout=30_000)
    after = chip.evaluate("e => getComputedStyle(e, '::after').content")
    size = chip.evaluate("e => getComputedStyle(e).fontSize")
    assert after == '"evil gnp.pt"' and size == "0px"  # the raw name hidden, the name in order drawn instead
    # isolated from the hidden name's override, which would otherwise reorder it too ("tp.png live")
    assert chip.evaluate("e => getComputedStyle(e, '::after').unicodeBidi") == "isolate"
    assert "evil gnp.pt" in page.locator("[data-testid='stAlertContentSuccess']").first.inner_text()
