"""The restricted language of Check your code (mha/check/sandbox.py): what a learner's attention needs runs, every
escape is refused with a message key, and nothing a refusal touched changed in this process.

These tests call ``compile_learner`` in the test process: only code that the sandbox refuses before it can do
anything, or that is harmless. Loops, explosions and the OS limits are tested through the worker
(tests/unit/test_check_worker.py).
"""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mha.check import examples
from mha.check.sandbox import Refused, compile_learner
from mha.core import i18n
from mha.core.attention import MultiHeadAttention as Ours
from mha.strings.check import STRINGS

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport math\n"


def refusal(code: str) -> Refused:
    with pytest.raises(Refused) as info:
        compile_learner(code)
    return info.value


# --------------------------------------------------------------------------------------------- what must run
@pytest.mark.parametrize("example", examples.EXAMPLES, ids=lambda e: e.id)
def test_every_example_compiles_to_real_modules(example):
    namespace = compile_learner(example.code)
    classes = [v for v in namespace.values() if isinstance(v, type) and issubclass(v, nn.Module)]
    functions = [v for v in namespace.values() if callable(v) and getattr(v, "__code__", None)]
    assert classes or functions, f"{example.id}: nothing to check in {sorted(namespace)}"
    for cls in classes:  # real nn.Module subclasses: trusted code may introspect them
        assert issubclass(cls, nn.Module) and "forward" in vars(cls)


def test_the_courses_class_in_the_sandbox_equals_ours_on_the_same_weights():
    """The course's class run in the restricted language gives our module's numbers (float64, tight)."""
    cls = compile_learner(examples.COURSE)["MultiHeadAttention"]
    torch.manual_seed(0)
    theirs = cls(16, 4).double()
    ours = Ours(16, 4).double()
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(2, 6, 16, dtype=torch.float64)
    mask = torch.ones(6, 6).tril()
    assert torch.allclose(theirs(x, x, x, mask), ours(x, x, x, mask), atol=1e-12)
    names = [name for name, _ in theirs.named_modules()]  # what the diagnosis walks
    assert names == ["", "query_linear", "key_linear", "value_linear", "output_linear"]


def test_a_correct_learner_class_in_another_style_runs():
    """Renamed layers, a fused projection, einsum, F.scaled_dot_product_attention, typing hints, from-imports."""
    code = '''
from __future__ import annotations
from typing import Optional
import torch
from torch import nn
from torch.nn import functional as F
from math import sqrt


class Attention(nn.Module):
    def __init__(self, d_model: int, num_heads: int):
        super(Attention, self).__init__()
        assert d_model % num_heads == 0
        self.h, self.d_k = num_heads, d_model // num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self._scale = 1 / sqrt(self.d_k)
        nn.init.xavier_uniform_(self.qkv.weight)

    def _heads(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.h, self.d_k).transpose(1, 2)  # (B, H, T, D)

    def forward(self, query, key, value, mask: Optional[torch.Tensor] = None):
        q, k, v = [self._heads(t) for t in self.qkv(query).chunk(3, dim=-1)]
        manual = torch.einsum("bhqd,bhkd->bhqk", q, k) * self._scale
        if mask is not None:
            manual = manual.masked_fill(mask == 0, float("-inf"))
        z = torch.softmax(manual, dim=-1) @ v
        z2 = F.scaled_dot_product_attention(q, k, v, attn_mask=None if mask is None else mask.bool())
        assert torch.allclose(z, z2, atol=1e-5), "two paths disagree"
        B, H, T, D = z.shape
        return self.proj(z.transpose(1, 2).reshape(B, T, H * D))
'''
    module = compile_learner(code)["Attention"](16, 4)
    x = torch.randn(1, 5, 16)
    out = module(x, x, x, torch.ones(5, 5).tril())
    assert out.shape == (1, 5, 16) and torch.isfinite(out).all()


def test_the_bare_function_of_the_second_seed_runs():
    fn = compile_learner(examples.SDPA)["scaled_dot_product_attention"]
    q = torch.randn(1, 2, 4, 8)
    out, weights = fn(q, q, q)
    assert torch.allclose(weights.sum(-1), torch.ones(1, 2, 4), atol=1e-6)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, q, q), atol=1e-5)


