"""mha.core.masks: one convention (True / 1 = may attend), checked entry by entry and against torch's conventions."""
import re

import pytest
import torch
import torch.nn.functional as F

import mha
from mha.core.masks import as_allowed


@pytest.mark.parametrize("t", [1, 2, 5])
def test_causal_mask(t):
    m = mha.causal_mask(t)
    assert m.shape == (t, t) and m.dtype == torch.bool
    for i in range(t):
        for j in range(t):
            assert bool(m[i, j]) == (j <= i)


def test_causal_mask_matches_torch_is_causal(gen):
    q, k, v = (torch.randn(2, 3, 6, 4, generator=gen, dtype=torch.float64) for _ in range(3))
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out, _ = mha.scaled_dot_product_attention(q, k, v, mha.causal_mask(6))
    torch.testing.assert_close(out, expected, rtol=1e-10, atol=1e-10)


def test_padding_mask():
    lengths = [4, 1, 0, 2]
    m = mha.padding_mask(lengths)
    assert m.shape == (4, 1, 1, 4) and m.dtype == torch.bool
    for b, n in enumerate(lengths):
        assert m[b, 0, 0].tolist() == [j < n for j in range(4)]


def test_padding_mask_max_len():
    m = mha.padding_mask([2, 3], max_len=6)
    assert m.shape == (2, 1, 1, 6)
    assert m[:, 0, 0].sum(-1).tolist() == [2, 3]


@pytest.mark.parametrize("lengths, max_len, match", [
    ([3, -1], None, r"non-negative integers, one per sequence, got \[3, -1\]"),
    ([3, 7], 5, r"a length in \[3, 7\] exceeds max_len=5"),
])
def test_padding_mask_errors(lengths, max_len, match):
    with pytest.raises(ValueError, match=match):
        mha.padding_mask(lengths, max_len=max_len)


def test_combine_masks_is_and_and_ignores_none(gen):
    a = torch.rand(2, 1, 5, 5, generator=gen) < 0.5
    b = torch.rand(5, 5, generator=gen) < 0.5
    assert torch.equal(mha.combine_masks(a, None, b), a & b)
    assert torch.equal(mha.combine_masks(None, b.float()), b)  # 0/1 becomes bool
    assert torch.equal(mha.combine_masks(a), a)
    assert mha.combine_masks() is None and mha.combine_masks(None, None) is None


def test_combined_causal_and_padding():
    m = mha.combine_masks(mha.causal_mask(4), mha.padding_mask([4, 2]))  # (B, 1, Tq, Tk)
    assert m.shape == (2, 1, 4, 4)
    for b, n in enumerate([4, 2]):
        for i in range(4):
            assert m[b, 0, i].tolist() == [j <= i and j < n for j in range(4)]


@pytest.mark.parametrize("dtype", [torch.bool, torch.float32, torch.int64])
def test_to_torch_attn_mask_flips_convention(gen, dtype):
    allowed = torch.rand(3, 4, generator=gen) < 0.5
    blocked = mha.to_torch_attn_mask(allowed.to(dtype))
    assert blocked.dtype == torch.bool
    assert torch.equal(blocked, ~allowed)
    assert torch.equal(mha.from_torch_attn_mask(blocked), allowed)
    assert mha.to_torch_attn_mask(None) is None and mha.from_torch_attn_mask(None) is None


def test_torch_convention_really_is_opposite(gen):
    """Why to_torch_attn_mask exists: F.scaled_dot_product_attention takes our mask as is, nn.MultiheadAttention
    takes the flipped one (test_attention checks the full module against it)."""
    q, k, v = (torch.randn(1, 1, 4, 3, generator=gen, dtype=torch.float64) for _ in range(3))
    allowed = mha.causal_mask(4)
    ours, weights = mha.scaled_dot_product_attention(q, k, v, allowed)
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=allowed), ours)
    flipped = F.scaled_dot_product_attention(q, k, v, attn_mask=mha.to_torch_attn_mask(allowed))
    assert not torch.allclose(flipped, ours)
    attn = torch.nn.MultiheadAttention(3, 1, batch_first=True, dtype=torch.float64)
    x = q[0]
    _, torch_weights = attn(x, x, x, attn_mask=mha.to_torch_attn_mask(allowed))
    assert torch.equal(torch_weights[0] == 0, ~allowed)  # blocked exactly where ours is blocked
    assert torch.equal(weights[0, 0] == 0, ~allowed)


@pytest.mark.parametrize("shape", [(4, 5), (5,), (2, 1, 1, 5), (2, 1, 4, 5), (2, 3, 4, 5), (1, 1, 1, 1)])
def test_as_allowed_broadcasts(gen, shape):
    mask = torch.rand(shape, generator=gen) < 0.5
    out = as_allowed(mask, torch.Size([2, 3, 4, 5]))
    assert out.shape == (2, 3, 4, 5) and out.dtype == torch.bool
    assert torch.equal(out, mask.expand(2, 3, 4, 5))


def test_as_allowed_accepts_lists_and_zero_one():
    out = as_allowed([[1, 0], [0, 1]], torch.Size([1, 1, 2, 2]))
    assert out[0, 0].tolist() == [[True, False], [False, True]]
    assert as_allowed(None, torch.Size([1, 1, 2, 2])) is None


@pytest.mark.parametrize("shape", [(4, 4), (3, 1, 1, 5), (2, 3, 4, 5, 1), (6,)])
def test_as_allowed_error_names_shapes_and_fixes(shape):
    with pytest.raises(ValueError, match=re.escape(f"mask of shape {tuple(shape)}")) as err:
        as_allowed(torch.ones(shape, dtype=torch.bool), torch.Size([2, 3, 4, 5]))
    message = str(err.value)
    assert "(2, 3, 4, 5)" in message and "(B, 1, 1, Tk)" in message


@pytest.mark.parametrize("shape", [(5, 7), (2, 1, 1, 7), (2, 1, 5, 7), (1, 3, 5, 7), (7,), (2, 3, 5, 7)])
def test_compact_view_is_the_mask_before_broadcasting(shape):
    from mha.core.masks import compact_view

    mask = torch.rand(shape, generator=torch.Generator().manual_seed(0)) > 0.3
    full = as_allowed(mask, torch.Size([2, 3, 5, 7]))
    small = compact_view(full)
    assert small.numel() <= mask.numel() and small.dim() == full.dim()
    assert torch.equal(small.expand(full.shape), full)  # same values once broadcast again


def test_attention_with_a_broadcast_mask_equals_the_materialised_one():
    from mha.core.attention import attention_steps

    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 3, 5, 4, generator=g, dtype=torch.float64) for _ in range(3))
    for mask in (torch.ones(5, 5, dtype=torch.bool).tril(), torch.tensor([1, 1, 0, 0, 0]).bool()[None, None, None],
                 torch.zeros(2, 1, 1, 5, dtype=torch.bool)):
        a = attention_steps(q, k, v, mask)
        b = attention_steps(q, k, v, mask.expand(2, 3, 5, 5).contiguous())  # no stride-0 dimension to compact
        for name in ("weights", "output", "fully_masked", "allowed"):
            assert torch.equal(getattr(a, name), getattr(b, name)), name
        assert not a.weights.isnan().any()
