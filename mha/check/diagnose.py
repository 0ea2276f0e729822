"""The diagnosis: a learner's attention beside ours, step by step, on the same weights.

``diagnose(namespace, request) -> dict`` runs inside the sandboxed worker (``mha.check.worker``) on the namespace
the sandbox made of the learner's code (``mha.check.sandbox.compile_learner``). It

1. finds what to check: a class taking ``(d_model, num_heads)`` or ``(embed_size, heads)`` whose forward is
   ``(query, key, value, mask=None)`` or ``(values, keys, query, mask=None)``, or a bare
   ``scaled_dot_product_attention(Q, K, V[, mask])`` returning the output or ``(output, weights)``;
2. runs it once on three different inputs under a ``Recorder`` to learn which of its projections met the query,
   the key and the value (whatever they are named; one fused ``nn.Linear(d, 3d)`` too), and copies our seeded
   module's weights (``mha.attention.MultiHeadAttention``, seeded like the app) into them;
3. runs it on the learner's sentence and compares every step with ours (``MultiHeadAttention.trace``):
   projections, split, scores, scale, mask, softmax, weighted_sum, combine, output; the first wrong step is the
   first that differs with no later step equal again (a scale folded into q is not a wrong scores step);
4. names the bug when it is a known one (``mha.check.bugs_known``), with the one-line fix against their line;
5. runs the checks that need no reference weights (rows sum to 1, permutation, causal, heads' own slices, the
   scores' spread as head_dim grows);
6. explains a crash: their line, the shapes that met, and what the course's code does at that step.

The result is plain data (lists, floats, strings): messages are keys of ``mha/strings/check.py`` with their
``fmt``. Every value from the learner is hostile: any call may raise anything, return anything.
Matrices hold None where a value is not finite (a blocked score is -inf).
"""
from __future__ import annotations

import inspect
import math
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from mha.attention import MultiHeadAttention, attention_steps
from mha.check import bugs_known
from mha.check.trace import (LEARNER_FILENAME, MATMUL_OPS, SDPA_OPS, SOFTMAX_OPS, Record, Recorder,
                             exception_text, safe_text, traceback_line)
from mha.text import init_weights

STEPS = ("projections", "split", "scores", "scale", "mask", "softmax", "weighted_sum", "combine", "output")
FUNCTION_STEPS = ("scores", "scale", "mask", "softmax", "weighted_sum")
CHECKS = ("rows_sum_to_one", "permutation", "causal_no_future", "heads_own_slice", "score_spread")

# Names the two accepted constructors use (the course's, the second seed's) and their usual spellings.
DIM_NAMES = ("d_model", "embed_size", "embed_dim", "dim", "d", "hidden_size", "n_embd", "model_dim", "emb_dim")
HEAD_NAMES = ("num_heads", "heads", "n_heads", "h", "n_head", "nhead", "num_head", "nheads")
MASK_NAMES = ("mask", "attn_mask", "attention_mask")
BLOCKED = -1e4  # a score at or below this counts as blocked (learners write -1e9, -1e4, float('-inf'))
RTOL = 1e-4  # equal: |theirs - ours| <= RTOL * max(1, max |ours|) (float32 on both sides)
SCALE_OPS = frozenset({"div", "mul"})
MASK_OPS = frozenset({"masked_fill", "where", "index_put"})


class _Stop(Exception):
    """A finished answer found early (a crash, an unsupported input): carries the result dict."""

    def __init__(self, result: dict):
        super().__init__("diagnosis finished early")
        self.result = result


# --- what the learner gave us --------------------------------------------------------------------------------------

@dataclass
class Request:
    x: torch.Tensor  # (1, T, d_model) float32
    d_model: int
    num_heads: int
    allowed: Optional[torch.Tensor]  # (T, T) bool, True = may attend; None = no mask
    seed: int
    head: Optional[int]
    lines: list  # the learner's source lines (1-based: lines[0] is line 1), or [] if unknown

    @property
    def tokens(self) -> int:
        return self.x.size(1)

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads


