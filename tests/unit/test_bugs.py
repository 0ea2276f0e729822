"""The bug zoo (mha/lessons/bugs.py) and the tests that catch each bug.

For every bug, ``mha.lessons.bugs.BUGS`` names one test in this file. That test runs its check on the real module (which
must pass, for 1, 2 and 4 heads); ``test_bug_fails_its_named_test`` runs the same check on the bug (which must
fail, with 4 heads). With one head the transpose bugs give exactly the real numbers: ``test_one_head_hides_*``.
"""
import pytest
import torch
import torch.nn.functional as F

from mha.core.attention import MultiHeadAttention
from mha.core.inputs import init_weights
from mha.core.masks import causal_mask, padding_mask
from mha.lessons import bugs
from mha.weights.view import ViewSpec, build_model, run_view, view_inputs

D_MODEL = 8
HEADS = [1, 2, 4]
TIGHT = dict(rtol=1e-10, atol=1e-10)


def build(cls, num_heads, seed=0):
    return init_weights(cls(D_MODEL, num_heads), seed).double().eval()


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


# --- checks: one per named test; each raises AssertionError when its property does not hold ---------------------


def check_runs_for_every_num_heads_dividing_d_model(cls, num_heads):
    x = randn(2, 5, D_MODEL)
    try:
        out = build(cls, num_heads)(x, x, x)
    except RuntimeError as err:
        raise AssertionError(f"{cls.__name__}(d_model={D_MODEL}, num_heads={num_heads}) fails: {err}") from err
    assert out.shape == (2, 5, D_MODEL)


def check_tokens_attend_to_other_tokens(cls, num_heads):
    """With no mask, token 0's output depends on token 3 (attention mixes positions)."""
    m = build(cls, num_heads)
    x = randn(1, 5, D_MODEL)
    changed = x.clone()
    changed[:, 3] = randn(1, D_MODEL, seed=1)
    assert not torch.allclose(m(x, x, x)[:, 0], m(changed, changed, changed)[:, 0])


def check_split_heads_keeps_each_position_apart(cls, num_heads):
    """Head h of position t holds features h*head_dim ... (h+1)*head_dim - 1 of position t, and nothing else."""
    m = build(cls, num_heads)
    x = randn(2, 5, D_MODEL)
    projected = m.query_linear(x)  # (B, T, d_model)
    q = m.trace(x, x, x).q  # (B, H, T, head_dim)
    hd = D_MODEL // num_heads
    for h in range(num_heads):
        torch.testing.assert_close(q[:, h], projected[..., h * hd:(h + 1) * hd], rtol=0, atol=0)


def check_combine_heads_undoes_split_heads(cls, num_heads):
    m = build(cls, num_heads)
    x = randn(2, 5, D_MODEL)  # (B, T, d_model)
    torch.testing.assert_close(m.combine_heads(m.split_heads(x, 2), 2), x, rtol=0, atol=0)


def check_weight_rows_sum_to_one(cls, num_heads):
    """Each query's weights over the keys sum to 1 (Tq != Tk, so rows and columns cannot be confused)."""
    m = build(cls, num_heads)
    q, kv = randn(2, 4, D_MODEL), randn(2, 6, D_MODEL, seed=1)
    sums = m.trace(q, kv, kv).weights.sum(-1)  # (B, H, Tq)
    torch.testing.assert_close(sums, torch.ones_like(sums), **TIGHT)


def check_blocked_keys_get_zero_weight(cls, num_heads):
    m = build(cls, num_heads)
    x = randn(2, 5, D_MODEL)
    mask = causal_mask(5)  # (T, T), True = may attend
    weights = m.trace(x, x, x, mask).weights  # (B, H, T, T)
    assert (weights[:, :, ~mask] == 0).all(), "a blocked key got weight"
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, num_heads, 5, dtype=torch.float64), **TIGHT)


def check_blocked_key_equals_deleting_it(cls, num_heads):
    """Blocking key 2 for every query gives exactly what deleting token 2 from the keys and values gives."""
    m = build(cls, num_heads)
    q, kv = randn(2, 4, D_MODEL), randn(2, 6, D_MODEL, seed=1)
    mask = torch.ones(6, dtype=torch.bool)
    mask[2] = False
    keep = [0, 1, 3, 4, 5]
    torch.testing.assert_close(m(q, kv, kv, mask), m(q, kv[:, keep], kv[:, keep]), **TIGHT)


def check_head_outputs_match_torch_sdpa(cls, num_heads):
    """Each head's output is F.scaled_dot_product_attention of the module's own q, k, v (same mask convention)."""
    m = build(cls, num_heads)
    x = randn(2, 5, D_MODEL)
    mask = causal_mask(5)
    tr = m.trace(x, x, x, mask)
    z = F.scaled_dot_product_attention(tr.q, tr.k, tr.v, attn_mask=mask)  # (B, H, T, head_dim)
    torch.testing.assert_close(tr.head_outputs, z, **TIGHT)


# --- the named tests: the real module passes each one ------------------------------------------------------------


