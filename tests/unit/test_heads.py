"""mha.lessons.heads and mha.charts.heads: statistics on hand-built weight maps with answers worked out here, head
similarity, ablation through head_mask (never through the weights), the shared q/k projection, permutation
equivariance without positions, and the figures (no NaN, escaped labels, clickable pairs)."""
import dataclasses
import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mha.charts import heads as hf
from mha.core.attention import MultiHeadAttention
from mha.core.inputs import init_weights
from mha.lessons import heads
from mha.weights.batch import PAD
from mha.weights.view import ViewSpec, build_model, run_view

T = 5


def uniform(t=T):
    return np.full((t, t), 1.0 / t)


def one_hot_column(c, t=T):
    w = np.zeros((t, t))
    w[:, c] = 1.0
    return w


def previous_token(t=T):
    """Row 0 has nothing before it and looks at itself; every other row looks one step back."""
    w = np.zeros((t, t))
    w[0, 0] = 1.0
    w[np.arange(1, t), np.arange(t - 1)] = 1.0
    return w


# --------------------------------------------------------------------------------------------------- statistics
def test_entropy_in_bits_of_simple_rows():
    rows = np.array([[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0.25] * 4, [0, 0, 0, 0]], dtype=float)
    # -sum p log2 p: one certain key = 0 bits; a fair coin = 1 bit; four equal keys = 2 bits; a blocked row = 0
    np.testing.assert_allclose(heads.row_entropy(rows), [0.0, 1.0, 2.0, 0.0], atol=1e-12)


def test_uniform_map():
    s = heads.head_stats(uniform()[None])
    np.testing.assert_allclose(s.entropy, np.full((1, T), math.log2(T)))  # spread over T keys: log2 T bits
    # sum_j |i - j| / T averaged over i: the mean |i - j| over all T*T pairs, counted pair by pair
    mean_abs = sum(abs(i - j) for i in range(T) for j in range(T)) / T ** 2
    assert mean_abs == pytest.approx((T * T - 1) / (3 * T))  # the closed form, for good measure
    np.testing.assert_allclose(s.distance, [mean_abs])
    np.testing.assert_allclose(s.diagonal, [1 / T])
    np.testing.assert_allclose(s.previous, [1 / T])
    np.testing.assert_allclose(s.max_weight, [1 / T])
    np.testing.assert_allclose(s.received, np.full((1, T), 1 / T))
    assert s.sink[0] == 0 and s.sink_share[0] == pytest.approx(1 / T)  # a tie: the first key


def test_identity_map():
    s = heads.head_stats(np.eye(T)[None])
    np.testing.assert_allclose(s.entropy, 0.0, atol=1e-12)
    np.testing.assert_allclose(s.distance, [0.0])
    np.testing.assert_allclose(s.diagonal, [1.0])
    np.testing.assert_allclose(s.previous, [0.0])
    np.testing.assert_allclose(s.max_weight, [1.0])
    np.testing.assert_allclose(s.received, np.full((1, T), 1 / T))  # every key is looked at by exactly one query


@pytest.mark.parametrize("c", [0, 2, T - 1])
def test_one_hot_column_map_is_a_sink(c):
    s = heads.head_stats(one_hot_column(c)[None])
    np.testing.assert_allclose(s.entropy, 0.0, atol=1e-12)
    np.testing.assert_allclose(s.distance, [sum(abs(i - c) for i in range(T)) / T])  # row i looks |i - c| away
    np.testing.assert_allclose(s.diagonal, [1 / T])  # only row c is on its own key
    # of the rows 1..T-1, only row c + 1 (if it exists) has key c just before it
    np.testing.assert_allclose(s.previous, [(1 if c + 1 < T else 0) / (T - 1)])
    assert s.sink[0] == c and s.sink_share[0] == pytest.approx(1.0)


def test_previous_token_map():
    s = heads.head_stats(previous_token()[None])
    np.testing.assert_allclose(s.previous, [1.0])
    np.testing.assert_allclose(s.diagonal, [1 / T])  # only row 0
    np.testing.assert_allclose(s.distance, [(T - 1) / T])  # rows 1..T-1 look 1 step away, row 0 none


