"""The Induction page: its reading of a run (mha.lessons.induction_reading) and the page in AppTest: a link trains
(cached), draws the loss with the phase change, the per-head scores, both layers on the learner's text with the
induction stripe, and the ablation that removes it; English and Korean; bad link values get a note."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from harness.apptest import charts_by_key, decode, heatmaps, nonfinite_in, open_page

from mha.core.tokens import TextError
from mha.lessons import induction as ind
from mha.lessons import induction_reading as ir

torch.set_num_threads(1)
PAGE = "pages/induction.py"
TEXT = "the cat sat on a mat ."  # 7 distinct tokens: each query of the second copy has one earlier occurrence


@pytest.fixture(scope="module")
def short_run() -> ind.InductionRun:
    return ind.train_run(ind.InductionConfig(steps=20, report_every=10, snapshot_every=10))


def test_read_snapshot_reads_a_snapshot(short_run):
    reading = ir.read_snapshot(short_run, 10, TEXT)
    T = len(reading.text.words)
    assert T == 14 and reading.query == 8 and reading.target == ind.induction_target(reading.text.ids, 8) == 2
    assert [len(r) for r in reading.roles] == [4, 4] and reading.allowed.shape == (T, T) and not reading.allowed[0, 1]
    for layer, roles in enumerate(reading.roles):
        for r in roles:
            assert r.weight == pytest.approx(reading.attention.weights[layer][r.head, reading.query, r.key])
            assert r.role == "none" or r.score >= ir.ROLE_AT
    # the snapshot at step 10 is the one read (model_at), not the last
    at10 = ind.attend_text(short_run.model_at(10), reading.text)
    np.testing.assert_allclose(reading.attention.weights[1], at10.weights[1])
    assert ir.checkpoint_at(short_run, 15).step == 10
    with pytest.raises(ValueError, match="query must be from 0 to 13"):
        ir.read_snapshot(short_run, 10, TEXT, query=14)
    with pytest.raises(TextError):
        ir.read_snapshot(short_run, 10, "   ")


def test_ablated_head_is_off_in_the_ablated_view(short_run):
    reading = ir.read_snapshot(short_run, 20, TEXT)
    off = ind.layer_head_masks(short_run.model, 0, [reading.builds_on.head])
    again = ind.attend_text(short_run.model, reading.text, off)
    np.testing.assert_allclose(reading.ablated.weights[1], again.weights[1])
    drops = [a.induction_drop for a in ind.ablate_each(short_run.model)]
    assert reading.builds_on.induction_drop == pytest.approx(max(drops))


def test_a_short_link_trains_and_draws_every_chart():
    at = open_page(PAGE, ind_steps="30", ind_seed="1", ind_at="30", text=TEXT)
    assert not at.exception
    charts = charts_by_key(at)
    for key in ("ind_loss", "ind_l1_scores", "ind_l2_scores", "ind_grid_l1", "ind_grid_l2", "ind_l2_head"):
        assert key in charts and not nonfinite_in(charts[key]), key
    assert len(decode(charts["ind_loss"]["data"][0]["y"])) == 30
    assert [tr["name"] for tr in charts["ind_l2_scores"]["data"]] == [f"head {h}" for h in range(4)]
    grid = heatmaps(charts["ind_grid_l2"])
    assert len(grid) == 4 and grid[0].shape == (14, 14)
    assert all(np.allclose(np.triu(w, 1), 0) for w in grid)  # causal: nothing above the diagonal
    labels = [x.replace("\u200b", "") for x in charts["ind_grid_l1"]["data"][0]["x"]]
    assert labels == TEXT.split() * 2
    assert at.select_slider(key="ind_at_shown").value == 30
    assert len(at.get("download_button")) == 2
    assert any("No phase change" in m.value for m in at.info)  # 30 steps are still on the plateau


def test_korean_and_bad_link_values():
    at = open_page(PAGE, lang="ko", ind_steps="abc", ind_seed="-5", ind_query="99")
    assert not at.exception and at.title[0].value == "두 층: 인덕션 헤드가 생기는 순간 보기"
    notes = " ".join(c.value for c in at.sidebar.caption)
    assert "ind_steps" in notes and "ind_seed" in notes
    assert at.number_input(key="ind_steps").value == ind.InductionConfig.steps
    assert any("학습 시작" in b.label for b in at.button)  # no trained view in the link: the page waits for Train


def test_the_default_run_grows_an_induction_stripe_that_ablation_removes():
    """The whole default run (a few hundred steps: tens of seconds on one thread, trained before the page opens so
    that AppTest's time limit is not the machine's load), then the page's own charts."""
    from mha.app.sections import induction as induction_page

    induction_page.warm(ind.InductionConfig(seed=0))
    at = open_page(PAGE, ind_seed="0", ind_at="600", text=TEXT)
    charts = charts_by_key(at)
    assert any("phase change at step" in m.value for m in at.success)
    tv_ids = ind.map_text(TEXT).ids
    pairs = [(q, k) for q in range(len(tv_ids)) if (k := ind.induction_target(tv_ids, q)) is not None]
    qs, ks = np.array(pairs).T

    def stripe(grid):  # each head's mean weight on the token after the earlier occurrence
        return [float(w[qs, ks].mean()) for w in grid]

    on = stripe(heatmaps(charts["ind_grid_l2"]))
    # ~0.1 at random (1 / position); held-out sequences reach >= 0.5 (tests/unit/test_induction.py); a short text ~0.5
    assert max(on) >= 0.4
    prev = [float(np.mean([w[t, t - 1] for t in range(1, len(tv_ids))])) for w in heatmaps(charts["ind_grid_l1"])]
    assert max(prev) >= 0.5  # seed 0 grows a previous-token head
    assert any("Layer 2, head" in m.value and "That is the token after the earlier occurrence" in m.value
               for m in at.markdown)
    # the head enlarged is the one with the induction stripe on this text, not the best on held-out data (#27.1)
    big = heatmaps(charts["ind_l2_head"])[0]
    best = int(np.argmax(on))
    np.testing.assert_allclose(big, heatmaps(charts["ind_grid_l2"])[best], atol=1e-6)
    titles = [m.value for m in at.markdown if m.value.startswith("**Layer 2, head")]
    assert titles == [f"**Layer 2, head {best} (the strongest induction head on your text: {on[best]:.2f}), large**"]
    at.toggle(key="ind_ablate").set_value(True).run()
    off = stripe(heatmaps(charts_by_key(at)["ind_grid_ablated"]))
    assert max(off) < 0.5 * max(on)
    metrics = {m.label: m for m in at.metric}
    assert float(metrics["Copy loss (held-out, nats)"].delta) > 0  # the copy is harder without the head


