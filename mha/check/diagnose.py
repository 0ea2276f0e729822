"""The diagnosis: a learner's attention beside ours, step by step, on the same weights.

``diagnose(namespace, request) -> dict`` runs inside the sandboxed worker (``mha.check.worker``) on the namespace
the sandbox made of the learner's code (``mha.check.sandbox.compile_learner``). It

1. finds what to check: a class taking ``(d_model, num_heads)`` or ``(embed_size, heads)`` whose forward is
   ``(query, key, value, mask=None)`` or ``(values, keys, query, mask=None)``, or a bare
   ``scaled_dot_product_attention(Q, K, V[, mask])`` returning the output or ``(output, weights)``;
2. runs it once on three different inputs under a ``Recorder`` to learn which of its projections met the query,
   the key and the value (whatever they are named; one fused ``nn.Linear(d, 3d)`` too), and copies our seeded
   module's weights (``mha.core.attention.MultiHeadAttention``, seeded like the app) into them;
3. runs it on the learner's sentence and compares every step with ours (``MultiHeadAttention.trace``):
   projections, split, scores, scale, mask, softmax, weighted_sum, combine, output; the first wrong step is the
   first that differs with no later step equal again (a scale folded into q is not a wrong scores step);
4. names the bug when it is a known one (``mha.check.bugs_known``), with the one-line fix against their line;
5. runs the checks that need no reference weights (rows sum to 1, permutation, causal, heads' own slices, the
   scores' spread as head_dim grows);
6. explains a crash: their line, the shapes that met, and what the course's code does at that step.

The request: ``tokens``, ``x`` (1, T, d_model) nested lists, ``d_model``, ``num_heads``, ``mask`` (T x T of 0/1,
1 = may attend, or None), ``seed``; optional ``head`` (the head to show) and ``code`` (else the namespace's
``__source__``). With no mask chosen, a class whose forward reads its mask is also run with a causal one, and
shown with it if only that differs (``mask_demo``). The result is plain data (strict JSON), messages are keys of
``mha/strings/check.py`` (block "# diagnosis") with their ``fmt``:

    status       "equal" | "differs" | "crash" | "unsupported" | "bad_output"
    kind, name   "class" | "function", and the name checked
    max_diff     largest |theirs - ours| of the output (the weighted sum for a function), or None
    first_step   the first wrong step, or None
    steps        [{id, equal (None: not seen in their code, or written_differently: it differs but a later
                   step agrees again, e.g. a scale folded into q), max_diff, ours, theirs (one head's matrix, or the
                   (T, d_model) one; None where a value is not finite, e.g. a blocked score), theirs_shape, head,
                   omitted (matrices left out past a size budget)}]
    trace        [{op, in: [shapes], out: shape, line, wrong}] of their torch calls (capped, with a "skipped" row)
    bug          {id, step, name, effect, fmt, zoo, fix: {line, old, new, more: [...]} or None, line} or None
    checks       [{id, passed, key, fmt}]; checks_skipped: [{id, reason}]
    crash        {line, message, error, text, shapes, op, step, key, fmt, ours: the course's code there} or None
    message      {key, fmt} or None: why unsupported or bad, or a note

Every value from the learner is hostile: any call may raise anything, return anything; every text taken from it
is short plain text (``mha.check.trace.safe_text``).
"""
from __future__ import annotations

import inspect
import math
import types
from typing import Optional

import torch
import torch.nn as nn

from mha.check import bugs_known
from mha.check.checks import class_checks, function_checks
from mha.check.projections import Roles, copy_weights, find_roles
from mha.check.request import Request, Target
from mha.check.running import Run, Subject, build, call_function, shape_text
from mha.check.steps import Compared, compare, first_wrong, locate, our_steps, pick_head, seeded, step_rows
from mha.check.trace import LEARNER_FILENAME, Recorder, exception_text, safe_text, traceback_line
from mha.core.attention import MultiHeadAttention, attention_steps

STEPS = ("projections", "split", "scores", "scale", "mask", "softmax", "weighted_sum", "combine", "output")
FUNCTION_STEPS = ("scores", "scale", "mask", "softmax", "weighted_sum")

# Names the two accepted constructors use (the course's, the second seed's) and their usual spellings.
DIM_NAMES = ("d_model", "embed_size", "embed_dim", "dim", "d", "hidden_size", "n_embd", "model_dim", "emb_dim")
HEAD_NAMES = ("num_heads", "heads", "n_heads", "h", "n_head", "nhead", "num_head", "nheads")
MASK_NAMES = ("mask", "attn_mask", "attention_mask")


# --- what the learner gave us --------------------------------------------------------------------------------------

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
        passed = 1 if order == "x" else 3  # tensors we pass by position; the mask follows them, or goes by name
        return Target("class", cls, safe_text(name, 60), swapped, order,
                      None if mask is None else mask.name, mask is not None and pos[passed:passed + 1] == [mask],
                      init[1 if swapped else 0].name, mask is not None and mask.default is mask.empty)
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
                      mask_name=None if mask is None else mask.name,
                      mask_required=mask is not None and mask.default is mask.empty)
    return _unsupported("check_unsupported_none", found=found)


# --- the class -----------------------------------------------------------------------------------------------------

