"""Home (#16 item 7): every page described in full, a first step into the Playground with the course's sentence, a
picture drawn by the app's own figure builder, and the cross-attention box folded away until wanted."""
from __future__ import annotations

import json
from pathlib import Path

from harness.apptest import link_params, open_page

from mha.app.pages import PAGES
from mha.app.sidebar import START_PARAM
from mha.core import i18n
from mha.weights.view import DEFAULT_TEXT


def _expander(at, label: str):
    found = [e for e in at.sidebar.expander if e.label == label]
    assert len(found) == 1, [e.label for e in at.sidebar.expander]
    return found[0]


def test_home_describes_every_page_in_full_below_its_link():
    for lang in ("en", "ko"):
        at = open_page(lang=lang)
        assert not at.exception
        captions = [c.value for c in at.caption]
        for path, _, _ in PAGES[1:]:
            about = f"home_{Path(path).stem}"
            assert about in i18n.CATALOG, f"{path} has no description on Home ({about})"
            # in full below the link, not inside its one-line label, where it was cut off
            assert i18n.text(about, lang) in captions, (lang, about)


def test_start_here_opens_the_playground_on_the_courses_sentence():
    at = open_page()
    start = [link for link in at.get("page_link") if link.proto.page.endswith("playground.py")
             or "playground" in (link.proto.page or "")]
    assert start and start[0].proto.label == f"**{i18n.text('home_start', 'en')}**"
    assert at.text_area(key="text").value == DEFAULT_TEXT  # the course's sentence is what the Playground opens on
    assert DEFAULT_TEXT in i18n.text("home_start_text", "en", sentence=DEFAULT_TEXT)
    assert start[0].proto.query_string == f"{START_PARAM}=course"  # it puts the course's sentence back (below)


def test_start_here_puts_the_courses_sentence_back_and_leaves_no_trace():
    # the link Home's "Start here" opens, in a session where the learner had typed another sentence
    at = open_page("pages/playground.py", seed="4")
    at.text_area(key="text").set_value("my own words here").run()
    at.query_params[START_PARAM] = "course"
    at.run()
    assert not at.exception and at.text_area(key="text").value == DEFAULT_TEXT
    assert START_PARAM not in at.query_params and at.query_params.get("seed") in ("4", ["4"])  # the rest is kept
    assert not [w for w in at.sidebar.warning]  # not named as an unknown link parameter
    at.text_area(key="text").set_value("typed after starting").run()
    assert at.text_area(key="text").value == "typed after starting"  # once: the learner's next sentence stays


def test_start_here_in_a_new_session_wins_over_the_links_text():
    """A Start-here link opened in a new session (shared, bookmarked, a new tab) that also carries text=: Start here
    means the course's sentence (a new session's box is otherwise seeded from the link's text), and neither start
    nor text is named as an unused link value."""
    for lang in ("en", "ko"):
        at = open_page("pages/playground.py", start="course", text="my own words here", seed="4", lang=lang)
        assert not at.exception, at.exception
        assert at.text_area(key="text").value == DEFAULT_TEXT
        assert START_PARAM not in at.query_params and "text" not in at.query_params  # the address bar
        assert at.query_params.get("seed") in ("4", ["4"])  # the rest is kept
        assert not [c.value for c in at.sidebar.caption if "🔗" in c.value]  # no note about start or text
        assert link_params(at) == {"seed": "4", "lang": lang}
        at.text_area(key="text").set_value("typed after starting").run()
        assert at.text_area(key="text").value == "typed after starting"  # once: the learner's next sentence stays
        assert link_params(at)["text"] == "typed after starting"


def test_home_shows_a_picture_of_the_weights():
    at = open_page(lang="ko")
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["type"] == "heatmap" and len(spec["data"][0]["y"]) == len(DEFAULT_TEXT.split())
    assert i18n.text("home_picture", "ko", sentence=DEFAULT_TEXT) in [c.value for c in at.caption]


def test_rarely_used_controls_are_folded_away_until_wanted():
    label = i18n.text("ctl_more", "en")
    at = open_page("pages/playground.py")
    box = _expander(at, label)
    assert not box.proto.expanded and box.text_area(key="kv_text").value == ""
    # the four rarely used controls live in the fold; the sizes and the causal mask stay outside it
    assert {w.key for w in box.toggle} >= {"padding", "positional"} and box.number_input(key="seed").value == 0
    assert "causal" not in {w.key for w in box.toggle} and at.toggle(key="causal") is not None
    linked = open_page("pages/playground.py", text="the cat sat", kv_text="a dog ran far")
    box = _expander(linked, label)
    assert box.proto.expanded and box.text_area(key="kv_text").value == "a dog ran far"  # applied and shown
    assert linked.query_params["kv_text"] == ["a dog ran far"] or linked.query_params["kv_text"] == "a dog ran far"
    for params in ({"seed": "3"}, {"positional": "false"}, {"padding": "false"}):  # a changed setting is never hidden
        assert _expander(open_page("pages/playground.py", **params), label).proto.expanded, params
    at.number_input(key="seed").set_value(5).run()
    assert _expander(at, label).proto.expanded  # changed in this session: it stays in sight