def parse_request(request: dict, namespace: dict) -> Request:
    if not isinstance(request, dict):
        raise ValueError("request must be a dict")
    d, h = request.get("d_model"), request.get("num_heads")
    if not (isinstance(d, int) and isinstance(h, int)) or d < 1 or h < 1 or d % h:
        raise ValueError(f"d_model and num_heads must be integers with num_heads dividing d_model, got {d!r}, {h!r}")
    x = torch.tensor(request.get("x"), dtype=torch.float32)
    if x.dim() == 2:
        x = x[None]
    if x.dim() != 3 or x.size(0) != 1 or x.size(-1) != d or x.size(1) < 1 or not torch.isfinite(x).all():
        raise ValueError(f"x must be (1, T, d_model={d}) finite floats, got {tuple(x.shape)}")
    t = x.size(1)
    allowed = None
    if request.get("mask") is not None:
        allowed = torch.tensor(request["mask"]) != 0
        if tuple(allowed.shape) != (t, t):
            raise ValueError(f"mask must be {t} x {t}, got {tuple(allowed.shape)}")
        if bool(allowed.all()):
            allowed = None
    head = request.get("head")
    code = request.get("code")
    if not isinstance(code, str):
        code = namespace.get("__source__") if isinstance(namespace.get("__source__"), str) else ""
    lines = code.splitlines()
    if not lines:
        import linecache
        lines = [ln.rstrip("\n") for ln in linecache.getlines(LEARNER_FILENAME)]
    return Request(x=x, d_model=d, num_heads=h, allowed=allowed, seed=int(request.get("seed") or 0),
                   head=head if isinstance(head, int) and 0 <= head < h else None, lines=lines)


@dataclass
class Target:
    kind: str  # "class" | "function"
    obj: Any
    name: str
    swapped: bool = False  # constructor takes (num_heads, d_model)
    order: str = "qkv"  # forward's tensors: "qkv" (the course), "vkq" (the second seed), "x" (self-attention only)
    mask_name: Optional[str] = None  # the forward's mask parameter, if it takes one
    mask_positional: bool = True
    dim_name: str = "d_model"  # the constructor's name for d_model (for fixes written in their words)


def _learner_code(fn) -> bool:
    code = getattr(fn, "__code__", None)
    return isinstance(code, types.CodeType) and code.co_filename == LEARNER_FILENAME


def _params(fn) -> Optional[list]:
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None


def _positional(params) -> list:
    return [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _unsupported(key: str, **fmt) -> dict:
    return {"status": "unsupported", "kind": None, "message": {"key": key, "fmt": fmt}}


def find_target(namespace: dict) -> Target | dict:
    """The class or function to check, or an "unsupported" result saying what was expected."""
    classes, functions = [], []
    for name, value in list(namespace.items()):
        if not isinstance(name, str):
            continue
        if isinstance(value, type) and issubclass(value, nn.Module) and _learner_code(getattr(value, "forward", None)):
            classes.append((name, value))
        elif isinstance(value, types.FunctionType) and _learner_code(value):
            functions.append((name, value))
    found = ", ".join(safe_text(n, 40) for n, _ in classes + functions)[:200]
    if classes:
        classes.sort(key=lambda nv: (nv[0] != "MultiHeadAttention", "attention" not in nv[0].lower()))
        name, cls = classes[0]
        init = _params(cls.__init__)
        init = _positional(init[1:]) if init else []
        if len(init) < 2 or any(p.default is p.empty for p in init[2:]):
            return _unsupported("check_unsupported_init", name=safe_text(name, 60),
                                params=", ".join(safe_text(p.name, 30) for p in init))
        swapped = init[0].name in HEAD_NAMES and init[1].name in DIM_NAMES
        fwd = _params(cls.forward)
        fwd = fwd[1:] if fwd else []
        pos = _positional(fwd)
        mask = next((p for p in fwd if p.name in MASK_NAMES), None)
        tensors = [p for p in pos if p is not mask]
        if len(tensors) >= 3:
            order = "vkq" if tensors[0].name.startswith("value") else "qkv"
        elif len(tensors) == 1 and tensors[0].default is tensors[0].empty:
            order = "x"
        else:
            return _unsupported("check_unsupported_forward", name=safe_text(name, 60),
                                params=", ".join(safe_text(p.name, 30) for p in fwd))
        if mask is None and len(tensors) >= 4 and tensors[3].default is not tensors[3].empty:
            mask = tensors[3]  # a fourth optional argument is the mask, whatever its name
        return Target("class", cls, safe_text(name, 60), swapped, order,
                      None if mask is None else mask.name, mask is not None and mask in pos,
                      init[1 if swapped else 0].name)
    if functions:
        functions.sort(key=lambda nv: (nv[0] != "scaled_dot_product_attention", "attention" not in nv[0].lower()))
        name, fn = functions[0]
        params = _params(fn) or []
        pos = _positional(params)
        if len(pos) < 3 or any(p.default is p.empty for p in pos[4:]):
            return _unsupported("check_unsupported_function", name=safe_text(name, 60),
                                params=", ".join(safe_text(p.name, 30) for p in params))
        mask = pos[3] if len(pos) >= 4 else None
        return Target("function", fn, safe_text(name, 60), order="qkv",
                      mask_name=None if mask is None else mask.name)
    return _unsupported("check_unsupported_none", found=found)


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
                                                                      "expected": _shape_text(expected)}}
    if tuple(value.shape) != expected:
        return None, None, {"key": "check_bad_output_shape", "fmt": {"shape": _shape_text(value.shape),
                                                                       "expected": _shape_text(expected)}}
    if not value.is_floating_point():
        return None, None, {"key": "check_bad_output_type", "fmt": {"type": safe_text(value.dtype, 40),
                                                                      "expected": _shape_text(expected)}}
    return value.detach().to(torch.float32), weights, None


