"""English and Korean: every string exists in both languages with the same placeholders, and no page shows English
in Korean mode — neither a catalog's English text nor a hard-coded English sentence.

Pages come from mha.app.pages.PAGES, so a new page is checked without touching this file. Code, token text and
identifiers such as d_model are allowed: what counts is running English prose.
"""
from __future__ import annotations

import re
import string

import pytest
from google.protobuf.message import Message
from harness.apptest import open_page, page_root

from mha.app.pages import PAGES
from mha.core import i18n

HANGUL = re.compile(r"[\uac00-\ud7a3]")
KO_TEXT = "고양이가 개를 봤다 그리고 고양이가 잤다"  # tokens in Korean: any English on the page is then the app's own
TEXT_FIELDS = {"body", "label", "help", "placeholder", "caption", "title", "content", "text"}
NOT_PROSE = {"plotly_chart", "arrow_data_frame", "dataframe", "code", "bidi_component", "json"}  # data and code


def _fields(s: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(s) if name is not None}


# ---------------------------------------------------------------------------------------------------- catalogs


@pytest.mark.parametrize("key", sorted(i18n.CATALOG))
def test_every_string_has_both_languages_with_the_same_placeholders(key):
    entry = i18n.CATALOG[key]
    assert set(entry) == set(i18n.LANGS), f"{key} ({i18n.OWNER[key]}) has {sorted(entry)}"
    for lang in i18n.LANGS:
        assert isinstance(entry[lang], str) and entry[lang].strip(), f"{key} has no {lang} text"
    assert _fields(entry["en"]) == _fields(entry["ko"]), f"{key}: placeholders differ between en and ko"


def test_every_string_formats_in_both_languages():
    """The placeholders are usable: format each string with dummy values of a type its spec accepts."""
    for key, entry in i18n.CATALOG.items():
        for lang in i18n.LANGS:
            args = {}
            for _, name, spec, _ in string.Formatter().parse(entry[lang]):
                if name:
                    args[name] = 1.5 if spec and spec[-1] in "fe%" else 3 if spec else "x"
            i18n.text(key, lang, **args)  # through i18n: it reads {n:plural:row|rows}


def test_korean_is_korean():
    """A Korean entry that is only ASCII must be code or identifiers, never an English sentence left untranslated."""
    for key, entry in i18n.CATALOG.items():
        ko = entry["ko"]
        if not HANGUL.search(ko):
            assert not _english_prose(ko), f"{key}: Korean text is English: {ko!r}"


def test_page_titles_translate_and_url_paths_stay_fixed():
    from mha.app.pages import url_path

    for path, title_key, _ in PAGES:
        assert HANGUL.search(i18n.text(title_key, "ko")), title_key
        assert url_path(path).isascii()  # the same link works whatever the language


def test_language_follows_the_browser_and_the_control():
    assert [i18n.lang_from_locale(x) for x in ("ko", "ko-KR", "KO-kr", "en-US", "de-DE", "", None)] == \
        ["ko", "ko", "ko", "en", "en", "en", "en"]
    for locale, lang in (("ko-KR", "ko"), ("de-DE", "en")):
        at = open_page(context={"locale": locale} if locale else {})
        assert at.session_state["lang"] == lang
        assert bool(HANGUL.search(at.title[0].value)) == (lang == "ko")
    at.sidebar.segmented_control(key="lang").set_value("en").run()
    assert not HANGUL.search(at.title[0].value)


# ------------------------------------------------------------------------------------------- what a page shows

_W = r"[A-Za-z][a-z]*(?:['’-][a-z]+)*"
_WORD_RUN = re.compile(rf"{_W}(?: +{_W}){{3,}}")  # four or more English words in a row (a list "q, k, v" is not prose)
_IDENTIFIER = re.compile(r"[a-z][a-z0-9_.]*")  # an option's URL value, a variable name: "causal", "cosine", "d_model"


def _english_prose(text: str) -> list[str]:
    """Runs of 4+ English words, after removing code spans, maths and identifiers (d_model, forward(...))."""
    text = re.sub(r"`[^`]*`|\$[^$]*\$|\b\w*_\w*\b|\b\w+\([^)]*\)", " ", text)
    return _WORD_RUN.findall(text)


