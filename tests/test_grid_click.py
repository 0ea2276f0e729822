"""Clicking a head's panel in the all-heads grid (issue 16, item 2): every cell of a small grid carries an invisible
marker with the cell's hover and its head; ``clicked_head`` reads the selection event."""
from __future__ import annotations

import numpy as np
import pytest

from mha import figures


def weights(H: int, T: int, seed: int = 0) -> np.ndarray:
    w = np.random.default_rng(seed).random((H, T, T))
    return w / w.sum(-1, keepdims=True)


def labels(n: int) -> list[str]:
    return [f"t{i}" for i in range(n)]


def traces(fig, kind):
    return [tr for tr in fig.data if tr.type == kind]


@pytest.mark.parametrize("H, T", [(1, 3), (4, 5), (16, 16)])
def test_every_cell_of_every_panel_carries_its_head(H, T):
    w = weights(H, T)
    fig = figures.heads_grid(w, labels(T), labels(T), clickable=True)
    maps, layers = traces(fig, "heatmap"), traces(fig, "scatter")
    assert len(layers) == len(maps) == H
    for h, (hm, layer) in enumerate(zip(maps, layers)):
        assert (layer.xaxis, layer.yaxis) == (hm.xaxis, hm.yaxis)  # on its own panel
        assert set(np.asarray(layer.customdata).ravel().tolist()) == {h}
        assert set(zip(layer.y, layer.x)) == {(q, k) for q in hm.y for k in hm.x}  # every cell
        shown = np.array([float(v) for v in layer.text]).reshape(T, T)  # the hover says the cell's weight
        np.testing.assert_allclose(shown, w[h], atol=5e-5)
    assert fig.layout.clickmode == "event+select" and fig.layout.dragmode is False
    for i in range(H):  # the markers do not pad the panels: each axis spans exactly its cells
        sfx = "" if i == 0 else str(i + 1)
        assert tuple(fig.layout[f"xaxis{sfx}"].range) == (-0.5, T - 0.5)
        assert tuple(fig.layout[f"yaxis{sfx}"].range) == (T - 0.5, -0.5)


def test_heads_subset_carries_the_real_head_numbers():
    w = weights(5, 4)
    fig = figures.heads_grid(w[[1, 3]], labels(4), labels(4), heads=[1, 3], clickable=True)
    assert [set(np.asarray(tr.customdata).ravel().tolist()) for tr in traces(fig, "scatter")] == [{1}, {3}]


def test_large_grids_and_plain_grids_have_no_markers():
    big = (16, 17, 17)
    assert not figures.grid_clickable(big) and figures.grid_clickable((16, 16, 16))
    assert traces(figures.heads_grid(weights(16, 17), labels(17), labels(17), clickable=True), "scatter") == []
    plain = figures.heads_grid(weights(4, 5), labels(5), labels(5))
    assert traces(plain, "scatter") == [] and plain.layout.clickmode is None


@pytest.mark.parametrize("event, head", [
    ({"selection": {"points": [{"customdata": [3]}]}}, 3),
    ({"selection": {"points": [{"customdata": {"0": 2}}]}}, 2),  # a typed-array row, as the browser sends it
    ({"selection": {"points": [{"customdata": 5}]}}, 5),
    ({"selection": {"points": []}}, None),
    ({"selection": {"points": [{"x": "t0"}]}}, None),
    ({"selection": {"points": [{"customdata": ["x"]}]}}, None),
    ({"selection": {"points": [{"customdata": [-1]}]}}, None),
    (None, None), ("garbage", None),
])
def test_clicked_head(event, head):
    assert figures.clicked_head(event) == head
