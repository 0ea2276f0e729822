"""Attention masks. One convention everywhere in this project, the course's:

    True / 1 = this query may attend to this key;  False / 0 = blocked.

It is the convention of the course (``scores.masked_fill(mask == 0, -inf)``) and of
``torch.nn.functional.scaled_dot_product_attention``. ``torch.nn.MultiheadAttention`` uses the OPPOSITE one
(True = blocked, for both ``attn_mask`` and ``key_padding_mask``): ``to_torch_attn_mask`` is the only place that
converts between the two.
"""
from __future__ import annotations

from typing import Optional, Sequence

import torch


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
        m = m.bool() if m.dtype == torch.bool else m != 0
        out = m if out is None else out & m
    return out


def as_allowed(mask: Optional[torch.Tensor], scores_shape: torch.Size) -> Optional[torch.Tensor]:
    """Check a mask against the scores' shape (B, H, Tq, Tk) and return it as a broadcast bool view."""
    if mask is None:
        return None
    if not isinstance(mask, torch.Tensor):
        mask = torch.as_tensor(mask)
    allowed = mask if mask.dtype == torch.bool else mask != 0  # 0 = blocked, as in masked_fill(mask == 0, -inf)
    try:
        return allowed.expand(scores_shape)
    except RuntimeError:
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape {tuple(scores_shape)} "
            "(batch, heads, queries, keys). Use (Tq, Tk) for one mask for all, (B, 1, 1, Tk) for key padding, "
            "or (B, 1, Tq, Tk) per sequence."
        ) from None


def to_torch_attn_mask(mask: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    """Our mask (True = may attend) -> nn.MultiheadAttention's boolean attn_mask (True = blocked)."""
    if mask is None:
        return None
    allowed = mask if mask.dtype == torch.bool else mask != 0
    return ~allowed


def from_torch_attn_mask(mask: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    """nn.MultiheadAttention's boolean mask (True = blocked) -> ours (True = may attend)."""
    return to_torch_attn_mask(mask)  # the flip is its own inverse
