"""Attention masks. One convention everywhere in this project, the course's:

    True / 1 = this query may attend to this key;  False / 0 = blocked.

It is the convention of the course (``scores.masked_fill(mask == 0, -inf)``) and of
``torch.nn.functional.scaled_dot_product_attention``. ``torch.nn.MultiheadAttention`` uses the OPPOSITE one
(True = blocked, for both ``attn_mask`` and ``key_padding_mask``), and its float ``attn_mask`` is *added* to the
scores (0 = attend, -inf = blocked). This module is the only place that converts: ``to_torch_attn_mask`` /
``from_torch_attn_mask`` for bool masks, ``from_additive_mask`` for additive ones. A float mask is read the course's
way (nonzero = may attend), so an additive one would be silently inverted: a float mask holding -inf, negative values
or NaN, or only zeros (an additive mask that blocks nothing), is refused (``as_bool``) with a message naming both
conventions and the converter.
"""
from __future__ import annotations

from typing import Optional, Sequence

import torch
import torch._C._functorch as _functorch


def values_readable(*tensors: torch.Tensor) -> bool:
    """Can Python read these tensors' values (``.item()``, ``if t.any():``)? Not where torch.func.vmap batches one
    (also inside grad under vmap: per-sample gradients): vmap refuses ``.item()``, each sample would need its own
    answer. Checks of values (NaN, overflow, additive masks) are skipped for those tensors only; shapes are always
    checked, and a plain tensor (a mask captured by the function vmap runs) is still checked inside vmap.

    functorch wraps a tensor once per transform level (BatchedTensor for vmap, a grad wrapper for grad); this looks
    through every level. It uses torch._C._functorch, torch's private API (torch's own code asks it the same way);
    tests/unit/test_attention.py runs vmap and grad through the module, so a torch that changes it fails a test."""
    for t in tensors:
        while _functorch.is_functorch_wrapped_tensor(t):
            if _functorch.is_batchedtensor(t):
                return False
            t = _functorch.get_unwrapped(t)
    return True


def as_bool(mask: torch.Tensor) -> torch.Tensor:
    """A mask as bool, True = may attend: bool as it is, numbers as ``mask != 0`` (the course's ``mask == 0`` blocks).

    A float mask with -inf, negative values or NaN is not a 0/1 mask, and one of zeros only is most likely an additive
    mask that blocks nothing (read as 0/1 it would block everything): both refused with a message (see the module doc).
    """
    if mask.dtype == torch.bool:
        return mask
    if not (mask.is_floating_point() and values_readable(mask)):
        return mask != 0
    conventions = ("nn.MultiheadAttention's float attn_mask: 0 = attend, -inf = blocked, added to the scores. This "
                   "module takes the course's convention instead: bool or 0/1, True / 1 = may attend, False / 0 = "
                   "blocked (masked_fill(mask == 0, -inf)). Convert it with mha.core.masks.from_additive_mask(mask)")
    if not bool((mask >= 0).all()):  # -inf, negative or NaN
        if bool(mask.isnan().any()):
            raise ValueError("mask contains NaN: use True / 1 where a query may attend and False / 0 where it may not.")
        raise ValueError(f"mask holds negative values (min {mask.min().item():.3g}): that looks like an additive "
                         f"float mask ({conventions}).")
    allowed = mask != 0
    if allowed.numel() and not bool(allowed.any()):
        raise ValueError(f"mask is a float mask of zeros only, which would block every key: it looks like an additive "
                         f"mask that blocks nothing ({conventions}, or pass mask=None). To block every key on "
                         f"purpose, pass a bool mask of False.")
    return allowed


