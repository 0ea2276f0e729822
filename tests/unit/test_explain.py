"""mha.lessons.explain and mha.charts.explain: the cell breakdown equals the module's trace, the step-by-step extras
come from the module, the weight statistics are right on hand-built rows, and the head_dim sweep shows saturation.

References are computed here, independently of the app's code path: the module's trace called directly, and
float64 arithmetic from the module's weight matrices.
"""
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from mha.charts import explain as xf
from mha.core.attention import MultiHeadAttention
from mha.core.inputs import init_weights, token_inputs
from mha.core.markup import escape_markdown
from mha.core.tokens import tokenize
from mha.lessons import explain, heads
from mha.strings.explain import STRINGS
from mha.weights.view import ViewSpec, build_model, run_view, view_inputs

SEEDS_DIR = Path(__file__).resolve().parents[1] / "seeds"  # the course material, copied from ../shared/seeds

SPECS = {
    "default": ViewSpec(),
    "causal_3_heads": ViewSpec(text="the cat sat on the mat", d_model=24, num_heads=3, causal=True, seed=7),
    "one_head_no_positions": ViewSpec(text="a b a b c", d_model=8, num_heads=1, positional=False, seed=3),
    "cross": ViewSpec(text="where is the cat", d_model=16, num_heads=2, kv_text="the cat sleeps on a warm mat"),
    "batch_sentence_1": ViewSpec(text="short one\nthis line is a bit longer", d_model=16, num_heads=4, sentence=1),
    "large_d_model": ViewSpec(text="Orange is my favorite fruit", d_model=512, num_heads=2, causal=True),
}


def module_trace(spec: ViewSpec):
    """The module's own trace for these settings, sentence ``spec.sentence`` (batch axis kept)."""
    inp = view_inputs(spec)
    with torch.no_grad():
        return inp.model.trace(inp.query, inp.key, inp.key, inp.mask), inp