# What the course's code does at each step, quoted (the comment gives this request's shapes).
COURSE_AT = {
    "init": "self.query_linear = nn.Linear(d_model, d_model, bias=False)  # and key_linear, value_linear\n"
            "self.output_linear = nn.Linear(d_model, d_model)",
    "projections": "query = self.query_linear(query)  # {x} -> {x}",
    "split": "x = x.reshape(batch_size, seq_length, self.num_heads, self.head_dim)  # {x} -> {bthd}\n"
             "return x.permute(0, 2, 1, 3)  # -> {bhtd}",
    "scores": "scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)  # {bhtd} @ {bhdt} -> {bhtt}",  # noqa: E501 (the course's line)
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
    fmt = {k: shape_text(v) for k, v in shapes.items()}
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
                "x": shape_text((1, req.tokens, req.d_model)),
                "theirs": ", ".join(shape_text(s) for s in failed.in_shapes) if failed is not None else ""},
        "ours": course_at(step, req),
    }
    bug = None
    if run is not None and not at_init:
        names = {k: n for k, (n, _) in subject.params.items()} if subject is not None else {}
        bug = bugs_known.name_crash(run.rec, req, target, names)
    return {"status": "crash", "kind": target.kind, "max_diff": None, "first_step": None, "steps": [],
            "trace": run.rec.lines() if run is not None else [], "bug": bug, "checks": [], "crash": crash,
            "message": None}


def diagnose_class(target: Target, req: Request) -> dict:
    subject, exc = build(target, req, req.d_model, req.num_heads, req.seed)
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
    result = _with_mask_demo(target, req, lambda allowed: _compare_class(subject, roles, ours, req, allowed, out_bias))
    result["checks"], result["checks_skipped"] = class_checks(target, subject, roles, req, result.get("_run"))
    result.pop("_run", None)
    result.pop("_mask_used", None)
    if not roles.matched and result["status"] in ("equal", "differs"):
        result["status"] = "unsupported"
        result["message"] = {"key": "check_weights_unmatched", "fmt": {"found": _found_projections(subject, roles)}}
    return result


def _with_mask_demo(target: Target, req: Request, compare) -> dict:
    """``compare(req.allowed)``, the class's or the function's answer; when that is equal, no mask was asked for and
    the code takes one, also ``compare`` under a causal mask: a bug only a mask shows is answered with that run
    (``mask_demo``), a mask the code never reads gets a note."""
    result = compare(req.allowed)
    if result["status"] != "equal" or req.allowed is not None or target.mask_name is None or req.tokens < 2:
        return result
    demo = compare(torch.ones(req.tokens, req.tokens, dtype=torch.bool).tril())  # (T, T) causal
    if demo["status"] != "differs":
        return result
    if not demo.get("_mask_used"):  # a mask their code never reads: a note
        result["message"] = result.get("message") or {"key": "check_mask_unread", "fmt": {}}
        return result
    demo.pop("_mask_used", None)  # a bug only a mask shows: shown with a causal one
    demo["mask_demo"] = True
    demo["message"] = demo.get("message") or {"key": "check_mask_demo", "fmt": {}}
    return demo


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
    if bug is not None and bug["id"] == "attention_over_heads" and compared.get("split") is not None:
        c = compared["split"]  # the right numbers, read in our layout; their layout is the bug
        compared["split"] = Compared(False, c.max_diff, c.theirs, c.shape)
    head = pick_head(req, first, compared, mine)
    wrong = set()
    if first is not None and th.records.get(first) is not None:
        wrong.add(th.records[first].index)
    steps = step_rows(order, mine, compared, head, first)
    nan = run.out is not None and not bool(torch.isfinite(run.out).all())
    return {"status": status, "kind": "class", "max_diff": None if out_cmp is None else out_cmp.max_diff,
            "first_step": first, "steps": steps, "trace": run.rec.lines(wrong), "bug": bug, "checks": [],
            "crash": None, "mask_demo": False,
            "message": {"key": "check_output_nan", "fmt": {}} if nan else None, "_run": run,
            "_mask_used": run.mask_used}


# --- the bare function ---------------------------------------------------------------------------------------------

def diagnose_function(target: Target, req: Request) -> dict:
    ours = seeded(req.d_model, req.num_heads, req.seed)
    with torch.no_grad():
        tr = ours.trace(req.x, req.x, req.x, req.allowed)
    q, k, v = tr.q, tr.k, tr.v
    result = _with_mask_demo(target, req, lambda allowed: _compare_function(target, req, q, k, v, allowed))
    result.pop("_mask_used", None)
    if result["status"] in ("equal", "differs"):
        result["checks"], result["checks_skipped"] = function_checks(target, req, q, k, v)
    return result


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
    head = pick_head(req, first, compared, mine)
    wrong = {th.records[first].index} if first and th.records.get(first) is not None else set()
    nan = not bool(torch.isfinite(run.out).all())
    return {"status": status, "kind": "function", "max_diff": out_cmp.max_diff if out_cmp else None,
            "first_step": first, "steps": step_rows(order, mine, compared, head, first),
            "trace": run.rec.lines(wrong), "bug": bug, "checks": [], "crash": None, "mask_demo": False,
            "message": {"key": "check_output_nan", "fmt": {}} if nan else None, "_mask_used": run.mask_used}


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
