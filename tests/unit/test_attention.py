"""mha.core.attention against torch's references, the trace, invariants, error messages and property tests.

Torch is the reference: ``nn.MultiheadAttention`` (weights and output) and ``F.scaled_dot_product_attention``
(per-head output), always with num_heads > 1 in the mix (one head hides every transpose bug), float64 to 1e-10.
"""
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn.utils import prune

import mha
from tests.course_mha import MultiHeadAttention as CourseMultiHeadAttention

D_MODEL = 24  # divisible by every head count below
HEADS = [1, 2, 3, 4, 8]
SHAPES = {"self": (5, 5), "cross": (4, 7)}  # (Tq, Tk)
MASKS = ["none", "causal", "padding", "both"]
TOL = {torch.float64: dict(rtol=1e-10, atol=1e-10), torch.float32: dict(rtol=1e-5, atol=1e-5)}
TIGHT = dict(rtol=1e-12, atol=1e-12)


def randn(gen, *shape, dtype=torch.float64):
    return torch.randn(*shape, generator=gen, dtype=dtype)


def make_module(d_model, num_heads, dtype=torch.float64, seed=0):
    return mha.init_weights(mha.MultiHeadAttention(d_model, num_heads).to(dtype), seed)


def torch_twin(ours: mha.MultiHeadAttention, bias: bool = True) -> nn.MultiheadAttention:
    """nn.MultiheadAttention with our weights. Our Q/K/V have no bias: zero torch's in_proj_bias, or use
    bias=False (which also drops out_proj's bias, so ours is zeroed to match)."""
    dtype = ours.output_linear.weight.dtype
    ref = nn.MultiheadAttention(ours.d_model, ours.num_heads, bias=bias, batch_first=True, dtype=dtype)
    with torch.no_grad():
        ref.in_proj_weight.copy_(
            torch.cat([ours.query_linear.weight, ours.key_linear.weight, ours.value_linear.weight])
        )
        ref.out_proj.weight.copy_(ours.output_linear.weight)
        if bias:
            ref.in_proj_bias.zero_()
            ref.out_proj.bias.copy_(ours.output_linear.bias)
        else:
            ours.output_linear.bias.zero_()
    return ref.eval()


def make_mask(kind, batch, tq, tk):
    """Our mask (True = may attend) for a case. No row is fully masked: key 0 is always allowed."""
    causal = torch.ones(tq, tk, dtype=torch.bool).tril()  # (Tq, Tk); for Tq == Tk this is mha.causal_mask
    lengths = [tk - 2 * b for b in range(batch)]  # sequence b has 2b padded keys at the end
    padding = mha.padding_mask(lengths, max_len=tk)  # (B, 1, 1, Tk)
    return {"none": None, "causal": causal, "padding": padding, "both": mha.combine_masks(causal, padding)}[kind]


def torch_mask_kwargs(mask, batch, num_heads, tq, tk):
    """Our mask as nn.MultiheadAttention's arguments, exercising each of its mask routes."""
    if mask is None:
        return {}
    blocked = mha.to_torch_attn_mask(mask)  # True = blocked
    if blocked.dim() == 2:  # (Tq, Tk)
        return {"attn_mask": blocked}
    if blocked.shape[1:3] == (1, 1):  # (B, 1, 1, Tk): key padding
        return {"key_padding_mask": blocked[:, 0, 0, :]}
    return {"attn_mask": blocked.expand(batch, num_heads, tq, tk).reshape(batch * num_heads, tq, tk)}


def inputs(gen, batch, tq, tk, d_model, dtype):
    query = randn(gen, batch, tq, d_model, dtype=dtype)
    if tq == tk:
        return query, query, query  # self-attention: one tensor for all three
    return query, randn(gen, batch, tk, d_model, dtype=dtype), randn(gen, batch, tk, d_model, dtype=dtype)


# --- equality with torch ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("kind", MASKS)
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
@pytest.mark.parametrize("num_heads", HEADS)
def test_matches_nn_multihead_attention(gen, num_heads, shape, kind, dtype):
    batch, (tq, tk) = 2, SHAPES[shape]
    ours = make_module(D_MODEL, num_heads, dtype)
    ref = torch_twin(ours)
    query, key, value = inputs(gen, batch, tq, tk, D_MODEL, dtype)
    mask = make_mask(kind, batch, tq, tk)
    with torch.no_grad():
        trace = ours.trace(query, key, value, mask)
        expected, expected_weights = ref(
            query, key, value, need_weights=True, average_attn_weights=False,
            **torch_mask_kwargs(mask, batch, num_heads, tq, tk),
        )
    torch.testing.assert_close(trace.output, expected, **TOL[dtype])
    torch.testing.assert_close(trace.weights, expected_weights, **TOL[dtype])  # (B, H, Tq, Tk) per head


def test_matches_nn_multihead_attention_without_bias(gen):
    ours = make_module(D_MODEL, 4)
    ref = torch_twin(ours, bias=False)
    x = randn(gen, 2, 6, D_MODEL)
    with torch.no_grad():
        expected, _ = ref(x, x, x, need_weights=False)
        torch.testing.assert_close(ours(x, x, x), expected, **TOL[torch.float64])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("kind", MASKS)
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
@pytest.mark.parametrize("num_heads", HEADS)
def test_heads_match_scaled_dot_product_attention(gen, num_heads, shape, kind, dtype):
    """Per head: our head outputs are F.scaled_dot_product_attention of our own q, k, v (same mask convention)."""
    batch, (tq, tk) = 2, SHAPES[shape]
    ours = make_module(D_MODEL, num_heads, dtype)
    query, key, value = inputs(gen, batch, tq, tk, D_MODEL, dtype)
    mask = make_mask(kind, batch, tq, tk)
    with torch.no_grad():
        trace = ours.trace(query, key, value, mask)
        z = F.scaled_dot_product_attention(trace.q, trace.k, trace.v, attn_mask=mask)  # (B, H, Tq, head_dim)
        expected = ours.output_linear(ours.combine_heads(z, batch))
    torch.testing.assert_close(trace.head_outputs, z, **TOL[dtype])
    torch.testing.assert_close(trace.output, expected, **TOL[dtype])
    out, weights = mha.scaled_dot_product_attention(trace.q, trace.k, trace.v, mask)
    torch.testing.assert_close(out, z, **TOL[dtype])
    torch.testing.assert_close(weights, trace.weights, rtol=0, atol=0)


