"""No invisible character in what a chart shows or a visitor copies (issue #26.6): repeated tokens stay apart on the
axes (their categories end in zero-width spaces, ``figures.axis_labels``), but tick text, hover text (as Plotly
writes it: a tick's text when a tick sits on the category, else the category through the axis's ``labelalias``)
and titles hold none. Every figure the app builds, on every page, from AppTest: a sentence with a repeated word,
the Induction page's repeated text, and a pretrained view of a repeated piece (tiny local model, no network)."""
from __future__ import annotations

import json
import unicodedata

import numpy as np
import pytest
import tiny_models
from harness.apptest import all_open, chart_specs, open_page

from mha.app.pages import PAGES
from mha.charts import figures
from mha.charts import heads as hf
from mha.core.tokens import piece_label

REPEATED = "the cat sat on the mat the end"
EMOJI_PARTS = "\u200d\ufe0e\ufe0f"  # ZWJ and variation selectors: parts of an emoji, kept by mha.core.tokens


def invisible(text: str) -> list[str]:
    """The invisible format characters in ``text`` (zero-width spaces, invisible separators, bidi marks, ...)."""
    return [f"U+{ord(ch):04X}" for ch in str(text) if unicodedata.category(ch) == "Cf" and ch not in EMOJI_PARTS]


def _categories(spec: dict) -> dict[str, list[str]]:
    axes: dict[str, list[str]] = {}
    for tr in spec["data"]:
        for letter in ("x", "y"):
            values = tr.get(letter)
            if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
                cats = axes.setdefault(f"{letter}axis{(tr.get(f'{letter}axis') or letter)[1:]}", [])
                cats.extend(v for v in values if v not in cats)
    return axes


def hover_text(axis: dict, cats: list[str], i: int) -> str:
    """What Plotly 1.67's bundle writes for category ``i`` in a hover (``%{x}``, ``%{y}``) and under its tick:
    an explicit tick within 1/10000 of the axis range of it gives its ticktext, else the category itself through
    ``labelalias`` (plotly.js ``Axes.tickText``)."""
    if axis.get("tickmode") == "array" and axis.get("ticktext") is not None:
        for val, text in zip(axis.get("tickvals") or [], axis["ticktext"]):
            pos = cats.index(val) if isinstance(val, str) and val in cats else val
            if isinstance(pos, (int, float)) and abs(pos - i) < len(cats) / 10000:
                return text
    return (axis.get("labelalias") or {}).get(cats[i], cats[i])


def shown_strings(spec: dict) -> list[tuple[str, str]]:
    """(where, text) for every string of a chart a visitor can read or copy: every string of its spec except the
    categories themselves (trace x / y, tick positions, labelalias keys), and each category as its hover writes it."""
    out: list[tuple[str, str]] = []

    def walk(node, path):
        if isinstance(node, str):
            out.append((path, node))
        elif isinstance(node, dict):
            for k, v in node.items():
                if (k in ("x", "y") and path.startswith("data")) or k in ("tickvals", "categoryarray"):
                    continue
                walk(list(v.values()) if k == "labelalias" and isinstance(v, dict) else v, f"{path}.{k}")
        elif isinstance(node, list):
            for n, v in enumerate(node):
                walk(v, f"{path}[{n}]")

    walk(spec.get("data", []), "data")
    walk(spec.get("layout", {}), "layout")
    for name, cats in _categories(spec).items():
        axis = spec.get("layout", {}).get(name, {})
        out += [(f"hover of {name} category {i}", hover_text(axis, cats, i)) for i in range(len(cats))]
    return out


def check(specs: dict, where: str) -> int:
    bad = [(where, n, path, text, invisible(text)) for n, spec in specs.items() for path, text in shown_strings(spec)
           if invisible(text)]
    assert not bad, bad[:5]
    return len(specs)


def repeats_apart(specs: dict) -> bool:
    """Some chart puts the repeated word on an axis as categories of their own (zero-width spaces inside)."""
    return any(any("\u200b" in c for c in cats) for spec in specs.values() for cats in _categories(spec).values())


# ------------------------------------------------------------------------------------------------- pure
def test_shown_label_drops_the_invisible_marks_only():
    cats = figures.axis_labels([piece_label("cat", "Ġcat"), "the", piece_label("cat", "Ġcat"), "the"])
    assert len(set(cats)) == 4 and all(invisible(cats[n]) for n in (0, 2, 3))  # apart on the axis: marks inside
    assert [figures.shown_label(c) for c in cats] == ["cat · Ġcat", "the", "cat · Ġcat", "the"]
    assert figures.hover_labels(["a<b", "a<b"]) == ["a&lt;b", "a&lt;b"]  # still escaped


