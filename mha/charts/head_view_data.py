"""The head view's numbers, checked and packed for the browser. Pure: numpy and the string catalog only.

The head view (``mha.app.components.head_view``) draws attention weights as lines between two columns of tokens, queries
on the left and keys on the right, one colour per head, BertViz-style. Every hover and click is answered in the
browser from the numbers sent once: this module prepares them.

- ``prepare`` checks that the weights and the labels agree (the message says how to fix it) and packs the weights
  as whole thousandths (0..1000), two characters each (``encode``), head by head, row by row: 128 tokens x 16 heads
  are 0.5 MB of JSON instead of megabytes of float text.
- A line is drawn only for a weight of at least ``MIN_WEIGHT`` (in thousandths; ``MIN_WEIGHT_ALL`` in the overview
  of every line): masked weights (exactly 0) and weights too faint to see draw nothing, which keeps
  16 x 128 x 128 lines cheap to draw.
- ``words`` gives the few words the view shows, in the page's language (``mha/strings/head_view.py``).
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Mapping, Sequence

import numpy as np

from mha.core import i18n

SCALE = 1000  # weights travel as whole thousandths: 0.1234 -> 123
MIN_WEIGHT = 2  # thousandths: a pointed-at row (or column) draws a line from 0.002 up
# thousandths: the overview of all lines draws from 0.01 up. Its opacity is the weight, so a fainter line changes
# no pixel (1% of 255 levels), yet at 128 tokens x 16 heads most lines are that faint and drawing them costs ~0.5 s.
MIN_WEIGHT_ALL = 10
# The overview draws at most about this many lines, the strongest (its threshold rises above MIN_WEIGHT_ALL when
# more would pass): rasterising is what costs, in software ~0.1 ms a line at the view's widths, and at 128 tokens x
# 16 heads 56,000 random weights pass 0.01 (7 s in Chromium). Pointing at a token still draws its whole row.
OVERVIEW_LINES = 8000
# One colour per head, distinct side by side (Tableau 10, then six more of the same lightness).
HEAD_COLOURS = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#7f7f7f", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#17becf", "#bcbd22",
)
_HEX = re.compile(r"#[0-9a-fA-F]{6}")
# The words the view shows; the catalog keys are "hv_<name>". English here is the fallback for a caller without
# a language (the catalog holds the same English).
WORD_NAMES = ("queries", "keys", "all_heads", "head", "hint")


def palette(num_heads: int) -> list[str]:
    """``num_heads`` distinct colours as #rrggbb: the palette, then evenly spread hues beyond 16 heads."""
    if num_heads <= len(HEAD_COLOURS):
        return list(HEAD_COLOURS[:num_heads])
    out = list(HEAD_COLOURS)
    for i in range(num_heads - len(HEAD_COLOURS)):
        hue = (i * 0.618034) % 1.0  # golden-ratio steps: neighbours far apart on the colour wheel
        out.append(_hsl_hex(hue, 0.55, 0.5))
    return out


def _hsl_hex(h: float, s: float, lightness: float) -> str:
    import colorsys

    r, g, b = colorsys.hls_to_rgb(h, lightness, s)
    return "#%02x%02x%02x" % (round(r * 255), round(g * 255), round(b * 255))


