"""Trained heads (mha/weights/train.py): every task reaches its goal within its step budget, one head cannot do
"previous and next" while two can, training is bit-for-bit reproducible, the trained parameters load into the course's
class, the input layouts are what they say, and the head-pattern matcher names known patterns.

Each configuration is trained once per session (module-scoped cache), at the tasks' default sizes."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from course_mha import MultiHeadAttention as CourseMHA

from mha.core.attention import MultiHeadAttention
from mha.core.inputs import embed_tokens, init_weights, sinusoidal_positions, token_inputs
from mha.weights import train as tr


@pytest.fixture(scope="module")
def trained():
    """``trained(config)`` -> TrainResult, each config trained once for this module, on one thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    cache: dict = {}

    def get(config: tr.TrainConfig) -> tr.TrainResult:
        if config not in cache:
            cache[config] = tr.train(config)
        return cache[config]

    yield get
    torch.set_num_threads(threads)


# ------------------------------------------------------------------------------------------------ tasks and goals


@pytest.mark.parametrize("task_id", list(tr.TASKS))
def test_each_task_reaches_its_goal_within_its_step_budget(trained, task_id):
    task = tr.TASKS[task_id]
    result = trained(tr.TrainConfig.for_task(task_id))
    scores = tr.slot_scores(result.module(), task_id)
    assert [s.slot for s in scores] == list(task.slots)
    for s in scores:
        # the head that learned the slot puts >= 0.9 of its weight where the slot says, for (nearly) every query
        assert s.score >= tr.GOAL, (task_id, s)
        assert s.at_goal >= 0.85, (task_id, s)
    assert tr.reached_goal(scores)
    # slots that read different places are done by different heads
    assert len({s.head for s in scores}) == len(scores)
    # on the probe sentence (the last snapshot) the matcher names each slot's head after the slot's pattern
    matches = tr.match_heads(result.snapshots[-1], result.probe_tokens)
    for s in scores:
        assert matches[s.head].pattern == s.slot, (task_id, s.head, matches[s.head])
    # the loss fell by far more than what a constant output could explain
    assert result.losses[-20:].mean() < 0.05 * result.losses[:5].mean()


def test_random_parameters_are_far_from_every_goal(trained):
    for task_id in tr.TASKS:
        module = init_weights(MultiHeadAttention(32 if task_id != "same_word" else 64, 4), seed=0)
        assert not tr.reached_goal(tr.slot_scores(module, task_id)), task_id


def test_one_head_cannot_do_previous_and_next_and_two_can(trained):
    one = trained(tr.TrainConfig.for_task("prev_next", num_heads=1))
    two = trained(tr.TrainConfig.for_task("prev_next", num_heads=2))
    s1, s2 = tr.slot_scores(one.module(), "prev_next"), tr.slot_scores(two.module(), "prev_next")
    # In principle: previous and next are different keys for every query (T >= 2), and one head's weights on two
    # keys add up to at most 1, so its two slot scores do too.
    assert s1[0].score + s1[1].score <= 1 + 1e-6
    assert not tr.reached_goal(s1)
    assert tr.reached_goal(s2) and s2[0].head != s2[1].head
    # In practice: the one head picks one neighbour and the loss stays near half of where it started
    assert one.losses[-50:].mean() > 0.35 and two.losses[-50:].mean() < 0.01
    assert one.losses[-50:].mean() > 40 * two.losses[-50:].mean()


def test_the_added_layout_stalls_where_the_split_layout_learns(trained):
    split = trained(tr.TrainConfig.for_task("previous"))
    added = trained(tr.TrainConfig.for_task("previous", layout="added"))
    assert tr.reached_goal(tr.slot_scores(split.module(), "previous"))
    assert not tr.reached_goal(tr.slot_scores(added.module(), "previous", layout="added"))
    assert added.losses[-20:].mean() > 0.5 > 100 * split.losses[-20:].mean()