def _shape_text(shape) -> str:
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
        if allowed is not None and self.target.mask_name is not None:
            if self.target.mask_positional and order != "x":
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
        roles.out = Projection("out", w, name, slice(0, d), tr, b, r.index)
    roles.matched = ok
    roles.params = used | ({id(roles.out.param)} if roles.out else set())
    return roles, run


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


# --- their steps -------------------------------------------------------------------------------------------------------

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
    sm = rec.first(SOFTMAX_OPS)
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
            elif p.op in MASK_OPS or (p.op in ("add", "sub") and any(isinstance(a, torch.Tensor)
                                                                      and a.numel() > 1 for a in others)):
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


# --- ours ------------------------------------------------------------------------------------------------------------

def seeded(d_model: int, num_heads: int, seed: int) -> MultiHeadAttention:
    """Our module as the app builds it (mha.view's seeded module), a private copy."""
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


# --- comparing -------------------------------------------------------------------------------------------------------

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


# --- the class -----------------------------------------------------------------------------------------------------

# What the course's code does at each step, quoted (the comment gives this request's shapes).
COURSE_AT = {
    "init": "self.query_linear = nn.Linear(d_model, d_model, bias=False)  # and key_linear, value_linear\n"
            "self.output_linear = nn.Linear(d_model, d_model)",
    "projections": "query = self.query_linear(query)  # {x} -> {x}",
    "split": "x = x.reshape(batch_size, seq_length, self.num_heads, self.head_dim)  # {x} -> {bthd}\n"
             "return x.permute(0, 2, 1, 3)  # -> {bhtd}",
    "scores": "scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)  # {bhtd} @ {bhdt} -> {bhtt}",
    "scale": "scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)  # / {sqrt}",
    "mask": "scores = scores.masked_fill(mask == 0, float('-inf'))  # mask {tt}: 1 = may attend",
    "softmax": "attention_weights = F.softmax(scores, dim=-1)  # {bhtt}, each row sums to 1 over the keys",
    "weighted_sum": "return torch.matmul(attention_weights, value)  # {bhtt} @ {bhtd} -> {bhtd}",
    "combine": "x = x.permute(0, 2, 1, 3).contiguous()  # {bhtd} -> {bthd}\n"
               "return x.view(batch_size, -1, self.d_model)  # -> {x}",
    "output": "return self.output_linear(output)  # {x} -> {x}",
}


def course_at(step: str, req: Request) -> str:
    b, t, d, h, hd = 1, req.tokens, req.d_model, req.num_heads, req.head_dim
    shapes = {"x": (b, t, d), "bthd": (b, t, h, hd), "bhtd": (b, h, t, hd), "bhdt": (b, h, hd, t),
              "bhtt": (b, h, t, t), "tt": (t, t)}
    fmt = {k: _shape_text(v) for k, v in shapes.items()}
    fmt["sqrt"] = f"sqrt({hd}) = {math.sqrt(hd):.4g}"
    return COURSE_AT.get(step, "").format(**fmt)


