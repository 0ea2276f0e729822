"""Figure builders in mha/charts/figures.py: what reaches the browser for small and large all-heads grids."""
import numpy as np
import pytest
from harness.apptest import all_numbers_finite, decode

from mha.charts import figures


def _z(trace) -> np.ndarray:
    """A trace's z as numpy: to_plotly_json() gives numpy arrays as base64 {"dtype", "bdata", "shape"}."""
    z = trace["z"]
    return decode(z).reshape(-1) if isinstance(z, dict) else np.asarray(z).reshape(-1)


def _grid(H, T, kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "weights":
        m = rng.random((H, T, T))
        return m / m.sum(-1, keepdims=True)
    return rng.normal(scale=3.0, size=(H, T, T))


def test_small_grid_sends_the_exact_numbers_with_hover():
    mats = _grid(4, 8, "weights")
    fig = figures.heads_grid(mats, list("abcdefgh"), list("abcdefgh"))
    spec = fig.to_plotly_json()
    z = [_z(tr).reshape(8, 8) for tr in spec["data"] if tr["type"] == "heatmap"]
    assert all(tr["z"]["dtype"] == "f4" for tr in spec["data"])
    np.testing.assert_allclose(np.stack(z), mats.astype(np.float32))
    assert all("%{z:.4f}" in tr["hovertemplate"] for tr in spec["data"])


@pytest.mark.parametrize("kind", ["weights", "scores"])
def test_large_grid_sends_8bit_codes_that_decode_to_the_numbers(kind):
    H, T = 16, 128
    mats = _grid(H, T, kind)
    assert mats.size > figures.GRID_CODED_CELLS
    labels = [f"t{i}" for i in range(T)]
    fig = figures.heads_grid(mats, labels, labels, kind=kind)
    spec = fig.to_plotly_json()
    traces = [tr for tr in spec["data"] if tr["type"] == "heatmap"]
    assert len(traces) == H and all(tr["z"]["dtype"] == "u1" for tr in traces)
    axis = spec["layout"]["coloraxis"]
    assert (axis["cmin"], axis["cmax"]) == (0, 255)
    # the colour-bar ticks sit at the codes of the values they name
    lo, hi = (0.0, figures.weights_top(mats)) if kind == "weights" else (-np.abs(mats).max(), np.abs(mats).max())
    for code, text in zip(axis["colorbar"]["tickvals"], axis["colorbar"]["ticktext"]):
        assert float(text) == pytest.approx(lo + code / 255 * (hi - lo), rel=0.05, abs=0.01)
    decoded = lo + np.stack([_z(tr).astype(float).reshape(T, T) for tr in traces]) / 255 * (hi - lo)
    assert np.abs(decoded - mats).max() <= (hi - lo) / 255 / 2 + 1e-9
    # no number in the hover (it would be a colour code): it points to the enlarged head instead
    assert all("%{z" not in tr["hovertemplate"] and figures.ENGLISH.exact_below in tr["hovertemplate"]
               for tr in traces)


def test_large_grid_is_four_times_smaller_in_json():
    H, T = 16, 128
    mats = _grid(H, T, "weights")
    labels = [f"t{i}" for i in range(T)]
    coded = len(figures.heads_grid(mats, labels, labels).to_json())
    exact = len(figures.head_outputs_grid(mats, labels).to_json())  # same arrays as float32
    assert coded < exact / 3


def test_masked_cells_get_a_grey_overlay_and_no_nan():
    mats = _grid(2, 5, "weights")
    allowed = np.tril(np.ones((5, 5), dtype=bool))[None].repeat(2, 0)
    mats = np.where(allowed, mats, 0.0)
    spec = figures.heads_grid(mats, list("abcde"), list("abcde"), allowed=allowed).to_plotly_json()
    overlays = [_z(tr).reshape(5, 5) for tr in spec["data"] if tr.get("name") == "masked"]
    assert len(overlays) == 2 and np.array_equal(overlays[0], (~allowed[0]).astype(np.int8))
    assert all_numbers_finite(spec)


@pytest.mark.parametrize("rows, cols, h_space, v_space", [(1, 4, 0.06, 0.08), (2, 4, 0.04, 0.08), (4, 4, 0.04, 0.04),
                                                          (3, 3, 0.05, 0.1 / 1.5), (5, 1, 0.05, 0.04)])
def test_subplot_grid_lays_out_subplots_as_make_subplots_does(rows, cols, h_space, v_space):
    from plotly.subplots import make_subplots
    titles = [f"head {i}" for i in range(rows * cols - 1)]  # the last cell of the grid has no head
    want = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=h_space,
                         vertical_spacing=v_space).layout.to_plotly_json()
    want.pop("template")  # the default theme: go.Figure adds it to every figure
    got = figures._subplot_grid(rows, cols, h_space, v_space, titles, {}, {"autorange": "reversed"})
    assert sorted(got) == sorted(want)  # every axis of every cell (also the empty one), and the titles
    for name, axis in want.items():
        if name == "annotations":
            continue
        assert got[name]["anchor"] == axis["anchor"]
        assert got[name]["domain"] == pytest.approx(list(axis["domain"]), abs=1e-12)
        assert got[name].get("autorange") == ("reversed" if name.startswith("yaxis") else None)
    assert [a["text"] for a in got["annotations"]] == titles
    for a, b in zip(got["annotations"], want["annotations"]):
        assert (a["x"], a["y"]) == pytest.approx((b["x"], b["y"]), abs=1e-12)
        assert (a["xanchor"], a["yanchor"], a["xref"], a["yref"]) == (b["xanchor"], b["yanchor"], b["xref"], b["yref"])


