"""#27.4: Step by step's matrices travel as canvas payloads (``mha.app.components.heatmap_view``, drawn in the page
before Plotly's script has loaded), and they hold the module's own steps.

The expected numbers are computed here, in float64, by ``mha.core.attention``'s ``MultiHeadAttention.trace`` on a
float64 copy of the page's module (``build_model``) and the page's input ``x``; the page sends float32: compared with a
tolerance. The payloads are read as a browser gets them: ``json.loads(el.proto.json)``.
"""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch
from harness.apptest import all_open, canvas_charts, charts_by_key, open_page

from mha.charts import explain as xf
from mha.charts import heatmap_data
from mha.charts.figures import symmetric_range
from mha.core import i18n
from mha.weights.view import ViewSpec, build_model, run_view

EXPLAIN = "pages/explain.py"
TEXT, D, H, HEAD, SEED = "the cat sat on the mat", 24, 3, 2, 7
MATRICES = {"ex_x", "ex_chart_query", "ex_qk", "ex_scores", "ex_masked", "ex_weights", "ex_head_output",
            "ex_concat", "ex_output", "ex_cell_chart"}


def values(payload: dict) -> np.ndarray:
    return heatmap_data.unpack(payload)["values"].astype(np.float64)


def close(shown, expected) -> None:
    np.testing.assert_allclose(shown, expected, rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module")
def page():
    at = open_page(EXPLAIN, **all_open(EXPLAIN), text=TEXT, d_model=str(D), num_heads=str(H), causal="true",
                   seed=str(SEED), ex_head=str(HEAD))
    assert not at.exception
    return at


@pytest.fixture(scope="module")
def steps():
    """The module's steps on the page's x, in float64 (a copy: the cached module is shared and never changed)."""
    view = run_view(ViewSpec(text=TEXT, d_model=D, num_heads=H, causal=True, seed=SEED))
    model = copy.deepcopy(build_model(D, H, SEED)).double()
    x = torch.from_numpy(view.x.astype(np.float64))[None]  # (B, T, d_model)
    T = x.shape[1]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))  # True = may attend: a query sees itself and before
    with torch.no_grad():
        trace = model.trace(x, x, x, causal)
        query = model.query_linear(x)
    return view, trace, query[0].numpy(), causal.numpy()


def test_every_step_matrix_is_a_canvas_payload_with_the_modules_numbers(page, steps):
    view, trace, query, causal = steps
    c = canvas_charts(page)
    assert MATRICES <= set(c), sorted(c)
    assert not MATRICES & set(charts_by_key(page))  # none of them waits for Plotly
    hd = D // H
    scores = trace.scores[0, HEAD].numpy()
    close(values(c["ex_x"])[0], view.x)
    close(values(c["ex_chart_query"])[0], query)
    close(values(c["ex_qk"])[0], scores * math.sqrt(hd))  # QKᵀ before the division
    close(values(c["ex_scores"])[0], scores)
    close(values(c["ex_masked"])[0], scores)  # the scores, their blocked cells greyed
    blocked = heatmap_data.unpack(c["ex_masked"])["blocked"][0]
    np.testing.assert_array_equal(blocked, ~causal)
    w = values(c["ex_weights"])[0]
    close(w, trace.weights[0, HEAD].numpy())
    np.testing.assert_array_equal(heatmap_data.unpack(c["ex_weights"])["blocked"][0], ~causal)
    close(values(c["ex_head_output"])[0], trace.head_outputs[0, HEAD].numpy())
    close(values(c["ex_concat"])[0], trace.concat[0].numpy())
    close(values(c["ex_output"])[0], trace.output[0].numpy())
    close(values(c["ex_cell_chart"])[0], trace.weights[0, HEAD].numpy())


def test_the_canvases_keep_plotlys_colour_rule_labels_and_hover_words(page, steps):
    view, trace, query, causal = steps
    c = canvas_charts(page)
    hd = D // H
    qk = trace.scores[0, HEAD].numpy() * math.sqrt(hd)
    zmax = float(np.abs(qk).max())  # steps 4-6 share QKᵀ's scale: the scaled scores look paler
    for key in ("ex_qk", "ex_scores", "ex_masked"):
        p = c[key]
        assert p["layout"] == "single" and p["heads"] == [HEAD]
        assert p["lo"] == pytest.approx(-zmax, rel=1e-6) and p["hi"] == pytest.approx(zmax, rel=1e-6)
        assert p["lut"] == heatmap_data.colour_table("scores")  # RdBu reversed, as Plotly draws scores
    assert c["ex_qk"]["bar"]["title"] == ["QKᵀ"] and c["ex_qk"]["words"]["value"] == "QKᵀ"
    assert c["ex_scores"]["bar"]["title"] == ["scores"]
    weights = c["ex_weights"]
    assert (weights["lo"], weights["hi"]) == (0.0, 1.0) and weights["bar"]["title"] == ["weights", "scale 0 … 1"]
    assert weights["lut"] == heatmap_data.colour_table("weights")
    for key in ("ex_x", "ex_chart_query", "ex_head_output", "ex_concat", "ex_output"):  # ± the largest |value|
        p = c[key]
        assert p["layout"] == "features" and p["hi"] == pytest.approx(symmetric_range(values(p)), rel=1e-6)
        assert p["q"] == list(view.labels) and p["col_title"] in ("feature", "head_dim")
    for key in MATRICES - {"ex_x", "ex_chart_query", "ex_head_output", "ex_concat", "ex_output"}:
        assert c[key]["q"] == list(view.labels) and c[key]["k"] == list(view.key_labels)
        assert c[key]["words"]["query_axis"] == "query (attending)"
    # concat: each head's head_dim columns outlined in its colour and named, as Plotly's bands were
    assert c["ex_concat"]["bands"] == [[h * hd, (h + 1) * hd, xf.head_color(h), f"head {h}"] for h in range(H)]
    assert c["ex_cell_chart"]["pick"] == "cell"  # a click on a cell picks it, as Plotly's markers did


