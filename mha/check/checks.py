"""Checks that need no reference weights: what any correct attention does, whatever its design.

rows sum to 1 over the keys; permuted tokens give permuted outputs (no mask); with a causal mask, changing later
tokens leaves earlier outputs unchanged; changing head 0's slice of the query projection changes head 0 only; the
scores' spread stays near 1 from head_dim 4 to 64 (weights that keep each feature's spread at 1). Each answer is
``{"id", "passed", "key", "fmt"}`` (``check_<id>_pass`` / ``_fail``); a check that cannot run says why.
"""
from __future__ import annotations

import math
from typing import Optional

import torch

from mha.check.projections import Roles
from mha.check.request import Request, Target
from mha.check.running import Run, Subject, build, call_function
from mha.check.steps import BLOCKED, Theirs, locate
from mha.check.trace import SOFTMAX_OPS

CHECKS = ("rows_sum_to_one", "permutation", "causal_no_future", "heads_own_slice", "score_spread")


# --- checks that need no reference weights ---------------------------------------------------------------------------

def _check(cid: str, passed: bool, key: Optional[str] = None, **fmt) -> dict:
    """One check's answer; its message is ``check_<id>_pass`` or ``check_<id>_fail`` (or ``key``)."""
    key = key or f"check_{cid}_{'pass' if passed else 'fail'}"
    return {"id": cid, "passed": bool(passed), "key": key, "fmt": {k: _plain(v) for k, v in fmt.items()}}


def _plain(v):
    if isinstance(v, float):  # numbers for messages: short, and a word for "not a number"
        return float(f"{v:.3g}") if math.isfinite(v) else "∞"
    return v


def _max_change(a: torch.Tensor, b: torch.Tensor) -> float:
    d = (a.to(torch.float64) - b.to(torch.float64)).abs()
    if d.isnan().any():
        return float("inf")
    return float(d.max()) if d.numel() else 0.0


def _tol(a: torch.Tensor) -> float:
    finite = a[torch.isfinite(a)]
    return 1e-4 * max(1.0, float(finite.abs().max()) if finite.numel() else 1.0)


def _rows_check(weights: Optional[torch.Tensor], t: int, allowed) -> Optional[dict]:
    """Rows of the weights sum to 1 over the keys (their last axis, which must be the keys: length T)."""
    if weights is None:
        return None
    if weights.dim() < 2 or weights.size(-1) != t:
        return _check("rows_sum_to_one", False, key="check_rows_sum_to_one_axis",
                      axis_len=int(weights.size(-1)) if weights.dim() else 0, keys=t)
    sums = weights.to(torch.float64).sum(-1)
    if allowed is not None and sums.dim() >= 1 and sums.size(-1) == t:
        sums = sums[..., allowed.any(-1)]
    worst = float((sums - 1).abs().max()) if sums.numel() else 0.0
    worst = worst if math.isfinite(worst) else float("inf")
    return _check("rows_sum_to_one", worst <= 1e-3, axis_len=t, keys=t, worst=min(worst, 1e30))


def _perturb(x: torch.Tensor, start: int, seed: int = 7) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    y = x.clone()
    y[:, start:] += torch.randn(y[:, start:].shape, generator=g)
    return y


