"""Links: the whole view of every page comes back from its link, and any garbage in a link gives defaults and a
short note, never an exception and never a NaN in a chart.

A session opening a link is a fresh AppTest switched to the page before its first run (the same route a browser
takes with a direct link). Pages are discovered from mha.app.pages.PAGES, and their controls from what they draw, so a
new page or a new control is covered without touching this file.
"""
from __future__ import annotations

import warnings
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from harness.apptest import all_numbers_finite, chart_specs, open_page, page_root
from streamlit.testing.v1 import AppTest

from mha.app.pages import PAGES, url_path
from mha.app.share import build_link
from mha.weights.view import DEFAULT_D_MODEL, DEFAULT_NUM_HEADS, DEFAULT_SEED, DEFAULT_TEXT

PAGE_FILES = [path for path, _, _ in PAGES]
HOST = "http://localhost:8501/"
# Every shared control away from its default (two sentences, so the sentence picker is there too).
SHARED = {"lang": "ko", "text": "the cat saw the dog\n고양이가 개를 봤다", "d_model": "32", "num_heads": "8",
          "causal": "true", "seed": "7", "positional": "false", "padding": "false", "sentence": "1"}
# Controls known not to be URL-bound yet, with the page that owns them: reported as warnings, not failures, until
# their page binds them (then delete the entry). Every other control must come back from the link.
NOT_YET_IN_LINK: dict[str, str] = {}
SHOWN = "_shown"  # the key suffix of the visible twin of a named_choice control (mha.app.widgets)
SKIP_TYPES = {"button", "download_button", "file_uploader", "plotly_chart", "bidi_component", "text_area",
              "text_input", "chat_input", "dataframe"}


def widgets(node, out=None) -> list:
    """Every keyed widget drawn (sidebar and page), in order."""
    out = [] if out is None else out
    for child in getattr(node, "children", {}).values():
        if getattr(child, "key", None) and getattr(child, "type", None) not in SKIP_TYPES \
                and hasattr(child, "set_value"):
            out.append(child)
        widgets(child, out)
    return out


def state(at: AppTest) -> dict:
    return {w.key: w.value for w in widgets(page_root(at))}


def _python_value(w, formatted: str):
    """The option value whose displayed text is ``formatted`` (options are only known by their text)."""
    fmt = w.format_func
    for cand in (formatted, int(formatted) if formatted.lstrip("-").isdigit() else None):
        if cand is not None and str(fmt(cand)) == formatted:
            return cand
    return None


def change(w) -> bool:
    """Move a page control away from where it is; False if this kind of control cannot be moved here."""
    kind = w.type
    if kind in ("checkbox", "toggle"):
        w.set_value(not w.value)
    elif kind == "selectbox":
        if len(w.options) < 2:
            return False
        w.select_index(len(w.options) - 1 if w.index != len(w.options) - 1 else 0)
    elif kind in ("button_group", "radio", "multiselect"):
        if kind == "radio":
            current = {w.options[w.index]} if w.index is not None else set()
        else:
            current = set(w.values if kind == "multiselect" else w.formatted_values)
        others = [o for o in w.options if o not in current]
        value = next((v for v in (_python_value(w, o) for o in reversed(others)) if v is not None), None)
        if value is None:
            return False
        w.set_value([value] if kind == "multiselect" else value)
    elif kind == "slider":
        lo, hi = w.min, w.max
        if isinstance(w.value, (tuple, list)) or lo == hi:
            return False
        w.set_value(hi if w.value != hi else lo)
    elif kind == "number_input":
        step = w.step or 1
        target = w.value + step if w.max is None or w.value + step <= w.max else w.value - step
        w.set_value(type(w.value)(target))
    else:
        return False
    return True


def link_of(at: AppTest) -> tuple[str, dict]:
    parts = urlsplit(at.session_state["_share_link"])
    return parts.path, {k: v if len(v) > 1 else v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}


# ------------------------------------------------------------------------------------------------ the round trip