@pytest.mark.parametrize("num_heads", HEADS)
def test_runs_for_every_num_heads_dividing_d_model(num_heads):
    check_runs_for_every_num_heads_dividing_d_model(MultiHeadAttention, num_heads)


@pytest.mark.parametrize("num_heads", HEADS)
def test_tokens_attend_to_other_tokens(num_heads):
    check_tokens_attend_to_other_tokens(MultiHeadAttention, num_heads)


@pytest.mark.parametrize("num_heads", HEADS)
def test_split_heads_keeps_each_position_apart(num_heads):
    check_split_heads_keeps_each_position_apart(MultiHeadAttention, num_heads)


@pytest.mark.parametrize("num_heads", HEADS)
def test_combine_heads_undoes_split_heads(num_heads):
    check_combine_heads_undoes_split_heads(MultiHeadAttention, num_heads)


@pytest.mark.parametrize("num_heads", HEADS)
def test_weight_rows_sum_to_one(num_heads):
    check_weight_rows_sum_to_one(MultiHeadAttention, num_heads)


@pytest.mark.parametrize("num_heads", HEADS)
def test_blocked_keys_get_zero_weight(num_heads):
    check_blocked_keys_get_zero_weight(MultiHeadAttention, num_heads)


@pytest.mark.parametrize("num_heads", HEADS)
def test_blocked_key_equals_deleting_it(num_heads):
    check_blocked_key_equals_deleting_it(MultiHeadAttention, num_heads)


@pytest.mark.parametrize("num_heads", HEADS)
def test_head_outputs_match_torch_sdpa(num_heads):
    check_head_outputs_match_torch_sdpa(MultiHeadAttention, num_heads)


CHECKS = {name: globals()["check_" + name.removeprefix("test_")] for name in dir() if name.startswith("test_")}


# --- every bug is caught by its named test -------------------------------------------------------------------------


def test_every_bug_names_a_test_of_this_file():
    assert len(bugs.BUGS) == 7 and len(set(bugs.BUG_NAMES)) == 7
    for bug in bugs.BUGS:
        assert bug.test_id == f"tests/unit/test_bugs.py::{bug.test}"
        assert bug.test in CHECKS and callable(globals()[bug.test]), bug.test


@pytest.mark.parametrize("bug", bugs.BUGS, ids=bugs.BUG_NAMES)
def test_bug_fails_its_named_test(bug):
    with pytest.raises(AssertionError):
        CHECKS[bug.test](bug.cls, 4)


@pytest.mark.parametrize("bug", bugs.BUGS[1:], ids=bugs.BUG_NAMES[1:])
def test_every_bug_differs_from_the_real_module_with_several_heads_and_a_mask(bug):
    real = build(MultiHeadAttention, 4)
    x = randn(2, 5, D_MODEL)
    mask = causal_mask(5)
    assert (bugs.buggy_copy(bug, real)(x, x, x, mask) - real(x, x, x, mask)).abs().max() > 1e-3


def test_seed_two_as_written_fails_with_several_heads_and_with_one_attends_only_to_itself():
    check_runs_for_every_num_heads_dividing_d_model(bugs.SeedTwoMultiHeadAttention, 1)  # one head: it runs ...
    with pytest.raises(AssertionError):
        check_tokens_attend_to_other_tokens(bugs.SeedTwoMultiHeadAttention, 1)  # ... but never looks at other tokens
    x = randn(1, 5, D_MODEL)
    assert bugs.seed_two_error(x, 1) is None
    assert "mat1 and mat2" in bugs.seed_two_error(x, 2)


