"""Our MultiHeadAttention against the course's own class (tests/course_mha.py, copied verbatim from the seed):
weights move between the two with strict=True and every method gives the same numbers."""
from pathlib import Path

import pytest
import torch

import mha
from tests.course_mha import MultiHeadAttention as CourseMultiHeadAttention
from tests.course_mha import scaled_dot_product_attention as course_sdpa

TIGHT = dict(rtol=1e-12, atol=1e-12)


def pair(d_model=12, num_heads=3):
    """(ours, course's) in float64 with the same (non-default) weights."""
    ours = mha.init_weights(mha.MultiHeadAttention(d_model, num_heads).double(), seed=11)
    course = CourseMultiHeadAttention(d_model, num_heads).double()
    course.load_state_dict(ours.state_dict(), strict=True)
    return ours, course


def masks(batch, tq, tk):
    """Masks with no fully masked row (where the course's code gives NaN and ours 0: see test_attention)."""
    causal = torch.ones(tq, tk, dtype=torch.bool).tril()
    padding = mha.padding_mask([tk, max(1, tk - 2)][:batch], max_len=tk)
    return {
        "none": None,
        "causal-bool": causal,
        "causal-0/1-float": causal.double(),
        "padding": padding,
        "both-0/1-int": mha.combine_masks(causal, padding).long(),
    }


def test_state_dict_round_trip_strict_both_ways():
    ours = mha.init_weights(mha.MultiHeadAttention(8, 2), seed=1)
    course = CourseMultiHeadAttention(8, 2)
    assert ours.state_dict().keys() == course.state_dict().keys()
    course.load_state_dict(ours.state_dict(), strict=True)
    assert all(torch.equal(v, course.state_dict()[k]) for k, v in ours.state_dict().items())
    fresh = mha.MultiHeadAttention(8, 2)
    fresh.load_state_dict(course.state_dict(), strict=True)
    assert all(torch.equal(v, fresh.state_dict()[k]) for k, v in course.state_dict().items())


def test_same_attributes():
    ours, course = pair(12, 4)
    for name in ("d_model", "num_heads", "head_dim"):
        assert getattr(ours, name) == getattr(course, name)
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in course.named_modules()]


@pytest.mark.parametrize("kind", ["none", "causal-bool", "causal-0/1-float", "padding", "both-0/1-int"])
@pytest.mark.parametrize("tq, tk", [(5, 5), (3, 6), (6, 3)], ids=["self", "cross-short-q", "cross-long-q"])
def test_same_outputs(gen, kind, tq, tk):
    ours, course = pair()
    query = torch.randn(2, tq, 12, generator=gen, dtype=torch.float64)
    key = query if tq == tk else torch.randn(2, tk, 12, generator=gen, dtype=torch.float64)
    value = query if tq == tk else torch.randn(2, tk, 12, generator=gen, dtype=torch.float64)
    mask = masks(2, tq, tk)[kind]
    with torch.no_grad():
        expected = course(query, key, value, mask)
        assert torch.isfinite(expected).all()  # the case is one where the course's code is defined
        torch.testing.assert_close(ours(query, key, value, mask), expected, **TIGHT)


def test_same_methods(gen):
    ours, course = pair(12, 3)
    x = torch.randn(2, 5, 12, generator=gen, dtype=torch.float64)
    with torch.no_grad():
        projected = ours.query_linear(x)
        assert torch.equal(ours.split_heads(projected, 2), course.split_heads(projected, 2))
        q, k, v = (ours.split_heads(torch.randn(2, 5, 12, generator=gen, dtype=torch.float64), 2) for _ in range(3))
        for mask in masks(2, 5, 5).values():
            torch.testing.assert_close(ours.compute_attention(q, k, v, mask), course.compute_attention(q, k, v, mask),
                                       **TIGHT)
        z = ours.compute_attention(q, k, v)
        assert torch.equal(ours.combine_heads(z, 2), course.combine_heads(z, 2))


def test_fully_masked_row_course_gives_nan_ours_zero(gen):
    """The one intended difference, pinned down: the course's code returns NaN for a query with no allowed key."""
    ours, course = pair()
    x = torch.randn(1, 4, 12, generator=gen, dtype=torch.float64)
    mask = mha.causal_mask(4)
    mask[1] = False
    with torch.no_grad():
        expected, got = course(x, x, x, mask), ours(x, x, x, mask)
    assert torch.isnan(expected[0, 1]).all()
    torch.testing.assert_close(got[0, 1], ours.output_linear.bias, **TIGHT)
    rows = [0, 2, 3]
    torch.testing.assert_close(got[:, rows], expected[:, rows], **TIGHT)


@pytest.mark.parametrize("head_dim", [1, 4, 16])
def test_scaled_dot_product_attention_matches_course_function(gen, head_dim):
    """seed 002's function (no mask): same (output, weights). It takes sqrt in float32, hence float32 tolerance."""
    q, k, v = (torch.randn(2, 3, 5, head_dim, generator=gen, dtype=torch.float64) for _ in range(3))
    out, weights = mha.scaled_dot_product_attention(q, k, v)
    expected_out, expected_weights = course_sdpa(q, k, v)
    torch.testing.assert_close(out, expected_out, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(weights, expected_weights, rtol=1e-6, atol=1e-6)


# --- the course's code in tests/course_mha.py is the course's, line for line ------------------------------------
SEEDS = Path(__file__).resolve().parents[1] / "seeds"  # copies of ../shared/seeds, so a clean clone has them
SHARED_SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def _code_lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")}


def test_course_mha_is_copied_verbatim_from_the_course():
    """Every line of tests/course_mha.py's code (docstrings, comments and the added import aside) is a line of
    the course material, so the compatibility tests run the course's own class and function."""
    import ast
    import inspect

    from tests import course_mha

    material = set()
    for f in sorted(SEEDS.glob("*.txt")):
        material |= {line.strip() for line in f.read_text(encoding="utf-8").splitlines()}
    tree = ast.parse(inspect.getsource(course_mha))
    docstrings = {ast.get_docstring(n, clean=False) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))} - {None}
    source = inspect.getsource(course_mha)
    for doc in docstrings:
        source = source.replace(doc, "")
    lines = [line for line in _code_lines(source) if line not in ('""""""', "import torch")]
    assert lines
    missing = [line for line in lines if line not in material]
    assert not missing, f"not in the course material: {missing}"


def test_the_copied_course_material_matches_the_shared_one():
    if not SHARED_SEEDS.is_dir():
        pytest.skip("../shared/seeds is not next to this checkout (a clean clone): the copies in tests/seeds are used")
    for f in sorted(SEEDS.glob("*.txt")):
        assert f.read_bytes() == (SHARED_SEEDS / f.name).read_bytes(), f.name
