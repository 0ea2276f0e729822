"""The Step-by-step page, the Scaling & softmax lab and the Playground's cell breakdown, through AppTest.

Chart data is read from each chart's Plotly spec, or a canvas heatmap's payload (``json.loads(el.proto.json)``: the
Step-by-step page's matrices are drawn in the page), and compared with the module's own numbers (``run_view`` and
the module's weight matrices), never with numbers copied from an earlier run.
"""
import json
import math

import numpy as np
import pytest
from harness.apptest import all_numbers_finite, canvas_charts, decode, open_page

from mha.app.state import CUSTOM_WEIGHTS_KEY
from mha.core import i18n
from mha.core.attention import MultiHeadAttention
from mha.core.inputs import init_weights
from mha.lessons import explain
from mha.weights.view import ViewSpec, build_model, run_view

EXPLAIN, LAB, PLAYGROUND = "pages/explain.py", "pages/lab.py", "pages/playground.py"
CAUSAL = dict(text="the cat sat on the mat", d_model=24, num_heads=3, causal=True, seed=7)
CAUSAL_SPEC = ViewSpec(text="the cat sat on the mat", d_model=24, num_heads=3, causal=True, seed=7)


def charts(at) -> dict:
    """{chart key: parsed Plotly spec}, the canvas heatmaps' payloads as specs of the same shape (``as_spec``)."""
    return {**{el.key: json.loads(el.proto.spec) for el in at.get("plotly_chart")},
            **{key: as_spec(p) for key, p in canvas_charts(at).items()}}


def as_spec(payload: dict) -> dict:
    """A canvas payload (``mha.charts.heatmap_data``) as a Plotly heatmap spec: its exact numbers as the heatmap's z,
    its blocked cells as the grey overlay named "masked" (1 = blocked), the payload itself under "payload"."""
    from mha.charts.heatmap_data import unpack

    u = unpack(payload)
    data = [{"type": "heatmap", "z": z.tolist()} for z in u["values"]]
    if u["blocked"] is not None:
        data += [{"type": "heatmap", "name": "masked", "z": b.astype(int).tolist()} for b in u["blocked"]]
    return {"data": data, "layout": {}, "payload": payload}


def z(spec, n=0) -> np.ndarray:
    """The n-th heatmap's z (mask overlays left out)."""
    maps = [tr for tr in spec["data"] if tr.get("type") == "heatmap" and tr.get("name") != "masked"]
    return decode(maps[n]["z"]).astype(np.float64)


def assert_same_numbers(shown, computed) -> None:
    """The chart's float32 numbers against this test's own ``run_view``: two runs of the module (the page's cached
    one and this one), so equal up to float32 rounding (threads and kernels may sum in another order), not bit for
    bit. Tight enough that a wrong head, row or step (differences of order 0.01 and more) still fails."""
    np.testing.assert_allclose(shown, computed, rtol=1e-5, atol=1e-6)


def bars(spec) -> np.ndarray:
    return decode(spec["data"][0]["y"]).astype(np.float64)


def markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_step_by_step_shows_the_modules_numbers_at_every_step():
    at = open_page(EXPLAIN, then=dict(**CAUSAL, ex_head=2))
    view = run_view(CAUSAL_SPEC)
    model = build_model(24, 3, 7)
    head, hd = 2, 8
    c = charts(at)
    assert all(all_numbers_finite(spec) for spec in c.values())
    np.testing.assert_array_equal(z(c["ex_x"]), view.x)
    # Q, K, V before split_heads: x W_qᵀ computed here in float64 from the module's weights. Only the open tab's
    # chart is sent: K and V appear when their tab is picked.
    x64 = view.x.astype(np.float64)
    assert "ex_chart_key" not in c and "ex_embedding" not in c
    np.testing.assert_allclose(z(c["ex_chart_query"]), x64 @ model.query_linear.weight.double().numpy().T, atol=1e-5)
    for key, label, lin in (("ex_chart_key", "K = key_linear(x)", model.key_linear),
                            ("ex_chart_value", "V = value_linear(x)", model.value_linear)):
        at.session_state["ex_chart_query_tab"] = label
        at.run()
        np.testing.assert_allclose(z(charts(at)[key]), x64 @ lin.weight.double().numpy().T, atol=1e-5)
    # split_heads: the top picture is the projection, panel h is head h's q (= its block of columns)
    np.testing.assert_allclose(z(c["ex_split"], 0), x64 @ model.query_linear.weight.double().numpy().T, atol=1e-5)
    for h in range(3):
        assert_same_numbers(z(c["ex_split"], 1 + h), view.q[h])
    q64, k64 = view.q[head].astype(np.float64), view.k[head].astype(np.float64)
    np.testing.assert_allclose(z(c["ex_qk"]), q64 @ k64.T, atol=1e-5)
    np.testing.assert_allclose(z(c["ex_scores"]), q64 @ k64.T / math.sqrt(hd), atol=1e-5)
    overlay = [tr for tr in c["ex_masked"]["data"] if tr.get("name") == "masked"]
    assert len(overlay) == 1 and np.array_equal(decode(overlay[0]["z"]), np.triu(np.ones((6, 6)), k=1))
    w = z(c["ex_weights"])
    assert_same_numbers(w, view.weights[head])
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-5)
    assert (np.triu(w, k=1) == 0).all()
    assert_same_numbers(z(c["ex_head_output"]), view.head_outputs[head])
    assert_same_numbers(z(c["ex_concat"]), view.concat)
    assert_same_numbers(z(c["ex_output"]), view.output)
    # the course's bar chart: query 0's row of head 2
    np.testing.assert_allclose(bars(c["ex_bar"]), view.weights[head, 0], atol=1e-7)
    # course code, shapes and explanations are on the page
    code = "\n".join(el.value for el in at.code)
    for step in explain.STEPS:
        assert explain.COURSE_CODE[step] in code
    text = markdown(at)
    assert "(B, H, T, head_dim) = (1, 3, 6, 8)" in text and "(B, H, Tq, Tk) = (1, 3, 6, 6)" in text
    assert "Q–K similarity" in text and "each row sums to 1" in text


def test_picking_a_cell_shows_its_breakdown_with_the_heatmaps_numbers():
    at = open_page(EXPLAIN, then=dict(**CAUSAL, ex_head=1))
    at.selectbox(key="ex_cell_query").set_value(4)
    at.selectbox(key="ex_cell_key").set_value(2)
    at.run()
    assert not at.exception
    view = run_view(CAUSAL_SPEC)
    c = charts(at)
    b = explain.cell_breakdown(view, 1, 4, 2)
    row = c["ex_cell_row"]
    np.testing.assert_allclose(bars(row), view.weights[1, 4], atol=1e-7)
    assert row["data"][0]["marker"]["color"][2] == "#ff7f0e"  # the picked key is highlighted
    vec = c["ex_cell_vectors"]
    assert_same_numbers(z(vec, 0), np.stack([view.q[1, 4], view.k[1, 2]]))
    text = markdown(at)
    assert f"**{view.scores[1, 4, 2]:.4f}**" in text and f"**{view.weights[1, 4, 2]:.4f}**" in text
    assert f"{b.raw:.4f} / √8" in text
    # the clickable heatmap frames the chosen cell and answers a click on each of its 36 cells with its (i, j)
    sel = c["ex_cell_chart"]["payload"]
    assert sel["pick"] == "cell" and sel["Tq"] * sel["Tk"] == 36
    assert sel["selected"] == [4, 2]  # (query 4, key 2): the frame's column 2, row 4
    # a blocked cell: query 1 may not look at key 3
    at.selectbox(key="ex_cell_query").set_value(1)
    at.selectbox(key="ex_cell_key").set_value(3)
    at.run()
    assert not at.exception
    assert "blocks" in markdown(at) and bars(charts(at)["ex_cell_row"])[3] == 0.0


def test_large_d_model_breakdown_stays_readable():
    at = open_page(EXPLAIN, then=dict(d_model=512, num_heads=1))
    view = run_view(ViewSpec(d_model=512, num_heads=1))
    b = explain.cell_breakdown(view, 0, 0, 0)
    wf = charts(at)["ex_cell_sum"]["data"][0]
    assert len(wf["x"]) == explain.TOP_K + 2  # the largest terms, "rest", "sum"
    y = bars(charts(at)["ex_cell_sum"])
    assert y[-1] == pytest.approx(b.raw, abs=1e-9) and y[:-1].sum() == pytest.approx(b.raw, abs=1e-6)
    assert any("500 are summed" in c.value for c in at.caption)