@pytest.mark.parametrize("num_heads", [1, 2, 4])
def test_seed_two_made_to_run_attends_between_heads(num_heads):
    x = randn(2, 5, D_MODEL)
    weights, output = bugs.seed_two_head_weights(x, num_heads, seed=3)
    assert weights.shape == (2, 5, num_heads, num_heads)  # per token, heads x heads: not tokens x tokens
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 5, num_heads, dtype=torch.float64), **TIGHT)
    module = init_weights(bugs.SeedTwoMultiHeadAttention(D_MODEL, num_heads), 3).double()
    split = x.view(2, 5, num_heads, D_MODEL // num_heads)
    with torch.no_grad():
        torch.testing.assert_close(output, module(split, split, split), rtol=0, atol=0)  # the class's own forward


# --- one head hides the transpose bugs; no mask hides the mask bugs ------------------------------------------------

TRANSPOSE_BUGS = [b for b in bugs.BUGS if b.hidden_by_one_head]
MASK_BUGS = [b for b in bugs.BUGS if b.needs_mask]


def test_the_transpose_bugs_are_the_split_and_combine_bugs():
    assert {b.cls for b in TRANSPOSE_BUGS} == {bugs.SplitHeadsWithoutTranspose, bugs.CombineHeadsWithoutPermute}
    assert {b.cls for b in MASK_BUGS} == {bugs.FlippedMaskPolarity, bugs.MaskAfterSoftmax}


@pytest.mark.parametrize("bug", TRANSPOSE_BUGS, ids=[b.name for b in TRANSPOSE_BUGS])
def test_one_head_hides_transpose_bugs(bug):
    CHECKS[bug.test](bug.cls, 1)  # the very test that catches it with 4 heads passes with 1
    x, kv = randn(2, 5, D_MODEL), randn(2, 7, D_MODEL, seed=1)
    for mask in (None, padding_mask([7, 4], max_len=7)):
        one, one_bug = build(MultiHeadAttention, 1), build(bug.cls, 1)
        assert torch.equal(one_bug(x, kv, kv, mask), one(x, kv, kv, mask))  # exactly the same numbers
        two, two_bug = build(MultiHeadAttention, 2), build(bug.cls, 2)
        assert not torch.allclose(two_bug(x, kv, kv, mask), two(x, kv, kv, mask))


@pytest.mark.parametrize("bug", MASK_BUGS, ids=[b.name for b in MASK_BUGS])
def test_mask_bugs_are_invisible_without_a_mask(bug):
    x = randn(2, 5, D_MODEL)
    real = build(MultiHeadAttention, 4)
    torch.testing.assert_close(bugs.buggy_copy(bug, real)(x, x, x), real(x, x, x), rtol=0, atol=0)


@pytest.mark.parametrize("mask", [None, "causal", "padding", "row"])
def test_one_step_harness_without_a_bug_is_the_real_module(mask):
    """_OneStepBug copies the real trace with the attention step behind a hook: with no bug, nothing differs."""
    real = build(MultiHeadAttention, 4)
    harness = bugs._OneStepBug(D_MODEL, 4).double()
    harness.load_state_dict(real.state_dict())
    q, kv = randn(2, 5, D_MODEL), randn(2, 5, D_MODEL, seed=1)
    m = {None: None, "causal": causal_mask(5), "padding": padding_mask([5, 2]),
         "row": torch.ones(5, 5, dtype=torch.bool).index_fill(0, torch.tensor([1]), False)}[mask]
    a, b = real.trace(q, kv, kv, m), harness.trace(q, kv, kv, m)
    for name in ("q", "k", "v", "scores", "weights", "head_outputs", "concat", "output", "fully_masked"):
        assert torch.equal(getattr(a, name), getattr(b, name)), name


# --- the zoo as the page runs it ----------------------------------------------------------------------------------


# every_bug_shows: False where a bug can be harmless, e.g. "hello [PAD] [PAD]" with padding leaves each query one
# key, whose weight is 1 with or without scaling; a fully blocked row is all 0 in every variant.
@pytest.mark.parametrize("text,kv_text,causal,kind,every_bug_shows", [
    ("Orange is my favorite fruit", "", False, None, True),
    ("Orange is my favorite fruit", "", True, None, True),
    ("the cat sat\nhello", "", True, None, False),
    ("the cat sat\nhello", "", False, "padding", False),
    ("a b c", "x y z w q", False, None, True),
    ("a b c d", "", False, "row", False),
])
def test_run_zoo_on_a_view(text, kv_text, causal, kind, every_bug_shows):
    spec = ViewSpec(text=text, kv_text=kv_text, causal=causal, d_model=16, num_heads=4, sentence=1 if "\n" in text
                    else 0)
    view = run_view(spec)
    model, one = build_model(16, 4, 0), build_model(16, 1, 0)
    q, k = torch.from_numpy(view.x)[None], torch.from_numpy(view.x_kv)[None]
    Tq, Tk = q.size(1), k.size(1)
    allowed = torch.from_numpy(view.allowed[0].copy())
    if kind == "row":
        allowed[0] = False  # a fully masked query row
    runs = {r.name: r for r in bugs.run_zoo(model, q, k, None if allowed.all() else allowed, one_head_model=one)}
    assert list(runs) == list(bugs.BUG_NAMES)
    for bug in bugs.BUGS:
        r = runs[bug.name]
        assert r.weights_ok.shape == (4, Tq, Tk) and torch.isfinite(torch.from_numpy(r.weights_ok)).all()
        if bug.name == bugs.SEED_TWO:
            assert "mat1 and mat2" in r.error and r.head_weights.shape == (Tq, 4, 4)
            continue
        assert r.weights_bug.shape == (4, Tq, Tk)
        for arr in (r.weights_bug, r.difference, r.output_bug, r.output_ok):
            assert torch.isfinite(torch.from_numpy(arr)).all(), bug.name  # these go into charts: never NaN
        if every_bug_shows:
            assert r.max_error_output > 1e-4, bug.name  # a demo mask steps in for the mask bugs where none is set
        assert r.demo_mask == (bug.needs_mask and bool(allowed.all()))
        if bug.hidden_by_one_head:
            assert r.max_error_one_head == 0.0
    assert view_inputs(spec).model is model  # the shared module was used, never changed: same cached object
    assert torch.equal(model.query_linear.weight, build_model(16, 4, 0).query_linear.weight)