def test_print_and_a_learners_own_exception_class_work():
    namespace = compile_learner('class ShapeError(ValueError):\n    def __init__(self, m):\n'
                                '        super().__init__(m)\n        self.m = m\nprint("hello")\n'
                                'try:\n    raise ShapeError("x")\nexcept ShapeError as e:\n    caught = e.args, e.m\n'
                                's = set()\ns.add(1)\n')
    assert namespace["caught"] == (("x",), "x") and namespace["s"] == {1}


def test_an_old_style_base_and_iterators_work():
    namespace = compile_learner("class Config(object):\n    d_model = 16\nit = iter([1, 2])\nfirst = next(it)\n"
                                "c = Config()\nd = c.d_model\n")
    assert (namespace["first"], namespace["d"]) == (1, 16)


def test_a_parameter_named_like_a_forbidden_builtin_is_the_learners_own():
    """``def forward(self, input)`` is common: only an unbound ``input`` is the built-in."""
    namespace = compile_learner("def f(input, type=2):\n    return input * type\n")
    assert namespace["f"](3) == 6


# ---------------------------------------------------------------------------------------------- what is refused
ESCAPES = [
    # imports
    ("import_os", "import os", "check_import_forbidden"),
    ("import_sys", "import sys", "check_import_forbidden"),
    ("import_subprocess", "import subprocess", "check_import_forbidden"),
    ("import_builtins", "import builtins", "check_import_forbidden"),
    ("import_importlib", "import importlib", "check_import_forbidden"),
    ("import_cpp_extension", "import torch.utils.cpp_extension", "check_import_forbidden"),
    ("from_torch_utils", "from torch.utils import cpp_extension", "check_import_forbidden"),
    ("from_torch_load", "from torch import load", "check_import_name_forbidden"),
    ("from_torch_underscore_C", "from torch import _C", "check_import_name_forbidden"),
    ("from_os_system", "from os import system", "check_import_forbidden"),
    ("relative_import", "from . import sandbox", "check_import_forbidden"),
    ("import_star", "from torch import *", "check_import_name_forbidden"),
    ("typing_module_itself", "import typing", "check_import_forbidden"),
    # built-ins that are not there
    ("dunder_import", "__import__('os')", "check_name_forbidden"),
    ("open", "open('/etc/passwd').read()", "check_name_forbidden"),
    ("eval", "eval('1 + 1')", "check_name_forbidden"),
    ("exec", "exec('x = 1')", "check_name_forbidden"),
    ("compile", "compile('1', 'f', 'eval')", "check_name_forbidden"),
    ("getattr", HEADER + "getattr(torch, 'load')", "check_name_forbidden"),
    ("setattr", HEADER + "setattr(torch, 'matmul', None)", "check_name_forbidden"),
    ("type", "type(1)", "check_name_forbidden"),
    ("type_three_args", "type('X', (), {})", "check_name_forbidden"),
    ("vars", HEADER + "vars(torch)", "check_name_forbidden"),
    ("globals", "globals()", "check_name_forbidden"),
    ("locals", "locals()", "check_name_forbidden"),
    ("dir", HEADER + "dir(torch)", "check_name_forbidden"),
    ("hasattr", HEADER + "hasattr(torch, 'load')", "check_name_forbidden"),
    ("breakpoint", "breakpoint()", "check_name_forbidden"),
    ("input", "input()", "check_name_forbidden"),
    ("object_subclasses", "object.__subclasses__()", "check_dunder"),
    ("builtins_name", "__builtins__['open']", "check_dunder"),
    # dunder chains
    ("subclasses_chain", "().__class__.__bases__[0].__subclasses__()", "check_dunder"),
    ("class_attr", "x = 1\nx.__class__", "check_dunder"),
    ("function_globals", "def f():\n    pass\nf.__globals__", "check_dunder"),
    ("lambda_code", "(lambda: 0).__code__", "check_dunder"),
    ("module_dict", HEADER + "torch.__dict__", "check_dunder"),
    ("math_loader", HEADER + "math.__loader__", "check_dunder"),
    ("dunder_method", "class A:\n    def __getattr__(self, n):\n        return n\n", "check_dunder"),
    ("dunder_name_store", "__name__ = 'x'", "check_dunder"),
    ("init_not_called", HEADER + "f = nn.Module.__init__", "check_dunder"),
    # str.format and f-strings
    ("format_attribute", "'{0.__class__}'.format(1)", "check_attr_forbidden"),
    ("format_map", "'{x.__class__}'.format_map({'x': 1})", "check_attr_forbidden"),
    ("fstring_dunder", "x = 1\nf'{x.__class__}'", "check_dunder"),
    # generators, frames, tracebacks
    ("yield", "def g():\n    yield 1\n", "check_syntax_forbidden"),
    ("gi_frame", "g = (i for i in range(3))\ng.gi_frame", "check_attr_forbidden"),
    ("gi_code", "g = (i for i in range(3))\ng.gi_code", "check_attr_forbidden"),
    ("traceback_frame", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    e.__traceback__.tb_frame",
     "check_dunder"),
    ("with_traceback", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    e.with_traceback", "check_attr_forbidden"),
    ("async", "async def f():\n    pass\n", "check_syntax_forbidden"),
    # torch functions that are not on the whitelist
    ("torch_load", HEADER + "torch.load('w.pt')", "check_attr_forbidden"),
    ("torch_save", HEADER + "torch.save(torch.ones(1), '/tmp/x.pt')", "check_attr_forbidden"),
    ("torch_hub", HEADER + "torch.hub.load('a/b', 'c')", "check_attr_forbidden"),
    ("torch_jit", HEADER + "torch.jit.script", "check_attr_forbidden"),
    ("torch_compile", HEADER + "torch.compile(nn.Linear(2, 2))", "check_attr_forbidden"),
    ("torch_ops_load_library", HEADER + "torch.ops.load_library('/tmp/evil.so')", "check_attr_forbidden"),
    ("torch_C", HEADER + "torch._C", "check_attr_forbidden"),
    ("torch_classes", HEADER + "torch.classes", "check_attr_forbidden"),
    ("torch_utils_cpp_extension", HEADER + "torch.utils.cpp_extension.load_inline", "check_attr_forbidden"),
    ("torch_from_file", HEADER + "torch.from_file('/etc/passwd')", "check_attr_forbidden"),
    ("torch_os_system", HEADER + "torch.os.system('id')", "check_attr_forbidden"),
    ("F_torch_load", HEADER + "F.torch.load", "check_attr_forbidden"),
    ("nn_modules_internals", HEADER + "nn.modules.module", "check_attr_forbidden"),
    ("torch_set_num_threads", HEADER + "torch.set_num_threads(64)", "check_attr_forbidden"),
    ("tensor_reduce", HEADER + "torch.ones(1).__reduce__()", "check_dunder"),
    ("tensor_reduce_ex", HEADER + "torch.ones(1).__reduce_ex__(2)", "check_dunder"),
    ("tensor_numpy", HEADER + "torch.ones(1).numpy().tofile('/tmp/x')", "check_attr_forbidden"),
    ("tensor_storage", HEADER + "torch.ones(1).untyped_storage()", "check_attr_forbidden"),
    ("tensor_grad_fn", HEADER + "torch.ones(1, requires_grad=True).sum().grad_fn", "check_attr_forbidden"),
    ("tensor_class_numpy", HEADER + "torch.Tensor.numpy", "check_attr_forbidden"),
    ("module_compile", HEADER + "nn.Linear(2, 2).compile()", "check_attr_forbidden"),
    ("module_hook", HEADER + "nn.Linear(2, 2).register_forward_hook(print)", "check_attr_forbidden"),
    ("module_internals", HEADER + "nn.Linear(2, 2)._parameters", "check_attr_forbidden"),
    ("dtype_attribute", HEADER + "torch.float32.to_complex", "check_attr_forbidden"),
    # writing outside the learner's own objects
    ("monkeypatch_torch", HEADER + "torch.matmul = lambda a, b: a", "check_attr_write"),
    ("monkeypatch_linear", HEADER + "nn.Linear.forward = lambda self, x: x", "check_attr_write"),
    ("monkeypatch_own_class", "class A:\n    pass\nA.x = 1", "check_attr_write"),
    ("delete_attribute", HEADER + "del torch.matmul", "check_syntax_forbidden"),
    # classes
    ("metaclass", "class A(metaclass=print):\n    pass\n", "check_class_keyword"),
    ("decorator", "def d(f):\n    return f\n@d\ndef g():\n    pass\n", "check_decorator"),
    ("tensor_subclass", HEADER + "class T(torch.Tensor):\n    pass\n", "check_base_forbidden"),
    ("int_subclass", "class I(int):\n    pass\n", "check_base_forbidden"),
    ("reserved_hook_name", HEADER + "class M(nn.Module):\n    def _call_impl(self, *a):\n        return 0\n",
     "check_name_reserved"),
    ("reserved_named_modules", HEADER + "class M(nn.Module):\n    def named_modules(self):\n        return []\n",
     "check_name_reserved"),
    ("module_internals_of_own_class",
     HEADER + "class M(nn.Module):\n    pass\nm = M()\nm._modules", "check_attr_forbidden"),
    ("set_internal_of_own_module",
     HEADER + "class M(nn.Module):\n    pass\nm = M()\nm._forward_hooks = {}", "check_attr_write"),
    ("super_getattribute", HEADER + "class M(nn.Module):\n    def f(self):\n        return super().parameters\n"
     "M().f()", "check_attr_forbidden"),
    # other syntax
    ("bare_except", "try:\n    pass\nexcept:\n    pass\n", "check_bare_except"),
    ("match", "match 1:\n    case 1:\n        pass\n", "check_syntax_forbidden"),
]


@pytest.mark.parametrize("name,code,key", ESCAPES, ids=[e[0] for e in ESCAPES])
def test_escape_is_refused_with_a_message(name, code, key):
    refused = refusal(code)
    assert refused.key == key, f"{name}: {refused.key} {refused.fmt}"
    assert key in STRINGS and i18n.text(key, "ko", **refused.fmt) != key  # a message the page can show
    assert refused.line is None or 1 <= refused.line <= code.count("\n") + 1
    assert refused.as_dict()["status"] == "refused"


def test_there_are_at_least_forty_escapes():
    assert len(ESCAPES) >= 40


def test_refusals_changed_nothing_in_this_process():
    """After all the attempts above (run first, same process), torch and nn are what they were."""
    assert torch.matmul is torch._C._VariableFunctions.matmul
    assert nn.Linear.forward.__module__ == "torch.nn.modules.linear"
    assert not hasattr(torch, "x")
    assert math.sqrt(4.0) == 2.0


def test_a_refused_name_is_named_and_located():
    refused = refusal("import torch\n\nx = torch.load('w.pt')\n")
    assert (refused.key, refused.line, refused.col) == ("check_attr_forbidden", 3, 5)
    assert refused.fmt == {"name": "load", "owner": "torch"}
    assert "`torch.load`" in i18n.text("check_attr_forbidden", "en", **refused.fmt)


def test_a_refusal_inside_forward_is_not_swallowed_by_except_exception():
    """Refused is a BaseException: the learner's ``except Exception`` (and a diagnosis's) lets it through."""
    code = HEADER + '''
class M(nn.Module):
    def forward(self, x):
        try:
            return x.numpy()
        except Exception:
            return x
'''
    module = compile_learner(code)["M"]()
    with pytest.raises(Refused) as info:
        module(torch.ones(2))
    line = code.splitlines().index("            return x.numpy()") + 1
    assert (info.value.key, info.value.line) == ("check_attr_forbidden", line)


def test_syntax_error_has_line_column_and_text():
    refused = refusal("import torch\nx = (1,\ny = 2 +\n")
    assert refused.key == "check_syntax" and refused.line is not None and refused.col is not None
    assert refused.fmt["message"]


def test_nul_byte_and_absurd_nesting_are_syntax_errors():
    assert refusal("x = 1\x00").key == "check_syntax"
    assert refusal("x = " + "(" * 5000 + ")" * 5000).key == "check_syntax"


def test_too_long_code_is_refused_before_parsing():
    assert refusal("x = 1\n" * 1001).key == "check_too_long"
    assert refusal("#" * 20_001).key == "check_too_long"


def test_hostile_exception_message_is_plain_data():
    hostile = "<script>alert(1)</script> **bold** :red[x] $x$ [link](javascript:alert(1))"
    refused = refusal(f"raise ValueError({hostile!r})")
    assert refused.key == "check_raised"
    assert refused.fmt == {"error": "ValueError", "message": hostile}  # unchanged: the page escapes it
    assert refused.line == 1


def test_an_exception_message_is_cut():
    refused = refusal("raise ValueError('x' * 100000)")
    assert refused.key == "check_raised" and len(refused.fmt["message"]) == 300


def test_namespaces_are_separate():
    a = compile_learner("import torch\nx = torch.ones(2)\n")
    b = compile_learner("y = 1\n")
    assert "x" not in b and "y" not in a