def check(weights, query_labels: Sequence[str], key_labels: Sequence[str]) -> np.ndarray:
    """The weights as float64 (H, Tq, Tk) after checking them against the labels; ValueError says how to fix."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 4 and w.shape[0] == 1:
        raise ValueError(f"weights have shape {w.shape}, with a batch axis: pass one sentence's weights "
                         "(heads, queries, keys), e.g. weights[0]")
    if w.ndim != 3:
        raise ValueError(f"weights must have 3 axes (heads, queries, keys), but have shape {w.shape}; "
                         "for one head pass weights[None]")
    H, Tq, Tk = w.shape
    if min(H, Tq, Tk) == 0:
        raise ValueError(f"weights have shape {w.shape}: at least one head, query and key are needed")
    for name, labels, n in (("query", query_labels, Tq), ("key", key_labels, Tk)):
        if isinstance(labels, str):
            raise ValueError(f"{name} labels must be a list of strings, one per position, not one string")
        if len(labels) != n:
            raise ValueError(f"weights have {n} {name} position{'s' if n != 1 else ''}, while there "
                             f"{'are' if len(labels) != 1 else 'is'} {len(labels)} {name} label"
                             f"{'s' if len(labels) != 1 else ''}")
        bad = [i for i, label in enumerate(labels) if not isinstance(label, str)]
        if bad:
            raise ValueError(f"{name} label {bad[0]} is {type(labels[bad[0]]).__name__}, not a string: "
                             "pass the tokens as text")
    if not np.isfinite(w).all():
        h, q, k = np.argwhere(~np.isfinite(w))[0]
        raise ValueError(f"weights must be finite, but head {h}, query {q}, key {k} is {w[h, q, k]}: pass the "
                         "weights after softmax, with masked ones as 0")
    lo, hi = float(w.min()), float(w.max())
    if lo < -1e-6 or hi > 1 + 1e-6:
        raise ValueError(f"weights must lie between 0 and 1 (after softmax), but range from {lo:.4g} to {hi:.4g}: "
                         "were scores (before softmax) passed instead?")
    return w


def prepare(weights, query_labels: Sequence[str], key_labels: Sequence[str], *,
            head_colours: Sequence[str] | None = None, words: Mapping[str, str] | None = None,
            top: float = 1.0) -> dict:
    """The JSON-able payload of the head view. ``weights`` (H, Tq, Tk), after softmax; the labels are plain text
    (the browser sets them as text, never as markup); ``head_colours`` one #rrggbb per head (default: the
    palette); ``top``: the weight drawn at full strength, the view's colour scale (``figures.weights_top``): at 43
    tokens every weight is near 1/43, and lines on 0 … 1 were all but invisible."""
    if not (isinstance(top, (int, float)) and 0 < top <= 1):
        raise ValueError(f"top={top!r}: the weight drawn at full strength must be in (0, 1], e.g. "
                         "figures.weights_top(weights)")
    w = check(weights, query_labels, key_labels)
    H, Tq, Tk = w.shape
    colours = list(head_colours) if head_colours is not None else palette(H)
    if len(colours) != H:
        raise ValueError(f"weights have {H} head{'s' if H != 1 else ''}, while there are {len(colours)} head "
                         "colours: give one colour per head, or none for the default palette")
    bad = [c for c in colours if not isinstance(c, str) or not _HEX.fullmatch(c)]
    if bad:
        raise ValueError(f"head colour {bad[0]!r} is not of the form #rrggbb (e.g. '#4e79a7')")
    packed = encode(np.clip(np.rint(w * SCALE), 0, SCALE).astype(np.int64))
    words = {**default_words(), **(words or {})}
    unknown = set(words) - set(WORD_NAMES)
    if unknown:
        raise ValueError(f"unknown head view words {sorted(unknown)}: the view shows {list(WORD_NAMES)}")
    payload = {
        "H": H, "Tq": Tq, "Tk": Tk,
        "queries": [str(s) for s in query_labels], "keys": [str(s) for s in key_labels],
        # a pretrained token's raw piece ("Ġthe" behind "the", mha.core.tokens.PieceLabel) for its tooltip, else ""
        "queries_raw": [str(getattr(s, "raw", "")) for s in query_labels],
        "keys_raw": [str(getattr(s, "raw", "")) for s in key_labels],
        "colours": [c.lower() for c in colours],
        "scale": SCALE, "min": MIN_WEIGHT, "min_all": overview_threshold(w), "w": packed,
        "top": max(1, int(np.ceil(top * SCALE))),  # thousandths: a weight of ``top`` or more is a full-strength line
        "words": {k: str(v) for k, v in words.items()},
    }
    # A short fingerprint: the browser rebuilds the view only when the numbers or labels changed (a rerun that
    # sends the same view keeps the learner's shown/hidden heads).
    payload["sig"] = hashlib.sha1(json.dumps([H, Tq, Tk, payload["queries"], payload["keys"], packed,
                                              payload["queries_raw"], payload["keys_raw"], payload["top"]],
                                             separators=(",", ":")).encode()).hexdigest()[:16]
    return payload


def overview_threshold(weights: np.ndarray) -> int:
    """The least weight (thousandths) the overview draws: MIN_WEIGHT_ALL, or higher so that at most about
    OVERVIEW_LINES lines pass (ties at the threshold all pass)."""
    t = np.clip(np.rint(np.asarray(weights) * SCALE), 0, SCALE).astype(np.int64).ravel()
    if np.count_nonzero(t >= MIN_WEIGHT_ALL) <= OVERVIEW_LINES:
        return MIN_WEIGHT_ALL
    kth = np.partition(t, t.size - OVERVIEW_LINES)[t.size - OVERVIEW_LINES]  # the OVERVIEW_LINES-th largest
    return int(max(MIN_WEIGHT_ALL, kth))  # equal weights are all drawn or none: never an arbitrary part


# Thousandths (0..1000 < 64²) as two characters of the URL-safe base64 alphabet each, high digit first: 2 bytes a
# weight in JSON, whatever its value (a list of whole numbers takes ~3.3, float text ~20).
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_ALPHA = np.frombuffer(ALPHABET.encode("ascii"), dtype=np.uint8)


def encode(thousandths: np.ndarray) -> str:
    """Whole thousandths (any shape, flattened in C order: index (h * Tq + q) * Tk + k) as a string."""
    v = np.asarray(thousandths, dtype=np.int64).ravel()
    if v.size and (v.min() < 0 or v.max() >= 64 * 64):
        raise ValueError("thousandths must lie in 0 … 4095")
    out = np.empty(2 * v.size, dtype=np.uint8)
    out[0::2], out[1::2] = _ALPHA[v // 64], _ALPHA[v % 64]
    return out.tobytes().decode("ascii")


def decode(text: str) -> np.ndarray:
    """The whole thousandths of ``encode``'s string, flat (what the browser decodes)."""
    lookup = np.full(256, -1, dtype=np.int64)
    lookup[_ALPHA] = np.arange(64)
    codes = lookup[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]
    if len(text) % 2 or (codes < 0).any():
        raise ValueError("not a head view weights string")
    return codes[0::2] * 64 + codes[1::2]


