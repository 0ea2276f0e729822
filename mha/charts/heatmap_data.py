"""Attention heatmaps drawn in the browser: numbers checked and packed. Pure: numpy and plotly's colour scales.

The Playground's all-heads grid and enlarged head are drawn on a canvas in the page
(``mha.app.components.heatmap_view``), not
by Plotly: Plotly draws every axis, tick and hover layer of every panel as SVG, ~300 ms for the default 4-head grid
in Chromium where the whole change of a one-heatmap app takes ~200 ms (#16.3). The canvas draws the same cells, the
same colours (Plotly's own colour scales, sampled here) and the same token labels in a few milliseconds; hover and
click are answered in the page.

``prepare`` checks the matrices against the labels (the message says how to fix) and packs them:

- ``codes``: every cell as one byte, its colour on the chart's scale (``lo`` .. ``hi`` in 255 steps), base64;
- ``values``: the exact numbers as float32, base64, for the hover, up to ``EXACT_MAX_CELLS`` cells (beyond, cells
  are a few pixels wide and the hover says where the exact number is: the enlarged head);
- ``blocked``: one byte per cell, 1 where a mask blocks the cell (drawn grey), when any is blocked.

Labels travel as plain text: the browser sets them with ``textContent`` and ``fillText``, never as markup.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
from typing import Sequence

import numpy as np
from plotly.colors import get_colorscale, sample_colorscale

from mha.charts.figures import (
    DIVERGING_SCALE,
    ENGLISH,
    GRID_CODED_CELLS,
    WEIGHTS_SCALE,
    Words,
    symmetric_range,
    weights_top,
)

EXACT_MAX_CELLS = GRID_CODED_CELLS  # the same limit as Plotly's grid: 16 heads x 64 x 64 tokens (1 MB of float32)
LEVELS = 256  # colour codes 0..255
KINDS = ("weights", "scores")
PICKS = (None, "head", "cell", "panel")
LAYOUTS = ("grid", "single", "model", "features")


@functools.lru_cache(maxsize=None)
def colour_table(kind: str) -> str:
    """The chart's colour scale as LEVELS colours, "#rrggbb" each, concatenated: code c is colour c. Sampled from
    Plotly's own scale (Blues for weights, RdBu reversed for scores), so the canvas shows the colours Plotly would."""
    scale = get_colorscale(WEIGHTS_SCALE if kind == "weights" else DIVERGING_SCALE)
    out = []
    for colour in sample_colorscale(scale, list(np.linspace(0.0, 1.0, LEVELS)), colortype="tuple"):
        r, g, b = (min(255, max(0, round(float(v) * 255))) for v in colour[:3])
        out.append(f"{r:02x}{g:02x}{b:02x}")
    return "".join(out)


