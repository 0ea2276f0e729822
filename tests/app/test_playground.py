"""The Playground page through AppTest: controls -> charts, URL parameters, hostile and edge-case text."""
import math

import numpy as np
import pytest
from harness.apptest import (
    all_numbers_finite,
    all_open,
    canvas_charts,
    canvas_values,
    charts_by_key,
    component_names,
    heatmaps,
    link_params,
    open_page,
)

from mha.charts.heatmap_data import unpack
from mha.core.inputs import token_inputs
from mha.core.tokens import tokenize
from mha.weights.view import MAX_TOKENS, build_model

PAGE = "pages/playground.py"
GRID, ONE_HEAD, HEAD_OUTPUTS, OUTPUT = "grid", "one_head_chart", "head_outputs", "output"  # chart keys
CANVAS = {GRID, ONE_HEAD}  # drawn in the page (mha.app.components.heatmap_view); the others are Plotly charts


def expected_scores(text, d_model, num_heads, seed=0, positional=True):
    """Scaled QK^T computed here from the module's weights, not through the app's code path."""
    model = build_model(d_model, num_heads, seed)
    x = token_inputs(tokenize(text).tokens, d_model, seed, positional=positional).double()
    hd = d_model // num_heads
    q = (x @ model.query_linear.weight.double().T).view(-1, num_heads, hd).transpose(0, 1)  # (H, T, hd)
    k = (x @ model.key_linear.weight.double().T).view(-1, num_heads, hd).transpose(0, 1)
    return (q @ k.transpose(-2, -1) / math.sqrt(hd)).numpy()


def test_home_and_playground_run_with_defaults():
    at = open_page()
    assert not at.exception
    assert at.title[0].value.endswith("Multi-Head Attention Playground")
    at = open_page(PAGE)  # the grid, and the head view below it
    assert not at.exception and set(canvas_charts(at)) == {GRID} and "mha_head_view" in component_names(at)
    at = open_page(PAGE, all_open(PAGE))
    assert not at.exception
    assert CANVAS <= set(canvas_charts(at))
    at = open_page(PAGE, look="outputs")
    assert not at.exception
    assert {HEAD_OUTPUTS, OUTPUT} <= set(charts_by_key(at))


