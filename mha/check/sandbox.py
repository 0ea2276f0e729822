"""The restricted language learner code runs in: inside the worker process (mha/check/worker.py), never the
server's.

``compile_learner(code)`` parses the code, refuses what the language does not allow, rewrites every attribute
access into a guarded call, runs the top level and returns the learner's namespace. Anything refused raises
``Refused(key, line, col, **fmt)``; ``key`` names a message in ``mha/strings/check.py`` ("# sandbox refusals").

Why an AST whitelist of our own rather than RestrictedPython: RestrictedPython's default policy refuses
``super().__init__()`` and every ``_`` name, and its guards (``_getattr_``, ``_write_``, ...) are hooks we would have
to fill with the same per-type whitelists anyway; the language a learner needs is small (classes, functions, loops,
arithmetic, four modules), so one file that states exactly what is allowed is easier to audit than a policy layered
on a general-purpose restricted compiler, and adds no dependency. The layers:

1. Syntax (``_Rewriter``): only the statements and expressions listed in ``_ALLOWED_NODES``; no ``yield``, ``async``,
   ``match``, decorators, metaclasses, bare ``except``; no name or attribute that starts with ``__`` except
   ``def __init__`` and a *called* ``….__init__(...)`` (``super().__init__()``, ``nn.Module.__init__(self)``);
   imports only of ``torch``, ``torch.nn``, ``torch.nn.functional``, ``math`` (and ``typing``'s hint names,
   ``from __future__ import annotations``), each imported name checked.
2. Attributes (``_Guard.read``/``write``): every ``a.b`` becomes ``__mha_read__(a, "b", line, col)``, which allows a
   name by the type of ``a``: a whitelist per module (``TORCH_ATTRS``, ``NN_ATTRS``, ``F_ATTRS``, ``MATH_ATTRS``,
   ``INIT_ATTRS``), per tensor (``TENSOR_ATTRS``), for built-in containers, and the learner's own attributes on the
   learner's own classes and instances. ``a.b = v`` is allowed only on an instance of a learner's class. So
   ``torch.load``/``save``/``hub``/``jit``/``compile``/``ops``/``_C``/``utils``, ``tensor.numpy``/``storage``,
   ``str.format``, ``gi_frame``, ``tb_frame``, ``f_back`` and every dunder are not reachable.
3. Names: the built-ins are a small dict (``SAFE_BUILTINS``): no ``open``, ``eval``, ``exec``, ``compile``,
   ``getattr``, ``setattr``, ``type``, ``vars``, ``globals``, ``locals``, ``dir``, ``__import__`` (the import statement
   is checked name by name when the code is parsed), ``input``, ``breakpoint``; ``print`` does nothing.

The learner's classes are real ``nn.Module`` subclasses (built by the real ``__build_class__``), so trusted code in
the worker (mha/check/diagnose.py) may trace and introspect them freely; only code compiled here is restricted.
The OS limits (CPU, memory, no files, no processes, no sockets) are the worker's, a second wall behind this one.
"""
from __future__ import annotations

import ast
import builtins
import linecache
import math
import types
import typing

import torch
import torch.nn as nn
import torch.nn.functional as F

FILENAME = "<learner>"
MAX_CHARS = 20_000
MAX_LINES = 1_000
MESSAGE_CHARS = 300  # a learner's exception message, cut: it is data for the page, not a channel


class Refused(BaseException):
    """Learner code the sandbox does not run: ``key`` names a message in ``mha/strings/check.py``, ``line`` and
    ``col`` (1-based, or None) point at the code, ``fmt`` fills the message's placeholders (plain data: escape it
    before showing). A BaseException, so a learner's (or a diagnosis's) ``except Exception`` does not swallow it."""

    def __init__(self, key: str, line: int | None = None, col: int | None = None, **fmt):
        self.key, self.line, self.col, self.fmt = key, line, col, fmt
        super().__init__(key, line, col, fmt)

    def as_dict(self) -> dict:
        return {"status": "refused", "key": self.key, "line": self.line, "col": self.col, "fmt": dict(self.fmt)}


# ---------------------------------------------------------------------------------------------- what is allowed
MODULES = {"torch": torch, "torch.nn": nn, "torch.nn.functional": F, "math": math, "typing": typing}
TYPING_NAMES = frozenset({"Optional", "Tuple", "List", "Dict", "Union", "Any"})

