"""A shape trace of the learner's forward: every torch call it makes, with shapes, values and its line.

``Recorder`` is a ``torch.overrides.TorchFunctionMode``: it sees torch functions, tensor methods and operators
(``@``, ``/``, indexing) without patching anything. Each call becomes a ``Record``: the op's name, its tensor
inputs' shapes, its output's shape, a copy of the output's values (later in-place ops cannot change it), and the
line of the learner's code that made the call (the innermost frame compiled under ``LEARNER_FILENAME``).
A call that raises is recorded too (``Recorder.failed``), so a crash shows the shapes that met.

Learner values are hostile: every text taken from them goes through ``safe_text`` (plain, short, no control
characters); the caps below bound what a loop of calls can make us keep.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Optional

import torch
from torch.overrides import TorchFunctionMode

# The file name the sandbox compiles learner code under (mha.check.sandbox uses the same one).
LEARNER_FILENAME = "<learner>"

MAX_RECORDS = 2000  # calls kept; later ones are counted, not kept
MAX_COPY_BYTES = 96 * 2 ** 20  # output values copied (beyond this, shapes only)
MAX_TEXT = 300  # characters of a learner's message we keep
MAX_LINES = 200  # rows of the trace in an answer

# Ops that multiply matrices: the scores (QK^T) and the weighted sum (weights @ V) are among their outputs.
MATMUL_OPS = frozenset({"matmul", "rmatmul", "bmm", "mm", "einsum", "baddbmm", "tensordot"})
SOFTMAX_OPS = frozenset({"softmax"})
SDPA_OPS = frozenset({"scaled_dot_product_attention"})
# Attribute reads that return a tensor but compute nothing worth a line of the trace.
_SILENT = frozenset({"data", "grad", "_base", "real", "imag", "requires_grad_", "detach", "__get__"})
_ALIASES = {"truediv": "div", "true_divide": "div", "divide": "div", "multiply": "mul", "rtruediv": "div",
            "rmul": "mul", "radd": "add", "rsub": "sub", "iadd": "add", "imul": "mul", "itruediv": "div",
            "permute": "permute", "T": "transpose", "mT": "transpose", "getitem": "index", "setitem": "index_put"}


def safe_text(value: Any, limit: int = MAX_TEXT) -> str:
    """A learner-supplied value as short plain text: ``str()`` guarded (it may raise or return anything), control
    characters dropped, at most ``limit`` characters. Escaping for markup is the page's job."""
    try:
        s = value if isinstance(value, str) else str(value)
        if not isinstance(s, str):
            s = ""
    except Exception:  # noqa: BLE001 - a hostile __str__
        s = ""
    s = str.__str__(s)  # a str subclass's methods are the learner's: keep only the characters
    s = "".join(ch if ch in "\n\t" or ch.isprintable() else " " for ch in s[: limit * 4])
    return s[:limit] + ("…" if len(s) > limit else "")


def exception_text(exc: BaseException) -> str:
    """``TypeName: message`` for a learner's exception, plain and short."""
    name = getattr(type(exc), "__name__", "Exception")
    return safe_text(f"{safe_text(name, 60)}: {safe_text(exc)}")


def learner_frame(frame=None, depth: int = 80):
    """The innermost frame of learner code, walking out from ``frame`` (default: the caller's), or None."""
    f = frame if frame is not None else sys._getframe(1)
    while f is not None and depth > 0:
        if f.f_code.co_filename == LEARNER_FILENAME:
            return f
        f, depth = f.f_back, depth - 1
    return None


def learner_line(frame=None) -> Optional[int]:
    f = learner_frame(frame if frame is not None else sys._getframe(1))
    return None if f is None else f.f_lineno


def _where(frame) -> tuple[Optional[int], tuple]:
    """(line, the argument names of the learner's function there) of the innermost learner frame."""
    f = learner_frame(frame)
    if f is None:
        return None, ()
    code = f.f_code
    return f.f_lineno, tuple(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])


def traceback_line(exc: BaseException) -> Optional[int]:
    """The line of the innermost learner frame in ``exc``'s traceback (where their code was when it raised)."""
    line, tb, n = None, exc.__traceback__, 0
    while tb is not None and n < 500:
        if tb.tb_frame.f_code.co_filename == LEARNER_FILENAME:
            line = tb.tb_lineno
        tb, n = tb.tb_next, n + 1
    return line


def op_name(func) -> str:
    name = getattr(func, "__name__", None)
    if name == "__get__":  # a property such as .T: its descriptor knows the name
        name = getattr(getattr(func, "__self__", None), "__name__", name)
    if not isinstance(name, str):
        name = safe_text(func, 40)
    stripped = name.strip("_") if name.startswith("__") else name
    return _ALIASES.get(stripped, stripped)


def tensors_in(obj, out: list, depth: int = 0) -> list:
    """Every tensor in ``obj`` (arguments: tensors, lists and tuples of them, dicts), in order."""
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif depth < 3 and isinstance(obj, (list, tuple)):
        for item in obj[:64]:
            tensors_in(item, out, depth + 1)
    elif depth < 3 and isinstance(obj, dict):
        for item in list(obj.values())[:64]:
            tensors_in(item, out, depth + 1)
    return out