def test_before_the_phase_change_no_head_is_named_the_strongest():
    """At step 240 of the default run (still on the plateau) the enlarged head's title says none yet, in Korean
    too, and no role line calls a head an induction head (#27.1: the title named one above 'no clear role yet')."""
    from mha.app.sections import induction as induction_page

    induction_page.warm(ind.InductionConfig(seed=0))
    text = "나는 오늘 학교에서 친구와 맛있는 점심을 먹었다"
    at = open_page(PAGE, lang="ko", ind_seed="0", ind_at="240", text=text)
    assert not at.exception
    prose = [m.value for m in at.markdown]
    assert any("아직 인덕션 헤드가 없습니다" in m for m in prose)
    assert not any("가장 강한 인덕션 헤드" in m for m in prose)
    assert not any("인덕션 헤드입니다" in m for m in prose)


def test_the_enlarged_head_is_chosen_on_the_text():
    """strongest_induction: the head with the highest score on the text is enlarged even when another head scores
    higher on held-out data; it is named only when it is an induction head at that snapshot."""
    def role(h, name, score):
        return ir.HeadRole(layer=1, head=h, role=name, score=score, key=0, weight=1.0, on_text=float("nan"))

    held_out = (role(0, "induction", 0.8), role(1, "induction", 0.7), role(2, "none", 0.3))
    assert ir.strongest_induction(held_out, np.array([0.1, 0.6, 0.2])) == (1, 1)  # not head 0
    assert ir.strongest_induction(held_out, np.array([0.1, 0.2, 0.6])) == (2, None)  # the best here is no such head
    with pytest.raises(ValueError, match="3 layer-2 heads but 2 scores"):
        ir.strongest_induction(held_out, np.array([0.1, 0.2]))


def test_role_lines_carry_the_score_on_the_text(short_run):
    reading = ir.read_snapshot(short_run, 20, TEXT)
    np.testing.assert_allclose([r.on_text for r in reading.roles[1]], reading.attention.induction_scores)
    np.testing.assert_allclose([r.on_text for r in reading.roles[0]], reading.attention.previous_token_scores)
    assert reading.enlarged == int(np.argmax(reading.attention.induction_scores))
    assert reading.strongest is None  # 20 steps
