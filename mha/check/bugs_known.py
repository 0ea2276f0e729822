"""Known attention bugs: how to recognise each in a learner's numbers, and the one-line fix against their code.

A bug is recognised by values, not by reading code: from our own q, k, v we compute what the bug would give at
each step it touches, and the bug is named when every one of those steps we could observe in their run equals
ours-with-the-bug (``matches``). The seven Bug zoo bugs (``mha.lessons.bugs``) keep their zoo ids; the others are named
here. Two are recognised by shape: the second seed's Linear(head_dim) fed d_model features (a crash) and its
attention over the heads axis once made to run.

The fix is a diff against the learner's own line: the line comes from the trace (the call that made the first
wrong tensor), the text from their source, and the new text from a small edit of that text; ``new`` is None when
their line is not in a form we can edit safely.
"""
from __future__ import annotations

import math
import re
from typing import Iterator, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from mha.check.trace import MATMUL_OPS, SDPA_OPS, SOFTMAX_OPS, Recorder, safe_text
from mha.lessons import bugs as zoo

MASK_OPS = frozenset({"masked_fill", "where", "index_put"})

# id -> the step it breaks. Zoo ids as in mha.lessons.bugs; "seed_two_as_written" is the second seed's crash.
BUG_STEPS = {
    zoo.SEED_TWO: "projections",
    "attention_over_heads": "split",
    "split_heads_no_transpose": "split",
    "no_scaling": "scale",
    "scale_by_d_model": "scale",
    "flipped_mask_polarity": "mask",
    "mask_after_softmax": "mask",
    "mask_ignored": "mask",
    "softmax_over_queries": "softmax",
    "softmax_wrong_axis": "softmax",
    "combine_heads_no_permute": "combine",
    "no_output_projection": "output",
}
BUG_IDS = tuple(BUG_STEPS)
STEP_ORDER = ("projections", "split", "scores", "scale", "mask", "softmax", "weighted_sum", "combine", "output")


def bug_info(bug_id: str, fix: Optional[dict], **fmt) -> dict:
    """A named bug: ``name`` and ``effect`` are catalog keys (the zoo's title for a zoo bug; what the bug does to
    the heatmaps, ``check_bug_<id>_explain``), ``fmt`` fills them. ``fix`` is a diff against their line, or None
    when their line is not in a form we can edit safely (``line`` still says where the bug is, if known)."""
    in_zoo = bug_id in zoo.BUG_NAMES
    line = fix.get("line") if isinstance(fix, dict) else None
    if isinstance(fix, dict) and (fix.get("new") is None or fix.get("old") is None):
        fix = None
    if fix is not None:
        fix["more"] = [f for f in fix.get("more", []) if f.get("new") is not None]
    return {"id": bug_id, "step": BUG_STEPS[bug_id], "name": f"bz_{bug_id}_title" if in_zoo else f"check_bug_{bug_id}",
            "effect": f"check_bug_{bug_id}_explain", "fmt": fmt, "zoo": in_zoo, "fix": fix, "line": line}


# --- what each bug computes, from our q, k, v -------------------------------------------------------------------------

def _masked(scores, allowed, invert=False):
    if allowed is None:
        return scores
    blocked = allowed if invert else ~allowed
    return scores.masked_fill(blocked, float("-inf"))


def _soft(logits, dim=-1):
    return F.softmax(logits, dim=dim)


