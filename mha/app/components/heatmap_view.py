"""Attention heatmaps on a canvas in the page: the Playground's all-heads grid and enlarged head (#16.3).

The numbers are packed once (``mha.charts.heatmap_data.prepare``) and drawn by the page: one pixel per cell put into a
small picture per head and scaled up without smoothing, token labels, panel titles and the colour bar drawn with
the page's font, in the page's text colour. Pointing at a cell shows its head, query, key (with a pretrained
token's raw piece) and number in a tooltip, answered in the page; a click (or Enter on the keyboard: Tab to the
chart, arrow keys to move) selects the panel's head (``pick="head"``; a click on its title or key names too) or the
cell (``pick="cell"``) and tells the server, which reruns as a Plotly click did. The tooltip sits beside the cell,
never over it; the pointer is a hand only where a click answers.

In the page the chart says what it shows in data attributes of its root (``.hm``), for tests and benchmarks:
``data-ready`` (the payload's ``sig`` once drawn), ``data-hover`` ("panel,query,key" or ""), ``data-selected``
("query,key" or ""), ``data-marked`` (the grid's outlined head, the one enlarged, or ""), ``data-cell`` ("width x
height" of a cell, px); ``root.__hm`` has ``box(panel, q, k)`` (a cell's rectangle in the viewport), ``labels``
(every label drawn: axis, panel, index, text, font px, angle) and ``values()`` (the exact numbers it holds, or null).

Layout "features" (``heatmap_data.features``: Step by step's x, Q/K/V, head output, concat, output) is one panel
with tokens down the side and a few feature numbers (labels "xtick") and the columns' name ("xtitle") under it;
column bands (a head's block of concat) are outlined in their colour, their labels ("band") above.

Every token is user text: drawn with ``fillText`` or set with ``textContent``, never as markup.
"""
from __future__ import annotations

from typing import Callable, Optional

import streamlit as st

from mha.app.components.component import in_page
from mha.charts import heatmap_data

_HTML = '<div class="hm"></div>'


def _component() -> Callable:
    return in_page("mha_heatmaps", _HTML, __file__)  # heatmap_view.js and heatmap_view.css beside this module


def heatmaps(payload: dict, *, key: str, on_pick: Optional[Callable[[], None]] = None) -> None:
    """Draw a ``heatmap_data.prepare`` payload; ``on_pick`` runs (as a widget callback) when the learner clicks
    a cell of a payload with ``pick``: read the choice with ``picked(key)``."""
    if payload.get("pick") and on_pick is not None:
        _component()(data=payload, key=key, on_pick_change=on_pick)
    else:
        _component()(data=payload, key=key)


def picked(key: str) -> dict:
    """The learner's last click on the heatmaps ``key``: {"head": h} or {"query": i, "key": j} (whole numbers), or
    {} when there is none or it is not understood."""
    try:
        value = st.session_state[key]["pick"]
    except (KeyError, TypeError, AttributeError):
        return {}
    return heatmap_data.read_pick(value)
