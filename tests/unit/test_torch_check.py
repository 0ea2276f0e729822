"""mha/weights/torch_check.py: the live check against nn.MultiheadAttention and F.scaled_dot_product_attention passes on
our module for batches, padding, causal and cross-attention; it reports fully masked rows honestly; and it fails
when something is really wrong (a bug, a mask passed without conversion)."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mha.core.attention import MultiHeadAttention
from mha.core.inputs import init_weights
from mha.core.masks import causal_mask, padding_mask
from mha.lessons import bugs
from mha.weights import torch_check as tc
from mha.weights.batch import sentence_mask
from mha.weights.view import ViewSpec, build_model, run_view, view_inputs

SPECS = {
    "one sentence": ViewSpec(),
    "batch + padding": ViewSpec(text="the cat sat on the mat\nhello\nOrange is my favorite fruit"),
    "batch, padding off": ViewSpec(text="the cat sat on the mat\nhello", padding=False),
    "causal": ViewSpec(text="the cat sat on the mat", causal=True),
    "causal + padding": ViewSpec(text="the cat sat on the mat\nhello world", causal=True),
    "cross": ViewSpec(text="the cat sat", kv_text="a dog ran far away"),
    "cross batch + padding": ViewSpec(text="the cat sat\nhi", kv_text="a dog ran far away\nno"),
    "cross, one kv line": ViewSpec(text="the cat sat\nhi", kv_text="a dog ran far away"),
}


@pytest.mark.parametrize("num_heads", [1, 2, 4, 8])
@pytest.mark.parametrize("name", list(SPECS))
def test_passes_on_our_module(name, num_heads):
    spec = SPECS[name]
    result = tc.check_spec(ViewSpec(**{**spec.__dict__, "num_heads": num_heads}))
    assert result.passed, (result.output_error, result.weights_error, result.sdpa_error)
    assert max(result.output_error, result.weights_error, result.sdpa_error) <= tc.TOLERANCE
    assert not result.fully_masked.any() and not result.torch_nan_rows.any() and result.ours_finite
    inp = view_inputs(spec)
    assert result.ours_weights.shape == (inp.query.size(0), num_heads, inp.query.size(1), inp.key.size(1))
    assert result.compared_rows == inp.query.size(0) * inp.query.size(1)


def test_fully_masked_rows_are_reported_not_hidden():
    view = run_view(ViewSpec(text="a b c d", num_heads=4))
    allowed = np.tri(4, 4, dtype=bool)
    allowed[2] = False  # query 2 may attend to nothing
    result = tc.check_sentence(view, allowed)
    assert result.passed  # the only difference is the documented one
    assert result.fully_masked.tolist() == [[False, False, True, False]]
    assert result.torch_nan_rows.tolist() == [[False, False, True, False]]  # nn.MultiheadAttention: NaN there
    assert np.isnan(result.torch_weights[0, :, 2]).all() and np.isnan(result.torch_output[0, 2]).all()
    assert (result.ours_weights[0, :, 2] == 0).all()  # ours: exactly 0
    bias = build_model(16, 4, 0).output_linear.bias.double().numpy()
    np.testing.assert_allclose(result.ours_output[0, 2], bias, rtol=0, atol=1e-12)  # head outputs 0: only the bias
    assert result.compared_rows == 3 and result.output_error <= tc.TOLERANCE
    report = tc.row_report(result, batch=0, head=1, row=2)
    assert report.ours == ["0.0000"] * 4 and report.torch == ["NaN"] * 4
    assert report.ours_finite and report.torch_nan == 16 and report.sdpa in ("zero", "nan")
    assert tc.row_report(result, batch=0, head=1, row=3).torch_nan == 0


def test_an_all_blocked_mask():
    view = run_view(ViewSpec(text="a b c"))
    result = tc.check_sentence(view, np.zeros((3, 3), dtype=bool))
    assert result.passed and result.compared_rows == 0 and result.torch_nan_rows.all()
    assert result.output_error == result.weights_error == 0.0  # nothing left to compare


@pytest.mark.parametrize("bug", bugs.BUGS[1:], ids=bugs.BUG_NAMES[1:])
def test_fails_on_every_bug(bug):
    model = build_model(16, 4, 0)
    inp = view_inputs(ViewSpec(text="the cat sat on the mat\nhello", causal=True))
    result = tc.check(bugs.buggy_copy(bug, model), inp.query, inp.key, inp.key, inp.mask)
    assert not result.passed
    assert max(result.output_error, result.weights_error, result.sdpa_error) > 1e-3


def test_fails_when_the_mask_is_not_converted():
    view = run_view(ViewSpec(text="a b c d", num_heads=2))
    causal = np.tri(4, 4, dtype=bool)
    right, forgot = tc.check_sentence(view, causal), tc.check_sentence(view, causal, convert=False)
    assert right.passed and not forgot.passed
    assert forgot.output_error > 1e-2
    assert forgot.torch_nan_rows[0, 3] and not forgot.fully_masked[0, 3]  # the all-True last row: all blocked there
    everything = tc.check_sentence(view, np.ones((4, 4), dtype=bool), convert=False)  # blocks nothing ...
    assert not everything.passed and everything.torch_nan_rows.all()  # ... so torch blocks everything: all NaN


def test_the_shared_module_is_never_changed():
    model = build_model(16, 4, 0)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    tc.check_spec(ViewSpec(causal=True))
    assert all(torch.equal(before[k], v) and v.dtype == torch.float32 for k, v in model.state_dict().items())
    assert build_model(16, 4, 0) is model


def test_torch_attn_mask_flips_and_expands():
    allowed = padding_mask([3, 1])  # (B, 1, 1, Tk)
    m = tc.torch_attn_mask(allowed, batch=2, num_heads=3, tq=2, tk=3)
    assert m.shape == (6, 2, 3) and m.dtype == torch.bool
    assert m[0].tolist() == [[False] * 3] * 2 and m[3].tolist() == [[False, True, True]] * 2  # True = blocked
    assert torch.equal(tc.torch_attn_mask(allowed, 2, 3, 2, 3, convert=False), ~m)
    assert tc.torch_attn_mask(None, 2, 3, 2, 3) is None


def test_torch_twin_holds_our_weights():
    model = init_weights(MultiHeadAttention(8, 2), 5)
    twin = tc.torch_twin(model)
    assert twin.in_proj_weight.dtype == torch.float64
    torch.testing.assert_close(twin.in_proj_weight[8:16].float(), model.key_linear.weight, rtol=0, atol=0)
    assert (twin.in_proj_bias == 0).all()
    torch.testing.assert_close(twin.out_proj.bias.float(), model.output_linear.bias, rtol=0, atol=0)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 5), st.integers(1, 5), st.sampled_from([1, 2, 4]), st.data())
def test_property_random_masks(batch, tq, tk, num_heads, data):
    """Any mask, any shape: passes, and torch's NaN rows are exactly our fully masked rows."""
    g = torch.Generator().manual_seed(data.draw(st.integers(0, 10_000)))
    model = init_weights(MultiHeadAttention(8, num_heads), 1)
    query, key = torch.randn(batch, tq, 8, generator=g), torch.randn(batch, tk, 8, generator=g)
    mask = torch.rand(batch, 1, tq, tk, generator=g) < data.draw(st.floats(0.0, 1.0))
    result = tc.check(model, query, key, key, mask)
    assert result.passed
    assert (result.torch_nan_rows == result.fully_masked).all()