def bug_tensors(bug_id: str, mine: dict, allowed, d_model: int) -> dict:
    """{step: tensor} the bug gives at the steps it changes (shapes as ours)."""
    q, k, v = mine["split"], mine["k"], mine["v"]
    raw = torch.matmul(q, k.transpose(-2, -1))
    hd = q.size(-1)
    scaled = raw / math.sqrt(hd)
    if bug_id in ("no_scaling", "scale_by_d_model"):
        s = raw if bug_id == "no_scaling" else raw / math.sqrt(d_model)
        w = _soft(_masked(s, allowed))
        return {"scale": s, "mask": _masked(s, allowed), "softmax": w, "weighted_sum": w @ v}
    if bug_id == "flipped_mask_polarity" and allowed is not None:
        m = _masked(scaled, allowed, invert=True)
        w = _soft(m)
        return {"mask": m, "softmax": w, "weighted_sum": w @ v}
    if bug_id in ("mask_after_softmax", "mask_ignored") and allowed is not None:
        w = _soft(scaled)
        final = w.masked_fill(~allowed, 0.0) if bug_id == "mask_after_softmax" else w
        return {"mask": scaled, "softmax": w, "weighted_sum": final @ v, "_final": final}
    if bug_id == "softmax_over_queries":
        w = torch.nan_to_num(_soft(_masked(scaled, allowed), dim=-2), nan=0.0)
        return {"softmax": w, "weighted_sum": w @ v}
    if bug_id == "softmax_wrong_axis":
        w = _soft(_masked(scaled, allowed), dim=1)  # over the heads (F.softmax without dim on 4-D scores)
        return {"softmax": w, "weighted_sum": w @ v}
    if bug_id == "softmax_wrong_axis_batch":
        w = _soft(_masked(scaled, allowed), dim=0)  # over the batch: every weight 1 (or NaN where blocked)
        return {"softmax": w, "weighted_sum": w @ v}
    if bug_id == "split_heads_no_transpose" and "projections" in mine:
        b, t, d = mine["projections"].shape
        return {"split": mine["projections"].reshape(b, q.size(1), t, hd)}
    if bug_id == "combine_heads_no_permute" and "combine" in mine:
        z = mine["weighted_sum"]
        return {"combine": z.contiguous().view(z.size(0), -1, z.size(1) * z.size(-1))}
    if bug_id == "no_output_projection" and "combine" in mine:
        return {"output": mine["combine"]}
    return {}


def _same(a: torch.Tensor, b: torch.Tensor, masked: bool) -> bool:
    if a.numel() != b.numel():
        return False
    a = a.detach().to(torch.float64)
    b = b.detach().reshape(a.shape).to(torch.float64)
    # Where the bug itself gives NaN (a query with every key blocked) their code may give NaN or anything
    # (a -1e9 mask gives uniform weights there): not compared.
    keep = ~a.isnan()
    a, b = a[keep], b[keep]
    if masked:
        ab, bb = a <= -1e4, b <= -1e4
        if not bool((ab == bb).all()):
            return False
        a, b = a[~ab], b[~ab]
    if a.numel() == 0:
        return True
    if not bool(torch.isfinite(b).all()):
        return False
    tol = 1e-4 * max(1.0, float(a.abs().max()))
    return float((a - b).abs().max()) <= tol


def matches(bug_id: str, theirs: dict, mine: dict, allowed, d_model: int) -> bool:
    """Every step the bug changes that we observed in their run equals ours-with-the-bug (at least one)."""
    expected = bug_tensors(bug_id, mine, allowed, d_model)
    seen = 0
    for step, tensor in expected.items():
        if step.startswith("_"):
            continue
        t = theirs.get(step)
        if t is None:
            continue
        seen += 1
        if not _same(tensor, t, masked=step == "mask"):
            return False
    return seen > 0


# --- naming
# ------------------------------------------------------------------------------------------------------------

def name_bug(first, th, mine, compared, req, allowed, subject, roles) -> Optional[dict]:
    """The known bug behind the first wrong step, with its fix, or None."""
    if first is None:
        return None
    t, h = req.tokens, req.num_heads
    over_heads = _over_heads(th, t, h)
    if over_heads:
        return bug_info("attention_over_heads", fix_over_heads(th, req), heads=h, tokens=t)
    start = STEP_ORDER.index(first) if first in STEP_ORDER else 0
    candidates = sorted(BUG_STEPS, key=lambda b: abs(STEP_ORDER.index(BUG_STEPS[b]) - start))
    for bug_id in candidates:
        if bug_id in (zoo.SEED_TWO, "attention_over_heads"):
            continue
        if STEP_ORDER.index(BUG_STEPS[bug_id]) > start:
            continue  # a bug cannot break a step after the first wrong one and leave that one wrong
        if bug_id == "mask_after_softmax" and th.masked_after_softmax is None:
            continue
        if bug_id == "mask_ignored" and th.masked_after_softmax is not None:
            continue
        theirs = dict(th.tensors)
        if bug_id == "mask_after_softmax" and th.final_weights is not None:
            theirs["softmax"] = th.tensors.get("softmax")
        if bug_id == "no_output_projection" and roles is not None and roles.out is not None:
            continue
        if matches(bug_id, theirs, mine, allowed, req.d_model) or (
                bug_id == "softmax_wrong_axis" and matches("softmax_wrong_axis_batch", theirs, mine, allowed,
                                                           req.d_model)):
            fmt = {"heads": h, "tokens": t, "head_dim": req.head_dim, "d_model": req.d_model}
            return bug_info(bug_id, make_fix(bug_id, th, req, subject, roles), **fmt)
    return None


