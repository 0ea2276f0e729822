"""Fuzzing through AppTest: random and hostile text, random links, on every page of mha.app.pages.PAGES.

Pass = no exception of any kind (``at.exception`` empty: neither an uncaught error nor an exception element) and no
NaN or infinity anywhere in any chart (``harness.apptest.nonfinite_in`` decodes base64 arrays). Two kinds of input:

- text: fragments a hostile or unlucky visitor types (HTML, Markdown, ``javascript:`` links, style attributes,
  right-to-left overrides, control characters, emoji sequences, very long tokens, format braces, a typed
  ``[PAD]``) mixed with hypothesis' own Unicode, joined by spaces, tabs and newlines (so multi-line batches too);
  it arrives by link (``text`` and ``kv_text``) and then as typing into the text box.
- links: random query-parameter dictionaries: the page's own parameters and every other page's, with garbage
  values (huge or negative numbers, NaN, floats, hex, very long or hostile strings), repeated keys, unknown keys.

Bounded for CI: a few examples per page and kind, ``derandomize=True`` (the same examples on every run and every
machine) and no example database. A failure prints the input that caused it (hypothesis shrinks it first).
A longer hunt with new random examples each time: ``MHA_FUZZ_EXAMPLES=60 python -m pytest tests/app/test_fuzz.py``.
"""
from __future__ import annotations

import os

import pytest
from harness.apptest import all_open, bound_url_keys, chart_specs, nonfinite_in, open_page
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from mha.app.pages import PAGES
from mha.app.state import SHARED_KEYS

PAGE_FILES = [path for path, *_ in PAGES]
HUNT = os.environ.get("MHA_FUZZ_EXAMPLES")  # a local bug hunt: more examples, random ones
EXAMPLES = int(HUNT) if HUNT else 4  # per page and kind (+ the explicit @example): 8 pages x 2 kinds x 5 runs

FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not HUNT, database=None, print_blob=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

# ----------------------------------------------------------------------------------------------- hostile text
HOSTILE = [
    # HTML and script
    "<b>bold</b>", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "</div><div style='x'>",
    '<span style="font-size:400px;color:red">big</span>', "<a href='javascript:alert(1)'>x</a>", "&lt;b&gt;",
    "<br>", "<iframe src=//evil>", "<svg/onload=alert(1)>", "<!--", "-->",
    # Markdown, Streamlit's Markdown extensions, LaTeX
    "**bold**", "# heading", "[link](https://evil.example)", "[x](javascript:alert(1))", "`code`", "```",
    ":red[red]", ":material/home:", "$x^2$", "$$", "\\(", "|a|b|", "> quote", "- item", "1. item", "___",
    "javascript:alert(1)", "data:text/html,<b>x</b>", "https://example.com/?a=1&b=2#frag",
    # Unicode that changes how text looks
    "\u202eevil\u202c", "\u2066iso\u2069", "\u200fRTL", "abc\u200bdef", "\ufeffBOM", "e\u0301" + "\u0301" * 60,
    "\u0645\u0631\u062d\u0628\u0627", "\u05e9\u05dc\u05d5\u05dd", "고양이가 개를 봤다", "한\u1100\u1161",
    # control characters
    "\x00", "\x07bell", "\x1b[31mred\x1b[0m", "a\rb", "tab\there", "\x0b\x0c", "\x85", "\u2028", "\u2029", "\x7f",
    # emoji sequences
    "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇰🇷🇯🇵", "👍🏽", "1️⃣", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "\u200d", "😀" * 40,
    # very long tokens, format strings, our own padding token, numbers that look like settings
    "x" * 3000, "가" * 600, "{text}", "{0}", "{__class__}", "%s%d", "[PAD]", "PAD", "NaN", "inf", "-1e309",
]
_fragment = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12), st.from_regex(r"\w{1,8}", fullmatch=True))
_separator = st.sampled_from([" ", " ", " ", "\n", "\n\n", "\t", "", "\r\n", " \n "])


@st.composite
def hostile_text(draw, max_fragments: int = 10) -> str:
    frags = draw(st.lists(_fragment, max_size=max_fragments))
    out = ""
    for f in frags:
        out += f + draw(_separator)
    return out