# English that the Korean texts themselves contain on purpose (quotes of the course, code): allowed on the page.
_KO_CORPUS = " ".join(entry["ko"] for entry in i18n.CATALOG.values())
# English strings (and their longer pieces) whose Korean version is different: none may be shown in Korean mode.
_ENGLISH_ONLY = {entry["en"].strip() for entry in i18n.CATALOG.values() if entry["en"].strip() != entry["ko"].strip()}
_ENGLISH_PIECES = {
    piece.strip()
    for entry in i18n.CATALOG.values()
    for piece in re.split(r"\{[^}]*\}|[*`$]", entry["en"])
    if len(_english_prose(piece)) and piece.strip() not in entry["ko"] and piece.strip() not in _KO_CORPUS
}


def visible_texts(node, out=None, kind=None) -> list[tuple[str, str]]:
    """(element type, text) for every piece of prose on the page: titles, markdown, captions, alerts, widget
    labels and help, button labels, options, expander and tab labels. Charts, tables and code are data."""
    out = [] if out is None else out
    kind = getattr(node, "type", kind)
    proto = getattr(node, "proto", None)
    if kind not in NOT_PROSE and isinstance(proto, Message):
        _strings(proto, kind, out)
    for child in getattr(node, "children", {}).values():
        visible_texts(child, out, kind)
    return out


def _strings(msg: Message, kind: str, out: list) -> None:
    for fd, val in msg.ListFields():
        vals = val if fd.is_repeated else [val]
        if fd.type == fd.TYPE_MESSAGE:
            for v in vals:
                _strings(v, kind, out)
        elif fd.type == fd.TYPE_STRING and fd.name in TEXT_FIELDS:
            out.extend((kind, v) for v in vals if v.strip())


@pytest.fixture(scope="module")
def korean_pages() -> dict[str, list[tuple[str, str]]]:
    out = {}
    for path, _, _ in PAGES:
        # an English browser (open_page's default): Korean must come from the control alone
        at = open_page(path, lang="ko", text=KO_TEXT)
        assert not at.exception, (path, at.exception)
        out[path] = visible_texts(page_root(at))
    return out


@pytest.mark.parametrize("page", [path for path, _, _ in PAGES])
def test_no_english_on_a_korean_page(page, korean_pages):
    texts = korean_pages[page]
    assert len(texts) > 5 and any(HANGUL.search(t) for _, t in texts), f"{page} shows almost nothing"
    problems = []
    for kind, text in texts:
        plain = text.strip().strip("*#🔭 ").strip()
        if plain in _ENGLISH_ONLY and not _IDENTIFIER.fullmatch(plain):
            problems.append(f"{kind}: catalog English shown: {text!r}")
            continue
        for piece in _ENGLISH_PIECES:
            if piece in text:
                problems.append(f"{kind}: English catalog text {piece!r} in {text[:80]!r}")
        for run in _english_prose(text):
            if run not in _KO_CORPUS:
                problems.append(f"{kind}: hard-coded English {run!r} in {text[:80]!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", [path for path, _, _ in PAGES])
def test_no_particle_pair_on_a_korean_page(page, korean_pages):
    """Every particle shown is the one that fits ("헤드 0이", never "헤드 0이(가)"): mha.core.i18n picks it."""
    pairs = re.compile("|".join(re.escape(p) for p in i18n.PAIRS))
    shown = [(m.group(), text[:80]) for _, text in korean_pages[page] for m in pairs.finditer(text)]
    assert not shown, shown


def test_the_checks_would_catch_english():
    """The detector is not blind: the same checks flag an English page."""
    at = open_page(lang="en")
    texts = visible_texts(page_root(at))
    assert any(t.strip().strip("*#🔭 ").strip() in _ENGLISH_ONLY for _, t in texts)
    assert any(_english_prose(t) for _, t in texts)
    assert _english_prose("Type a sentence in the sidebar to see it") and not _english_prose("`torch.save(model)` "
                                                                                             "d_model")
