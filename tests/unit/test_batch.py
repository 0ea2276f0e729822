"""Batches (one sentence per line, padded with PAD), the key-padding mask, cross-attention (kv_text, Tq != Tk) and
the per-sentence masks of the Masks page: mha/weights/batch.py and the batch path of mha/view.run_view."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mha.core.tokens import TextError, tokenize
from mha.weights.batch import (
    MASK_KINDS,
    MAX_CUSTOM,
    MAX_MASK_CHARS,
    PAD,
    BatchError,
    MaskTextError,
    apply_cell_edits,
    apply_mask,
    batch_mask,
    block_row,
    custom_start,
    decode_mask,
    encode_mask,
    make_batch,
    mask_kinds,
    pair_kv,
    sentence_mask,
    split_lines,
)
from mha.weights.view import ViewSpec, run_view, view_inputs

LIMITS = dict(max_chars=2000, max_tokens=128)


def batch(text, **kw):
    return make_batch(text, **{**LIMITS, **kw})


# --- making a batch --------------------------------------------------------------------------------------------------


def test_one_sentence_per_line_padded_to_the_longest():
    b = batch("the cat sat on the mat\nhello\n\nOrange is my favorite fruit\n")
    assert b.size == 3 and b.lengths == (6, 1, 5) and b.max_len == 6
    assert b.padded() == (
        ("the", "cat", "sat", "on", "the", "mat"),
        ("hello",) + (PAD,) * 5,
        ("Orange", "is", "my", "favorite", "fruit", PAD),
    )
    assert b.previews[1] == "hello"


def test_blank_and_invisible_lines_are_skipped():
    assert split_lines("a\n   \n\u200e\u202e\nb\r\n") == ["a", "b"]
    b = batch("a\n   \n\u200e\u202e\n\ufe0f\nb")
    assert b.sentences == (("a",), ("b",))


@pytest.mark.parametrize("control", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85"])
def test_invisible_controls_are_removed_not_taken_for_line_breaks(control):
    """str.splitlines() breaks at these too; in the text box they look like nothing, so they start no sentence."""
    assert split_lines(f"a{control}b\nc\rd") == [f"a{control}b", "c", "d"]
    assert batch(f"a {control}b").sentences == (("a", "b"),)


def test_a_typed_pad_is_three_ordinary_tokens():
    assert tokenize("[PAD]").tokens == ("[", "PAD", "]")
    b = batch("[PAD]\nx")
    assert b.sentences[0] == ("[", "PAD", "]") and PAD not in b.sentences[0]
    view = run_view(ViewSpec(text="[PAD]\nx"))
    assert not view.key_is_pad.any() and view.allowed.all()  # the longest sentence has no padding to block


@pytest.mark.parametrize("text", ["", "  \n\t\n", "\u200e\n\u202e"])
def test_nothing_visible_raises_the_learner_message(text):
    with pytest.raises(TextError, match="empty"):
        batch(text)


def test_limits_cut_with_notes():
    b = batch("\n".join(f"s{i} a b" for i in range(11)), max_sentences=8)
    assert b.size == 8 and "note_sentences_cut" in b.notes and b.note_args["n_sentences"] == 11
    b = batch("a b c d e\na b", max_tokens=3)
    assert b.lengths == (3, 2) and "note_tokens_cut" in b.notes and b.note_args["n_tokens"] == 5
    b = batch("a " * 50, max_chars=20)
    assert b.lengths == (10,) and "note_chars_cut" in b.notes
    b = batch("a\u202eb\nc\u200ed")
    assert "note_controls_removed" in b.notes and b.note_args["n_removed"] == 2


def test_key_padding_mask():
    m = batch("a b c\nd\ne f").key_padding_mask()
    assert m.shape == (3, 1, 1, 3) and m.dtype == torch.bool
    assert m[:, 0, 0].tolist() == [[True, True, True], [True, False, False], [True, True, False]]


def test_inputs_shape_and_pad_has_its_own_vector():
    b = batch("a b\nc")
    x = b.inputs(d_model=8, seed=0, positional=False)
    assert x.shape == (2, 2, 8)
    assert not torch.allclose(x[1, 1], torch.zeros(8))  # PAD is a token with a vector, not zeros


# --- pairing keys/values with queries, and the batch mask -------------------------------------------------------------


def test_pair_kv():
    q3, kv1, kv3, kv2 = batch("a\nb\nc"), batch("x y"), batch("x\ny\nz"), batch("x\ny")
    assert pair_kv(q3, None) is q3
    assert pair_kv(q3, kv3) is kv3
    assert pair_kv(q3, kv1).sentences == (("x", "y"),) * 3
    with pytest.raises(BatchError, match="2 lines but the text has 3") as err:
        pair_kv(q3, kv2)
    assert err.value.key == "err_kv_lines" and err.value.fmt == {"n_kv": 2, "n_text": 3}


def test_batch_mask():
    q = batch("a b c\nd")
    assert batch_mask(q, q, causal=False, padding=False) is None
    assert batch_mask(batch("a b"), batch("a b"), causal=False, padding=True) is None  # nothing to pad
    pad = batch_mask(q, q, causal=False, padding=True)
    assert pad.shape == (2, 1, 1, 3) and pad[1, 0, 0].tolist() == [True, False, False]
    both = batch_mask(q, q, causal=True, padding=True)
    assert both.shape == (2, 1, 3, 3)
    assert both[0, 0].tolist() == torch.ones(3, 3, dtype=torch.bool).tril().tolist()
    assert both[1, 0].tolist() == [[True, False, False]] * 3
    with pytest.raises(ValueError, match="Tq == Tk"):
        batch_mask(q, batch("x y z w"), causal=True, padding=False)


# --- run_view on batches ---------------------------------------------------------------------------------------------


def test_padding_mask_makes_a_short_sentence_equal_to_running_it_alone():
    text = "the cat sat on the mat\nhello world"
    padded = run_view(ViewSpec(text=text, sentence=1, padding=True))
    alone = run_view(ViewSpec(text="hello world"))
    assert padded.tokens == ("hello", "world") + (PAD,) * 4 and padded.query_is_pad.tolist() == [False] * 2 + [True] * 4
    assert padded.labels[:2] == ["hello", "world"] and padded.labels[2] == PAD
    np.testing.assert_allclose(padded.weights[:, :2, :2], alone.weights, atol=1e-6)
    assert (padded.weights[:, :, 2:] == 0).all()  # no query attends to a PAD key
    np.testing.assert_allclose(padded.output[:2], alone.output, atol=1e-5)


def test_without_the_padding_mask_pads_soak_up_attention():
    view = run_view(ViewSpec(text="the cat sat on the mat\nhello world", sentence=1, padding=False))
    alone = run_view(ViewSpec(text="hello world"))
    assert view.allowed.all()
    assert (view.weights[:, :2, 2:].sum(-1) > 0.05).all()  # every head gives the pads a real share
    assert np.abs(view.output[:2] - alone.output).max() > 1e-3


def test_causal_and_padding_together():
    view = run_view(ViewSpec(text="a b c d\ne f", sentence=1, causal=True))
    expected = np.tri(4, 4, dtype=bool) & np.array([True, True, False, False])
    assert (view.allowed == expected).all()
    np.testing.assert_allclose(view.weights.sum(-1), 1.0, atol=1e-6)  # no row fully masked: key 0 is real


def test_sentence_choice_and_clamping():
    text = "a b c\nd e\nf"
    for b, tokens in enumerate([("a", "b", "c"), ("d", "e", PAD), ("f", PAD, PAD)]):
        view = run_view(ViewSpec(text=text, sentence=b))
        assert view.tokens == tokens and view.sentence == b and view.batch_size == 3 and view.lengths == (3, 2, 1)
    view = run_view(ViewSpec(text=text, sentence=7))
    assert view.sentence == 2 and "note_sentence_clamped" in view.notes and view.note_args["asked"] == 7


def test_the_batch_is_one_computation():
    """Sentence b's numbers are row b of one (B, ...) trace, not separate runs."""
    inp = view_inputs(ViewSpec(text="a b c\nd e"))
    assert inp.query.shape == (2, 3, 16) and inp.key is inp.query and not inp.is_cross
    tr = inp.model.trace(inp.query, inp.key, inp.key, inp.mask)
    view = run_view(ViewSpec(text="a b c\nd e", sentence=1))
    np.testing.assert_array_equal(view.weights, tr.weights[1].detach().numpy())


