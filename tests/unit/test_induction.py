"""The two-layer induction model (mha/lessons/induction.py): the phase change happens, the induction head depends on
layer 1, training is deterministic, the layers load into the course's class, the text mapping is deterministic.

Training is the expensive part (~250-300 steps to the drop): the default seed trains once per session (fixture), the
other seeds train only until their induction score passes 0.5 (and a little after), never the full budget."""
import hashlib
import io
import math

import numpy as np
import pytest
import torch

from mha.lessons.induction import (
    EVAL_SEED,
    InductionConfig,
    InductionModel,
    PhaseChange,
    ablate_each,
    ablate_head,
    attend_text,
    eval_batch,
    export_layers,
    find_phase_change,
    induction_target,
    layer_head_masks,
    map_text,
    measure,
    points_to,
    repeat_batch,
    train_run,
    train_steps,
    word_id,
)
from tests.course_mha import MultiHeadAttention as CourseMultiHeadAttention

SETTLE = 40  # steps trained after the induction score first passes 0.5, so the drop is in the loss curve too


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the app: determinism is per thread count
    yield
    torch.set_num_threads(threads)


def train_until_induction(config: InductionConfig):
    """Train until the best layer-2 induction score on held-out sequences is >= 0.5, then SETTLE more steps (or until
    the budget ends). Returns (run, the first step with a score >= 0.5, or None)."""
    seen = {"hit": None}

    def on_checkpoint(cp):
        if seen["hit"] is None and cp.measured.induction_scores.max() >= 0.5:
            seen["hit"] = cp.step
        return seen["hit"] is not None and cp.step >= seen["hit"] + SETTLE  # True: stop

    run = train_run(config, on_checkpoint=on_checkpoint)
    return run, seen["hit"]


@pytest.fixture(scope="module")
def trained(one_thread):
    """The default config, trained until it has an induction head (trained once per test session)."""
    config = InductionConfig()
    run, hit = train_until_induction(config)
    return config, run, hit


def assert_phase_change(config, run, hit):
    assert hit is not None and hit <= config.steps, f"no induction score >= 0.5 within {config.steps} steps"
    ln_v = math.log(config.vocab_size)
    phase = run.phase_change()
    assert phase.dropped and phase.drop_step <= run.steps_done
    assert phase.plateau_start < phase.plateau_end < phase.drop_step
    assert abs(phase.plateau_loss - ln_v) < 0.15, "the plateau is the loss of guessing uniformly, ln(vocab_size)"
    assert phase.plateau_loss - phase.after_loss > 0.5
    h = run.history()
    assert h.first_step(0.5) == hit and h.induction_scores.shape == (len(run.checkpoints), config.num_heads)
    assert np.all(np.isfinite(h.loss)) and np.all(np.isfinite(h.train_loss))  # nothing NaN reaches a chart
    last = run.checkpoints[-1].measured
    assert last.induction_scores.max() >= 0.5
    assert last.copy_loss < ln_v / 2  # the copy has become predictable: well under the uniform guess
    first = run.checkpoints[0].measured
    assert first.induction_scores.max() < 0.2 and first.copy_loss > ln_v - 0.5  # nothing of the kind at the start


def test_default_seed_grows_an_induction_head_within_the_budget(trained):
    assert_phase_change(*trained)


@pytest.mark.parametrize("seed", [1, 2])
def test_other_seeds_grow_an_induction_head_within_the_budget(seed):
    config = InductionConfig(seed=seed)
    run, hit = train_until_induction(config)
    assert_phase_change(config, run, hit)