def _crash(run: Run, req: Request, target: Target, at_init: bool = False, subject=None) -> dict:
    exc = run.error if run is not None else None
    failed = run.rec.failed if run is not None else None
    step = bugs_known.crash_step(run.rec) if run is not None and not at_init else "init"
    name = safe_text(getattr(type(exc), "__name__", "Exception"), 60) if exc is not None else ""
    crash = {
        "line": traceback_line(exc) if exc is not None else None,
        "message": exception_text(exc) if exc is not None else "",
        "error": name,
        "text": safe_text(exc) if exc is not None else "",
        "shapes": failed.in_shapes if failed is not None else [],
        "op": failed.op if failed is not None else None,
        "step": step,
        "key": f"check_crash_{step}",
        "fmt": {"d_model": req.d_model, "num_heads": req.num_heads, "head_dim": req.head_dim, "tokens": req.tokens,
                "x": _shape_text((1, req.tokens, req.d_model)),
                "theirs": ", ".join(_shape_text(s) for s in failed.in_shapes) if failed is not None else ""},
        "ours": course_at(step, req),
    }
    bug = None
    if run is not None and not at_init:
        names = {k: n for k, (n, _) in subject.params.items()} if subject is not None else {}
        bug = bugs_known.name_crash(run.rec, req, target, names)
    return {"status": "crash", "kind": target.kind, "max_diff": None, "first_step": None, "steps": [],
            "trace": run.rec.lines() if run is not None else [], "bug": bug, "checks": [], "crash": crash,
            "message": None}


def _build(target: Target, req: Request, d_model: int, num_heads: int, seed: int):
    try:
        return Subject(target, d_model, num_heads, seed), None
    except (Exception, SystemExit) as exc:  # noqa: BLE001
        return None, exc


def diagnose_class(target: Target, req: Request) -> dict:
    subject, exc = _build(target, req, req.d_model, req.num_heads, req.seed)
    if subject is None:
        run = Run(Recorder(), error=exc)
        result = _crash(run, req, target, at_init=True)
        result["crash"]["line"] = traceback_line(exc)
        return result
    ours = seeded(req.d_model, req.num_heads, req.seed)
    roles, probe = find_roles(subject, req.x)
    if probe.error is not None:
        return _crash(probe, req, target, subject=subject)
    if probe.bad is not None:
        return _bad(target, probe)
    out_bias = copy_weights(roles, ours) if roles.matched else True
    result = _compare_class(subject, roles, ours, req, req.allowed, out_bias)
    if result["status"] == "equal" and req.allowed is None and target.mask_name is not None and req.tokens > 1:
        causal = torch.ones(req.tokens, req.tokens, dtype=torch.bool).tril()
        demo = _compare_class(subject, roles, ours, req, causal, out_bias)
        if demo["status"] == "differs" and not demo.get("_mask_used"):  # a mask their code never reads: a note
            result["message"] = result.get("message") or {"key": "check_mask_unread", "fmt": {}}
        elif demo["status"] == "differs":  # a bug only a mask shows: shown with a causal one
            result = demo
            result.pop("_mask_used", None)
            result["mask_demo"] = True
            result["message"] = result.get("message") or {"key": "check_mask_demo", "fmt": {}}
    result["checks"], result["checks_skipped"] = class_checks(target, subject, roles, req, result.get("_run"))
    result.pop("_run", None)
    result.pop("_mask_used", None)
    if not roles.matched and result["status"] in ("equal", "differs"):
        result["status"] = "unsupported"
        result["message"] = {"key": "check_weights_unmatched", "fmt": {"found": _found_projections(subject, roles)}}
    return result


def _found_projections(subject: Subject, roles: Roles) -> str:
    return "; ".join(f"{part}: {', '.join(p.name for p in roles.of(part)) or '?'}" for part in "qkv")[:200]


def _bad(target: Target, run: Run) -> dict:
    return {"status": "bad_output", "kind": target.kind, "max_diff": None, "first_step": None, "steps": [],
            "trace": run.rec.lines(), "bug": None, "checks": [], "crash": None, "message": run.bad}