# --- cross-attention --------------------------------------------------------------------------------------------------


def test_cross_attention_has_its_own_key_axis():
    view = run_view(ViewSpec(text="the cat sat", kv_text="a dog ran far away", num_heads=2))
    assert view.is_cross and view.tokens == ("the", "cat", "sat")
    assert view.key_tokens == ("a", "dog", "ran", "far", "away") and view.key_labels[1] == "dog"
    assert view.labels == ["the", "cat", "sat"]  # View.labels stays the query labels
    H = 2
    assert view.weights.shape == (H, 3, 5) and view.scores.shape == (H, 3, 5) and view.allowed.shape == (H, 3, 5)
    assert view.k.shape == (H, 5, 8) and view.x_kv.shape == (5, 16) and view.output.shape == (3, 16)
    np.testing.assert_allclose(view.weights.sum(-1), 1.0, atol=1e-6)


def test_causal_is_not_applied_in_cross_attention():
    view = run_view(ViewSpec(text="the cat sat", kv_text="a dog", causal=True))
    assert view.allowed.all() and "note_causal_cross" in view.notes
    assert not view_inputs(ViewSpec(text="the cat sat", kv_text="a dog", causal=True)).causal


def test_one_kv_line_serves_every_sentence_and_lines_pair_up():
    one = [run_view(ViewSpec(text="a b\nc", kv_text="x y z", sentence=b)) for b in (0, 1)]
    assert one[0].key_tokens == one[1].key_tokens == ("x", "y", "z")
    paired = run_view(ViewSpec(text="a b\nc", kv_text="x y z\nw", sentence=1))
    assert paired.key_tokens == ("w", PAD, PAD) and paired.key_is_pad.tolist() == [False, True, True]
    assert (paired.allowed[..., 1:] == 0).all() and paired.key_lengths == (3, 1)
    with pytest.raises(BatchError):
        run_view(ViewSpec(text="a\nb\nc", kv_text="x\ny"))