def test_korean_canvases_speak_korean():
    at = open_page(EXPLAIN, **all_open(EXPLAIN), lang="ko", causal="true")
    assert not at.exception
    c = canvas_charts(at)
    ko = lambda key: i18n.text(key, "ko")  # noqa: E731
    assert c["ex_scores"]["words"]["query_axis"] == ko("ch_query_axis")
    assert c["ex_scores"]["words"]["key_axis"] == ko("ch_key_axis")
    assert c["ex_scores"]["bar"]["title"] == [ko("ch_scores")]
    assert c["ex_weights"]["words"]["value"] == ko("ch_weights") and c["ex_weights"]["words"]["head"] == ko("ch_head")
    assert c["ex_x"]["token_word"] == ko("ch_token") and c["ex_x"]["col_title"] == ko("ex_feature")
    assert c["ex_concat"]["bands"][0][3] == f"{ko('ex_head_word')} 0"


def test_hostile_tokens_travel_as_plain_text():
    """The canvas draws labels with fillText: they travel unescaped, exactly as the token pickers name them."""
    text = "<b>bold</b> <img src=x onerror=alert(1)> $x$ :red[hi]"
    at = open_page(EXPLAIN, **all_open(EXPLAIN), text=text)
    assert not at.exception
    view = run_view(ViewSpec(text=text))
    c = canvas_charts(at)
    assert c["ex_weights"]["q"] == list(view.labels) and c["ex_x"]["q"] == list(view.labels)
    assert any("<" in s for s in view.labels)  # the sentence really is hostile


def test_features_payload_checks_its_input():
    with pytest.raises(ValueError, match="tokens, features"):
        heatmap_data.features(np.zeros(4), ["a"] * 4)
    with pytest.raises(ValueError, match="one label"):
        heatmap_data.features(np.zeros((3, 4)), ["a", "b"])
    with pytest.raises(ValueError, match="does not lie"):
        heatmap_data.features(np.zeros((2, 4)), ["a", "b"], bands=[(2, 6, "#000000", "h")])
    p = heatmap_data.features(np.arange(6.0).reshape(2, 3) - 2, ["a", "b"], kind="output")
    assert p["xticks"] == [0, 1, 2] and p["bar"]["title"] == ["output"] and (p["lo"], p["hi"]) == (-3.0, 3.0)
    wide = heatmap_data.features(np.ones((2, 512)), ["a", "b"])
    assert len(wide["xticks"]) <= heatmap_data.FEATURE_TICKS and wide["xticks"][0] == 0


def test_a_browsers_first_visit_sends_plotly_charts_once_a_canvas_has_drawn(monkeypatch):
    """mha.app.components.paint_gate: for a browser (here: a client said to be one), the first run sends the canvases,
    blanks
    for the Plotly charts and the gate; the gate's report (its callback's flag) brings the Plotly charts."""
    from mha.app.components import paint_gate

    monkeypatch.setattr(paint_gate, "from_browser", lambda: True)
    at = open_page(EXPLAIN, **all_open(EXPLAIN), zz_nobody_reads_this="1")
    assert not at.exception
    note = lambda app: [c.value for c in app.sidebar.caption if "zz_nobody_reads_this" in c.value]  # noqa: E731
    assert note(at)  # the opening link's note on a parameter nothing reads
    gates = [el for el in at.get("bidi_component") if el.proto.component_name.endswith("mha_paint_gate")]
    assert len(gates) == 1
    assert not charts_by_key(at)  # no Plotly chart yet: Plotly's script is not asked for
    assert MATRICES <= set(canvas_charts(at))  # every step's matrix is drawn meanwhile
    at.session_state["_paint_gate_done"] = True  # what the gate's report sets (paint_gate._opened)
    at.session_state["_share_notes_again"] = True
    at.run()
    assert not at.exception
    assert note(at)  # the app's own rerun keeps the note: the visitor did nothing that answers it
    assert {"ex_split", "ex_bar", "ex_cell_vectors", "ex_cell_sum", "ex_cell_row"} <= set(charts_by_key(at))
    assert not [el for el in at.get("bidi_component") if el.proto.component_name.endswith("mha_paint_gate")]
    at.run()  # a rerun of the visitor's: the note has been read (once per session, as before)
    assert not note(at)
    monkeypatch.setattr(paint_gate, "from_browser", lambda: False)  # a client that runs no JavaScript: all at once
    again = open_page(EXPLAIN, **all_open(EXPLAIN))
    assert "ex_bar" in charts_by_key(again)
