"""The model view (#26.1): every layer x head as thumbnails (``mha.charts.heatmap_data.model_view``, drawn by
``mha.app.components.heatmap_view`` in the layout "model"). Its numbers against the model's own ``output_attentions`` on
tiny local models (tests/tiny_models.py: BERT, GPT-2, ELECTRA), the byte cap and what it says it dropped, a click read
back as (layer, head), and the Playground's section (AppTest, en and ko). Hover, click and keys: tests/browser/
test_model_view_browser.py."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tiny_models
import torch
from harness.apptest import canvas_charts, open_page

from mha.charts import figures
from mha.charts import heatmap_data as hm
from mha.core.i18n import text as i18n_text
from mha.weights import pretrained as P
from mha.weights.view import ViewSpec, pretrained_every_layer, run_view

TOL = 1e-5  # float32, two code paths
TEXTS = "the cat sat on the mat\nthe dog"  # two sentences: the second is padded


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("model_view_models")
    return {"bert": tiny_models.build("bert", root / "bert", layers=3),
            "gpt2": tiny_models.build("gpt2", root / "gpt2", layers=2, seed=3),
            "electra": tiny_models.build("electra", root / "electra", layers=2, seed=4)}


pytestmark = pytest.mark.usefixtures("offline")  # tests/app/conftest.py


def spec_for(folder, sentence: int = 0, layer: int = 0) -> ViewSpec:
    info = P.load_model(str(folder)).info
    return ViewSpec(text=TEXTS, d_model=info.d_model, num_heads=info.num_heads, causal=info.causal,
                    source="pretrained", model=str(folder), layer=layer, sentence=sentence)


def output_attentions(folder, sentence: int) -> tuple[torch.Tensor, int]:
    """The model's public output_attentions for the sentence, stacked (L, H, T, T), and its real length."""
    loaded = P.load_model(str(folder))
    tokens = P.model_tokens(loaded, TEXTS.split("\n"))
    inputs = {"input_ids": tokens.ids, "attention_mask": tokens.attention_mask}
    if tokens.token_type_ids is not None:
        inputs["token_type_ids"] = tokens.token_type_ids
    with torch.no_grad():
        out = loaded.model(**inputs, output_attentions=True)
    return torch.stack(out.attentions)[:, sentence], int(tokens.lengths[sentence])


# ------------------------------------------------------------------------------------------- the numbers
@pytest.mark.parametrize("family", ["bert", "gpt2", "electra"])
@pytest.mark.parametrize("sentence", [0, 1])
def test_every_layer_is_the_models_output_attentions(folders, family, sentence):
    P.clear_cache()
    weights, allowed = pretrained_every_layer(spec_for(folders[family], sentence))
    theirs, n = output_attentions(folders[family], sentence)
    info = P.load_model(str(folders[family])).info
    assert weights.shape == tuple(theirs.shape) and weights.shape[:2] == (info.num_layers, info.num_heads)
    real = slice(0, n)  # query rows of real tokens (a padded query's row is the model's business)
    assert np.abs(weights[:, :, real] - theirs[:, :, real].numpy()).max() <= TOL
    assert weights[:, :, real].max() > 0.5  # far from uniform: equality means something
    assert not allowed[..., n:].any()  # padded keys are blocked
    # the thumbnails carry those numbers, layer by layer, head by head
    payload = hm.model_view(weights, [f"t{i}" for i in range(weights.shape[-1])],
                            [f"t{i}" for i in range(weights.shape[-1])], allowed=allowed)
    L, H = weights.shape[:2]
    got = hm.unpack(payload)["values"].reshape(weights.shape)
    np.testing.assert_allclose(got, weights, rtol=1e-6, atol=1e-7)
    assert payload["layers"] == [v for v in range(L) for _ in range(H)] and payload["cols"] == H
    assert payload["dropped"] == {"values": False, "layers": []}


def test_the_layer_shown_needs_no_model_run_after_the_model_view(folders):
    P.clear_cache()
    loaded = P.load_model(str(folders["bert"]))
    calls = []
    hook = P._sub(loaded.model, "embeddings").register_forward_hook(lambda *a: calls.append(1))
    try:
        spec = spec_for(folders["bert"])
        weights, _ = pretrained_every_layer(spec)
        assert len(calls) == 1  # one run through every layer
        for layer in range(loaded.info.num_layers):
            view = run_view(dataclasses.replace(spec, layer=layer))
            real = ~view.query_is_pad
            assert np.abs(view.weights[:, real] - weights[layer][:, real]).max() <= TOL
        assert len(calls) == 1  # switching the layer shown ran no model
    finally:
        hook.remove()


# ---------------------------------------------------------------------------------------- the payload
def rand_weights(L, H, T, seed=0):
    w = np.random.default_rng(seed).random((L, H, T, T)) ** 3
    return w / w.sum(-1, keepdims=True)