def test_blank_kv_text_is_self_attention_and_invisible_kv_text_is_an_error():
    assert not run_view(ViewSpec(text="a b", kv_text="  \n ")).is_cross
    with pytest.raises(BatchError) as err:
        run_view(ViewSpec(text="a b", kv_text="\u200e\u202e"))
    assert err.value.key == "err_kv_empty"


# --- masks for one sentence (the Masks page) --------------------------------------------------------------------------


def test_mask_kinds_drop_causal_in_cross_attention():
    assert mask_kinds(False) == list(MASK_KINDS)
    assert mask_kinds(True) == ["none", "padding", "custom"]


def test_sentence_mask_kinds():
    pad = np.array([False, False, True])
    assert sentence_mask("none", 3, 3, pad).all()
    assert (sentence_mask("causal", 3, 3, pad) == np.tri(3, dtype=bool)).all()
    assert (sentence_mask("padding", 3, 3, pad) == [[True, True, False]] * 3).all()
    assert (sentence_mask("causal_padding", 3, 3, pad) == (np.tri(3, dtype=bool) & ~pad)).all()
    assert (sentence_mask("padding", 2, 3, pad) == [[True, True, False]] * 2).all()  # cross: Tq != Tk
    with pytest.raises(ValueError, match="Tq == Tk"):
        sentence_mask("causal", 2, 3, pad)
    with pytest.raises(ValueError, match="drawn by hand"):
        sentence_mask("custom", 3, 3, pad)