def _permutation(t: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(11)
    perm = torch.randperm(t, generator=g)
    if t > 1 and bool((perm == torch.arange(t)).all()):
        perm = perm.roll(1)
    return perm


def class_checks(target: Target, subject: Subject, roles: Roles, req: Request, main: Optional[Run]):
    checks, skipped = [], []
    x, t = req.x, req.tokens
    plain = subject.call(x, x, x, None)
    if plain.error is not None or plain.out is None:
        return [], [{"id": c, "reason": "check_skip_crash"} for c in CHECKS]
    th = locate(plain, roles if roles.matched else None, req.d_model)
    w = th.final_weights if th.final_weights is not None else th.tensors.get("softmax")
    c = _rows_check(w, t, None)
    checks.append(c) if c else skipped.append({"id": "rows_sum_to_one", "reason": "check_skip_no_weights"})
    # permutation
    if t > 1:
        perm = _permutation(t)
        xp = x[:, perm]
        pr = subject.call(xp, xp, xp, None)
        if pr.out is not None:
            change = _max_change(pr.out, plain.out[:, perm])
            checks.append(_check("permutation", change <= _tol(plain.out), max_diff=change))
        else:
            skipped.append({"id": "permutation", "reason": "check_skip_crash"})
    else:
        skipped.append({"id": "permutation", "reason": "check_skip_one_token"})
    # causal
    if target.mask_name is None:
        skipped.append({"id": "causal_no_future", "reason": "check_skip_no_mask_argument"})
    elif t < 2:
        skipped.append({"id": "causal_no_future", "reason": "check_skip_one_token"})
    else:
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        j = t // 2 if t > 2 else 1
        a = subject.call(x, x, x, causal)
        xb = _perturb(x, j)
        b = subject.call(xb, xb, xb, causal)
        if a.out is not None and b.out is not None:
            change = _max_change(a.out[:, :j], b.out[:, :j])
            checks.append(_check("causal_no_future", change <= _tol(a.out[:, :j]), position=j,
                                 max_diff=min(change, 1e30)))
        else:
            skipped.append({"id": "causal_no_future", "reason": "check_skip_crash"})
    # each head its own slice of q
    c = _heads_check_class(subject, roles, req, plain, th)
    checks.append(c) if isinstance(c, dict) and "passed" in c else skipped.append(c)
    c = _spread_check_class(target, req)
    checks.append(c) if "passed" in c else skipped.append(c)
    return checks, skipped


def _per_head(th: Theirs, h: int, t: int) -> Optional[torch.Tensor]:
    """Their per-head observable, as (H, ...) in their layout: the weights, else the weighted sum."""
    for key in ("softmax", "weighted_sum"):
        v = th.tensors.get(key)
        if v is not None and v.dim() >= 3 and v.numel() % h == 0:
            if v.dim() == 4 and v.size(1) == h:
                return v[0]
            if v.dim() == 3 and v.size(0) == h:  # (B*H, T, X) with B = 1
                return v
    return None


def _heads_check_class(subject: Subject, roles: Roles, req: Request, plain: Run, th: Theirs) -> dict:
    h, hd = req.num_heads, req.head_dim
    if h < 2:
        return {"id": "heads_own_slice", "reason": "check_skip_one_head"}
    if not roles.q:
        return {"id": "heads_own_slice", "reason": "check_skip_no_projection"}
    before = _per_head(th, h, req.tokens)
    if before is None:
        return _check("heads_own_slice", False, key="check_heads_own_slice_layout", heads=h)
    p = roles.q[0]
    g = torch.Generator().manual_seed(5)
    with torch.no_grad():
        saved = p.param.detach().clone()
        if len(roles.q) == 1:
            rows = slice(p.rows.start, p.rows.start + hd)  # head 0's rows of the query projection
            block = p.param[:, rows] if p.transposed else p.param[rows]
        else:
            block = p.param
        block += torch.randn(block.shape, generator=g) * 2 * (float(block.abs().max()) + 0.1)
    try:
        run = subject.call(req.x, req.x, req.x, None)
    finally:
        with torch.no_grad():
            p.param.copy_(saved)
    after = _per_head(locate(run, roles, req.d_model), h, req.tokens) if run.out is not None else None
    if after is None or after.shape != before.shape:
        return {"id": "heads_own_slice", "reason": "check_skip_crash"}
    change = _max_change(after[1:], before[1:])
    own = _max_change(after[:1], before[:1])
    return _check("heads_own_slice", change <= _tol(before) and own > _tol(before), head=1,
                  max_diff=min(change, 1e30))


SPREAD_D = 64
SPREAD_HEADS = (16, 1)  # head_dim 4 and 64 on the same d_model


def _spread(logits: Optional[torch.Tensor]) -> Optional[float]:
    if logits is None:
        return None
    v = logits[torch.isfinite(logits) & (logits > BLOCKED)].to(torch.float64)
    return float(v.std()) if v.numel() > 1 else None


def _spread_check_class(target: Target, req: Request) -> dict:
    spreads = []
    g = torch.Generator().manual_seed(3)
    x = torch.randn(1, 32, SPREAD_D, generator=g)
    for h in SPREAD_HEADS:
        subject, exc = build(target, req, SPREAD_D, h, 0)
        if subject is None:
            return {"id": "score_spread", "reason": "check_skip_crash"}
        with torch.no_grad():  # weights that keep each feature's spread at 1: N(0, 1/fan_in)
            for _, p in subject.params.values():
                if p.dim() == 2:
                    p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p.size(1)))
                else:
                    p.zero_()
        run = subject.call(x, x, x, None)
        if run.error is not None:
            return {"id": "score_spread", "reason": "check_skip_crash"}
        sm = run.rec.first(SOFTMAX_OPS)
        s = _spread(sm.inputs[0] if sm is not None and sm.inputs else None)
        if s is None:
            return {"id": "score_spread", "reason": "check_skip_no_weights"}
        spreads.append(s)
    return _spread_result(spreads)