def fully_masked_case(gen, num_heads=4, batch=2, t=5):
    """A causal mask with query row 2 of sequence 1 blocked entirely."""
    mask = mha.causal_mask(t).repeat(batch, 1, 1, 1)  # (B, 1, T, T)
    mask[1, 0, 2, :] = False
    return make_module(D_MODEL, num_heads), randn(gen, batch, t, D_MODEL), mask


def test_fully_masked_rows_documented_difference_from_torch(gen):
    """Documented difference: nn.MultiheadAttention returns NaN for a query with no allowed key; we return
    weights exactly 0 and head output 0, so the row's output is output_linear.bias. Other rows are equal."""
    ours, x, mask = fully_masked_case(gen)
    ref = torch_twin(ours)
    with torch.no_grad():
        trace = ours.trace(x, x, x, mask)
        expected, expected_weights = ref(
            x, x, x, need_weights=True, average_attn_weights=False, **torch_mask_kwargs(mask, 2, 4, 5, 5)
        )
    assert torch.isnan(expected[1, 2]).all() and torch.isnan(expected_weights[1, :, 2]).all()  # torch: NaN
    assert trace.fully_masked[1, :, 2].all() and trace.fully_masked.sum() == ours.num_heads
    assert torch.isfinite(trace.output).all() and torch.isfinite(trace.weights).all()
    assert torch.equal(trace.weights[1, :, 2], torch.zeros_like(trace.weights[1, :, 2]))
    assert torch.equal(trace.head_outputs[1, :, 2], torch.zeros_like(trace.head_outputs[1, :, 2]))
    torch.testing.assert_close(trace.output[1, 2], ours.output_linear.bias, **TIGHT)
    ok = ~trace.fully_masked[:, 0, :]  # (B, Tq): rows torch computes
    torch.testing.assert_close(trace.output[ok], expected[ok], **TOL[torch.float64])
    torch.testing.assert_close(
        trace.weights.permute(0, 2, 1, 3)[ok], expected_weights.permute(0, 2, 1, 3)[ok], **TOL[torch.float64]
    )


def test_fully_masked_rows_against_scaled_dot_product_attention(gen):
    ours, x, mask = fully_masked_case(gen)
    with torch.no_grad():
        trace = ours.trace(x, x, x, mask)
        z = F.scaled_dot_product_attention(trace.q, trace.k, trace.v, attn_mask=mask)
    rows = torch.isfinite(z).all(-1)  # (B, H, Tq): skip whatever torch leaves non-finite
    assert rows[~trace.fully_masked].all()
    torch.testing.assert_close(trace.head_outputs[rows], z[rows], **TOL[torch.float64])
    assert torch.equal(trace.head_outputs[trace.fully_masked], torch.zeros_like(trace.head_outputs[trace.fully_masked]))


# --- trace -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("use_mask", [False, True], ids=["no-mask", "padding"])
def test_trace_shapes(gen, use_mask):
    batch, tq, tk, heads = 3, 4, 6, 4
    head_dim = D_MODEL // heads
    m = make_module(D_MODEL, heads)
    query, key, value = randn(gen, batch, tq, D_MODEL), randn(gen, batch, tk, D_MODEL), randn(gen, batch, tk, D_MODEL)
    mask = mha.padding_mask([6, 3, 1]) if use_mask else None
    t = m.trace(query, key, value, mask)
    assert t.q.shape == (batch, heads, tq, head_dim)
    assert t.k.shape == t.v.shape == (batch, heads, tk, head_dim)
    assert t.scores.shape == t.weights.shape == (batch, heads, tq, tk)
    assert t.head_outputs.shape == (batch, heads, tq, head_dim)
    assert t.concat.shape == t.output.shape == (batch, tq, D_MODEL)
    assert t.fully_masked.shape == (batch, heads, tq) and t.fully_masked.dtype == torch.bool
    assert t.head_mask is None
    assert (t.num_heads, t.head_dim) == (heads, head_dim)
    if use_mask:
        assert t.mask.shape == (batch, heads, tq, tk) and t.mask.dtype == torch.bool
    else:
        assert t.mask is None


def test_trace_intermediates_by_hand(gen):
    """q, k, v, scores, head outputs and concat recomputed from the weight matrices, head by head."""
    batch, tq, tk, heads = 2, 3, 5, 3
    m = make_module(D_MODEL, heads)
    hd = D_MODEL // heads
    query, key, value = randn(gen, batch, tq, D_MODEL), randn(gen, batch, tk, D_MODEL), randn(gen, batch, tk, D_MODEL)
    with torch.no_grad():
        t = m.trace(query, key, value)
        for h in range(heads):
            cols = slice(h * hd, (h + 1) * hd)  # head h owns these rows of each projection
            q = query @ m.query_linear.weight[cols].T  # (B, Tq, hd)
            k = key @ m.key_linear.weight[cols].T
            v = value @ m.value_linear.weight[cols].T
            scores = q @ k.transpose(1, 2) / math.sqrt(hd)
            torch.testing.assert_close(t.q[:, h], q, **TIGHT)
            torch.testing.assert_close(t.k[:, h], k, **TIGHT)
            torch.testing.assert_close(t.v[:, h], v, **TIGHT)
            torch.testing.assert_close(t.scores[:, h], scores, **TIGHT)
            torch.testing.assert_close(t.weights[:, h], scores.softmax(-1), **TIGHT)
            torch.testing.assert_close(t.head_outputs[:, h], scores.softmax(-1) @ v, **TIGHT)
            torch.testing.assert_close(t.concat[..., cols], t.head_outputs[:, h], **TIGHT)
        torch.testing.assert_close(t.output, t.concat @ m.output_linear.weight.T + m.output_linear.bias, **TIGHT)


def test_scores_are_before_masking(gen):
    m = make_module(D_MODEL, 4)
    x = randn(gen, 1, 5, D_MODEL)
    plain, masked = m.trace(x, x, x), m.trace(x, x, x, mha.causal_mask(5))
    assert torch.equal(plain.scores, masked.scores)
    assert not torch.equal(plain.weights, masked.weights)


@pytest.mark.parametrize("kind", MASKS)
def test_forward_is_trace_output(gen, kind):
    m = make_module(D_MODEL, 4)
    query, key, value = inputs(gen, 2, 5, 5, D_MODEL, torch.float64)
    mask = make_mask(kind, 2, 5, 5)
    assert torch.equal(m(query, key, value, mask), m.trace(query, key, value, mask).output)