def nice_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Round tick values between lo and hi, as a colour bar shows them: the finest step of 1, 2, 2.5 or 5 x 10^k
    that gives at most ``most`` ticks (at least one; [lo, hi] when no round value lies between them)."""
    span = hi - lo
    if not (math.isfinite(span) and span > 0):
        return [lo]
    power = 10.0 ** math.floor(math.log10(span / max(1, most)))
    for k in range(4):
        for m in (1, 2, 2.5, 5):
            step = m * power * 10 ** k
            first = math.ceil(lo / step - 1e-9)
            count = math.floor(hi / step + 1e-9) - first + 1
            if count <= most:
                digits = max(0, 3 - math.floor(math.log10(step)))  # i * step without float noise (0.30000000000000004)
                return [round(i * step, digits) + 0.0 for i in range(first, first + count)] or [lo, hi]
    return [lo, hi]


def _b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def check(mats, q_labels: Sequence[str], k_labels: Sequence[str], allowed=None) -> np.ndarray:
    """The matrices as float64 (H, Tq, Tk) after checking them against the labels and the mask; ValueError says
    how to fix."""
    m = np.asarray(mats, dtype=np.float64)
    if m.ndim == 2:
        raise ValueError(f"matrices have shape {m.shape}: pass (heads, queries, keys), for one head m[None]")
    if m.ndim != 3 or 0 in m.shape:
        raise ValueError(f"matrices must have 3 non-empty axes (heads, queries, keys), but have shape {m.shape}")
    H, Tq, Tk = m.shape
    for name, labels, n in (("query", q_labels, Tq), ("key", k_labels, Tk)):
        if isinstance(labels, str) or len(labels) != n:
            got = "one string" if isinstance(labels, str) else f"{len(labels)} {name} labels"
            raise ValueError(f"the matrices have {n} {name} positions, but there are {got}: pass one label "
                             f"per {name} position")
    if not np.isfinite(m).all():
        h, q, k = np.argwhere(~np.isfinite(m))[0]
        raise ValueError(f"head {h}, query {q}, key {k} is {m[h, q, k]}: only finite numbers can be drawn (show "
                         "masked scores as blocked cells, not as -inf)")
    if allowed is not None and np.shape(allowed) != m.shape:
        raise ValueError(f"the mask has shape {np.shape(allowed)}, the matrices {m.shape}: one mask entry per cell")
    return m


def prepare(mats, q_labels: Sequence[str], k_labels: Sequence[str], *, kind: str = "weights",
            top: float | None = None, allowed=None, heads: Sequence[int] | None = None, words: Words = ENGLISH,
            pick: str | None = None, selected: tuple[int, int] | None = None, layout: str = "grid",
            scale_range: float | None = None, marked: int | None = None, group: str | None = None,
            layers: Sequence[int] | None = None, cols: int | None = None,
            exact_max_cells: int = EXACT_MAX_CELLS, name: str | None = None, extra: dict | None = None) -> dict:
    """The JSON-able payload of one canvas of heatmaps: ``mats`` (H, Tq, Tk), one panel per head (``heads``: the
    head numbers the panels show, default 0..H-1). ``kind`` "weights" (colour scale 0 .. ``top``, default
    ``figures.weights_top``) or "scores" (centred on 0, ± ``scale_range``, default the largest |score|).
    ``allowed``: the mask (True = may attend), blocked cells drawn grey. ``layout`` "grid" (small multiples, four
    a row) or "single" (one large head, square cells, keys on top). ``pick``: what a click selects, "head" (the
    panel's head) or "cell" (query, key); ``selected``: the cell outlined; ``marked``: the head whose panel is
    outlined (the one enlarged). ``group``: charts of one page that go together: a "single" chart tells the page
    which head it shows, and a "grid" of the same group outlines that head's panel at once (the enlarged head is
    redrawn alone when another head is picked; the grid is not).

    ``layout="model"`` (the model view, every layer x head): one small square thumbnail per panel, ``cols`` panels a
    row (a layer's heads), no token names (they are in the hover); ``layers`` and ``heads`` give each panel's layer
    and head, its title is ``words.panel_title``; ``pick="panel"`` sends the panel back (``read_pick`` -> layer,
    head); ``marked`` is a panel index. ``exact_max_cells``: the exact numbers travel up to this many cells.

    ``name``: the word for the numbers in the colour bar's title and the hover (default ``words.kind(kind)``: QKᵀ
    is drawn as scores are, under its own name). ``layout="features"`` is ``features``'s; ``extra``: more fields
    of the picture (part of its ``sig``)."""
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}: choose one of {KINDS}")
    if pick not in PICKS:
        raise ValueError(f"pick={pick!r}: choose one of {PICKS}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r}: choose 'grid', 'single' or 'model' (a (tokens, features) map: "
                         "heatmap_data.features)")
    m = check(mats, q_labels, k_labels, allowed)
    H, Tq, Tk = m.shape
    heads = list(range(H)) if heads is None else [int(h) for h in heads]
    if len(heads) != H:
        raise ValueError(f"{len(heads)} head numbers for {H} panels: give one number per head")
    model = layout == "model"
    if model:
        if layers is None or len(layers) != H:
            got = "none" if layers is None else len(layers)
            raise ValueError(f"layout='model' needs one layer number per panel: {H} panels, {got} given (layers=)")
        cols = int(cols) if cols is not None else H
        if not 0 < cols <= H:
            raise ValueError(f"cols={cols!r}: a row of the model view holds 1 to {H} panels (a layer's heads)")
        if pick not in (None, "panel"):
            raise ValueError(f"pick={pick!r}: a model view picks a panel (pick='panel') or nothing")
    elif pick == "panel":
        raise ValueError("pick='panel' is the model view's: use layout='model' (or pick='head' in a grid)")
    if kind == "weights":
        top = float(top) if top is not None else weights_top(m)
        if not (0 < top <= 1):
            raise ValueError(f"top={top!r}: the top of a weights colour scale must be in (0, 1]")
        lo, hi = 0.0, top
        sub = words.full_scale if top >= 1.0 else words.fitted_scale.format(top=f"{top:.2g}")
    else:
        half = float(scale_range) if scale_range is not None else symmetric_range(m)
        if not (math.isfinite(half) and half > 0):
            raise ValueError(f"scale_range={scale_range!r}: the half-width of a scores scale must be > 0")
        lo, hi, sub = -half, half, ""
    codes = np.rint((np.clip(m, lo, hi) - lo) / (hi - lo) * (LEVELS - 1)).astype(np.uint8)
    blocked = None
    if allowed is not None and not np.asarray(allowed, dtype=bool).all():
        blocked = _b64((~np.asarray(allowed, dtype=bool)).astype(np.uint8))
    q_text, k_text = [str(s) for s in q_labels], [str(s) for s in k_labels]
    payload = {
        "H": H, "Tq": Tq, "Tk": Tk, "heads": heads, "layout": layout, "kind": kind,
        "q": q_text, "k": k_text,
        # a pretrained token's raw piece ("Ġthe" behind "the", mha.core.tokens.PieceLabel) for the hover, else ""
        "q_raw": [str(getattr(s, "raw", "") or "") for s in q_labels],
        "k_raw": [str(getattr(s, "raw", "") or "") for s in k_labels],
        "lo": lo, "hi": hi, "lut": colour_table(kind), "codes": _b64(codes),
        "values": _b64(m.astype(np.float32)) if m.size <= exact_max_cells else None,
        "blocked": blocked,
        "bar": {"title": [words.kind(kind) if name is None else name, *[s for s in sub.split("<br>") if s]],
                "ticks": [[(v - lo) / (hi - lo), f"{v:.3g}".replace("-", "\u2212")] for v in nice_ticks(lo, hi)]},
        "words": {"head": words.head, "query": words.query, "key": words.key,
                  "value": words.kind(kind) if name is None else name,
                  "exact_below": words.exact_below,
                  # the note when keys go unnamed: the grid names them under each panel, the one map on top
                  "keys_on_hover": words.tokens_on_hover if layout == "single" else words.keys_on_hover,
                  "query_axis": words.query_axis, "key_axis": words.key_axis, "masked": words.masked,
                  "download_png": words.download_png, "panel_hover": words.panel_hover,
                  "model_exact": words.model_exact},
        "pick": pick,
        **(extra or {}),
    }
    # The browser redraws the cells only when the picture changed; a new selected cell moves only its outline.
    payload["sig"] = hashlib.sha1(json.dumps({k: v for k, v in payload.items() if k != "pick"}, sort_keys=True,
                                             separators=(",", ":")).encode()).hexdigest()[:16]
    if model:
        layers = [int(v) for v in layers]
        payload.update(layers=layers, cols=cols,
                       titles=[words.panel_title.format(layer=v, head=h) for v, h in zip(layers, heads, strict=True)])
        payload["sig"] = hashlib.sha1((payload["sig"] + json.dumps(payload["titles"])).encode()).hexdigest()[:16]
        payload["marked"] = int(marked) if marked is not None and 0 <= int(marked) < H else None
    else:
        payload["marked"] = int(marked) if marked is not None and int(marked) in heads else None
    payload["group"] = str(group) if group else None
    payload["selected"] = ([int(selected[0]), int(selected[1])]
                           if selected is not None and 0 <= selected[0] < Tq and 0 <= selected[1] < Tk else None)
    return payload


def unpack(payload: dict) -> dict[str, np.ndarray | None]:
    """What the browser decodes: ``codes`` (H, Tq, Tk) uint8, ``values`` float32 or None, ``blocked`` bool or
    None (for tests and tools)."""
    shape = (payload["H"], payload["Tq"], payload["Tk"])

    def arr(name, dtype):
        text = payload.get(name)
        return None if text is None else np.frombuffer(base64.b64decode(text), dtype=dtype).reshape(shape)

    blocked = arr("blocked", np.uint8)
    return {"codes": arr("codes", np.uint8), "values": arr("values", np.float32),
            "blocked": None if blocked is None else blocked.astype(bool)}


def read_pick(value, payload: dict | None = None) -> dict:
    """A click sent back by the page, checked: {"head": h}, {"query": i, "key": j} or a model view's
    {"panel": p} with whole, non-negative numbers (and within ``payload``'s heads / cells / panels when given; a
    panel then comes back with its "layer" and "head"), else {}. The page is ours, but the value crosses the
    network: nothing else gets through."""
    if not isinstance(value, dict):
        return {}
    try:
        if set(value) == {"head"}:
            out = {"head": _whole(value["head"])}
            ok = payload is None or out["head"] in payload["heads"]
        elif set(value) == {"query", "key"}:
            out = {"query": _whole(value["query"]), "key": _whole(value["key"])}
            ok = payload is None or (out["query"] < payload["Tq"] and out["key"] < payload["Tk"])
        elif set(value) == {"panel"}:
            out = {"panel": _whole(value["panel"])}
            ok = payload is None or (out["panel"] < payload["H"] and "layers" in payload)
            if ok and payload is not None:
                # the layer's index (0-based: the panel's row), whatever number its title shows
                out.update(layer=out["panel"] // payload["cols"], head=payload["heads"][out["panel"]])
        else:
            return {}
    except (TypeError, ValueError, OverflowError):
        return {}
    return out if ok else {}


def _whole(v) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v) or v < 0:
        raise ValueError(f"{v!r} is not a whole number >= 0")
    return int(v)


# The model view's byte cap: what its payload may carry of codes and exact numbers (base64 adds a third). 12 layers x
# 12 heads x 128 tokens of codes alone are 2.4 MB; the cap keeps a page's message well under Streamlit's limit.
MODEL_VIEW_BYTES = 3 * 2 ** 20


def model_view(weights, q_labels: Sequence[str], k_labels: Sequence[str], *, top: float | None = None,
               allowed=None, words: Words = ENGLISH, marked: tuple[int, int] | None = None,
               max_bytes: int = MODEL_VIEW_BYTES, pick: str | None = "panel", first_layer: int = 0) -> dict:
    """The model view's payload: ``weights`` (L, H, Tq, Tk), every layer's attention weights, as one canvas of
    L x H thumbnails (``prepare(layout="model")``) on one colour rule (``top``: default ``weights_top`` over every
    layer). ``allowed`` (L or 1, H or 1, Tq, Tk) or None. ``marked`` = (layer, head) shown in detail below
    (layer 0-based). ``first_layer``: the number the page gives its first layer (0 on the Playground, whose layer
    control counts from 0; 1 on the Induction page).

    Within ``max_bytes``: one byte per cell (its colour) and four for its exact number while they fit; else the
    numbers are dropped (the hover gives the colour's value, "≈"), then the last layers (codes of fewer layers).
    ``payload["dropped"]`` says what: {"values": bool, "layers": [layer numbers left out]}."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 4 or 0 in w.shape:
        raise ValueError(f"weights have shape {w.shape}: pass (layers, heads, queries, keys)")
    L, H, Tq, Tk = w.shape
    cells = H * Tq * Tk  # one layer
    keep = max(1, min(L, max_bytes // cells))  # layers whose codes fit (at least one)
    exact = keep == L and L * cells * 5 <= max_bytes
    if top is None:
        top = weights_top(w[:keep].reshape(keep * H, Tq, Tk))
    mask = None
    if allowed is not None:
        mask = np.broadcast_to(np.asarray(allowed, dtype=bool), w.shape)[:keep].reshape(keep * H, Tq, Tk)
    mp = None
    if marked is not None and 0 <= marked[0] < keep and 0 <= marked[1] < H:
        mp = int(marked[0]) * H + int(marked[1])
    payload = prepare(w[:keep].reshape(keep * H, Tq, Tk), q_labels, k_labels, kind="weights", top=top,
                      allowed=mask, heads=[h for _ in range(keep) for h in range(H)], words=words, pick=pick,
                      layout="model", layers=[v + first_layer for v in range(keep) for _ in range(H)], cols=H,
                      exact_max_cells=keep * cells if exact else 0, marked=mp)
    payload["dropped"] = {"values": not exact, "layers": [v + first_layer for v in range(keep, L)]}
    return payload


FEATURE_TICKS = 8  # at most this many column numbers under a (T, features) map (the browser drops any that collide)


def features(mat, row_labels: Sequence[str], *, kind: str = "output", col_title: str | None = None,
             zmax: float | None = None, words: Words = ENGLISH, bands: Sequence[tuple[int, int, str, str]] = (),
             band_stagger: bool = False) -> dict:
    """The payload of a (T, F) matrix drawn on the canvas as ``figures.features_heatmap`` draws it in Plotly:
    tokens down the side, feature numbers along the bottom under ``col_title`` (default ``words.feature``), one
    diverging scale ± ``zmax`` (default the largest |value|, ``symmetric_range``), the colour bar and the hover
    named ``words.kind(kind)``. The hover says "token i: name", "col_title: j" and the number.

    ``bands``: column blocks outlined in a colour with a label above, (first column, end column, "#rrggbb",
    label): each head's head_dim columns of concat (``explain_figures.banded_features``); ``band_stagger`` raises
    every other label a line (crowded heads)."""
    m = np.asarray(mat, dtype=np.float64)
    if m.ndim != 2 or 0 in m.shape:
        raise ValueError(f"a features map has shape (tokens, features), non-empty, but got {m.shape}")
    T, F = m.shape
    for b in bands:
        if not (0 <= int(b[0]) < int(b[1]) <= F):
            raise ValueError(f"band {tuple(b[:2])} does not lie in the {F} columns: pass (first, end) with "
                             f"0 <= first < end <= {F}")
    col_title = words.feature if col_title is None else col_title
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 10 ** 9)
                if math.ceil(F / s) <= FEATURE_TICKS)
    extra = {"col_title": col_title, "xticks": list(range(0, F, step)),
             "bands": [[int(a), int(b), str(c), str(lab)] for a, b, c, lab in bands],
             "band_stagger": bool(band_stagger), "token_word": words.token, "file": str(kind)}
    half = float(zmax) if zmax else symmetric_range(m)
    return prepare(m[None], row_labels, [str(j) for j in range(F)], kind="scores", scale_range=half, words=words,
                   layout="features", name=words.kind(kind), extra=extra)