def test_titles_follow_the_words_and_the_pages_layer_numbers():
    w = rand_weights(2, 3, 4)
    en = hm.model_view(w, list("abcd"), list("abcd"))
    assert en["titles"] == ["L0 H0", "L0 H1", "L0 H2", "L1 H0", "L1 H1", "L1 H2"]
    ko_words = figures.Words(panel_hover=i18n_text("ch_panel_hover", "ko"),
                             panel_title=i18n_text("ch_panel_title", "ko"))
    ko = hm.model_view(w, list("abcd"), list("abcd"), words=ko_words, first_layer=1)
    assert ko["titles"][4] == "2층 헤드 1" and ko["words"]["panel_hover"] == "{layer}층 · 헤드 {head}"
    assert ko["sig"] != en["sig"]  # other titles: another picture


def test_one_colour_rule_over_every_layer():
    w = np.full((3, 2, 40, 40), 1 / 40)  # long, even rows: the rule fits the top to the largest weight
    w[2, 1, 5] = 0.0
    w[2, 1, 5, :3] = [0.3, 0.3, 0.4]  # the largest weight, in the last layer only
    p = hm.model_view(w, [str(i) for i in range(40)], [str(i) for i in range(40)])
    assert p["hi"] == figures.weights_top(w.reshape(6, 40, 40)) == pytest.approx(0.4)
    assert figures.weights_top(w[0]) < 0.1  # one layer alone would have another rule
    assert hm.model_view(w, [str(i) for i in range(40)], [str(i) for i in range(40)], top=0.5)["hi"] == 0.5


def test_the_byte_cap_drops_exact_numbers_then_layers_and_says_so():
    L, H, T = 4, 3, 8
    w = rand_weights(L, H, T)
    names = [str(i) for i in range(T)]
    cells = H * T * T  # one layer
    full = hm.model_view(w, names, names, max_bytes=L * cells * 5)
    assert full["dropped"] == {"values": False, "layers": []} and full["values"] is not None
    codes_only = hm.model_view(w, names, names, max_bytes=L * cells * 5 - 1)
    assert codes_only["dropped"] == {"values": True, "layers": []} and codes_only["values"] is None
    assert hm.unpack(codes_only)["codes"].shape == (L * H, T, T)
    two = hm.model_view(w, names, names, max_bytes=2 * cells + 7, first_layer=1)
    assert two["dropped"] == {"values": True, "layers": [3, 4]} and two["H"] == 2 * H
    assert len(two["codes"]) * 3 // 4 <= 2 * cells + 2  # base64 of what fits
    # the default cap holds 12 layers x 12 heads x 32 tokens whole, numbers and all... not: 5 bytes a cell is 0.7 MB
    big = hm.model_view(rand_weights(12, 12, 32), names * 4, names * 4)
    assert big["dropped"]["layers"] == [] and big["H"] == 144


def test_marked_is_the_layer_and_head_shown():
    w = rand_weights(3, 4, 5)
    names = list("abcde")
    assert hm.model_view(w, names, names, marked=(2, 1))["marked"] == 9
    assert hm.model_view(w, names, names, marked=(3, 0))["marked"] is None  # no such layer: nothing framed
    assert hm.model_view(w, names, names, marked=(0, 4))["marked"] is None


def test_a_pick_comes_back_as_layer_and_head_checked():
    w = rand_weights(3, 4, 5)
    p = hm.model_view(w, list("abcde"), list("abcde"), first_layer=1)
    assert hm.read_pick({"panel": 6}, p) == {"panel": 6, "layer": 1, "head": 2}  # the index, not the title's 2
    assert hm.read_pick({"panel": 0}, p) == {"panel": 0, "layer": 0, "head": 0}
    for bad in ({"panel": 12}, {"panel": -1}, {"panel": 1.5}, {"panel": True}, {"panel": "3"}, {"panel": 1, "x": 2},
                [6], None):
        assert hm.read_pick(bad, p) == {}, bad
    grid = hm.prepare(w[0], list("abcde"), list("abcde"))
    assert hm.read_pick({"panel": 1}, grid) == {}  # a grid has no panels to open


def test_bad_input_says_how_to_fix():
    names = list("abc")
    with pytest.raises(ValueError, match=r"\(layers, heads, queries, keys\)"):
        hm.model_view(np.ones((2, 3, 3)) / 3, names, names)
    with pytest.raises(ValueError, match="one layer number per panel"):
        hm.prepare(np.ones((2, 3, 3)) / 3, names, names, layout="model")
    with pytest.raises(ValueError, match="model view"):
        hm.prepare(np.ones((2, 3, 3)) / 3, names, names, pick="panel")
    with pytest.raises(ValueError, match="3 key positions, but there are 2 key labels"):
        hm.model_view(rand_weights(2, 2, 3), names, names[:2])


