"""#16 item 5: one colour rule for the attention weights, the same for every weights chart of a page's view.

Every page that draws attention weights works out the top of their colour scale once, over everything its view shows
(``figures.weights_top``), draws every weights chart (and the bars of a query's row of weights) on 0 .. that top, and
says the range in each colour bar. The "Fit the colour scale to the weights" switch (``fit_scale``, in the link) ends
it at the largest weight at any row length. Read from the charts each page sends (AppTest), at 5, 16 and 43 tokens.
"""
from __future__ import annotations

import numpy as np
import pytest
from harness.apptest import canvas_as_spec, canvas_charts, charts_by_key, decode, heatmaps, nonfinite_in, open_page

from mha.charts import figures
from mha.core.i18n import text as i18n_text
from mha.lessons import bugs

SIZES = {n: " ".join(f"w{i}" for i in range(n)) for n in (5, 8, 16, 43)}
VIEW_SIZES = (5, 16, 43)  # the three the issue looked at; 8 tokens: short rows that "fit" still brightens

# page, extra link parameters, the weights charts of its view (heatmaps), its bar charts of one row of weights
PAGES = {
    "playground": ("pages/playground.py", {"show_cell": "true"}, ("grid", "one_head_chart"), ("pg_cell_row",)),
    "explain": ("pages/explain.py", {"ex_show_cell": "true", "ex_show_softmax": "true"},
                ("ex_weights", "ex_cell_chart"), ("ex_bar", "ex_cell_row")),
    "bugs": ("pages/bugs.py", {"bz_bug": "softmax_over_queries", "num_heads": "4"}, ("bz_bug_chart", "bz_ok_chart"),
             ()),
    # the second handout's class: its heads x heads map has its own scale (test_bug_zoo_heads_map_has_its_own_scale)
    "bugs_seed_two": ("pages/bugs.py", {"bz_bug": bugs.SEED_TWO, "num_heads": "4"}, ("bz_ok_chart",), ()),
    "masks": ("pages/masks.py", {}, ("mk_weights_chart",), ()),
    "lab": ("pages/lab.py", {"lab_temperature": "2.0"}, ("lab_pair", "lab_temp_weights"), ()),
    "heads_compare": ("pages/heads.py", {"hd_section": "compare"}, ("heads_pair_chart",), ()),
    "heads_seeds": ("pages/heads.py", {"hd_section": "seeds"}, ("heads_seeds_chart",), ()),
    "heads_order": ("pages/heads.py", {"hd_section": "order", "heads_shuffle": "1"}, ("heads_shuffle_chart",), ()),
}


def weights_axes(spec: dict) -> list[dict]:
    """The weights colour axes of a chart: those whose colour bar title starts with the word "weights"."""
    return [axis for name, axis in spec["layout"].items() if name.startswith("coloraxis")
            and axis.get("colorbar", {}).get("title", {}).get("text", "").startswith("weights<br>")]


def top_of(axis: dict) -> float:
    """The top of a weights colour axis; a large grid sends colour codes 0..255 with ticks naming the values."""
    if axis["cmax"] == 255 and "ticktext" in axis.get("colorbar", {}):
        return float(axis["colorbar"]["ticktext"][-1])
    return float(axis["cmax"])


def chosen_max(mats) -> float:
    """The largest weight in a row with more than one nonzero weight (what sets a fitted top)."""
    rows = [m.reshape(-1, m.shape[-1]) for m in mats]
    return max((float(r[np.count_nonzero(r, axis=-1) > 1].max(initial=0.0)) for r in rows), default=0.0)


def read_view(page: str, n: int, fit: bool):
    path, extra, weight_keys, bar_keys = PAGES[page]
    params = {"text": SIZES[n], **extra, **({"fit_scale": "true"} if fit else {})}
    at = open_page(path, **params)
    assert not at.exception, at.exception
    # the Playground's grid and enlarged head are drawn in the page (mha.app.components.heatmap_view): read alike
    charts = {**charts_by_key(at), **{k: canvas_as_spec(p) for k, p in canvas_charts(at).items()}}
    missing = [k for k in weight_keys + bar_keys if k not in charts]
    assert not missing, (missing, sorted(charts))
    return at, charts, weight_keys, bar_keys