TORCH_ATTRS = frozenset({
    # creating tensors
    "tensor", "as_tensor", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "arange", "linspace",
    "eye", "rand", "randn", "randint", "rand_like", "randn_like", "manual_seed",
    # maths
    "matmul", "bmm", "mm", "baddbmm", "einsum", "softmax", "log_softmax", "exp", "log", "sqrt", "rsqrt", "tanh",
    "sigmoid", "relu", "abs", "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "clamp", "where",
    "masked_fill", "maximum", "minimum", "pow", "mul", "div", "add", "sub", "neg", "square", "isfinite", "isnan",
    "isinf", "nan_to_num", "allclose", "equal", "logical_not", "logical_and", "logical_or", "eq", "ne", "lt", "le",
    "gt", "ge", "outer", "dot", "norm", "var", "std", "cumsum", "topk", "sort", "argsort", "any", "all", "numel",
    "count_nonzero",
    # shapes
    "cat", "concat", "stack", "split", "chunk", "reshape", "flatten", "unflatten", "transpose", "permute",
    "swapaxes", "swapdims", "movedim", "unsqueeze", "squeeze", "triu", "tril", "tril_indices", "triu_indices",
    "broadcast_to", "narrow", "index_select", "gather", "repeat_interleave", "tile", "flip", "roll", "diagonal",
    "diag", "t",
    # types, constants, the submodule
    "float", "float32", "float64", "double", "half", "float16", "bfloat16", "long", "int64", "int32", "int", "bool",
    "uint8", "inf", "nan", "pi", "e", "finfo", "iinfo", "dtype", "device", "Size", "Tensor", "no_grad", "is_tensor",
    "is_floating_point", "get_default_dtype", "nn",
})
NN_ATTRS = frozenset({
    "Module", "Linear", "Dropout", "Parameter", "ModuleList", "ModuleDict", "Sequential", "Softmax", "LayerNorm",
    "ReLU", "GELU", "Tanh", "Sigmoid", "Identity", "Embedding", "MultiheadAttention", "functional", "init",
})
F_ATTRS = frozenset({
    "softmax", "log_softmax", "scaled_dot_product_attention", "linear", "dropout", "relu", "gelu", "sigmoid",
    "tanh", "pad", "normalize", "layer_norm", "one_hot",
})
INIT_ATTRS = frozenset({
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "normal_", "uniform_", "zeros_",
    "ones_", "constant_", "trunc_normal_", "orthogonal_",
})
MATH_ATTRS = frozenset({
    "sqrt", "exp", "log", "log2", "log10", "pi", "e", "inf", "nan", "ceil", "floor", "isqrt", "pow", "fabs", "isnan",
    "isinf", "isfinite", "tanh", "cos", "sin", "prod",
})
TENSOR_ATTRS = frozenset({
    "shape", "dtype", "device", "ndim", "T", "mT", "data", "grad", "requires_grad", "size", "dim", "numel", "item",
    "tolist", "view", "view_as", "reshape", "reshape_as", "transpose", "transpose_", "permute", "contiguous",
    "is_contiguous", "masked_fill", "masked_fill_", "unsqueeze", "unsqueeze_", "squeeze", "squeeze_", "expand",
    "expand_as", "repeat", "repeat_interleave", "split", "chunk", "flatten", "unflatten", "matmul", "bmm", "mm",
    "softmax", "log_softmax", "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "exp", "log", "sqrt",
    "rsqrt", "abs", "neg", "pow", "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "clamp", "clamp_",
    "clamp_min", "clamp_max", "sigmoid", "tanh", "relu", "float", "double", "half", "long", "int", "bool", "to",
    "type_as", "clone", "detach", "fill_", "zero_", "copy_", "eq", "ne", "lt", "le", "gt", "ge", "logical_not",
    "logical_and", "logical_or", "any", "all", "isnan", "isinf", "isfinite", "triu", "tril", "where",
    "masked_select", "index_select", "gather", "norm", "std", "var", "cumsum", "new_zeros", "new_ones", "new_full",
    "new_tensor", "swapaxes", "swapdims", "movedim", "t", "narrow", "flip", "roll", "diagonal", "nan_to_num",
    "allclose", "equal", "square", "sort", "argsort", "topk", "baddbmm", "requires_grad_", "count_nonzero",
    "is_floating_point", "element_size",
})
# What a learner may use on any nn.Module (its own and ours): no hooks, apply, compile, share_memory, _internals.
MODULE_PUBLIC = frozenset({
    "forward", "training", "parameters", "named_parameters", "children", "named_children", "modules",
    "named_modules", "eval", "train", "register_buffer", "register_parameter", "add_module", "zero_grad",
    "requires_grad_", "float", "double",
    # the public fields of the nn layers the whitelist offers
    "weight", "bias", "in_features", "out_features", "p", "normalized_shape", "eps", "embed_dim", "num_heads",
    "head_dim", "batch_first", "append", "extend", "dim",
})
# Names a learner's module must not define or set: nn.Module's own machinery, which trusted code calls.
MODULE_RESERVED = frozenset(n for n in set(dir(nn.Module)) | set(vars(nn.Module())) if not n.startswith("__")) - {
    "forward", "training", "extra_repr"}
