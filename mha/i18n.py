"""English and Korean UI text. Pure Python.

Each page (or feature) keeps its strings in its own module under ``mha/strings/`` as
``STRINGS = {"key": {"en": "...", "ko": "..."}}``; they are merged here. Keys are unique across modules
(``tests/test_i18n.py`` checks that, and that every key has both languages with the same ``{placeholders}``).
"""
from __future__ import annotations

import importlib
import pkgutil

import mha.strings

LANGS = ("en", "ko")
LANG_NAMES = {"en": "English", "ko": "한국어"}


def _load() -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    catalog: dict[str, dict[str, str]] = {}
    owner: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(mha.strings.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"mha.strings.{info.name}")
        for key, texts in mod.STRINGS.items():
            if key in catalog:
                raise KeyError(f"string key {key!r} is defined in both {owner[key]} and {info.name}")
            catalog[key] = texts
            owner[key] = info.name
    return catalog, owner


CATALOG, OWNER = _load()


def text(key: str, lang: str = "en", /, **fmt) -> str:
    """The UI string ``key`` in ``lang`` (falls back to English, then to the key itself), formatted with ``fmt``."""
    entry = CATALOG.get(key)
    if entry is None:
        return key
    s = entry.get(lang) or entry.get("en", key)
    return s.format(**fmt) if fmt else s


def code_comments(code: str, lang: str = "en") -> str:
    """``code`` with each of our comments (``# <English>``, catalog keys ``code_*``) in ``lang``."""
    for key, entry in CATALOG.items():
        if key.startswith("code_") and lang != "en":
            code = code.replace(f"# {entry['en']}", f"# {entry.get(lang) or entry['en']}")
    return code


def lang_from_locale(locale: str | None) -> str:
    """'ko', 'ko-KR' -> 'ko'; anything else (or nothing) -> 'en'."""
    return "ko" if (locale or "").lower().startswith("ko") else "en"