# --------------------------------------------------------------------------------------------- random links
_GARBAGE = st.one_of(
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30).map(str),
    st.integers(min_value=-3, max_value=20).map(str),  # near the valid range: off-by-one and friends
    st.sampled_from(["4", "8", "16", "32", "64", "128", "256", "384", "512", "12", "24", "48", "96", "192"]),
    st.sampled_from(["true", "false", "True", "1", "0", "yes", "", " ", "weights", "scores", "JS", "cosine", "en",
                     "ko", "fr", "NaN", "nan", "inf", "-inf", "1e309", "-0", "0x10", "1_000", "٣", "½", "∞",
                     "None", "null", "[]", "{}", "%00", "0: the", "3: x"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(HOSTILE),
    st.text(max_size=30),
    st.integers(min_value=1000, max_value=20000).map(lambda n: "9" * n),  # very long values
    st.integers(min_value=1000, max_value=20000).map(lambda n: "a" * n),
)
# Streamlit's own (embed, embed_options), web junk, and names that look like ours but are not.
_UNKNOWN_KEYS = st.one_of(st.sampled_from(["embed", "embed_options", "utm_source", "page", "__proto__", "constructor",
                                           "TEXT", "d_model ", "head[]", "heads_off[0]", "", "😀", "a" * 300]),
                          st.text(min_size=1, max_size=12))
_value = st.one_of(_GARBAGE, st.lists(_GARBAGE, min_size=2, max_size=3))  # a list = the key repeated


@st.composite
def link_params(draw, page_keys: list[str], other_keys: list[str]) -> dict:
    """A query-parameter dictionary: a random subset of the page's keys (and other pages'), garbage values, some
    keys repeated, some unknown keys."""
    keys = draw(st.lists(st.sampled_from(page_keys), unique=True, max_size=len(page_keys)))
    keys += draw(st.lists(st.sampled_from(other_keys), unique=True, max_size=4))
    keys += draw(st.lists(_UNKNOWN_KEYS, unique=True, max_size=3))
    params: dict = {}
    for k in keys:
        if k not in params:
            params[k] = draw(_value)
    if "text" in params and draw(st.booleans()):
        params["text"] = draw(hostile_text())
    return params


# ---------------------------------------------------------------------------------------------------- running
def assert_sound(at: AppTest, what) -> None:
    """No exception reached the page, and every number in every chart is finite."""
    assert not at.exception, f"{what}: {[e.value for e in at.exception]}"
    for n, spec in chart_specs(at).items():
        bad = nonfinite_in(spec)
        assert not bad, f"{what}: chart {n} holds NaN/inf at {bad[:5]}"


@pytest.fixture(scope="module")
def url_keys() -> dict[str, list[str]]:
    """Each page's URL parameters, found by drawing it once (a new control is fuzzed without touching this file);
    ``sentence`` appears only with several lines of text, so it is added to the shared keys."""
    keys = {page: bound_url_keys(open_page(page, {})) for page in PAGE_FILES}
    shared = sorted(set(SHARED_KEYS) | {"sentence"})
    return {page: sorted(set(k) | set(shared)) for page, k in keys.items()}


# ------------------------------------------------------------------------------------------------------ tests
ALL_AT_ONCE = " ".join(HOSTILE[:20]) + "\n" + " ".join(HOSTILE[20:45]) + "\n" + " ".join(HOSTILE[45:])


@pytest.mark.parametrize("page", PAGE_FILES)
@FUZZ
@given(text=hostile_text(), kv_text=st.one_of(st.just(""), st.just(""), hostile_text(4)), typed=hostile_text())
@example(text=ALL_AT_ONCE, kv_text="", typed="\n".join(HOSTILE[::-1]))
def test_any_text_on_any_page(page, text, kv_text, typed):
    # every folded section open: hostile text reaches the charts they hold too
    at = open_page(page, {**all_open(page), "text": text, **({"kv_text": kv_text} if kv_text else {})})
    assert_sound(at, ("link", text, kv_text))
    box = at.sidebar.text_area(key="text")
    box.set_value(typed).run()  # then the learner types something else into the box
    assert_sound(at, ("typed", text, kv_text, typed))


@pytest.mark.parametrize("page", PAGE_FILES)
@FUZZ
@given(data=st.data())
def test_any_link_on_any_page(page, url_keys, data):
    own = url_keys[page]
    others = sorted({k for keys in url_keys.values() for k in keys} - set(own)) or own
    params = data.draw(link_params(own, others), label="params")
    at = open_page(page, params)
    assert_sound(at, ("link", params))
    at.run()  # the session keeps working after the link was cleaned up
    assert_sound(at, ("rerun", params))


def test_hostile_examples_are_really_hostile():
    """The fuzzer's own premise: the fragments survive hypothesis' drawing unchanged and reach the app intact."""
    at = open_page("pages/playground.py", {"text": "<b>x</b> \u202eevil 👨‍👩‍👧‍👦"})
    assert at.session_state["text"] == "<b>x</b> \u202eevil 👨‍👩‍👧‍👦"
    assert nonfinite_in({"data": [{"z": [[1.0, None]]}], "layout": {}}) == ["data[0].z[0]"]
    assert nonfinite_in({"data": [{"x": {"dtype": "f4", "bdata": "AADAfw=="}}], "layout": {}}) == ["data[0].x"]
    assert nonfinite_in({"data": [{"z": [[1.0, 2]]}], "layout": {"yaxis": {"range": [0, 1]}}}) == []