def test_cross_attention_and_korean():
    at = open_page(EXPLAIN, then=dict(text="where is the cat", kv_text="the cat sleeps on a warm mat", lang="ko",
                                      num_heads=2))
    view = run_view(ViewSpec(text="where is the cat", kv_text="the cat sleeps on a warm mat", num_heads=2))
    c = charts(at)
    assert z(c["ex_weights"]).shape == (4, 7)
    assert len(at.selectbox(key="ex_cell_key").options) == 7
    at.session_state["ex_x_tab"] = "x_kv (키/값 텍스트)"
    at.run()
    np.testing.assert_array_equal(z(charts(at)["ex_x_kv"]), view.x_kv)
    assert at.title[0].value == "단계별 설명"
    assert "어텐션 점수: Q-K 유사도" in markdown(at) and "Q–K similarity" not in markdown(at)


def test_mask_step_hint_fits_the_kind_of_attention():
    """The causal toggle is disabled in cross-attention: the mask step must not send the learner to it."""
    cross = open_page(EXPLAIN, then=dict(text="I like cats", kv_text="the cat sat on the mat today"))
    infos = [i.value for i in cross.info]
    assert i18n.text("ex_no_mask", "en") not in infos
    assert not any("Turn on the causal mask" in i for i in infos)
    assert i18n.text("ex_no_mask_cross", "en", pad="[PAD]") in infos
    # self-attention, causal off: turning it on is the hint
    self_att = open_page(EXPLAIN, then=dict(text="I like cats"))
    assert i18n.text("ex_no_mask", "en") in [i.value for i in self_att.info]


def test_lab_compares_scaling_and_temperature_on_the_sentence():
    at = open_page(LAB, then=dict(d_model=512, num_heads=2, lab_head=1))
    view = run_view(ViewSpec(d_model=512, num_heads=2))
    c = charts(at)
    assert all(all_numbers_finite(spec) for spec in c.values())
    q, k = view.q[1].astype(np.float64), view.k[1].astype(np.float64)
    logits = q @ k.T
    unscaled = np.exp(logits - logits.max(1, keepdims=True))
    unscaled /= unscaled.sum(1, keepdims=True)
    assert_same_numbers(z(c["lab_pair"], 0), view.weights[1])
    np.testing.assert_allclose(z(c["lab_pair"], 1), unscaled, atol=1e-5)
    stats = c["lab_pair_stats"]["data"]
    ent_scaled, ent_unscaled = bars({"data": [stats[0]]}), bars({"data": [stats[3]]})
    assert ent_unscaled.mean() < 0.5 * ent_scaled.mean()  # head_dim 256: unscaled softmax is near one-hot
    # the sweep: unscaled entropy falls with head_dim, scaled stays flat; the learner's head_dim is marked
    sweep = {(tr["name"], tr.get("xaxis", "x")): tr for tr in c["lab_sweep"]["data"]}
    e_with, e_without = bars({"data": [sweep[("with 1/√head_dim", "x")]]}), bars({"data": [sweep[("without", "x")]]})
    assert (np.diff(e_without) < 0).all() and np.ptp(e_with) < 0.1 * e_with.mean()
    assert decode(sweep[("your head_dim", "x")]["x"]).tolist() == [256, 256]
    # temperature 2: softmax(scores / 2), from the module's scores
    at.slider(key="lab_temperature").set_value(2.0)
    at.run()
    assert not at.exception
    s = view.scores[1].astype(np.float64) / 2.0
    warm = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(z(charts(at)["lab_temp_weights"]), warm / warm.sum(1, keepdims=True), atol=1e-5)
    temp_stats = charts(at)["lab_temp_stats"]["data"]
    assert bars({"data": [temp_stats[3]]}).mean() > bars({"data": [temp_stats[0]]}).mean()  # warmer: more spread
    why = markdown(at)
    assert "sensible range" in why and "극적으로 작거나" in why and "δ_ij" in why  # seed 2, quoted; the derivative
    # entropy in bits, as on the Heads page, and labelled so: chart bars and metrics from the module's weights
    allowed = view.allowed[1]
    w = view.weights[1].astype(np.float64)
    bits = -(np.where(w > 0, w * np.log2(np.where(w > 0, w, 1.0)), 0.0)).sum(1)
    np.testing.assert_allclose(ent_scaled, bits, atol=1e-5)
    ceiling = [tr for tr in stats if tr.get("type") == "scatter"][0]
    np.testing.assert_allclose(decode(ceiling["y"]).astype(float), np.log2(allowed.sum(1)), atol=1e-9)
    assert "bits" in ceiling["name"]
    titles = [a["text"] for a in c["lab_pair_stats"]["layout"]["annotations"]]
    assert "entropy (bits)" in titles and "mean entropy (bits)" in [
        a["text"] for a in c["lab_sweep"]["layout"]["annotations"]]
    metric = next(m for m in at.metric if m.label == "Mean entropy (bits)")
    assert float(metric.value) == pytest.approx(bits.mean(), abs=1e-3)
    # head_dim 256: dropping the scaling is τ = 1/16, a very cold softmax
    assert any("τ = 1/√head_dim = 0.0625: a very cold softmax" in cap.value for cap in at.caption)


