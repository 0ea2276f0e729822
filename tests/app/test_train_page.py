"""The Train page: recorded runs (two code paths agree), the training figures (labels vs arrays), and the page in
AppTest: a link trains (cached) and shows the heads on the learner's sentence, in English and Korean; the link
reproduces the view after the caches are emptied; the 1-vs-2-heads lesson; bad link values get a note."""
from __future__ import annotations

from urllib.parse import parse_qsl

import numpy as np
import pytest
import torch
from harness.apptest import charts_by_key, decode, heatmaps, link_params, nonfinite_in, open_page

from mha.app import compute
from mha.charts import train as tf
from mha.weights import train as tr
from mha.weights import train_runs as runs

torch.set_num_threads(1)
SENTENCE = "the cat sat on the mat and the dog ran"
PAGE = "pages/train.py"


# ------------------------------------------------------------------------------------------------ pure pieces
def test_record_matches_the_trainer():
    """RecordingTrainer's last parameters are mha.weights.train.train's, and its weights on a sentence are the Trainer's
    snapshot on that probe (two code paths)."""
    config = tr.TrainConfig.for_task("previous", steps=80, d_model=16, num_heads=2)  # a snapshot every 2 steps
    tokens = tuple(SENTENCE.split())
    reference = tr.train(config, tokens)
    record = runs.train_record(config)
    assert record.snapshot_steps == reference.snapshot_steps
    for name, value in reference.state_dict.items():
        assert torch.equal(torch.tensor(record.snapshot_params[-1][name]), value), name
    np.testing.assert_allclose(runs.probe_weights(record, tokens), reference.snapshots, atol=1e-6)
    assert record.index_at(0) == 0 and record.index_at(10 ** 6) == len(record.snapshot_steps) - 1
    assert record.index_at(record.snapshot_steps[3] + 1) == 3


def test_stopped_record_keeps_where_it_stopped():
    config = tr.TrainConfig.for_task("previous", steps=100, d_model=16, num_heads=2)
    rec = runs.RecordingTrainer(config)
    for p in rec.run():
        if p.step >= 30:
            break
    record = rec.record()
    assert record.stopped and record.steps_done == 30 and record.snapshot_steps[-1] == 30
    full = runs.train_record(tr.TrainConfig.for_task("previous", steps=30, d_model=16, num_heads=2))
    for name, value in full.snapshot_params[-1].items():  # a run of 30 steps is the stopped run: what the link says
        np.testing.assert_array_equal(record.snapshot_params[-1][name], value)


def test_closeness_names_the_previous_head():
    record = runs.train_record(tr.TrainConfig.for_task("previous"))
    cl = runs.closeness(record, -1, SENTENCE.split())
    (slot,) = cl.slots
    assert slot.slot == "previous" and slot.score >= tr.GOAL and slot.probe_score >= tr.GOAL
    assert cl.heads[slot.probe_head].pattern == "previous"


def test_loss_curve_checks_lengths_and_drops_non_finite():
    with pytest.raises(ValueError, match="3 steps and 2 values"):
        tf.loss_curve({"a": ([1, 2, 3], [1.0, 0.5])})
    fig = tf.loss_curve({"run": ([1, 2, 3, 4], [1.0, np.nan, 0.5, 0.0])}, log_y=True, plateau=(1, 3), drop=3)
    (trace,) = fig.data
    assert list(trace.x) == [1, 3] and list(trace.y) == [1.0, 0.5]  # NaN and (on a log axis) 0 are left out
    assert [s.type for s in fig.layout.shapes] == ["rect", "line"]
    assert not nonfinite_in(fig.to_plotly_json())
    with pytest.raises(ValueError, match="first <= last"):
        tf.loss_curve({"a": ([1], [1.0])}, plateau=(5, 2))
    escaped = tf.loss_curve({"<b>x</b>": ([1], [1.0]), "y": ([1], [2.0])})
    assert escaped.data[0].name == "&lt;b&gt;x&lt;/b&gt;"


def test_score_curves_one_line_per_head():
    scores = np.array([[0.1, 0.2, 0.3], [0.5, 0.9, np.nan]])
    fig = tf.score_curves([0, 10], scores, threshold=0.5, now=10)
    assert [tr_.name for tr_ in fig.data] == ["head 0", "head 1", "head 2"]
    assert list(fig.data[1].y) == [0.2, 0.9] and list(fig.data[2].x) == [0]
    with pytest.raises(ValueError, match="one row per step"):
        tf.score_curves([0, 10, 20], scores)


# ------------------------------------------------------------------------------------------------ the page
def _previous_weight(w: np.ndarray) -> float:
    """Mean weight of one head (T, T) on the key just before each query (queries 1..T-1)."""
    t = np.arange(1, w.shape[0])
    return float(w[t, t - 1].mean())


