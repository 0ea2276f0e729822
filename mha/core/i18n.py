"""English and Korean UI text. Pure Python.

Each page (or feature) keeps its strings in its own module under ``mha/strings/`` as
``STRINGS = {"key": {"en": "...", "ko": "..."}}``; they are merged here. Keys are unique across modules
(``tests/app/test_i18n.py`` checks that, and that every key has both languages with the same ``{placeholders}``).
"""
from __future__ import annotations

import importlib
import pkgutil
import re
import string

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
    s = _PLURAL.sub(one, s) if ":plural:" in s else s
    return _ORDINAL.sub(lambda m: ordinal(fmt.get(m.group(1))), s) if ":ordinal}" in s else s


# An ordinal in prose: "the {n:ordinal} line" gives "the 4th line"; Korean writes "{n}번째 줄". A token's position
# is not one: it is an index from 0 everywhere, as in PyTorch, written "token 3" / "토큰 3" (docs/korean.md).
_ORDINAL = re.compile(r"\{(\w+):ordinal\}")


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th', 23 -> '23rd'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def text(key: str, lang: str = "en", /, **fmt) -> str:
    """The UI string ``key`` in ``lang`` (falls back to English, then to the key itself), formatted with ``fmt``;
    ``{n:plural:row|rows}`` gives the count with its noun; a Korean particle pair right after a placeholder
    (``{n}을(를)``, ``{name}이(가)``, ``{d}(으)로``, see :func:`fill`) becomes the particle that fits the value."""
    entry = CATALOG.get(key)
    if entry is None:
        return key
    s = entry.get(lang) or entry.get("en", key)
    return fill(s, **fmt) if fmt else s


# ------------------------------------------------------------------------------------------- Korean particles
#
# Korean picks a particle by the final sound of the word before it: 헤드 0이 (영), 헤드 2가 (이), 0.57을 (칠),
# 모델로 (ㄹ), 마스크를. The catalog writes the pair after a placeholder, as Korean writers do when the word is
# unknown ("{n}을(를)"), and text() puts in the one that fits the value filled in. A pair anywhere else, or a bare
# particle right after a placeholder ("{h}가"), is a mistake: tests/app/test_korean.py scans the catalog for both.

# Written form in the catalog -> (after a final consonant, after a vowel). "(으)로" is special: 로 after ㄹ too.
PAIRS = {
    "이(가)": ("이", "가"), "가(이)": ("이", "가"),
    "을(를)": ("을", "를"), "를(을)": ("을", "를"),
    "은(는)": ("은", "는"), "는(은)": ("은", "는"),
    "과(와)": ("과", "와"), "와(과)": ("과", "와"),
    "(으)로": ("으로", "로"),
    "(이)": ("이", ""),  # the copula before an ending: {n}(이)다, {n}(이)라는, {n}(이)나
}
_PAIR_AFTER = re.compile(r"^([*_`'\"’”」』]*)(" + "|".join(re.escape(p) for p in PAIRS) + ")")

# Final sound of what is read last: None = a vowel, "ㄹ", or "C" (any other final consonant).
_DIGIT = {"0": "C", "1": "ㄹ", "2": None, "3": "C", "4": None, "5": None, "6": "C", "7": "ㄹ", "8": "ㄹ", "9": None}
_PLACE = {1: "C", 2: "C", 3: "C"}  # 십 백 천
_MYRIAD = ["C", "C", None, "C", None]  # 만 억 조 경 해: 10^4k
# Letters read by their names (a lone letter, an acronym): 엘, 엠, 엔, 알 end in a consonant; 에이, 비, 씨 ... don't.
_LETTER = {"l": "ㄹ", "m": "C", "n": "C", "r": "ㄹ"}
_GREEK = {"ε": "C", "ο": "C", "υ": "C"}  # 엡실론, 오미크론, 입실론; 알파, 베타, 람다, 시그마 ... end in a vowel
_SYMBOL = {"%": None, "∞": None, "×": None, "°": None}  # 퍼센트, 무한대, 배, 도
_TRAILING = "*_`'\"’”)]}」』》〉>.,!?;: \t\n\\"  # and Markdown's escapes: an escaped value reads as itself
_TAG = re.compile(r"</?[A-Za-z][^<>]*>$")


def final_sound(word: str) -> str | None | bool:
    """The final sound of ``word`` as Korean reads it: ``None`` (a vowel), ``"ㄹ"``, ``"C"`` (another final
    consonant), or ``False`` when it cannot be told (nothing readable, a Chinese character, an emoji).

    Trailing markup, brackets and quotes are skipped (``**헤드 3**``, ``'cat'``, ``[CLS]``, ``(1)``), and so
    are Markdown's escapes (``\\(4\\, 4\\)``, a shape escaped for the page). Numbers are
    read as Korean reads them: the last digit (``0.57`` -> 칠), or the place of the last non-zero digit of a whole
    number (20 이십, 100 백, 1,000 천, 30,000 삼만). Latin words by a heuristic of how English is written in
    Korean: a lone letter or an acronym by the last letter's name (CLS 에스, L 엘, M 엠); a word ending in
    m/n/ng/l (silent e too: line, table) or in p/t/k/b after one vowel letter (cat, step, top) has a final
    consonant; one ending in a vowel, r, y, d, g, s, x, ch/sh/th, or a consonant pair (mask 마스크, text 텍스트)
    does not.
    """
    s = word
    while True:
        tag = _TAG.search(s)
        if tag:
            s = s[:tag.start()]
        stripped = s.rstrip(_TRAILING)
        if stripped == s and not tag:
            break
        s = stripped
    if not s:
        return False
    c = s[-1]
    if "\uac00" <= c <= "\ud7a3":
        jong = (ord(c) - 0xAC00) % 28
        return None if jong == 0 else "ㄹ" if jong == 8 else "C"
    if c.isdigit() and c.isascii():
        return _number_sound(s)
    if c in _SYMBOL:
        return _SYMBOL[c]
    if c.lower() in _GREEK or "\u03b1" <= c.lower() <= "\u03c9":
        return _GREEK.get(c.lower())
    if "\u3041" <= c <= "\u30ff":  # kana: every syllable ends in a vowel but ん/ン
        return "C" if c in "んン" else None
    if c.isascii() and c.isalpha():
        return _latin_sound(re.search(r"[A-Za-z]+$", s).group())
    return False