def _over_heads(th, t: int, h: int) -> bool:
    """Scores over the heads axis: their scores (or weights) end in (H, H) with the tokens in front."""
    rec = th.scores if th.scores is not None else th.softmax
    if rec is None or not rec.out_shape or len(rec.out_shape) < 3:
        return False
    s = rec.out_shape
    return s[-1] == h and s[-2] == h and s[-3] == t and (h != t or len(s) == 3)


def crash_step(rec: Recorder) -> str:
    """Which of our steps their code was at when it raised."""
    f = rec.failed
    done = [r.op for r in rec.records]
    softmaxed = any(op in SOFTMAX_OPS or op in SDPA_OPS for op in done)
    multiplied = any(op in MATMUL_OPS for op in done)
    op = f.op if f is not None else (done[-1] if done else "linear")
    if op == "linear":
        return "output" if softmaxed else "projections"
    if op in ("view", "reshape", "transpose", "permute", "contiguous", "split", "chunk", "flatten"):
        return "combine" if softmaxed else "split"
    if op in MATMUL_OPS:
        return "weighted_sum" if softmaxed else "scores"
    if op in SDPA_OPS:
        return "weighted_sum"
    if op in SOFTMAX_OPS:
        return "softmax"
    if op in MASK_OPS or op in ("eq", "ne", "logical_not", "bitwise_not"):
        return "mask"
    if op in ("div", "mul", "sqrt"):
        return "scale" if multiplied else "projections"
    return "combine" if softmaxed else ("scores" if multiplied else "projections")


def name_crash(rec: Recorder, req, target, names: dict) -> Optional[dict]:
    """The second seed's crash: an nn.Linear of head_dim input features fed d_model features."""
    f = rec.failed
    if f is None or f.op != "linear" or len(f.args) < 2:
        return None
    x, w = f.args[0], f.args[1]
    if not (isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor) and w.dim() == 2):
        return None
    hd, d = req.head_dim, req.d_model
    if w.size(1) == hd and x.size(-1) == d and hd != d:
        return bug_info(zoo.SEED_TWO, fix_linear_in(req, target, names.get(id(w))), head_dim=hd, d_model=d,
                        heads=req.num_heads)
    return None


# --- fixes: small edits of their own line ---------------------------------------------------------------------------

def _line(req, n: Optional[int]) -> Optional[str]:
    if not n or not (0 < n <= len(req.lines)):
        return None
    return req.lines[n - 1]


def _split_comment(line: str) -> tuple[str, str]:
    """(code, comment) of one line: the first # outside a string starts the comment."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i].rstrip(), "  " + line[i:]
    return line.rstrip(), ""


def _scan(s: str, start: int = 0) -> Iterator[tuple[int, str, int, bool]]:
    """(index, character, bracket depth once it is read, inside quotes) for each character of ``s`` from ``start``:
    the one reading of brackets and quotes ``_call`` and ``_args`` share (a bracket inside quotes does not count)."""
    depth, quote = 0, None
    for i in range(start, len(s)):
        ch = s[i]
        if quote:
            if ch == quote:
                quote = None
            yield i, ch, depth, True
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        yield i, ch, depth, quote is not None


def _call(code: str, names, start: int = 0) -> Optional[tuple[int, int, int]]:
    """(name start, index of '(', index of the matching ')') of the first call of one of ``names``."""
    m = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\s*\(").search(code, start)
    if not m:
        return None
    open_i = m.end() - 1
    for i, ch, depth, quoted in _scan(code, open_i):
        if not quoted and ch in ")]}" and depth == 0:
            return m.start(), open_i, i
    return None


def _args(s: str) -> list[str]:
    """The top-level, comma-separated arguments of a call's text (between its brackets), stripped."""
    out, cur = [], ""
    for _, ch, depth, quoted in _scan(s):
        if ch == "," and depth == 0 and not quoted:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _fix(req, n, new_code: Optional[str]) -> Optional[dict]:
    old = _line(req, n)
    if old is None:
        return None if n is None else {"line": n, "old": None, "new": None}
    return {"line": n, "old": old, "new": new_code}


def _edit(req, n, edit) -> Optional[dict]:
    """Apply ``edit(code) -> new code or None`` to line ``n``'s code, keeping its comment."""
    old = _line(req, n)
    if old is None:
        return None if n is None else {"line": n, "old": None, "new": None}
    code, comment = _split_comment(old)
    new = edit(code)
    return {"line": n, "old": old, "new": None if new is None else new + comment}


