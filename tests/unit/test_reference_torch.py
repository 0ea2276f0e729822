"""Our module against references built the way PyTorch's own tests build theirs (a port, re-written for this module).

PyTorch checks ``nn.MultiheadAttention`` in test/nn/test_multihead_attention.py with ``_multihead_attn_test_helper``:
random sizes, a float64 NumPy reference made of small helpers (``_fc``, ``_split_heads_ref``,
``_scaled_dot_attn_ref``, ``_combine_heads_ref``), ``in_proj_weight`` / ``in_proj_bias`` sliced into the three
projections, an additive ``attn_mask`` (0 / -inf) and a ``key_padding_mask`` (True = padding). Here the same
recipe drives *our* module: the three slices become ``query_linear`` / ``key_linear`` / ``value_linear``
(``qkv_bias=True`` for ``in_proj_bias``; the course's bias-free layout for ``bias=False``), the masks are converted
with ``mha.core.masks`` (``from_additive_mask``, ``from_torch_attn_mask``), and our output and per-head weights are
compared with the NumPy reference and with ``F.multi_head_attention_forward`` itself. test/test_transformers.py's
``sdp_ref`` (additive mask through ``baddbmm``) checks ``attention_steps`` the same way.

Where every key of a query is blocked, PyTorch's reference gives NaN and ours weights 0 (docs/module.md, "By design"):
those rows are compared with what ours promises instead.
"""
import math
import random
import zlib

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import mha
from mha.core.masks import from_additive_mask, from_torch_attn_mask

CASES = 25  # random cases per configuration (PyTorch runs 100 per configuration; 32 configurations here)
TOL = dict(rtol=1e-10, atol=1e-10)
GRAD_MODES = {"no_grad": torch.no_grad, "grad": torch.enable_grad}


# --- the reference, helper by helper (float64 NumPy) -------------------------------------------------------------


def _fc(x, weight, bias):
    """x @ Wᵀ + b, as nn.Linear (bias None = no bias)."""
    out = x @ weight.detach().numpy().T
    return out if bias is None else out + bias.detach().numpy()


def _split_heads_ref(x, nheads, d_head):
    """(B, T, d_model) -> (B, H, T, d_head)."""
    batch, length = x.shape[:2]
    return x.reshape(batch, length, nheads, d_head).transpose(0, 2, 1, 3)


def _combine_heads_ref(x):
    """(B, H, T, d_head) -> (B, T, H * d_head)."""
    batch, nheads, length, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(batch, length, nheads * d_head)


def _softmax(x):
    """Row softmax with the maximum subtracted; a row of -inf only gives NaN, as in PyTorch's helper."""
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def _scaled_dot_attn_ref(q, k, v, unseen_mask=None, key_padding_mask=None):
    """(head outputs (B, H, Tq, d_head), weights (B, H, Tq, Tk)). ``unseen_mask`` (Tq or 1, Tk): 0 = unseen;
    ``key_padding_mask`` (B, Tk): True = padding. Both set the score to -inf."""
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])  # (B, H, Tq, Tk)
    if unseen_mask is not None:
        scores = np.where(unseen_mask[None, None] == 0, -np.inf, scores)
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, None, :], -np.inf, scores)
    weights = _softmax(scores)
    return weights @ v, weights


# --- one random case -------------------------------------------------------------------------------------------------


def _case(rng: random.Random, nrng: np.random.Generator, *, self_attention: bool, key_padding: bool):
    """Sizes as in PyTorch's helper: batch and length 2..10, d_head 3..10, an even number of heads 4..10.
    Its own case is one decoder step attending to a source (Tq = 1, key is value); the self-attention case runs a
    whole sequence with a (T, T) mask."""
    batch, length = rng.randint(2, 10), rng.randint(2, 10)
    d_head, nheads = rng.randint(3, 10), rng.randint(2, 5) * 2
    d_model = d_head * nheads
    source = nrng.random((batch, length, d_model))
    query = source if self_attention else nrng.random((batch, 1, d_model))
    tq = length if self_attention else 1
    unseen = nrng.integers(0, 2, size=(tq, length))  # 1 = seen, may leave a query with no key: see the module doc
    if rng.random() < 0.2:
        unseen[-1] = 0  # and sometimes surely does: the last query sees no key
    padding = None
    if key_padding:
        padding = np.repeat(nrng.integers(0, 2, (1, length)), batch, axis=0) == 1  # True = padding
    return dict(batch=batch, length=length, tq=tq, d_head=d_head, nheads=nheads, d_model=d_model, query=query,
                source=source, unseen=unseen, padding=padding)


