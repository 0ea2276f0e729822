"""Running the learner's code: their class built for some sizes and called the way its forward wants, or their
function called, always under a ``Recorder``; what comes back checked (a float tensor of the expected shape, or
``(output, weights)``).

Their code gets copies of our tensors (it may write into its inputs) and may raise anything: the exception is kept
in the ``Run``, never raised on (a sandbox refusal, a BaseException, is: the worker answers it).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn

from mha.check.request import Request, Target
from mha.check.trace import Recorder, safe_text

# --- running their code --------------------------------------------------------------------------------------------

@dataclass
class Run:
    """One call of their forward (or function) under a Recorder."""

    rec: Recorder
    out: Optional[torch.Tensor] = None  # (1, T, d_model) for a class, (1, H, T, head_dim) for a function
    weights: Optional[torch.Tensor] = None  # the function's returned weights, if it returns them
    error: Optional[BaseException] = None
    bad: Optional[dict] = None  # a bad_output message, if the output is not usable
    inputs: tuple = ()  # the tensors their code was given (copies of ours)
    mask: Optional[torch.Tensor] = None  # the mask it was given

    @property
    def mask_used(self) -> bool:
        """Did the mask reach any torch call (``mask == 0``, ``masked_fill``, ``F.scaled_dot_product_attention``)?"""
        return self.mask is not None and any(t is self.mask for r in self.rec.records for t in r.inputs)


def _as_output(value, expected: tuple) -> tuple[Optional[torch.Tensor], Optional[torch.Tensor], Optional[dict]]:
    """(output, weights or None, bad message or None) from whatever their code returned."""
    weights = None
    if isinstance(value, (tuple, list)) and value and type(value[0]) is torch.Tensor:  # (output, weights)
        if len(value) > 1 and type(value[1]) is torch.Tensor:
            weights = value[1]
        value = value[0]
    if type(value) is not torch.Tensor:
        return None, None, {"key": "check_bad_output_type", "fmt": {"type": safe_text(type(value).__name__, 40),
                                                                      "expected": shape_text(expected)}}
    if tuple(value.shape) != expected:
        return None, None, {"key": "check_bad_output_shape", "fmt": {"shape": shape_text(value.shape),
                                                                       "expected": shape_text(expected)}}
    if value.device.type != "cpu" or value.layout != torch.strided:  # a meta or sparse tensor holds no numbers
        return None, None, {"key": "check_bad_output_type", "fmt": {"type": safe_text(
            f"{value.device.type} {value.layout}", 40), "expected": shape_text(expected)}}
    if not value.is_floating_point():
        return None, None, {"key": "check_bad_output_type", "fmt": {"type": safe_text(value.dtype, 40),
                                                                      "expected": shape_text(expected)}}
    return value.detach().to(torch.float32), weights, None


def shape_text(shape) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ")"


def _call(fn, args: tuple, kwargs: dict, expected: tuple) -> Run:
    rec = Recorder()
    run = Run(rec)
    try:
        with torch.no_grad(), warnings.catch_warnings(), rec:
            warnings.simplefilter("ignore")  # their softmax without dim warns; the diagnosis says it better
            value = fn(*args, **kwargs)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - their code may raise anything
        run.error = exc
        return run
    run.out, run.weights, run.bad = _as_output(value, expected)
    return run


class Subject:
    """Their class, built for some sizes, called the way its forward wants."""

    def __init__(self, target: Target, d_model: int, num_heads: int, seed: int):
        self.target = target
        self.d_model, self.num_heads = d_model, num_heads
        torch.manual_seed(seed)  # their own init (only the checks that cannot copy weights see it)
        args = (num_heads, d_model) if target.swapped else (d_model, num_heads)
        self.module = target.obj(*args)
        if not isinstance(self.module, nn.Module):
            raise TypeError("the class did not build an nn.Module")
        nn.Module.train(self.module, False)  # dropout off (their eval() could be anything)
        self.params = {id(p): (safe_text(n, 80), p) for n, p in nn.Module.named_parameters(self.module)}

    def call(self, q, k, v, allowed=None) -> Run:
        # copies: their code may write into its inputs (x.add_(1)); one tensor passed three times stays one
        q, k, v = _copies(q, k, v)
        allowed = None if allowed is None else allowed.clone()
        order = self.target.order
        args = (q, k, v) if order == "qkv" else (v, k, q) if order == "vkq" else (q,)
        kwargs = {}
        if self.target.mask_name is not None and (allowed is not None or self.target.mask_required):
            if self.target.mask_positional:
                args = args + (allowed,)
            else:
                kwargs[self.target.mask_name] = allowed
        run = _call(self.module, args, kwargs, (q.size(0), q.size(1), self.d_model))
        run.inputs, run.mask = (q, k, v), allowed
        return run


def _copies(q, k, v) -> tuple:
    cq = q.clone()
    ck = cq if k is q else k.clone()
    cv = cq if v is q else ck if v is k else v.clone()
    return cq, ck, cv


def build(target: Target, req: Request, d_model: int, num_heads: int, seed: int):
    try:
        return Subject(target, d_model, num_heads, seed), None
    except (Exception, SystemExit) as exc:  # noqa: BLE001
        return None, exc


def call_function(target: Target, q, k, v, allowed) -> Run:
    args = (q.clone(), k.clone(), v.clone())
    mask = None
    if target.mask_name is not None and (allowed is not None or target.mask_required):
        mask = None if allowed is None else allowed.clone()
        args = args + (mask,)
    run = _call(target.obj, args, {}, tuple(q.shape))
    run.inputs, run.mask = args[:3], mask
    return run
