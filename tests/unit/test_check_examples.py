"""The Check your code page's examples (mha/check/examples.py): the course's and the second seed's code are the
material's, verbatim; each Bug zoo bug example is the course's class with the bug's lines and runs like the zoo's
class on the same parameters (here, in the test process: these are our own examples, not learner code)."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import course_mha
import pytest
import torch

from mha.check import examples
from mha.lessons import bugs

SEEDS = Path(__file__).resolve().parents[1] / "seeds"


def _run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<example>", "exec"), ns)  # noqa: S102 our own example text
    return ns


def test_course_class_is_the_course_verbatim():
    assert examples.COURSE_CLASS.strip() == inspect.getsource(course_mha.MultiHeadAttention).strip()
    deck = (SEEDS / "000_363dbe6b18304446.txt").read_text(encoding="utf-8")  # the deck puts notes between methods
    for method in examples.COURSE_CLASS.split("\n    def ")[1:]:
        assert "    def " + method.strip() in deck


def test_seed_two_code_is_the_seed_verbatim():
    seed = (SEEDS / "002_1760bd44c1942a64.txt").read_text(encoding="utf-8")
    assert examples.SEED_TWO_FUNCTION.strip() in seed
    assert examples.SEED_TWO_CLASS.strip() in seed


def test_every_bug_of_the_zoo_has_an_example_and_the_ids_are_unique():
    shown = {e.bug for e in examples.EXAMPLES if e.bug}
    assert shown == set(bugs.BUG_NAMES)
    assert len(set(examples.EXAMPLE_IDS)) == len(examples.EXAMPLES)
    assert examples.get_example("course").code == examples.COURSE
    with pytest.raises(KeyError):
        examples.get_example("nope")


def test_the_korean_starter_is_the_same_code_with_its_words_in_korean():
    ko = examples.starter("ko")
    assert examples.starter("en") == examples.STARTER and ko != examples.STARTER
    assert re.search(r'"""[^"]*[\uac00-\ud7a3][^"]*"""', ko), ko  # the docstring
    english = re.compile(r"[A-Za-z_]{3,}")
    for line in ko.splitlines():  # no English words left in our comments and docstring (code names may stay)
        words = line.split("#", 1)[1] if "#" in line else line.strip().strip('"') if '"""' in line else ""
        assert not [w for w in english.findall(words) if w not in {"head_dim", "d_model"}], line
    strip = lambda code: [ln.split("#")[0].rstrip() for ln in code.splitlines() if '"""' not in ln]  # noqa: E731
    assert strip(ko) == strip(examples.STARTER)  # the same code, line for line


def _inputs(d_model=16, T=6):
    g = torch.Generator().manual_seed(1)
    return torch.randn(1, T, d_model, generator=g, dtype=torch.float64)


@pytest.mark.parametrize("example_id", ["starter", "starter_ko", "course"])
def test_starter_and_course_equal_our_module(example_id):
    from mha.core.attention import MultiHeadAttention

    ours = MultiHeadAttention(16, 4).double()
    code = examples.starter("ko") if example_id == "starter_ko" else examples.get_example(example_id).code
    theirs = _run(code)["MultiHeadAttention"](16, 4).double()
    theirs.load_state_dict(ours.state_dict(), strict=False)
    for name in ("query_linear", "key_linear", "value_linear", "output_linear"):
        getattr(theirs, name).load_state_dict(getattr(ours, name).state_dict())
    x, mask = _inputs(), torch.ones(6, 6, dtype=torch.bool).tril()
    with torch.no_grad():
        torch.testing.assert_close(theirs(x, x, x, mask), ours(x, x, x, mask), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", [b for b in bugs.BUG_NAMES if b != bugs.SEED_TWO])
def test_bug_example_runs_like_the_zoo_bug(name):
    """With a mask that blocks no whole row under the bug, the example's output is the zoo class's."""
    from mha.core.attention import MultiHeadAttention

    bug = bugs.get_bug(name)
    ours = MultiHeadAttention(16, 4).double()
    zoo = bugs.buggy_copy(bug, ours).double()
    theirs = _run(examples.bug_code(name))["MultiHeadAttention"](16, 4).double()
    for lin in ("query_linear", "key_linear", "value_linear", "output_linear"):
        getattr(theirs, lin).load_state_dict(getattr(ours, lin).state_dict())
    x = _inputs()
    i = torch.arange(6)
    mask = (i[:, None] + i[None, :]) % 2 == 0  # every row and column keeps keys and loses some: no NaN either way
    with torch.no_grad():
        got, want, right = theirs(x, x, x, mask), zoo(x, x, x, mask), ours(x, x, x, mask)
    torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)
    assert (got - right).abs().max() > 1e-3  # the bug shows on this input


def test_seed_two_example_fails_with_several_heads_and_runs_with_one():
    cls = _run(examples.SEED_TWO)["MultiHeadAttention"]
    x = _inputs().float()
    with pytest.raises(RuntimeError):
        cls(16, 4)(x, x, x)
    assert _run(examples.SEED_TWO)["MultiHeadAttention"](16, 1)(x, x, x).shape == (1, 6, 16)