def _compare_class(subject: Subject, roles: Roles, ours: MultiHeadAttention, req: Request, allowed,
                   out_bias: bool) -> dict:
    x = req.x
    run = subject.call(x, x, x, allowed)
    if run.error is not None:
        return _crash(run, req, subject.target, subject=subject)
    if run.bad is not None:
        return _bad(subject.target, run)
    mine = our_steps(ours, x, allowed, out_bias)
    th = locate(run, roles if roles.matched else None, req.d_model)
    rows_ok = ~mine["fully_masked"]
    compared = {}
    order = [s for s in STEPS if s != "mask" or allowed is not None]
    if roles.matched:
        for step in order:
            rows = rows_ok if step in ("softmax", "weighted_sum", "combine", "output") else None
            compared[step] = compare(mine[step], th.tensors.get(step), rows, masked=step == "mask")
        projs = [compare(mine[k], th.tensors.get(f"proj_{p}")) for k, p in
                 (("projections", "q"), ("proj_k", "k"), ("proj_v", "v"))]
        projs = [c for c in projs if c is not None]
        if projs:
            worst = max((c for c in projs), key=lambda c: (not c.equal, c.max_diff or 0.0))
            compared["projections"] = Compared(all(c.equal for c in projs), worst.max_diff,
                                               compare(mine["projections"], th.tensors.get("proj_q")).theirs
                                               if th.tensors.get("proj_q") is not None else None, worst.shape)
    out_cmp = compared.get("output")
    first = first_wrong(compared, order)
    status = "equal" if out_cmp is not None and out_cmp.equal else "differs"
    if status == "equal":
        first = None
    elif first is None:
        first = "output"
    bug = bugs_known.name_bug(first, th, mine, compared, req, allowed, subject, roles) if status == "differs" else None
    if bug is not None and bug.get("step") in compared and bug["step"] != first:
        first = bug["step"]
    head = _pick_head(req, first, compared, mine)
    wrong = set()
    if first is not None and th.records.get(first) is not None:
        wrong.add(th.records[first].index)
    steps = _step_rows(order, mine, compared, head, first)
    nan = run.out is not None and not bool(torch.isfinite(run.out).all())
    return {"status": status, "kind": "class", "max_diff": None if out_cmp is None else out_cmp.max_diff,
            "first_step": first, "steps": steps, "trace": run.rec.lines(wrong), "bug": bug, "checks": [],
            "crash": None, "mask_demo": False,
            "message": {"key": "check_output_nan", "fmt": {}} if nan else None, "_run": run,
            "_mask_used": run.mask_used}


def _pick_head(req: Request, first: Optional[str], compared: dict, mine: dict) -> int:
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


def _step_rows(order, mine: dict, compared: dict, head: int, first: Optional[str]) -> list:
    budget = MAX_CELLS
    shown = set()
    for step in [first, "softmax", *order]:
        if step in order and step not in shown:
            c = compared.get(step)
            cells = mine[step][0, 0].numel() if step not in ("projections", "combine", "output") else mine[step][0].numel()
            cells *= 2 if c is not None and c.theirs is not None else 1
            if cells <= budget:
                budget -= cells
                shown.add(step)
    return [_step_row(s, mine, compared.get(s), head, s in shown) for s in order]


def _step_row(step: str, mine: dict, c: Optional[Compared], head: int, matrices: bool = True) -> dict:
    return {"id": step, "max_diff": None if c is None else c.max_diff, "equal": None if c is None else c.equal,
            "ours": _matrix(_one_head(step, mine[step], head)) if matrices else None,
            "theirs": None if c is None or c.theirs is None or not matrices else _matrix(_one_head(step, c.theirs, head)),
            "theirs_shape": None if c is None else c.shape, "head": head, "omitted": not matrices}


# --- the bare function ---------------------------------------------------------------------------------------------

def diagnose_function(target: Target, req: Request) -> dict:
    ours = seeded(req.d_model, req.num_heads, req.seed)
    with torch.no_grad():
        tr = ours.trace(req.x, req.x, req.x, req.allowed)
    q, k, v = tr.q, tr.k, tr.v
    result = _compare_function(target, req, q, k, v, req.allowed)
    if result["status"] == "equal" and req.allowed is None and target.mask_name is not None and req.tokens > 1:
        causal = torch.ones(req.tokens, req.tokens, dtype=torch.bool).tril()
        demo = _compare_function(target, req, q, k, v, causal)
        if demo["status"] == "differs" and not demo.get("_mask_used"):  # a mask their code never reads: a note
            result["message"] = result.get("message") or {"key": "check_mask_unread", "fmt": {}}
        elif demo["status"] == "differs":  # a bug only a mask shows: shown with a causal one
            result = demo
            result.pop("_mask_used", None)
            result["mask_demo"] = True
            result["message"] = result.get("message") or {"key": "check_mask_demo", "fmt": {}}
    result.pop("_mask_used", None)
    if result["status"] in ("equal", "differs"):
        result["checks"], result["checks_skipped"] = function_checks(target, req, q, k, v)
    return result


def call_function(target: Target, q, k, v, allowed) -> Run:
    args = (q.clone(), k.clone(), v.clone())
    mask = None
    if allowed is not None and target.mask_name is not None:
        mask = allowed.clone()
        args = args + (mask,)
    run = _call(target.obj, args, {}, tuple(q.shape))
    run.inputs, run.mask = args[:3], mask
    return run