def _line_of(record) -> Optional[int]:
    return None if record is None else record.line


def _attr_with(module, value: int, prefer=()) -> Optional[str]:
    """``self.<name>`` of one of their module's int attributes equal to ``value`` (preferred names first)."""
    if module is None:
        return None
    attrs = {k: v for k, v in vars(module).items() if isinstance(k, str) and type(v) is int and v == value}
    for name in prefer:
        if name in attrs:
            return f"self.{name}"
    return f"self.{sorted(attrs)[0]}" if attrs else None


def _head_dim_expr(req, subject, th) -> str:
    """How their code can say head_dim: their attribute for it, else the split query's last size."""
    module = getattr(subject, "module", None)
    if module is not None:
        attrs = {k for k, v in vars(module).items() if isinstance(k, str) and type(v) is int and v == req.head_dim}
        for name in ("head_dim", "d_k", "depth", "dk", "head_size", "d_head"):
            if name in attrs:
                return f"self.{name}"
    code = _split_comment(_line(req, _line_of(getattr(th, "scores", None))) or "")[0]
    span = _call(code, ("matmul", "bmm", "einsum"))
    if span:
        args = [a for a in _args(code[span[1] + 1:span[2]]) if not a.startswith(("'", '"'))]
        if args and re.match(r"^[\w.]+$", args[0]):
            return f"{args[0]}.size(-1)"
    m = re.search(r"([\w.]+)\s*@", code)
    if m:
        return f"{m.group(1)}.size(-1)"
    return "query.size(-1)" if subject is not None else "Q.size(-1)"


def make_fix(bug_id, th, req, subject, roles) -> Optional[dict]:
    if bug_id == "no_scaling":
        return _edit(req, _line_of(th.scores), lambda c: _add_scale(c, _head_dim_expr(req, subject, th)))
    if bug_id == "scale_by_d_model":
        return _edit(req, _line_of(th.scale_op or th.scores), lambda c: _d_model_to_head_dim(c, req, subject, th))
    if bug_id in ("softmax_over_queries", "softmax_wrong_axis"):
        return _edit(req, _line_of(th.softmax), _softmax_dim)
    if bug_id == "flipped_mask_polarity":
        return _edit(req, _line_of(th.mask_op), _flip_mask)
    if bug_id in ("mask_after_softmax", "mask_ignored"):
        cond = _mask_cond(req, th, subject)
        name = re.match(r"~?\s*\(?\s*(\w+)", cond)
        if bug_id == "mask_ignored" and th.softmax is not None and (name is None or name.group(1) not in
                                                                    th.softmax.scope):
            return None  # the function with the softmax is not given the mask: no one-line fix there
        return _edit(req, _line_of(th.softmax), lambda c: _mask_before_softmax(c, cond))
    if bug_id == "split_heads_no_transpose":
        return _edit(req, _line_of(th.records.get("split")), _split_transpose)
    if bug_id == "combine_heads_no_permute":
        return _edit(req, _line_of(th.records.get("combine")), _combine_transpose)
    if bug_id == "no_output_projection":
        return _fix_output(req, subject, roles)
    return None


def _add_scale(code: str, hd: str) -> Optional[str]:
    span = _call(code, ("torch.matmul", "matmul", "torch.bmm", "bmm", "torch.einsum", "einsum"))
    if span:
        end = span[2] + 1
        return code[:end] + f" / {hd} ** 0.5" + code[end:]
    m = re.match(r"^(\s*(?:[\w.]+\s*=\s*|return\s+))(.*@.*)$", code)
    if m and "(" not in m.group(2).replace(".transpose(", "").replace(".t(", ""):
        return code + f" / {hd} ** 0.5"
    if m:
        return code + f" / {hd} ** 0.5" if code.count("(") == code.count(")") else None
    return None


def _d_model_to_head_dim(code: str, req, subject, th) -> Optional[str]:
    module = getattr(subject, "module", None)
    hd = _head_dim_expr(req, subject, th)
    if module is not None:
        names = [k for k, v in vars(module).items() if isinstance(k, str) and type(v) is int and v == req.d_model]
        for name in sorted(names, key=len, reverse=True):
            new = re.sub(rf"\bself\.{re.escape(name)}\b", hd, code)
            if new != code:
                return new
    new = re.sub(r"\b(d_model|embed_size|embed_dim)\b", hd, code)
    return new if new != code else None


