"""A live check of our module against PyTorch's own attention, for any batch, mask and Tq != Tk. Pure torch.

Two references:
- ``nn.MultiheadAttention`` with our weights copied in (Q, K, V stacked into ``in_proj_weight``, whose bias is
  zero like ours; ``out_proj`` = ``output_linear``), our mask converted to its opposite convention by
  ``mha.core.masks.to_torch_attn_mask`` (ours: True = may attend; its ``attn_mask``: True = blocked). Compared: the
  output and every head's weights.
- ``F.scaled_dot_product_attention`` on our own q, k, v with our mask as is (same convention as ours).
  Compared: every head's output.

Both run in float64, so any real difference stands far above rounding. Where they differ by design: a query row
with every key blocked. Ours gives weights exactly 0 and head output 0; nn.MultiheadAttention gives NaN there
(softmax of all -inf). Those rows are left out of the errors and reported, and the check passes only if NaN
appears nowhere else.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from mha.core.attention import MultiHeadAttention
from mha.core.masks import as_allowed, to_torch_attn_mask
from mha.weights.view import View, ViewSpec, model_for, view_inputs

TOLERANCE = 1e-9  # float64: a correct implementation is ~1e-15 away; a real bug is ~1e-1 away


@dataclass(frozen=True)
class TorchCheck:
    """How far our module is from torch's, per reference. Errors are max absolute differences over the rows both
    sides compute (a row torch leaves NaN is reported in ``torch_nan_rows`` instead)."""

    passed: bool
    tolerance: float
    output_error: float  # our output vs nn.MultiheadAttention's, (B, Tq, d_model)
    weights_error: float  # our weights vs nn.MultiheadAttention's per-head weights, (B, H, Tq, Tk)
    sdpa_error: float  # our head outputs vs F.scaled_dot_product_attention, (B, H, Tq, head_dim)
    fully_masked: np.ndarray  # (B, Tq) bool: query rows with no key allowed (in some head)
    torch_nan_rows: np.ndarray  # (B, Tq) bool: rows where nn.MultiheadAttention's output is NaN
    sdpa_nan_rows: np.ndarray  # (B, Tq) bool: rows where F.scaled_dot_product_attention's output is not finite
    ours_finite: bool  # our output and weights have no NaN or inf
    ours_weights: np.ndarray  # (B, H, Tq, Tk) float64
    torch_weights: np.ndarray  # (B, H, Tq, Tk) float64, NaN where torch gives NaN (never put this in a chart)
    ours_output: np.ndarray  # (B, Tq, d_model)
    torch_output: np.ndarray  # (B, Tq, d_model), may hold NaN
    sdpa_head_outputs: np.ndarray  # (B, H, Tq, head_dim), may hold NaN

    @property
    def compared_rows(self) -> int:
        return int((~self.torch_nan_rows).sum())


def torch_twin(model: MultiHeadAttention, dtype=torch.float64) -> nn.MultiheadAttention:
    """nn.MultiheadAttention holding ``model``'s weights (``model`` is only read)."""
    ref = nn.MultiheadAttention(model.d_model, model.num_heads, bias=True, batch_first=True, dtype=dtype)
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([model.query_linear.weight, model.key_linear.weight,
                                            model.value_linear.weight]).to(dtype))  # (3 d_model, d_model)
        lins = (model.query_linear, model.key_linear, model.value_linear)
        if model.query_linear.bias is None:
            ref.in_proj_bias.zero_()  # the course's Q, K, V projections have no bias
        else:  # a pretrained layer's (qkv_bias=True)
            ref.in_proj_bias.copy_(torch.cat([lin.bias for lin in lins]).to(dtype))  # (3 d_model,)
        ref.out_proj.weight.copy_(model.output_linear.weight.to(dtype))
        ref.out_proj.bias.copy_(model.output_linear.bias.to(dtype))
    return ref.eval()


def torch_attn_mask(mask: Optional[torch.Tensor], batch: int, num_heads: int, tq: int, tk: int,
                    convert: bool = True) -> Optional[torch.Tensor]:
    """Our mask as nn.MultiheadAttention's ``attn_mask`` (B * H, Tq, Tk), True = blocked. ``convert=False``
    passes our booleans through unchanged: the classic polarity mistake, for the lesson."""
    if mask is None:
        return None
    allowed = as_allowed(mask, torch.Size((batch, num_heads, tq, tk))).reshape(batch * num_heads, tq, tk)
    return to_torch_attn_mask(allowed) if convert else allowed.clone()


def _max_abs(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max()) if a.numel() else 0.0