def _number_sound(s: str) -> str | None:
    m = re.search(r"[0-9][0-9,]*(?:\.[0-9]+)?$", s)
    number = m.group().replace(",", "")
    if "." in number:  # decimals are read digit by digit: 0.57 영 점 오 칠
        return _DIGIT[number[-1]]
    digits = number.lstrip("0")
    if not digits:
        return _DIGIT["0"]
    place = len(digits) - len(digits.rstrip("0"))  # of the last non-zero digit
    if place == 0:
        return _DIGIT[digits[-1]]
    if place < 4:
        return _PLACE[place]
    return _MYRIAD[place // 4 - 1] if place // 4 <= len(_MYRIAD) else "C"


def _latin_sound(w: str) -> str | None:
    low = w.lower()
    if len(w) == 1 or (w.isupper() and len(w) <= 5):  # a letter or an acronym: by the letter's name
        return _LETTER.get(low[-1])
    parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", w)  # camelCase: the last word counts
    low = (parts[-1] if parts else w).lower()
    if len(low) == 1:
        return _LETTER.get(low)
    vowels = "aeiou"
    last = low[-1]
    if last == "e" and len(low) > 2 and low[-2] not in vowels:  # silent e: line 라인, table 테이블, state 스테이트
        return "ㄹ" if low[-2] == "l" else "C" if low[-2] in "mn" else None
    if last in "mn":
        return "C"
    if last == "l":
        return "ㄹ"
    if low.endswith("ng"):
        return "C"
    if last in "ptkb":  # 캣, 스텝, 톱, 웹 after one vowel letter; 마스크, 텍스트, 체크 after a pair
        if low.endswith("ck"):
            return None
        before = low[:-1]
        return "C" if before and before[-1] in vowels and (len(before) < 2 or before[-2] not in vowels) else None
    return None


def particle(word: str, pair: str) -> str:
    """The particle of ``pair`` that follows ``word``: ``particle("헤드 0", "이(가)") == "이"``,
    ``particle("0.57", "을(를)") == "을"``, ``particle("모델", "(으)로") == "로"``. ``pair`` is a catalog form
    (``"을(를)"``, ``"(으)로"``, ``"(이)"``) or either particle of it (``"을"``, ``"를"``, ``"으로"``). A word whose
    final sound cannot be told gets the written pair back, as a Korean writer would leave it."""
    forms = PAIRS.get(pair) or next((f for f in PAIRS.values() if pair in f and pair), None)
    if forms is None:
        raise ValueError(f"unknown particle pair {pair!r}: use one of {', '.join(PAIRS)}")
    sound = final_sound(word)
    if sound is False:
        return pair if pair in PAIRS else next(k for k, v in PAIRS.items() if v == forms)
    if forms[0] == "으로":
        return "으로" if sound == "C" else "로"
    return forms[0] if sound else forms[1]


def fill(template: str, /, **fmt) -> str:
    """``template.format(**fmt)``, with ``{n:plural:row|rows}`` counts and each particle pair right after a
    placeholder (behind closing markup: ``**{name}**을(를)``) chosen for the value filled in; ``{n}번째`` with
    n = 1 reads 첫 번째, as Korean says it (2번째, 3번째 … stay)."""
    template = _plurals(template, fmt)
    if not any(p in template for p in PAIRS) and "}번째" not in template:
        return template.format(**fmt)
    f = string.Formatter()
    out: list[str] = []
    value = None
    for literal, name, spec, conv in f.parse(template):
        if value is not None:
            m = _PAIR_AFTER.match(literal)
            if m:
                literal = m.group(1) + particle(value + m.group(1), m.group(2)) + literal[m.end():]
            elif value == "1" and literal.startswith("번째"):
                out[-1], literal = "첫", " " + literal
        out.append(literal)
        if name is None:
            value = None
            continue
        obj, _ = f.get_field(name, (), fmt)
        value = f.format_field(f.convert_field(obj, conv), f.vformat(spec or "", (), fmt))
        out.append(value)
    return "".join(out)


def code_comments(code: str, lang: str = "en") -> str:
    """``code`` with each of our comments (``# <English>``, or a one-line docstring of that English, between triple
    quotes; catalog keys ``code_*``) in ``lang``."""
    for key, entry in CATALOG.items():
        if key.startswith("code_") and lang != "en":
            there = entry.get(lang) or entry["en"]
            code = code.replace(f"# {entry['en']}", f"# {there}").replace(f'"""{entry["en"]}"""', f'"""{there}"""')
    return code


def lang_from_locale(locale: str | None) -> str:
    """'ko', 'ko-KR' -> 'ko'; anything else (or nothing) -> 'en'."""
    return "ko" if (locale or "").lower().startswith("ko") else "en"
