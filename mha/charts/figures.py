"""Plotly figures for attention. Pure Plotly: builders take arrays plus token labels and return ``go.Figure``.

Conventions shared by every figure:
- queries down the side (y, first token at the top), keys along the top (x);
- a repeated word stays its own row and column: labels are made unique with invisible zero-width spaces, which
  no tick, hover or title shows (``readable_ticks``, ``shown_label``: every token chart of the app goes through it);
- labels are HTML-escaped (Plotly renders <b>, <a>, <span style> in text), so a token is shown, never interpreted;
- weights use a 0..1 sequential scale; scores and outputs a diverging scale centred on 0;
- blocked (masked) cells are covered in grey by a transparent-elsewhere overlay, so they never look like a
  merely small weight, and no NaN is ever put in a chart.
- every word a chart shows comes from ``words`` (a ``Words``, English by default): the pages pass the translated
  one (``mha.app.widgets.chart_words()``).
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from mha.core.markup import escape_for_plotly
from mha.strings.charts import STRINGS as CHART_STRINGS

WEIGHTS_SCALE = "Blues"
DIVERGING_SCALE = "RdBu_r"
MASKED_GREY = "rgba(150, 150, 150, 1)"
_ZWSP = "\u200b"
_MASK_SCALE = [[0.0, "rgba(0,0,0,0)"], [0.5, "rgba(0,0,0,0)"], [0.5, MASKED_GREY], [1.0, MASKED_GREY]]


def _en(name: str) -> str:
    """The English of chart word ``name``: its catalog entry ``ch_<name>`` in mha/strings/charts.py, the one source."""
    entry = CHART_STRINGS.get(f"ch_{name}")
    if entry is None or not entry.get("en"):
        raise KeyError(f"the chart word {name!r} has no English entry 'ch_{name}' in mha/strings/charts.py: add it "
                       "there, with its Korean.")
    return entry["en"]


@dataclass(frozen=True)
class Words:
    """Every word a chart shows (titles, axes, hover text, colour bars, legends, annotations), English by default.

    Every figure builder takes ``words=``; ``mha.app.widgets.chart_words()`` builds the translated one from the catalog
    ``mha/strings/charts.py`` (key ``ch_<field>``). Frozen, so it is hashable and part of a cached figure's key.
    The course's identifiers (weights, scores, output, d_model, head_dim, q, k, v, QKᵀ, softmax) are not words:
    they stay as they are in every language. ``{placeholders}`` are filled with ``str.format``. The English defaults
    are read from that catalog too (``_en``): each word is written once, and a field without its entry fails at import.
    """
    head: str = _en("head")  # "head 3": followed by the head's number
    head_short: str = _en("head_short")  # a head's label where "head 3" would not fit (16 heads side by side)
    query: str = _en("query")
    key: str = _en("key")
    value: str = _en("value")
    token: str = _en("token")
    dim: str = _en("dim")
    feature: str = _en("feature")
    d_model_feature: str = _en("d_model_feature")
    query_axis: str = _en("query_axis")
    key_axis: str = _en("key_axis")
    weight: str = _en("weight")
    mask: str = _en("mask")
    mask_legend: str = _en("mask_legend")
    masked: str = _en("masked")  # a blocked key's bar
    masked_score: str = _en("masked_score")
    blocked_score: str = _en("blocked_score")
    embedding: str = _en("embedding")
    position: str = _en("position")
    difference: str = _en("difference")
    sum: str = _en("sum")
    rest: str = _en("rest")  # the n smallest terms of a dot product as one bar
    scaled: str = _en("scaled")
    unscaled: str = _en("unscaled")
    entropy: str = _en("entropy")
    max_weight: str = _en("max_weight")
    softmax_gradient: str = _en("softmax_gradient")
    mean: str = _en("mean")
    uniform: str = _en("uniform")
    with_scaling: str = _en("with_scaling")
    without_scaling: str = _en("without_scaling")
    your_head_dim: str = _en("your_head_dim")
    bits: str = _en("bits")
    off: str = _en("off")  # a switched-off head
    change: str = _en("change")
    share_of_output: str = _en("share_of_output")
    queries: str = _en("queries")
    keys: str = _en("keys")
    weight_from_query: str = _en("weight_from_query")
    pc: str = _en("pc")  # a principal component
    exact_below: str = _en("exact_below")  # hover of a large all-heads grid
    keys_on_hover: str = _en("keys_on_hover")
    tokens_on_hover: str = _en("tokens_on_hover")
    values_on_hover: str = _en("values_on_hover")  # cells too small to write their numbers in
    fitted_scale: str = _en("fitted_scale")  # a weights colour bar fitted to the weights
    full_scale: str = _en("full_scale")  # a weights colour bar over every possible weight
    download_png: str = _en("download_png")  # the button of a chart drawn in the page (mha.app.components.heatmap_view)
    panel_hover: str = _en("panel_hover")  # the model view's hover, its first line
    panel_title: str = _en("panel_title")  # a thumbnail of the model view (every layer x head)
    model_exact: str = _en("model_exact")  # hover of a large model view

    weights: str = _en("weights")  # a weights chart's colour bar and hover
    scores: str = _en("scores")
    output: str = _en("output")
    head_outputs: str = _en("head_outputs")
    concat: str = _en("concat")
    result: str = _en("result")  # a head's contribution to the output, as ‖result‖

    def kind(self, name: str) -> str:
        """How a matrix kind is shown: words translated (weights, scores, output, head_outputs, concat, query, ...),
        maths kept (QKᵀ, x, x_kv)."""
        return getattr(self, name) if name in _KIND_WORDS else name


_KIND_WORDS = frozenset({"query", "key", "value", "embedding", "position", "difference", "mask", "weights",
                         "scores", "output", "head_outputs", "concat"})
ENGLISH = Words()


def axis_labels(labels) -> list[str]:
    """Escaped, unique category labels: the k-th repeat of a label gets k zero-width spaces appended. A label that
    carries its tokenizer's raw piece (``mha.core.tokens.PieceLabel``, pretrained views) becomes "label ⁣· raw": the
    hover (``%{x}``, ``%{y}``) names the raw piece, and ``readable_ticks`` makes the axis's tick labels the readable
    part."""
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        n = seen.get(lab, 0)
        seen[lab] = n + 1
        raw = getattr(lab, "raw", None)
        name = escape_for_plotly(str(lab)) + (RAW_MARK + escape_for_plotly(raw) if raw else "")
        out.append(name + _ZWSP * n)
    return out


# Between a readable label and its raw piece in a category name: an invisible separator (U+2063, which
# ``mha.core.tokens.safe_label`` removes from every label, so no typed token contains it) and a middle dot.
RAW_MARK = "\u2063 · "


def readable_part(category: str) -> str:
    """The readable label of an ``axis_labels`` category (its raw piece cut off), for tick labels and widths."""
    return category.split(RAW_MARK[0], 1)[0] if isinstance(category, str) else category


def shown_label(category: str) -> str:
    """What an ``axis_labels`` category shows wherever a visitor reads or copies it (hover, title, hover text):
    its zero-width spaces dropped and the raw piece after a visible " · " only. Categories stay unique; what they
    show need not (``readable_ticks`` writes it as the axis's ``labelalias``)."""
    if not isinstance(category, str):
        return category
    return category.replace(_ZWSP, "").replace(RAW_MARK, RAW_MARK[1:]).replace(RAW_MARK[0], "")


def hover_labels(labels) -> list[str]:
    """``axis_labels`` as they are shown (``shown_label``): for hover text and titles outside an axis."""
    return [shown_label(c) for c in axis_labels(labels)]


# Plotly writes a category's hover label (%{x}, %{y}) as its tick text when a tick sits exactly on it (within
# 1/10000 of the axis range): the ticks of readable_ticks sit RAW_TICK_SHIFT of the axis range past each category,
# so the tick shows the readable label while the hover keeps the whole category name (browser-tested).
RAW_TICK_SHIFT = 5e-4


def readable_ticks(fig):
    """Tick labels without the raw pieces: every category axis whose categories carry one (``axis_labels`` of
    PieceLabels) gets explicit ticks, each category written as its readable part; hovers keep naming both. An axis
    with a repeated word gets ticks on its categories written without their zero-width spaces (copied tick text
    holds none; Plotly's hover writes a tick's text when the tick sits on its category). Every such axis also gets
    a ``labelalias`` from each category to its ``shown_label``: Plotly writes a hover that sits on no tick (the raw
    piece's, ticks shifted) through it, so no hover, tick or copied text holds an invisible character (#26.6).
    Other figures (numeric axes, no repeated word) are returned unchanged. Modifies and returns ``fig``: call it on
    a new figure (``mha.app.compute.cached_figure`` does, before caching; every other chart of the app too)."""
    if not isinstance(fig, go.Figure):
        return fig
    axes: dict[str, dict[str, None]] = {}
    for trace in fig.data:
        for letter in ("x", "y"):
            if letter not in trace or f"{letter}axis" not in trace:  # tables, pies: no such axes
                continue
            values, ref = trace[letter], trace[f"{letter}axis"] or letter
            if values is None or isinstance(values, np.ndarray) and values.dtype.kind != "O":
                continue
            if any(isinstance(v, str) and (RAW_MARK[0] in v or _ZWSP in v) for v in values):
                cats = axes.setdefault(f"{letter}axis{ref[1:]}", {})
                cats.update(dict.fromkeys(v for v in values if isinstance(v, str)))
    for name, cats in axes.items():  # Plotly numbers an axis's categories in order of appearance, trace by trace
        axis = fig.layout[name]
        axis.labelalias = {**(axis.labelalias or {}), **{v: shown_label(v) for v in cats if shown_label(v) != v}}
        if axis.tickmode == "array":  # explicit ticks already (stacked_axis: readable parts): no invisible marks
            if axis.ticktext is not None:
                axis.ticktext = [t.replace(_ZWSP, "") if isinstance(t, str) else t for t in axis.ticktext]
            continue
        if not any(RAW_MARK[0] in v for v in cats):
            # A repeated word's category ends in zero-width spaces (axis_labels): ticks exactly on the categories
            # write them without, and Plotly's hover takes a tick's text: nothing invisible is copied (#26.6).
            axis.update(tickmode="array", tickvals=list(cats), ticktext=[v.replace(_ZWSP, "") for v in cats])
            continue
        shift = RAW_TICK_SHIFT * len(cats)
        fig.layout[name].update(tickmode="array", tickvals=[i + shift for i in range(len(cats))],
                                ticktext=[readable_part(v).replace(_ZWSP, "") for v in cats])
    return fig


# With this many keys or more, a row's weights are small (uniform = 1/Tk): if every weight shown is below
# FIT_BELOW, the weights colour scale ends at the largest one instead of 1 (else 128 tokens look all white), and
# the colour bar says so. Shorter rows keep the fixed 0..1 scale unless the learner asks to fit ("fit to data").
FIT_KEYS = 12  # 16 tokens on 0 … 1 looked all white (uniform 1/16); at 5-8 tokens 0 … 1 reads well
FIT_BELOW = 0.5


def weights_top(mats, fit: bool = False) -> float:
    """The top of the weights colour scale, one for every weights chart of a view: pass everything the view shows
    (an array, or a list of arrays whose last axis is the keys; their shapes may differ). 1.0, or the largest weight
    rounded up to two significant digits when ``fit`` ("fit to data") or when rows are long (FIT_KEYS keys or more)
    and every weight is below FIT_BELOW. A row with one nonzero weight (a query that may see one key only, e.g. the
    first under a causal mask: exactly 1 whatever the parameters) does not set the top; it is drawn at the top
    colour."""
    arrays = [np.asarray(a, dtype=np.float64) for a in (mats if isinstance(mats, (list, tuple)) else [mats])]
    rows = [a.reshape(-1, a.shape[-1]) for a in arrays if a.ndim and a.size]
    if not rows:
        return 1.0
    keys = max(r.shape[-1] for r in rows)
    chosen = [r[np.count_nonzero(r, axis=-1) > 1] for r in rows]  # rows where the query had a choice
    m = max((float(c.max()) for c in chosen if c.size), default=1.0)
    if not (0 < m < 1.0) or not math.isfinite(m) or (not fit and (keys < FIT_KEYS or m >= FIT_BELOW)):
        return 1.0
    step = 10.0 ** (math.floor(math.log10(m)) - 1)
    return min(1.0, math.ceil(m / step - 1e-9) * step)


def weights_bar_title(top: float, words: Words = ENGLISH) -> str:
    """A weights colour bar's title: the word and the range it spans, "0 … 1" or fitted "0 … top (not 0 … 1)"
    (``weights_top``). Every weights chart says its range this way."""
    sub = words.full_scale if top >= 1.0 else words.fitted_scale.format(top=f"{top:.2g}")
    # a span at MIN_FONT, not <sub> (70 % of the title's size: ~8 px, below every other label)
    return f"{words.kind('weights')}<br><span style=\"font-size:{MIN_FONT}px\">{sub}</span>"


def _color_kwargs(kind: str, zmax: float | None = None) -> dict:
    if kind == "weights":
        return dict(colorscale=WEIGHTS_SCALE, cmin=0.0, cmax=1.0 if zmax is None else zmax)
    return dict(colorscale=DIVERGING_SCALE, cmid=0.0) if zmax is None else dict(
        colorscale=DIVERGING_SCALE, cmin=-zmax, cmax=zmax)


def symmetric_range(*arrays) -> float:
    """The half-width of a colour scale centred on 0 that fits every value of ``arrays``: max |value|, or 1.0 when
    that is 0, empty or not finite. The one helper for diverging scales (scores, outputs, differences)."""
    m = max((float(np.max(np.abs(a))) for a in map(np.asarray, arrays) if a.size), default=0.0)
    return m if m > 0 and math.isfinite(m) else 1.0


def _hover(kind: str, head: int | None, words: Words = ENGLISH, value: str | None = None) -> str:
    """Hover text of an attention cell; ``value`` replaces the "kind: number" line when the number is not sent."""
    head_part = f"{words.head} {head}<br>" if head is not None else ""
    value = f"{words.kind(kind)}: %{{z:.4f}}" if value is None else value
    return f"{head_part}{words.query}: %{{y}}<br>{words.key}: %{{x}}<br>{value}<extra></extra>"


def _subplot_grid(rows: int, cols: int, h_space: float, v_space: float, titles, xaxis: dict, yaxis: dict) -> dict:
    """Layout entries of a rows x cols grid of subplots, as ``make_subplots`` lays them out (same domains, axis
    numbering row by row from the top, titles as annotations above each subplot) but as plain dicts: building the
    figure from one dict is ~4x faster than make_subplots + update_xaxes/update_yaxes. ``xaxis``/``yaxis`` are the
    settings every subplot's axes get."""
    width = (1.0 - h_space * (cols - 1)) / cols
    height = (1.0 - v_space * (rows - 1)) / rows
    layout: dict = {}
    annotations = []
    titles = list(titles)
    for r in range(rows):  # r = 0 is the top row
        below = rows - 1 - r  # rows below this one; sums as make_subplots does them, to the same last bit
        y0 = min(1.0, max(0.0, sum([height] * below) + below * v_space))
        y1 = min(1.0, max(0.0, y0 + height))
        for c in range(cols):
            n = r * cols + c + 1
            sfx = "" if n == 1 else str(n)
            x0 = sum([width] * c) + c * h_space
            x_dom = [x0, x0 + width]
            layout[f"xaxis{sfx}"] = dict(xaxis, anchor=f"y{sfx}", domain=x_dom)
            layout[f"yaxis{sfx}"] = dict(yaxis, anchor=f"x{sfx}", domain=[y0, y1])
            if n <= len(titles) and titles[n - 1]:
                annotations.append(dict(font=dict(size=16), showarrow=False, text=titles[n - 1],
                                        x=sum(x_dom) / 2.0, xanchor="center", xref="paper",
                                        y=y1, yanchor="bottom", yref="paper"))
    layout["annotations"] = annotations
    return layout


def _subplot_refs(i: int) -> dict:
    """The axes of the i-th subplot (0-based, row by row): {"xaxis": "x3", "yaxis": "y3"}."""
    sfx = "" if i == 0 else str(i + 1)
    return dict(xaxis=f"x{sfx}", yaxis=f"y{sfx}")


def _mask_overlay(allowed: np.ndarray, x, y, **kw) -> dict:
    """The grey cover of blocked cells (a heatmap trace as a dict), transparent elsewhere."""
    blocked = (~allowed).astype(np.int8)  # 1 = blocked: grey; 0 = transparent
    return dict(type="heatmap", z=blocked, x=x, y=y, zmin=0, zmax=1, colorscale=_MASK_SCALE, showscale=False,
                hoverinfo="skip", name="masked", **kw)


# Above this many cells in an all-heads grid, colours go to the browser as 8-bit codes instead of float32 numbers
# (4x fewer bytes: 16 heads x 128 x 128 tokens is 1.4 MB as float32). Cells are a few pixels wide there; the exact
# numbers are one click away in the enlarged head.
GRID_CODED_CELLS = 16 * 64 * 64


def _coded(mats: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, dict]:
    """Values in [lo, hi] as uint8 colour codes 0..255, and colour-bar ticks that show the real values."""
    codes = np.rint((np.clip(mats, lo, hi) - lo) / (hi - lo) * 255).astype(np.uint8)
    ticks = np.linspace(lo, hi, 5)
    return codes, dict(tickvals=[float((v - lo) / (hi - lo) * 255) for v in ticks],
                       ticktext=[f"{v:.2g}" for v in ticks])


def _text_px(text: str, font: float) -> float:
    """About how wide a label is drawn, in pixels: CJK characters are ~1 em wide, others ~0.6 em."""
    return sum(font * (1.0 if ord(ch) >= 0x1100 else 0.6) for ch in readable_part(str(text)) if ch != _ZWSP)


text_px = _text_px  # the same estimate for other figure modules (mha.charts.heads places the q/k map's names)


# --- readable tick labels (issue #16 item 9) ---------------------------------------------------------------------
# Token labels are drawn at TICK_FONT px (never below MIN_FONT), in the page's text colour (Streamlit's theme would
# draw them light grey), one label per row and column (``dtick=1``: Plotly would otherwise drop every other one of a
# crowded category axis), horizontal when the longest fits its cell, else slanted.
TICK_FONT = 12
MIN_FONT = 11
TICK_COLOR = "#31333f"  # Streamlit's text colour: the theme's grey tick labels are too faint to read
LABEL_ROW_PX = 16  # the least height of a row whose token label is shown: a 12 px label is drawn 16 px high
LABELS_MAX_TOKENS = 64  # up to this many tokens every token is named along a chart's axis
COLORBAR_PX = 110  # the colour bar with its numbers and title, right of the cells


def tick_font(size: int = TICK_FONT) -> dict:
    """The font of token tick labels: at least MIN_FONT px, dark."""
    return dict(size=max(MIN_FONT, size), color=TICK_COLOR)


def tick_angle(labels, cell_px: float, font: int = TICK_FONT) -> int:
    """0 (horizontal) when the longest label fits the width of its cell; else -45, or -90 when the cells are too
    narrow for slanted labels to keep apart (slanted, neighbours are only cell/√2 apart)."""
    longest = max((_text_px(lab, font) for lab in labels), default=0.0)
    if longest + 4 <= cell_px:
        return 0
    return -45 if cell_px * 0.71 >= font + 1 else -90


def label_band_px(labels, angle: int, font: int = TICK_FONT) -> int:
    """About how much room (px) a row of x tick labels takes across the axis: one line of text when horizontal,
    the longest label's drop when slanted (-45°) or upright (-90°), the tallest column of characters when stacked
    (``stacks``)."""
    if stacks(labels, angle):
        lines = max((len(_stack_chars(lab)) for lab in labels), default=1)
        return int(lines * font * STACK_LINE + 8)
    longest = max((_text_px(lab, font) for lab in labels), default=0.0)
    return int(font + 6 if angle == 0 else longest * (0.71 if angle == -45 else 1.0) + font + 4)


# Hangul (and other CJK) turned 90° in columns narrower than a line piled into a jumble (#27: the Induction grids
# at 14 tokens). Korean may be set vertically, upright: such key labels are written one character per line
# instead, at their tick (an axis's explicit ticks, shifted as ``readable_ticks``' are so that hovers keep naming
# the token). A longer token is cut to STACK_MAX characters ending in "…" (its hover names it whole).
STACK_MAX = 6
STACK_LINE = 1.3  # Plotly's line height for "<br>" in a tick label, in font sizes


def stacks(labels, angle: int) -> bool:
    """Whether key labels drawn at ``angle`` are stacked upright instead: upright (-90°) with any CJK character."""
    return angle == -90 and any(_is_cjk(ch) for lab in labels for ch in readable_part(str(lab)))


def _is_cjk(ch: str) -> bool:
    """Hangul, CJK ideographs, kana or full-width forms (not the zero-width spaces of repeated labels)."""
    o = ord(ch)
    return 0x1100 <= o <= 0x11FF or 0x2E80 <= o <= 0xA4CF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF \
        or 0xFF00 <= o <= 0xFFEF


def _stack_chars(category) -> list[str]:
    text = html.unescape(readable_part(str(category))).replace(_ZWSP, "")
    return list(text) if len(text) <= STACK_MAX else list(text[:STACK_MAX - 1]) + ["…"]


def stacked_axis(axis: dict, categories) -> dict:
    """``axis`` with one explicit tick per category, its label one (escaped) character per line, upright."""
    shift = RAW_TICK_SHIFT * len(categories)
    return dict(axis, tickmode="array", tickvals=[i + shift for i in range(len(categories))], tickangle=0,
                ticktext=["<br>".join(escape_for_plotly(ch) for ch in _stack_chars(c)) for c in categories])


def label_width_px(labels, font: int = TICK_FONT) -> int:
    """About how wide a column of y tick labels is (px)."""
    return int(max((_text_px(lab, font) for lab in labels), default=0.0)) + 8


def every_label(axis: dict, show: bool, font: int = TICK_FONT, labels=None) -> dict:
    """Axis settings that show every category's label (or none): dtick 1, the readable tick font. ``labels``: the
    axis's categories, stacked upright when their ``tickangle`` would turn CJK labels (``stacks``)."""
    if not show:
        return dict(axis, showticklabels=False)
    out = dict(axis, showticklabels=True, tickmode="linear", dtick=1, tickfont=tick_font(font))
    return stacked_axis(out, labels) if labels is not None and stacks(labels, axis.get("tickangle", 0)) else out


def _first_column_labels_only(layout: dict, n_cells: int, cols: int) -> None:
    """Row (token) labels on the grid's first column only: every panel has the same rows, and a panel's labels
    would otherwise run into the panel on its left."""
    for i in range(n_cells):
        if i % cols:
            sfx = "" if i == 0 else str(i + 1)
            layout[f"yaxis{sfx}"] = dict(layout[f"yaxis{sfx}"], showticklabels=False)


GRID_FONT = 11  # token labels of the small multiples
GRID_ROW_PX = 15  # the least height of a labelled row in the small multiples (an 11 px label is drawn 15 px high)
GRID_WIDTH_PX = 940  # how wide the page's main column draws a grid (wide layout, 1400 px window, measured)
GRID_MAX_PX = 3000


def heads_grid(mats: np.ndarray, q_labels, k_labels, kind: str = "weights", allowed: np.ndarray | None = None,
               cols: int = 4, heads=None, words: Words = ENGLISH, zmax: float | None = None) -> go.Figure:
    """Small multiples: one heatmap per head (H, Tq, Tk) on one shared colour scale. A large grid sends 8-bit
    colour codes (see GRID_CODED_CELLS) and its hover names the cell but not the number. Weights of long rows get
    a colour scale fitted to them (``weights_top``). (The Playground draws its grid in the page instead, with a
    click that selects a head: ``mha.app.components.heatmap_view``.)"""
    H, Tq, Tk = mats.shape
    top = (zmax or weights_top(mats)) if kind == "weights" else None  # zmax: the view's top (same as its other charts)
    color = _color_kwargs(kind, top if kind == "weights" else symmetric_range(mats))
    colorbar = dict(title=dict(text=weights_bar_title(top, words) if kind == "weights" else words.kind(kind)),
                    thickness=12)
    z, value = mats.astype(np.float32), None
    if mats.size > GRID_CODED_CELLS:
        z, ticks = _coded(mats, color["cmin"], color["cmax"])
        color = dict(colorscale=color["colorscale"], cmin=0, cmax=255)
        colorbar.update(ticks)
        value = words.exact_below
    heads = list(range(H)) if heads is None else list(heads)
    cols = max(1, min(cols, H))
    rows = math.ceil(H / cols)
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    # Every token is named where the cells can hold a label: query names down the first column (rows at least
    # GRID_ROW_PX high, so long sentences make taller panels), key names under each panel when a column is wide
    # enough for an upright label; otherwise a note says to hover (the cell's hover names both tokens).
    font = GRID_FONT
    y_width = label_width_px(y, font) if Tq <= LABELS_MAX_TOKENS else 0
    col_px = (GRID_WIDTH_PX - y_width - COLORBAR_PX) / cols / max(Tk, 1)
    show_y = Tq <= LABELS_MAX_TOKENS
    show_x = Tk <= LABELS_MAX_TOKENS and col_px >= font + 1
    angle = tick_angle(x, col_px, font) if show_x else 0
    label_px = label_band_px(x, angle, font) if show_x else 0
    if show_y and rows * (GRID_ROW_PX * Tq + 44 + label_px) + 60 > GRID_MAX_PX:
        show_y = False  # labelled rows would not fit the tallest grid (16 heads x 64 tokens): names on hover
    # Tick labels below the heatmaps: on top they would collide with the titles.
    xaxis = every_label(dict(type="category", side="bottom", tickangle=angle, automargin=True), show_x, font, x)
    yaxis = every_label(dict(autorange="reversed", type="category", automargin=True), show_y, font)
    # Between two rows sit the upper row's key labels and the lower row's titles (16 px font): room for both.
    cell_px = max(GRID_ROW_PX if show_y else 4, min(28, int(col_px)))
    height = max(260, min(int(rows * (cell_px * Tq + 44 + label_px) + 60), GRID_MAX_PX))
    v_space = min(0.3, (34 + label_px) / max(1, height - 60)) if rows > 1 else 0.0
    layout = _subplot_grid(rows, cols, 0.03, v_space, [f"{words.head} {h}" for h in heads], xaxis, yaxis)
    _first_column_labels_only(layout, rows * cols, cols)
    data = []
    for i, h in enumerate(heads):
        refs = _subplot_refs(i)
        data.append(dict(type="heatmap", z=z[i], x=x, y=y, coloraxis="coloraxis",
                         hovertemplate=_hover(kind, h, words, value), **refs))
        if allowed is not None and not allowed[i].all():
            data.append(_mask_overlay(allowed[i], x, y, **refs))
    layout.update(coloraxis=dict(**color, colorbar=colorbar), height=height,
                  margin=dict(l=10, r=10, t=50, b=10 if show_x or not Tk else 30))
    if Tk and not show_x:  # too many keys to name under each panel: say where the names are
        layout["annotations"].append(dict(text=words.keys_on_hover, showarrow=False, xref="paper", yref="paper",
                                          x=0, xanchor="left", y=0, yanchor="top", yshift=-6,
                                          font=dict(size=12, color=TICK_COLOR)))
    return go.Figure(dict(data=data, layout=layout))


# Above this many tokens a cell is a few pixels wide: no click overlay (one invisible marker per cell would be
# 16,384 markers at the 128-token cap, for cells too small to hit); pages offer query/key pickers instead.
CLICK_MAX_TOKENS = 64


SQUARE_PLOT_PX = 560  # the side of a one-head chart's cells when they are neither too small nor too large
MAX_CELL_PX = 56


@dataclass(frozen=True)
class Geometry:
    """The size of a one-head chart: ``cell`` px per column, ``row`` px per row (equal, square cells, unless a
    narrow page column forces thinner columns under rows that keep room for their labels), the figure's ``width``
    and ``height`` (cells plus labels, axis titles and colour bar), whether the keys are named (``show_x``) and
    their labels' ``angle``."""
    cell: int
    width: int
    height: int
    angle: int
    row: int = 0
    show_x: bool = True
    show_y: bool = True
    margin: tuple = (10, 10, 10, 10)  # left, right, top, bottom: room for the labels, axis titles and colour bar

    def layout(self) -> dict:
        """The figure's size and margins: the cells get exactly their share (automargin only ever adds)."""
        left, right, top, bottom = self.margin
        return dict(width=self.width, height=self.height, margin=dict(l=left, r=right, t=top, b=bottom))


def square_geometry(x_labels, y_labels, font: int = TICK_FONT, max_width: int | None = None,
                    colorbar: bool = True) -> Geometry:
    """Square cells: the width follows the columns and the height the rows. Cells are MAX_CELL_PX at most, and
    at least LABEL_ROW_PX while every token is named (up to LABELS_MAX_TOKENS), so no label is dropped; longer
    sentences get cells that fit SQUARE_PLOT_PX (names on hover). In a page column (``max_width``) the columns
    may get thinner than that: rows keep LABEL_ROW_PX, and the keys are named only while a column holds an
    upright label."""
    Tk, Tq = len(x_labels), len(y_labels)
    n = max(Tq, Tk, 1)
    named = n <= LABELS_MAX_TOKENS
    cell = max(LABEL_ROW_PX, min(MAX_CELL_PX, SQUARE_PLOT_PX // n)) if named else max(3, (SQUARE_PLOT_PX + 80) // n)
    show_y = Tq <= LABELS_MAX_TOKENS
    left = (label_width_px(y_labels, font) if show_y else 0) + 24
    bar = COLORBAR_PX if colorbar else 0
    row = cell
    if max_width:  # a page column: the cells share its width with the labels and the colour bar
        cell = max(3, min(cell, (max_width - left - bar - 20) // max(Tk, 1)))
        row = max(cell, LABEL_ROW_PX) if show_y else cell
    show_x = Tk <= LABELS_MAX_TOKENS and cell >= font + 1
    angle = tick_angle(x_labels, cell, font) if show_x else 0
    top = (label_band_px(x_labels, angle, font) if show_x else 0) + 34  # labels, axis title
    least = 320 if colorbar else 200  # a figure's least width, but never wider than its column (max_width):
    least = min(least, max_width) if max_width else least  # Plotly would squeeze the cells to fit, not the margins
    width = max(least, left + cell * Tk + bar + 20)
    height = max(220, top + row * Tq + 20)
    margin = (left, width - left - cell * Tk, top, height - top - row * Tq)
    return Geometry(cell=cell, width=int(width), height=int(height), angle=angle, row=row, show_x=show_x,
                    show_y=show_y, margin=tuple(int(m) for m in margin))


COLORBAR_MIN_PX = 170  # a colour bar with its title (up to 3 lines) and room for its ticks


def _short_plot_colorbar(geo: Geometry) -> dict:
    """A colour bar spans its plot's height; beside a short plot (5 rows of 16 px in a narrow column) that is too
    short for its title and ticks (they overlapped on a ~10 px bar). Then it starts up to 60 px above the plot, in
    the band of the key labels but below the axis title, and reaches into the bottom margin (``y`` is in plot
    heights from the plot's bottom)."""
    left, right, top, bottom = geo.margin
    plot_px = geo.height - top - bottom
    if plot_px >= COLORBAR_MIN_PX or plot_px <= 0:
        return {}
    above = max(0, min(60, top - 34))  # the axis title keeps the top 34 px
    return dict(lenmode="pixels", len=min(COLORBAR_MIN_PX, above + plot_px + bottom - 5), y=1 + above / plot_px,
                yanchor="top")


def head_heatmap(mat: np.ndarray, q_labels, k_labels, kind: str = "weights", allowed: np.ndarray | None = None,
                 head: int | None = None, clickable: bool = True, selected: tuple[int, int] | None = None,
                 zmax: float | None = None, width_px: int | None = None, words: Words = ENGLISH) -> go.Figure:
    """One head, large, on square cells (``square_geometry``; ``width_px``: the page column's width, if narrow).
    With ``clickable``, an invisible scatter marker sits on every cell: Plotly heatmap cells
    emit no selection events, markers do (``customdata`` = [query index, key index])."""
    Tq, Tk = mat.shape
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    geo = square_geometry(x, y, max_width=width_px)
    data = [dict(type="heatmap", z=mat.astype(np.float32), x=x, y=y, hovertemplate=_hover(kind, head, words),
                 coloraxis="coloraxis")]
    if allowed is not None and not allowed.all():
        data.append(_mask_overlay(allowed, x, y))
    if clickable:
        ii, jj = np.meshgrid(np.arange(Tq), np.arange(Tk), indexing="ij")
        data.append(dict(
            type="scatter", x=[x[j] for j in jj.ravel()], y=[y[i] for i in ii.ravel()], mode="markers",
            customdata=np.stack([ii.ravel(), jj.ravel()], axis=1).astype(np.int32),
            marker=dict(symbol="square", size=max(6, geo.cell), opacity=0),
            hovertemplate=_hover(kind, head, words).replace("%{z:.4f}", "%{text}"),
            text=[f"{v:.4f}" for v in mat.ravel()], name="cells", showlegend=False))
    layout = dict(
        yaxis=every_label(dict(autorange="reversed", type="category", automargin=True,
                               title=dict(text=words.query_axis, standoff=4)), geo.show_y),
        xaxis=every_label(dict(type="category", side="top", tickangle=geo.angle, automargin=True,
                               title=dict(text=words.key_axis, standoff=4)), geo.show_x, labels=x),
        coloraxis=dict(**_color_kwargs(kind, zmax or (weights_top(mat) if kind == "weights" else symmetric_range(mat))),
                       colorbar=dict(title=dict(text=weights_bar_title(zmax or weights_top(mat), words)
                                                if kind == "weights" else words.kind(kind)), thickness=12,
                                     **_short_plot_colorbar(geo))),
        **geo.layout(), dragmode=False,
        clickmode="event+select")
    if clickable:  # the markers would pad the axes' autorange: keep the cells exactly the plot area (square)
        layout["xaxis"].update(autorange=False, range=[-0.5, Tk - 0.5])
        layout["yaxis"].update(autorange=False, range=[Tq - 0.5, -0.5])
    if selected is not None:
        i, j = selected
        if 0 <= i < Tq and 0 <= j < Tk:
            layout["shapes"] = [dict(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5,
                                     line=dict(color="#ff7f0e", width=3))]
    return go.Figure(dict(data=data, layout=layout))


def _few_ticks(plot_px: int) -> dict:
    """Beside a short plot (5 token rows) a colour bar is ~70 px: its five ticks (1, 0.5, 0, −0.5, −1) ran into
    each other; three fit (a maximum of 4 gives steps of 0.5 over ±0.7, of 1 over ±1.2)."""
    return dict(nticks=4) if plot_px < 150 else {}  # Plotly then steps by 0.5 or 1: three ticks


def features_heatmap(mat: np.ndarray, row_labels, kind: str = "output", col_title: str | None = None,
                     zmax: float | None = None, words: Words = ENGLISH) -> go.Figure:
    """A (T, F) matrix with tokens down the side and feature indices along the bottom (head outputs, output).
    ``col_title`` names the columns (default: the word for "feature")."""
    T, Fdim = mat.shape
    y = axis_labels(row_labels)
    col_title = words.feature if col_title is None else col_title
    data = [dict(type="heatmap", z=mat.astype(np.float32), x=list(range(Fdim)), y=y, coloraxis="coloraxis",
                 hovertemplate=f"{words.token}: %{{y}}<br>{col_title}: %{{x}}<br>{words.kind(kind)}: "
                               "%{z:.4f}<extra></extra>")]
    row_px = max(LABEL_ROW_PX, min(22, 600 // max(T, 1))) if T <= LABELS_MAX_TOKENS else max(3, 600 // max(T, 1))
    layout = dict(
        yaxis=every_label(dict(autorange="reversed", type="category", automargin=True), T <= LABELS_MAX_TOKENS),
        xaxis=dict(title=dict(text=col_title), tickfont=tick_font()),
        coloraxis=dict(**_color_kwargs(kind, zmax or symmetric_range(mat)),
                       colorbar=dict(title=dict(text=words.kind(kind)), thickness=12,  # what the colours are
                                     **_few_ticks(row_px * T))),
        height=max(220, 100 + row_px * T), margin=dict(l=10, r=10, t=30, b=10))
    return go.Figure(dict(data=data, layout=layout))


def head_outputs_grid(head_outputs: np.ndarray, q_labels, cols: int = 4, words: Words = ENGLISH) -> go.Figure:
    """Each head's output (H, Tq, head_dim) as small multiples on one shared diverging scale. Token labels on the
    first column only; between two rows, room for the upper row's feature numbers and the lower row's titles."""
    H, Tq, hd = head_outputs.shape
    cols = max(1, min(cols, H))
    rows = math.ceil(H / cols)
    y = axis_labels(q_labels)
    show_y = Tq <= LABELS_MAX_TOKENS
    yaxis = every_label(dict(autorange="reversed", type="category", automargin=True), show_y, GRID_FONT)
    xaxis = dict(tickfont=tick_font(GRID_FONT))
    row_px = max(GRID_ROW_PX if show_y else 3, min(22, 600 // max(Tq, 1)))
    height = max(240, min(rows * (row_px * Tq + 80) + 40, GRID_MAX_PX))
    v_space = min(0.3, 62 / max(1, height - 60)) if rows > 1 else 0.0  # ~20 px of numbers, ~22 px of title, air
    layout = _subplot_grid(rows, cols, 0.03, v_space, [f"{words.head} {h}" for h in range(H)], xaxis, yaxis)
    _first_column_labels_only(layout, rows * cols, cols)
    data = [dict(type="heatmap", z=head_outputs[h].astype(np.float32), x=list(range(hd)), y=y,
                 coloraxis="coloraxis",
                 hovertemplate=f"{words.head} {h}<br>{words.token}: %{{y}}<br>{words.dim}: %{{x}}"
                               f"<br>{words.value}: %{{z:.4f}}<extra></extra>", **_subplot_refs(h))
            for h in range(H)]
    layout.update(coloraxis=dict(**_color_kwargs("output", symmetric_range(head_outputs)),
                                 colorbar=dict(title=dict(text=words.head_outputs), thickness=12,
                                               **_few_ticks(rows * row_px * Tq))),
                  height=height, margin=dict(l=10, r=10, t=50, b=10))
    return go.Figure(dict(data=data, layout=layout))


# --- masks (the Masks page and the bug zoo) ---------------------------------------------------------------------------
MAY_ATTEND_GREEN = "rgba(198, 239, 206, 1)"


def mask_heatmap(allowed: np.ndarray, q_labels, k_labels, width_px: int | None = None,
                 words: Words = ENGLISH) -> go.Figure:
    """A (Tq, Tk) mask: green ✓ = may attend (True / 1), grey ✗ = blocked (False / 0)."""
    allowed = np.asarray(allowed, dtype=bool)
    Tq, Tk = allowed.shape
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    fig = go.Figure(go.Heatmap(
        z=allowed.astype(np.int8), x=x, y=y, zmin=0, zmax=1, showscale=False, xgap=1, ygap=1,
        colorscale=[[0.0, MASKED_GREY], [0.5, MASKED_GREY], [0.5, MAY_ATTEND_GREEN], [1.0, MAY_ATTEND_GREEN]],
        text=np.where(allowed, "✓", "✗"), texttemplate="%{text}" if max(Tq, Tk) <= 24 else None,
        hovertemplate=f"{words.query}: %{{y}}<br>{words.key}: %{{x}}<br>{words.mask}: %{{z}} ({words.mask_legend})"
                      "<extra></extra>"))
    geo = square_geometry(x, y, max_width=width_px, colorbar=False)
    fig.update_layout(
        yaxis=every_label(dict(autorange="reversed", type="category", automargin=True,
                               title=dict(text=words.query, standoff=4)), geo.show_y),
        xaxis=every_label(dict(type="category", side="top", tickangle=geo.angle, automargin=True,
                               title=dict(text=words.key, standoff=4)), geo.show_x, labels=x),
        **geo.layout())
    return fig


def masked_scores_heatmap(scores: np.ndarray, allowed: np.ndarray, q_labels, k_labels, width_px: int | None = None,
                          words: Words = ENGLISH) -> go.Figure:
    """Scores after masking: allowed cells coloured by score, blocked cells grey and marked −∞ (the chart holds
    0 there: −∞ has no colour, and a chart never gets NaN or infinities). Hover shows the hidden score."""
    allowed = np.asarray(allowed, dtype=bool)
    shown = np.where(allowed, scores, 0.0).astype(np.float32)
    zmax = symmetric_range(scores[allowed]) if allowed.any() else 1.0
    fig = head_heatmap(shown, q_labels, k_labels, kind="scores", allowed=allowed, clickable=False, zmax=zmax,
                       width_px=width_px, words=words)
    numbers = np.char.mod("%.4f", scores)
    blocked = np.vectorize(lambda s: words.blocked_score.format(score=s), otypes=[object])(numbers)
    fig.data[0].text = np.where(allowed, numbers, blocked)
    fig.data[0].hovertemplate = f"{words.query}: %{{y}}<br>{words.key}: %{{x}}<br>{words.masked_score}: %{{text}}" \
                                "<extra></extra>"
    if not allowed.all():  # the grey overlay: write −∞ on each blocked cell
        fig.data[1].text = np.where(allowed, "", "−∞")
        fig.data[1].texttemplate = "%{text}" if max(allowed.shape) <= 24 else None
    return fig