def thousandths(payload: Mapping) -> np.ndarray:
    """The packed weights of a payload as whole thousandths (H, Tq, Tk)."""
    return decode(payload["w"]).reshape(payload["H"], payload["Tq"], payload["Tk"])


def unpack(payload: Mapping) -> np.ndarray:
    """The weights of a payload as float (H, Tq, Tk), rounded as the browser sees them."""
    return thousandths(payload) / payload["scale"]


def drawn_lines(payload: Mapping, *, heads: Sequence[int] | None = None, query: int | None = None,
                key: int | None = None) -> set[tuple[int, int, int]]:
    """The (head, query, key) lines the view draws among the shown ``heads`` (all by default): ``query``'s row or
    ``key``'s column, weights of at least ``MIN_WEIGHT`` thousandths, or with neither the overview of all lines,
    weights of at least the payload's ``min_all`` (``overview_threshold``). The browser test compares the component's
    drawn lines with this."""
    overview = query is None and key is None
    on = thousandths(payload) >= payload["min_all" if overview else "min"]
    if heads is not None:
        keep = np.zeros(payload["H"], bool)
        keep[list(heads)] = True
        on &= keep[:, None, None]
    if query is not None:
        on[:, np.arange(payload["Tq"]) != query, :] = False
    if key is not None:
        on[:, :, np.arange(payload["Tk"]) != key] = False
    return {tuple(int(i) for i in idx) for idx in np.argwhere(on)}


def default_words() -> dict[str, str]:
    return words("en")


def words(lang: str) -> dict[str, str]:
    """The head view's words in ``lang`` ('en' or 'ko')."""
    return {name: i18n.text(f"hv_{name}", lang) for name in WORD_NAMES}