def test_heads_are_measured_independently_and_the_table_has_one_row_per_head():
    w = np.stack([uniform(), np.eye(T), one_hot_column(3)])
    s = heads.head_stats(w)
    np.testing.assert_allclose(s.diagonal, [1 / T, 1.0, 1 / T])
    table = heads.stats_table(s, [f"t{j}" for j in range(T)])
    assert list(table.columns) == list(heads.STAT_COLUMNS)
    assert table["head"].tolist() == [0, 1, 2]
    assert table.loc[2, "sink"] == "3: t3"


def test_fully_masked_rows_are_left_out_of_the_means():
    w = np.eye(T)
    w[1] = 0.0  # query 1 may attend to nothing: its weights are exactly 0
    s = heads.head_stats(w[None])
    assert not s.valid[0, 1] and s.valid[0, [0, 2, 3, 4]].all()
    np.testing.assert_allclose(s.diagonal, [1.0])  # the 4 remaining rows are all on the diagonal
    np.testing.assert_allclose(s.received[0], [0.25, 0, 0.25, 0.25, 0.25])


def test_entropy_ceiling_follows_the_mask():
    allowed = np.tril(np.ones((T, T), dtype=bool))[None]  # causal: row i may see i + 1 keys
    s = heads.head_stats(uniform()[None], allowed)
    np.testing.assert_allclose(s.max_entropy[0], [math.log2(i + 1) for i in range(T)])


def test_positional_measures_need_one_sentence():
    w = np.full((2, 3, 7), 1 / 7)  # 3 queries over 7 keys of another text
    s = heads.head_stats(w)
    assert s.distance is None and s.diagonal is None and s.previous is None
    assert "distance" not in heads.stats_table(s, list("abcdefg")).columns
    with pytest.raises(ValueError, match="Tq=3 and Tk=7"):
        heads.mean_distance(w)


def test_stats_reject_a_map_without_heads():
    with pytest.raises(ValueError, match=r"\(H, Tq, Tk\)"):
        heads.head_stats(np.eye(T))


# --------------------------------------------------------------------------------------------------- similarity
def test_js_divergence_from_its_definition():
    p, q = np.array([1.0, 0.0]), np.array([0.5, 0.5])
    m = (p + q) / 2  # [0.75, 0.25]
    kl_pm = 1.0 * math.log2(1.0 / 0.75)
    kl_qm = 0.5 * math.log2(0.5 / 0.75) + 0.5 * math.log2(0.5 / 0.25)
    assert heads.js_divergence(p, q) == pytest.approx(0.5 * kl_pm + 0.5 * kl_qm)
    assert heads.js_divergence(q, p) == pytest.approx(heads.js_divergence(p, q))  # symmetric
    assert heads.js_divergence(p, p) == pytest.approx(0.0, abs=1e-12)
    assert heads.js_divergence(np.array([1.0, 0]), np.array([0, 1.0])) == pytest.approx(1.0)  # disjoint: 1 bit
    assert m.sum() == 1.0


def test_head_similarity_js_and_cosine_on_hand_built_heads():
    w = np.stack([uniform(), np.eye(T), np.eye(T), one_hot_column(0)])
    js = heads.head_similarity(w, "js")
    assert js.shape == (4, 4) and np.allclose(js, js.T) and np.allclose(np.diag(js), 0)
    assert js[1, 2] == pytest.approx(0.0, abs=1e-12)  # identical heads
    # uniform row vs a one-hot row: the same JS for every row
    u, e = np.full(T, 1 / T), np.eye(T)[0]
    assert js[0, 1] == pytest.approx(float(heads.js_divergence(u, e)))
    # identity vs "everyone looks at key 0": rows agree on row 0 only (JS 0), are disjoint elsewhere (JS 1)
    assert js[1, 3] == pytest.approx((T - 1) / T)

    cos = heads.head_similarity(w, "cosine")
    assert np.allclose(np.diag(cos), 1.0)
    # flattened: uniform has T*T entries 1/T (norm 1), identity T ones (norm sqrt T), dot = T * 1/T = 1
    assert cos[0, 1] == pytest.approx(1 / math.sqrt(T))
    assert cos[1, 3] == pytest.approx(1 / T)  # one shared cell (0, 0); both norms sqrt T
    assert heads.most_alike(js, "js") == (1, 2) and heads.most_alike(cos, "cosine") == (1, 2)


