"""A pretrained view's tokens on every chart: readable tick labels ("…ing", "the"), the tokenizer's raw piece
("##ing", "Ġthe") in the hover (issue #17 point 2); random and trained views unchanged. And the caches: a model
folder saved again is a new model at the next run. No network: tiny local models (tests/tiny_models.py)."""
from __future__ import annotations

import json
import os
import pickle
import time

import numpy as np
import pytest
import tiny_models
from harness.apptest import all_open, chart_specs, open_page

from mha.app import compute
from mha.charts import figures
from mha.charts import heads as hf
from mha.core.tokens import PieceLabel, piece_label
from mha.weights import pretrained
from mha.weights.view import ViewSpec, run_view

MARK = figures.RAW_MARK[0]  # the invisible separator between a readable label and its raw piece
PAGES = ("pages/playground.py", "pages/explain.py", "pages/heads.py", "pages/masks.py", "pages/bugs.py",
         "pages/lab.py")
TEXT = "the cat playing"
# Among what each family's tokenizer makes of TEXT: (readable label, raw piece) pairs that differ.
WORDPIECE, BYTELEVEL = {("…ing", "##ing")}, {("cat", "Ġcat"), ("play", "Ġplay"), ("…ing", "ing")}
EXPECTED = {"bert": WORDPIECE, "electra": WORDPIECE, "distilbert": WORDPIECE, "gpt2": BYTELEVEL,
            "roberta": BYTELEVEL}


def differing_pairs(folder) -> set[str]:
    """"readable|raw" of every piece of TEXT whose label differs from it, from the tokenizer itself."""
    tokens = pretrained.model_tokens(pretrained.load_model(str(folder)), [TEXT])
    return {f"{lab}|{piece}" for lab, piece in zip(tokens.labels[0], tokens.pieces[0]) if lab != piece}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("label_models")
    return {f: tiny_models.build(f, root / f) for f in tiny_models.FAMILIES}


pytestmark = pytest.mark.usefixtures("offline")  # tests/app/conftest.py


def category_axes(spec: dict) -> dict[str, list[str]]:
    """{layout axis name: the string categories its traces put on it} for every x and y of every trace."""
    axes: dict[str, list[str]] = {}
    for tr in spec["data"]:
        for letter in ("x", "y"):
            values = tr.get(letter)
            if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
                ref = tr.get(f"{letter}axis") or letter
                cats = axes.setdefault(f"{letter}axis{ref[1:]}", [])
                cats.extend(v for v in values if v not in cats)
    return axes


def raw_axes(spec: dict) -> dict[str, list[str]]:
    return {name: cats for name, cats in category_axes(spec).items() if any(MARK in c for c in cats)}


def check_readable_ticks(spec: dict) -> set[str]:
    """Every axis whose categories carry raw pieces writes them readably: its ticktext is the readable part of each
    category, in order. Returns the (readable, raw) pairs found, as "readable|raw"."""
    pairs = set()
    for name, cats in raw_axes(spec).items():
        axis = spec["layout"][name]
        # a tick just past each category (Plotly would write an exact tick's text in the hover too)
        assert axis.get("tickmode") == "array" and len(axis["tickvals"]) == len(cats), name
        assert all(0 < v - i < 0.1 for i, v in enumerate(axis["tickvals"])), name
        assert axis["ticktext"] == [c.split(MARK)[0] for c in cats], name
        assert not any(MARK in t for t in axis["ticktext"])
        for c in cats:
            if MARK in c:
                readable, raw = c.replace("\u200b", "").split(figures.RAW_MARK)
                pairs.add(f"{readable}|{raw}")
    return pairs


# ------------------------------------------------------------------------------------------------- pure
def test_a_piece_label_is_its_readable_label_and_keeps_its_raw_piece():
    label = piece_label("…ing", "##ing")
    assert label == "…ing" and isinstance(label, str) and label.raw == "##ing"
    assert type(piece_label("[CLS]", "[CLS]")) is str  # nothing to add when the piece reads as it is
    copy = pickle.loads(pickle.dumps(label))
    assert copy == "…ing" and copy.raw == "##ing"
    odd = piece_label("x", "a\u2063b\u202e" + "z" * 40)  # a raw piece is made display-safe like a label
    assert MARK not in odd.raw and "\u202e" not in odd.raw and len(odd.raw) <= 16