@pytest.mark.parametrize("task_id", list(tr.TASKS))
@pytest.mark.parametrize("T", [2, 5, 10])
def test_target_patterns_are_one_key_per_query(task_id, T):
    tokens = ["a", "b", "a", "c", "b", "a", "d", "e", "a", "f"][:T]
    patterns = tr.target_patterns(task_id, T, tokens)
    assert patterns.shape == (len(tr.TASKS[task_id].slots), T, T)
    assert set(np.unique(patterns)) <= {0.0, 1.0}
    np.testing.assert_array_equal(patterns.sum(axis=-1), 1.0)


def test_target_patterns_by_hand():
    T = 4
    eye = np.eye(T)
    np.testing.assert_array_equal(tr.target_patterns("previous", T)[0], eye[[0, 0, 1, 2]])
    np.testing.assert_array_equal(tr.target_patterns("next", T)[0], eye[[1, 2, 3, 3]])
    np.testing.assert_array_equal(tr.target_patterns("first", T)[0], eye[[0, 0, 0, 0]])
    np.testing.assert_array_equal(tr.target_patterns("reverse", T)[0], eye[[3, 2, 1, 0]])
    np.testing.assert_array_equal(tr.target_patterns("same_word", T, ["x", "y", "x", "y"])[0], eye[[0, 1, 0, 1]])
    with pytest.raises(ValueError, match="needs the 4 tokens"):
        tr.target_patterns("same_word", T)
    with pytest.raises(ValueError, match="pick one of"):
        tr.target_patterns("nope", T)


