"""What keeps a rerun fast (#16 item 3), as properties rather than timings: the timings are in bench/ (bench_browser.py,
profile_rerun.py) and bench/REPORT.md."""
import numpy as np
import plotly.io as pio

from mha import figures
from mha.app.compute import figure_nbytes


def _figures(T: int, H: int = 4):
    rng = np.random.default_rng(T)
    w = rng.random((H, T, T))
    w /= w.sum(-1, keepdims=True)
    labels = [f"w{i}" for i in range(T)]
    return [figures.heads_grid(w, labels, labels), figures.head_heatmap(w[0], labels, labels, head=0, selected=(0, 0)),
            figures.head_outputs_grid(rng.standard_normal((H, T, 8)), labels),
            figures.features_heatmap(rng.standard_normal((T, 32)), labels)]


def test_figure_nbytes_counts_what_a_figure_holds():
    """The figures cache's quick size estimate (no copy of the figure) stays within a small factor of the figure's
    own JSON, so the cache's byte bound still bounds something real, at a small and a large size."""
    for T in (5, 96):
        for fig in _figures(T):
            size, spec = figure_nbytes(fig), len(pio.to_json(fig, validate=False))
            assert 0.5 * spec <= size <= 8 * spec + 256_000, (T, size, spec)  # + small dicts counted at 256 B