@pytest.mark.parametrize("n", VIEW_SIZES)
@pytest.mark.parametrize("page", sorted(PAGES))
@pytest.mark.parametrize("fit", [False, True])
def test_every_weights_chart_of_a_view_has_one_scale_said_in_its_colour_bar(page, n, fit):
    at, charts, weight_keys, bar_keys = read_view(page, n, fit)
    assert at.toggle(key="fit_scale").value is fit
    axes = [axis for k in weight_keys for axis in weights_axes(charts[k])]
    assert len(axes) == len(weight_keys), "every weights chart has one weights colour axis"
    tops = {top_of(axis) for axis in axes}
    assert len(tops) == 1, tops  # one rule: the same top for every weights chart of the view
    top = tops.pop()
    assert all(axis["cmin"] == 0 for axis in axes if axis["cmax"] != 255)
    said = "scale 0 … 1" if top == 1.0 else f"scale 0 … {top:.2g}<br>(not 0 … 1)"
    assert all(said in axis["colorbar"]["title"]["text"] for axis in axes)
    for key in bar_keys:  # a query's row of weights as bars: the same range on its axis
        assert charts[key]["layout"]["yaxis"]["range"][1] == pytest.approx(1.12 * top)
    for key in weight_keys + bar_keys:
        assert not nonfinite_in(charts[key]), (key, nonfinite_in(charts[key]))
    shown = [z for k in weight_keys for z in heatmaps(charts[k]) if z.max() <= 1.0 + 1e-6]  # not colour codes
    largest = chosen_max(shown) if shown else None
    if not fit and n < figures.FIT_KEYS:
        assert top == 1.0  # short rows: 0 … 1 unless the learner asks
    if top < 1.0 and largest:  # a fitted top covers every weight shown that a query chose (two digits, rounded up)
        assert largest <= top * (1 + 1e-6)
    # and ends at the view's largest weight (Compare: every head, two shown, so that picking another pair keeps the
    # scale)
    if fit and largest and page != "heads_compare":
        assert top == 1.0 and largest > 0.9 or top < largest * 1.1 + 1e-6


@pytest.mark.parametrize("page", ["explain", "masks", "lab", "bugs"])
def test_fit_to_data_brightens_a_washed_out_view(page):
    """At 8 tokens the rows are short (0 … 1 by default): "fit to data" must end the scale well below 1."""
    _, plain, keys, _ = read_view(page, 8, False)
    _, fitted, _, _ = read_view(page, 8, True)
    assert top_of(weights_axes(plain[keys[0]])[0]) == 1.0
    assert top_of(weights_axes(fitted[keys[0]])[0]) < 0.9


@pytest.mark.parametrize("page", ["explain", "masks", "lab", "bugs", "heads_compare", "heads_seeds", "heads_order"])
def test_sixteen_tokens_are_not_washed_out_by_default(page):
    """The reviewer's 16-token Compare, Word order and Seeds were near white (weights ~1/16 on 0 … 1): rows of
    FIT_KEYS keys or more whose weights all stay below FIT_BELOW get a fitted scale without asking."""
    assert 16 >= figures.FIT_KEYS
    _, plain, keys, _ = read_view(page, 16, False)
    assert top_of(weights_axes(plain[keys[0]])[0]) < 0.9


@pytest.mark.parametrize("n", (5, 43))
@pytest.mark.parametrize("fit", [False, True])
def test_bug_zoo_heads_map_has_its_own_scale(n, fit):
    """The second handout's class: its heads x heads map (rows of H = 4 weights) beside the correct (n, n) map. On one
    shared 0 … 1 scale the correct 43 x 43 map looked all white (weights ~1/43): each map gets its own top by the
    one rule, said in its colour bar; the heads map's covers every token's map, so picking a token keeps it."""
    heads_tops = []
    for token in (0, n - 1):
        at = open_page("pages/bugs.py", text=SIZES[n], bz_bug=bugs.SEED_TWO, num_heads="4", bz_token=str(token),
                       **({"fit_scale": "true"} if fit else {}))
        assert not at.exception, at.exception
        charts = charts_by_key(at)
        (heads_axis,), (ok_axis,) = weights_axes(charts["bz_seed_chart"]), weights_axes(charts["bz_ok_chart"])
        (heads_map,), (ok_map,) = heatmaps(charts["bz_seed_chart"]), heatmaps(charts["bz_ok_chart"])
        assert heads_map.shape == (4, 4) and ok_map.shape == (n, n)
        for axis, z in ((heads_axis, heads_map), (ok_axis, ok_map)):
            top = top_of(axis)
            said = "scale 0 … 1" if top == 1.0 else f"scale 0 … {top:.2g}<br>(not 0 … 1)"
            assert said in axis["colorbar"]["title"]["text"] and chosen_max([z]) <= top * (1 + 1e-6)
        ok_top = top_of(ok_axis)
        if fit or n >= figures.FIT_KEYS:  # long rows (or asked): the correct map ends near its own largest weight
            assert ok_top < 1.0 and ok_top <= chosen_max([ok_map]) * 1.1 + 1e-6
        else:
            assert ok_top == 1.0
        if not fit:  # 4 heads: rows of 4 weights, 0 … 1 unless asked, whatever the sentence's length
            assert top_of(heads_axis) == 1.0
        heads_tops.append(top_of(heads_axis))
    assert heads_tops[0] == heads_tops[1]  # another token: the heads map keeps its scale