CONTAINER_ATTRS = {
    list: frozenset({"append", "extend", "pop", "insert", "index", "count", "reverse", "sort", "copy", "clear"}),
    dict: frozenset({"get", "items", "keys", "values", "setdefault", "update", "pop", "copy"}),
    tuple: frozenset({"index", "count"}),
    set: frozenset({"add", "discard", "remove", "update", "union", "intersection", "difference", "copy"}),
    frozenset: frozenset({"union", "intersection", "difference"}),
    str: frozenset({"lower", "upper", "split", "join", "strip", "startswith", "endswith", "replace"}),  # no format
    slice: frozenset({"start", "stop", "step"}),
}
INFO_ATTRS = frozenset({"min", "max", "eps", "tiny", "bits", "resolution"})
EXCEPTIONS = (Exception, ValueError, TypeError, RuntimeError, AssertionError, NotImplementedError, IndexError,
              KeyError, ZeroDivisionError, ArithmeticError, LookupError)


def _print(*args, **kwargs) -> None:
    """``print`` in learner code: nothing is written anywhere."""


SAFE_NAMES = {
    "abs": abs, "all": all, "any": any, "bool": bool, "dict": dict, "enumerate": enumerate, "float": float,
    "int": int, "isinstance": isinstance, "len": len, "list": list, "max": max, "min": min, "pow": pow,
    "print": _print, "range": range, "reversed": reversed, "round": round, "set": set, "sorted": sorted, "str": str,
    "sum": sum, "tuple": tuple, "zip": zip, "map": map, "filter": filter, "divmod": divmod, "slice": slice,
    "super": super, "frozenset": frozenset, "repr": repr, "chr": chr, "ord": ord, "callable": callable,
    "object": object, "iter": iter, "next": next, "NotImplemented": NotImplemented,
    "None": None, "True": True, "False": False, **{e.__name__: e for e in EXCEPTIONS},
}
_NN_CLASSES = frozenset(getattr(nn, n) for n in NN_ATTRS if isinstance(getattr(nn, n), type))

_ALLOWED_NODES = tuple(getattr(ast, n) for n in (
    "Module Expr FunctionDef ClassDef Return Delete Assign AugAssign AnnAssign For While If With Raise Try Assert "
    "Import ImportFrom Global Nonlocal Pass Break Continue "
    "BoolOp NamedExpr BinOp UnaryOp Lambda IfExp Dict Set ListComp SetComp DictComp GeneratorExp Compare Call "
    "FormattedValue JoinedStr Constant Attribute Subscript Starred Name List Tuple Slice "
    "Load Store Del And Or Add Sub Mult MatMult Div Mod Pow LShift RShift BitOr BitXor BitAnd FloorDiv Invert Not "
    "UAdd USub Eq NotEq Lt LtE Gt GtE Is IsNot In NotIn comprehension ExceptHandler arguments arg keyword alias "
    "withitem").split())
_WHAT = {ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Await: "await", ast.AsyncFunctionDef: "async def",
         ast.AsyncFor: "async for", ast.AsyncWith: "async with", ast.Match: "match"}


def _dunder(name: str) -> bool:
    return name.startswith("__")