def test_ablating_the_previous_token_head_removes_induction(trained):
    config, run, _ = trained
    model = run.model
    before = {k: v.clone() for k, v in model.state_dict().items()}
    measured = measure(model, eval_batch(config))
    prev_head = int(np.argmax(measured.previous_token_scores))
    assert measured.previous_token_scores[prev_head] >= 0.4, "the default seed grows a previous-token head"
    ab = ablate_head(model, prev_head, config=config)
    np.testing.assert_allclose(ab.on.induction_scores, measured.induction_scores, atol=1e-6)
    assert ab.off.induction_scores.max() < ab.on.induction_scores.max() - 0.2
    assert ab.off.copy_loss > ab.on.copy_loss + 0.5
    # every head of layer 1 off in turn: the previous-token head is the one layer 2 depends on most
    each = ablate_each(model, config=config)
    assert [a.head for a in each] == list(range(config.num_heads))
    assert max(each, key=lambda a: a.induction_drop).head == prev_head
    for k, v in model.state_dict().items():  # ablation never touches the parameters
        assert torch.equal(v, before[k]), k


def test_same_seed_same_parameters_bit_for_bit(trained):
    config, run, _ = trained
    step = config.snapshot_every
    again = InductionConfig(steps=step)  # a shorter budget: the same first `step` updates
    cps = list(train_steps(again))
    assert cps[-1].step == step and cps[-1].parameters is not None
    reference = next(cp.parameters for cp in run.checkpoints if cp.step == step)
    assert reference.keys() == cps[-1].parameters.keys()
    for k, v in reference.items():
        assert torch.equal(v, cps[-1].parameters[k]), k
    assert [cp.losses for cp in cps] == [cp.losses for cp in run.checkpoints if cp.step <= step]
    other = list(train_steps(InductionConfig(steps=1, seed=1)))[-1].parameters
    first = list(train_steps(InductionConfig(steps=1)))[-1].parameters
    assert not torch.equal(other["layers.0.query_linear.weight"], first["layers.0.query_linear.weight"])


def test_init_does_not_touch_the_global_rng():
    state = torch.get_rng_state()
    a = InductionModel.from_config(InductionConfig(seed=5))
    assert torch.equal(torch.get_rng_state(), state)
    torch.manual_seed(123)  # whatever the global RNG does, the seed decides
    b = InductionModel.from_config(InductionConfig(seed=5))
    for (k, v), (_, w) in zip(a.state_dict().items(), b.state_dict().items()):
        assert torch.equal(v, w), k


def test_stop_keeps_the_parameters_and_snapshots_scrub_back(trained):
    config, run, hit = trained
    assert run.stopped and run.steps_done < config.steps  # train_until_induction stopped it
    last = run.checkpoints[-1]
    assert last.parameters is not None  # a stopped run keeps where it stopped
    for k, v in run.model.state_dict().items():
        assert torch.equal(v, last.parameters[k]), k
    steps = run.snapshot_steps()
    assert steps[0] == 0 and all(s % config.snapshot_every == 0 for s in steps[:-1])
    early = run.model_at(steps[1] + 1)  # the latest snapshot at or before the step
    for k, v in early.state_dict().items():
        assert torch.equal(v, run.checkpoints[[c.step for c in run.checkpoints].index(steps[1])].parameters[k])
    assert len(run.losses) == run.steps_done
    assert all(len(cp.losses) == (cp.step - prev.step) for prev, cp in zip(run.checkpoints, run.checkpoints[1:]))
    with pytest.raises(ValueError, match="no snapshot"):
        run.model_at(-1)


def test_exported_layers_load_into_the_course_class_strictly(trained):
    config, run, _ = trained
    files = export_layers(run.model)
    assert len(files) == 2
    batch = repeat_batch(torch.Generator().manual_seed(0), 4, config.seq_len, config.block_len, config.vocab_size)
    with torch.no_grad():
        tr = run.model.run(batch.tokens)
    for i, data in enumerate(files):
        course = CourseMultiHeadAttention(config.d_model, config.num_heads)
        course.load_state_dict(torch.load(io.BytesIO(data), weights_only=True), strict=True)
        x = tr.residual[i]  # what layer i read
        with torch.no_grad():
            out = course(x, x, x, mask=torch.ones(x.size(1), x.size(1)).tril())
        torch.testing.assert_close(out, tr.layers[i].output, rtol=1e-5, atol=1e-5)