def test_the_hover_of_a_repeated_raw_piece_is_written_without_invisible_characters():
    """Ticks of raw pieces sit past their categories (the tick shows the readable part, the hover the raw piece
    too): the hover is the category through the axis's labelalias."""
    labels = [piece_label("cat", "Ġcat"), "the", piece_label("cat", "Ġcat")]
    fig = figures.readable_ticks(figures.head_heatmap(np.full((3, 3), 1 / 3), labels, labels))
    spec = json.loads(fig.to_json())
    cats = _categories(spec)["xaxis"]
    assert len(set(cats)) == 3
    assert [hover_text(spec["layout"]["xaxis"], cats, i) for i in range(3)] == ["cat · Ġcat", "the", "cat · Ġcat"]
    assert spec["layout"]["xaxis"]["ticktext"] == ["cat", "the", "cat"]
    check({0: spec}, "head_heatmap")


def test_without_readable_ticks_the_check_finds_the_marks():
    """The check can fail: a repeated word's figure as built (before ``readable_ticks``) hovers a zero-width space."""
    fig = figures.head_heatmap(np.full((2, 2), 0.5), ["the", "the"], ["the", "the"])
    with pytest.raises(AssertionError):
        check({0: json.loads(fig.to_json())}, "raw builder")


def test_qk_hover_text_names_the_raw_piece_without_marks():
    labels = [piece_label("cat", "Ġcat"), piece_label("cat", "Ġcat")]
    fig = hf.qk_figure(np.eye(2), np.eye(2), labels, labels, 0, [1], np.array([0.3, 0.7]))
    assert list(fig.data[-1].hovertext) == ["cat · Ġcat"] * 2
    check({0: json.loads(fig.to_json())}, "qk_figure")


# ------------------------------------------------------------------------------------------------- every page
def _pages():
    for page, _, _ in PAGES:
        if page == "pages/heads.py":
            yield from ((page, {"hd_section": s}) for s in ("measure", "compare", "ablate", "qk", "order", "seeds"))
        elif page == "pages/induction.py":
            yield page, {"ind_steps": "30", "ind_seed": "1", "ind_at": "30", "text": "the cat sat on a mat ."}
        else:
            yield page, {"text": REPEATED}


@pytest.mark.parametrize("page,params", list(_pages()), ids=lambda v: v if isinstance(v, str) else
                         "-".join(f"{k}={x}" for k, x in v.items() if k != "text"))
def test_every_chart_of_every_page_shows_no_invisible_character(page, params):
    params = {"text": REPEATED, **params}
    for lang in ("en", "ko"):
        at = open_page(page, {**all_open(page), **params, "lang": lang})
        assert not at.exception, at.exception
        specs = chart_specs(at)
        check(specs, f"{page} {lang}")
    if page in ("pages/playground.py", "pages/induction.py", "pages/masks.py", "pages/explain.py"):
        assert repeats_apart(specs), page  # the repeated words were there, kept apart, and still shown clean


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    return tiny_models.build("gpt2", tmp_path_factory.mktemp("invisible") / "gpt2")


@pytest.mark.parametrize("page,section", [("pages/playground.py", None), ("pages/explain.py", None),
                                          ("pages/masks.py", None), ("pages/lab.py", None), ("pages/bugs.py", None),
                                          ("pages/heads.py", "measure"), ("pages/heads.py", "qk"),
                                          ("pages/heads.py", "compare")])
@pytest.mark.usefixtures("offline")
def test_a_pretrained_repeated_piece_shows_no_invisible_character(gpt2, page, section):
    extra = {"hd_section": section} if section else {}
    at = open_page(page, {**all_open(page), "source": "pretrained", "model": str(gpt2),
                          "text": "the cat and the cat playing", **extra})
    assert not at.exception, at.exception
    specs = chart_specs(at)
    check(specs, page)
    raw_repeat = any(any("\u200b" in c and figures.RAW_MARK in c for c in cats)
                     for spec in specs.values() for cats in _categories(spec).values())
    assert raw_repeat or page in ("pages/bugs.py", "pages/heads.py"), page  # "cat · Ġcat" twice, kept apart