# ------------------------------------------------------------------------------------------- 1. the syntax
class _Rewriter(ast.NodeTransformer):
    """Refuses what the language does not allow; turns ``a.b`` into ``__mha_read__(a, 'b', line, col)`` and the
    target ``a.b = …`` into ``__mha_write__(a, 'b', line, col).b = …``."""

    def generic_visit(self, node):
        if not isinstance(node, _ALLOWED_NODES):
            what = _WHAT.get(type(node), type(node).__name__)
            raise Refused("check_syntax_forbidden", *_at(node), what=what)
        return super().generic_visit(node)

    def visit_Name(self, node: ast.Name):
        if _dunder(node.id):
            raise Refused("check_dunder", *_at(node), name=node.id)
        return node

    def visit_arg(self, node: ast.arg):
        if _dunder(node.arg):
            raise Refused("check_dunder", *_at(node), name=node.arg)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef):
        if _dunder(node.name) and node.name != "__init__":
            raise Refused("check_dunder", *_at(node), name=node.name)
        if node.decorator_list:
            raise Refused("check_decorator", *_at(node.decorator_list[0]))
        return self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef):
        if _dunder(node.name):
            raise Refused("check_dunder", *_at(node), name=node.name)
        if node.decorator_list:
            raise Refused("check_decorator", *_at(node.decorator_list[0]))
        if node.keywords:
            raise Refused("check_class_keyword", *_at(node.keywords[0]), name=node.keywords[0].arg or "**")
        return self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler):
        if node.type is None:
            raise Refused("check_bare_except", *_at(node))
        if node.name and _dunder(node.name):
            raise Refused("check_dunder", *_at(node), name=node.name)
        return self.generic_visit(node)

    def visit_Global(self, node):
        for name in node.names:
            if _dunder(name):
                raise Refused("check_dunder", *_at(node), name=name)
        return node

    visit_Nonlocal = visit_Global

    def visit_Import(self, node: ast.Import):
        for alias in node.names:
            if alias.name not in MODULES or alias.name == "typing":
                raise Refused("check_import_forbidden", *_at(node), name=alias.name)
            if alias.asname and _dunder(alias.asname):
                raise Refused("check_dunder", *_at(node), name=alias.asname)
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom):
        module = node.module or ""
        if node.level or (module not in MODULES and module != "__future__"):
            raise Refused("check_import_forbidden", *_at(node), name="." * node.level + module)
        for alias in node.names:
            if not _importable(module, alias.name):
                raise Refused("check_import_name_forbidden", *_at(node), name=alias.name, module=module)
            if alias.asname and _dunder(alias.asname):
                raise Refused("check_dunder", *_at(node), name=alias.asname)
        return node

    def visit_Call(self, node: ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "__init__":
            # super().__init__(...), nn.Module.__init__(self): the one dunder a module needs, and only called
            func.value = self.visit(func.value)
            guarded = _call("__mha_read__", func.value, func.attr, func)
            node.func = ast.copy_location(guarded, func)
            node.args = [self.visit(a) for a in node.args]
            node.keywords = [self.visit(k) for k in node.keywords]
            return node
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute):
        if _dunder(node.attr):
            raise Refused("check_dunder", *_at(node), name=node.attr)
        node.value = self.visit(node.value)
        if isinstance(node.ctx, ast.Load):
            return ast.copy_location(_call("__mha_read__", node.value, node.attr, node), node)
        if isinstance(node.ctx, ast.Store):
            node.value = ast.copy_location(_call("__mha_write__", node.value, node.attr, node), node)
            return node
        raise Refused("check_syntax_forbidden", *_at(node), what="del")


