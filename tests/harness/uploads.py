"""Weight files as a visitor uploads them (crafted ones too), the loader's refusals, and the Share page's uploader in
AppTest: tests/app/test_upload.py, test_security.py and tests/browser/test_security_browser.py share them."""
from __future__ import annotations

import io
import sys
import zipfile

import pytest
import torch
from course_mha import MultiHeadAttention as CourseMHA  # the course's class (tests/course_mha.py)

from mha.weights import export


def saved(obj) -> bytes:
    """``obj`` as ``torch.save`` writes it: the bytes of an uploaded .pt file."""
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def refused(data: bytes, key: str | tuple[str, ...], **kw) -> export.WeightsError:
    """Load ``data`` as uploaded weights (``kw``: d_model, num_heads, ...), which must be refused with the message
    ``key`` (or one of several keys), in Korean as well as in English; returns the error."""
    with pytest.raises(export.WeightsError) as info:
        export.load_state_dict_bytes(data, **kw)
    err = info.value
    assert err.key in ((key,) if isinstance(key, str) else key), (err.key, str(err))
    assert err.message("ko") != err.message("en")  # a Korean message too, not the English one
    return err


def share_page(**params):
    """A new AppTest session on the Share page (its uploader), opened by a link with these parameters."""
    from harness.apptest import open_page

    return open_page("pages/share.py", **params)


def upload(at, name: str, data: bytes):
    """The visitor gives the Share page's uploader ``data`` as a file called ``name``; the page runs with it and
    must not raise. Returns ``at``."""
    at.file_uploader(key="share_upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, at.exception
    return at


def course_sd(d_model: int = 16) -> dict:
    """The course's module's weights (4 heads), as a learner saves them."""
    return CourseMHA(d_model, 4).state_dict()


def zip_bomb(unpacked_mb: int = 64) -> bytes:
    """A real torch.save file, re-zipped with deflate: its one big tensor (zeros) shrinks ~1000:1. torch.load would
    inflate every storage before any shape is checked."""
    sd = {**course_sd(), "query_linear.weight": torch.zeros(unpacked_mb * 2**18)}  # unpacked_mb MB of float32 zeros
    src = zipfile.ZipFile(io.BytesIO(saved(sd)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for e in src.infolist():
            z.writestr(e.filename, src.read(e))
    return out.getvalue()


def nested(depth: int, leaf) -> dict:
    """``leaf`` wrapped ``depth`` times as {"state_dict": ...} (a checkpoint nested that deep)."""
    obj = leaf
    for _ in range(depth):
        obj = {"state_dict": obj}
    return obj


def saved_deep(obj) -> bytes:
    """torch.save of a deeply nested object (pickling recurses once per level)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 30_000))
    try:
        return saved(obj)
    finally:
        sys.setrecursionlimit(old)
