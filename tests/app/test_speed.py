"""What keeps a rerun fast (#16 item 3), as properties rather than timings: the timings are in bench/ (bench_browser.py,
profile_rerun.py) and bench/REPORT.md."""
import numpy as np
import plotly.io as pio
import pytest

from mha.app.compute import figure_nbytes
from mha.charts import figures


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


def _report():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import report  # bench/report.py

    return report


OLD = """# Benchmark report

Written long ago.

## Machine

old machine

## Payload

old payload

<!-- core:start -->
## The module against torch

refreshed by hand
<!-- core:end -->

## Training heads (bench/bench_train.py)

by the train helper

## Many learners at once

old load
"""
NEW = """# Benchmark report

Written now.

## Machine

new machine

## Payload

new payload

## The module against torch

generated core

## Many learners at once

new load
"""


def test_report_keeps_the_sections_it_does_not_write():
    """bench/report.py rewrites its own sections and keeps everyone else's: a heading it does not write, and a block
    between <!-- name:start/end --> markers even when it holds one of its headings, each in its place."""
    merged = _report().merge_report(OLD, NEW, not_run=set())
    assert "Written now." in merged and "Written long ago." not in merged
    assert "new machine" in merged and "new payload" in merged and "new load" in merged
    assert "old payload" not in merged and "old load" not in merged
    assert "refreshed by hand" in merged and "generated core" not in merged  # the marked block wins
    assert merged.count("## The module against torch") == 1
    assert "by the train helper" in merged
    order = [merged.index(s) for s in ("## Machine", "## Payload", "<!-- core:start -->", "## Training heads",
                                       "## Many learners")]
    assert order == sorted(order)


def test_report_keeps_a_section_whose_parts_were_not_run():
    merged = _report().merge_report(OLD, NEW, not_run={"page_payload", "builder_payload", "load"})
    assert "old payload" in merged and "new payload" not in merged
    assert "old load" in merged and "new machine" in merged
    assert _report().merge_report("", NEW, set()) == NEW


# Pages whose charts all go through compute.cached_figure (#16 item 3: a warm page switch must not rebuild figures).
CACHED_PAGES = ["pages/playground.py", "pages/heads.py", "pages/explain.py", "pages/lab.py", "pages/masks.py",
                "pages/bugs.py"]


@pytest.mark.parametrize("page", CACHED_PAGES)
def test_a_warm_visit_builds_no_figure(page):
    """Back on a page already drawn (same settings, nothing changed), every chart comes from the figures cache:
    Plotly's figure building was most of a warm page switch's server time (bench/profile_rerun.py)."""
    import plotly.graph_objects as go
    from harness.apptest import all_open, open_page

    at = open_page(page, all_open(page))  # folded sections open: their charts too
    assert not at.exception
    at.switch_page("pages/home.py")
    at.run()
    built = []
    real = go.Figure.__init__

    def counting(self, *args, **kwargs):
        built.append(1)
        real(self, *args, **kwargs)

    go.Figure.__init__ = counting
    try:
        at.switch_page(page)
        at.run()
    finally:
        go.Figure.__init__ = real
    assert not at.exception
    assert at.get("plotly_chart"), "the page drew no chart: nothing was checked"
    assert len(built) == 0, f"{page} built {len(built)} Plotly figures on a warm visit"