def _softmax_dim(code: str) -> Optional[str]:
    span = _call(code, ("softmax",))
    if not span:  # exp(s) / exp(s).sum(dim): the sum's dim
        span = _call(code, ("sum",))
        if not span or not code[:span[0]].endswith("."):
            return None
        _, o, c = span
        args = _args(code[o + 1:c])
        dims = [i for i, a in enumerate(args) if re.match(r"^dim\s*=", a)]
        if dims:
            args[dims[0]] = "dim=-1"
        elif args and not re.match(r"^\w+\s*=", args[0]):
            args[0] = "-1"
        else:
            return None
        return code[:o + 1] + ", ".join(args) + code[c:]
    _, o, c = span
    args = _args(code[o + 1:c])
    dims = [i for i, a in enumerate(args) if re.match(r"^dim\s*=", a)]
    if dims:
        args[dims[0]] = "dim=-1"
    elif code[:span[0]].endswith(".") and not re.search(r"\b(F|torch|nn\.functional)\.$", code[:span[0]]):
        args = ["-1"] + args[1:] if args else ["-1"]  # x.softmax(dim): the first argument is the dim
    elif len(args) >= 2:
        args[1] = "-1"
    else:
        args.append("dim=-1")
    return code[:o + 1] + ", ".join(args) + code[c:]


def _flip_mask(code: str) -> Optional[str]:
    m = re.search(r"\(\s*1(?:\.0)?\s*-\s*([\w.]+)\s*\)", code)  # scores + (1 - mask) * -1e9, inverted: + mask * ..
    if m:
        return code[:m.start()] + m.group(1) + code[m.end():]
    m = re.search(r"(?<![\w.(])([\w.]*mask[\w.]*(?:\(\))?)\s*\*\s*(-\s*1e\d+|float\(['\"]-inf['\"]\))", code)
    if m:  # scores + mask * -1e9 (1 = may attend): the blocked keys are the zeros
        return code[:m.start()] + f"(1 - {m.group(1)}) * {m.group(2)}" + code[m.end():]
    for pat, rep in ((r"==\s*(1|True|1\.0)\b", "== 0"), (r"!=\s*(0|False|0\.0)\b", "== 0"),
                     (r"==\s*(0|False|0\.0)\b", "!= 0")):
        if re.search(pat, code):
            return re.sub(pat, rep, code, count=1)
    span = _call(code, ("masked_fill", "masked_fill_"))
    if span:
        _, o, c = span
        args = _args(code[o + 1:c])
        if args:
            a = args[0]
            args[0] = a[1:].strip() if a.startswith("~") else (f"{a} == 0" if re.match(r"^[\w.]+$", a) else f"~({a})")
            return code[:o + 1] + ", ".join(args) + code[c:]
    return None


def _mask_cond(req, th, subject) -> str:
    """The learner's own blocked-key condition if their code has one after the softmax, else ``<mask> == 0``."""
    r = th.masked_after_softmax
    if r is not None:
        old = _line(req, r.line)
        if old:
            code, _ = _split_comment(old)
            span = _call(code, ("masked_fill", "masked_fill_"))
            if span:
                args = _args(code[span[1] + 1:span[2]])
                if args:
                    return args[0]
    name = getattr(getattr(subject, "target", None), "mask_name", None) or "mask"
    return f"{name} == 0"


def _mask_before_softmax(code: str, cond: str) -> Optional[str]:
    span = _call(code, ("softmax",))
    if not span:
        return None
    start, o, c = span
    args = _args(code[o + 1:c])
    if not args:
        return None
    mask_name = re.match(r"~?\s*\(?\s*([\w.]+)", cond)
    mask_name = mask_name.group(1) if mask_name else "mask"
    x = args[0]
    tail = code[c + 1:]
    after = _call(tail, ("masked_fill", "masked_fill_"))
    if after and tail[:after[0]].strip() == ".":  # softmax(...).masked_fill(...) on one line: mask first instead
        args[0] = f"{x}.masked_fill({cond}, float('-inf'))"
        return code[:o + 1] + ", ".join(args) + ")" + tail[after[2] + 1:]
    args[0] = f"{x} if {mask_name} is None else {x}.masked_fill({cond}, float('-inf'))"
    return code[:o + 1] + ", ".join(args) + code[c:]


def _split_transpose(code: str) -> Optional[str]:
    span = _call(code, ("reshape", "view"))
    if not span:
        return None
    _, o, c = span
    args = _args(code[o + 1:c])
    if len(args) != 4:
        return None
    args = [args[0], args[2], args[1], args[3]]
    return code[:o + 1] + ", ".join(args) + ").transpose(1, 2)" + code[c + 1:]