def test_data_places_the_copy_at_random_and_it_is_a_copy():
    b = repeat_batch(torch.Generator().manual_seed(3), 256, 32, 12, 64)
    j = torch.arange(12)
    rows = torch.arange(256)[:, None]
    assert torch.equal(b.tokens[rows, b.first[:, None] + j], b.tokens[rows, b.second[:, None] + j])
    assert (b.second >= b.first + 12).all() and (b.second + 12 <= 32).all()
    assert len(set((b.second - b.first).tolist())) > 5  # the offset varies: position alone cannot find the copy
    assert len(set(b.second.tolist())) > 5
    assert int(b.tokens.min()) >= 0 and int(b.tokens.max()) < 64
    # the held-out set is the same for every training seed and apart from the training stream
    assert torch.equal(eval_batch(InductionConfig(seed=0)).tokens, eval_batch(InductionConfig(seed=9)).tokens)
    assert EVAL_SEED != InductionConfig().seed


def test_scores_on_perfect_patterns():
    """A hand-made previous-token pattern and induction pattern score 1; a uniform causal one about 1/(t+1)."""
    b = repeat_batch(torch.Generator().manual_seed(1), 8, 32, 12, 64)
    from mha.lessons.induction import induction_scores, previous_token_scores
    T = 32
    prev = torch.zeros(8, 2, T, T)
    prev[:, :, 0, 0] = 1
    prev[:, :, torch.arange(1, T), torch.arange(T - 1)] = 1
    np.testing.assert_allclose(previous_token_scores(prev), [1.0, 1.0])
    ind = torch.zeros(8, 1, T, T)
    q, k = b.copy_positions()
    ind[torch.arange(8)[:, None], 0, q, k] = 1
    np.testing.assert_allclose(induction_scores(ind, b), [1.0])
    uniform = torch.ones(T, T).tril()
    uniform = (uniform / uniform.sum(-1, keepdim=True)).expand(8, 1, T, T)
    expected = np.mean([1 / (int(qq) + 1) for qq in q.flatten()])
    np.testing.assert_allclose(induction_scores(uniform, b), [expected], rtol=1e-6)


def test_config_errors_say_how_to_fix():
    with pytest.raises(ValueError, match="block_len must be from 2 to seq_len / 2 = 16"):
        InductionConfig(block_len=17).check()
    with pytest.raises(ValueError, match="divisible"):
        InductionConfig(num_heads=5).check()
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        InductionConfig(steps=0).check()
    with pytest.raises(ValueError, match="lr must be a positive number"):
        InductionConfig(lr=float("nan")).check()
    model = InductionModel.from_config(InductionConfig())
    with pytest.raises(ValueError, match="at most 32 tokens"):
        model.run(torch.zeros(1, 33, dtype=torch.long))
    with pytest.raises(ValueError, match="from 0 to 63"):
        model.run(torch.tensor([[0, 64]]))


# --- the phase-change finder on curves with a known answer ---------------------------------------------------------
LOG_64 = math.log(64)