def test_head_mask_all_zero_leaves_only_the_output_bias(gen):
    m = make_module(D_MODEL, 4)
    x = randn(gen, 2, 5, D_MODEL)
    t = m.trace(x, x, x, head_mask=torch.zeros(4))
    assert torch.equal(t.concat, torch.zeros_like(t.concat))
    torch.testing.assert_close(t.output, m.output_linear.bias.expand_as(t.output), **TIGHT)


@pytest.mark.parametrize("head", [0, 2])
def test_head_mask_one_head_off_removes_exactly_its_contribution(gen, head):
    heads, hd = 4, D_MODEL // 4
    m = make_module(D_MODEL, heads)
    x = randn(gen, 2, 5, D_MODEL)
    keep = torch.ones(heads)
    keep[head] = 0
    full, off = m.trace(x, x, x), m.trace(x, x, x, head_mask=keep)
    cols = slice(head * hd, (head + 1) * hd)
    contribution = full.head_outputs[:, head] @ m.output_linear.weight[:, cols].T  # (B, Tq, d_model)
    torch.testing.assert_close(off.output, full.output - contribution, **TIGHT)
    assert torch.equal(off.head_outputs, full.head_outputs)  # recorded before any head is switched off
    assert torch.equal(off.weights, full.weights)
    bool_mask = m.trace(x, x, x, head_mask=keep.bool())
    assert torch.equal(bool_mask.output, off.output)


def test_head_mask_never_changes_parameters(gen):
    m = make_module(D_MODEL, 4)
    before = {k: v.clone() for k, v in m.state_dict().items()}
    x = randn(gen, 1, 5, D_MODEL)
    m.trace(x, x, x, head_mask=torch.tensor([0.0, 1.0, 0.0, 1.0]))
    m.trace(x, x, x, head_mask=torch.zeros(4))
    after = m.state_dict()
    assert before.keys() == after.keys()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert torch.equal(m(x, x, x), m.trace(x, x, x, head_mask=torch.ones(4)).output)


# --- invariants ----------------------------------------------------------------------------------------------------


def random_bool_mask(gen, shape, p_allowed):
    return torch.rand(shape, generator=gen) < p_allowed


def assert_weight_invariants(trace):
    """Rows sum to 1, or are exactly 0 when fully masked; blocked entries exactly 0; nothing NaN."""
    for name in ("q", "k", "v", "scores", "weights", "head_outputs", "concat", "output"):
        assert torch.isfinite(getattr(trace, name)).all(), name
    sums = trace.weights.sum(-1)  # (B, H, Tq)
    torch.testing.assert_close(sums[~trace.fully_masked], torch.ones_like(sums[~trace.fully_masked]), **TIGHT)
    assert torch.equal(trace.weights[trace.fully_masked], torch.zeros_like(trace.weights[trace.fully_masked]))
    if trace.mask is not None:
        assert torch.equal(trace.fully_masked, ~trace.mask.any(-1))
        assert (trace.weights[~trace.mask] == 0).all()
    else:
        assert not trace.fully_masked.any()
    assert (trace.weights >= 0).all()


@pytest.mark.parametrize("p_allowed", [0.0, 0.2, 0.5, 0.9, 1.0])
def test_weight_invariants_with_random_masks(gen, p_allowed):
    m = make_module(D_MODEL, 4)
    query, key, value = inputs(gen, 3, 6, 7, D_MODEL, torch.float64)
    mask = random_bool_mask(gen, (3, 4, 6, 7), p_allowed)
    assert_weight_invariants(m.trace(query, key, value, mask))


def test_all_false_mask_gives_zero_weights_and_bias_output(gen):
    m = make_module(D_MODEL, 4)
    x = randn(gen, 2, 5, D_MODEL)
    t = m.trace(x, x, x, torch.zeros(5, 5, dtype=torch.bool))
    assert t.fully_masked.all()
    assert torch.equal(t.weights, torch.zeros_like(t.weights))
    torch.testing.assert_close(t.output, m.output_linear.bias.expand_as(t.output), **TIGHT)
    out, weights = mha.scaled_dot_product_attention(t.q, t.k, t.v, torch.zeros(5, 5, dtype=torch.long))
    assert torch.equal(out, torch.zeros_like(out)) and torch.equal(weights, torch.zeros_like(weights))


@pytest.mark.parametrize("dtype", [torch.bool, torch.float64, torch.float32, torch.int64, torch.uint8])
@pytest.mark.parametrize("shape", [(5, 5), (1, 1, 1, 5), (2, 4, 5, 5)])
def test_all_ones_mask_equals_no_mask(gen, dtype, shape):
    m = make_module(D_MODEL, 4)
    x = randn(gen, 2, 5, D_MODEL)
    plain = m.trace(x, x, x)
    masked = m.trace(x, x, x, torch.ones(shape, dtype=dtype))
    torch.testing.assert_close(masked.output, plain.output, **TIGHT)
    torch.testing.assert_close(masked.weights, plain.weights, **TIGHT)
    assert not masked.fully_masked.any()


def test_zero_one_mask_equals_bool_mask(gen):
    m = make_module(D_MODEL, 4)
    x = randn(gen, 2, 5, D_MODEL)
    mask = random_bool_mask(gen, (2, 1, 5, 5), 0.6)
    expected = m(x, x, x, mask)
    for dtype in (torch.float32, torch.float64, torch.int64):
        torch.testing.assert_close(m(x, x, x, mask.to(dtype)), expected, **TIGHT)


@pytest.mark.parametrize("t", [0, 2, 4])
def test_causal_later_tokens_do_not_change_earlier_outputs(gen, t):
    m = make_module(D_MODEL, 4)
    x = randn(gen, 2, 6, D_MODEL)
    changed = x.clone()
    changed[:, t + 1:] = randn(gen, 2, 6 - t - 1, D_MODEL) * 10
    causal = mha.causal_mask(6)
    before, after = m(x, x, x, causal), m(changed, changed, changed, causal)
    torch.testing.assert_close(after[:, : t + 1], before[:, : t + 1], **TIGHT)
    assert not torch.allclose(after[:, t + 1:], before[:, t + 1:])  # the test can see a change when there is one
    unmasked_before, unmasked_after = m(x, x, x), m(changed, changed, changed)
    assert not torch.allclose(unmasked_after[:, : t + 1], unmasked_before[:, : t + 1])  # the mask is what protects