def test_custom_starts_and_block_row():
    assert custom_start("all", 2, 3).all()
    assert (custom_start("causal", 3, 3) == np.tri(3, dtype=bool)).all()
    row = custom_start("row", 3, 4)
    assert not row[0].any() and row[1:].all()
    m = np.ones((2, 2), dtype=bool)
    assert not block_row(m, 1)[1].any() and m.all()  # a copy: the original is untouched
    with pytest.raises(ValueError):
        custom_start("diagonal", 2, 2)


# --- a custom mask as text ------------------------------------------------------------------------------------------


@st.composite
def masks(draw):
    tq, tk = draw(st.integers(1, MAX_CUSTOM)), draw(st.integers(1, MAX_CUSTOM))
    return np.array(draw(st.lists(st.booleans(), min_size=tq * tk, max_size=tq * tk)), dtype=bool).reshape(tq, tk)


@settings(max_examples=200, deadline=None)
@given(masks())
def test_mask_text_round_trip(allowed):
    text = encode_mask(allowed)
    tq, tk = allowed.shape
    assert len(text) == tq * (tk + 1) - 1 <= MAX_MASK_CHARS and set(text) <= set("01.")
    rows = text.split(".")
    assert len(rows) == tq and all(len(r) == tk for r in rows)
    assert all(rows[i][j] == "01"[int(allowed[i, j])] for i in range(tq) for j in range(tk))  # 1 = may attend
    back = decode_mask(text, tq, tk)
    assert back.dtype == bool and back.shape == (tq, tk) and (back == allowed).all()


def test_mask_text_reads_like_the_mask():
    assert encode_mask(np.tri(3, dtype=bool)) == "100.110.111"  # causal: query i sees keys 0..i
    assert encode_mask(custom_start("row", 2, 3)) == "000.111"
    assert encode_mask([[True]]) == "1"
    with pytest.raises(ValueError):
        encode_mask(np.ones((0, 3), dtype=bool))
    with pytest.raises(ValueError):
        encode_mask(np.ones(3, dtype=bool))


@pytest.mark.parametrize("typed", ["100.110.111", " 100 110 111 ", "100,110,111", "100/110/111", "100;110;111",
                                   "100\n110\n111", "100..110.111.", "100 | 110 | 111"])
def test_typed_rows_may_be_split_by_spaces_commas_or_slashes(typed):
    assert (decode_mask(typed, 3, 3) == np.tri(3, dtype=bool)).all()


@pytest.mark.parametrize("text,key,args,words", [
    ("", "mk_cells_err_empty", {}, "empty"),
    (" . . ", "mk_cells_err_empty", {}, "empty"),
    ("10x.110.111", "mk_cells_err_char", {"char": "x", "pos": 3}, "character 3"),
    ("100.110.11\u202e1", "mk_cells_err_char", {"char": "U+202E", "pos": 11}, "U+202E"),  # invisible: its code
    ("100.110.1\u200b11", "mk_cells_err_char", {"char": "U+200B", "pos": 10}, "U+200B"),
    ("TFF.TTF.TTT", "mk_cells_err_char", {"char": "T", "pos": 1}, "not 0, 1"),
    ("100.110.11１", "mk_cells_err_char", {"char": "１", "pos": 11}, "not 0, 1"),  # a full-width digit is not 1
    ("100.110", "mk_cells_err_rows", {"rows": 2}, "2 rows"),
    ("1 0 0 1 1 0 1 1 1", "mk_cells_err_rows", {"rows": 9}, "9 rows"),
    ("100.1100.111", "mk_cells_err_cols", {"row": 2, "n": 4}, "row 2 has 4 digits"),
    ("1" * (MAX_MASK_CHARS + 1), "mk_cells_err_long", {"n": MAX_MASK_CHARS + 1, "max": MAX_MASK_CHARS}, "characters"),
])
def test_mask_text_rejected_with_a_reason_and_the_expected_shape(text, key, args, words):
    with pytest.raises(MaskTextError) as err:
        decode_mask(text, 3, 3)
    assert err.value.key == key and err.value.fmt == {**args, "tq": 3, "tk": 3}
    assert words in str(err.value) and "write 3 rows of 3 digits" in str(err.value)


