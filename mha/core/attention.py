"""Multi-head attention, written once and traced.

Compatible with the course class (PyTorch로 배우는 Transformer 모델, ../shared/seeds/000_*): same constructor,
submodule names, methods and numbers; a state_dict moves between the two with ``strict=True``.

Vocabulary (used across code, UI and docs):
  scores        QK^T / sqrt(head_dim), before masking          (B, H, Tq, Tk)
  weights       softmax over keys of the masked scores          (B, H, Tq, Tk)
  head_outputs  weights @ V, one per head ("z")                 (B, H, Tq, head_dim)
  concat        heads side by side again (combine_heads)        (B, Tq, d_model)
  output        output_linear(concat)                           (B, Tq, d_model)

Masks follow the course: broadcastable to (B, H, Tq, Tk), True / 1 = may attend, False / 0 = blocked.
(torch's nn.MultiheadAttention uses the opposite boolean convention and additive float masks:
``mha.core.masks`` converts, and refuses a float mask that looks additive.)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from mha.core.masks import as_allowed, compact_view, values_readable


@dataclass(frozen=True)
class AttentionSteps:
    """What one call of scaled dot-product attention computes, in order."""

    scores: torch.Tensor  # (..., Tq, Tk) scaled QK^T, before masking
    allowed: Optional[torch.Tensor]  # (..., Tq, Tk) bool, True = may attend; None = no mask
    weights: torch.Tensor  # (..., Tq, Tk) rows sum to 1, or are exactly 0 when fully masked
    output: torch.Tensor  # (..., Tq, Dv) weights @ value
    fully_masked: torch.Tensor  # (..., Tq) bool: the query row had no key to attend to


def attention_steps(query, key, value, mask=None, *, scale: bool = True, temperature: float = 1.0) -> AttentionSteps:
    """Scaled dot-product attention with every step kept. The one implementation in this package.

    ``scale=False`` drops the 1/sqrt(head_dim) factor and ``temperature`` divides the scores before softmax:
    both exist for the scaling lab; the module always uses the defaults.
    """
    if scale:
        # Scale q (Tq x head_dim) rather than the scores (Tq x Tk): the course's QK^T / sqrt(head_dim) up to rounding
        # (exactly, when head_dim is a power of 4), without a pass over the largest tensor.
        query = query * (1.0 / math.sqrt(query.size(-1)))
    scores = torch.matmul(query, key.transpose(-2, -1))  # (..., Tq, Tk)
    logits = scores / temperature if temperature != 1.0 else scores
    allowed = as_allowed(mask, scores.shape)  # a broadcast view of the mask as given: no copy
    if allowed is None:
        weights = F.softmax(logits, dim=-1)
        fully_masked = torch.zeros(scores.shape[:-1], dtype=torch.bool, device=scores.device)
    else:
        # The mask's own shape ((Tq, Tk), (B, 1, 1, Tk), ...) broadcasts in masked_fill: working on it rather than on
        # the expanded view saves three (B, H, Tq, Tk) temporaries per call (~20% of a small training step).
        compact = compact_view(allowed)  # (.., Tq or 1, Tk or 1) with 1 wherever the mask was broadcast
        row_empty = ~compact.any(dim=-1, keepdim=True)  # (..., Tq, 1) in the mask's shape
        # A row with every key blocked would be softmax(-inf, ..., -inf) = NaN. Give it finite logits, then zero it:
        # such a query attends to nothing and its output is 0 (the course's code returns NaN there).
        logits = logits.masked_fill(~compact & ~row_empty, float("-inf"))
        weights = F.softmax(logits, dim=-1).masked_fill(~compact | row_empty, 0.0)
        fully_masked = row_empty.squeeze(-1).expand(scores.shape[:-1])  # (..., Tq)
    output = torch.matmul(weights, value)  # (..., Tq, Dv)
    return AttentionSteps(scores=scores, allowed=allowed, weights=weights, output=output, fully_masked=fully_masked)


def scaled_dot_product_attention(query, key, value, mask=None):
    """``(output, weights)``, like the course's function (../shared/seeds/002_*), plus a mask and no NaN."""
    steps = attention_steps(query, key, value, mask)
    return steps.output, steps.weights