def _refuse_unbound_builtins(tree: ast.Module) -> None:
    """A built-in outside ``SAFE_NAMES`` (``open``, ``eval``, ``getattr``, ...) used but never bound by the learner
    is refused by name, at its first use (a learner's own ``input`` parameter is theirs)."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    used = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.id not in bound and n.id not in SAFE_NAMES and hasattr(builtins, n.id)]
    if used:
        first = min(used, key=lambda n: (n.lineno, n.col_offset))
        raise Refused("check_name_forbidden", *_at(first), name=first.id)


def _at(node) -> tuple[int | None, int | None]:
    line = getattr(node, "lineno", None)
    col = getattr(node, "col_offset", None)
    return line, None if col is None else col + 1


def _call(guard: str, value: ast.expr, attr: str, where: ast.AST) -> ast.Call:
    line, col = _at(where)
    return ast.Call(func=ast.Name(id=guard, ctx=ast.Load()),
                    args=[value, ast.Constant(attr), ast.Constant(line), ast.Constant(col)], keywords=[])


def _importable(module: str, name: str) -> bool:
    if module == "__future__":
        return name == "annotations"
    if module == "typing":
        return name in TYPING_NAMES
    full = f"{module}.{name}"
    if full in MODULES:  # from torch import nn, from torch.nn import functional
        return True
    return name in _ATTRS_OF[module]


_ATTRS_OF = {"torch": TORCH_ATTRS, "torch.nn": NN_ATTRS, "torch.nn.functional": F_ATTRS, "math": MATH_ATTRS,
             "typing": frozenset()}


# ------------------------------------------------------------------------------------- 2. attributes at run time
class _Guard:
    """The attribute guards of one compiled program; knows the classes the learner defined."""

    def __init__(self):
        self.classes: set[type] = set()
        self.module_attrs = {id(torch): TORCH_ATTRS, id(nn): NN_ATTRS, id(F): F_ATTRS, id(math): MATH_ATTRS,
                             id(nn.init): INIT_ATTRS, id(typing): frozenset()}

    # -- classes
    def build_class(self, func, name, *bases, **kwargs):
        line = func.__code__.co_firstlineno
        if kwargs:
            raise Refused("check_class_keyword", line, None, name=next(iter(kwargs)))
        for base in bases:
            if not (base in self.classes or base in _NN_CLASSES or base in EXCEPTIONS or base is object):
                raise Refused("check_base_forbidden", line, None, name=getattr(base, "__name__", "?"))
        cls = builtins.__build_class__(func, name, *bases)
        if issubclass(cls, nn.Module):
            for attr in vars(cls):
                if attr in MODULE_RESERVED:
                    raise Refused("check_name_reserved", line, None, name=attr)
        self.classes.add(cls)
        return cls

    def _learner_class(self, cls: type) -> bool:
        return any(c in self.classes for c in cls.__mro__)

    def _defined(self, cls: type, name: str) -> bool:
        """``name`` is defined by one of the learner's classes in ``cls``'s MRO (not inherited from ours)."""
        return any(c in self.classes and name in vars(c) for c in cls.__mro__)

    # -- reading
    def read(self, obj, name: str, line, col):
        if self.readable(obj, name):
            return getattr(obj, name)
        raise Refused("check_dunder" if _dunder(name) else "check_attr_forbidden", line, col, name=name,
                      owner=_owner(obj))

    def readable(self, obj, name: str) -> bool:
        if name == "__init__":
            return isinstance(obj, super) or (isinstance(obj, type) and (
                issubclass(obj, nn.Module) or issubclass(obj, Exception)))
        if _dunder(name):
            return False
        if isinstance(obj, types.ModuleType):
            return name in self.module_attrs.get(id(obj), ())
        if isinstance(obj, torch.Tensor) or obj is torch.Tensor or obj is nn.Parameter:
            return name in TENSOR_ATTRS
        if isinstance(obj, super):
            return name == "forward"
        if isinstance(obj, type):
            return self._learner_class(obj) and self._defined(obj, name)
        if isinstance(obj, (torch.finfo, torch.iinfo)):
            return name in INFO_ATTRS
        if isinstance(obj, torch.Size):
            return name in ("numel", "index", "count")
        if isinstance(obj, BaseException) and (name == "args" or not self._learner_class(type(obj))):
            return name == "args"
        if type(obj).__module__ == "torch.return_types":  # x.max(dim=-1).values
            return name in ("values", "indices")
        cls = type(obj)
        if self._learner_class(cls):
            if self._defined(cls, name):
                return True
            if isinstance(obj, nn.Module):
                return name in MODULE_PUBLIC or (name not in MODULE_RESERVED and (
                    name in obj.__dict__ or name in obj._modules or name in obj._parameters
                    or name in obj._buffers))
            return name in obj.__dict__
        if isinstance(obj, nn.Module) and cls in _NN_CLASSES:
            return name in MODULE_PUBLIC or name in obj._modules or name in obj._parameters
        for kind, names in CONTAINER_ATTRS.items():
            if cls is kind:
                return name in names
        return False

    # -- writing
    def write(self, obj, name: str, line, col):
        if (not isinstance(obj, type) and self._learner_class(type(obj)) and not _dunder(name)
                and not (isinstance(obj, nn.Module) and name in MODULE_RESERVED)):
            return obj
        raise Refused("check_dunder" if _dunder(name) else "check_attr_write", line, col, name=name,
                      owner=_owner(obj))

def _owner(obj) -> str:
    """What ``obj`` is, for a message: a module's name, a class's name, else its type's name."""
    if isinstance(obj, types.ModuleType):
        return {id(nn): "nn", id(F): "F"}.get(id(obj), obj.__name__)
    if isinstance(obj, type):
        return obj.__name__
    return type(obj).__name__