@pytest.mark.parametrize("page", PAGE_FILES)
def test_the_link_brings_back_the_whole_view(page):
    at = open_page(page, SHARED)
    assert not at.exception, at.exception
    sidebar_keys = {w.key for w in widgets(at.sidebar)}
    unchanged = state(at)
    changed = [w.key for w in widgets(at.main) if change(w)]
    at.run()
    assert not at.exception, at.exception
    before = state(at)

    path, params = link_of(at)
    assert path == "/" + url_path(page)
    for key, value in SHARED.items():
        assert params.get(key) == value, f"{key} missing from the link {params}"
    for key in changed:
        if key.endswith(SHOWN) and key.removesuffix(SHOWN) in params:
            continue  # widgets.named_choice: the buttons shown mirror a hidden control that holds the URL value
        if before.get(key) != unchanged.get(key) and key not in params:  # (a control may fall back when another moves)
            if key in NOT_YET_IN_LINK:
                warnings.warn(f"{key} ({NOT_YET_IN_LINK[key]}) is not in the link yet", stacklevel=1)
                before.pop(key, None)
                continue
            pytest.fail(f"page control {key!r} is not in the link: bind it with bind='query-params'")

    again = open_page(page, params)
    assert not again.exception, again.exception
    assert {k: v for k, v in state(again).items() if k in before} == before
    assert {w.key for w in widgets(again.sidebar)} == sidebar_keys
    # and what is drawn is the same: every chart's data, every title and caption
    assert [s["data"] for s in chart_specs(again).values()] == [s["data"] for s in chart_specs(at).values()]
    assert [m.value for m in again.main.get("caption")] == [m.value for m in at.main.get("caption")]


def test_language_is_always_in_the_link_because_its_default_follows_the_browser():
    at = open_page(context={"locale": "ko-KR", "url": HOST})
    assert at.session_state["lang"] == "ko"  # the browser's language, not in the URL ...
    assert link_of(at)[1] == {"lang": "ko"}  # ... but in the link, so an English browser opens it in Korean too
    opened = open_page(PAGE_FILES[0], link_of(at)[1])
    assert opened.session_state["lang"] == "ko"


def test_defaults_are_left_out_of_the_link():
    at = open_page("pages/playground.py", {"lang": "en"})
    assert link_of(at) == ("/playground", {"lang": "en"})


def test_build_link_keeps_any_text_intact():
    text = "a&b=c #태그 <b>x</b> 100% + 😀\nline two"
    link = build_link("https://demo.example", "playground", {"text": text, "head": "2", "lang": "ko"})
    parts = urlsplit(link)
    assert parts.path == "/playground" and "#" not in link.split("?", 1)[1].replace("%23", "")
    assert parse_qs(parts.query) == {"text": [text], "head": ["2"], "lang": ["ko"]}
    assert build_link(None, "heads", {"lang": "en"}) == "/heads?lang=en"
    assert build_link("https://demo.example/base/", "", {}) == "https://demo.example/base/"


def test_app_root_drops_the_page_part_streamlit_appends():
    from mha.app.share import _app_root

    assert _app_root("http://localhost:8501/home") == "http://localhost:8501"
    assert _app_root("https://x.streamlit.app/heads") == "https://x.streamlit.app"
    assert _app_root("https://host/mha/playground") == "https://host/mha"  # served under a base path
    assert _app_root("https://host/mha") == "https://host/mha"
    assert _app_root(None) is None


# ------------------------------------------------------------------------------------------- garbage in a link

GARBAGE = [
    "abc", "-5", "99999999999999999999999", "1e309", "NaN", "", "<script>alert(1)</script>", "x" * 5000,
    ["1", "2"], "0x10", "∞", "true",
]


def _garbage_params(keys: list[str], n: int) -> dict:
    """One link with garbage in every parameter: each key gets a different kind of garbage, rotating with n."""
    out = {k: GARBAGE[(i + n) % len(GARBAGE)] for i, k in enumerate(keys)}
    out["unknown_param"] = GARBAGE[n % len(GARBAGE)]
    return out


@pytest.fixture(scope="module")
def page_keys() -> dict[str, list[str]]:
    """The URL parameters of each page: its controls' keys, found by drawing it once."""
    out = {}
    for page in PAGE_FILES:
        at = open_page(page, {})
        out[page] = [w.key for w in widgets(page_root(at))]
    return out


def _finite_charts(at: AppTest) -> bool:
    for spec in chart_specs(at).values():
        if not all_numbers_finite(spec):
            return False
        for trace in spec["data"]:  # any other numeric field of a trace too
            if any(isinstance(v, float) and not np.isfinite(v) for v in trace.values()):
                return False
    return True