def shape_of(t: torch.Tensor) -> list[int]:
    return [int(s) for s in t.shape]


@dataclass
class Record:
    """One torch call of the learner's code."""

    index: int
    op: str  # "linear", "view", "matmul", "softmax", "div", "masked_fill", ...
    inplace: bool
    line: Optional[int]  # learner's line, or None (a call from our side)
    inputs: list  # the tensor arguments (references: their ids identify producers)
    in_shapes: list  # their shapes
    out: Optional[torch.Tensor]  # the output tensor (reference)
    out_shape: Optional[list]
    value: Optional[torch.Tensor]  # a copy of the output's values at the time of the call (None past the cap)
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    error: Optional[str] = None  # the message, for the call that raised
    scope: tuple = ()  # the argument names of the learner's function that made the call

    def as_dict(self, wrong: bool = False) -> dict:
        return {"op": self.op, "in": self.in_shapes, "out": self.out_shape, "line": self.line, "wrong": wrong}


class Recorder(TorchFunctionMode):
    """Records every torch call made while it is active (``with Recorder() as rec: module(x, x, x)``)."""

    def __init__(self):
        super().__init__()
        self.records: list[Record] = []
        self.dropped = 0  # calls past MAX_RECORDS
        self.copied = 0  # bytes copied
        self.failed: Optional[Record] = None  # the call that raised, if one did

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            out = func(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - recorded, then raised on to the learner's code
            if self.failed is None:
                ins = tensors_in(args, []) + tensors_in(kwargs, [])
                self.failed = Record(len(self.records), op_name(func), False, learner_line(), ins,
                                     [shape_of(t) for t in ins], None, None, None, args, kwargs,
                                     error=exception_text(exc))
            raise
        self._record(func, args, kwargs, out)
        return out

    def _record(self, func, args, kwargs, out) -> None:
        name = op_name(func)
        if name in _SILENT:
            return
        inplace = name.endswith("_") and not name.startswith("_")
        if out is None and name in ("index_put", "setitem"):  # x[mask] = v changes x in place
            out, inplace = (args[0] if args and isinstance(args[0], torch.Tensor) else None), True
        if isinstance(out, (tuple, list)):  # chunk, split, unbind, max: keep them as one record each
            for part in out[:64]:
                if isinstance(part, torch.Tensor):
                    self._record_one(name, inplace, args, kwargs, part)
            return
        if isinstance(out, torch.Tensor):
            self._record_one(name, inplace, args, kwargs, out)

    def _record_one(self, name, inplace, args, kwargs, out) -> None:
        if len(self.records) >= MAX_RECORDS:
            self.dropped += 1
            return
        ins = tensors_in(args, []) + tensors_in(kwargs, [])
        value = None
        nbytes = out.numel() * out.element_size()
        if self.copied + nbytes <= MAX_COPY_BYTES and out.layout == torch.strided:
            value = out.detach().clone()  # the mode is off inside its own handler: not recorded
            self.copied += nbytes
        line, scope = _where(sys._getframe(1))
        self.records.append(Record(len(self.records), name.rstrip("_") if inplace else name, inplace,
                                   line, ins, [shape_of(t) for t in ins], out, shape_of(out), value,
                                   args, kwargs, scope=scope))

    # --- finding things in the trace ----------------------------------------------------------------------------

    def producer(self, t: torch.Tensor, before: int) -> Optional[Record]:
        """The latest record before index ``before`` whose output is ``t`` (the same object)."""
        for r in reversed(self.records[:before]):
            if r.out is t:
                return r
        return None

    def first(self, ops, after: int = -1) -> Optional[Record]:
        for r in self.records[after + 1:]:
            if r.op in ops:
                return r
        return None

    def descendants(self, start: Record) -> set[int]:
        """ids of the tensors computed from ``start``'s output (itself included), in the order of the trace."""
        ids = {id(start.out)}
        for r in self.records[start.index + 1:]:
            if any(id(t) in ids for t in r.inputs) and r.out is not None:
                ids.add(id(r.out))
        return ids

    def lines(self, wrong: set[int] = frozenset(), most: int = MAX_LINES) -> list[dict]:
        """The trace as JSON-able rows: learner calls only (ours happen outside their lines). Past ``most`` rows
        (a loop), the rows around the wrong one are kept and one row ``{"op": "...", "skipped": n}`` stands for
        the rest."""
        rows = [r.as_dict(r.index in wrong) for r in self.records if r.line is not None]
        if self.failed is not None:
            rows.append(self.failed.as_dict(True))
        skipped = len(rows) - most + self.dropped
        if len(rows) > most:
            at = next((i for i, r in enumerate(rows) if r["wrong"]), len(rows) - 1)
            lo = max(0, min(at - most // 2, len(rows) - most))
            rows = rows[lo:lo + most]
        if skipped > 0:
            rows.append({"op": "...", "in": [], "out": None, "line": None, "wrong": False, "skipped": skipped})
        return rows