def test_sentence_check_for_every_mask_kind():
    view = run_view(ViewSpec(text="a b c d\ne f", sentence=1))
    for kind in ("none", "causal", "padding", "causal_padding"):
        assert tc.check_sentence(view, sentence_mask(kind, 4, 4, view.key_is_pad)).passed, kind
    assert causal_mask(4).shape == (4, 4)


def test_uploaded_weights_are_the_ones_checked():
    """With a visitor's own weights the check runs on them (the numbers on screen), not on the seeded module."""
    sd = init_weights(MultiHeadAttention(16, 4), 99).state_dict()
    spec = ViewSpec(text="the cat sat\nhi", causal=True)
    view = run_view(spec, state_dict=sd)
    result = tc.check_spec(spec, state_dict=sd)
    assert result.passed
    np.testing.assert_allclose(result.ours_output[0], run_view(spec, state_dict=sd).output, atol=1e-5)  # sentence 0
    sentence = tc.check_sentence(view, view.allowed[0], state_dict=sd)
    assert sentence.passed
    np.testing.assert_allclose(sentence.ours_output[0], view.output, atol=1e-5)
    seeded = tc.check_sentence(view, view.allowed[0])
    assert np.abs(seeded.ours_output[0] - view.output).max() > 1e-3  # without the state_dict: another module
