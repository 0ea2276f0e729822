"""Their tensors at our steps, ours, and the comparison.

``locate`` reads their trace: the softmax's output is their weights; walking back from its input through
same-shaped ops (a scale by a number, a mask fill) reaches the matmul of the scores, whose left operand is their
split q; the first matmul after the softmax that uses what came of it is the weighted sum; what their output
projection received is the combine. ``our_steps`` gives ours from ``MultiHeadAttention.trace``. ``compare`` reads
their tensor in our shape (same number of values; a (B, T, H, X) layout is read as (B, H, T, X)) and ``first_wrong``
finds the first step that differs with no later step equal again.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Optional

import torch

from mha.check.projections import Roles
from mha.check.request import Request
from mha.check.running import Run
from mha.check.trace import MATMUL_OPS, SDPA_OPS, SOFTMAX_OPS, Record, Recorder
from mha.core.attention import MultiHeadAttention
from mha.core.inputs import init_weights

BLOCKED = -1e4  # a score at or below this counts as blocked (learners write -1e9, -1e4, float('-inf'))
RTOL = 1e-4  # equal: |theirs - ours| <= RTOL * max(1, max |ours|) (float32 on both sides)
SCALE_OPS = frozenset({"div", "mul"})
MASK_OPS = frozenset({"masked_fill", "where", "index_put"})


# --- their steps ------------------------------------------------------------------------------------------------------

@dataclass
class Theirs:
    """Their tensors at our steps (None: not observed), the record that made each, and what the trace shows."""

    tensors: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)
    softmax: Optional[Record] = None
    scores: Optional[Record] = None  # the QK^T matmul
    weighted: Optional[Record] = None  # weights @ V (or F.scaled_dot_product_attention)
    final_weights: Optional[torch.Tensor] = None  # the weights fed to the weighted sum
    scale_op: Optional[Record] = None
    mask_op: Optional[Record] = None
    masked_after_softmax: Optional[Record] = None  # a mask op applied to the weights
    split_records: list = field(default_factory=list)  # the ops that made q, k, v for the scores


def _value_of(rec: Recorder, t, before: int) -> Optional[torch.Tensor]:
    if not isinstance(t, torch.Tensor):
        return None
    p = rec.producer(t, before)
    if p is not None:
        return p.value
    return t.detach().clone()


def _is_scalar(a) -> bool:
    return isinstance(a, (int, float)) or (isinstance(a, torch.Tensor) and a.numel() == 1)


def _main_input(r: Record) -> Optional[torch.Tensor]:
    """The operand a same-shaped op carries on (not the mask, not the scalar)."""
    n = r.out.numel() if r.out is not None else -1
    for t in r.inputs:
        if t.numel() == n and t.dtype != torch.bool and t.is_floating_point():
            return t
    return None


def _additive_mask(a) -> bool:
    """A tensor added to the scores that blocks keys: large negative values (``(1 - mask) * -1e9``), not the row
    maximum a stable softmax subtracts."""
    return isinstance(a, torch.Tensor) and a.numel() > 1 and a.is_floating_point() and bool((a <= BLOCKED).any())


def manual_softmax(rec: Recorder) -> Optional[Record]:
    """``exp(s) / exp(s).sum(dim, keepdim=True)`` written out: the division, read as a softmax of ``s`` (its first
    input is ``s``, so the steps before it are found as for ``F.softmax``)."""
    for e in rec.records:
        if e.op != "exp" or not e.inputs:
            continue
        desc = rec.descendants(e)
        for d in rec.records[e.index + 1:e.index + 12]:
            if d.op == "div" and len(d.inputs) >= 2 and id(d.inputs[0]) in desc and id(d.inputs[1]) in desc:
                sums = rec.producer(d.inputs[1], d.index)
                if sums is not None and sums.op == "sum":
                    return dataclasses.replace(d, inputs=[e.inputs[0]] + list(d.inputs[1:]),
                                               args=(e.inputs[0],) + tuple(d.args[1:]))
    return None


def _left_operand(r: Record) -> Optional[torch.Tensor]:
    ts = [t for t in r.inputs if isinstance(t, torch.Tensor)]
    if r.op == "rmatmul" and len(ts) >= 2:
        return ts[1]
    return ts[0] if ts else None


def locate(run: Run, roles: Optional[Roles], d_model: int) -> Theirs:
    rec, th = run.rec, Theirs()
    recs = rec.records
    # projections
    if roles is not None:
        for part in "qkv":
            ps = roles.of(part)
            found = [recs[p.record_index] for p in ps if 0 <= p.record_index < len(recs)]
            main = [r for r in recs if any(r.args[1:2] and r.args[1] is p.param for p in ps)
                    and r.op in ("linear", "matmul")]
            values = []
            for p in ps:
                r = next((r for r in main if r.args[1] is p.param), None)
                if r is None or r.value is None:
                    values = []
                    break
                values.append(r.value[..., p.rows])
            if values:
                th.tensors[f"proj_{part}"] = torch.cat(values, dim=-1) if len(values) > 1 else values[0]
                th.records.setdefault("projections", next(r for r in main if r.args[1] is ps[0].param))
            del found
    sm = rec.first(SOFTMAX_OPS) or manual_softmax(rec)
    sdpa = rec.first(SDPA_OPS)
    if sm is not None and (sdpa is None or sm.index < sdpa.index):
        th.softmax = sm
        th.tensors["softmax"] = sm.value
        th.records["softmax"] = sm
        logits = sm.inputs[0] if sm.inputs else None
        cur, idx, chain, mm = logits, sm.index, [], None
        while isinstance(cur, torch.Tensor) and len(chain) < 40:
            p = rec.producer(cur, idx)
            if p is None:
                break
            if p.op in MATMUL_OPS:
                mm = p
                break
            chain.append(p)
            nxt = _main_input(p)
            if nxt is None:
                break
            cur, idx = nxt, p.index
        chain.reverse()  # forward order
        for p in chain:
            others = [a for a in p.args if a is not _main_input(p)]
            if p.op in SCALE_OPS and th.scale_op is None and any(_is_scalar(a) for a in others):
                th.scale_op = p
            elif p.op in MASK_OPS or (p.op in ("add", "sub") and any(_additive_mask(a) for a in others)):
                th.mask_op = p
        if mm is not None:
            th.scores = mm
            th.tensors["scores"] = mm.value
            th.records["scores"] = mm
            q = _left_operand(mm)
            qp = rec.producer(q, mm.index) if q is not None else None
            if qp is not None and qp.op in SCALE_OPS and _main_input(qp) is not None:
                q = _main_input(qp)  # q scaled before the product: the split is what came before
            th.tensors["split"] = _value_of(rec, q, mm.index)
            th.records["split"] = rec.producer(q, mm.index) if q is not None else None
        if th.scale_op is not None:
            th.tensors["scale"] = th.scale_op.value
            th.records["scale"] = th.scale_op
        elif mm is not None:
            th.tensors["scale"] = mm.value
            th.records["scale"] = mm
        if th.mask_op is not None:
            th.tensors["mask"] = th.mask_op.value
            th.records["mask"] = th.mask_op
        elif logits is not None:
            th.tensors["mask"] = _value_of(rec, logits, sm.index)
            th.records["mask"] = rec.producer(logits, sm.index)
        desc = rec.descendants(sm)
        for r in recs[sm.index + 1:]:
            if r.op in MASK_OPS and any(id(t) in desc for t in r.inputs) and th.masked_after_softmax is None:
                th.masked_after_softmax = r
            if r.op in MATMUL_OPS and any(id(t) in desc for t in r.inputs):
                th.weighted = r
                w = next(t for t in r.inputs if id(t) in desc)
                th.final_weights = _value_of(rec, w, r.index)
                break
    elif sdpa is not None:
        th.weighted = sdpa
        th.tensors["split"] = _value_of(rec, sdpa.inputs[0], sdpa.index) if sdpa.inputs else None
        th.records["split"] = rec.producer(sdpa.inputs[0], sdpa.index) if sdpa.inputs else None
    if th.weighted is not None:
        th.tensors["weighted_sum"] = th.weighted.value
        th.records["weighted_sum"] = th.weighted
    # the split's producers, for the fixes (the view / reshape lines of q, k, v)
    if th.scores is not None:
        for t in th.scores.inputs[:2]:
            p = rec.producer(t, th.scores.index)
            while p is not None and p.op in ("transpose", "permute", "contiguous", "div", "mul"):
                nxt = _main_input(p)
                nxt = nxt if nxt is not None else (p.inputs[0] if p.inputs else None)
                p = rec.producer(nxt, p.index) if nxt is not None else None
            if p is not None:
                th.split_records.append(p)
    if th.weighted is not None and len(th.weighted.inputs) >= 2:
        p = rec.producer(th.weighted.inputs[-1], th.weighted.index)
        if p is not None and p.op in ("view", "reshape", "transpose", "permute"):
            th.split_records.append(p)
    # combine: what their output projection received
    if roles is not None and roles.out is not None:
        o = next((r for r in recs if r.op in ("linear", "matmul") and r.args[1:2] and r.args[1] is roles.out.param),
                 None)
        if o is not None and o.inputs:
            th.tensors["combine"] = _value_of(rec, o.inputs[0], o.index)
            th.records["combine"] = rec.producer(o.inputs[0], o.index)
    if run.out is not None:
        th.tensors["output"] = run.out
        th.records["output"] = next((r for r in reversed(recs) if r.value is not None
                                     and r.value.shape == run.out.shape and torch.equal(r.value, run.out)), None)
    return th


# --- ours -------------------------------------------------------------------------------------------------------------

def seeded(d_model: int, num_heads: int, seed: int) -> MultiHeadAttention:
    """Our module as the app builds it (mha.weights.view's seeded module), a private copy."""
    return init_weights(MultiHeadAttention(d_model, num_heads), seed).eval()


def our_steps(ours: MultiHeadAttention, x: torch.Tensor, allowed, out_bias: bool) -> dict:
    with torch.no_grad():
        if not out_bias:
            ours = _without_out_bias(ours)
        tr = ours.trace(x, x, x, allowed)
        raw = torch.matmul(tr.q, tr.k.transpose(-2, -1))
        masked = tr.scores if allowed is None else tr.scores.masked_fill(~allowed, float("-inf"))
        return {"projections": ours.query_linear(x), "proj_k": ours.key_linear(x), "proj_v": ours.value_linear(x),
                "split": tr.q, "scores": raw, "scale": tr.scores, "mask": masked, "softmax": tr.weights,
                "weighted_sum": tr.head_outputs, "combine": tr.concat, "output": tr.output,
                "fully_masked": tr.fully_masked[0, 0], "k": tr.k, "v": tr.v}


def _without_out_bias(ours: MultiHeadAttention) -> MultiHeadAttention:
    twin = MultiHeadAttention(ours.d_model, ours.num_heads)
    twin.load_state_dict(ours.state_dict())
    with torch.no_grad():
        twin.output_linear.bias.zero_()
    return twin.eval()


# --- comparing --------------------------------------------------------------------------------------------------------

@dataclass
class Compared:
    equal: bool
    max_diff: Optional[float]
    theirs: Optional[torch.Tensor]  # in our shape, or None (not observed or another shape)
    shape: Optional[list]  # their tensor's shape as they had it


def compare(ours: torch.Tensor, theirs: Optional[torch.Tensor], rows_ok: Optional[torch.Tensor] = None,
            masked: bool = False) -> Optional[Compared]:
    """None if not observed; else whether their tensor equals ours (same number of values, read in our shape)."""
    if theirs is None:
        return None
    shape = [int(s) for s in theirs.shape]
    if theirs.numel() != ours.numel() or not theirs.is_floating_point():
        return Compared(False, None, None, shape)
    if ours.dim() == 4 and theirs.dim() == 4 and ours.size(1) != ours.size(2) and tuple(theirs.shape) == (
            ours.size(0), ours.size(2), ours.size(1), ours.size(3)):
        theirs = theirs.transpose(1, 2)  # (B, T, H, X): heads behind the tokens, as einsum "bqhd" writes it
    t = theirs.detach().reshape(ours.shape).to(torch.float64)
    o = ours.detach().to(torch.float64)
    return Compared(*_diff(o, t, rows_ok, masked), t, shape)


def _diff(o, t, rows_ok, masked) -> tuple[bool, float]:
    if rows_ok is not None and not bool(rows_ok.all()):
        o, t = _rows(o, rows_ok), _rows(t, rows_ok)
    if o.numel() == 0:
        return True, 0.0
    if masked:
        ob, tb = o <= BLOCKED, t.isnan() | (t <= BLOCKED)
        same_blocks = bool((ob == tb).all())
        keep = ~ob & ~tb
        o, t = o[keep], t[keep]
        if o.numel() == 0:
            return same_blocks, 0.0
    else:
        same_blocks = True
    finite = torch.isfinite(t)
    d = (o - torch.where(finite, t, o)).abs()
    worst = float(d.max()) if d.numel() else 0.0
    tol = RTOL * max(1.0, float(o.abs().max()) if o.numel() else 1.0)
    return same_blocks and bool(finite.all()) and worst <= tol, min(worst, 1e30)


def _rows(t: torch.Tensor, rows_ok: torch.Tensor) -> torch.Tensor:
    """Keep the query rows that are not fully masked: axis -2 of (1, H, T, X); axis 1 of (1, T, d)."""
    return t[..., rows_ok, :]


def first_wrong(compared: dict, order) -> Optional[str]:
    """The first step that differs with no later step equal again (equal later: the difference is only how they
    wrote it, e.g. the scale folded into q)."""
    seen = [(s, compared[s]) for s in order if compared.get(s) is not None]
    for i, (s, c) in enumerate(seen):
        if not c.equal and not any(later.equal for _, later in seen[i + 1:]):
            return s
    return None


def _matrix(t: Optional[torch.Tensor]) -> Optional[list]:
    if t is None:
        return None
    t = t.detach().to(torch.float64).round(decimals=6)
    if bool(torch.isfinite(t).all()):
        return t.tolist()
    return [[(v if math.isfinite(v) else None) for v in row] for row in t.tolist()]


def _one_head(step: str, t: Optional[torch.Tensor], head: int) -> Optional[torch.Tensor]:
    if t is None:
        return None
    if step in ("projections", "combine", "output"):
        return t[0]  # (T, d_model)
    return t[0, head]  # (T, T) or (T, head_dim)


def pick_head(req: Request, first: Optional[str], compared: dict, mine: dict) -> int:
    """The head shown: the learner's choice, else the one where the first wrong step differs most."""
    if req.head is not None:
        return req.head
    c = compared.get(first) if first else None
    if c is None or c.theirs is None or c.theirs.dim() != 4 or first in ("projections", "combine", "output"):
        return 0
    o = mine[first].to(torch.float64)
    d = (c.theirs - o).abs().nan_to_num(nan=1e30, posinf=1e30)
    d = torch.where(torch.isinf(o) & (o == c.theirs), 0.0, d)  # both blocked: no difference
    return int(d.flatten(2).amax(-1)[0].argmax())


MAX_CELLS = 150_000  # numbers of matrices in one answer; past it only the first wrong step and the weights


def step_rows(order, mine: dict, compared: dict, head: int, first: Optional[str]) -> list:
    budget = MAX_CELLS
    shown = set()
    for step in [first, "softmax", *order]:
        if step in order and step not in shown:
            c = compared.get(step)
            whole = step in ("projections", "combine", "output")
            cells = mine[step][0].numel() if whole else mine[step][0, 0].numel()
            cells *= 2 if c is not None and c.theirs is not None else 1
            if cells <= budget:
                budget -= cells
                shown.add(step)
    # Before the first wrong step, a step that differs is only written another way (a later step agrees again,
    # e.g. the scale folded into q): "written_differently", not wrong.
    before = order[:order.index(first)] if first in order else list(order)
    return [_step_row(s, mine, compared.get(s), head, s in shown, s in before) for s in order]


def _step_row(step: str, mine: dict, c: Optional[Compared], head: int, matrices: bool = True,
              before_first: bool = False) -> dict:
    other_way = c is not None and not c.equal and before_first
    return {"id": step, "max_diff": None if c is None else c.max_diff,
            "equal": None if c is None or other_way else c.equal, "written_differently": other_way,
            "ours": _matrix(_one_head(step, mine[step], head)) if matrices else None,
            "theirs": (None if c is None or c.theirs is None or not matrices
                       else _matrix(_one_head(step, c.theirs, head))),
            "theirs_shape": None if c is None else c.shape, "head": head, "omitted": not matrices}