@pytest.mark.parametrize("d_model,num_heads", [(16, 4), (12, 3), (8, 1), (64, 16)])
def test_one_heatmap_per_head_and_rows_sum_to_one(d_model, num_heads):
    at = open_page(PAGE, look="outputs", d_model=str(d_model), num_heads=str(num_heads),
                   text="the cat sat on the mat")
    assert not at.exception
    grid = canvas_charts(at)[GRID]
    mats = canvas_values(grid)
    assert len(mats) == num_heads
    assert grid["heads"] == list(range(num_heads)) and grid["words"]["head"] == "head"  # panel titles "head h"
    for m in mats:
        assert m.shape == (6, 6)
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-5)
    outputs = heatmaps(charts_by_key(at)[HEAD_OUTPUTS])
    assert len(outputs) == num_heads and all(o.shape == (6, d_model // num_heads) for o in outputs)
    assert heatmaps(charts_by_key(at)[OUTPUT])[0].shape == (6, d_model)


def test_axis_labels_are_the_tokens_and_repeats_stay_separate():
    at = open_page(PAGE, text="the cat saw the dog")
    grid = canvas_charts(at)[GRID]
    assert grid["q"] == grid["k"] == ["the", "cat", "saw", "the", "dog"]  # by position: two "the" rows
    assert canvas_values(grid).shape[1:] == (5, 5)


def test_scores_match_the_module():
    text = "Orange is my favorite fruit"
    at = open_page(PAGE, text=text, d_model="24", num_heads="3", seed="7", matrix="scores")
    assert not at.exception
    got = canvas_values(canvas_charts(at)[GRID])
    np.testing.assert_allclose(got, expected_scores(text, 24, 3, seed=7), atol=1e-5)


def test_causal_gives_zero_upper_triangle_and_a_grey_overlay():
    at = open_page(PAGE, text="one two three four", causal="true")
    grid = canvas_charts(at)[GRID]
    for m in canvas_values(grid):
        assert np.all(m[np.triu_indices(4, k=1)] == 0.0)
        assert np.all(m[np.tril_indices(4)] > 0.0)
    blocked = unpack(grid)["blocked"]  # drawn grey
    assert blocked.shape == (4, 4, 4) and all(np.array_equal(b, np.triu(np.ones((4, 4)), k=1)) for b in blocked)
    at.toggle(key="causal").set_value(False).run()
    assert canvas_charts(at)[GRID]["blocked"] is None


def test_changing_controls_changes_the_charts():
    at = open_page(PAGE, text="a b c")
    before = canvas_values(canvas_charts(at)[GRID])
    at.number_input(key="seed").set_value(3).run()
    after = canvas_values(canvas_charts(at)[GRID])
    assert before.shape == after.shape and not np.allclose(before, after)
    at.selectbox(key="num_heads").set_value(2).run()
    assert len(canvas_values(canvas_charts(at)[GRID])) == 2
    at.selectbox(key="d_model").set_value(12).run()  # 2 still divides 12
    assert at.selectbox(key="num_heads").value == 2
    at.selectbox(key="num_heads").set_value(3).run()
    at.selectbox(key="d_model").set_value(16).run()  # 3 does not divide 16: adjusted, with a note
    assert at.selectbox(key="num_heads").value == 2
    assert any("does not divide" in c.value for c in at.sidebar.caption)


def test_url_parameters_set_every_control():
    params = dict(text="안녕 세상 안녕", d_model="48", num_heads="6", causal="true", seed="42", positional="false",
                  matrix="scores", head="5", cell_query="2: 안녕", cell_key="1: 세상")
    at = open_page(PAGE, **params)
    assert not at.exception
    assert at.text_area(key="text").value == "안녕 세상 안녕"
    assert at.selectbox(key="d_model").value == 48 and at.selectbox(key="num_heads").value == 6
    assert at.toggle(key="causal").value is True and at.toggle(key="positional").value is False
    assert at.number_input(key="seed").value == 42
    assert at.session_state["head"] == 5
    assert (at.session_state["cell_query"], at.session_state["cell_key"]) == (2, 1)
    one = canvas_charts(at)[ONE_HEAD]
    expected = expected_scores("안녕 세상 안녕", 48, 6, seed=42, positional=False)[5]
    assert one["heads"] == [5] and one["selected"] == [2, 1]  # the enlarged head, the chosen cell outlined
    np.testing.assert_allclose(canvas_values(one)[0], expected, atol=1e-5)
    assert not at.sidebar.warning  # nothing was refused


@pytest.mark.parametrize("params,refused", [
    (dict(d_model="banana"), "d_model"),
    (dict(d_model="16", num_heads="5"), "num_heads"),
    (dict(seed="-3"), "seed"),
    (dict(seed="1e99"), "seed"),
    (dict(causal="maybe"), "causal"),
])
def test_garbage_url_parameters_fall_back_with_a_note(params, refused):
    for view, shown in ((all_open(PAGE), lambda at: CANVAS <= set(canvas_charts(at))),
                        ({"look": "outputs"}, lambda at: {HEAD_OUTPUTS, OUTPUT} <= set(charts_by_key(at)))):
        at = open_page(PAGE, view, **params)
        assert not at.exception
        assert any(f"{refused}=" in w.value for w in at.sidebar.warning)
        assert shown(at)


def test_head_and_cell_out_of_range_are_clamped():
    at = open_page(PAGE, text="a b", num_heads="2", head="9", cell_query="30: x", cell_key="-1")
    assert not at.exception
    assert at.session_state["head"] < 2
    assert at.session_state["cell_query"] < 2 and at.session_state["cell_key"] < 2


def test_selected_cell_summary_and_csv_follow_the_selectors():
    at = open_page(PAGE, text="Orange is my favorite fruit", head="1", look="head")
    at.selectbox(key="cell_query").set_value(4).run()
    at.selectbox(key="cell_key").set_value(0).run()
    assert at.selectbox(key="cell_query").value == 4
    summary = " ".join(m.value for m in at.markdown)
    w = canvas_values(canvas_charts(at)[ONE_HEAD])[0]
    # positions are 0-based everywhere, prose included, as the pickers ("4: fruit") and PyTorch
    assert "query **fruit** (token 4)" in summary and "key **Orange** (token 0)" in summary
    assert f"{w[4, 0]:.4f}" in summary
    at.session_state["pg_table_open"] = True  # the table (and its CSV) is built once opened
    at.run()
    [button] = at.get("download_button")
    assert button.proto.label and at.dataframe[0].value.shape == (5, 5)


@pytest.mark.parametrize("text", ["", "   \n\t  "])
def test_empty_text_gets_a_message_next_to_the_box(text):
    at = open_page(PAGE, text=text)
    assert not at.exception
    assert any("empty" in e.value for e in at.sidebar.error)
    assert not at.get("plotly_chart") and not canvas_charts(at)
    assert at.info  # the page says what to do


def test_a_10000_character_paste_is_cut_with_a_note():
    at = open_page(PAGE, text="word " * 2000)
    assert not at.exception
    notes = " ".join(c.value for c in at.sidebar.caption)
    assert "10,000 characters" in notes and f"first {MAX_TOKENS}" in notes
    grid = canvas_charts(at)[GRID]
    assert unpack(grid)["codes"].shape == (4, MAX_TOKENS, MAX_TOKENS) and len(grid["q"]) == MAX_TOKENS


@pytest.mark.parametrize("text", [
    "<b>bold</b> <a href='javascript:alert(1)'>x</a> <span style='color:red'>red</span>",
    "**bold** _it_ [link](http://example.com) `code`",
    "abc\u202edcba \u200fhello \x00\x07 world",
    "👨‍👩‍👧‍👦 🇰🇷 👍🏽 café 한국어",
    "x" * 500,
])
def test_hostile_and_odd_text_is_shown_not_interpreted(text):
    at = open_page(PAGE, all_open(PAGE), text=text)
    assert not at.exception
    specs = charts_by_key(at)
    assert specs and all(all_numbers_finite(s) for s in specs.values())
    for payload in canvas_charts(at).values():  # plain text, set with textContent / fillText in the page
        assert np.isfinite(canvas_values(payload)).all()
        labels = payload["q"] + payload["k"]
        assert not any("\u202e" in lab or "\x00" in lab for lab in labels)
        assert all(len(lab) <= 16 for lab in labels)  # capped


def test_a_long_sentence_says_its_weights_scale_ends_below_one_and_the_chart_agrees():
    """Near the token cap every weight is about 1/T: the scale is fitted (figures.weights_top), and the caption must
    say so rather than '1 = dark blue'."""
    from mha.charts import figures
    from mha.weights.view import MAX_TOKENS, ViewSpec, run_view

    text = " ".join(f"w{i}" for i in range(MAX_TOKENS))
    at = open_page("pages/playground.py", text=text)
    assert not at.exception
    top = figures.weights_top(run_view(ViewSpec(text=text)).weights)
    assert top < 0.5
    grid = canvas_charts(at)["grid"]
    assert grid["hi"] == pytest.approx(top) and f"0 … {top:.2g}" in " ".join(grid["bar"]["title"])
    captions = " ".join(c.value for c in at.main.caption)
    assert f"{top:.2g} = dark blue" in captions and "(0 = white, 1 = dark blue)" not in captions


def _weights_scale(payload: dict) -> tuple[float, float, str]:
    return payload["lo"], payload["hi"], " ".join(payload["bar"]["title"])


@pytest.mark.parametrize("fit", [False, True])
def test_one_weights_scale_for_the_grid_and_the_enlarged_head(fit):
    """#16 item 5: the grid and the enlarged head of one view use the same colour scale (they had 0…0.21 and
    0…0.086), and "fit to data" makes it end at the view's largest weight, said in the colour bar."""
    params = {"fit_scale": "true"} if fit else {}
    at = open_page("pages/playground.py", text="the cat sat on the mat", look="head", **params)  # short rows: 0 … 1
    assert not at.exception and at.toggle(key="fit_scale").value is fit
    charts = canvas_charts(at)
    grid, one = _weights_scale(charts[GRID]), _weights_scale(charts[ONE_HEAD])
    assert grid == one
    weights = canvas_values(charts[GRID])
    if fit:  # fitted: up to the view's largest weight (all heads), rounded up, and the colour bar says so
        assert weights.max() <= grid[1] < 1.0 and grid[1] - weights.max() < 0.01 * 1.0001
        assert "(not 0 … 1)" in grid[2]
        assert any(c.value.startswith("Each row sums to 1") and "Fitted to the weights" in c.value for c in at.caption)
    else:  # not fitted: 0 … 1
        assert grid[:2] == (0.0, 1.0) and weights.max() <= 1.0


def test_fit_to_data_ends_at_the_largest_weight_of_the_view():
    from mha.charts.figures import weights_top

    w = np.array([[[0.2, 0.8], [0.5, 0.5]], [[0.1234, 0.9], [0.3, 0.7]]])
    short = np.full((2, 4, 4), 0.25)
    assert weights_top(short) == 1.0  # short rows: 0 … 1 unless asked
    assert weights_top(short, fit=True) == pytest.approx(0.25)
    assert weights_top(w, fit=True) == pytest.approx(0.9)
    assert weights_top(np.full((1, 2, 2), 1.0), fit=True) == 1.0


def test_the_intro_counts_one_token_and_one_head_in_the_singular():
    """A one-word sentence with one head said "1 tokens · ... · 1 heads of head_dim 16"."""
    def intro(at) -> str:
        return next(c.value for c in at.caption if " · d_model " in c.value)

    text = intro(open_page(PAGE, text="hi", d_model=16, num_heads=1))
    assert text.startswith("1 token · ") and "· 1 head of head_dim 16" in text, text
    text = intro(open_page(PAGE, text="hi there", d_model=16, num_heads=2))
    assert text.startswith("2 tokens · ") and "· 2 heads of head_dim 8" in text, text



def test_the_grid_is_told_which_head_is_enlarged():
    """The grid frames the enlarged head (mha.app.components.heatmap_view; the page keeps it in step when only the
    enlarged head reruns): both charts are one group, and a run after the head was picked sends it to the grid."""
    at = open_page(PAGE, num_heads="4", head="2", look="head")
    at.run()
    charts = canvas_charts(at)
    assert charts[GRID]["group"] == charts[ONE_HEAD]["group"] is not None
    assert charts[ONE_HEAD]["heads"] == [2] and charts[GRID]["marked"] == 2
    at.session_state["head"] = 3
    at.run()
    assert canvas_charts(at)[GRID]["marked"] == 3


def test_one_closer_look_below_the_grid_at_a_time_and_the_link_keeps_it():
    """Below the grid the Playground shows one closer look (#24.4: a new sentence draws two pictures, not three): the
    head view by default, one head enlarged, or the outputs. Only the one shown is built and sent; the grid frames the
    enlarged head only while it is shown; the link names the look unless it is the default."""
    at = open_page(PAGE, num_heads="4")
    at.run()  # the link box names the page's controls from the second run on
    assert not at.exception and at.session_state["look"] == "lines"
    assert "mha_head_view" in component_names(at) and set(canvas_charts(at)) == {GRID}
    assert canvas_charts(at)[GRID]["marked"] is None and at.session_state["head"] == 0  # kept, hidden
    assert not {HEAD_OUTPUTS, OUTPUT} & set(charts_by_key(at)) and "look" not in link_params(at)
    for look, shown in (("head", lambda at: ONE_HEAD in canvas_charts(at)),
                        ("outputs", lambda at: {HEAD_OUTPUTS, OUTPUT} <= set(charts_by_key(at)))):
        at.session_state["look"] = look  # what the look's button sets
        at.run()
        at.run()
        assert not at.exception and shown(at)
        assert ("mha_head_view" in component_names(at)) is False
        assert (ONE_HEAD in canvas_charts(at)) is (look == "head")
        assert canvas_charts(at)[GRID]["marked"] == (0 if look == "head" else None)
        assert link_params(at)["look"] == look
        again = open_page(PAGE, link_params(at))  # the link, in a new session: the same look
        assert again.session_state["look"] == look and shown(again)
    at.session_state["look"], at.session_state["head"] = "head", 2  # head 2 enlarged, then the head view again
    at.run()
    at.session_state["look"] = "lines"
    at.run()
    at.run()
    assert "mha_head_view" in component_names(at) and link_params(at).get("head") == "2" \
        and "look" not in link_params(at)
    again = open_page(PAGE, link_params(at))  # the head view again, and the head kept for the enlarged look
    assert again.session_state["look"] == "lines" and again.session_state["head"] == 2
    assert ONE_HEAD not in canvas_charts(again)