def _compare_function(target: Target, req: Request, q, k, v, allowed) -> dict:
    run = call_function(target, q, k, v, allowed)
    if run.error is not None:
        return _crash(run, req, target)
    if run.bad is not None:
        return _bad(target, run)
    with torch.no_grad():
        st = attention_steps(q, k, v, allowed)
    raw = torch.matmul(q, k.transpose(-2, -1))
    masked = st.scores if allowed is None else st.scores.masked_fill(~allowed, float("-inf"))
    mine = {"scores": raw, "scale": st.scores, "mask": masked, "softmax": st.weights, "weighted_sum": st.output,
            "split": q, "fully_masked": st.fully_masked[0, 0], "k": k, "v": v}
    th = locate(run, None, req.d_model)
    th.tensors["weighted_sum"] = run.out
    if th.tensors.get("softmax") is None and run.weights is not None:
        th.tensors["softmax"] = run.weights.detach()
    rows_ok = ~mine["fully_masked"]
    order = [s for s in FUNCTION_STEPS if s != "mask" or allowed is not None]
    compared = {s: compare(mine[s], th.tensors.get(s), rows_ok if s in ("softmax", "weighted_sum") else None,
                           masked=s == "mask") for s in order}
    out_cmp = compared["weighted_sum"]
    status = "equal" if out_cmp is not None and out_cmp.equal else "differs"
    first = None if status == "equal" else (first_wrong(compared, order) or "weighted_sum")
    bug = bugs_known.name_bug(first, th, mine, compared, req, allowed, None, None) if first else None
    if bug is not None and bug.get("step") in compared and bug["step"] != first:
        first = bug["step"]
    head = _pick_head(req, first, compared, mine)
    wrong = {th.records[first].index} if first and th.records.get(first) is not None else set()
    nan = not bool(torch.isfinite(run.out).all())
    return {"status": status, "kind": "function", "max_diff": out_cmp.max_diff if out_cmp else None,
            "first_step": first, "steps": _step_rows(order, mine, compared, head, first),
            "trace": run.rec.lines(wrong), "bug": bug, "checks": [], "crash": None, "mask_demo": False,
            "message": {"key": "check_output_nan", "fmt": {}} if nan else None, "_mask_used": run.mask_used}


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
            checks.append(_check("causal_no_future", change <= _tol(a.out[:, :j]), position=j + 1,
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
        subject, exc = _build(target, req, SPREAD_D, h, 0)
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
            checks.append(_check("causal_no_future", change <= _tol(a.out), position=j + 1,
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


# --- the entry point -------------------------------------------------------------------------------------------------

def diagnose(namespace: dict, request: dict) -> dict:
    """The learner's attention beside ours (see the module docstring). Plain data only."""
    try:
        return _diagnose(namespace, request)
    except Exception as exc:  # noqa: BLE001 - learner code we did not foresee: a message, never a traceback
        return _unsupported("check_diagnosis_error", detail=exception_text(exc))


def _diagnose(namespace: dict, request: dict) -> dict:
    try:
        req = parse_request(request, namespace if isinstance(namespace, dict) else {})
    except (ValueError, TypeError, RuntimeError) as exc:
        return _unsupported("check_bad_request", detail=safe_text(exc))
    if not isinstance(namespace, dict):
        return _unsupported("check_unsupported_none", found="")
    target = find_target(namespace)
    if isinstance(target, dict):
        return target
    note = None
    if req.allowed is not None and target.mask_name is None:  # their code takes no mask: compare without one
        req.allowed = None
        note = {"key": "check_no_mask_argument", "fmt": {"name": target.name}}
    if target.kind == "class":
        result = diagnose_class(target, req)
    else:
        result = diagnose_function(target, req)
    result.setdefault("checks_skipped", [])
    result.setdefault("mask_demo", False)
    result["name"] = target.name
    if note is not None and result.get("message") is None:
        result["message"] = note
    if result["status"] == "equal" and req.tokens == 1 and result.get("message") is None:
        result["message"] = {"key": "check_one_token", "fmt": {}}  # one key: every weight is 1, bugs hide
    if result["status"] == "differs" and result.get("bug") is None and (result.get("message") or {}).get(
            "key") == "check_output_nan":
        result["status"] = "bad_output"  # NaN that no known bug explains: say so rather than compare
    return result