def test_similarity_rejects_an_unknown_metric_and_handles_one_head():
    with pytest.raises(ValueError, match="'js' or 'cosine'"):
        heads.head_similarity(uniform()[None], "kl")
    assert heads.most_alike(np.zeros((1, 1)), "js") == (0, 0)


def test_pair_from_click_event():
    event = {"selection": {"points": [{"customdata": [2, 0], "x": "head 0", "y": "head 2"}]}}
    assert heads.pair_from_event(event, 4) == (2, 0)
    assert heads.pair_from_event(event, 2) is None  # head 2 does not exist any more
    typed = {"selection": {"points": [{"customdata": {"0": 2, "1": 3}}]}}  # what a browser sends for a typed array
    assert heads.pair_from_event(typed, 4) == (2, 3)
    for junk in (None, {}, {"selection": {"points": []}}, {"selection": {"points": [{"x": 1}]}}, "x"):
        assert heads.pair_from_event(junk, 4) is None


# --------------------------------------------------------------------------------------------------- ablation
def module64(d_model=12, num_heads=3, seed=1):
    return init_weights(MultiHeadAttention(d_model, num_heads).double(), seed).eval()


def inputs(gen, t, d_model=12):
    return torch.randn(t, d_model, generator=gen, dtype=torch.float64).numpy()


def test_switching_every_head_off_leaves_only_the_output_bias(gen):
    model = module64()
    ab = heads.ablate(model, inputs(gen, 6), heads_off=range(3))
    bias = model.output_linear.bias.detach().numpy()
    np.testing.assert_array_equal(ab.ablated, np.broadcast_to(bias, ab.ablated.shape))  # concat is 0: exactly b
    np.testing.assert_allclose(ab.change, np.linalg.norm(ab.output - bias, axis=-1))


def test_nothing_off_changes_nothing(gen):
    ab = heads.ablate(module64(), inputs(gen, 4), heads_off=())
    np.testing.assert_array_equal(ab.ablated, ab.output)
    assert not ab.change.any()


def test_results_add_up_to_the_output_and_ablation_removes_exactly_them(gen):
    model = module64()
    x = inputs(gen, 5)
    ab = heads.ablate(model, x, heads_off=[0, 2])
    np.testing.assert_allclose(ab.bias + ab.results.sum(axis=0), ab.output, atol=1e-12)
    np.testing.assert_allclose(ab.ablated, ab.output - ab.results[0] - ab.results[2], atol=1e-12)


@pytest.mark.parametrize("h", [0, 1, 2])
def test_a_heads_result_is_the_output_with_only_that_head_kept_minus_the_bias(gen, h):
    model = module64()
    x = torch.as_tensor(inputs(gen, 4)).unsqueeze(0)
    keep = torch.zeros(3)
    keep[h] = 1.0
    with torch.no_grad():
        only_h = model.trace(x, x, x, head_mask=keep).output[0] - model.output_linear.bias
        z = model.trace(x, x, x).head_outputs[0]  # (H, T, head_dim)
    np.testing.assert_allclose(heads.head_results(model, z)[h], only_h.numpy(), atol=1e-12)


def test_ablation_never_changes_the_cached_module(gen):
    model = build_model(16, 4, 0)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    x = inputs(gen, 5, 16).astype(np.float32)
    for off in ([0], [1, 3], [0, 1, 2, 3]):
        heads.ablate(model, x, heads_off=off)
    assert build_model(16, 4, 0) is model  # still the one shared object
    after = model.state_dict()
    assert before.keys() == after.keys() and all(torch.equal(before[k], after[k]) for k in before)
    # and the module still computes what it did: no hidden head mask left behind
    view = run_view(ViewSpec())
    again = heads.ablate(model, view.x, view.x_kv, view.allowed, ())
    np.testing.assert_allclose(again.output, view.output, atol=1e-6)