def _combine_transpose(code: str) -> Optional[str]:
    for needle in (".contiguous().view(", ".contiguous().reshape(", ".view(", ".reshape("):
        i = code.find(needle)
        if i >= 0:
            rest = code[i:]
            if needle.startswith(".contiguous"):
                return code[:i] + ".transpose(1, 2)" + rest
            return code[:i] + ".transpose(1, 2).contiguous()" + rest
    return None


def _view_transpose(code: str) -> Optional[str]:
    span = _call(code, ("view", "reshape"))
    if not span:
        return None
    return code[:span[2] + 1] + ".transpose(1, 2)" + code[span[2] + 1:]


def fix_over_heads(th, req) -> Optional[dict]:
    """The second seed's heads-axis attention: each q/k/v view gets a transpose (heads before tokens) and the
    combine transposes back. The first line is the fix; the others ride along in ``more``."""
    lines = []
    for r in th.split_records:
        if r.line is not None and r.op in ("view", "reshape") and r.line not in lines:
            lines.append(r.line)
    fixes = [_edit(req, n, _view_transpose) for n in sorted(lines)]
    comb = th.records.get("combine")
    if comb is not None and comb.line is not None and comb.line not in lines:
        fixes.append(_edit(req, comb.line, lambda c: c.replace(".view(", ".transpose(1, 2).reshape(", 1)
                           if ".view(" in c else None))
    fixes = [f for f in fixes if f is not None]
    if not fixes:
        return None
    first = dict(fixes[0])
    first["more"] = fixes[1:]
    return first


def fix_linear_in(req, target, attr: Optional[str]) -> Optional[dict]:
    """The seed's ``self.values = nn.Linear(self.head_dim, self.head_dim, ...)``: d_model in and out."""
    dim = getattr(target, "dim_name", None) or "d_model"
    found = []
    for i, line in enumerate(req.lines, start=1):
        code, _ = _split_comment(line)
        if re.search(r"nn\.Linear\(\s*self\.head_dim\s*,\s*self\.head_dim", code) or (
                attr and re.match(rf"^\s*self\.{re.escape(attr)}\s*=\s*nn\.Linear\(", code)):
            found.append(i)
    if attr:
        own = [n for n in found if re.match(rf"^\s*self\.{re.escape(attr)}\s*=", req.lines[n - 1])]
        found = own + [n for n in found if n not in own]

    def edit(code):
        span = _call(code, ("Linear",))
        if not span:
            return None
        _, o, c = span
        args = _args(code[o + 1:c])
        if len(args) < 2:
            return None
        args[0], args[1] = dim, dim
        return code[:o + 1] + ", ".join(args) + code[c:]

    fixes = [_edit(req, n, edit) for n in found]
    if not fixes:
        return None
    first = dict(fixes[0])
    first["more"] = fixes[1:]
    return first


def _fix_output(req, subject, roles) -> Optional[dict]:
    """``return X`` in their forward becomes ``return self.<their unused d x d Linear, or output_linear>(X)``."""
    module = getattr(subject, "module", None)
    fwd = getattr(type(module), "forward", None) if module is not None else None
    code_obj = getattr(fwd, "__code__", None)
    if code_obj is None or not req.lines:
        return None
    first = code_obj.co_firstlineno
    indent = len(req.lines[first - 1]) - len(req.lines[first - 1].lstrip()) if first <= len(req.lines) else 0
    last = None
    for n in range(first + 1, len(req.lines) + 1):
        line = req.lines[n - 1]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        if re.match(r"^\s*return\b", line):
            last = n
    if last is None:
        return None
    used = roles.params if roles is not None else set()
    d = req.d_model
    name, extra = "output_linear", None
    for mname, m in nn.Module.named_modules(module):
        if (isinstance(m, nn.Linear) and id(m.weight) not in used and m.in_features == d and m.out_features == d
                and mname and "." not in mname):
            name = safe_text(mname, 60)
            break
    else:
        extra = {"line": None, "old": None, "new": "self.output_linear = nn.Linear(d_model, d_model)"}

    def edit(code):
        m = re.match(r"^(\s*return\s+)(.+)$", code)
        return f"{m.group(1)}self.{name}({m.group(2)})" if m else None

    fix = _edit(req, last, edit)
    if fix is not None:
        fix["more"] = [extra] if extra else []
    return fix