def test_lab_says_how_cold_a_small_head_dims_softmax_is_in_korean():
    at = open_page(LAB, then=dict(d_model=16, num_heads=4, lang="ko"))  # head_dim 4: τ = 0.5, only a little colder
    captions = " ".join(cap.value for cap in at.caption)
    assert i18n.text("lab_cold_slightly", "ko") in captions and "아주 차가운" not in captions
    assert any(m.label == "평균 엔트로피 (비트)" for m in at.metric)


def test_playground_shows_the_breakdown_of_the_selected_cell():
    at = open_page(PLAYGROUND, then=dict(**CAUSAL, head=2, matrix="scores"))
    at.selectbox(key="cell_query").set_value(5)
    at.selectbox(key="cell_key").set_value(3)
    at.run()
    assert not at.exception
    view = run_view(CAUSAL_SPEC)
    c = charts(at)
    np.testing.assert_allclose(bars(c["pg_cell_row"]), view.weights[2, 5], atol=1e-7)
    assert c["pg_cell_row"]["data"][0]["marker"]["color"][3] == "#ff7f0e"
    assert_same_numbers(z(c["pg_cell_vectors"], 0), np.stack([view.q[2, 5], view.k[2, 3]]))
    text = markdown(at)
    assert f"**{view.scores[2, 5, 3]:.4f}**" in text  # the summary and the breakdown show the heatmap's score
    assert text.count(f"**{view.weights[2, 5, 3]:.4f}**") >= 2  # in the summary and in the softmax line


def test_step_by_step_uses_this_sessions_uploaded_weights():
    """A visitor who uploaded weights sees their module at every step, the steps the View does not keep included."""
    own = init_weights(MultiHeadAttention(16, 4), seed=4321).state_dict()
    at = open_page(EXPLAIN, then={CUSTOM_WEIGHTS_KEY: {"sha": "test-4321", "name": "own.pt", "d_model": 16,
                                                       "state_dict": own}})
    view = run_view(ViewSpec(), state_dict=own)
    c = charts(at)
    np.testing.assert_allclose(z(c["ex_chart_query"]), view.x @ own["query_linear.weight"].numpy().T, atol=1e-5)
    np.testing.assert_allclose(z(c["ex_qk"]) / 2.0, view.scores[0], atol=1e-5)  # head_dim 4: √4 = 2
    assert_same_numbers(z(c["ex_weights"]), view.weights[0])


@pytest.mark.parametrize("n_tokens, clickable", [(5, True), (64, True), (65, False), (128, False)])
def test_the_cell_chart_is_clickable_only_while_cells_are_big_enough(n_tokens, clickable):
    """Up to figures.CLICK_MAX_TOKENS every cell carries an invisible marker to click; beyond, the cells are a few
    pixels wide, the 16,384 markers of the cap only slowed the page down, and the hint says to use the pickers."""
    from mha.charts import figures

    at = open_page("pages/explain.py", text=" ".join(f"w{i}" for i in range(n_tokens)))
    assert not at.exception
    payload = canvas_charts(at)["ex_cell_chart"]  # drawn in the page: a click there answers with (query, key)
    assert (payload["pick"] == "cell") == clickable
    if clickable:
        assert payload["Tq"] * payload["Tk"] == n_tokens * n_tokens
    hint = i18n.text("ex_cell_hint" if clickable else "ex_cell_hint_large", "en", head=0, n=figures.CLICK_MAX_TOKENS)
    assert hint in [c.value for c in at.main.caption]