def causal_mask(seq_len: int, device=None) -> torch.Tensor:
    """(T, T) bool: query i may attend to keys 0..i only."""
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: Sequence[int], max_len: Optional[int] = None, device=None) -> torch.Tensor:
    """(B, 1, 1, Tk) bool from sequence lengths: keys at positions >= length are padding and blocked."""
    lengths = torch.as_tensor(list(lengths), dtype=torch.long, device=device)
    if lengths.dim() != 1 or (lengths < 0).any():
        raise ValueError(f"lengths must be non-negative integers, one per sequence, got {lengths.tolist()}.")
    max_len = int(lengths.max()) if max_len is None else max_len
    if (lengths > max_len).any():
        raise ValueError(f"a length in {lengths.tolist()} exceeds max_len={max_len}.")
    keep = torch.arange(max_len, device=device).unsqueeze(0) < lengths.unsqueeze(1)  # (B, Tk)
    return keep[:, None, None, :]  # (B, 1, 1, Tk): same for every head and every query


def combine_masks(*masks: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    """AND of masks (a key must be allowed by all of them); None entries are ignored."""
    out = None
    for m in masks:
        if m is None:
            continue
        m = as_bool(m)
        out = m if out is None else out & m
    return out


def as_allowed(mask: Optional[torch.Tensor], scores_shape: torch.Size) -> Optional[torch.Tensor]:
    """Check a mask against the scores' shape (B, H, Tq, Tk) and return it as a broadcast bool view."""
    if mask is None:
        return None
    if not isinstance(mask, torch.Tensor):
        mask = torch.as_tensor(mask)
    allowed = as_bool(mask)
    try:
        return allowed.expand(scores_shape)
    except RuntimeError:
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape {tuple(scores_shape)} "
            "(batch, heads, queries, keys). Use (Tq, Tk) for one mask for all, (B, 1, 1, Tk) for key padding, "
            "or (B, 1, Tq, Tk) per sequence."
        ) from None


def compact_view(allowed: torch.Tensor) -> torch.Tensor:
    """The smallest view of a broadcast mask (``as_allowed``'s result): size 1 along every dimension that was
    expanded (stride 0), the same values. Elementwise work on it broadcasts instead of filling (B, H, Tq, Tk)."""
    index = tuple(slice(0, 1) if stride == 0 and size > 1 else slice(None)
                  for stride, size in zip(allowed.stride(), allowed.shape, strict=True))
    return allowed[index]


def to_torch_attn_mask(mask: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    """Our mask (True = may attend) -> nn.MultiheadAttention's boolean attn_mask (True = blocked)."""
    if mask is None:
        return None
    return ~as_bool(mask)


def from_torch_attn_mask(mask: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    """nn.MultiheadAttention's boolean mask (True = blocked) -> ours (True = may attend)."""
    return to_torch_attn_mask(mask)  # the flip is its own inverse


def from_additive_mask(mask: Optional[torch.Tensor], *, blocked_at_or_below: float = -1e4) -> Optional[torch.Tensor]:
    """nn.MultiheadAttention's additive float mask (added to the scores: 0 = attend, -inf = blocked) -> ours (bool,
    True = may attend).

    Very negative finite values block too (at or below ``blocked_at_or_below``: -10000 in BERT, torch.finfo(dtype).min
    in newer Hugging Face models). Any other value is a bias on the scores (ALiBi, relative positions), which a
    may-attend / blocked mask cannot hold: refused.
    """
    if mask is None:
        return None
    if mask.dtype == torch.bool:
        raise TypeError("a bool mask is not additive: nn.MultiheadAttention's bool masks (True = blocked) convert with "
                        "mha.core.masks.from_torch_attn_mask.")
    if not mask.is_floating_point():
        raise TypeError(f"an additive mask is a float tensor (0 = attend, -inf = blocked), got {mask.dtype}.")
    allowed = mask == 0
    blocked = mask <= blocked_at_or_below  # -inf included
    other = ~(allowed | blocked)  # biases, positive values and NaN
    if bool(other.any()):
        examples = sorted({round(v, 4) for v in mask[other].tolist()[:1000]}, key=str)[:5]
        raise ValueError(
            f"an additive mask must hold 0 (attend) or -inf / a value <= {blocked_at_or_below:g} (blocked); "
            f"{int(other.sum())} entries are neither, e.g. {examples}. Those are biases on the scores, which a "
            "True / False mask cannot express."
        )
    return allowed
