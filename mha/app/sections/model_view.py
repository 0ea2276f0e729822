"""The model view (#26.1): every layer x head of a model as thumbnails on one canvas, drawn in the page by the
canvas heatmaps (``mha.app.components.heatmap_view``, layout "model"; the payload from
``mha.charts.heatmap_data.model_view``).

Every layer's weights travel once, within ``heatmap_data.MODEL_VIEW_BYTES`` (a caption says what was left out). A
click on a thumbnail (or Enter on it) calls the page's ``on_open(layer, head)``, checked first (``read_pick``): the
page opens that layer and head below, from numbers it already has (a pretrained model ran through every layer once
for this view: ``mha.app.compute.pretrained_layers``).
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np
import streamlit as st

from mha.app.components.heatmap_view import heatmaps
from mha.app.widgets import t
from mha.charts import heatmap_data


def _on_pick(key: str, panels: dict, on_open: Callable[[int, int], None]) -> None:
    """The click on thumbnail ``panels`` (the drawn payload's panels) as (layer, head), checked, to ``on_open``."""
    try:
        value = st.session_state[key]["pick"]
    except (KeyError, TypeError, AttributeError):
        return
    got = heatmap_data.read_pick(value, panels)
    if "layer" in got:
        on_open(got["layer"], got["head"])


def model_view(weights: np.ndarray, labels: Sequence[str], key_labels: Sequence[str], *, key: str, words,
               top: float, allowed=None, marked: tuple[int, int] | None = None, first_layer: int = 0,
               on_open: Callable[[int, int], None] | None = None) -> dict:
    """Draw ``weights`` (L, H, Tq, Tk) as the model view under its title and help; ``top``: the page's weights colour
    rule (``widgets.weights_scale``'s top, or ``figures.weights_top`` over every layer with its ``fit``). Returns
    the payload drawn (for tests)."""
    L, H = weights.shape[:2]
    st.subheader(t("mv_title"))
    st.caption(t("mv_help", layers=L, heads=H))
    payload = heatmap_data.model_view(weights, labels, key_labels, top=top, allowed=allowed, words=words,
                                      marked=marked, first_layer=first_layer,
                                      pick="panel" if on_open is not None else None)
    panels = {k: payload[k] for k in ("H", "cols", "heads", "layers")}
    callback = functools.partial(_on_pick, key, panels, on_open) if on_open is not None else None
    heatmaps(payload, key=key, on_pick=callback)
    dropped = payload["dropped"]
    if dropped["layers"]:
        st.caption(t("mv_dropped_layers", first=dropped["layers"][0], last=dropped["layers"][-1],
                     mb=heatmap_data.MODEL_VIEW_BYTES // 2 ** 20))
    if dropped["values"]:
        st.caption(t("mv_dropped_values", cells=int(np.prod(weights.shape))))
    return payload