def _torch_module(d_model, nheads, bias, gen):
    ref = nn.MultiheadAttention(d_model, nheads, bias=bias, dtype=torch.float64)
    if bias:
        with torch.no_grad():  # torch starts in_proj_bias and out_proj.bias at 0: make them matter
            ref.in_proj_bias.normal_(generator=gen)
            ref.out_proj.bias.normal_(generator=gen)
    return ref.eval()


def _ours_from(ref: nn.MultiheadAttention, bias: bool) -> mha.MultiHeadAttention:
    """in_proj_weight (and in_proj_bias) split into query_linear, key_linear, value_linear, as the helper slices it."""
    d = ref.embed_dim
    ours = mha.MultiHeadAttention(d, ref.num_heads, qkv_bias=bias).double()
    with torch.no_grad():
        for i, lin in enumerate((ours.query_linear, ours.key_linear, ours.value_linear)):
            lin.weight.copy_(ref.in_proj_weight[i * d:(i + 1) * d])
            if bias:
                lin.bias.copy_(ref.in_proj_bias[i * d:(i + 1) * d])
        ours.output_linear.weight.copy_(ref.out_proj.weight)
        if bias:
            ours.output_linear.bias.copy_(ref.out_proj.bias)
        else:  # nn.MultiheadAttention(bias=False) drops out_proj's bias too
            ours.output_linear.bias.zero_()
    return ours


@pytest.mark.parametrize("grad_mode", list(GRAD_MODES))
@pytest.mark.parametrize("average_attn_weights", [True, False], ids=["averaged", "per-head"])
@pytest.mark.parametrize("bias", [True, False], ids=["in_proj_bias", "no-bias"])
@pytest.mark.parametrize("key_padding", [False, True], ids=["attn_mask", "attn_mask+key_padding"])
@pytest.mark.parametrize("self_attention", [False, True], ids=["decoder-step", "self"])
def test_multihead_attn_helper_cases(self_attention, key_padding, bias, average_attn_weights, grad_mode):
    seed = zlib.crc32(repr((self_attention, key_padding, bias, average_attn_weights, grad_mode)).encode())
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    fully_masked_seen = 0
    for _ in range(CASES):
        c = _case(rng, nrng, self_attention=self_attention, key_padding=key_padding)
        ref = _torch_module(c["d_model"], c["nheads"], bias, gen)
        ours = _ours_from(ref, bias)
        query, source = torch.from_numpy(c["query"]), torch.from_numpy(c["source"])
        # torch's masks as the helper builds them: additive float attn_mask, bool key_padding_mask (True = padding)
        attn_mask = torch.zeros(c["tq"], c["length"], dtype=torch.float64).masked_fill(
            torch.from_numpy(c["unseen"] == 0), float("-inf"))
        padding = None if c["padding"] is None else torch.from_numpy(c["padding"])
        # ... converted to ours (True = may attend): (Tq, Tk) and (B, 1, 1, Tk), combined
        ours_mask = mha.combine_masks(
            from_additive_mask(attn_mask), None if padding is None else from_torch_attn_mask(padding)[:, None, None, :])

        with GRAD_MODES[grad_mode]():
            key = query if self_attention else source  # self-attention: one tensor three times
            trace = ours.trace(query, key, source, ours_mask)
            result, result_weight = F.multi_head_attention_forward(
                query.transpose(0, 1), key.transpose(0, 1), source.transpose(0, 1), c["d_model"], c["nheads"],
                ref.in_proj_weight, ref.in_proj_bias, None, None, False, 0.0, ref.out_proj.weight, ref.out_proj.bias,
                training=False, key_padding_mask=padding, need_weights=True, attn_mask=attn_mask,
                average_attn_weights=average_attn_weights,
            )
        result = result.transpose(0, 1)  # (B, Tq, d_model)

        # the NumPy reference, helper by helper, from the sliced in_proj weights
        d = c["d_model"]
        b = (lambda i, ref=ref, d=d: ref.in_proj_bias[i * d:(i + 1) * d]) if bias else (lambda i: None)
        q = _split_heads_ref(_fc(c["query"], ref.in_proj_weight[:d], b(0)), c["nheads"], c["d_head"])
        k = _split_heads_ref(_fc(c["source"], ref.in_proj_weight[d:2 * d], b(1)), c["nheads"], c["d_head"])
        v = _split_heads_ref(_fc(c["source"], ref.in_proj_weight[2 * d:], b(2)), c["nheads"], c["d_head"])
        heads, weights = _scaled_dot_attn_ref(q, k, v, unseen_mask=c["unseen"], key_padding_mask=c["padding"])
        reference = _fc(_combine_heads_ref(heads), ref.out_proj.weight, ref.out_proj.bias)  # (B, Tq, d_model)

        ok = np.isfinite(weights).all(axis=-1)  # (B, H, Tq): rows with a key to attend to
        assert np.array_equal(~ok, trace.fully_masked.numpy())  # ours names exactly the rows torch leaves NaN
        rows = torch.from_numpy(ok[:, 0])  # (B, Tq): every head shares the mask here
        got_w = trace.weights.detach()
        torch.testing.assert_close(got_w[torch.from_numpy(ok)], torch.from_numpy(weights[ok]), **TOL)
        torch.testing.assert_close(trace.output.detach()[rows], torch.from_numpy(reference)[rows], **TOL)
        torch.testing.assert_close(trace.output.detach()[rows], result.detach()[rows], **TOL)
        torch_w = result_weight.detach()  # (B, Tq, Tk) averaged over heads, or (B, H, Tq, Tk)
        ours_w = got_w.mean(1) if average_attn_weights else got_w
        keep = rows if average_attn_weights else torch.from_numpy(ok)
        torch.testing.assert_close(ours_w[keep], torch_w[keep], **TOL)
        # a query with no key: weights exactly 0, output the output projection's bias (torch: NaN)
        blocked = ~rows
        fully_masked_seen += int(blocked.sum())
        assert torch.equal(got_w[~torch.from_numpy(ok)], torch.zeros_like(got_w[~torch.from_numpy(ok)]))
        assert torch.isnan(result.detach()[blocked]).all()
        torch.testing.assert_close(trace.output.detach()[blocked],
                                   ours.output_linear.bias.detach().expand(int(blocked.sum()), d), **TOL)
        if grad_mode == "grad":  # gradients flow and are finite even through fully masked rows
            trace.output.square().sum().backward()
            assert all(torch.isfinite(p.grad).all() for p in ours.parameters())
    assert fully_masked_seen > 0  # the random masks did reach the case where the conventions differ


