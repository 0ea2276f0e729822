"""Learner code in a link (a teacher's exercise): zlib-compressed, base64url, capped both ways.

``encode(code)`` gives the link value (no padding, only ``A-Z a-z 0-9 - _``), or raises ``LearnerError``
("ck_link_too_long") when it would be longer than ``MAX_LINK_CHARS``. ``decode(value)`` gives the code back, or
raises ``LearnerError`` for anything that is not such a value: too long, not base64url, not zlib, more than
``MAX_CODE_CHARS`` characters once unpacked (read through a capped decompressor: a link cannot make the server
inflate a bomb), not UTF-8 text. Pure Python.
"""
from __future__ import annotations

import base64
import re
import zlib

from mha.core.errors import LearnerError

MAX_CODE_CHARS = 20_000  # what the editor takes (the course's class is ~1,800)
MAX_LINK_CHARS = 6_000  # the compressed value in a link: ~4x the course's class, well inside any browser's limit
_B64URL = re.compile(r"[A-Za-z0-9_-]*")


def encode(code: str) -> str:
    """The link value of ``code`` ("" for no code)."""
    if not code:
        return ""
    value = base64.urlsafe_b64encode(zlib.compress(code.encode("utf-8"), 9)).decode("ascii").rstrip("=")
    if len(value) > MAX_LINK_CHARS:
        raise LearnerError("ck_link_too_long", n=len(value), max=MAX_LINK_CHARS)
    return value


def decode(value: str) -> str:
    """The code a link value holds (see the module docstring for what is refused)."""
    value = (value or "").strip()
    if len(value) > MAX_LINK_CHARS:
        raise LearnerError("ck_link_too_long", n=len(value), max=MAX_LINK_CHARS)
    if not _B64URL.fullmatch(value) or len(value) % 4 == 1:
        raise LearnerError("ck_link_bad")
    try:
        unpack = zlib.decompressobj()
        raw = unpack.decompress(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)), 4 * MAX_CODE_CHARS + 1)
    except (ValueError, zlib.error):
        raise LearnerError("ck_link_bad") from None
    if unpack.unconsumed_tail or len(raw) > 4 * MAX_CODE_CHARS:  # UTF-8: at most 4 bytes a character
        raise LearnerError("ck_code_too_long", n=len(raw), max=MAX_CODE_CHARS)
    if not unpack.eof:  # cut short
        raise LearnerError("ck_link_bad")
    try:
        code = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LearnerError("ck_link_bad") from None
    if len(code) > MAX_CODE_CHARS:
        raise LearnerError("ck_code_too_long", n=len(code), max=MAX_CODE_CHARS)
    return code


def read_upload(data: bytes, max_bytes: int = 4 * MAX_CODE_CHARS) -> str:
    """An uploaded .py file's text: at most ``max_bytes`` bytes, UTF-8 (a BOM is dropped), no NUL character;
    line ends made ``\\n``. Raises ``LearnerError`` otherwise."""
    if len(data) > max_bytes:
        raise LearnerError("ck_upload_too_big", n=len(data), max=max_bytes)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise LearnerError("ck_upload_not_text", byte=err.start + 1) from None
    if "\x00" in text:
        raise LearnerError("ck_upload_not_text", byte=data.index(b"\x00") + 1)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > MAX_CODE_CHARS:
        raise LearnerError("ck_code_too_long", n=len(text), max=MAX_CODE_CHARS)
    return text