# --------------------------------------------------------------------------------------------- compiling, running
def check_code(code: str) -> types.CodeType:
    """``code`` parsed, checked and rewritten, compiled (nothing run yet). Raises ``Refused``."""
    if not isinstance(code, str):
        raise Refused("check_syntax", None, None, message="not text")
    if len(code) > MAX_CHARS or code.count("\n") >= MAX_LINES:
        raise Refused("check_too_long", None, None, max_chars=MAX_CHARS, max_lines=MAX_LINES)
    try:
        tree = ast.parse(code, filename=FILENAME, mode="exec")
    except SyntaxError as err:
        raise Refused("check_syntax", err.lineno, err.offset, message=str(err.msg)[:MESSAGE_CHARS],
                      text=(err.text or "").rstrip("\n")[:MESSAGE_CHARS]) from None
    except (ValueError, MemoryError, RecursionError) as err:  # a NUL byte; absurd nesting
        raise Refused("check_syntax", None, None, message=str(err)[:MESSAGE_CHARS], text="") from None
    try:
        _refuse_unbound_builtins(tree)
        tree = ast.fix_missing_locations(_Rewriter().visit(tree))
        return compile(tree, FILENAME, "exec", dont_inherit=True)
    except RecursionError:
        raise Refused("check_syntax", None, None, message="nested too deeply", text="") from None


def compile_learner(code: str) -> dict:
    """The learner's namespace: module globals after running ``code``'s top level in the restricted language
    (names the learner defined, and ``__source__``: the code; the guards stay in the functions' globals). Raises
    ``Refused``: for the code, or
    for what its top level did (``check_raised`` with the exception's name and message, ``check_recursion``,
    ``check_memory``)."""
    program = check_code(code)
    guard = _Guard()
    # The real __import__: import statements were checked name by name above, and torch's C code imports its own
    # modules through the calling frame's built-ins. Learner code cannot name it (no dunder names).
    names = dict(SAFE_NAMES, __build_class__=guard.build_class, __import__=builtins.__import__)
    namespace = {"__builtins__": names, "__name__": "learner", "__mha_read__": guard.read,
                 "__mha_write__": guard.write}
    # tracebacks and the diagnosis quote the learner's lines (this process is the worker's child: one program)
    linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)
    try:
        exec(program, namespace)
    except Refused:
        raise
    except BaseException as err:  # noqa: BLE001 - the learner's exception becomes a message
        raise learner_error(err) from None
    learner = {k: v for k, v in namespace.items() if not _dunder(k)}
    learner["__source__"] = code
    return learner


def traceback_line(err: BaseException) -> int | None:
    """The line of the learner's code an exception went through last (None if it never reached it). As
    ``mha.check.trace.traceback_line``, without its cap on frames (the sandbox imports nothing of mha's)."""
    line, tb = None, err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def learner_error(err: BaseException) -> Refused:
    """An exception learner code raised, as a ``Refused`` (plain data: the exception's name and message)."""
    line = traceback_line(err)
    if isinstance(err, RecursionError):
        return Refused("check_recursion", line, None)
    if isinstance(err, MemoryError) or (isinstance(err, RuntimeError) and _out_of_memory(str(err))):
        return Refused("check_memory", line, None)
    if not isinstance(err, Exception):  # KeyboardInterrupt, SystemExit: not the learner's to raise
        return Refused("check_raised", line, None, error=type(err).__name__, message="")
    try:
        message = str(err)[:MESSAGE_CHARS]
    except BaseException:  # noqa: BLE001 - a message that cannot be shown is not shown
        message = ""
    return Refused("check_raised", line, None, error=type(err).__name__, message=message)


def _out_of_memory(message: str) -> bool:
    return "can't allocate memory" in message or "not enough memory" in message or "std::bad_alloc" in message