def cells(view, n=6):
    """A spread of (head, i, j) cells, always including a blocked one when the view has any."""
    H, Tq, Tk = view.weights.shape
    picked = [(0, 0, 0), (H - 1, Tq - 1, Tk - 1), (H // 2, Tq // 2, Tk // 3)]
    blocked = np.argwhere(~view.allowed)
    if len(blocked):
        picked.append(tuple(int(v) for v in blocked[len(blocked) // 2]))
    rng = np.random.default_rng(0)
    while len(picked) < n:
        picked.append((int(rng.integers(H)), int(rng.integers(Tq)), int(rng.integers(Tk))))
    return picked


@pytest.mark.parametrize("name", list(SPECS))
def test_breakdown_numbers_equal_the_trace(name):
    spec = SPECS[name]
    view = run_view(spec)
    tr, _ = module_trace(spec)
    b_ = view.sentence
    for head, i, j in cells(view):
        b = explain.cell_breakdown(view, head, i, j)
        # the module's numbers, exactly (float32, as the heatmaps show them)
        assert b.score == float(tr.scores[b_, head, i, j])
        assert b.weight == float(tr.weights[b_, head, i, j])
        np.testing.assert_array_equal(b.q, tr.q[b_, head, i].numpy())
        np.testing.assert_array_equal(b.k, tr.k[b_, head, j].numpy())
        np.testing.assert_array_equal(b.row_weights, tr.weights[b_, head, i].numpy())
        # the hand arithmetic reproduces them
        assert b.scale == pytest.approx(math.sqrt(spec.d_model // spec.num_heads))
        assert b.raw == pytest.approx(float(np.dot(b.q.astype(np.float64), b.k.astype(np.float64))), abs=1e-12)
        assert b.raw / b.scale == pytest.approx(b.score, abs=2e-5)
        assert b.allowed == bool(tr.allowed[b_, head, i, j]) if tr.allowed is not None else b.allowed
        if b.allowed:
            assert b.exp_scores[j] / b.exp_sum == pytest.approx(b.weight, abs=1e-6)
        else:
            assert b.weight == 0.0 and b.exp_scores[j] == 0.0
        if not b.fully_masked:
            assert b.row_weights.sum() == pytest.approx(1.0, abs=1e-5)


def test_breakdown_of_a_causally_masked_cell():
    view = run_view(SPECS["causal_3_heads"])
    b = explain.cell_breakdown(view, 1, 1, 4)  # query 1 may not look at key 4 under the causal mask
    assert not b.allowed and b.weight == 0.0
    assert b.row_allowed.tolist() == [True, True, False, False, False, False]
    assert b.row_weights[2:].tolist() == [0.0] * 4 and b.row_weights[:2].sum() == pytest.approx(1.0, abs=1e-6)
    assert b.raw / b.scale == pytest.approx(b.score, abs=2e-5)  # the score itself exists; softmax ignores it


def test_breakdown_raw_score_matches_a_float64_reference_from_the_weights():
    """Independent of the trace: q = x W_qᵀ and k = x W_kᵀ in float64, split by hand."""
    spec = SPECS["causal_3_heads"]
    view = run_view(spec)
    model = build_model(spec.d_model, spec.num_heads, spec.seed)
    x = token_inputs(tokenize(spec.text).tokens, spec.d_model, spec.seed).double()  # (T, d_model)
    hd = spec.d_model // spec.num_heads
    q = (x @ model.query_linear.weight.double().T).view(-1, spec.num_heads, hd)  # (T, H, hd)
    k = (x @ model.key_linear.weight.double().T).view(-1, spec.num_heads, hd)
    for head, i, j in cells(view):
        b = explain.cell_breakdown(view, head, i, j)
        assert b.raw == pytest.approx(float(q[i, head] @ k[j, head]), abs=1e-5)


@pytest.mark.parametrize("num_heads", [1, 2])
def test_large_head_dim_breakdown_lists_the_largest_terms_and_sums_the_rest(num_heads):
    view = run_view(ViewSpec(d_model=512, num_heads=num_heads))
    b = explain.cell_breakdown(view, num_heads - 1, 3, 1)
    c = b.contributions()
    hd = 512 // num_heads
    assert len(c.dims) == explain.TOP_K and c.rest_count == hd - explain.TOP_K
    listed = np.abs(np.asarray(c.values))
    unlisted = np.abs(np.delete(b.products, list(c.dims)))
    assert listed.min() >= unlisted.max()
    assert list(listed) == sorted(listed, reverse=True)
    assert c.total == pytest.approx(b.raw, abs=1e-9)
    assert c.rest == pytest.approx(float(unlisted.size and np.delete(b.products, list(c.dims)).sum()), abs=1e-9)


def test_small_head_dim_lists_every_term_in_order():
    c = explain.contributions(np.array([0.5, -2.0, 1.0]))
    assert c.dims == (0, 1, 2) and c.values == (0.5, -2.0, 1.0) and c.rest == 0.0 and c.rest_count == 0
    with pytest.raises(ValueError, match="top_k"):
        explain.contributions(np.ones(3), top_k=0)


def test_breakdown_names_the_valid_range():
    view = run_view(ViewSpec())
    with pytest.raises(IndexError, match=r"key position j must be in 0\.\.4, got 5"):
        explain.cell_breakdown(view, 0, 0, 5)
    with pytest.raises(IndexError, match=r"head must be in 0\.\.3"):
        explain.cell_breakdown(view, 4, 0, 0)


def test_exp_shift_keeps_huge_scores_finite():
    """Scores beyond e^709 would overflow float64; the breakdown shifts them and the ratio is unchanged."""
    view = run_view(ViewSpec())
    scores = view.scores.copy()
    scores[0, 0] = [800.0, 799.0, 0.0, 0.0, 0.0]
    fake = type(view)(**{**view.__dict__, "scores": scores})
    b = explain.cell_breakdown(fake, 0, 0, 1)
    assert b.shift == 800.0 and np.isfinite(b.exp_scores).all()
    assert b.exp_scores[1] / b.exp_sum == pytest.approx(math.exp(-1) / (1 + math.exp(-1)), rel=1e-9)


@pytest.mark.parametrize("event, cell", [
    ({"selection": {"points": [{"customdata": {"0": 3, "1": 1}}]}}, (3, 1)),  # a typed-array row, as browsers send
    ({"selection": {"points": [{"customdata": {"1": 4, "0": 2}}]}}, (2, 4)),
    ({"selection": {"points": [{"customdata": [0, 5]}, {"customdata": [1, 1]}]}}, (0, 5)),
    ({"selection": {"points": []}}, None),
    ({"selection": {"points": [{"x": "cat"}]}}, None),  # a point without customdata (e.g. a mask overlay)
    ({"selection": {"points": [{"customdata": ["a", "b"]}]}}, None),
    ({"selection": {"points": [{"customdata": 7}]}}, None),
    (None, None), ({}, None), ("garbage", None),
])
def test_cell_from_selection_reads_both_customdata_shapes_and_ignores_garbage(event, cell):
    assert explain.cell_from_selection(event) == cell


# --- the step-by-step extras ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["default", "one_head_no_positions", "cross", "batch_sentence_1", "large_d_model"])
def test_extras_are_the_modules_own_intermediates(name):
    spec = SPECS[name]
    view = run_view(spec)
    ex = explain.extras(view)
    model = build_model(spec.d_model, spec.num_heads, spec.seed)
    assert ex.sentence == view.sentence
    with torch.no_grad():  # the projections are the module's own layers applied to the inputs (another code path)
        np.testing.assert_allclose(ex.query, model.query_linear(torch.from_numpy(view.x)).numpy(), atol=1e-5)
        np.testing.assert_allclose(ex.value, model.value_linear(torch.from_numpy(view.x_kv)).numpy(), atol=1e-5)
    np.testing.assert_allclose(ex.embedding + ex.positions, view.x, atol=1e-6)
    if not spec.positional:
        assert not ex.positions.any()
    # split_heads of the projections is exactly the trace's q, k, v
    for proj, theirs in ((ex.query, view.q), (ex.key, view.k), (ex.value, view.v)):
        split = model.split_heads(torch.from_numpy(proj).unsqueeze(0), 1)[0].numpy()  # (H, T, head_dim)
        np.testing.assert_array_equal(split, theirs)
    np.testing.assert_allclose(ex.qk / math.sqrt(view.head_dim), view.scores, atol=1e-5)
    assert ex.qk.shape == view.scores.shape


def test_extras_follow_uploaded_weights_like_the_view():
    """With a visitor's own weights, the extras come from that module, not the seeded one."""
    spec = SPECS["causal_3_heads"]
    own = init_weights(MultiHeadAttention(spec.d_model, spec.num_heads), seed=1234).state_dict()
    view = run_view(spec, state_dict=own)
    ex = explain.extras(view)
    np.testing.assert_allclose(ex.qk / math.sqrt(view.head_dim), view.scores, atol=1e-5)
    seeded = explain.extras(run_view(spec))
    assert not np.allclose(seeded.query, ex.query)  # the uploaded weights really are different
    np.testing.assert_allclose(ex.query, view.x @ own["query_linear.weight"].numpy().T, atol=1e-5)


def test_course_code_is_quoted_verbatim_from_the_seed():
    seeds = sorted(SEEDS_DIR.glob("000_*.txt"))
    assert seeds, f"course material not found in {SEEDS_DIR}"
    seed_lines = {line.strip() for line in seeds[0].read_text(encoding="utf-8").splitlines()}
    assert set(explain.COURSE_CODE) == set(explain.STEPS) == set(explain.STEP_SHAPES)
    for step, code in explain.COURSE_CODE.items():
        lines = [line.strip() for line in code.splitlines() if line.strip()]
        assert lines, step
        missing = [line for line in lines if line not in seed_lines]
        assert not missing, f"{step}: not in the course code: {missing}"


def test_step_shape_captions_name_every_axis_of_the_tensor_shown():
    view = run_view(SPECS["cross"])
    ex = explain.extras(view)
    tensors = {"embed": view.x, "linear": ex.query, "split_heads": view.q, "qk": ex.qk, "scale": view.scores,
               "mask": view.scores, "softmax": view.weights, "weighted_sum": view.head_outputs,
               "combine_heads": view.concat, "output_linear": view.output}
    for step, arr in tensors.items():
        _, letters = explain.STEP_SHAPES[step]
        text = explain.shape_text(letters, (view.batch_size,) + arr.shape)
        assert text.endswith(f"= ({', '.join(map(str, (view.batch_size,) + arr.shape))})")
    with pytest.raises(ValueError, match="names 3"):
        explain.shape_text("B, T, d_model", (1, 2))


# --- statistics of weight rows -------------------------------------------------------------------------------
def test_row_stats_on_hand_built_rows():
    rows = np.array([[0.25, 0.25, 0.25, 0.25],  # uniform
                     [1.0, 0.0, 0.0, 0.0],  # one-hot: saturated
                     [0.0, 0.0, 0.0, 0.0],  # fully masked
                     [0.5, 0.5, 0.0, 0.0]])  # uniform over two allowed keys
    allowed = np.array([[1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 0, 0]], dtype=bool)
    s = explain.row_stats(rows, allowed)
    np.testing.assert_allclose(s.entropy, [2.0, 0.0, 0.0, 1.0], atol=1e-12)  # bits: even over 4 keys = 2 bits
    np.testing.assert_allclose(s.entropy, heads.row_entropy(rows), atol=1e-12)  # the Heads page's unit too
    np.testing.assert_allclose(s.max_weight, [0.25, 1.0, 0.0, 0.5])
    np.testing.assert_allclose(s.max_entropy, [2.0, 2.0, 0.0, 1.0])  # ceiling log2(allowed keys)
    assert s.grad_norm[1] == 0.0 and s.grad_norm[2] == 0.0 and s.grad_norm[0] > 0.1
    assert all(np.isfinite(a).all() for a in (s.entropy, s.max_weight, s.grad_norm, s.max_entropy))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=2, max_size=9))
def test_softmax_gradient_norm_equals_torchs_jacobian(scores):
    s = torch.tensor(scores, dtype=torch.float64)
    jac = torch.autograd.functional.jacobian(lambda z: F.softmax(z, dim=-1), s)  # (T, T)
    w = F.softmax(s, dim=-1).numpy()
    assert explain.softmax_gradient_norm(w) == pytest.approx(float(torch.linalg.norm(jac)), rel=1e-6, abs=1e-14)


# --- the lab -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["default", "causal_3_heads", "cross", "large_d_model"])
def test_lab_weights_default_to_the_modules_and_unscaled_is_temperature_one_over_sqrt_head_dim(name):
    view = run_view(SPECS[name])
    np.testing.assert_allclose(explain.lab_weights(view), view.weights, atol=1e-6)
    unscaled = explain.lab_weights(view, scale=False)
    np.testing.assert_allclose(unscaled, explain.lab_weights(view, temperature=1 / math.sqrt(view.head_dim)),
                               atol=1e-5)
    assert (unscaled[~view.allowed] == 0).all()
    # and from scratch: softmax of q·k over allowed keys, in float64
    q, k = view.q.astype(np.float64), view.k.astype(np.float64)
    logits = np.where(view.allowed, q @ k.transpose(0, 2, 1), -np.inf)
    ref = np.exp(logits - logits.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(unscaled, ref / ref.sum(axis=-1, keepdims=True), atol=1e-5)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.1, 5.0), st.floats(0.1, 5.0))
def test_a_warmer_softmax_never_has_lower_entropy(t1, t2):
    view = run_view(SPECS["causal_3_heads"])
    lo, hi = sorted((t1, t2))
    e_lo = explain.row_entropy(explain.lab_weights(view, temperature=lo))
    e_hi = explain.row_entropy(explain.lab_weights(view, temperature=hi))
    assert (e_hi >= e_lo - 1e-6).all()


@pytest.mark.parametrize("head_dim, word", [(1, "none"), (4, "slightly"), (8, "slightly"), (16, "cold"),
                                             (32, "cold"), (64, "very_cold"), (512, "very_cold")])
def test_coldness_of_dropping_the_scaling_grows_with_head_dim(head_dim, word):
    assert explain.coldness(1 / math.sqrt(head_dim)) == word
    assert STRINGS[f"lab_cold_{word}"]["en"] and STRINGS[f"lab_cold_{word}"]["ko"]


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_temperature_must_be_positive_and_finite(bad):
    with pytest.raises(ValueError, match="temperature must be a positive number"):
        explain.lab_weights(run_view(ViewSpec()), temperature=bad)


@pytest.mark.parametrize("seed", [0, 1])
def test_sweep_unscaled_saturates_while_scaled_stays_flat(seed):
    sw = explain.head_dim_sweep(n_tokens=8, n_samples=64, seed=seed)
    assert sw.head_dims == explain.SWEEP_HEAD_DIMS
    eu, es = np.array(sw.entropy_unscaled), np.array(sw.entropy_scaled)
    assert (np.diff(eu) < 0).all(), eu  # unscaled entropy falls at every doubling of head_dim
    assert (np.diff(sw.max_unscaled) > 0).all() and sw.max_unscaled[-1] > 0.9  # one key takes ~everything
    assert (np.diff(sw.grad_unscaled) < 0).all() and sw.grad_unscaled[-1] < 0.25 * sw.grad_unscaled[0]
    assert np.ptp(es) < 0.1 * es.mean(), es  # scaled: roughly flat
    assert np.ptp(sw.max_scaled) < 0.1 and np.ptp(sw.grad_scaled) < 0.1 * np.mean(sw.grad_scaled)
    assert sw.uniform_entropy == pytest.approx(3.0)  # log2(8 tokens) bits
    assert es.min() > 0.7 * sw.uniform_entropy  # and far from saturated
    assert eu[-1] < 0.2 * es[-1]


def test_sweep_is_reproducible_and_checks_its_arguments():
    assert explain.head_dim_sweep((4, 16), 4, 8, seed=5) == explain.head_dim_sweep((4, 16), 4, 8, seed=5)
    with pytest.raises(ValueError, match="at least 2 tokens"):
        explain.head_dim_sweep((4,), n_tokens=1)
    with pytest.raises(ValueError, match="positive integers"):
        explain.head_dim_sweep((0, 4))


# --- figures -------------------------------------------------------------------------------------------------
def _numbers_finite(fig) -> bool:
    for tr in fig.data:
        for field in ("x", "y", "z"):
            v = getattr(tr, field, None)
            if v is None:
                continue
            arr = np.asarray(v, dtype=object).ravel()
            nums = [float(e) for e in arr if isinstance(e, (int, float, np.number))]
            if not np.isfinite(nums).all():
                return False
    return True


def test_split_heads_picture_shows_each_heads_columns_of_the_projection():
    spec = SPECS["causal_3_heads"]
    view = run_view(spec)
    ex = explain.extras(view)
    fig = xf.split_heads_figure(ex.query, view.q, view.labels)
    top, *panels = [tr for tr in fig.data if tr.type == "heatmap"]
    hd = view.head_dim
    np.testing.assert_array_equal(np.asarray(top.z), ex.query)
    assert len(panels) == spec.num_heads
    for h, panel in enumerate(panels):
        np.testing.assert_array_equal(np.asarray(panel.z), ex.query[:, h * hd:(h + 1) * hd])
    assert _numbers_finite(fig)


def test_breakdown_figures_carry_the_breakdowns_numbers_and_escape_tokens():
    view = run_view(SPECS["large_d_model"])
    b = explain.cell_breakdown(view, 1, 2, 1)
    c = b.contributions()
    wf = xf.contributions_waterfall(c, b.raw)
    assert list(wf.data[0].y)[-1] == b.raw and wf.data[0].measure[-1] == "total"
    assert sum(list(wf.data[0].y)[:-1]) == pytest.approx(b.raw, abs=1e-9)
    labels = ["<b>bold</b>", "[x](javascript:alert(1))", "plain", "x", "y"]
    bar = xf.attention_bar(b.row_weights, b.row_allowed, labels, highlight=1, masked_word="masked")
    assert list(bar.data[0].y) == pytest.approx(b.row_weights.tolist())
    assert bar.data[0].x[0] == "&lt;b&gt;bold&lt;/b&gt;"
    assert bar.data[0].marker.color[1] == xf.HIGHLIGHT  # key 1 is allowed for query 2 (causal) and highlighted
    assert bar.data[0].text[4] == "masked"
    vec = xf.cell_vectors(b.q, b.k, b.products)
    np.testing.assert_array_equal(np.asarray(vec.data[1].z)[0], b.products.astype(np.float32))
    for fig in (wf, bar, vec):
        assert _numbers_finite(fig)


def test_stats_and_sweep_figures_are_finite_with_masked_rows():
    view = run_view(SPECS["causal_3_heads"])
    series = {"a": explain.row_stats(view.weights[0], view.allowed[0]),
              "b": explain.row_stats(np.zeros_like(view.weights[0]), view.allowed[0])}
    assert _numbers_finite(xf.row_stats_figure(view.labels, series))
    assert _numbers_finite(xf.sweep_figure(explain.head_dim_sweep((4, 8), 4, 4), current_head_dim=3))
    pair = xf.weights_pair(view.weights[0], view.weights[1], view.labels, view.key_labels, allowed=view.allowed[0],
                           titles=("left", "right"))
    assert [a.text for a in pair.layout.annotations][:2] == ["left", "right"]


# --- text ----------------------------------------------------------------------------------------------------
def test_every_string_has_english_and_korean_with_the_same_placeholders():
    fields = lambda s: sorted(set(re.findall(r"{(\w+)", s)))  # noqa: E731
    for key, texts in STRINGS.items():
        assert texts.get("en") and texts.get("ko"), key
        assert fields(texts["en"]) == fields(texts["ko"]), key
    for step in explain.STEPS:
        assert f"ex_step_{step}" in STRINGS and f"ex_step_{step}_text" in STRINGS


def test_markdown_escape_leaves_no_live_markup():
    for token in ("*bold*", "[x](javascript:alert(1))", "$x^2$", "<b>", "`code`", "_a_", "# h"):
        escaped = escape_markdown(token)
        assert re.sub(r"\\.", "", escaped).strip("abcdefghijklmnopqrstuvwxyz0123456789:^ \u2060") == "", escaped
