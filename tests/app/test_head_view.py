"""The head view's data: checks with messages that say how to fix, a payload that is small and faithful, lines that
follow the weights (masked ones draw nothing), English and Korean words."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mha.charts import head_view_data as hvd
from mha.core import i18n
from mha.core.attention import MultiHeadAttention
from mha.core.masks import causal_mask


def softmax_weights(H: int, Tq: int, Tk: int, seed: int = 0, sharp: float = 3.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(H, Tq, Tk)) * sharp
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def labels(n: int, prefix: str = "t") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


# ------------------------------------------------------------------------------------------------- validation


def test_key_label_count_message_names_both_numbers():
    with pytest.raises(ValueError, match="weights have 7 key positions, while there are 6 key labels"):
        hvd.prepare(softmax_weights(2, 7, 7), labels(7), labels(6))


def test_query_label_count_message():
    with pytest.raises(ValueError, match="weights have 5 query positions, while there are 4 query labels"):
        hvd.prepare(softmax_weights(2, 5, 3), labels(4), labels(3))


@pytest.mark.parametrize("shape, hint", [((1, 2, 3, 3), r"weights\[0\]"), ((3, 3), r"weights\[None\]"),
                                         ((0, 3, 3), "at least one head")])
def test_shape_messages_say_how_to_fix(shape, hint):
    with pytest.raises(ValueError, match=hint):
        hvd.prepare(np.zeros(shape), labels(shape[-2] if len(shape) > 1 else 1), labels(shape[-1]))


def test_nan_and_scores_are_refused():
    w = softmax_weights(2, 3, 3)
    w[1, 2, 0] = np.nan
    with pytest.raises(ValueError, match="head 1, query 2, key 0"):
        hvd.prepare(w, labels(3), labels(3))
    with pytest.raises(ValueError, match="scores"):
        hvd.prepare(np.full((1, 2, 2), 3.0), labels(2), labels(2))


def test_labels_must_be_a_list_of_strings():
    with pytest.raises(ValueError, match="not one string"):
        hvd.prepare(softmax_weights(1, 3, 3), "abc", labels(3))
    with pytest.raises(ValueError, match="key label 1 is int"):
        hvd.prepare(softmax_weights(1, 3, 3), labels(3), ["a", 1, "c"])


def test_head_colours_are_checked():
    w = softmax_weights(3, 2, 2)
    with pytest.raises(ValueError, match="3 heads, while there are 2 head colours"):
        hvd.prepare(w, labels(2), labels(2), head_colours=["#000000", "#ffffff"])
    with pytest.raises(ValueError, match="#rrggbb"):  # a colour goes into a style: only plain hex is taken
        hvd.prepare(w, labels(2), labels(2), head_colours=["#000000", "red;background:url(x)", "#ffffff"])


def test_unknown_words_are_refused():
    with pytest.raises(ValueError, match="unknown head view words"):
        hvd.prepare(softmax_weights(1, 2, 2), labels(2), labels(2), words={"titel": "x"})


# ----------------------------------------------------------------------------------------------------- payload


@settings(max_examples=40, deadline=None)
@given(H=st.integers(1, 5), Tq=st.integers(1, 9), Tk=st.integers(1, 9), seed=st.integers(0, 10_000))
def test_payload_round_trips_within_half_a_thousandth(H, Tq, Tk, seed):
    """Cross-attention shapes too (Tq != Tk): the packed order is (head, query, key)."""
    w = softmax_weights(H, Tq, Tk, seed)
    p = hvd.prepare(w, labels(Tq, "q"), labels(Tk, "k"))
    assert (p["H"], p["Tq"], p["Tk"]) == (H, Tq, Tk)
    assert len(p["w"]) == 2 * H * Tq * Tk and isinstance(p["w"], str)
    assert hvd.thousandths(p).min() >= 0 and hvd.thousandths(p).max() <= hvd.SCALE
    np.testing.assert_allclose(hvd.unpack(p), w, atol=0.5 / hvd.SCALE + 1e-12)
    assert json.loads(json.dumps(p)) == p  # plain JSON


def test_masked_weights_draw_nothing_and_rows_do():
    """Weights of the real module under a causal mask: no line above the diagonal, every query draws its row."""
    torch.manual_seed(0)
    m = MultiHeadAttention(16, 4)
    x = torch.randn(1, 6, 16)
    w = m.trace(x, x, x, mask=causal_mask(6)).weights[0].detach().numpy()  # (H, T, T)
    p = hvd.prepare(w, labels(6), labels(6))
    lines = hvd.drawn_lines(p)
    assert lines and all(k <= q for _, q, k in lines)
    for q in range(6):  # each row sums to 1 over at most 6 keys: its largest weight is far above the threshold
        assert {(h, q) for h, qq, _ in lines if qq == q} == {(h, q) for h in range(4)}


def test_drawn_lines_follow_the_threshold_and_selection():
    w = np.zeros((2, 3, 4))
    w[0, 1, 2] = 0.5
    w[1, 1, 3] = 0.0015  # rounds to 2 thousandths: drawn when its row is pointed at, not in the overview
    w[1, 2, 0] = 0.0014  # rounds to 1: too faint, never drawn
    w[0, 2, 1] = 0.0095  # rounds to 10: in the overview too
    w[0, 0, 0] = 0.9
    p = hvd.prepare(w, labels(3), labels(4))
    assert hvd.MIN_WEIGHT < 10 == hvd.MIN_WEIGHT_ALL
    assert hvd.drawn_lines(p) == {(0, 1, 2), (0, 2, 1), (0, 0, 0)}
    assert hvd.drawn_lines(p, query=1) == {(0, 1, 2), (1, 1, 3)}
    assert hvd.drawn_lines(p, query=2) == {(0, 2, 1)}
    assert hvd.drawn_lines(p, key=0) == {(0, 0, 0)}
    assert hvd.drawn_lines(p, query=1, heads=[1]) == {(1, 1, 3)}


def test_payload_at_the_largest_view_stays_small():
    """128 tokens x 16 heads: two bytes a weight and a little for the labels (float text would be ~20 a weight)."""
    p = hvd.prepare(softmax_weights(16, 128, 128, sharp=1.0), labels(128), labels(128))
    size = len(json.dumps(p, separators=(",", ":")))
    assert size < 2 * 16 * 128 * 128 + 5_000, size


@given(st.lists(st.integers(0, 4095), max_size=50))
def test_encode_decode_round_trip(values):
    text = hvd.encode(np.array(values, dtype=np.int64))
    assert len(text) == 2 * len(values) and text.isascii()
    assert hvd.decode(text).tolist() == values


def test_encode_refuses_what_two_characters_cannot_hold():
    with pytest.raises(ValueError, match="0 … 4095"):
        hvd.encode(np.array([4096]))
    with pytest.raises(ValueError, match="not a head view weights string"):
        hvd.decode("A")


def test_labels_travel_as_given():
    """Tokens are text for the browser to set with textContent: the payload does not alter or escape them."""
    hostile = ["<img src=x onerror=alert(1)>", "a&b", "\"'", "고양이"]
    p = hvd.prepare(softmax_weights(1, 4, 4), hostile, hostile[::-1])
    assert p["queries"] == hostile and p["keys"] == hostile[::-1]


def test_signature_changes_with_the_numbers_and_labels_only():
    w = softmax_weights(2, 3, 3)
    a = hvd.prepare(w, labels(3), labels(3))
    assert hvd.prepare(w.copy(), labels(3), labels(3))["sig"] == a["sig"]
    assert hvd.prepare(w, labels(3), ["x", "y", "z"])["sig"] != a["sig"]
    w2 = w.copy()
    w2[0, 0] = w[0, 0][::-1]
    assert hvd.prepare(w2, labels(3), labels(3))["sig"] != a["sig"]


# ------------------------------------------------------------------------------------------------ colours, words


@pytest.mark.parametrize("H", [1, 4, 16, 20])
def test_palette_gives_distinct_hex_colours(H):
    colours = hvd.palette(H)
    assert len(colours) == H == len(set(colours))
    assert all(hvd._HEX.fullmatch(c) for c in colours)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_words_in_both_languages(lang):
    words = hvd.words(lang)
    assert set(words) == set(hvd.WORD_NAMES) and all(words.values())
    assert "{h}" in words["head"]
    if lang == "ko":
        assert words != hvd.words("en")
        assert all(i18n.OWNER[f"hv_{name}"] == "head_view" for name in hvd.WORD_NAMES)


# --------------------------------------------------------------------------------------------- in the Playground


def test_playground_sends_the_views_weights_and_labels():
    """The Playground's head view gets the same weights as its all-heads grid (two paths to the browser), the
    sentence's tokens, and Korean words; cross-attention keeps its own key tokens."""
    from harness.apptest import canvas_charts, canvas_values, open_page

    at = open_page("pages/playground.py", text="the cat sat on the mat", kv_text="a dog ran", num_heads="2",
                   lang="ko")
    views = [json.loads(el.proto.json) for el in at.get("bidi_component")
             if el.proto.component_name == "mha_head_view"]
    assert len(views) == 1
    p = views[0]
    assert (p["H"], p["Tq"], p["Tk"]) == (2, 6, 3)
    assert p["queries"] == ["the", "cat", "sat", "on", "the", "mat"] and p["keys"] == ["a", "dog", "ran"]
    assert p["words"] == hvd.words("ko")
    shown = canvas_values(canvas_charts(at)["grid"])
    assert shown.shape == (2, 6, 3)
    np.testing.assert_allclose(hvd.unpack(p), shown, atol=0.5 / hvd.SCALE + 1e-6)