# ------------------------------------------------------------------------------------------ the page
def test_the_playground_shows_every_layer_of_a_pretrained_model(folders):
    P.clear_cache()
    folder = folders["bert"]
    at = open_page("pages/playground.py", source="pretrained", model=str(folder), text="the cat sat on the mat",
                   layer="2")
    assert not at.exception
    charts = canvas_charts(at)
    mv, grid = charts["pg_model_view"], charts["grid"]
    info = P.load_model(str(folder)).info
    L, H = info.num_layers, info.num_heads
    assert (mv["layout"], mv["H"], mv["cols"], mv["pick"]) == ("model", L * H, H, "panel")
    assert mv["titles"][:H + 1] == [f"L0 H{h}" for h in range(H)] + ["L1 H0"]
    assert mv["marked"] == 2 * H  # layer 2, head 0 (the enlarged head) framed
    assert mv["q"] == grid["q"] and mv["k"] == grid["k"]  # the tokens the layer's grid shows
    assert (mv["lo"], mv["hi"]) == (grid["lo"], grid["hi"])  # one colour rule
    values = hm.unpack(mv)["values"].reshape(L, H, mv["Tq"], mv["Tk"])
    # the layer shown in the grid is the model view's row 2
    np.testing.assert_allclose(values[2], hm.unpack(grid)["values"], atol=TOL)
    texts = [str(c.value) for c in at.caption]
    assert i18n_text("mv_help", "en", layers=L, heads=H) in texts
    assert i18n_text("mv_title", "en") in [s.value for s in at.subheader]
    # what a click does (playground_page._open_layer): that layer in the sidebar, that head enlarged
    from mha.app.sections import playground as playground_page

    state = {}
    playground_page.st = _Fake(state)
    try:
        playground_page._open_layer(1, 3)
    finally:
        import streamlit

        playground_page.st = streamlit
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    mv2, grid2 = canvas_charts(at)["pg_model_view"], canvas_charts(at)["grid"]
    assert at.sidebar.number_input(key="layer").value == 1 and mv2["marked"] == H + 3
    assert at.session_state["head"] == 3
    np.testing.assert_allclose(hm.unpack(mv2)["values"].reshape(L, H, mv["Tq"], mv["Tk"])[1],
                               hm.unpack(grid2)["values"], atol=TOL)  # the grid now shows layer 1


class _Fake:
    """A stand-in for the streamlit module whose session_state is a plain dict."""

    def __init__(self, state: dict):
        self.session_state = state


def test_the_model_view_in_korean(folders):
    at = open_page("pages/playground.py", source="pretrained", model=str(folders["gpt2"]), text="the cat sat",
                   lang="ko")
    mv = canvas_charts(at)["pg_model_view"]
    assert mv["titles"][:2] == ["0층 헤드 0", "0층 헤드 1"] and mv["words"]["panel_hover"] == "{layer}층 · 헤드 {head}"
    assert i18n_text("mv_title", "ko") in [s.value for s in at.subheader]


def test_no_model_view_for_one_layer_of_our_own(folders):
    at = open_page("pages/playground.py")
    assert not at.exception and "pg_model_view" not in canvas_charts(at)


def test_a_click_opens_that_layer_and_head(monkeypatch):
    """The component's callback: the click checked against the panels drawn, then the page's ``on_open``."""
    from mha.app.sections import model_view as mv

    p = hm.model_view(rand_weights(3, 4, 5), list("abcde"), list("abcde"))
    panels = {k: p[k] for k in ("H", "cols", "heads", "layers")}
    opened = []
    for value, want in (({"panel": 9}, [(2, 1)]), ({"panel": 99}, []), ({"head": 1}, []), ("x", [])):
        opened.clear()
        monkeypatch.setattr(mv.st, "session_state", {"k": {"pick": value}})
        mv._on_pick("k", panels, lambda layer, head: opened.append((layer, head)))
        assert opened == want, value


def test_the_induction_page_shows_both_layers_and_opens_a_head():
    """The Induction page's two layers as a model view (layers numbered from 1, as that page numbers them): the
    thumbnails are the snapshot's weights, the large head below is the one opened."""
    text = "the cat sat on a mat ."
    at = open_page("pages/induction.py", ind_steps="30", ind_seed="1", ind_at="30", text=text)
    assert not at.exception
    mv = canvas_charts(at)["ind_model_view"]
    assert (mv["H"], mv["cols"]) == (8, 4) and mv["titles"][4] == "L2 H0"
    from harness.apptest import charts_by_key
    from harness.apptest import heatmaps as plotly_heatmaps

    charts = charts_by_key(at)
    values = hm.unpack(mv)["values"].reshape(2, 4, mv["Tq"], mv["Tk"])
    for layer in (0, 1):  # the same numbers as the layer's Plotly grid
        for h, z in enumerate(plotly_heatmaps(charts[f"ind_grid_l{layer + 1}"])):
            np.testing.assert_allclose(values[layer, h], z, atol=1e-6)
    at.session_state["ind_open"] = (0, 2)  # what a click on "L1 H2" sets (induction_page._open_head)
    at.run()
    big = plotly_heatmaps(charts_by_key(at)["ind_l2_head"])[0]
    np.testing.assert_allclose(big, values[0, 2], atol=1e-6)
    assert canvas_charts(at)["ind_model_view"]["marked"] == 2
    assert i18n_text("mv_ind_opened", "en", layer=1, head=2) in [m.value.strip("*") for m in at.markdown]