# --- test_transformers.py's sdp_ref: an additive mask through baddbmm --------------------------------------------


def sdp_ref(q, k, v, attn_mask=None):
    """(B*H, Tq, d) reference: q scaled by 1/sqrt(d), scores = attn_mask + q kᵀ (baddbmm), softmax, @ v."""
    q = q / math.sqrt(q.size(-1))
    attn = torch.bmm(q, k.transpose(-2, -1)) if attn_mask is None else torch.baddbmm(attn_mask, q, k.transpose(-2, -1))
    return torch.bmm(F.softmax(attn, dim=-1), v)


@pytest.mark.parametrize("blocked", [float("-inf"), -1e9], ids=["-inf", "-1e9"])
@pytest.mark.parametrize("seed", range(20))
def test_attention_steps_match_sdp_ref_with_a_converted_additive_mask(seed, blocked):
    g = torch.Generator().manual_seed(seed)
    batch_heads, tq, tk, d = (int(torch.randint(lo, hi, (), generator=g)) for lo, hi in ((1, 9), (1, 9), (1, 9),
                                                                                            (1, 17)))
    q, k, v = (torch.randn(batch_heads, t, d, generator=g, dtype=torch.float64) for t in (tq, tk, tk))
    allowed = torch.rand(batch_heads, tq, tk, generator=g) < 0.6
    allowed[..., 0] = True  # sdp_ref has no answer for a query with no key
    additive = torch.zeros(batch_heads, tq, tk, dtype=torch.float64).masked_fill(~allowed, blocked)
    with pytest.raises(ValueError, match="additive"):  # read the course's way it would be inverted (or, with nothing
        mha.attention_steps(q, k, v, additive)  # blocked, all zeros: block everything): refused
    steps = mha.attention_steps(q, k, v, from_additive_mask(additive))
    torch.testing.assert_close(steps.output, sdp_ref(q, k, v, additive), **TOL)
    torch.testing.assert_close(steps.output, F.scaled_dot_product_attention(q, k, v, attn_mask=allowed), **TOL)