def test_permuting_tokens_permutes_outputs_only_without_positions():
    tokens = mha.tokenize("the quick brown fox jumps over a lazy dog").tokens
    perm = torch.tensor([3, 0, 7, 1, 8, 2, 6, 5, 4])
    shuffled = [tokens[i] for i in perm]
    m = make_module(D_MODEL, 4)
    for positional in (False, True):
        x = mha.token_inputs(tokens, D_MODEL, positional=positional, dtype=torch.float64).unsqueeze(0)
        xp = mha.token_inputs(shuffled, D_MODEL, positional=positional, dtype=torch.float64).unsqueeze(0)
        out, out_p = m.trace(x, x, x), m.trace(xp, xp, xp)
        if not positional:  # attention alone has no notion of order: it is permutation-equivariant
            torch.testing.assert_close(out_p.output, out.output[:, perm], **TIGHT)
            torch.testing.assert_close(out_p.weights, out.weights[:, :, perm][..., perm], **TIGHT)
        else:  # positions make order matter
            assert not torch.allclose(out_p.output, out.output[:, perm], atol=1e-6)


@pytest.mark.parametrize("j", [0, 3, 6])
def test_blocked_key_equals_deleting_that_token(gen, j):
    m = make_module(D_MODEL, 4)
    query, key, value = randn(gen, 2, 4, D_MODEL), randn(gen, 2, 7, D_MODEL), randn(gen, 2, 7, D_MODEL)
    keep = [i for i in range(7) if i != j]
    mask = torch.ones(7, dtype=torch.bool)
    mask[j] = False
    masked = m.trace(query, key, value, mask)  # (Tk,) broadcasts to every query of every head
    deleted = m.trace(query, key[:, keep], value[:, keep])
    torch.testing.assert_close(masked.output, deleted.output, **TIGHT)
    torch.testing.assert_close(masked.weights[..., keep], deleted.weights, **TIGHT)
    assert (masked.weights[..., j] == 0).all()


def test_self_attention_blocked_token_equals_deleting_it(gen):
    """Self-attention, token 2 removed from the keys: the other rows match a sequence without it at all."""
    m = make_module(D_MODEL, 4)
    x = randn(gen, 1, 5, D_MODEL)
    mask = torch.ones(5, 5, dtype=torch.bool)
    mask[:, 2] = False
    rest = [0, 1, 3, 4]
    masked, deleted = m(x, x, x, mask), m(x[:, rest], x[:, rest], x[:, rest])
    torch.testing.assert_close(masked[:, rest], deleted, **TIGHT)


# --- errors ----------------------------------------------------------------------------------------------------------


def test_d_model_not_divisible_names_numbers_and_suggests_divisors():
    with pytest.raises(ValueError, match=r"d_model=10, num_heads=3") as err:
        mha.MultiHeadAttention(10, 3)
    assert "[1, 2, 5, 10]" in str(err.value)


@pytest.mark.parametrize("d_model, num_heads", [(0, 1), (8, 0), (-4, 2)])
def test_non_positive_sizes(d_model, num_heads):
    with pytest.raises(ValueError, match="must be at least 1"):
        mha.MultiHeadAttention(d_model, num_heads)


@pytest.mark.parametrize("d_model, num_heads", [(8.0, 2), (8, "2"), (True, 1)])
def test_non_integer_sizes(d_model, num_heads):
    with pytest.raises(TypeError, match="must be integers"):
        mha.MultiHeadAttention(d_model, num_heads)


def test_2d_input_hints_unsqueeze(gen):
    m = make_module(8, 2)
    x = randn(gen, 5, 8)
    with pytest.raises(ValueError, match=r"query must have shape \(batch, seq_len, d_model=8\), got \(5, 8\)") as err:
        m(x, x, x)
    assert "unsqueeze(0)" in str(err.value)
    with pytest.raises(ValueError, match=r"got \(1, 1, 5, 8\)\.$"):  # other ranks: no unsqueeze hint
        m(x[None, None], x[None, None], x[None, None])


def test_wrong_feature_size(gen):
    m = make_module(8, 2)
    x, y = randn(gen, 1, 5, 8), randn(gen, 1, 5, 7)
    with pytest.raises(ValueError, match=r"key has 7 features .* d_model is 8.*d_model=7"):
        m(x, y, x)