def test_mask_text_of_another_shape_is_rejected():
    text = encode_mask(np.ones((3, 4), dtype=bool))
    assert decode_mask(text, 3, 4).all()
    for tq, tk in ((4, 3), (3, 5), (2, 4)):
        with pytest.raises(MaskTextError):
            decode_mask(text, tq, tk)
    with pytest.raises(MaskTextError):
        decode_mask(None, 1, 1)  # a missing value is an empty mask text, not a crash


def test_table_edits_apply_to_a_copy():
    start = np.tri(3, dtype=bool)
    cols = ["0 a", "1 b", "2 a"]
    edited = apply_cell_edits(start, {0: {"1 b": True}, "2": {"0 a": False, "2 a": None}}, cols)
    assert (edited == [[1, 1, 0], [1, 1, 0], [0, 1, 0]]).all() and (start == np.tri(3, dtype=bool)).all()
    ignored = {5: {"0 a": False}, -1: {"0 a": False}, "x": {"0 a": False}, 1: {"_index": "q", "9 z": False}, 2: None}
    assert (apply_cell_edits(start, ignored, cols) == start).all()  # other rows, the index, unknown columns
    assert (apply_cell_edits(start, {}, cols) == start).all() and (apply_cell_edits(start, None, cols) == start).all()


@pytest.mark.parametrize("kind", ["none", "causal", "padding", "causal_padding"])
def test_apply_mask_reproduces_the_view(kind):
    spec = ViewSpec(text="a b c d\ne f", sentence=1, causal=kind.startswith("causal"), padding=kind.endswith("padding"))
    view = run_view(spec)
    allowed = sentence_mask(kind, 4, 4, view.key_is_pad)
    assert (view.allowed == allowed).all()
    masked = apply_mask(view.q, view.k, view.v, allowed)
    np.testing.assert_allclose(masked.weights, view.weights, atol=1e-6)
    np.testing.assert_allclose(masked.head_outputs, view.head_outputs, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=5, max_size=5), min_size=3, max_size=3))
def test_apply_mask_any_custom_mask_has_no_nan(rows):
    view = run_view(ViewSpec(text="a b c", kv_text="v w x y z", num_heads=2))
    allowed = np.array(rows, dtype=bool)
    masked = apply_mask(view.q, view.k, view.v, allowed)
    for arr in (masked.scores, masked.weights, masked.head_outputs):
        assert np.isfinite(arr).all()
    assert (masked.fully_masked == ~allowed.any(1)).all()
    assert (masked.weights[:, ~allowed] == 0).all()
    sums = masked.weights.sum(-1)  # (H, Tq): 1 for a row with an allowed key, exactly 0 otherwise
    np.testing.assert_allclose(sums[:, ~masked.fully_masked], 1.0, atol=1e-6)
    assert (sums[:, masked.fully_masked] == 0).all()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(alphabet="ab c가나\u200e😀", min_size=0, max_size=12), min_size=1, max_size=4),
       st.booleans(), st.booleans())
def test_property_any_batch_runs_without_nan(lines, causal, padding):
    text = "\n".join(lines)
    try:
        b = batch(text)
    except TextError:
        return
    for s in range(b.size):
        view = run_view(ViewSpec(text=text, causal=causal, padding=padding, d_model=8, num_heads=2, sentence=s))
        assert len(view.tokens) == b.max_len and view.tokens[:b.lengths[s]] == b.sentences[s]
        for arr in (view.scores, view.weights, view.output):
            assert np.isfinite(arr).all()
        if padding:
            assert (view.weights[:, :, view.key_is_pad] == 0).all()