@pytest.mark.parametrize("task_id", list(tr.TASKS))
@pytest.mark.parametrize("layout", tr.LAYOUTS)
def test_batch_targets_are_copies_of_what_the_slots_point_at(task_id, layout, gen):
    d_model = 16
    x, target, sources = tr._batch(task_id, d_model, gen, 8, tr.TRAIN_LEN, layout)
    task = tr.TASKS[task_id]
    B, T = x.shape[:2]
    assert x.shape == (B, T, d_model) and sources.shape == (len(task.slots), B, T)
    dc = tr.content_dim(d_model, layout)
    content = x[..., :dc] if layout == "split" else x - sinusoidal_positions(T, d_model)
    if task.copies == "tag":
        copied, w = content[..., dc // 2:], min(tr.slot_width(d_model, 1), dc - dc // 2)
        words = content[..., : dc // 2]
        # the source holds the same word, and no earlier position does
        for b, i in itertools.product(range(B), range(T)):
            j = int(sources[0, b, i])
            same = (words[b] - words[b, i]).abs().amax(dim=-1) < 1e-5  # (T,) recovered from x up to rounding
            assert j <= i and same[j] and not same[:j].any()
    else:
        copied, w = content, tr.slot_width(d_model, len(task.slots))
        for s, name in enumerate(task.slots):
            np.testing.assert_array_equal(sources[s, 0].numpy(), tr.pattern_sources(name, T))
    assert target.shape == (B, T, len(task.slots) * w)
    for s in range(len(task.slots)):
        expected = torch.gather(copied[..., :w], 1, sources[s].unsqueeze(-1).expand(B, T, w))
        torch.testing.assert_close(target[..., s * w:(s + 1) * w], expected, rtol=0, atol=1e-6)


# ------------------------------------------------------------------------------------------------ reproducibility


def test_the_same_config_gives_the_same_parameters_bit_for_bit(trained):
    config = tr.TrainConfig(task="prev_next", d_model=16, num_heads=2, steps=40, seed=7)
    a, b = tr.train(config), tr.train(config)
    assert a.state_dict.keys() == b.state_dict.keys()
    for name in a.state_dict:
        assert torch.equal(a.state_dict[name], b.state_dict[name]), name
    np.testing.assert_array_equal(a.losses, b.losses)
    np.testing.assert_array_equal(a.snapshots, b.snapshots)
    other = tr.train(tr.TrainConfig(task="prev_next", d_model=16, num_heads=2, steps=40, seed=8))
    assert not torch.equal(a.state_dict["query_linear.weight"], other.state_dict["query_linear.weight"])


def test_training_starts_from_the_seeded_random_module_and_a_stop_keeps_what_was_learned():
    config = tr.TrainConfig(task="previous", d_model=16, num_heads=4, steps=30, seed=3)
    trainer = tr.Trainer(config, ("a", "b", "c", "a"), snapshot_every=10, report_every=5)
    seen = []
    for p in trainer.run():
        seen.append(p)
        if p.step >= 20:
            break  # the learner pressed Stop
    result = trainer.result()
    assert result.stopped and result.steps_done == 20 and len(result.losses) == 20
    assert [p.step for p in seen] == [0, 5, 10, 15, 20]
    assert seen[0].loss is None and all(np.isfinite(p.loss) for p in seen[1:])
    assert result.snapshot_steps == (0, 10, 20)
    assert result.snapshots.shape == (3, 4, 4, 4)
    # snapshot 0 is the seeded random module (the Playground's for this seed) on the probe, in the split layout
    random = init_weights(MultiHeadAttention(16, 4), 3)
    x = tr.layout_inputs(("a", "b", "c", "a"), 16, 3).unsqueeze(0)
    with torch.no_grad():
        np.testing.assert_allclose(result.snapshots[0], random.trace(x, x, x).weights[0].numpy(), atol=1e-6)
    # stopping after 20 steps leaves exactly the parameters of a 20-step run
    short = tr.train(tr.TrainConfig(task="previous", d_model=16, num_heads=4, steps=20, seed=3))
    for name in short.state_dict:
        assert torch.equal(result.state_dict[name], short.state_dict[name]), name
    with pytest.raises(RuntimeError, match="already run"):
        next(trainer.run())
    # the callback form stops at the same place with the same parameters
    steps_seen = []
    called = tr.train(config, ("a", "b", "c", "a"), snapshot_every=10, report_every=5,
                      on_progress=lambda p: steps_seen.append(p.step) or p.step >= 20)
    assert steps_seen == [0, 5, 10, 15, 20] and called.steps_done == 20
    for name in short.state_dict:
        assert torch.equal(called.state_dict[name], short.state_dict[name]), name
    with pytest.raises(ValueError, match="shorten it"):
        tr.Trainer(config, ["w"] * (tr.MAX_PROBE_TOKENS + 1))
    with pytest.raises(ValueError, match="empty"):
        tr.Trainer(config, [])


def test_trained_parameters_load_into_the_course_class_and_give_the_same_output(trained):
    result = trained(tr.TrainConfig.for_task("prev_next"))
    course = CourseMHA(result.config.d_model, result.config.num_heads)
    course.load_state_dict(result.state_dict, strict=True)
    ours = result.module()
    back = MultiHeadAttention(result.config.d_model, result.config.num_heads)
    back.load_state_dict(course.state_dict(), strict=True)
    x = tr.layout_inputs(["the", "cat", "sat", "on", "the", "mat"], result.config.d_model).unsqueeze(0)
    with torch.no_grad():
        torch.testing.assert_close(course(x, x, x), ours(x, x, x), rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(back(x, x, x), ours(x, x, x), rtol=0, atol=0)


def test_trained_module_is_cached_frozen_and_equal_to_a_fresh_run():
    module = tr.trained_module("first", 8, 2, 15, 1)
    assert tr.trained_module("first", 8, 2, 15, 1) is module
    assert not any(p.requires_grad for p in module.parameters()) and not module.training
    fresh = tr.train(tr.TrainConfig(task="first", d_model=8, num_heads=2, steps=15, seed=1))
    for name, value in module.state_dict().items():
        assert torch.equal(value, fresh.state_dict[name]), name


def test_a_recorded_run_and_a_result_hand_out_the_same_frozen_module():
    """``TrainRecord.module`` (numpy snapshots) and ``TrainResult.module`` (tensors): one recipe, ``frozen_module``."""
    from mha.weights import train_runs as runs

    config = tr.TrainConfig(task="first", d_model=8, num_heads=2, steps=6, seed=2)
    rec = runs.RecordingTrainer(config)
    for _ in rec.run():
        pass
    record, result = rec.record(), rec.trainer.result()
    from_record, from_result = record.module(), result.module()
    for m in (from_record, from_result):
        assert not m.training and not any(p.requires_grad for p in m.parameters())
    for name, value in from_result.state_dict().items():
        assert torch.equal(from_record.state_dict()[name], value), name
    first = record.module(0)  # the snapshot before any step: the seeded random module
    start = init_weights(MultiHeadAttention(8, 2), config.seed)
    for name, value in start.state_dict().items():
        torch.testing.assert_close(first.state_dict()[name], value.to(torch.float32), rtol=0, atol=0)
    first.query_linear.weight.data.zero_()  # a module handed out owns its parameters: the record is untouched
    assert np.abs(record.snapshot_params[0]["query_linear.weight"]).sum() > 0


@pytest.mark.parametrize("change, message", [
    (dict(task="nope"), "pick one of"),
    (dict(d_model=6, num_heads=4), "does not divide"),
    (dict(d_model=7, num_heads=1), "even d_model"),
    (dict(d_model=256), "even d_model"),
    (dict(steps=0), "pick 1 to"),
    (dict(seed=-1), "pick 0 to"),
    (dict(layout="mixed"), "split"),
    (dict(seq_len=1), "pick 2 to 32"),
])
def test_settings_that_cannot_be_trained_say_how_to_fix_them(change, message):
    with pytest.raises(ValueError, match=message):
        tr.check_config(tr.TrainConfig(**{**dict(d_model=8, num_heads=2, steps=5), **change}))


def test_non_integer_settings_are_refused():
    with pytest.raises(TypeError, match="integer"):
        tr.check_config(tr.TrainConfig(steps=2.5))
    with pytest.raises(TypeError, match="integer"):
        tr.check_config(tr.TrainConfig(num_heads=True))


# ------------------------------------------------------------------------------------------------ the input layout


def test_split_layout_is_content_then_position():
    tokens = ["the", "cat", "saw", "the", "dog"]
    x = tr.layout_inputs(tokens, 16, seed=5, layout="split")
    assert x.shape == (5, 16) and x.dtype == torch.float32
    torch.testing.assert_close(x[:, :8], embed_tokens(tokens, 8, 5), rtol=0, atol=0)
    torch.testing.assert_close(x[:, 8:], sinusoidal_positions(5, 8), rtol=0, atol=1e-7)
    # the same word at two positions: the same content half, different position halves
    assert torch.equal(x[0, :8], x[3, :8]) and not torch.equal(x[0, 8:], x[3, 8:])
    # the position half does not depend on the words, the content half not on the order
    y = tr.layout_inputs(["dog", "the", "saw", "cat", "the"], 16, seed=5)
    assert torch.equal(x[:, 8:], y[:, 8:]) and torch.equal(x[1, :8], y[3, :8])


def test_added_layout_is_the_playgrounds_input():
    tokens = ["Orange", "is", "my", "favorite", "fruit"]
    for d_model in (4, 16, 32):
        torch.testing.assert_close(tr.layout_inputs(tokens, d_model, 2, layout="added"),
                                   token_inputs(tokens, d_model, 2, positional=True), rtol=0, atol=0)


@pytest.mark.parametrize("layout", tr.LAYOUTS)
@pytest.mark.parametrize("positional", [True, False])
def test_layout_parts_add_up_to_the_input(layout, positional):
    tokens = ["a", "b", "a", "c"]
    content, positions = tr.layout_parts(tokens, 16, 4, layout, positional=positional)
    x = tr.layout_inputs(tokens, 16, 4, layout, positional=positional)
    torch.testing.assert_close((content + positions).float(), x, rtol=0, atol=0)
    if layout == "split":
        assert not content[:, 8:].any() and not positions[:, :8].any()
    assert positions.any() == positional

def test_compose_inputs_checks_its_content_width():
    content = torch.zeros(2, 3, 8)
    assert tr.compose_inputs(content, 16).shape == (2, 3, 16)
    assert tr.compose_inputs(torch.zeros(2, 3, 16), 16, "added").shape == (2, 3, 16)
    with pytest.raises(ValueError, match="content_dim"):
        tr.compose_inputs(content, 32)
    with pytest.raises(ValueError, match="Unknown input layout"):
        tr.layout_inputs(["a"], 8, layout="concat")


# ------------------------------------------------------------------------------------------------ the matcher


def test_each_known_pattern_is_matched_to_itself():
    tokens = ["a", "b", "a", ".", "c", "b", "d"]  # a repeat for "same_word", a punctuation sink for "special"
    T = len(tokens)
    weights = np.stack([tr.pattern_matrix(name, T, tokens) for name in tr.PATTERNS])
    matches = tr.match_heads(weights, tokens)
    assert [m.pattern for m in matches] == list(tr.PATTERNS)
    assert all(m.score == pytest.approx(1.0) for m in matches)
    assert all(0.0 <= v <= 1.0 for m in matches for v in m.scores.values())


def test_one_key_scores_are_the_weight_on_that_key(gen):
    w = torch.softmax(torch.randn(3, 7, 7, generator=gen, dtype=torch.float64), dim=-1).numpy()
    for name in ("previous", "next", "first", "self", "reverse"):
        src = tr.pattern_sources(name, 7)
        expected = w[:, np.arange(7), src].mean(axis=-1)  # (H,)
        np.testing.assert_allclose(tr.pattern_scores(w, tr.pattern_matrix(name, 7)[None])[0], expected, atol=1e-12)


def test_random_and_even_weights_get_a_valid_name(gen):
    even = np.full((2, 5, 5), 0.2)
    assert [m.pattern for m in tr.match_heads(even)] == ["spread", "spread"]
    w = torch.softmax(torch.randn(4, 9, 9, generator=gen) * 0.3, dim=-1).numpy()  # random module: nearly even
    for m in tr.match_heads(w, list("abcabcdef")):
        assert m.pattern in tr.PATTERNS and 0.0 <= m.score <= 1.0
        assert m.score == max(m.scores.values())
    assert all(m.pattern == "spread" for m in tr.match_heads(w))


def test_matcher_ties_masks_and_bad_input():
    # a sentence without repeats: "same word" is "itself", and the simpler name wins
    eye = np.eye(4)[None]
    assert tr.match_heads(eye, ["a", "b", "c", "d"])[0].pattern == "self"
    # causal mask: the even spread is over the allowed keys; fully masked rows (all zero) are left out
    allowed = np.tril(np.ones((4, 4), dtype=bool))
    causal_even = tr.pattern_matrix("spread", 4, allowed=allowed)
    np.testing.assert_allclose(causal_even.sum(axis=-1), 1.0)
    m = tr.match_heads(causal_even[None], allowed=allowed)[0]
    assert m.pattern == "spread" and m.score == pytest.approx(1.0)
    padded = np.vstack([np.eye(3)[[0, 0, 1]], np.zeros((1, 3))])[:, :3]  # 4 x 3: not square
    with pytest.raises(ValueError, match=r"\(H, T, T\)"):
        tr.match_heads(padded[None])
    masked = np.eye(4)[[0, 0, 1, 2]].copy()
    masked[3] = 0.0  # a fully masked query
    assert tr.match_heads(masked[None])[0].score == pytest.approx(1.0)
    with pytest.raises(ValueError, match="number of tokens is 3"):
        tr.match_heads(eye, ["a", "b", "c"])


def test_every_task_and_pattern_has_its_strings():
    from mha.core import i18n

    for task in tr.TASKS.values():
        for key in (task.name_key, task.description_key):
            for lang in i18n.LANGS:
                assert key in i18n.CATALOG and i18n.text(key, lang, seq_len=tr.TRAIN_LEN) != key
    for name in tr.PATTERNS:
        assert f"tr_pattern_{name}" in i18n.CATALOG
    for layout in tr.LAYOUTS:
        assert f"tr_layout_{layout}" in i18n.CATALOG and f"tr_layout_{layout}_help" in i18n.CATALOG


# ------------------------------------------------------------------------------------------------ the "trained" source


def test_a_trained_view_runs_the_trained_module_on_the_layout_it_was_trained_with():
    from mha.weights.view import ViewSpec, model_for, run_view

    text = "the cat saw the dog and the dog saw it"
    spec = ViewSpec(text=text, d_model=32, num_heads=4, source="trained", task="previous", train_steps=400)
    view = run_view(spec)
    module = tr.trained_module("previous", 32, 4, 400, 0)
    assert model_for(spec) is module
    x = tr.layout_inputs(text.split(), 32, 0)
    np.testing.assert_array_equal(view.x, x.numpy())
    with torch.no_grad():
        np.testing.assert_allclose(view.weights, module.trace(x[None], x[None], x[None]).weights[0].numpy(), atol=1e-6)
    # the trained heads are previous-word heads on the learner's sentence; the random ones are not
    names = [m.pattern for m in tr.match_heads(view.weights, view.tokens)]
    assert names.count("previous") >= 2
    random = run_view(ViewSpec(text=text, d_model=32, num_heads=4))
    assert "previous" not in [m.pattern for m in tr.match_heads(random.weights, random.tokens)]
    # the default source is unchanged: the Playground's inputs and the seeded module
    np.testing.assert_array_equal(random.x, token_inputs(text.split(), 32, 0).numpy())
    # positions off: the position half is zero, and a head can no longer tell "previous" from anything else
    off = run_view(ViewSpec(text=text, d_model=32, num_heads=4, source="trained", task="previous",
                            train_steps=400, positional=False))
    assert not off.x[:, 16:].any() and np.array_equal(off.x[:, :16], view.x[:, :16])
    assert "previous" not in [m.pattern for m in tr.match_heads(off.weights, off.tokens)]


def test_trained_view_settings_that_cannot_run_say_how_to_fix_them():
    from mha.weights.view import ViewSpec, model_for, train_steps, validate_spec

    with pytest.raises(ValueError, match="source must be one of"):
        validate_spec(ViewSpec(source="learned"))
    with pytest.raises(ValueError, match="Unknown task"):
        validate_spec(ViewSpec(source="trained", task="nope"))
    with pytest.raises(ValueError, match="smaller d_model"):
        validate_spec(ViewSpec(source="trained", d_model=256, num_heads=4))
    with pytest.raises(ValueError, match="pick 1 to"):
        validate_spec(ViewSpec(source="trained", train_steps=0))
    validate_spec(ViewSpec(source="trained", task="previous", d_model=8, num_heads=2, train_steps=5))
    assert train_steps(ViewSpec(source="trained", task="mixed")) == tr.TASKS["mixed"].steps
    # the bug zoo's one-head comparison: the same trained parameters in a one-head module
    spec = ViewSpec(source="trained", task="first", d_model=8, num_heads=2, train_steps=15, seed=1)
    one = model_for(spec, num_heads=1)
    assert one.num_heads == 1
    for name, value in model_for(spec).state_dict().items():
        assert torch.equal(one.state_dict()[name], value), name


def test_visitors_asking_for_the_same_training_at_once_wait_for_one_run(monkeypatch):
    import threading

    calls = []
    real_trainer = tr.Trainer

    def counting_trainer(config, *args, **kwargs):
        calls.append(config)
        return real_trainer(config, *args, **kwargs)

    monkeypatch.setattr(tr, "Trainer", counting_trainer)
    got = []
    threads = [threading.Thread(target=lambda: got.append(tr.trained_module("next", 8, 2, 25, 11))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(got) == 4 and all(m is got[0] for m in got)