def check(model: MultiHeadAttention, query: torch.Tensor, key: torch.Tensor, value: Optional[torch.Tensor] = None,
          mask: Optional[torch.Tensor] = None, *, convert: bool = True, tolerance: float = TOLERANCE) -> TorchCheck:
    """Compare ``model`` with nn.MultiheadAttention and F.scaled_dot_product_attention on query (B, Tq, d_model),
    key and value (B, Tk, d_model) and our ``mask`` (True = may attend, broadcastable to (B, H, Tq, Tk)).
    ``model`` (often shared between users) is never changed: a float64 copy runs."""
    ours = copy.deepcopy(model).to(torch.float64).eval()
    ref = torch_twin(model)
    value = key if value is None else value
    query, key, value = (t.detach().to(torch.float64) for t in (query, key, value))
    B, Tq, Tk, H = query.size(0), query.size(1), key.size(1), model.num_heads
    with torch.no_grad():
        tr = ours.trace(query, key, value, mask)
        out_t, w_t = ref(query, key, value, need_weights=True, average_attn_weights=False,
                         attn_mask=torch_attn_mask(mask, B, H, Tq, Tk, convert))  # (B, Tq, D), (B, H, Tq, Tk)
        z = F.scaled_dot_product_attention(tr.q, tr.k, tr.v, attn_mask=tr.allowed)  # (B, H, Tq, head_dim)
    fully = tr.fully_masked.any(dim=1)  # (B, Tq)
    torch_nan = torch.isnan(out_t).any(-1) | torch.isnan(w_t).any(-1).any(1)  # (B, Tq)
    sdpa_bad = ~torch.isfinite(z).all(-1).all(1)  # (B, Tq)
    ok = ~torch_nan  # rows nn.MultiheadAttention computes
    ok_sdpa = ~sdpa_bad
    output_error = _max_abs(tr.output[ok], out_t[ok])
    weights_error = _max_abs(tr.weights.permute(0, 2, 1, 3)[ok], w_t.permute(0, 2, 1, 3)[ok])  # rows (n, H, Tk)
    sdpa_error = _max_abs(tr.head_outputs.permute(0, 2, 1, 3)[ok_sdpa], z.permute(0, 2, 1, 3)[ok_sdpa])
    ours_finite = bool(torch.isfinite(tr.output).all() and torch.isfinite(tr.weights).all())
    nan_only_where_documented = bool((~torch_nan | fully).all() and (~sdpa_bad | fully).all())
    passed = (max(output_error, weights_error, sdpa_error) <= tolerance and ours_finite and nan_only_where_documented)
    npy = lambda t: t.detach().numpy().copy()  # noqa: E731
    return TorchCheck(
        passed=passed, tolerance=tolerance, output_error=output_error, weights_error=weights_error,
        sdpa_error=sdpa_error, fully_masked=npy(fully), torch_nan_rows=npy(torch_nan), sdpa_nan_rows=npy(sdpa_bad),
        ours_finite=ours_finite, ours_weights=npy(tr.weights), torch_weights=npy(w_t), ours_output=npy(tr.output),
        torch_output=npy(out_t), sdpa_head_outputs=npy(z),
    )


@dataclass(frozen=True)
class RowReport:
    """One query row of a check, as text for a table: where torch gives NaN, it says "NaN" (never charted)."""

    ours: list[str]  # (Tk,) our weights of one head, "0.0000" on a fully masked row
    torch: list[str]  # (Tk,) nn.MultiheadAttention's weights of that head, "NaN" on a fully masked row
    ours_finite: bool  # every number of our output row is finite
    torch_nan: int  # how many numbers of nn.MultiheadAttention's output row are NaN
    sdpa: str  # F.scaled_dot_product_attention's head output on the row: "nan", "zero" or "other"


def row_report(result: TorchCheck, batch: int, head: int, row: int) -> RowReport:
    text = lambda w: "NaN" if np.isnan(w) else f"{w:.4f}"  # noqa: E731
    z = result.sdpa_head_outputs[batch, head, row]  # (head_dim,)
    return RowReport(
        ours=[text(w) for w in result.ours_weights[batch, head, row]],
        torch=[text(w) for w in result.torch_weights[batch, head, row]],
        ours_finite=bool(np.isfinite(result.ours_output[batch, row]).all()),
        torch_nan=int(np.isnan(result.torch_output[batch, row]).sum()),
        sdpa="nan" if np.isnan(z).any() else "zero" if not z.any() else "other",
    )


def check_spec(spec: ViewSpec, *, convert: bool = True, state_dict: dict | None = None) -> TorchCheck:
    """The check for the whole batch of a ViewSpec, with the mask the app applies (causal, padding), on the
    seeded weights or on uploaded ones (``state_dict``)."""
    if spec.source == "pretrained":  # the layer's input is the model's hidden states (every sentence)
        from mha.weights.view import model_for, pretrained_run

        run = pretrained_run(spec)
        return check(model_for(spec), run.x, run.x, run.x, None if run.mask.all() else run.mask, convert=convert)
    inputs = view_inputs(spec, state_dict)
    return check(inputs.model, inputs.query, inputs.key, inputs.key, inputs.mask, convert=convert)


def check_sentence(view: View, allowed, *, convert: bool = True, state_dict: dict | None = None) -> TorchCheck:
    """The check for the sentence a View shows, under ``allowed`` (Tq, Tk) bool, True = may attend. Pass the
    ``state_dict`` the view was made with, if any."""
    model = model_for(view.spec, state_dict)
    query, key = torch.tensor(view.x)[None], torch.tensor(view.x_kv)[None]  # (1, Tq | Tk, d_model), copies
    return check(model, query, key, key, torch.from_numpy(np.array(allowed, dtype=bool)), convert=convert)


__all__ = ["TorchCheck", "TOLERANCE", "RowReport", "check", "check_spec", "check_sentence", "row_report", "torch_twin",
           "torch_attn_mask"]