@pytest.mark.parametrize("top", [0, -0.1, 1.5, float("nan"), "1"])
def test_top_must_be_a_weight(top):
    with pytest.raises(ValueError, match="full strength"):
        hvd.prepare(np.full((1, 2, 2), 0.5), ["a", "b"], ["a", "b"], top=top)


@pytest.mark.parametrize("n", [5, 43])
def test_playground_lines_follow_the_views_colour_scale(n):
    """At 43 tokens every weight is near 1/43: on 0 … 1 the lines were all but invisible. The head view's full
    strength is the top of the view's colour scale, the one its grid says in its colour bar."""
    from harness.apptest import canvas_charts, open_page

    at = open_page("pages/playground.py", text=" ".join(f"w{i}" for i in range(n)))
    [p] = [json.loads(el.proto.json) for el in at.get("bidi_component")
           if el.proto.component_name == "mha_head_view"]
    top = canvas_charts(at)["grid"]["hi"]
    assert p["top"] == int(np.ceil(top * hvd.SCALE))
    assert (p["top"] == hvd.SCALE) == (n == 5)  # short rows: 0 … 1; 43 keys of small weights: fitted
    assert hvd.unpack(p).max() * hvd.SCALE <= p["top"] + 0.5 or n == 5


def test_the_overview_draws_the_strongest_lines_up_to_its_cap():
    """At 128 tokens x 16 heads, 56,000 random weights passed 0.01 and drawing them took seconds: the overview keeps
    the strongest ~OVERVIEW_LINES (every line at or above its threshold, none below); a pointed-at row is whole."""
    w = softmax_weights(16, 128, 128, seed=3, sharp=1.0)
    p = hvd.prepare(w, labels(128), labels(128))
    overview = hvd.drawn_lines(p)
    t = hvd.thousandths(p)
    assert p["min_all"] > hvd.MIN_WEIGHT_ALL and hvd.OVERVIEW_LINES <= len(overview) <= 1.1 * hvd.OVERVIEW_LINES
    drawn_min = min(t[x] for x in overview)
    assert drawn_min >= p["min_all"] > t[t < p["min_all"]].max()  # the strongest, nothing weaker
    assert len(hvd.drawn_lines(p, query=5)) == int((t[:, 5] >= hvd.MIN_WEIGHT).sum())  # a row: every visible line
    small = softmax_weights(4, 6, 6)
    assert hvd.prepare(small, labels(6), labels(6))["min_all"] == hvd.MIN_WEIGHT_ALL  # few lines: all drawn
    ties = np.full((1, 100, 100), 0.01)  # 10,000 equal weights: all drawn, never an arbitrary part of them
    assert len(hvd.drawn_lines(hvd.prepare(ties, labels(100), labels(100)))) == 10_000