def test_mask_not_broadcastable(gen):
    m = make_module(8, 2)
    x = randn(gen, 2, 5, 8)
    with pytest.raises(ValueError, match=r"mask of shape \(4, 4\) does not broadcast to .*\(2, 2, 5, 5\)"):
        m(x, x, x, torch.ones(4, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"does not broadcast"):
        m(x, x, x, torch.ones(3, 1, 1, 5))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("where", ["query", "key", "value"])
def test_non_finite_inputs(gen, bad, where):
    m = make_module(8, 2)
    args = {name: randn(gen, 1, 4, 8) for name in ("query", "key", "value")}
    args[where][0, 1, 3] = bad
    with pytest.raises(ValueError, match=rf"{where} contains NaN or infinite values"):
        m(**args)


def test_huge_but_finite_inputs_are_accepted(gen):
    """The values' sum overflows, yet every value is finite: no error (the finiteness check must not guess)."""
    m = make_module(8, 2)
    with torch.no_grad():
        m.value_linear.weight.mul_(1e-10)  # keep the projected values representable
    x = randn(gen, 1, 4, 8)
    value = torch.zeros(1, 4, 8, dtype=torch.float64)
    value[0, :2, 0] = 1e308  # sum: inf
    assert torch.isinf(value.sum())
    assert torch.isfinite(m(x, x, value)).all()


def test_key_value_length_mismatch(gen):
    m = make_module(8, 2)
    q, k, v = randn(gen, 1, 4, 8), randn(gen, 1, 6, 8), randn(gen, 1, 5, 8)
    with pytest.raises(ValueError, match=r"key and value must have the same batch size and length, got \(1, 6, 8\)"):
        m(q, k, v)


def test_query_key_batch_mismatch(gen):
    m = make_module(8, 2)
    q, k = randn(gen, 2, 4, 8), randn(gen, 3, 4, 8)
    with pytest.raises(ValueError, match="query has batch size 2 but key has 3"):
        m(q, k, k)


def test_non_tensor_input(gen):
    m = make_module(8, 2)
    x = randn(gen, 1, 4, 8)
    with pytest.raises(TypeError, match="value must be a torch.Tensor, got list"):
        m(x, x, x.tolist())


@pytest.mark.parametrize("head_mask", [torch.ones(3), torch.ones(1, 2), torch.ones(())])
def test_bad_head_mask_shape(gen, head_mask):
    m = make_module(8, 2)
    x = randn(gen, 1, 4, 8)
    with pytest.raises(ValueError, match=r"head_mask must have shape \(2,\), one 0/1 per head, got"):
        m.trace(x, x, x, head_mask=head_mask)


def test_head_mask_non_finite(gen):
    m = make_module(8, 2)
    x = randn(gen, 1, 4, 8)
    with pytest.raises(ValueError, match="head_mask .*NaN or infinite"):
        m.trace(x, x, x, head_mask=torch.tensor([1.0, float("nan")]))


def test_head_mask_as_list(gen):
    m = make_module(8, 2)
    x = randn(gen, 1, 4, 8)
    t = m.trace(x, x, x, head_mask=[1, 0])
    assert torch.equal(t.output, m.trace(x, x, x, head_mask=torch.tensor([1.0, 0.0])).output)


# --- property tests --------------------------------------------------------------------------------------------------


def reference_attention(m, query, key, value, allowed):
    """Straightforward multi-head attention: loop over sequences and heads, slice the weight matrices,
    no reshape or permute. ``allowed`` (B, H, Tq, Tk) bool. Fully masked rows give weights 0."""
    batch, tq, tk, heads, hd = query.size(0), query.size(1), key.size(1), m.num_heads, m.head_dim
    weights = torch.zeros(batch, heads, tq, tk, dtype=query.dtype)
    concat = torch.zeros(batch, tq, m.d_model, dtype=query.dtype)
    for b in range(batch):
        for h in range(heads):
            rows = slice(h * hd, (h + 1) * hd)
            q = query[b] @ m.query_linear.weight[rows].T  # (Tq, hd)
            k = key[b] @ m.key_linear.weight[rows].T  # (Tk, hd)
            v = value[b] @ m.value_linear.weight[rows].T  # (Tk, hd)
            for i in range(tq):
                keys = allowed[b, h, i].nonzero().flatten()
                if len(keys) == 0:
                    continue
                s = (k[keys] @ q[i]) / math.sqrt(hd)
                e = torch.exp(s - s.max())
                weights[b, h, i, keys] = e / e.sum()
            concat[b, :, rows] = weights[b, h] @ v
    return weights, concat @ m.output_linear.weight.T + m.output_linear.bias


@st.composite
def attention_cases(draw):
    batch = draw(st.integers(1, 3))
    tq = draw(st.integers(1, 8))
    tk = draw(st.one_of(st.just(tq), st.integers(1, 8)))
    num_heads = draw(st.integers(1, 6))
    head_dim = draw(st.integers(1, 8))
    mask_shape = draw(st.sampled_from([None, (tq, tk), (tk,), (batch, 1, 1, tk), (batch, 1, tq, tk),
                                       (batch, num_heads, tq, tk)]))
    p_allowed = draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    seed = draw(st.integers(0, 2**31 - 1))
    scale = draw(st.sampled_from([0.1, 1.0, 10.0]))
    return batch, tq, tk, num_heads, head_dim, mask_shape, p_allowed, seed, scale


@settings(max_examples=50, deadline=None)
@given(attention_cases())
def test_property_invariants_and_reference(case):
    batch, tq, tk, num_heads, head_dim, mask_shape, p_allowed, seed, scale = case
    d_model = num_heads * head_dim
    g = torch.Generator().manual_seed(seed)
    m = make_module(d_model, num_heads, seed=seed)
    query = randn(g, batch, tq, d_model) * scale
    key = query if tk == tq else randn(g, batch, tk, d_model) * scale
    value = randn(g, batch, tk, d_model) * scale
    mask = None if mask_shape is None else random_bool_mask(g, mask_shape, p_allowed)
    with torch.no_grad():
        t = m.trace(query, key, value, mask)
        allowed = torch.ones(batch, num_heads, tq, tk, dtype=torch.bool) if mask is None else mask.expand_as(t.scores)
        weights, output = reference_attention(m, query, key, value, allowed)
    assert_weight_invariants(t)
    torch.testing.assert_close(t.weights, weights, rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(t.output, output, rtol=1e-10, atol=1e-10)
    assert torch.equal(m(query, key, value, mask), t.output)


# --- what PyTorch users do to a module (issue #12): the course class's numbers every time ----------------------
# Each case is run on our module and on the course's class (tests/course_mha.py) carrying the same parameters, in
# self-attention (one tensor passed three times) and cross-attention, with autograd on and off.

GRAD_MODES = {"no_grad": torch.no_grad, "grad": torch.enable_grad}


def course_twin(ours: nn.Module) -> CourseMultiHeadAttention:
    """The course's class with our parameters (loaded strictly), in our dtype."""
    twin = CourseMultiHeadAttention(ours.d_model, ours.num_heads).to(ours.output_linear.weight.dtype)
    twin.load_state_dict(ours.state_dict(), strict=True)
    return twin


def self_and_cross(gen, batch=2, t=5, d_model=D_MODEL, dtype=torch.float64):
    x = randn(gen, batch, t, d_model, dtype=dtype)
    return {"self": (x, x, x), "cross": (x, randn(gen, batch, t + 2, d_model, dtype=dtype),
                                         randn(gen, batch, t + 2, d_model, dtype=dtype))}


def _as_one_vector(m):
    """parameters_to_vector / vector_to_parameters: the parameters become views of one vector, kept on the side."""
    vec = torch.nn.utils.parameters_to_vector(m.parameters()).detach().clone()
    torch.nn.utils.vector_to_parameters(vec, m.parameters())
    m.__dict__["_test_vector"] = vec


# name: (done before the first call, the edit between the calls)
DATA_EDITS = {
    "data.mul_": (None, lambda m: m.query_linear.weight.data.mul_(2.0)),
    "data.copy_": (None, lambda m: m.key_linear.weight.data.copy_(m.value_linear.weight.data.flip(0))),
    "init.normal_(w.data)": (None, lambda m: nn.init.normal_(m.value_linear.weight.data)),
    # the vector changed in place: no parameter's own version counter moves
    "vector_to_parameters, then in place": (_as_one_vector, lambda m: m.__dict__["_test_vector"].mul_(1.5)),
    "weight = Parameter(...)": (None, lambda m: setattr(m.query_linear, "weight",
                                                        nn.Parameter(m.key_linear.weight * 3))),
}


@pytest.mark.parametrize("grad_mode", list(GRAD_MODES))
@pytest.mark.parametrize("edit", list(DATA_EDITS))
def test_weights_edited_between_calls_give_the_course_numbers(gen, edit, grad_mode):
    """1. No number of weights that are no longer there: a call, an edit the usual PyTorch ways, a call again.
    (A stacked Q/K/V weight cached on (_version, data_ptr) once missed every one of these edits.)"""
    m = make_module(D_MODEL, 4)
    x = randn(gen, 2, 5, D_MODEL)
    setup, change = DATA_EDITS[edit]
    if setup is not None:
        setup(m)
    with GRAD_MODES[grad_mode]():
        before = m(x, x, x).detach()
        with torch.no_grad():
            change(m)
        got = m(x, x, x)
        want = course_twin(m)(x, x, x)
        separate = m(x, x.clone(), x.clone())
    assert not torch.allclose(got, before)  # the edit changed the function: the test can see a stale answer
    torch.testing.assert_close(got, want, **TIGHT)
    torch.testing.assert_close(got, separate, **TIGHT)


class LoRALinear(nn.Module):
    """A LoRA-style wrapper (as peft does it): the frozen base layer plus a low-rank update B A, scaled."""

    def __init__(self, base: nn.Linear, rank: int = 2, alpha: float = 4.0, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        dtype = base.weight.dtype
        self.base = base
        self.lora_A = nn.Parameter(torch.randn(rank, base.in_features, generator=g, dtype=dtype) * 0.1)
        self.lora_B = nn.Parameter(torch.randn(base.out_features, rank, generator=g, dtype=dtype) * 0.1)
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.T @ self.lora_B.T) * self.scaling


class Symmetric(nn.Module):
    """The parametrization from PyTorch's tutorial: the weight is symmetric."""

    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


def _prune(m):
    prune.l1_unstructured(m.query_linear, "weight", amount=0.4)
    prune.ln_structured(m.value_linear, "weight", amount=0.25, n=2, dim=0)  # whole rows: some heads lose features
    return m


def _lora(m):
    m.query_linear = LoRALinear(m.query_linear, seed=1)
    m.value_linear = LoRALinear(m.value_linear, seed=2)
    return m


SURGERY = {
    "prune": _prune,
    "weight_norm": lambda m: (nn.utils.parametrizations.weight_norm(m.key_linear), m)[1],
    "orthogonal": lambda m: (nn.utils.parametrizations.orthogonal(m.value_linear), m)[1],
    "register_parametrization": lambda m: (nn.utils.parametrize.register_parametrization(
        m.query_linear, "weight", Symmetric()), m)[1],
    "LoRA wrapper": _lora,
}


@pytest.mark.parametrize("grad_mode", list(GRAD_MODES))
@pytest.mark.parametrize("attention", ["self", "cross"])
@pytest.mark.parametrize("surgery", list(SURGERY))
def test_pruned_parametrized_and_wrapped_modules_give_the_course_numbers(gen, surgery, attention, grad_mode):
    """2. The same change made to both modules (they hold the same parameters before): the same outputs, and with
    autograd on the same gradients for the inputs and for every parameter, by name."""
    ours = make_module(D_MODEL, 4)
    course = course_twin(ours)
    for module in (ours, course):
        SURGERY[surgery](module)
    course.load_state_dict(ours.state_dict(), strict=True)  # the same keys after the same surgery
    query, key, value = self_and_cross(gen)[attention]
    with GRAD_MODES[grad_mode]():
        q_ours = query.clone().requires_grad_(grad_mode == "grad")
        q_course = query.clone().requires_grad_(grad_mode == "grad")
        args_ours = (q_ours, q_ours, q_ours) if attention == "self" else (q_ours, key, value)
        args_course = (q_course, q_course, q_course) if attention == "self" else (q_course, key, value)
        got, want = ours(*args_ours), course(*args_course)
    torch.testing.assert_close(got, want, **TIGHT)
    if grad_mode == "grad":
        got.square().sum().backward()
        want.square().sum().backward()
        torch.testing.assert_close(q_ours.grad, q_course.grad, **TIGHT)
        course_params = dict(course.named_parameters())
        for name, p in ours.named_parameters():
            assert p.grad is not None and p.grad.abs().sum() > 0, name
            torch.testing.assert_close(p.grad, course_params[name].grad, **TIGHT)


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore:.*quantize_per_tensor.*:UserWarning")
@pytest.mark.parametrize("grad_mode", list(GRAD_MODES))
@pytest.mark.parametrize("attention", ["self", "cross"])
def test_quantize_dynamic_gives_the_course_numbers(gen, attention, grad_mode):
    """2. torch.ao.quantization.quantize_dynamic swaps every nn.Linear for a quantized one (no .weight Parameter).
    head_dim 4: our q / 2 and the course's scores / 2 are exact, so the int8 activations are quantized alike."""
    ours = make_module(16, 4, dtype=torch.float32)
    course = course_twin(ours)
    quantize = torch.ao.quantization.quantize_dynamic
    q_ours, q_course = quantize(ours, {nn.Linear}, dtype=torch.qint8), quantize(course, {nn.Linear}, dtype=torch.qint8)
    assert not isinstance(q_ours.query_linear, nn.Linear)  # really swapped
    query, key, value = self_and_cross(gen, d_model=16, dtype=torch.float32)[attention]
    with GRAD_MODES[grad_mode]():
        got, want = q_ours(query, key, value), q_course(query, key, value)
    torch.testing.assert_close(got, want, **TOL[torch.float32])
    with torch.no_grad():  # and it is still attention: close to the float module (8-bit weights)
        torch.testing.assert_close(got, ours(query, key, value), rtol=0.05, atol=0.05)


@pytest.mark.parametrize("grad_mode", list(GRAD_MODES))
@pytest.mark.parametrize("kind", MASKS)
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_an_empty_batch_gives_an_empty_output(gen, shape, kind, grad_mode):
    """3. B = 0 gives shape (0, Tq, d_model), like nn.MultiheadAttention (the course's combine_heads, whose -1 has
    nothing to be inferred from, raises)."""
    tq, tk = SHAPES[shape]
    ours = make_module(D_MODEL, 4)
    query, key, value = inputs(gen, 0, tq, tk, D_MODEL, torch.float64)
    mask = make_mask(kind, 0, tq, tk)
    ref = torch_twin(ours)
    with GRAD_MODES[grad_mode]():
        params = [p for p in ours.parameters()]
        t = ours.trace(query, key, value, mask)
        # (torch's own slow path cannot reshape an empty batch with a key_padding_mask: compare unmasked shapes)
        expected, _ = ref(query, key, value, need_weights=False)
    assert t.output.shape == expected.shape == (0, tq, D_MODEL)
    assert t.weights.shape == (0, 4, tq, tk) and t.q.shape == (0, 4, tq, D_MODEL // 4)
    if grad_mode == "grad":
        t.output.sum().backward()
        assert all(torch.equal(p.grad, torch.zeros_like(p)) for p in params)
    with pytest.raises(RuntimeError):  # what the course's class does: why this test exists
        course_twin(ours)(query, key, value)


def _per_sample(module):
    """module on one sequence (T, d_model): the (1, T, d_model) batch the course's class expects."""
    return lambda x, mask=None: module(x[None], x[None], x[None], mask)[0]


@pytest.mark.parametrize("mask_kind", ["none", "causal"])
def test_vmap_gives_the_course_numbers(gen, mask_kind):
    """4. torch.func.vmap over a batch of sequences: the module on the whole batch, and the course's class under vmap.
    The value checks (NaN, overflow, additive masks) need .item() and are skipped inside transforms."""
    ours = make_module(D_MODEL, 4)
    course = course_twin(ours)
    x = randn(gen, 3, 6, D_MODEL)
    mask = mha.causal_mask(6) if mask_kind == "causal" else None
    got = torch.func.vmap(_per_sample(ours), in_dims=(0, None))(x, mask)
    want = torch.func.vmap(_per_sample(course), in_dims=(0, None))(x, mask)
    torch.testing.assert_close(got, want, **TIGHT)
    torch.testing.assert_close(got, ours(x, x, x, mask), **TIGHT)
    # nested one level more: vmap over a batch of batches, query and key/value of different lengths
    kv = randn(gen, 2, 3, 7, D_MODEL)
    q = randn(gen, 2, 3, 4, D_MODEL)
    torch.testing.assert_close(torch.func.vmap(ours)(q, kv, kv), torch.func.vmap(course)(q, kv, kv), **TIGHT)


def test_per_sample_gradients_with_vmap_grad_functional_call(gen):
    """4. vmap(grad(functional_call(...))), the per-sample gradient recipe of torch.func's tutorial: the course's
    class's gradients, and each one equal to an ordinary backward on that sample alone."""
    ours = make_module(D_MODEL, 4)
    course = course_twin(ours)
    x = randn(gen, 3, 5, D_MODEL)
    mask = mha.causal_mask(5)

    def loss(module):
        def per_sample(params, xi):
            xi = xi[None]  # (1, T, d_model)
            return torch.func.functional_call(module, params, (xi, xi, xi, mask)).square().sum()
        return per_sample

    params = {k: v.detach() for k, v in ours.named_parameters()}
    grads = torch.func.vmap(torch.func.grad(loss(ours)), in_dims=(None, 0))(params, x)
    course_grads = torch.func.vmap(torch.func.grad(loss(course)), in_dims=(None, 0))(params, x)
    for name in params:
        assert grads[name].shape == (3, *params[name].shape)
        torch.testing.assert_close(grads[name], course_grads[name], **TIGHT)
    for i in range(3):
        ours.zero_grad()
        ours(x[i:i + 1], x[i:i + 1], x[i:i + 1], mask).square().sum().backward()
        for name, p in ours.named_parameters():
            torch.testing.assert_close(grads[name][i], p.grad, **TIGHT)


def test_value_checks_are_skipped_only_for_what_vmap_batches(gen):
    """The checks vmap cannot run are skipped only for batched tensors: outside vmap (and under grad alone) a NaN input
    still gets its clear error, and inside vmap a mask the function captured (not batched) is still checked."""
    m = make_module(8, 2)
    x = randn(gen, 2, 4, 8)
    x[1, 2, 3] = float("nan")
    with pytest.raises(ValueError, match="query contains NaN"):
        m(x, x, x)
    with pytest.raises(ValueError, match="query contains NaN"):  # grad alone: values are readable
        torch.func.grad(lambda xi: _per_sample(m)(xi).sum())(x[1])
    out = torch.func.vmap(_per_sample(m))(x)  # batched: no error; the NaN stays in its own sample
    assert torch.isnan(out[1]).any() and torch.isfinite(out[0]).all()
    additive = additive_causal(4)
    with pytest.raises(ValueError, match="additive"):
        torch.func.vmap(lambda xi: _per_sample(m)(xi, additive))(x[:1])
    allowed = torch.func.vmap(lambda xi: _per_sample(m)(xi, mha.core.masks.from_additive_mask(additive)))(x[:1])
    torch.testing.assert_close(allowed, m(x[:1], x[:1], x[:1], mha.causal_mask(4)), **TIGHT)


def additive_causal(t, dtype=torch.float64, blocked=float("-inf")):
    """nn.MultiheadAttention's float attn_mask for causal attention: 0 = attend, -inf (or very negative) = blocked."""
    return torch.zeros(t, t, dtype=dtype).masked_fill(~mha.causal_mask(t), blocked)


@pytest.mark.parametrize("blocked", [float("-inf"), -1e9, -10000.0], ids=["-inf", "-1e9", "-1e4"])
def test_an_additive_float_mask_is_refused_with_both_conventions_and_the_converter(gen, blocked):
    """5. Read the course's way (nonzero = attend), 0 / -inf would be inverted silently: refused, and the converter it
    names gives the numbers nn.MultiheadAttention gives for that additive mask."""
    m = make_module(D_MODEL, 4)
    x = randn(gen, 2, 5, D_MODEL)
    additive = additive_causal(5, blocked=blocked)
    for call in (lambda: m(x, x, x, additive), lambda: mha.attention_steps(x, x, x, additive),
                 lambda: mha.combine_masks(additive), lambda: mha.to_torch_attn_mask(additive)):
        with pytest.raises(ValueError) as err:
            call()
        message = str(err.value)
        assert "additive" in message and "True / 1 = may attend" in message and "0 = attend, -inf = blocked" in message
        assert "mha.core.masks.from_additive_mask(mask)" in message
    allowed = mha.core.masks.from_additive_mask(additive)
    assert allowed.dtype == torch.bool and torch.equal(allowed, mha.causal_mask(5))
    with torch.no_grad():
        expected, _ = torch_twin(m)(x, x, x, attn_mask=additive, need_weights=False)
        torch.testing.assert_close(m(x, x, x, allowed), expected, **TOL[torch.float64])
        torch.testing.assert_close(m(x, x, x, allowed), course_twin(m)(x, x, x, allowed), **TIGHT)


def test_float_masks_of_zeros_and_ones_still_read_the_courses_way(gen):
    m = make_module(D_MODEL, 4)
    x = randn(gen, 1, 5, D_MODEL)
    causal = mha.causal_mask(5)
    with torch.no_grad():
        for mask in (causal.double(), causal.float(), causal.double() * 0.5):  # nonzero = may attend
            torch.testing.assert_close(m(x, x, x, mask), course_twin(m)(x, x, x, causal), **TIGHT)


def test_a_float_mask_of_zeros_only_is_refused_as_an_additive_mask_that_blocks_nothing(gen):
    """Additive, all zeros = nothing blocked; read the course's way it would block every key: refused. A bool mask of
    False still blocks everything on purpose."""
    m = make_module(8, 2)
    x = randn(gen, 1, 3, 8)
    with pytest.raises(ValueError, match=r"float mask of zeros only.*from_additive_mask\(mask\), or pass mask=None"):
        m(x, x, x, torch.zeros(3, 3))
    nothing_blocked = mha.core.masks.from_additive_mask(torch.zeros(3, 3))
    torch.testing.assert_close(m(x, x, x, nothing_blocked), m(x, x, x), **TIGHT)
    assert m.trace(x, x, x, torch.zeros(3, 3, dtype=torch.bool)).fully_masked.all()


def test_a_nan_mask_is_refused(gen):
    m = make_module(8, 2)
    x = randn(gen, 1, 3, 8)
    with pytest.raises(ValueError, match="mask contains NaN: use True / 1"):
        m(x, x, x, torch.tensor([1.0, float("nan"), 1.0]))


@pytest.mark.parametrize("mask, error, match", [
    (torch.tensor([0.0, -0.5]), ValueError, r"1 entries are neither, e.g. \[-0.5\].*biases"),
    (torch.tensor([0.0, 2.0]), ValueError, r"neither, e.g. \[2.0\]"),
    (torch.tensor([True, False]), TypeError, "from_torch_attn_mask"),
    (torch.tensor([0, 1]), TypeError, "float tensor"),
])
def test_from_additive_mask_refuses_what_a_yes_no_mask_cannot_hold(mask, error, match):
    with pytest.raises(error, match=match):
        mha.core.masks.from_additive_mask(mask)
    assert mha.core.masks.from_additive_mask(None) is None
    big = torch.tensor([0.0, torch.finfo(torch.float32).min])  # Hugging Face's "blocked"
    assert mha.core.masks.from_additive_mask(big).tolist() == [True, False]


# --- qkv_bias: the keyword-only opt-in for pretrained layers -------------------------------------------------------

COURSE_KEYS = {"query_linear.weight", "key_linear.weight", "value_linear.weight", "output_linear.weight",
               "output_linear.bias"}


def test_by_default_the_state_dict_is_the_courses_and_loads_strictly_both_ways():
    ours = make_module(D_MODEL, 4)
    assert set(ours.state_dict()) == COURSE_KEYS
    course = course_twin(ours)  # strict
    fresh = mha.MultiHeadAttention(D_MODEL, 4).double()
    fresh.load_state_dict(course.state_dict(), strict=True)
    assert all(torch.equal(v, fresh.state_dict()[k]) for k, v in ours.state_dict().items())


def test_qkv_bias_is_keyword_only_and_adds_three_biases():
    with pytest.raises(TypeError):
        mha.MultiHeadAttention(8, 2, True)  # positional: refused, so (d_model, num_heads) stays the course's
    m = mha.MultiHeadAttention(8, 2, qkv_bias=True)
    assert set(m.state_dict()) == COURSE_KEYS | {"query_linear.bias", "key_linear.bias", "value_linear.bias"}
    with pytest.raises(RuntimeError, match="Missing key"):
        m.load_state_dict(CourseMultiHeadAttention(8, 2).state_dict(), strict=True)


@pytest.mark.parametrize("grad_mode", list(GRAD_MODES))
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_qkv_bias_matches_nn_multihead_attention_with_its_in_proj_bias(gen, shape, grad_mode):
    batch, (tq, tk) = 2, SHAPES[shape]
    ref = nn.MultiheadAttention(D_MODEL, 4, batch_first=True, dtype=torch.float64).eval()
    with torch.no_grad():
        ref.in_proj_bias.normal_(generator=gen)  # torch starts it at 0: make it matter
        ref.out_proj.bias.normal_(generator=gen)
    ours = mha.MultiHeadAttention(D_MODEL, 4, qkv_bias=True).double()
    d = D_MODEL
    with torch.no_grad():
        for i, lin in enumerate((ours.query_linear, ours.key_linear, ours.value_linear)):
            lin.weight.copy_(ref.in_proj_weight[i * d:(i + 1) * d])
            lin.bias.copy_(ref.in_proj_bias[i * d:(i + 1) * d])
        ours.output_linear.load_state_dict(ref.out_proj.state_dict())
    query, key, value = inputs(gen, batch, tq, tk, D_MODEL, torch.float64)
    mask = make_mask("both", batch, tq, tk)
    with GRAD_MODES[grad_mode]():
        got = ours(query, key, value, mask)
        expected, _ = ref(query, key, value, need_weights=False, **torch_mask_kwargs(mask, batch, 4, tq, tk))
    torch.testing.assert_close(got, expected, **TOL[torch.float64])
    without = ours.query_linear.bias.detach().abs().sum()
    assert without > 0  # the biases were in play


# --- finite inputs whose products overflow -----------------------------------------------------------------------
@pytest.mark.parametrize("scale", [1e20, 1e30])
def test_inputs_too_large_for_float32_raise_a_clear_error(gen, scale):
    m = make_module(8, 2, dtype=torch.float32)
    x = randn(gen, 1, 4, 8, dtype=torch.float32) * scale
    assert torch.isfinite(x).all()
    with pytest.raises(ValueError, match=r"overflowed torch\.float32.*Scale them down, or run in torch\.float64"):
        m(x, x, x)
    m.double()
    assert torch.isfinite(m(x.double(), x.double(), x.double())).all()  # the fix the message names works


def test_weights_too_large_raise_the_same_error(gen):
    m = make_module(8, 2, dtype=torch.float32)
    with torch.no_grad():
        m.value_linear.weight.mul_(1e37)
    x = randn(gen, 1, 4, 8, dtype=torch.float32) * 100
    with pytest.raises(ValueError, match="the value projection overflowed"):
        m.trace(x, x, x)