@pytest.mark.parametrize("H", [1, 4, 6, 16])
def test_each_head_of_a_grid_is_drawn_in_its_own_titled_cell(H):
    T = 5
    mats = _grid(H, T, "weights")
    allowed = np.tril(np.ones((H, T, T), dtype=bool))
    fig = figures.heads_grid(mats, list("abcde"), list("abcde"), allowed=allowed).to_plotly_json()
    layout = fig["layout"]
    heat = [t for t in fig["data"] if t.get("name") != "masked"]
    masked = [t for t in fig["data"] if t.get("name") == "masked"]
    assert len(heat) == len(masked) == H
    for h, (t, m) in enumerate(zip(heat, masked)):
        assert (t["xaxis"], t["yaxis"]) == (m["xaxis"], m["yaxis"])  # the grey cover sits on its head
        xa, ya = layout["xaxis" + t["xaxis"][1:]], layout["yaxis" + t["yaxis"][1:]]
        assert (xa["anchor"], ya["anchor"]) == (t["yaxis"], t["xaxis"])
        assert ya["autorange"] == "reversed" and xa["type"] == ya["type"] == "category"
        title = layout["annotations"][h]
        assert title["text"] == f"head {h}"
        assert xa["domain"][0] < title["x"] < xa["domain"][1] and title["y"] == ya["domain"][1]
        assert np.allclose(_z(t), mats[h].reshape(-1), atol=1e-6)
    domains = {(tuple(layout["xaxis" + t["xaxis"][1:]]["domain"]), tuple(layout["yaxis" + t["yaxis"][1:]]["domain"]))
               for t in heat}
    assert len(domains) == H  # no two heads drawn on top of each other


# --- layout: no two texts on top of each other ------------------------------------------------------------------


def _panel_boxes(layout: dict, width_px: float = 700.0):
    """Paper-coordinate boxes of the figure's titles (annotations) and of each panel's tick-label bands, in px."""
    m = layout["margin"]
    pw, ph = width_px - m["l"] - m["r"] - 80, layout["height"] - m["t"] - m["b"]  # ~80 px: the colour bar
    return pw, ph


