"""Paint only what is shown (#16.3): on the Playground and Step by step a default visit sends the charts the page
shows open, and every folded section sends its charts once it is opened — by a click (its state in session state)
or by a link naming it (``show_cell=true``), and the link then keeps it open.

Which sections are folded, and their URL parameters: harness.apptest.FOLDED.
"""
from __future__ import annotations

import pytest
from harness.apptest import FOLDED, LOOKS, canvas_charts, canvas_values, charts_by_key, link_params, open_page

PLAYGROUND, EXPLAIN = "pages/playground.py", "pages/explain.py"
# Each folded section's charts (chart keys), by its URL parameter.
SECTION_CHARTS = {
    "show_cell": {"pg_cell_vectors", "pg_cell_sum", "pg_cell_row"},
    "show_neuron": {"pg_neuron"},
    "ex_show_embed": {"ex_x"},
    "ex_show_linear": {"ex_chart_query"},  # its open tab's chart (tabs send only the open one)
    "ex_show_split_heads": {"ex_split"},
    "ex_show_qk": {"ex_qk"},
    "ex_show_mask": {"ex_masked"},
    "ex_show_weighted_sum": {"ex_head_output"},
    "ex_show_combine_heads": {"ex_concat"},
    "ex_show_output_linear": {"ex_output"},
    "ex_show_cell": {"ex_cell_vectors", "ex_cell_sum", "ex_cell_row"},
}
def drawn(at) -> set[str]:
    """The keys of every chart drawn: Plotly's and the canvas heatmaps (the Playground's grid and enlarged head)."""
    return set(charts_by_key(at)) | set(canvas_charts(at))


def sent(at, key: str):
    """What a chart sent: a Plotly chart's traces, a canvas heatmap's payload (Step by step's matrices, #27.4)."""
    canvas = canvas_charts(at)
    return canvas[key] if key in canvas else charts_by_key(at)[key]["data"]


# What a visit shows before any fold is opened: the Playground's all-heads grid and, in the look that has the folds
# (harness.apptest.LOOKS: look=head), the enlarged head; Step by step's scores and weights (the key steps, open), the
# course's bar of one query's row and the clickable cell chart.
SHOWN = {PLAYGROUND: {"grid", "one_head_chart"}, EXPLAIN: {"ex_scores", "ex_weights", "ex_bar", "ex_cell_chart"}}
LOOK = {page: (LOOKS.get(page) or ({},))[0] for page in SHOWN}  # the look whose folds FOLDED names
DEFAULT = {PLAYGROUND: {"grid"}, EXPLAIN: SHOWN[EXPLAIN]}  # a default visit: the Playground shows its head view
OPEN_BY_DEFAULT = {"ex_show_scale": {"ex_scores"}, "ex_show_softmax": {"ex_weights"}}
CASES = [(page, key) for page, keys in FOLDED.items() for key in keys if key not in OPEN_BY_DEFAULT]


def test_every_folded_section_is_listed_with_its_charts():
    assert set(SECTION_CHARTS) | set(OPEN_BY_DEFAULT) == {k for keys in FOLDED.values() for k in keys}


@pytest.mark.parametrize("page", [PLAYGROUND, EXPLAIN])
def test_a_default_visit_sends_only_the_charts_it_shows(page):
    at = open_page(page)
    assert not at.exception
    assert drawn(at) == DEFAULT[page]
    at.run()  # and a rerun (a warm visit) the same
    assert drawn(at) == DEFAULT[page]
    at = open_page(page, LOOK[page])  # the look with the folds, all folded
    assert not at.exception
    assert drawn(at) == SHOWN[page]


@pytest.mark.parametrize("page,key", CASES)
def test_opening_a_folded_section_sends_its_charts_and_the_link_keeps_it_open(page, key):
    at = open_page(page, LOOK[page])
    assert not SECTION_CHARTS[key] & drawn(at)
    at.session_state[key] = True  # what a click on the expander's label sets
    at.run()
    assert not at.exception
    assert drawn(at) == SHOWN[page] | SECTION_CHARTS[key]
    at.run()  # the link box is built before the page: it names the section from the next run on
    params = link_params(at)
    assert params.get(key) == "true", params
    again = open_page(page, params)  # the link, in a new session
    assert not again.exception
    assert drawn(again) == SHOWN[page] | SECTION_CHARTS[key]
    assert [sent(again, c) for c in sorted(SECTION_CHARTS[key])] == [sent(at, c) for c in sorted(SECTION_CHARTS[key])]


@pytest.mark.parametrize("page", [PLAYGROUND, EXPLAIN])
def test_a_link_can_open_every_section_at_once_and_close_the_open_ones(page):
    keys = FOLDED[page]
    at = open_page(page, {**LOOK[page], **{k: "true" for k in keys}}, text="the cat sat on the mat")
    assert not at.exception
    every = SHOWN[page].union(*(SECTION_CHARTS.get(k, set()) for k in keys))
    assert drawn(at) == every
    closed = {k: "false" for k in OPEN_BY_DEFAULT if k in keys}
    if closed:  # Step by step: a link may close the key steps' pictures too
        at = open_page(page, closed)
        assert not at.exception
        assert not drawn(at) & set().union(*OPEN_BY_DEFAULT.values())


def test_the_mask_step_shows_its_picture_when_there_is_a_mask():
    at = open_page(EXPLAIN, causal="true")
    assert drawn(at) == SHOWN[EXPLAIN] | {"ex_masked"}


@pytest.mark.parametrize("page,key", [(PLAYGROUND, "show_cell"), (EXPLAIN, "ex_show_qk")])
def test_a_garbage_value_leaves_the_section_folded_and_is_named(page, key):
    at = open_page(page, {key: "maybe"})
    assert not at.exception
    assert drawn(at) == SHOWN[page]
    notes = " ".join(c.value for c in at.sidebar.caption)
    assert f"{key}=" in notes and "maybe" in notes, notes


def test_opening_the_cell_breakdown_keeps_the_picked_cell_and_head():
    at = open_page(PLAYGROUND, text="the cat sat on the mat", head="2", cell_query="4", cell_key="1",
                   show_cell="true")
    assert not at.exception
    titles = [m.value for m in at.markdown if "How this cell is made" in m.value]
    assert titles and "head 2" in titles[0] and "(token 4)" in titles[0] and "(token 1)" in titles[0], titles


def test_the_weights_table_and_its_csv_are_built_only_once_opened():
    import numpy as np

    at = open_page(PLAYGROUND, head="2", look="head")
    assert not at.exception and not at.dataframe and not at.get("download_button")  # folded: nothing built
    at.session_state["pg_table_open"] = True  # what a click on its label sets
    at.run()
    [table] = at.dataframe
    [button] = at.get("download_button")
    grid = canvas_values(canvas_charts(at)["grid"])[2]  # head 2 in the all-heads grid: the same numbers another way
    assert table.value.shape == grid.shape == (5, 5)
    np.testing.assert_allclose(table.value.to_numpy(), grid, atol=1e-6)
    assert button.proto.url or button.proto.deferred_file_id  # the CSV is there to download