def test_ablation_with_keys_from_another_text_and_a_mask(gen):
    model = module64()
    mask = np.ones((3, 2, 7), dtype=bool)
    mask[..., 5:] = False  # the last two keys are padding
    ab = heads.ablate(model, inputs(gen, 2), inputs(gen, 7), mask, heads_off=[1])
    assert ab.output.shape == (2, 12) and ab.results.shape == (3, 2, 12)
    np.testing.assert_allclose(ab.ablated, ab.output - ab.results[1], atol=1e-12)


def test_unknown_heads_are_refused_with_the_valid_range():
    with pytest.raises(ValueError, match=r"heads \[4\] do not exist: this module has heads 0..3"):
        heads.head_mask_for(4, [1, 4])
    assert heads.head_mask_for(4, [1, 3]).tolist() == [1.0, 0.0, 1.0, 0.0]
    assert heads.sanitize_heads([3, "1", 1, 7, None, -1, "x"], 4) == [1, 3]


# --------------------------------------------------------------------------------------------------- q and k
def test_points_in_a_plane_keep_their_distances_in_the_projection(gen):
    basis, _ = torch.linalg.qr(torch.randn(6, 2, generator=gen, dtype=torch.float64))  # 2 orthonormal columns
    coords = torch.randn(9, 2, generator=gen, dtype=torch.float64)
    pts = (coords @ basis.T).numpy() + 3.0  # 9 points on a shifted plane in head_dim = 6
    proj = heads.qk_pca(pts[:4], pts[4:])
    assert proj.explained.sum() == pytest.approx(1.0)
    flat = np.concatenate([proj.q2, proj.k2])
    d_true = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    d_proj = np.linalg.norm(flat[:, None] - flat[None], axis=-1)
    np.testing.assert_allclose(d_proj, d_true, atol=1e-10)


def test_queries_and_keys_share_one_projection():
    q = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    k = np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 1.0], [0.0, 0.0, 2.0]])  # k0 is the same vector as q0
    proj = heads.qk_pca(q, k)
    np.testing.assert_allclose(proj.q2[0], proj.k2[0], atol=1e-12)
    # PCA axes have no sign of their own; ours point so that each axis' largest loading is positive, so the
    # picture cannot mirror itself between runs, machines or a flip of every vector's sign
    rng = np.random.default_rng(0)
    for _ in range(20):  # LAPACK's signs vary with the input: about half of these would come out mirrored
        p = heads.qk_pca(rng.normal(size=(5, 4)), rng.normal(size=(6, 4)))
        for row in p.components:
            assert row[np.abs(row).argmax()] > 0


def test_projection_with_head_dim_one():
    proj = heads.qk_pca(np.array([[1.0], [2.0]]), np.array([[0.0], [4.0], [1.0]]))
    assert np.all(proj.q2[:, 1] == 0) and np.all(proj.k2[:, 1] == 0) and proj.explained[1] == 0
    assert proj.explained[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="head_dim"):
        heads.qk_pca(np.zeros((2, 3)), np.zeros((2, 4)))


def test_top_keys_skip_blocked_keys_and_nearest_keys_read_the_picture():
    w = np.array([0.1, 0.5, 0.0, 0.4])
    assert heads.top_keys(w, k=2).tolist() == [1, 3]
    assert heads.top_keys(w, np.array([True, False, True, True]), k=3).tolist() == [3, 0, 2]
    proj = heads.QKProjection(q2=np.array([[0.0, 0.0]]), k2=np.array([[3.0, 0], [1.0, 0], [0, -2.0]]),
                              explained=np.zeros(2), components=np.zeros((2, 2)), center=np.zeros(2))
    assert heads.nearest_keys(proj, 0, 2).tolist() == [1, 2]
    assert heads.nearest_keys(proj, 0, 2, [True, False, True]).tolist() == [2, 0]


# --------------------------------------------------------------------------------------------------- word order
@given(n=st.integers(1, 40), seed=st.integers(0, 10_000))
@settings(max_examples=60, deadline=None)
def test_permutation_is_reproducible_and_always_moves_something(n, seed):
    p = heads.permutation(n, seed)
    assert sorted(p.tolist()) == list(range(n))
    np.testing.assert_array_equal(p, heads.permutation(n, seed))
    assert n == 1 or (p != np.arange(n)).any()