def test_link_trains_and_shows_a_previous_head_on_the_sentence():
    at = open_page(PAGE, tr_task="previous", tr_at="300", text=SENTENCE)
    assert not at.exception
    charts = charts_by_key(at)
    grid = heatmaps(charts["tr_heads"])
    assert len(grid) == 4 and grid[0].shape == (10, 10)  # 4 heads on the 10 tokens of the sidebar sentence
    assert max(_previous_weight(w) for w in grid) >= 0.9
    labels = charts["tr_heads"]["data"][0]["x"]
    assert [lab.replace("\u200b", "") for lab in labels] == SENTENCE.split()
    loss = charts["tr_loss"]["data"][0]
    assert len(decode(loss["y"])) == 300 and not nonfinite_in(charts["tr_loss"])
    assert any("✅" in m.value and "previous word" in m.value for m in at.markdown)
    assert at.select_slider(key="tr_at_shown").value == 300
    assert any(b.label.startswith("Download") for b in at.get("download_button"))
    link = [m.value for m in at.markdown if "source=trained" in m.value][0]
    for part in ("task=previous", "train_steps=300", "d_model=32", "num_heads=4", "seed=0", "lang=en"):
        assert part in link


def test_link_reproduces_the_view_on_a_fresh_server_and_in_korean():
    params = dict(tr_task="next", tr_steps="120", tr_seed="3", tr_at="60", text=SENTENCE)
    first = heatmaps(charts_by_key(open_page(PAGE, **params))["tr_heads"])
    compute.clear()  # as on a freshly started server: trained again
    at = open_page(PAGE, lang="ko", **params)
    assert not at.exception and at.title[0].value == "헤드 학습시키기"
    again = heatmaps(charts_by_key(at)["tr_heads"])
    assert at.select_slider(key="tr_at_shown").value == 60  # the snapshot the link names, not the last one
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert any("학습" in m.value for m in at.success) or any("학습" in m.value for m in at.warning)


def test_snapshot_zero_is_the_random_module():
    at = open_page(PAGE, tr_task="previous", tr_at="0", text=SENTENCE)
    grid = heatmaps(charts_by_key(at)["tr_heads"])
    assert max(_previous_weight(w) for w in grid) < 0.5  # before training nothing points at the previous word