def _title_boxes(layout: dict, width_px: float = 700.0, font_px: float = 16.0):
    pw, ph = _panel_boxes(layout, width_px)
    boxes = []
    for a in layout["annotations"]:
        w = figures._text_px(a["text"], a.get("font", {}).get("size", font_px))
        x, y = a["x"] * pw, a["y"] * ph
        boxes.append((x - w / 2, y, x + w / 2, y + font_px + 4))
    return boxes


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("builder", ["heads_grid", "head_outputs_grid"])
@pytest.mark.parametrize("H, T", [(1, 3), (4, 5), (16, 5), (16, 3), (8, 20), (16, 128)])
@pytest.mark.parametrize("label", ["favorite", "가나다라마바사아자차"])
def test_grid_titles_and_row_labels_do_not_overlap(builder, H, T, label):
    labels = [label] * T
    mats = _grid(H, T, "weights")
    fig = (figures.heads_grid(mats, labels, labels) if builder == "heads_grid"
           else figures.head_outputs_grid(mats, labels, words=figures.Words(head="헤드")))
    layout = fig.to_plotly_json()["layout"]
    cols = min(4, H)
    # token labels only left of the first column: elsewhere they would run into the panel on the left
    for i in range(H):
        ya = layout["yaxis" + ("" if i == 0 else str(i + 1))]
        assert ya.get("showticklabels", True) == (i % cols == 0 and T <= figures.LABELS_MAX_TOKENS)
    # two titles never overlap, and between a panel's bottom and the title of the panel below is room for the
    # upper panel's tick labels (numbers: ~20 px; slanted key labels: their drop at -45°)
    boxes = _title_boxes(layout)
    assert not any(_overlap(a, b) for n, a in enumerate(boxes) for b in boxes[n + 1:])
    _, ph = _panel_boxes(layout)
    xa = layout["xaxis"]
    tick_px = 20.0 if builder == "head_outputs_grid" else (
        figures.label_band_px(labels, xa["tickangle"], xa["tickfont"]["size"]) if xa.get("showticklabels") else 0)
    for i in range(H - cols):
        below = layout["annotations"][i + cols]
        upper_bottom = layout["yaxis" + ("" if i == 0 else str(i + 1))]["domain"][0] * ph
        assert upper_bottom - tick_px >= below["y"] * ph + 16 + 2, (i, upper_bottom, below["y"] * ph)


def test_weights_scale_fits_long_rows_and_stays_0_to_1_for_short_ones():
    short = _grid(4, 5, "weights")
    fig = figures.heads_grid(short, list("abcde"), list("abcde")).to_plotly_json()["layout"]["coloraxis"]
    assert (fig["cmin"], fig["cmax"]) == (0.0, 1.0) and fig["colorbar"]["title"]["text"].startswith("weights<br>")
    assert "scale 0 … 1" in fig["colorbar"]["title"]["text"]
    T = 100
    long = _grid(4, T, "weights")  # rows of 100 keys: every weight ~1/100
    labels = [f"t{i}" for i in range(T)]
    axis = figures.heads_grid(long, labels, labels).to_plotly_json()["layout"]["coloraxis"]
    top = figures.weights_top(long)
    assert long.max() <= top < 0.1  # covers every weight, far below 1
    assert (axis["cmin"], axis["cmax"]) == (0.0, top)
    assert "not 0 … 1" in axis["colorbar"]["title"]["text"]
    one = figures.head_heatmap(long[0], labels, labels).to_plotly_json()["layout"]["coloraxis"]
    assert long[0].max() <= one["cmax"] < 0.1 and "not 0 … 1" in one["colorbar"]["title"]["text"]
    sharp = long.copy()
    sharp[0, 0] = 0.0
    sharp[0, 0, :2] = 0.9, 0.1  # one sharp weight (in a row with a choice): the fixed 0..1 scale again
    assert figures.weights_top(sharp) == 1.0


@pytest.mark.parametrize("H", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("words", [figures.ENGLISH, figures.Words(head="헤드", head_short="{n}번")])
def test_head_labels_side_by_side_do_not_run_together(H, words):
    """Steps 3 and 9: one coloured label per head over a ~380 px wide chart; labels on the same line (the same
    yshift) must not overlap."""
    from mha.charts import explain as xf
    T, hd = 3, 4
    mat = np.random.default_rng(0).normal(size=(T, H * hd))
    split = xf.split_heads_figure(mat, mat.reshape(T, H, hd).transpose(1, 0, 2), ["a", "b", "c"], words=words)
    banded = xf.banded_features(mat, ["a", "b", "c"], H, words=words)
    width = 380.0
    split_anns = [(a.x * width, a.yshift or 0, a.text) for a in split.layout.annotations[1:]]
    banded_anns = [((a.x + 0.5) / (H * hd) * width, a.yshift, a.text) for a in banded.layout.annotations]
    assert len(split_anns) == H and len(banded_anns) == (H if H > 1 else 0)
    for anns in (split_anns, banded_anns):
        boxes = [(x - figures._text_px(t, 11) / 2, s, x + figures._text_px(t, 11) / 2, s + 12) for x, s, t in anns]
        assert not any(_overlap(a, b) for n, a in enumerate(boxes) for b in boxes[n + 1:]), boxes