def synthetic(n=600, drop_at=300, width=20.0, plateau=LOG_64, after=3.0, start=4.6, noise=0.02, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(1, n + 1)
    curve = plateau + (start - plateau) * np.exp(-t / 15) - (plateau - after) / (1 + np.exp(-(t - drop_at) / width))
    return list(curve + rng.normal(0, noise, n))


def test_phase_change_found_where_the_curve_falls():
    for drop_at in (200, 300, 450):
        ph = find_phase_change(synthetic(drop_at=drop_at), vocab_size=64)
        assert ph.dropped
        # the smoothed curve (trailing window) reaches half-way a little after the sigmoid's midpoint
        assert drop_at <= ph.drop_step <= drop_at + ph.window
        assert ph.plateau_start < 100 < ph.plateau_end < ph.drop_step
        assert abs(ph.plateau_loss - math.log(64)) < 0.1 and abs(ph.after_loss - 3.0) < 0.1


def test_no_phase_change_on_a_plateau_or_partial_curves():
    flat = synthetic(drop_at=10_000)
    ph = find_phase_change(flat, vocab_size=64)
    assert not ph.dropped and ph.plateau_start is not None and ph.plateau_end is None
    assert find_phase_change([], vocab_size=64) == PhaseChange(None, None, None, None, None, 25)
    assert find_phase_change([5.0] * 10, vocab_size=64).plateau_start is None  # still falling from the init
    assert find_phase_change([float("nan")] * 50, vocab_size=64).plateau_start is None
    # live: the drop is not marked before it happens, and is once the curve has fallen
    curve = synthetic(drop_at=300)
    assert not find_phase_change(curve[:230], vocab_size=64).dropped  # 3 widths before the midpoint: still flat
    assert find_phase_change(curve[:400], vocab_size=64).dropped


# --- the learner's text ----------------------------------------------------------------------------------------------
def test_word_id_is_a_documented_stable_hash():
    for word in ("the", "cat", "고양이", "🐈"):
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        assert word_id(word, 64) == int.from_bytes(digest, "little") % 64


def test_map_text_repeats_and_is_deterministic():
    a = map_text("the cat sat on the mat.")
    assert a == map_text("the cat sat on the mat.")
    assert a.words == ("the", "cat", "sat", "on", "the", "mat", ".") * 2 and a.repeated and a.half == 7
    assert a.ids[:7] == a.ids[7:]
    assert len(set(a.ids)) == len(set(a.words))  # different words, different ids
    assert a.ids[0] == a.ids[4]  # the same word, the same id
    single = map_text("the cat", repeat=False)
    assert single.words == ("the", "cat") and not single.repeated


def test_map_text_reports_collisions_and_cuts():
    words, seen = [], {}
    i = 0
    while len(words) < 2:  # find two different words with the same hashed id
        w = f"w{i}"
        h = word_id(w, 64)
        if h in seen:
            words = [seen[h], w]
        seen[h] = w
        i += 1
    tt = map_text(" ".join(words), repeat=False)
    assert tt.ids[0] == word_id(words[0], 64) and tt.ids[1] != tt.ids[0]
    assert tt.moved == ((words[1], word_id(words[1], 64), tt.ids[1]),)
    long = map_text(" ".join(f"x{i}" for i in range(20)))
    assert long.cut == 4 and len(long.words) == 32  # 16 tokens, twice: the model has 32 positions
    crowded = map_text("a b c d e f", vocab_size=4, seq_len=32, repeat=False)
    assert crowded.shared and sum(len(ws) for _, ws in crowded.shared) >= 3  # 6 words, 4 ids: said so
    assert all(len(ws) >= 2 for _, ws in crowded.shared)


def test_attend_text_on_the_trained_model(trained):
    config, run, _ = trained
    tt = map_text("the cat sat on the mat.")
    att = attend_text(run.model, tt)
    T = len(tt.words)
    for w in att.weights:
        assert w.shape == (config.num_heads, T, T)
        np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5)
        assert np.all(np.triu(w, 1) == 0)  # causal
    # the repeated sentence: a layer-2 head points from each word of the copy to the word after its first time
    best = int(np.argmax(att.induction_scores))
    assert att.induction_scores[best] >= 0.3
    q = tt.half + 2  # "sat", second time
    assert induction_target(tt.ids, q) == 3  # "on", first time
    assert points_to(att.weights[1], q)[best].key == 3
    # layer 1's previous-token head points at the word just before
    prev = int(np.argmax(att.previous_token_scores))
    assert points_to(att.weights[0], q)[prev].key == q - 1
    with pytest.raises(ValueError, match="query must be from 0"):
        points_to(att.weights[0], T)
    # switched off, the previous-token head takes the induction stripe with it, on the learner's text too
    off = attend_text(run.model, tt, layer_head_masks(run.model, 0, [prev]))
    assert off.induction_scores.max() < att.induction_scores.max() - 0.1
    assert off.copy_loss > att.copy_loss
    np.testing.assert_allclose(off.weights[0], att.weights[0])  # layer 1's own weights do not change
