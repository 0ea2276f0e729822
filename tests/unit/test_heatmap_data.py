"""The canvas heatmaps' data (``mha.charts.heatmap_data``: the Playground's all-heads grid and enlarged head, drawn in
the page by ``mha.app.components.heatmap_view``): checks that say how to fix, numbers and colours that travel
faithfully, labels as
plain text, a click read back safely. The drawing itself is tested in Chromium (tests/browser)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from plotly.colors import get_colorscale, sample_colorscale

from mha.charts import figures
from mha.charts import heatmap_data as hm
from mha.core.tokens import PieceLabel


def weights(H: int, Tq: int, Tk: int, seed: int = 0) -> np.ndarray:
    w = np.random.default_rng(seed).random((H, Tq, Tk)) ** 3
    return w / w.sum(-1, keepdims=True)


def labels(n: int, prefix: str = "t") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


@pytest.mark.parametrize("H, Tq, Tk", [(1, 1, 1), (4, 5, 5), (3, 6, 2), (16, 16, 16)])
def test_numbers_travel_exactly_and_colours_follow_them(H, Tq, Tk):
    w = weights(H, Tq, Tk)
    p = hm.prepare(w, labels(Tq), labels(Tk, "k"))
    got = hm.unpack(p)
    np.testing.assert_allclose(got["values"], w, rtol=1e-6, atol=1e-7)  # float32
    assert (p["H"], p["Tq"], p["Tk"]) == (H, Tq, Tk) and p["heads"] == list(range(H))
    top = figures.weights_top(w)
    assert (p["lo"], p["hi"]) == (0.0, top)
    expected = np.rint(np.clip(w, 0, top) / top * 255)
    np.testing.assert_array_equal(got["codes"], expected)  # a larger weight never gets a lighter colour
    assert got["blocked"] is None


def test_colour_codes_clip_to_the_scale_and_scores_centre_on_zero():
    s = np.array([[[-3.0, 0.0, 1.5, 6.0]]])
    p = hm.prepare(s, ["q"], list("abcd"), kind="scores", scale_range=3.0)
    assert (p["lo"], p["hi"]) == (-3.0, 3.0)
    assert hm.unpack(p)["codes"].ravel().tolist() == [0, 128, 191, 255]  # 6 is past the scale: its top colour
    auto = hm.prepare(s, ["q"], list("abcd"), kind="scores")
    assert (auto["lo"], auto["hi"]) == (-6.0, 6.0)  # default: the largest |score|


@pytest.mark.parametrize("kind, name", [("weights", figures.WEIGHTS_SCALE), ("scores", figures.DIVERGING_SCALE)])
def test_the_colours_are_plotlys_own(kind, name):
    """The canvas shows what Plotly showed: its colour scale, sampled at every code (scores: red is positive)."""
    table = hm.colour_table(kind)
    assert len(table) == 6 * hm.LEVELS
    scale = get_colorscale(name)
    for code in (0, 100, 255):
        r, g, b = (int(table[6 * code + 2 * i:6 * code + 2 * i + 2], 16) for i in range(3))
        ref = sample_colorscale(scale, [code / 255], colortype="tuple")[0]
        assert max(abs(r - ref[0] * 255), abs(g - ref[1] * 255), abs(b - ref[2] * 255)) <= 1
    if kind == "scores":
        top = [int(table[-6:][i:i + 2], 16) for i in (0, 2, 4)]
        assert top[0] > top[2]  # the largest score is red


def test_a_mask_is_sent_as_blocked_cells():
    allowed = np.tril(np.ones((3, 3), dtype=bool))[None].repeat(2, 0)
    w = np.where(allowed, 1.0, 0.0)
    w /= w.sum(-1, keepdims=True)
    got = hm.unpack(hm.prepare(w, labels(3), labels(3), allowed=allowed))
    np.testing.assert_array_equal(got["blocked"], ~allowed)
    assert hm.prepare(w, labels(3), labels(3), allowed=np.ones_like(allowed))["blocked"] is None


def test_a_large_grid_sends_colours_only():
    H, T = 16, 65  # past EXACT_MAX_CELLS (16 x 64 x 64)
    assert H * T * T > hm.EXACT_MAX_CELLS >= 16 * 64 * 64
    p = hm.prepare(weights(H, T, T), labels(T), labels(T))
    assert p["values"] is None and hm.unpack(p)["codes"].shape == (H, T, T)
    assert p["words"]["exact_below"] == figures.ENGLISH.exact_below  # what the hover says instead of the number
    assert len(p["codes"]) < 1.4 * H * T * T  # one byte a cell, base64


def test_labels_travel_as_given_with_their_raw_pieces():
    """Tokens are text for the page to draw with fillText / set with textContent: nothing escaped or altered."""
    hostile = ["<b>x</b>", "<img src=x onerror=alert(1)>", "$x$", ":red[a]", "&amp;"]
    p = hm.prepare(weights(1, 5, 5), hostile, hostile)
    assert p["q"] == p["k"] == hostile and p["q_raw"] == [""] * 5
    pieces = [PieceLabel("the", "Ġthe"), PieceLabel("cat", "Ġcat")]
    p = hm.prepare(weights(1, 2, 2), pieces, pieces)
    assert p["q"] == ["the", "cat"] and p["k_raw"] == ["Ġthe", "Ġcat"]


def test_the_colour_bar_says_its_range_in_the_pages_words():
    w = weights(2, 43, 43)
    top = figures.weights_top(w)
    assert top < 1.0
    ko = figures.Words(weights="가중치", fitted_scale="범위 0 … {top}<br>(0 … 1 아님)", full_scale="범위 0 … 1")
    p = hm.prepare(w, labels(43), labels(43), words=ko)
    assert p["bar"]["title"] == ["가중치", f"범위 0 … {top:.2g}", "(0 … 1 아님)"]
    assert hm.prepare(weights(2, 4, 4), labels(4), labels(4), top=1.0, words=ko)["bar"]["title"] == \
        ["가중치", "범위 0 … 1"]
    ticks = p["bar"]["ticks"]
    assert ticks[0] == [0.0, "0"] and all(0 <= f <= 1 for f, _ in ticks)
    assert [f for f, _ in ticks] == sorted(f for f, _ in ticks)



def test_the_note_on_unnamed_tokens_fits_the_layout():
    """Past 64 tokens the names go to the hover: the grid's note speaks of the keys under each panel; the enlarged
    head has one map with its keys on top (and its queries unnamed too), so its note says so, in each language."""
    import dataclasses

    from mha.core import i18n

    w = weights(1, 70, 70)
    for lang in ("en", "ko"):
        words = figures.Words(**{f.name: i18n.text(f"ch_{f.name}", lang) for f in dataclasses.fields(figures.Words)})
        grid = hm.prepare(w, labels(70), labels(70), words=words)["words"]["keys_on_hover"]
        single = hm.prepare(w, labels(70), labels(70), words=words, layout="single")["words"]["keys_on_hover"]
        assert grid == words.keys_on_hover and single == words.tokens_on_hover and single != grid
    assert "under each map" not in figures.ENGLISH.tokens_on_hover

@settings(max_examples=60, deadline=None)
@given(lo=hs.floats(-1e4, 1e4), span=hs.floats(1e-6, 1e4), most=hs.integers(2, 8))
def test_nice_ticks_lie_in_the_range_evenly_and_few(lo, span, most):
    hi = lo + span
    ticks = hm.nice_ticks(lo, hi, most)
    assert 1 <= len(ticks) <= most
    assert all(lo - span * 1e-9 <= v <= hi + span * 1e-9 for v in ticks)
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0], rtol=1e-6) if len(steps) else True
    assert hm.nice_ticks(1, 4, 2) == [2.0, 4.0] and hm.nice_ticks(0, 1) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]


def test_the_signature_follows_the_picture_not_the_selection():
    w, lab = weights(1, 4, 4), labels(4)
    a = hm.prepare(w, lab, lab, layout="single", pick="cell", selected=(0, 0))
    b = hm.prepare(w, lab, lab, layout="single", pick="cell", selected=(2, 3))
    assert a["sig"] == b["sig"] and b["selected"] == [2, 3]  # the page moves the outline, keeps the picture
    assert hm.prepare(w, lab, lab, layout="single", selected=(9, 0))["selected"] is None  # outside: none
    assert hm.prepare(w * 0.5, lab, lab, top=1.0)["sig"] != hm.prepare(w, lab, lab, top=1.0)["sig"]
    assert hm.prepare(w, labels(4, "x"), lab)["sig"] != hm.prepare(w, lab, lab)["sig"]
    assert hm.prepare(w, lab, lab, words=figures.Words(head="헤드"))["sig"] != hm.prepare(w, lab, lab)["sig"]


@pytest.mark.parametrize("call, message", [
    (lambda: hm.prepare(np.ones((3, 3)) / 3, labels(3), labels(3)), "for one head"),
    (lambda: hm.prepare(weights(1, 3, 3), labels(2), labels(3)), "3 query positions, but there are 2 query labels"),
    (lambda: hm.prepare(weights(1, 3, 3), labels(3), "abc"), "one string"),
    (lambda: hm.prepare(np.full((1, 2, 2), np.nan), labels(2), labels(2)), "only finite numbers"),
    (lambda: hm.prepare(weights(1, 2, 2), labels(2), labels(2), allowed=np.ones((2, 2), bool)), "one mask entry"),
    (lambda: hm.prepare(weights(1, 2, 2), labels(2), labels(2), kind="output"), "choose one of"),
    (lambda: hm.prepare(weights(1, 2, 2), labels(2), labels(2), pick="row"), "choose one of"),
    (lambda: hm.prepare(weights(1, 2, 2), labels(2), labels(2), layout="wide"), "'grid', 'single' or 'model'"),
    (lambda: hm.prepare(weights(1, 2, 2), labels(2), labels(2), top=1.5), "in (0, 1]"),
    (lambda: hm.prepare(weights(2, 2, 2), labels(2), labels(2), heads=[0]), "one number per head"),
    (lambda: hm.prepare(weights(1, 2, 2), labels(2), labels(2), kind="scores", scale_range=0.0), "> 0"),
])
def test_bad_input_is_refused_with_a_message_that_says_how_to_fix(call, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        call()


PAYLOAD = hm.prepare(weights(4, 5, 3), labels(5), labels(3), heads=[0, 1, 2, 7])


@pytest.mark.parametrize("value, read", [
    ({"head": 2}, {"head": 2}),
    ({"head": 7.0}, {"head": 7}),
    ({"query": 4, "key": 2}, {"query": 4, "key": 2}),
    ({"head": 3}, {}),  # not a head this grid shows
    ({"query": 5, "key": 0}, {}),  # past the last query
    ({"query": 0, "key": 3}, {}),
    ({"head": -1}, {}), ({"head": 1.5}, {}), ({"head": True}, {}), ({"head": "2"}, {}), ({"head": None}, {}),
    ({"head": 1, "query": 0}, {}), ({}, {}), (None, {}), ("head", {}), ([1, 2], {}),
    ({"query": float("nan"), "key": 0}, {}), ({"head": float("inf")}, {}),
])
def test_a_click_is_read_back_only_when_it_names_a_real_head_or_cell(value, read):
    assert hm.read_pick(value, PAYLOAD) == read


def test_the_marked_head_and_group_travel_outside_the_signature():
    w, lab = weights(4, 3, 3), labels(3)
    plain = hm.prepare(w, lab, lab, heads=[0, 1, 2, 5])
    framed = hm.prepare(w, lab, lab, heads=[0, 1, 2, 5], marked=5, group="pg")
    assert (plain["marked"], plain["group"]) == (None, None) and (framed["marked"], framed["group"]) == (5, "pg")
    assert framed["sig"] == plain["sig"]  # the page moves the frame, keeps the picture
    assert hm.prepare(w, lab, lab, marked=3)["marked"] == 3 and hm.prepare(w, lab, lab, marked=4)["marked"] is None


def test_negative_ticks_carry_a_true_minus_sign():
    """As Plotly's colour bars write them: "−2", not "-2" (a hyphen)."""
    ticks = [text for _, text in hm.prepare(np.array([[[-2.0, 1.0, 3.0]]]), ["q"], list("abc"),
                                            kind="scores")["bar"]["ticks"]]
    assert ticks[0].startswith("\u2212") and not any("-" in t for t in ticks)