def test_axis_labels_name_the_raw_piece_escaped_and_ticks_stay_readable():
    labels = [piece_label("the", "Ġthe"), "[CLS]", piece_label("…ing", "##ing"), piece_label("&b", "Ġ<b>"),
              piece_label("the", "Ġthe")]
    cats = figures.axis_labels(labels)
    assert cats[0] == "the" + figures.RAW_MARK + "Ġthe" and cats[1] == "[CLS]"
    assert cats[3] == "&amp;b" + figures.RAW_MARK + "Ġ&lt;b&gt;"  # a raw piece is escaped like the label
    assert len(set(cats)) == len(cats)  # a repeat stays its own row
    assert figures.label_width_px(cats) == figures.label_width_px(["the", "[CLS]", "…ing", "&amp;b"])
    fig = figures.readable_ticks(figures.head_heatmap(np.full((5, 5), 0.2), labels, labels))
    spec = json.loads(fig.to_json())
    assert check_readable_ticks(spec) == {"the|Ġthe", "…ing|##ing", "&amp;b|Ġ&lt;b&gt;"}
    assert set(raw_axes(spec)) == {"xaxis", "yaxis"}


def test_random_labels_and_figures_are_unchanged():
    labels = ["the", "cat", "a<b"]
    fig = figures.heads_grid(np.full((2, 3, 3), 1 / 3), labels, labels)
    before = fig.to_json()
    assert figures.readable_ticks(fig).to_json() == before
    assert figures.readable_ticks("not a figure") == "not a figure"


def test_a_repeated_word_is_written_without_invisible_characters():
    """A repeated word's category ends in a zero-width space (unique categories); its tick is written without, on
    the category itself (Plotly's hover then names the tick's text): copied text holds nothing invisible (#26.6)."""
    labels = ["the", "cat", "the", "a<b"]
    assert figures.axis_labels(labels) == ["the", "cat", "the\u200b", "a&lt;b"]
    fig = figures.readable_ticks(figures.heads_grid(np.full((2, 4, 4), 0.25), labels, labels))
    for name in ("xaxis", "yaxis"):
        axis = fig.layout[name]
        assert axis.tickmode == "array" and list(axis.tickvals) == figures.axis_labels(labels), name
        assert list(axis.ticktext) == ["the", "cat", "the", "a&lt;b"], name
        assert not any("\u200b" in t for t in axis.ticktext)


def test_qk_figure_writes_readable_labels_and_hovers_the_raw_pieces():
    labels = [piece_label("the", "Ġthe"), piece_label("…ing", "ing")]
    fig = hf.qk_figure(np.eye(2), np.eye(2), labels, labels, 0, [1], np.array([0.3, 0.7]))
    keys, queries = fig.data[-2], fig.data[-1]
    assert list(queries.text) == ["the", "…ing"]
    assert list(keys.hovertext) == ["the · Ġthe", "…ing · ing"]
    assert "%{hovertext}" in keys.hovertemplate and "%{hovertext}" in queries.hovertemplate


def test_the_head_view_tooltips_carry_the_raw_pieces():
    from mha.charts import head_view_data as hvd

    labels = ["[CLS]", piece_label("the", "Ġthe")]
    w = np.full((1, 2, 2), 0.5)
    p = hvd.prepare(w, labels, labels)
    assert p["queries"] == ["[CLS]", "the"] and p["keys_raw"] == ["", "Ġthe"] == p["queries_raw"]
    assert json.loads(json.dumps(p))["queries_raw"][1] == "Ġthe"
    assert hvd.prepare(w, labels, [labels[0], piece_label("the", "the·")])["sig"] != p["sig"]


def test_cache_keys_hold_the_raw_pieces():
    a, b = [PieceLabel("the", "Ġthe")], [PieceLabel("the", "the·")]
    assert compute.fingerprint(a) != compute.fingerprint(b) != compute.fingerprint(["the"])
    compute.clear()
    one = compute.cached_figure(figures.head_heatmap, np.ones((1, 1)), a, a)
    two = compute.cached_figure(figures.head_heatmap, np.ones((1, 1)), b, b)
    assert one is not two and "Ġthe" in one.data[0].x[0] and "Ġthe" not in two.data[0].x[0]


