"""The neuron view (#26.2): one query's row of one head, every key's q × k, score and weight.

The figure's numbers against the View's (the module's trace) on random, trained and pretrained weights (a tiny
local BERT, tests/tiny_models.py): its products are q ⊙ k, their sum / √head_dim is the view's scores, the softmax
of its scores is its weights. Then its checks, escaping, and the Playground's folded section in en and ko.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import tiny_models
from harness.apptest import charts_by_key, decode, link_params, open_page

from mha.charts import neuron as neuron_figures
from mha.charts.figures import axis_labels
from mha.weights import pretrained as P
from mha.weights.view import ViewSpec, run_view

TOL = 1e-5  # float32 module numbers against float64 arithmetic


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    return tiny_models.build("bert", tmp_path_factory.mktemp("neuron_models") / "bert", layers=2)


pytestmark = pytest.mark.usefixtures("offline")  # tests/app/conftest.py


def traces(fig) -> dict:
    """The figure's traces by what they show (the bars are named in the chart's language)."""
    return dict(zip(("q", "k", "q × k", "scores", "weights"), fig.data, strict=True))


def figure_of(view, head: int, i: int, j: int = 0):
    return neuron_figures.neuron_view(view.q[head, i], view.k[head], view.scores[head, i], view.weights[head, i],
                                      view.key_labels, query_label=view.labels[i], allowed=view.allowed[head, i],
                                      highlight=j)


def check_row(view, head: int, i: int) -> None:
    """The figure of (head, i) agrees with the view by three paths."""
    tr = traces(figure_of(view, head, i))
    q, k = view.q[head, i].astype(float), view.k[head].astype(float)
    products = np.asarray(tr["q × k"].z, dtype=float)
    np.testing.assert_allclose(products, q[None, :] * k, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(tr["k"].z, float), k, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tr["q"].z, float)[0], q, rtol=1e-6)
    scores = np.asarray(tr["scores"].x, dtype=float)
    # the products summed by hand, / √head_dim: the module's scores
    np.testing.assert_allclose(products.sum(axis=-1) / math.sqrt(view.head_dim), view.scores[head, i],
                               rtol=1e-4, atol=TOL)
    np.testing.assert_allclose(scores, view.scores[head, i], atol=TOL)
    allowed = view.allowed[head, i]
    shown = np.exp(scores - scores[allowed].max()) * allowed
    weights = np.asarray(tr["weights"].x, dtype=float)
    np.testing.assert_allclose(shown / shown.sum(), weights, atol=TOL)  # softmax of the scores: the weights
    np.testing.assert_allclose(weights, view.weights[head, i], atol=TOL)
    assert list(tr["k"].y) == list(tr["scores"].y) == axis_labels(view.key_labels)


@pytest.mark.parametrize("causal", [False, True])
def test_random_weights_every_head_and_query(causal):
    view = run_view(ViewSpec(text="the cat sat on the mat", d_model=16, num_heads=4, causal=causal))
    for head in range(view.num_heads):
        for i in range(len(view.tokens)):
            check_row(view, head, i)
    if causal:  # the last key is blocked for the first query: grey, weight 0
        tr = traces(figure_of(view, 0, 0))
        assert np.asarray(tr["weights"].x)[-1] == 0 and tr["weights"].marker.color[-1] != tr["weights"].marker.color[0]


def test_cross_attention_and_padded_rows():
    view = run_view(ViewSpec(text="the cat sat\nthe dog", kv_text="a mat on the floor\nthe end", d_model=16,
                             num_heads=4, sentence=1))
    assert view.is_cross and len(view.key_labels) != len(view.labels)
    for i in range(len(view.tokens)):  # the padded query rows too: no NaN, weights as the module's
        check_row(view, 2, i)


def test_trained_weights():
    view = run_view(ViewSpec(text="the cat sat on the mat", d_model=16, num_heads=2, source="trained",
                             task="previous", train_steps=30))
    for head in range(view.num_heads):
        for i in (0, 3, 5):
            check_row(view, head, i)


def test_pretrained_weights_every_layer(bert):
    info = P.load_model(str(bert)).info
    for layer in range(info.num_layers):
        view = run_view(ViewSpec(text="the cat sat on the mat\nthe dog", d_model=info.d_model, causal=info.causal,
                                 num_heads=info.num_heads, source="pretrained", model=str(bert), layer=layer,
                                 sentence=1))  # the padded sentence: its [PAD] keys are blocked
        assert not view.allowed[0, 0].all()
        for head in range(view.num_heads):
            check_row(view, head, 1)


def test_the_largest_terms_are_named_in_the_hover():
    q = np.array([1.0, -2.0, 0.5, 3.0])
    k = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 2.0, 0.0, 0.0]])
    terms = neuron_figures.top_terms(q[None, :] * k, 2)
    assert terms == [[(3, 3.0), (1, -2.0)], [(1, -4.0), (0, 0.0)]]
    fig = neuron_figures.neuron_view(q, k, np.zeros(2), np.full(2, 0.5), ["a", "b"], query_label="x")
    assert "dim 3: +3.000" in traces(fig)["scores"].customdata[0][1]


def test_labels_and_arrays_must_agree():
    q, k = np.zeros(4), np.zeros((3, 4))
    with pytest.raises(ValueError, match="3 keys, while the number of key labels is 2"):
        neuron_figures.neuron_view(q, k, np.zeros(3), np.zeros(3), ["a", "b"], query_label="x")
    with pytest.raises(ValueError, match="head_dim = 5"):
        neuron_figures.neuron_view(np.zeros(5), k, np.zeros(3), np.zeros(3), ["a", "b", "c"], query_label="x")
    with pytest.raises(ValueError, match="scores has shape"):
        neuron_figures.neuron_view(q, k, np.zeros(4), np.zeros(3), ["a", "b", "c"], query_label="x")
    with pytest.raises(ValueError, match="finite"):
        neuron_figures.neuron_view(q, k, np.array([0, np.nan, 0]), np.zeros(3), ["a", "b", "c"], query_label="x")


def test_tokens_are_shown_not_interpreted():
    evil = "<img src=x onerror=alert(1)>"
    fig = neuron_figures.neuron_view(np.ones(2), np.ones((2, 2)), np.zeros(2), np.full(2, 0.5), [evil, "<b>b</b>"],
                                     query_label=evil)
    text = fig.to_json()
    assert "<img" not in text and "<b>b" not in text
    assert "&lt;img" in text


# ------------------------------------------------------------------------------------------- the Playground
PLAYGROUND = "pages/playground.py"


@pytest.mark.parametrize("lang,title", [("en", "Every key's score for one query"),
                                        ("ko", "쿼리 하나에 대한 모든 키의 점수")])
def test_the_playground_section_is_folded_and_a_link_opens_it(lang, title):
    params = dict(text="the cat sat on the mat", head="2", cell_query="3", cell_key="1", lang=lang)
    at = open_page(PLAYGROUND, params)
    assert not at.exception and "pg_neuron" not in charts_by_key(at)  # folded: nothing sent
    at = open_page(PLAYGROUND, {**params, "show_neuron": "true"})
    assert not at.exception
    spec = charts_by_key(at)["pg_neuron"]
    view = run_view(ViewSpec(text="the cat sat on the mat"))
    bars = dict(zip(("q", "k", "q × k", "scores", "weights"), spec["data"], strict=True))
    np.testing.assert_allclose(decode(bars["scores"]["x"]).astype(float), view.scores[2, 3], atol=TOL)
    assert bars["scores"]["marker"]["color"][1] == neuron_figures.HIGHLIGHT  # the picked key
    words = {"en": "scores", "ko": "점수"}[lang]
    assert words in [a["text"] for a in spec["layout"]["annotations"]]
    [shown] = [m.value for m in at.markdown if title in m.value]
    assert {"en": "**on** (token 3)", "ko": "**on** (토큰 3)"}[lang] in shown  # from 0, as the picker ("3: on")
    at.run()  # the link box names the open section from the next run on
    link = link_params(at)
    assert link.get("show_neuron") == "true"


def test_long_rows_use_the_pages_weights_scale():
    text = " ".join(["the cat sat on the mat and the dog saw a bird"] * 4)  # 48 tokens: weights near 1/48
    at = open_page(PLAYGROUND, text=text, show_neuron="true", num_heads="4")
    assert not at.exception
    from harness.apptest import canvas_charts

    top = canvas_charts(at)["grid"]["hi"]  # the grid's colour scale: the page's one weights rule
    assert top < 1
    spec = charts_by_key(at)["pg_neuron"]
    weights_axis = spec["data"][4]["xaxis"].replace("x", "xaxis")
    assert spec["layout"][weights_axis]["range"] == [0, pytest.approx(top)]
    with pytest.raises(ValueError, match="top=0"):
        neuron_figures.neuron_view(np.ones(2), np.ones((1, 2)), np.zeros(1), np.ones(1), ["a"], query_label="x",
                                   top=0)


@pytest.mark.parametrize("n_keys", [1, 2, 5, 12, 40])
def test_each_colour_bar_has_room_for_its_title_and_scale(n_keys):
    """Both colour bars (q, k and q × k) share the plot's height: at few keys they were a line with their ticks
    printed over each other. Each gets at least 90 px (a title and a scale); the figure still grows with the keys."""
    rng = np.random.default_rng(n_keys)
    k = rng.normal(size=(n_keys, 4))
    fig = neuron_figures.neuron_view(rng.normal(size=4), k, rng.normal(size=n_keys), np.full(n_keys, 1 / n_keys),
                                     [f"t{j}" for j in range(n_keys)], query_label="q")
    plot_px = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    for axis in (fig.layout.coloraxis, fig.layout.coloraxis2):
        assert axis.colorbar.len * plot_px >= 90, (n_keys, axis.colorbar.len * plot_px)
    assert plot_px >= neuron_figures.ROW_PX * (n_keys + 1), "every key keeps its row"
