"""English and Korean UI text. Pure Python.

Each page (or feature) keeps its strings in its own module under ``mha/strings/`` as
``STRINGS = {"key": {"en": "...", "ko": "..."}}``; they are merged here. Keys are unique across modules
(``tests/test_i18n.py`` checks that, and that every key has both languages with the same ``{placeholders}``).
"""
from __future__ import annotations

import importlib
import pkgutil
import re

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


# A count with its noun: "{n:plural:head|heads}" gives "1 head", "2 heads" (English needs it; Korean writes
# "헤드 {n}개" whatever the count). Written as a format spec, so the placeholder is still just {n}.
_PLURAL = re.compile(r"\{(\w+):plural:([^|{}]*)\|([^|{}]*)\}")


def _plurals(s: str, fmt: dict) -> str:
    def one(m: re.Match) -> str:
        n = fmt.get(m.group(1))
        return f"{{{m.group(1)}}} {m.group(2) if n == 1 else m.group(3)}"
    return _PLURAL.sub(one, s) if ":plural:" in s else s


def text(key: str, lang: str = "en", /, **fmt) -> str:
    """The UI string ``key`` in ``lang`` (falls back to English, then to the key itself), formatted with ``fmt``;
    ``{n:plural:row|rows}`` gives the count with its noun."""
    entry = CATALOG.get(key)
    if entry is None:
        return key
    s = entry.get(lang) or entry.get("en", key)
    return _plurals(s, fmt).format(**fmt) if fmt else s


def code_comments(code: str, lang: str = "en") -> str:
    """``code`` with each of our comments (``# <English>``, catalog keys ``code_*``) in ``lang``."""
    for key, entry in CATALOG.items():
        if key.startswith("code_") and lang != "en":
            code = code.replace(f"# {entry['en']}", f"# {entry.get(lang) or entry['en']}")
    return code


def lang_from_locale(locale: str | None) -> str:
    """'ko', 'ko-KR' -> 'ko'; anything else (or nothing) -> 'en'."""
    return "ko" if (locale or "").lower().startswith("ko") else "en"