@pytest.mark.parametrize("family", tiny_models.FAMILIES)
def test_each_familys_view_labels_carry_their_raw_pieces(models, family):
    info = pretrained.load_model(str(models[family])).info
    view = run_view(ViewSpec(text=TEXT, d_model=info.d_model, num_heads=info.num_heads, causal=info.causal,
                             source="pretrained", model=str(models[family])))
    pairs = {f"{lab}|{lab.raw}" for lab in view.labels if isinstance(lab, PieceLabel)}
    assert pairs == differing_pairs(models[family]) and {f"{r}|{p}" for r, p in EXPECTED[family]} <= pairs
    for lab, piece in zip(view.labels, view.tokens):  # every other label reads as its piece
        assert getattr(lab, "raw", piece) == piece
    assert list(view.key_labels) == list(view.labels)
    assert not any(isinstance(lab, PieceLabel) for lab in run_view(ViewSpec(text=TEXT)).labels)


# ------------------------------------------------------------------------------------------------- app
def pretrained_page(models, family, page="pages/playground.py", lang="en", **params):
    at = open_page(page, all_open(page), source="pretrained", model=str(models[family]), text=TEXT, lang=lang,
                   **params)
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("family", tiny_models.FAMILIES)
def test_playground_charts_hover_the_raw_pieces_of_every_family(models, family):
    specs = chart_specs(pretrained_page(models, family))
    found = set()
    for spec in specs.values():
        found |= check_readable_ticks(spec)
    assert found == differing_pairs(models[family])
    assert all(raw_axes(spec) for spec in specs.values() if any(
        any(r in c for c in cats) for cats in category_axes(spec).values() for r in ("cat", "…ing")))


@pytest.mark.parametrize("page", PAGES)
def test_every_pages_token_charts_hover_the_raw_pieces(models, page):
    pairs, token_charts = set(), 0
    sections = ("measure", "compare", "ablate") if page == "pages/heads.py" else (None,)
    for section in sections:
        extra = {"hd_section": section} if section else {}
        for spec in chart_specs(pretrained_page(models, "gpt2", page, lang="ko", **extra)).values():
            has_tokens = any(any("cat" in c for c in cats) for cats in category_axes(spec).values())
            token_charts += has_tokens
            if has_tokens:  # a chart with the tokens on an axis names their raw pieces on hover
                assert raw_axes(spec), (page, section)
            pairs |= check_readable_ticks(spec)
    assert token_charts and pairs == differing_pairs(models["gpt2"]), (page, token_charts, pairs)


def test_the_qk_section_hovers_the_raw_pieces(models):
    at = pretrained_page(models, "gpt2", "pages/heads.py", hd_section="qk")
    texts = [tr.get("hovertext") for spec in chart_specs(at).values() for tr in spec["data"]]
    assert any(t and "cat · Ġcat" in t for t in texts)


@pytest.mark.parametrize("source", ["random", "trained"])
def test_random_and_trained_pages_have_no_raw_part(source):
    at = open_page("pages/playground.py", all_open("pages/playground.py"), source=source, text=TEXT)
    assert not at.exception
    for spec in chart_specs(at).values():
        assert MARK not in json.dumps(spec, ensure_ascii=False)
        for name in category_axes(spec):
            assert "ticktext" not in spec["layout"].get(name, {})


# ------------------------------------------------------------------------------------------------- re-saved folder
def test_a_folder_saved_again_is_a_new_model_at_the_next_run(tmp_path):
    folder = tmp_path / "model"
    tiny_models.build("bert", folder, seed=1)
    info = pretrained.load_model(str(folder)).info
    spec = ViewSpec(text=TEXT, d_model=info.d_model, num_heads=info.num_heads, source="pretrained",
                    model=str(folder))
    compute.clear()
    first = compute.view(spec)
    assert compute.view(spec) is first  # cached while the folder is unchanged
    key = compute.fingerprint(spec)
    time.sleep(0.01)
    tiny_models.build("bert", folder, seed=2)  # save_pretrained again, other weights
    os.utime(folder / "model.safetensors", ns=(time.time_ns(), time.time_ns() + 10**9))  # a coarse clock
    assert compute.fingerprint(spec) != key
    second = compute.view(spec)
    assert second is not first and second.tokens == first.tokens
    assert np.abs(second.weights - first.weights).max() > 1e-3
    fresh = pretrained.run_layer(pretrained.load_model(str(folder)), 0, [TEXT])
    np.testing.assert_allclose(second.weights, fresh.trace.weights[0].numpy(), atol=1e-6)
    assert second.note_args["weights_diff"] <= 1e-5