TOKENS = ("the", "cat", "saw", "the", "dog", "!")


def test_without_positions_outputs_move_with_their_tokens():
    model = build_model(16, 4, 0)
    perm = heads.permutation(len(TOKENS), 3)
    chk = heads.permutation_check(model, TOKENS, 0, perm, positional=False)
    assert chk.equivariant() and chk.output_error < 1e-5 and chk.weights_error < 1e-5
    np.testing.assert_allclose(chk.shuffled_output, chk.output[perm], atol=1e-5)


def test_put_back_undoes_the_shuffle():
    w = np.arange(2 * 16, dtype=float).reshape(2, 4, 4)
    perm = np.array([2, 0, 3, 1])
    shuffled = w[:, perm][:, :, perm]  # what an equivariant module gives for the shuffled input
    chk = heads.PermutationCheck(perm=perm, weights=w, shuffled_weights=shuffled, output=np.zeros((4, 1)),
                                 shuffled_output=np.zeros((4, 1)), output_error=0.0, weights_error=0.0)
    np.testing.assert_array_equal(chk.put_back(), w)


def test_positions_or_a_causal_mask_break_the_symmetry():
    model = build_model(16, 4, 0)
    perm = heads.permutation(len(TOKENS), 3)
    with_pos = heads.permutation_check(model, TOKENS, 0, perm, positional=True)
    assert not with_pos.equivariant() and with_pos.output_error > 1e-3
    causal = heads.permutation_check(model, TOKENS, 0, perm, positional=False, causal=True)
    assert not causal.equivariant() and causal.output_error > 1e-3


@given(perm=st.permutations(list(range(5))), words=st.lists(st.sampled_from(["a", "b", "c", "오렌지", "🍊"]),
                                                           min_size=5, max_size=5))
@settings(max_examples=25, deadline=None)
def test_equivariance_holds_for_any_shuffle_without_positions(perm, words):
    model = build_model(8, 2, 5)
    chk = heads.permutation_check(model, words, 5, perm, positional=False)
    assert chk.output_error < 1e-5 and chk.weights_error < 1e-5


def test_permutation_check_refuses_something_that_is_not_a_shuffle():
    with pytest.raises(ValueError, match="permutation of 0..2"):
        heads.permutation_check(build_model(8, 2, 0), ["a", "b", "c"], 0, [0, 0, 1], positional=False)


def test_a_repeated_word_has_identical_rows_only_without_positions():
    off = run_view(ViewSpec(text="the cat saw the dog", positional=False))
    on = run_view(ViewSpec(text="the cat saw the dog", positional=True))
    [rep_off] = heads.repeated_rows(off.tokens, off.weights, off.output)
    [rep_on] = heads.repeated_rows(on.tokens, on.weights, on.output)
    assert rep_off.token == "the" and rep_off.positions == (0, 3)
    assert rep_off.weights_gap < 1e-6 and rep_off.output_gap < 1e-6
    assert rep_on.weights_gap > 1e-4 and rep_on.output_gap > 1e-4


def test_repeated_table_pairs_both_settings():
    off = [heads.RepeatedToken("the", (0, 3), 0.0, 0.0)]
    on = [heads.RepeatedToken("the", (0, 3), 0.2, 0.5)]
    table = heads.repeated_table(off, on)
    assert table.to_dict("records") == [{"token": "the", "positions": "0, 3", "gap_off": 0.0, "gap_on": 0.2}]


def test_padding_is_not_a_repeated_word():
    tokens = ("a", "b", "a", PAD, PAD)
    w = np.full((1, 5, 5), 0.2)
    out = np.zeros((5, 3))
    assert [r.token for r in heads.repeated_rows(tokens, w, out, ignore=(PAD,))] == ["a"]


# --------------------------------------------------------------------------------------------------- seeds
def test_seed_patterns_are_the_views_of_each_seed():
    spec = ViewSpec(text="Orange is my favorite fruit")
    seeds = heads.seed_list(9998, 4, 9999)
    assert seeds == [9998, 9999, 0, 1]
    mats = heads.seed_patterns(spec, seeds, head=2)
    for m, s in zip(mats, seeds):
        np.testing.assert_array_equal(m, run_view(dataclasses.replace(spec, seed=s)).weights[2])
    assert np.abs(mats[0] - mats[1]).max() > 1e-3  # another seed, another pattern