@pytest.mark.parametrize("page", PAGE_FILES)
def test_garbage_in_any_parameter_gives_defaults_and_never_breaks(page, page_keys):
    for n in (0, len(GARBAGE) // 2):  # 2 links per page, each with garbage in every parameter, 12 kinds rotating
        params = _garbage_params(page_keys[page], n)
        at = open_page(page, params)
        assert not at.exception, (params, at.exception)
        assert _finite_charts(at), params
        assert at.session_state["d_model"] == DEFAULT_D_MODEL  # no garbage is a d_model
        assert at.session_state["lang"] in ("en", "ko")
        # a note next to the controls names what could not be used
        notes = " ".join(w.value for w in at.sidebar.warning)
        assert "d_model=" in notes, notes
        at.run()  # the app keeps working afterwards ...
        assert not at.exception
        assert "unknown_param" not in at.query_params  # ... and what nothing reads is gone from the address bar


def test_garbage_in_the_shared_controls_falls_back_to_the_defaults_with_a_note():
    at = open_page("pages/playground.py", {"d_model": "abc", "num_heads": ["2", "3"], "seed": "-5",
                                           "causal": "maybe", "text": "", "positional": "1e309"})
    assert not at.exception
    s = at.session_state
    assert (s["d_model"], s["num_heads"], s["seed"], s["causal"], s["positional"]) == (
        DEFAULT_D_MODEL, DEFAULT_NUM_HEADS, DEFAULT_SEED, False, True)
    notes = " ".join(w.value for w in at.sidebar.warning)
    for key in ("d_model", "seed", "causal", "positional"):
        assert f"{key}=" in notes, notes
    assert "num_heads was given 2 times (`2`, `3`), but this control takes one value: using `4`" in notes, notes
    assert s["text"] in ("", DEFAULT_TEXT)


def test_a_huge_number_is_clamped_not_an_error():
    at = open_page("pages/playground.py", {"seed": "99999999999999999999", "head": "999", "cell_query": "-1"})
    assert not at.exception
    assert 0 <= at.session_state["seed"] <= 9999
    assert 0 <= at.session_state["head"] < at.session_state["num_heads"]


# ------------------------------------------------------------------------------------ hand-written page values
def _link_notes(at: AppTest) -> str:
    """The link notes under the link box, as read (the escaping helper's invisible word joiners left out)."""
    return " ".join(c.value for c in at.sidebar.caption if c.value.startswith("🔗")).replace("\u2060", "")


def test_a_position_written_as_a_number_is_read_like_its_label():
    """Pickers show "3: the"; Streamlit writes that label into links, but a teacher types cell_query=3."""
    text = "the cat saw the dog"
    at = open_page("pages/playground.py", {"text": text, "cell_query": "3", "cell_key": "1"})
    assert not at.exception
    assert (at.session_state["cell_query"], at.session_state["cell_key"]) == (3, 1)
    assert "cell_query" not in _link_notes(at) and "cell_key" not in _link_notes(at)
    at.run()  # the link box is drawn before the page: it knows the page's controls from the second run on
    _, params = link_of(at)
    assert params["cell_query"].split(":")[0] == "3" and params["cell_key"].split(":")[0] == "1"
    # ... and so does a label made for another sentence: the position counts, the note says which token it is now
    at = open_page("pages/explain.py", {"text": text, "ex_cell_query": "2: mat"})
    assert at.session_state["ex_cell_query"] == 2
    assert "ex_cell_query=" in _link_notes(at) and "2: saw" in _link_notes(at)


@pytest.mark.parametrize("page, params, key", [
    ("pages/playground.py", {"cell_query": "99"}, "cell_query"),
    ("pages/playground.py", {"cell_key": "cat"}, "cell_key"),
    ("pages/explain.py", {"ex_cell_key": ["1", "2"]}, "ex_cell_key"),
    ("pages/lab.py", {"lab_temperature": "-3"}, "lab_temperature"),
    ("pages/bugs.py", {"bz_bug": "no_such_bug"}, "bz_bug"),
])
def test_a_page_value_the_control_cannot_use_is_named_in_a_note(page, params, key):
    at = open_page(page, params)
    assert not at.exception
    notes = _link_notes(at)
    assert f"{key}=" in notes or f"{key} was given 2 times" in notes, notes  # (a repeat says so)


@pytest.mark.parametrize("given, refused", [(["9"], "9"), (["abc"], "abc"), (["1", "9"], "9")])
def test_a_multiselect_names_exactly_the_link_values_it_could_not_use(given, refused):
    at = open_page("pages/heads.py", {"hd_section": "ablate", "heads_off": given})
    assert not at.exception
    notes = _link_notes(at)
    assert f"heads_off=`{refused}`" in notes, notes
    if "1" in given:  # the usable value is used, and not named as refused
        assert at.session_state["heads_off"] == [1] and "heads_off=`1`" not in notes


def test_a_repeated_one_value_control_says_it_was_given_twice_and_which_value_is_used():
    """Both values are usable: neither "could not be used"; the note says the parameter came twice, and the one used."""
    at = open_page("pages/heads.py", {"hd_section": "compare", "heads_a": ["1", "2"]})
    used = at.session_state["heads_a"]
    assert used in (1, 2)  # Streamlit reads one of them
    notes = _link_notes(at)
    assert "could not be used" not in notes, notes
    assert f"heads_a was given 2 times (`1`, `2`), but this control takes one value: using `{used}`." in notes


@pytest.mark.parametrize("given", [["2", "8"], ["8", "2"]])
def test_a_repeated_shared_control_says_it_was_given_twice_and_which_value_is_used(given):
    at = open_page("pages/playground.py", {"num_heads": given})
    used = at.session_state["num_heads"]
    assert str(used) in given
    notes = [w.value for w in at.sidebar.warning if "num_heads" in w.value]
    assert notes == [f"Link parameter num_heads was given 2 times (`{given[0]}`, `{given[1]}`), but this control "
                     f"takes one value: using `{used}`."], notes
    at = open_page("pages/playground.py", num_heads=given, lang="ko")  # the same in Korean
    notes = [w.value for w in at.sidebar.warning if "num_heads" in w.value]
    assert len(notes) == 1 and "2번" in notes[0] and f"`{at.session_state['num_heads']}` 값을" in notes[0], notes
    at = open_page("pages/playground.py", {"num_heads": ["4", "4"]})  # the same value twice: nothing to say
    assert not [w.value for w in at.sidebar.warning if "num_heads" in w.value]


def test_a_text_link_past_the_limit_gets_one_note_that_says_it_was_cut():
    from mha.core.i18n import text as i18n_text
    from mha.weights.view import MAX_CHARS

    long = "word " * 1000  # 5,000 characters
    at = open_page("pages/playground.py", {"text": long})
    note = i18n_text("ctl_text_link_cut", "en", n_chars=len(long), max_chars=MAX_CHARS)
    sidebar = [e.value for kind in ("warning", "caption", "error", "info") for e in getattr(at.sidebar, kind)]
    assert note in sidebar
    assert not [n for n in sidebar if "text=" in n or "could not be used" in n], sidebar  # nothing that contradicts
    at.run()  # like every link note, it stays while the box holds the text it is about ...
    assert note in [c.value for c in at.sidebar.caption]
    at.text_area(key="text").set_value("the cat").run()  # ... and goes with it
    assert note not in [c.value for c in at.sidebar.caption]


def test_values_the_controls_use_as_given_get_no_note():
    at = open_page("pages/lab.py", {"lab_temperature": "0.50", "lab_head": "1"})
    assert at.session_state["lab_temperature"] == 0.5
    assert _link_notes(at) == ""


def test_a_linked_causal_mask_in_cross_attention_is_explained_once_and_kept_for_later():
    at = open_page("pages/playground.py", {"text": "I like cats", "kv_text": "the cat sat on the mat",
                                           "causal": "true"})
    assert not at.exception
    assert not any("causal=" in w.value for w in at.sidebar.warning)  # not "could not be used" ...
    from mha.core.i18n import text as i18n_text

    assert any(c.value == i18n_text("ctl_causal_cross_kept", "en") for c in at.sidebar.caption)  # ... but why
    assert at.session_state["_settings"].causal is False
    at.sidebar.text_area(key="kv_text").set_value("").run()  # back to self-attention: the causal mask applies
    assert at.session_state["_settings"].causal is True


def test_an_empty_link_value_is_named_as_empty_not_as_a_blank():
    for lang, empty in (("en", "(empty)"), ("ko", "(빈 값)")):
        at = open_page("pages/playground.py", show_cell="", seed="", lang=lang)
        notes = [n.value for n in [*at.sidebar.warning, *at.sidebar.caption] if "show_cell=" in n.value
                 or "seed=" in n.value]
        assert len(notes) == 2 and all(empty in n and "`  `" not in n for n in notes), notes