@dataclass(frozen=True)
class AttentionTrace:
    """Every intermediate of one MultiHeadAttention call. Shapes use B, H, Tq, Tk, head_dim, d_model."""

    q: torch.Tensor  # (B, H, Tq, head_dim) what each query token looks for
    k: torch.Tensor  # (B, H, Tk, head_dim) what each key token offers
    v: torch.Tensor  # (B, H, Tk, head_dim) what gets passed on
    scores: torch.Tensor  # (B, H, Tq, Tk) QK^T / sqrt(head_dim), before masking
    allowed: Optional[torch.Tensor]  # (B, H, Tq, Tk) bool, the mask as applied: True = may attend; None = no mask
    weights: torch.Tensor  # (B, H, Tq, Tk) after softmax
    head_outputs: torch.Tensor  # (B, H, Tq, head_dim) weights @ V, before any head is switched off
    concat: torch.Tensor  # (B, Tq, d_model) combine_heads of the (kept) head outputs
    output: torch.Tensor  # (B, Tq, d_model) output_linear(concat)
    fully_masked: torch.Tensor  # (B, H, Tq) bool: query rows with every key blocked (weights 0, head output 0)
    head_mask: Optional[torch.Tensor] = None  # (H,) 1 = head kept, 0 = switched off; None = all kept

    @property
    def mask(self) -> Optional[torch.Tensor]:
        """The course's word for ``allowed`` (the argument is ``mask``); the same tensor."""
        return self.allowed

    @property
    def num_heads(self) -> int:
        return self.weights.size(1)

    @property
    def head_dim(self) -> int:
        return self.q.size(-1)