@pytest.mark.parametrize("stopped", [False, True])
def test_the_link_keeps_the_step_shown_even_step_zero(stopped):
    """Scrubbed to step 0 (the slider's first step: a bound control's default, which Streamlit leaves out), a view
    lost tr_at from the address bar and the link, and the link then opened on the Train button. Now the step shown
    is in both at every step, and the link opens the trained view at that step; also for a run stopped by Stop."""
    params = dict(tr_task="previous", tr_steps="40", text=SENTENCE)
    if stopped:  # the session after Stop at step 40 of 100: what _stop leaves (the steps control is then 40)
        rec = runs.RecordingTrainer(tr.TrainConfig.for_task("previous", steps=100))
        next(p for p in rec.run() if p.step >= 40)
        record = rec.record()
        c = record.config
        at = open_page(PAGE, **params, state={"_tr_stopped": ((c.task, c.d_model, c.num_heads, 40, c.seed, c.layout),
                                                             record)})
        assert any("40" in w.value for w in at.warning)  # "stopped at step 40 of 100"
    else:  # a link to a trained view: trained at once, its step kept in the address bar and the link, not named unused
        at = open_page(PAGE, **params, tr_at="40")
        assert at.query_params["tr_at"] == "40" and link_params(at)["tr_at"] == "40"
        assert not [c.value for c in at.sidebar.caption if "🔗" in c.value]
    assert not at.exception, at.exception
    assert at.select_slider(key="tr_at_shown").value == 40 and at.selectbox(key="tr_at").value == 40
    at.select_slider(key="tr_at_shown").set_value(0).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="tr_at").value == 0 and at.select_slider(key="tr_at_shown").value == 0
    assert at.query_params["tr_at"] == "0"  # the address bar
    link = link_params(at)
    assert link["tr_at"] == "0" and link["tr_steps"] == "40"
    shown = heatmaps(charts_by_key(at)["tr_heads"])
    again = open_page(PAGE, link)  # a fresh session: trains the 40 steps (deterministic) and shows step 0
    assert not again.exception, again.exception
    assert again.select_slider(key="tr_at_shown").value == 0 and "tr_heads" in charts_by_key(again)
    for a, b in zip(shown, heatmaps(charts_by_key(again)["tr_heads"]), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_the_idle_page_has_no_step_in_its_link():
    compute.clear()
    at = open_page(PAGE, tr_task="first", tr_steps="30", text=SENTENCE)
    assert "tr_heads" not in charts_by_key(at) and "tr_at" not in link_params(at)
    assert at.selectbox(key="tr_at").value is None and at.select_slider(key="tr_at_shown").value == 0


def test_one_head_cannot_do_previous_and_next_two_can():
    at = open_page(PAGE, tr_compare="true", text=SENTENCE)
    assert not at.exception
    charts = charts_by_key(at)
    one, two = (decode(tr_["y"]) for tr_ in charts["tr_compare_loss"]["data"])
    assert one[-20:].mean() > 10 * two[-20:].mean()
    assert len(heatmaps(charts["tr_compare_heads_1"])) == 1 and len(heatmaps(charts["tr_compare_heads_2"])) == 2


def test_bad_link_values_get_a_note_and_defaults():
    at = open_page(PAGE, tr_task="nonsense", tr_steps="abc", tr_num_heads="3", text=SENTENCE)
    assert not at.exception
    notes = " ".join(c.value for c in at.sidebar.caption)
    assert "tr_task" in notes and "tr_steps" in notes
    assert at.segmented_control(key="tr_task").value == "previous" and at.number_input(key="tr_steps").value == 300
    assert at.selectbox(key="tr_task_shown").value == "previous"


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_task_and_layout_are_shown_by_name_and_linked_by_id(lang):
    """Korean learners saw ``previous`` and ``split``: the options read as names in the page's language, the link
    keeps the ids in every language, and a pick through the named list sets the task's own defaults."""
    from mha.core.i18n import text

    at = open_page(PAGE, lang=lang, tr_layout="added", text=SENTENCE)
    assert not at.exception, at.exception
    task, layout = at.selectbox(key="tr_task_shown"), at.segmented_control(key="tr_layout_shown")
    assert task.options == [text(tr.get_task(k).name_key, lang) for k in tr.TASKS]
    assert layout.options == [text(f"tr_layout_{k}", lang) for k in tr.LAYOUTS]
    assert layout.value == "added" and at.segmented_control(key="tr_layout").value == "added"
    assert not any(o in tr.TASKS or o in tr.LAYOUTS for o in task.options + layout.options)
    task.set_value("reverse").run()
    assert not at.exception, at.exception
    assert at.query_params["tr_task"] == "reverse" and at.query_params["tr_layout"] == "added"
    assert at.selectbox(key="tr_task_shown").value == "reverse"
    reverse = tr.get_task("reverse")  # _task_defaults ran after the pick reached tr_task
    assert at.number_input(key="tr_steps").value == reverse.steps
    assert at.selectbox(key="tr_d_model").value == reverse.d_model
    params = link_params(at)
    assert params["tr_task"] == "reverse" and params["tr_layout"] == "added" and params["lang"] == lang


def test_too_few_heads_is_explained():
    at = open_page(PAGE, tr_task="mixed", tr_num_heads="2", tr_steps="20", text=SENTENCE)
    assert any("at least 4 heads" in w.value for w in at.warning)


def test_without_a_link_the_page_waits_for_train():
    compute.clear()  # the default settings were trained by an earlier test: not cached on a fresh server
    at = open_page(PAGE, tr_task="previous", tr_steps="300", text=SENTENCE)  # settings, but no trained view
    assert "tr_heads" not in charts_by_key(at) and any("Train" in i.value for i in at.info)
    at.button(key="tr_train").click().run()
    assert not at.exception and "tr_heads" in charts_by_key(at)
    assert at.select_slider(key="tr_at_shown").value == 300  # right after training: the last snapshot


def test_explore_link_opens_the_playground_on_these_trained_weights():
    at = open_page(PAGE, tr_task="prev_next", tr_num_heads="2", tr_seed="2", tr_at="300", text=SENTENCE)
    link = [m.value for m in at.markdown if "source=trained" in m.value][0]
    query = link.split("(playground?", 1)[1].rstrip(")")
    params = dict(parse_qsl(query))
    assert params == dict(source="trained", task="prev_next", train_steps="300", d_model="32", num_heads="2",
                          seed="2", lang="en")
    pg = open_page("pages/playground.py", **params)
    assert not pg.exception
    assert any("trained" in i.value and "Previous and next" in i.value for i in pg.info)
    assert not any("🔗" in c.value for c in pg.sidebar.caption)  # no link value refused


def test_the_downloaded_module_loads_into_the_course_class():
    import io

    from mha.weights import export
    from tests.course_mha import MultiHeadAttention as CourseMHA

    record = runs.train_record(tr.TrainConfig.for_task("prev_next", steps=20))
    data = export.state_dict_bytes(record.module())  # what the page's download button sends
    course = CourseMHA(32, 2)
    course.load_state_dict(torch.load(io.BytesIO(data)), strict=True)
    x = torch.randn(1, 5, 32)
    torch.testing.assert_close(course(x, x, x), record.module()(x, x, x), atol=1e-6, rtol=1e-5)


def test_a_garbage_step_in_a_link_is_named_without_a_made_up_value():
    """tr_at=abc cannot name a snapshot: the note says so and that the page opens without it (it said "using
    `None`": the hidden control that holds the step has no value until one is picked)."""
    at = open_page(PAGE, tr_task="previous", tr_steps="20", tr_at="abc", text="the cat sat on the mat")
    assert not at.exception
    notes = " ".join(c.value for c in at.sidebar.caption)
    assert "tr_at" in notes and "abc" in notes and "opens without it" in notes
    assert "None" not in notes