def test_the_bars_of_a_row_reach_the_top_when_a_query_sees_one_key():
    """Under a causal mask the first query's only weight is 1: it does not set a fitted scale, and its bar is drawn
    up to the top (its number is in the hover), never past the chart."""
    at = open_page("pages/explain.py", text=SIZES[16], causal="true", fit_scale="true", ex_query="0: w0")
    assert not at.exception
    bar = charts_by_key(at)["ex_bar"]
    top = bar["layout"]["yaxis"]["range"][1] / 1.12
    heights, real = decode(bar["data"][0]["y"]), decode(bar["data"][0]["customdata"])
    assert top < 1.0 and real.max() == 1.0 and heights.max() == pytest.approx(top)


def test_korean_colour_bars_say_the_range():
    at = open_page("pages/masks.py", text=SIZES[16], lang="ko", fit_scale="true")
    assert not at.exception
    title = charts_by_key(at)["mk_weights_chart"]["layout"]["coloraxis"]["colorbar"]["title"]["text"]
    assert title.startswith("가중치<br>") and "(0 … 1 아님)" in title
    assert at.toggle(key="fit_scale").label == i18n_text("fit_scale", "ko")


def test_weights_top_takes_every_chart_of_a_view_and_skips_rows_without_a_choice():
    causal = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]  # row 0: one key, weight 1
    assert figures.weights_top(causal, fit=True) == pytest.approx(0.5)  # row 1 (two keys, 0.5 each) sets it
    heads_map = np.full((2, 3, 3), 0.2)
    heads_map[0, 0, :] = (0.1, 0.27, 0.63)
    assert figures.weights_top([causal, heads_map], fit=True) == pytest.approx(0.63)  # shapes may differ
    assert figures.weights_top(np.eye(3), fit=True) == 1.0  # no row with a choice: 0 … 1
    assert figures.weights_top([], fit=True) == 1.0
    assert figures.weights_top(np.full((2, 2), np.nan), fit=True) == 1.0


# Pages that train: a short run named by the link (trained once per server, cached), its snapshot read on the text
TRAINED = {
    "train": ("pages/train.py", {"tr_task": "previous", "tr_steps": "20", "tr_at": "0",
                                 "text": "the cat sat on the mat and the dog ran"}, ("tr_heads",)),
    "induction": ("pages/induction.py", {"ind_steps": "30", "ind_seed": "1", "ind_at": "30", "ind_ablate": "true",
                                         "text": "the cat sat on a mat . the cat sat on a mat ."},
                  ("ind_grid_l1", "ind_grid_l2", "ind_l2_head", "ind_grid_ablated")),
}


@pytest.mark.parametrize("page", sorted(TRAINED))
@pytest.mark.parametrize("fit", [False, True])
def test_trained_pages_draw_their_weights_on_one_scale(page, fit):
    path, params, keys = TRAINED[page]
    at = open_page(path, **params, **({"fit_scale": "true"} if fit else {}))
    assert not at.exception, at.exception
    charts = charts_by_key(at)
    assert all(k in charts for k in keys), sorted(charts)
    axes = [axis for k in keys for axis in weights_axes(charts[k])]
    assert len(axes) == len(keys) and len({top_of(a) for a in axes}) == 1
    top = top_of(axes[0])
    said = "scale 0 … 1" if top == 1.0 else f"scale 0 … {top:.2g}<br>(not 0 … 1)"
    assert all(said in a["colorbar"]["title"]["text"] for a in axes)
    assert all(not nonfinite_in(charts[k]) for k in keys)
    largest = chosen_max([z for k in keys for z in heatmaps(charts[k]) if z.max() <= 1.0 + 1e-6])
    assert largest <= top * (1 + 1e-6) and (fit or top == 1.0)  # short rows: 0 … 1 unless asked
    if fit and page == "train":  # step 0 is the random module: near-uniform rows, a scale well below 1
        assert top < 0.9