class MultiHeadAttention(nn.Module):
    """The course's MultiHeadAttention, with input checks, NaN-free masking and ``trace``.

    Every call runs the course's steps on the module's current submodules: no weight is copied, stacked or cached
    between calls, so pruning, parametrizations (weight_norm, orthogonal), ``.data`` writes, a wrapper module in
    place of ``query_linear`` or ``torch.ao.quantization.quantize_dynamic`` give the course class's numbers.
    """

    def __init__(self, d_model: int, num_heads: int, *, qkv_bias: bool = False):
        super().__init__()
        if isinstance(d_model, bool) or isinstance(num_heads, bool) or not (
            isinstance(d_model, int) and isinstance(num_heads, int)
        ):
            raise TypeError(f"d_model and num_heads must be integers, got {d_model!r} and {num_heads!r}.")
        if d_model < 1 or num_heads < 1:
            raise ValueError(f"d_model ({d_model}) and num_heads ({num_heads}) must be at least 1.")
        if d_model % num_heads != 0:
            divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
            raise ValueError(
                f"d_model must be divisible by num_heads: d_model={d_model}, num_heads={num_heads} leaves "
                f"{d_model % num_heads} over. Pick num_heads from {divisors} or change d_model."
            )
        self.num_heads = num_heads
        self.d_model = d_model
        self.head_dim = d_model // num_heads

        # Q, K, V projections carry no bias (as in the course); the output projection does. ``qkv_bias=True`` (opt-in,
        # keyword only) adds the biases that pretrained models such as BERT and GPT-2 have; the course's
        # signature, default and state_dict keys are unchanged without it.
        self.query_linear = nn.Linear(d_model, d_model, bias=qkv_bias)
        self.key_linear = nn.Linear(d_model, d_model, bias=qkv_bias)
        self.value_linear = nn.Linear(d_model, d_model, bias=qkv_bias)
        self.output_linear = nn.Linear(d_model, d_model)

    def split_heads(self, x, batch_size):
        seq_length = x.size(1)
        # view the last dim as (H, head_dim), then transpose: each head must see every position, not mix them
        x = x.reshape(batch_size, seq_length, self.num_heads, self.head_dim)  # (B, T, H, head_dim)
        return x.permute(0, 2, 1, 3)  # (B, H, T, head_dim)

    def compute_attention(self, query, key, value, mask=None):
        return scaled_dot_product_attention(query, key, value, mask)[0]  # (B, H, Tq, head_dim)

    def combine_heads(self, x, batch_size):
        x = x.permute(0, 2, 1, 3).contiguous()  # (B, Tq, H, head_dim): positions back in front of heads
        # Tq spelled out where the course writes -1: with B = 0 there are no elements to infer it from
        return x.view(batch_size, x.size(1), self.d_model)  # (B, Tq, d_model)

    def forward(self, query, key, value, mask=None):
        return self.trace(query, key, value, mask).output

    def trace(self, query, key, value, mask=None, *, head_mask=None) -> AttentionTrace:
        """Run the module and return every intermediate. ``forward`` is this, keeping only ``output``.

        ``head_mask`` (H,) of 0/1 switches heads off (their outputs zeroed before ``output_linear``) without
        touching the weights, so a module shared between users is never changed.
        """
        if head_mask is not None and not isinstance(head_mask, torch.Tensor):
            head_mask = torch.as_tensor(head_mask)  # e.g. [1, 0, 1, 1] from a UI control
        self._check_inputs(query, key, value, head_mask)
        batch_size = query.size(0)

        q = self.split_heads(self.query_linear(query), batch_size)  # (B, H, Tq, head_dim)
        k = self.split_heads(self.key_linear(key), batch_size)  # (B, H, Tk, head_dim)
        v = self.split_heads(self.value_linear(value), batch_size)  # (B, H, Tk, head_dim)

        steps = attention_steps(q, k, v, mask)  # compute_attention, every step kept
        kept = steps.output
        if head_mask is not None:
            kept = kept * head_mask.to(kept.dtype).view(1, -1, 1, 1)  # (B, H, Tq, head_dim)

        concat = self.combine_heads(kept, batch_size)  # (B, Tq, d_model)
        output = self.output_linear(concat)  # (B, Tq, d_model)

        # Finite inputs can still overflow. One cheap reduction (its sum is finite only if every value is); skipped
        # where vmap batches the output, since Python cannot read its values there (mha.core.masks.values_readable).
        if values_readable(output) and not math.isfinite(output.sum().item()):
            self._explain_overflow(q, k, v, steps, output)
        return AttentionTrace(
            q=q, k=k, v=v, scores=steps.scores, allowed=steps.allowed, weights=steps.weights,
            head_outputs=steps.output, concat=concat, output=output, fully_masked=steps.fully_masked,
            head_mask=head_mask,
        )

    def _explain_overflow(self, q, k, v, steps: AttentionSteps, output) -> None:
        """Raise a clear error if a finite input overflowed somewhere; return if only the check's sum overflowed."""
        dtype = output.dtype
        for _name, t, what in (
            ("q", q, "the query projection"), ("k", k, "the key projection"), ("v", v, "the value projection"),
            ("scores", steps.scores, "the scores QK^T / sqrt(head_dim)"), ("output", output, "the output"),
        ):
            if not torch.isfinite(t).all():
                raise ValueError(
                    f"{what} overflowed {dtype} (|values| above {torch.finfo(dtype).max:.3g}): the inputs or the "
                    f"weights are too large for this precision. Scale them down, or run in torch.float64."
                )

    def _check_inputs(self, query, key, value, head_mask) -> None:
        """Shapes always; values (NaN, inf) only where Python can read them (not in tensors vmap batches)."""
        if query is key and key is value:  # self-attention passes one tensor three times: check it once
            inputs = (("query", query),)
        else:
            inputs = tuple((name, x) for name, x, seen in (("query", query, ()), ("key", key, (query,)),
                                                           ("value", value, (query, key)))
                           if not any(x is s for s in seen))
        for name, x in inputs:
            if not isinstance(x, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}.")
            if x.dim() != 3:
                hint = " Add a batch dimension with x.unsqueeze(0)." if x.dim() == 2 else ""
                raise ValueError(
                    f"{name} must have shape (batch, seq_len, d_model={self.d_model}), got {tuple(x.shape)}.{hint}"
                )
            if x.size(-1) != self.d_model:
                raise ValueError(
                    f"{name} has {x.size(-1)} features in its last dimension but d_model is {self.d_model}: "
                    f"project it to {self.d_model} or build MultiHeadAttention(d_model={x.size(-1)}, ...)."
                )
            # The sum is finite only if every value is: one cheap reduction, the full scan only to confirm.
            if values_readable(x) and not math.isfinite(x.sum().item()) and not torch.isfinite(x).all():
                raise ValueError(f"{name} contains NaN or infinite values; attention needs finite inputs.")
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(
                f"key and value must have the same batch size and length, got {tuple(key.shape)} and "
                f"{tuple(value.shape)}: each key needs its value."
            )
        if query.size(0) != key.size(0):
            raise ValueError(f"query has batch size {query.size(0)} but key has {key.size(0)}; they must match.")
        if head_mask is not None and tuple(head_mask.shape) != (self.num_heads,):
            raise ValueError(
                f"head_mask must have shape ({self.num_heads},), one 0/1 per head, got {tuple(head_mask.shape)}."
            )
        if head_mask is not None and values_readable(head_mask) and not torch.isfinite(head_mask).all():
            raise ValueError("head_mask contains NaN or infinite values: use 1 to keep a head and 0 to switch it off.")