def _spread_result(spreads: list) -> dict:
    small, large = spreads
    ratio = large / small if small > 0 else float("inf")
    ok = 0.5 <= small <= 2 and 0.5 <= large <= 2 and 0.6 <= ratio <= 1.6
    return _check("score_spread", ok, head_dim_small=SPREAD_D // SPREAD_HEADS[0],
                  head_dim_large=SPREAD_D // SPREAD_HEADS[1], spread_small=small, spread_large=large, ratio=ratio)


def function_checks(target: Target, req: Request, q, k, v):
    checks, skipped = [], []
    t, h = q.size(-2), q.size(1)
    plain = call_function(target, q, k, v, None)
    if plain.out is None:
        return [], [{"id": c, "reason": "check_skip_crash"} for c in CHECKS]
    th = locate(plain, None, req.d_model)
    w = th.final_weights if th.final_weights is not None else th.tensors.get("softmax")
    if w is None and plain.weights is not None:
        w = plain.weights
    c = _rows_check(w, t, None)
    checks.append(c) if c else skipped.append({"id": "rows_sum_to_one", "reason": "check_skip_no_weights"})
    if t > 1:
        perm = _permutation(t)
        pr = call_function(target, q[:, :, perm], k[:, :, perm], v[:, :, perm], None)
        if pr.out is not None:
            change = _max_change(pr.out, plain.out[:, :, perm])
            checks.append(_check("permutation", change <= _tol(plain.out), max_diff=change))
    if target.mask_name is not None and t > 1:
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        j = t // 2 if t > 2 else 1
        a = call_function(target, q, k, v, causal)
        b = call_function(target, q, _perturb_axis(k, j), _perturb_axis(v, j), causal)
        if a.out is not None and b.out is not None:
            change = _max_change(a.out[:, :, :j], b.out[:, :, :j])
            checks.append(_check("causal_no_future", change <= _tol(a.out), position=j,
                                 max_diff=min(change, 1e30)))
    else:
        skipped.append({"id": "causal_no_future", "reason": "check_skip_no_mask_argument"})
    if h > 1:
        g = torch.Generator().manual_seed(5)
        q2 = q.clone()
        q2[:, 0] += 2 * torch.randn(q2[:, 0].shape, generator=g)
        r = call_function(target, q2, k, v, None)
        if r.out is not None:
            change = _max_change(r.out[:, 1:], plain.out[:, 1:])
            checks.append(_check("heads_own_slice", change <= _tol(plain.out), head=1, max_diff=min(change, 1e30)))
    spreads = []
    g = torch.Generator().manual_seed(3)
    for heads in SPREAD_HEADS:
        hd = SPREAD_D // heads
        qs, ks, vs = (torch.randn(1, heads, 32, hd, generator=g) for _ in range(3))
        r = call_function(target, qs, ks, vs, None)
        sm = r.rec.first(SOFTMAX_OPS)
        s = _spread(sm.inputs[0] if sm is not None and sm.inputs else None)
        if s is None:
            skipped.append({"id": "score_spread", "reason": "check_skip_no_weights"})
            break
        spreads.append(s)
    if len(spreads) == 2:
        checks.append(_spread_result(spreads))
    return checks, skipped


def _perturb_axis(t: torch.Tensor, start: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(7)
    y = t.clone()
    y[:, :, start:] += torch.randn(y[:, :, start:].shape, generator=g)
    return y