def test_seed_table_measures_each_seed_on_its_own():
    mats = np.stack([uniform(), np.eye(T), one_hot_column(4)])
    table = heads.seed_table(mats, [5, 6, 7], None, list("abcde"))
    assert table["seed"].tolist() == [5, 6, 7]
    np.testing.assert_allclose(table["entropy"], [math.log2(T), 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(table["max_weight"], [1 / T, 1.0, 1.0])
    assert table["sink"].tolist() == ["a", "a", "e"]


# --------------------------------------------------------------------------------------------------- figures
def _numbers(fig):
    """Every numeric array of every trace, as float arrays."""
    spec = json.loads(fig.to_json())
    out = []
    for tr in spec["data"]:
        for key in ("x", "y", "z", "customdata"):
            v = tr.get(key)
            if v is None:
                continue
            if isinstance(v, dict) and "bdata" in v:
                import base64
                out.append(np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).astype(float))
            else:
                flat = np.ravel(np.asarray(v, dtype=object))
                if all(isinstance(e, (int, float)) for e in flat):
                    out.append(flat.astype(float))
    return out


def _all_figures():
    labels = ["<b>x</b>", "a", "a", "[PAD]"]
    w = np.stack([uniform(4), np.eye(4), one_hot_column(1, 4)])
    w[2, 3] = 0.0  # a fully masked row
    s = heads.head_stats(w)
    sim = heads.head_similarity(w, "js")
    proj = heads.qk_pca(np.random.default_rng(0).normal(size=(4, 2)), np.random.default_rng(1).normal(size=(4, 2)))
    return [
        hf.stats_chart({"entropy": s.entropy_mean, "distance": s.distance}, {"entropy": "bits"}),
        hf.entropy_heatmap(s.entropy, s.valid, labels, 2.0),
        hf.similarity_heatmap(sim, "js", (0, 2)),
        hf.similarity_heatmap(heads.head_similarity(w, "cosine"), "cosine"),
        hf.pair_figure(w[0], w[2], labels, labels, ["a", "b", "a-b"], np.ones((4, 4), bool)),
        hf.change_chart(np.array([0.0, 1.0, 2.0, 0.5]), np.array([0.0, 2.0, 2.0, 1.0]), labels),
        hf.contributions_heatmap(np.ones((3, 4)), labels, heads_off=[1]),
        hf.qk_figure(proj.q2, proj.k2, labels, labels, 0, [1, 2], w[0, 0]),
        hf.matrices_row(list(w), ["s0", "s1", "s2"], [labels] * 3, [labels] * 3),
    ]


def test_figures_carry_no_nan_and_escape_tokens():
    for fig in _all_figures():
        for arr in _numbers(fig):
            assert np.isfinite(arr).all()
        text = fig.to_json()
        assert "<b>x</b>" not in text  # shown, never interpreted
    qk = _all_figures()[7]
    assert any("&lt;b&gt;x&lt;/b&gt;" in (tr.text or [""])[0] for tr in qk.data if tr.type == "scatter" and tr.text)


def test_similarity_heatmap_has_a_clickable_marker_per_pair():
    sim = heads.head_similarity(np.stack([uniform(), np.eye(T), one_hot_column(2)]), "js")
    fig = hf.similarity_heatmap(sim, "js", selected=(1, 2))
    [markers] = [tr for tr in fig.data if tr.type == "scatter"]
    pairs = {tuple(map(int, c)) for c in markers.customdata}
    assert pairs == {(a, b) for a in range(3) for b in range(3)}
    assert len(fig.layout.shapes) == 1  # the chosen pair is outlined


def test_pair_figure_puts_both_heads_on_one_scale_and_the_difference_on_another():
    a, b = np.eye(T), one_hot_column(0)
    fig = hf.pair_figure(a, b, list("abcde"), list("abcde"), ["h0", "h1", "h0-h1"])
    maps = [tr for tr in fig.data if tr.type == "heatmap"]
    assert [tr.coloraxis for tr in maps] == ["coloraxis", "coloraxis", "coloraxis2"]
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == 1
    np.testing.assert_allclose(np.asarray(maps[2].z), a - b)


def test_qk_figure_draws_one_line_per_top_key():
    proj = heads.qk_pca(np.eye(3), np.eye(3)[::-1])
    fig = hf.qk_figure(proj.q2, proj.k2, list("abc"), list("xyz"), 1, [0, 2], np.array([0.5, 0.2, 0.3]))
    assert len([tr for tr in fig.data if tr.name == "top"]) == 2


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_switched_off_head_looks_off(lang):
    """#16 item 11: an off head's row is covered (hatched grey, exactly its row), says "off" in the page's language
    and has its name greyed out; the heads still on are left as they are."""
    from mha.charts.figures import Words
    from mha.core import i18n

    words = Words(**{f.name: i18n.text(f"ch_{f.name}", lang) for f in dataclasses.fields(Words)})
    H, T = 4, 5
    fig = hf.contributions_heatmap(np.ones((H, T)), [f"t{i}" for i in range(T)], heads_off=[1, 3], words=words)
    bands = [tr for tr in fig.data if tr.type == "scatter" and tr.fill == "toself"]
    assert len(bands) == 2 and all(b.fillpattern.shape for b in bands)
    for band, h in zip(bands, [1, 3]):
        assert (min(band.y), max(band.y)) == (h - 0.5, h + 0.5) and (min(band.x), max(band.x)) == (-0.5, T - 0.5)
    layout = fig.layout
    assert list(layout.yaxis2.range) == [H - 0.5, -0.5] and layout.yaxis2.overlaying == "y"
    assert [a.text for a in layout.annotations].count(f"<b>{words.off}</b>") == 2
    greyed = [i for i, txt in enumerate(layout.yaxis.ticktext) if hf.OFF_TEXT in txt]
    assert greyed == [1, 3] and all(words.off in layout.yaxis.ticktext[i] for i in greyed)
    none_off = hf.contributions_heatmap(np.ones((H, T)), [f"t{i}" for i in range(T)], words=words)
    assert [tr.type for tr in none_off.data] == ["heatmap"] and not none_off.layout.annotations


def test_counts_are_written_with_their_noun():
    """#16 item 11: no bracketed plural ("2 head(s)") in English; "{n:plural:head|heads}" says 1 head, 2 heads."""
    import re

    from mha.core import i18n

    assert not [k for k, e in i18n.CATALOG.items() if re.search(r"[a-z]\((e?s)\)", e["en"])]
    one = i18n.text("hd_off_summary", "en", n=1, mean=0.5, pct=10.0, worst="cat")
    two = i18n.text("hd_off_summary", "en", n=2, mean=0.5, pct=10.0, worst="cat")
    assert "With 1 head off" in one and "With 2 heads off" in two
    assert i18n.text("hd_off_summary", "ko", n=2, mean=0.5, pct=10.0, worst="cat").startswith("헤드 2개")
    assert "1 query row becomes NaN" in i18n.text("mk_polarity_forgot_nan", "en", n=1)
    assert "3 query rows become NaN" in i18n.text("mk_polarity_forgot_nan", "en", n=3)


def test_seed_spread_is_the_largest_row_distance_from_the_first_seed():
    eye = np.eye(4)
    shifted = np.roll(eye, 1, axis=1)
    assert heads.seed_spread(np.stack([eye, eye, eye])) == 0.0
    assert heads.seed_spread(np.stack([eye, eye, shifted])) == pytest.approx(1.0)  # no key in common
    half = (eye + shifted) / 2
    assert heads.seed_spread(np.stack([eye, half])) == pytest.approx(0.5)
    allowed = np.ones((4, 4), dtype=bool)
    allowed[2:] = False  # rows 2 and 3 fully masked: left out
    mixed = eye.copy()
    mixed[2:] = shifted[2:]
    assert heads.seed_spread(np.stack([eye, mixed]), allowed) == 0.0
    with pytest.raises(ValueError, match="S >= 2"):
        heads.seed_spread(eye[None])
