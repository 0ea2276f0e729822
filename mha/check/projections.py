"""Which of the learner's parameters projects the query, the key, the value and the output, whatever they are named,
and our weights copied into them.

Their module runs once on three different inputs; each call of a 2-D parameter (``F.linear`` of an ``nn.Linear``,
or ``x @ W`` of a raw ``nn.Parameter``) is named by the input it met. One full ``nn.Linear(d, d)`` per role, one
fused ``nn.Linear(d, 3d)`` (q | k | v) or ``(d, 2d)`` (k | v), or one ``nn.Linear(d, head_dim)`` per head; code that
feeds every projection the same tensor is read in call order (q, k, v). The output projection is the last
``d x d`` call on anything else.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import torch
import torch.nn as nn

from mha.check.running import Run, Subject
from mha.core.attention import MultiHeadAttention

# --- which projection is which ---------------------------------------------------------------------------------------

@dataclass
class Projection:
    role: str  # "q", "k", "v", "out"
    param: torch.Tensor  # their weight
    name: str
    rows: slice  # the rows of (their weight as out x in) that hold this role
    transposed: bool  # a raw parameter used as x @ W: (in, out)
    bias: Optional[torch.Tensor] = None
    record_index: int = -1


@dataclass
class Roles:
    q: list = field(default_factory=list)  # Projections: one full, or num_heads head slices in order
    k: list = field(default_factory=list)
    v: list = field(default_factory=list)
    out: Optional[Projection] = None
    matched: bool = False  # every role found with shapes our weights fit
    params: set = field(default_factory=set)  # ids of their weights we identified

    def of(self, role: str) -> list:
        return getattr(self, role)


def _projection_calls(run: Run, subject: Subject, inputs: dict, values: dict) -> list:
    """[(input role, weight, name, transposed, bias, record)] for each call of their module's 2-D parameters."""
    calls = []
    for r in run.rec.records:
        if r.op == "linear" and len(r.args) >= 2:
            w, b, x = r.args[1], (r.args[2] if len(r.args) > 2 else r.kwargs.get("bias")), r.args[0]
            transposed = False
        elif r.op == "matmul" and len(r.args) == 2 and isinstance(r.args[1], nn.Parameter):
            x, w, b, transposed = r.args[0], r.args[1], None, True
        else:
            continue
        if not (isinstance(w, torch.Tensor) and id(w) in subject.params and w.dim() == 2):
            continue
        role = next((name for name, t in inputs.items() if x is t), None)  # the very tensor they were given
        if role is None:  # or a copy of it (x.float(), x.clone(), x.contiguous() on a view)
            role = next((name for name, t in values.items() if isinstance(x, torch.Tensor) and x.shape == t.shape
                         and torch.equal(x, t)), "other")
        bias = b if isinstance(b, torch.Tensor) and id(b) in subject.params else None
        calls.append((role, w, subject.params[id(w)][0], transposed, bias, r))
    return calls


def find_roles(subject: Subject, x: torch.Tensor) -> tuple[Roles, Run]:
    """Run their module once with different query, key and value inputs and name each projection by its input."""
    g = torch.Generator().manual_seed(1234)
    xq = x.clone()
    xk = x + 0.5 * torch.randn(x.shape, generator=g)
    xv = x - 0.5 * torch.randn(x.shape, generator=g)
    run = subject.call(xq, xk, xv)
    roles = Roles()
    if run.error is not None:
        return roles, run
    d, h = subject.d_model, subject.num_heads
    hd = d // h
    calls = _projection_calls(run, subject, dict(zip("qkv", run.inputs)), {"q": xq, "k": xk, "v": xv})

    def out_features(w, transposed):
        return w.size(1) if transposed else w.size(0)

    def in_features(w, transposed):
        return w.size(0) if transposed else w.size(1)

    on_inputs = [c for c in calls if c[0] in ("q", "k", "v") and in_features(c[1], c[3]) == d]
    groups = {"q": [], "k": [], "v": []}
    for role, w, name, tr, b, r in on_inputs:
        n = out_features(w, tr)
        if n == 3 * d:  # fused q | k | v
            for i, part in enumerate("qkv"):
                groups[part].append(Projection(part, w, name, slice(i * d, (i + 1) * d), tr, b, r.index))
        elif n == 2 * d and role == "k":  # fused k | v
            for i, part in enumerate("kv"):
                groups[part].append(Projection(part, w, name, slice(i * d, (i + 1) * d), tr, b, r.index))
        elif n in (d, hd):
            groups[role].append(Projection(role, w, name, slice(0, n), tr, b, r.index))
    if not all(groups.values()):  # every projection met the same input (self-attention code): call order decides
        full = [p for ps in groups.values() for p in ps if p.rows.stop - p.rows.start == d]
        full.sort(key=lambda p: p.record_index)
        if len(full) == 3 and len({id(p.param) for p in full}) == 3:
            groups = {part: [Projection(part, p.param, p.name, p.rows, p.transposed, p.bias, p.record_index)]
                      for part, p in zip("qkv", full)}
    ok = True
    for part in "qkv":
        ps = groups[part]
        sizes = [p.rows.stop - p.rows.start for p in ps]
        if sizes == [d] or (len(ps) == h and all(s == hd for s in sizes) and hd != d):
            setattr(roles, part, ps)
        else:
            ok = False
    used = {id(p.param) for part in "qkv" for p in roles.of(part)}
    rest = [c for c in calls if c[0] == "other" and id(c[1]) not in used
            and in_features(c[1], c[3]) == d and out_features(c[1], c[3]) == d]
    if rest:
        role, w, name, tr, b, r = rest[-1]
        if b is None:  # x @ W_o + b_o: a 1-D parameter of d_model values added to the product is its bias
            b = _added_bias(run, subject, r, d)
        roles.out = Projection("out", w, name, slice(0, d), tr, b, r.index)
    roles.matched = ok
    roles.params = used | ({id(roles.out.param)} if roles.out else set())
    return roles, run


def _added_bias(run: Run, subject: Subject, product, d: int) -> Optional[torch.Tensor]:
    for r in run.rec.records[product.index + 1:product.index + 4]:
        if r.op == "add" and any(t is product.out for t in r.inputs):
            for t in r.inputs:
                if id(t) in subject.params and t.dim() == 1 and t.numel() == d:
                    return t
    return None


def copy_weights(roles: Roles, ours: MultiHeadAttention) -> bool:
    """Our weights into their projections (biases of q, k, v zeroed). True if their output projection has a bias
    (ours then keeps its own); False means ours runs with its output bias at zero."""
    d = ours.d_model
    hd = ours.head_dim
    with torch.no_grad():
        for part, src in (("q", ours.query_linear.weight), ("k", ours.key_linear.weight),
                          ("v", ours.value_linear.weight)):
            ps = roles.of(part)
            for i, p in enumerate(ps):
                rows = src if len(ps) == 1 else src[i * hd:(i + 1) * hd]
                _put(p, rows)
                if p.bias is not None:
                    p.bias[p.rows].zero_() if p.bias.numel() > d or len(ps) == 1 else p.bias.zero_()
        if roles.out is not None:
            _put(roles.out, ours.output_linear.weight)
            if roles.out.bias is not None and roles.out.bias.shape == ours.output_linear.bias.shape:
                roles.out.bias.copy_(ours.output_linear.bias)
                return True
    return False


def _put(p: Projection, rows: torch.Tensor) -> None:
    """Write ``rows`` (out x in, our layout) into their weight at the projection's rows."""
    if p.transposed:
        p.param[:, p.rows].copy_(rows.t())
    else:
        p.param[p.rows].copy_(rows)
