"""Figure builders in mha/figures.py: what reaches the browser for small and large all-heads grids."""
import numpy as np
import pytest

from apptest_utils import all_numbers_finite, decode
from mha import figures


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
    lo, hi = (0.0, 1.0) if kind == "weights" else (-np.abs(mats).max(), np.abs(mats).max())
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
