"""Plotly figures of the Heads page. Pure Plotly: arrays + labels in, ``go.Figure`` out.

Same conventions as ``mha.charts.figures``: queries down the side, keys along the top, labels escaped and made unique
(``axis_labels``), weights on a fixed 0..1 scale, differences on a diverging scale centred on 0, blocked cells grey,
no NaN in any trace. Words shown on a figure come from ``words`` (``figures.Words``, English by default) or as
arguments (the page translates both).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mha.charts.figures import (
    DIVERGING_SCALE,
    ENGLISH,
    GRID_FONT,
    GRID_ROW_PX,
    GRID_WIDTH_PX,
    LABELS_MAX_TOKENS,
    MASKED_GREY,
    WEIGHTS_SCALE,
    Words,
    axis_labels,
    every_label,
    hover_labels,
    label_band_px,
    symmetric_range,
    text_px,
    tick_angle,
    tick_font,
    weights_bar_title,
)
from mha.core.markup import escape_for_plotly

# A switched-off head: hatched grey over its row, its name greyed out.
OFF_FILL, OFF_HATCH, OFF_TEXT = "rgba(203, 213, 224, 0.92)", "rgba(113, 128, 150, 0.9)", "#a0aec0"
_MASK_SCALE = [[0.0, "rgba(0,0,0,0)"], [0.5, "rgba(0,0,0,0)"], [0.5, MASKED_GREY], [1.0, MASKED_GREY]]
_OFF_COLOUR = "#c53030"
_QUERY_COLOUR = "#2b6cb0"
_KEY_COLOUR = "#dd6b20"


def _finite(a) -> np.ndarray:
    """float32 copy with any non-finite value replaced by 0: nothing NaN reaches the browser."""
    return np.nan_to_num(np.asarray(a, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0)


def _blocked_overlay(allowed: np.ndarray, x, y) -> go.Heatmap:
    return go.Heatmap(z=(~np.asarray(allowed, dtype=bool)).astype(np.int8), x=x, y=y, zmin=0, zmax=1,
                      colorscale=_MASK_SCALE, showscale=False, hoverinfo="skip", name="masked")


def _matrix_axes(fig: go.Figure, x, n_rows: int, panels: int, ticks: bool = True) -> int:
    """Token labels of side-by-side matrices: every row named (up to LABELS_MAX_TOKENS), every column named when
    ``panels`` matrices across the page leave a column room for an upright label. Returns the px the key labels
    take below a panel (0 when not shown)."""
    slot = (GRID_WIDTH_PX - 120) / max(panels, 1) / max(len(x), 1)
    show_y = ticks and n_rows <= LABELS_MAX_TOKENS
    show_x = ticks and len(x) <= LABELS_MAX_TOKENS and slot >= GRID_FONT + 1
    angle = tick_angle(x, slot, GRID_FONT) if show_x else 0
    fig.update_yaxes(every_label(dict(autorange="reversed", type="category", automargin=True), show_y, GRID_FONT))
    fig.update_xaxes(every_label(dict(type="category", automargin=True, tickangle=angle), show_x, GRID_FONT, x))
    return label_band_px(x, angle, GRID_FONT) if show_x else 0


def _token_axis(fig: go.Figure, x, width_px: float = GRID_WIDTH_PX) -> int:
    """Tokens along the bottom of a chart ``width_px`` wide: every one named while an upright label fits its
    column (else none: the hover names them), horizontal when they fit. Returns the px the labels take."""
    slot = (width_px - 120) / max(len(x), 1)
    show = len(x) <= LABELS_MAX_TOKENS and slot >= GRID_FONT + 1
    angle = tick_angle(x, slot, GRID_FONT) if show else 0
    fig.update_xaxes(every_label(dict(type="category", automargin=True, tickangle=angle), show, GRID_FONT, x))
    return label_band_px(x, angle, GRID_FONT) if show else 0


def head_names(num_heads: int, head_word: str | None = None, off: Sequence[int] = (), off_word: str | None = None,
               words: Words = ENGLISH) -> list[str]:
    head_word = words.head if head_word is None else head_word
    off_word = words.off if off_word is None else off_word
    return [f"{head_word} {h}" + (f" · {off_word}" if h in off else "") for h in range(num_heads)]


# ------------------------------------------------------------------------------------------- statistics
def stats_chart(columns: dict[str, np.ndarray], titles: dict[str, str], head_word: str | None = None,
                words: Words = ENGLISH) -> go.Figure:
    """Small bar charts side by side, one per measurement, one bar per head (each on its own axis: units differ)."""
    head_word = words.head if head_word is None else head_word
    names = [k for k in columns if columns[k] is not None]
    fig = make_subplots(rows=1, cols=max(1, len(names)), subplot_titles=[titles.get(k, k) for k in names],
                        horizontal_spacing=0.06)
    for c, name in enumerate(names, start=1):
        vals = _finite(columns[name])
        heads = [str(h) for h in range(len(vals))]
        fig.add_trace(go.Bar(x=heads, y=vals, marker_color=_QUERY_COLOUR, name=titles.get(name, name),
                             hovertemplate=f"{head_word} %{{x}}<br>{escape_for_plotly(titles.get(name, name))}: "
                                           f"%{{y:.3f}}<extra></extra>", showlegend=False), row=1, col=c)
        fig.update_xaxes(title=dict(text=head_word, standoff=2), type="category", row=1, col=c)
    fig.update_annotations(font_size=12)
    fig.update_layout(height=240, margin=dict(l=10, r=10, t=40, b=10), bargap=0.25)
    return fig


def entropy_heatmap(entropy: np.ndarray, valid: np.ndarray, q_labels, max_bits: float, head_word: str | None = None,
                    title: str | None = None, words: Words = ENGLISH) -> go.Figure:
    """Heads down the side, query tokens along the bottom: the entropy of every row, 0 .. log2(Tk) bits."""
    H, Tq = entropy.shape
    title = words.bits if title is None else title
    x, y = axis_labels(q_labels), head_names(H, head_word, words=words)
    fig = go.Figure(go.Heatmap(z=_finite(np.where(valid, entropy, 0.0)), x=x, y=y, colorscale="Purples", zmin=0.0,
                               zmax=max(float(max_bits), 1e-6), colorbar=dict(title=dict(text=title), thickness=12),
                               hovertemplate=f"%{{y}}<br>{words.query}: %{{x}}<br>{words.entropy}: %{{z:.3f}} "
                                             f"{words.bits}<extra></extra>"))
    if not np.asarray(valid).all():
        fig.add_trace(_blocked_overlay(valid, x, y))
    fig.update_yaxes(autorange="reversed", type="category", automargin=True, tickfont=tick_font())
    band = _token_axis(fig, x)
    fig.update_layout(height=max(220, min(560, 60 + 30 * H)) + band, margin=dict(l=10, r=10, t=20, b=10))
    return fig


# ------------------------------------------------------------------------------------------- similarity
def similarity_heatmap(sim: np.ndarray, metric: str, selected: Optional[tuple[int, int]] = None,
                       head_word: str | None = None, title: str = "", words: Words = ENGLISH) -> go.Figure:
    """(H, H) head-to-head comparison. An invisible marker on every cell makes it clickable (heatmap cells emit
    no selection events in Plotly; markers do): ``customdata`` = [head a, head b]."""
    H = sim.shape[0]
    names = head_names(H, head_word, words=words)
    z = _finite(sim)
    # Dark = alike (JS divergence is 0 for identical rows, cosine is 1). The scale spans the pairs of different
    # heads, not 0..1: random heads are all rather alike, and a fixed scale would paint them one colour.
    off = z[~np.eye(H, dtype=bool)]
    if metric == "js":
        scale, lo, hi = "Blues_r", 0.0, float(off.max()) if off.size else 1.0
    else:
        scale, lo, hi = "Blues", float(off.min()) if off.size else 0.0, 1.0
    hi = hi if hi > lo else lo + 1e-6
    fig = go.Figure(go.Heatmap(z=z, x=names, y=names, zmin=lo, zmax=hi, colorscale=scale,
                               colorbar=dict(title=dict(text=title), thickness=12),
                               hovertemplate="%{y} · %{x}<br>%{z:.3f}<extra></extra>"))
    if H <= 8:
        fig.update_traces(text=[[f"{v:.2f}" for v in row] for row in z], texttemplate="%{text}", textfont_size=11)
    aa, bb = np.meshgrid(np.arange(H), np.arange(H), indexing="ij")
    fig.add_trace(go.Scatter(
        x=[names[b] for b in bb.ravel()], y=[names[a] for a in aa.ravel()], mode="markers",
        # plain lists: a typed array would reach the selection event as {"0": a, "1": b}
        customdata=np.stack([aa.ravel(), bb.ravel()], axis=1).tolist(),
        marker=dict(symbol="square", size=max(8, min(48, 420 // max(H, 1))), opacity=0),
        text=[f"{v:.3f}" for v in z.ravel()], hovertemplate="%{y} · %{x}<br>%{text}<extra></extra>",
        name="pairs", showlegend=False))
    if selected is not None:
        a, b = selected
        fig.add_shape(type="rect", x0=b - 0.5, x1=b + 0.5, y0=a - 0.5, y1=a + 0.5, line=dict(color="#ff7f0e", width=3))
    fig.update_yaxes(autorange="reversed", type="category", automargin=True)
    fig.update_xaxes(type="category", side="top", automargin=True)
    size = max(260, min(560, 90 + 40 * H))
    fig.update_layout(height=size, width=size + 110, margin=dict(l=10, r=10, t=30, b=10), dragmode=False,
                      clickmode="event+select")
    return fig


def pair_figure(wa: np.ndarray, wb: np.ndarray, q_labels, k_labels, titles: Sequence[str],
                allowed: Optional[np.ndarray] = None, words: Words = ENGLISH, top: float = 1.0) -> go.Figure:
    """Two heads side by side on one colour scale 0..``top`` (the view's: figures.weights_top), then their
    difference (a - b) on a diverging scale."""
    Tq, Tk = wa.shape
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    diff = _finite(wa) - _finite(wb)
    fig = make_subplots(rows=1, cols=3, subplot_titles=list(titles), horizontal_spacing=0.07)
    hover = f"{words.query}: %{{y}}<br>{words.key}: %{{x}}<br>%{{z:.4f}}<extra></extra>"
    for c, (z, axis) in enumerate(((wa, "coloraxis"), (wb, "coloraxis"), (diff, "coloraxis2")), start=1):
        fig.add_trace(go.Heatmap(z=_finite(z), x=x, y=y, coloraxis=axis, hovertemplate=hover), row=1, col=c)
        if allowed is not None and not np.asarray(allowed).all():
            fig.add_trace(_blocked_overlay(allowed, x, y), row=1, col=c)
    band = _matrix_axes(fig, x, Tq, panels=3)
    m = symmetric_range(diff)
    fig.update_layout(
        coloraxis=dict(colorscale=WEIGHTS_SCALE, cmin=0.0, cmax=top,
                       colorbar=dict(title=dict(text=weights_bar_title(top, words)), thickness=10, x=1.02, y=1.0,
                                     yanchor="top", len=0.48)),
        coloraxis2=dict(colorscale=DIVERGING_SCALE, cmin=-m, cmax=m,
                        colorbar=dict(title=dict(text="a − b"), thickness=10, x=1.02, y=0.0, yanchor="bottom",
                                      len=0.48)),
        height=max(340, 100 + band + Tq * (max(GRID_ROW_PX, min(22, 500 // max(Tq, 1))) if Tq <= LABELS_MAX_TOKENS
                                          else max(3, 500 // Tq))), margin=dict(l=10, r=10, t=40, b=10))
    return fig


# ------------------------------------------------------------------------------------------- ablation
def change_chart(change: np.ndarray, output_norm: np.ndarray, q_labels, title: str | None = None,
                 words: Words = ENGLISH) -> go.Figure:
    """One bar per token: how far its final output moved when the chosen heads were switched off."""
    title = words.change if title is None else title
    x = axis_labels(q_labels)
    rel = np.where(output_norm > 0, change / np.maximum(output_norm, 1e-12), 0.0)
    fig = go.Figure(go.Bar(x=x, y=_finite(change), marker_color=_OFF_COLOUR, customdata=_finite(100 * rel),
                           hovertemplate=f"%{{x}}<br>‖Δ {words.output}‖ = %{{y:.4f}}<br>"
                                         + words.share_of_output.format(pct="%{customdata:.1f}") + "<extra></extra>",
                           name=title))
    fig.add_trace(go.Scatter(x=x, y=_finite(output_norm), mode="markers", marker=dict(symbol="line-ew-open", size=18,
                                                                                       color="#4a5568"),
                             name=f"‖{words.output}‖",
                             hovertemplate=f"%{{x}}<br>‖{words.output}‖ = %{{y:.4f}}<extra></extra>"))
    band = _token_axis(fig, x)
    fig.update_layout(height=220 + band, margin=dict(l=10, r=10, t=20, b=10), legend=dict(orientation="h", y=1.12),
                      yaxis=dict(title=dict(text=title), rangemode="tozero"))
    return fig


def contributions_heatmap(norms: np.ndarray, q_labels, heads_off: Sequence[int] = (), head_word: str | None = None,
                          off_word: str | None = None, title: str | None = None, words: Words = ENGLISH) -> go.Figure:
    """(H, Tq) length of each head's contribution to each token's output. A switched-off head's row is visibly off:
    covered in hatched grey with the word "off" written across it, and its name greyed out."""
    H, Tq = norms.shape
    off_word = words.off if off_word is None else off_word
    title = f"‖{words.result}‖" if title is None else title
    off = sorted({int(h) for h in heads_off if 0 <= int(h) < H})
    x, y = axis_labels(q_labels), head_names(H, head_word, off, off_word, words=words)
    fig = go.Figure(go.Heatmap(z=_finite(norms), x=x, y=y, colorscale="Oranges", zmin=0.0,
                               zmax=float(_finite(norms).max(initial=0.0)) or 1.0,
                               colorbar=dict(title=dict(text=title), thickness=12),
                               hovertemplate=f"%{{y}}<br>{words.token}: %{{x}}<br>{title} = %{{z:.4f}}"
                                             "<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category", automargin=True, tickfont=tick_font())
    band = _token_axis(fig, x)
    if off:  # the names of the heads that are off, greyed out
        fig.update_yaxes(tickmode="array", tickvals=y, ticktext=[
            f"<span style='color:{OFF_TEXT}'>{name}</span>" if h in off else name for h, name in enumerate(y)])
    for h in off:  # a grey band with diagonal hatching over the row, and the word in the middle
        fig.add_trace(go.Scatter(
            x=[-0.5, Tq - 0.5, Tq - 0.5, -0.5, -0.5], y=[h - 0.5, h - 0.5, h + 0.5, h + 0.5, h - 0.5], xaxis="x2",
            yaxis="y2", mode="lines", fill="toself", fillcolor=OFF_FILL, line=dict(width=0), hoverinfo="skip",
            fillpattern=dict(shape="/", fgcolor=OFF_HATCH, bgcolor=OFF_FILL, size=8, solidity=0.15),
            showlegend=False, name=f"{off_word} {h}"))
        fig.add_annotation(x=(Tq - 1) / 2, y=h, xref="x2", yref="y2", text=f"<b>{escape_for_plotly(off_word)}</b>",
                           showarrow=False, font=dict(size=13, color="#2d3748"), bgcolor="rgba(255,255,255,0.8)")
    if off:  # numeric twin axes over the category ones: the bands sit exactly on the rows
        fig.update_layout(xaxis2=dict(overlaying="x", range=[-0.5, Tq - 0.5], visible=False),
                          yaxis2=dict(overlaying="y", range=[H - 0.5, -0.5], visible=False))
    fig.update_layout(height=max(220, min(560, 60 + 30 * H)) + band, margin=dict(l=10, r=10, t=20, b=10))
    return fig


# ------------------------------------------------------------------------------------------- queries and keys
QK_HEIGHT_PX = 520
QK_PLOT_PX = (GRID_WIDTH_PX - 60, QK_HEIGHT_PX - 90)  # about the plot area (the page's main column), labels aside
QK_LABEL_PX = 14  # a 12 px token name is drawn ~14 px high


def spaced_labels(q2: np.ndarray, k2: np.ndarray, q_labels, k_labels, first: Sequence[tuple[str, int]] = (),
                  plot_px: tuple[float, float] = QK_PLOT_PX, font: int = 12) -> tuple[list[bool], list[bool]]:
    """Which points of the q/k map get their name written beside them: as many as fit without two names
    overlapping (#27.4: at 38 tokens 76 names piled up), in order of ``first`` (("q" | "k", index): the chosen
    query, its top keys), then the queries and keys in sentence order, clear of the other points too. A query's name
    sits above its point, a key's
    below (``textposition``). The plot's pixel scale is estimated from ``plot_px`` and the points' range with equal
    units on both axes (``scaleanchor``); the rest are named on hover. Returns (query shown, key shown)."""
    pts = {"q": np.asarray(q2, dtype=np.float64), "k": np.asarray(k2, dtype=np.float64)}
    labels = {"q": [str(x) for x in q_labels], "k": [str(x) for x in k_labels]}
    both = np.concatenate([pts["q"], pts["k"]])
    span = np.maximum(both.max(axis=0) - both.min(axis=0), 1e-12) * 1.25  # Plotly pads the range; err on the small side
    scale = min(plot_px[0] / span[0], plot_px[1] / span[1])  # px per unit, equal on both axes
    order = list(first) + [(kind, i) for i in range(max(len(labels["q"]), len(labels["k"])))
                           for kind in ("q", "k") if i < len(labels[kind])]
    def screen(kind, i):
        return pts[kind][i] * scale * np.array([1.0, -1.0])  # px; screen y grows downward

    def apart(box, boxes):
        return all(box[2] <= b[0] or b[2] <= box[0] or box[3] <= b[1] or b[3] <= box[1] for b in boxes)

    marks = [(x - 5, y - 5, x + 5, y + 5) for kind in ("q", "k") for i in range(len(labels[kind]))
             for x, y in [screen(kind, i)]]  # the points themselves: a name is not written over another's point
    kept: list[tuple[float, float, float, float]] = []
    shown = {"q": [False] * len(labels["q"]), "k": [False] * len(labels["k"])}
    for n, (kind, i) in enumerate(order):
        if shown[kind][i]:
            continue
        cx, cy = screen(kind, i)
        w = text_px(labels[kind][i], font) + 8  # 4 px of air each side: the scale is an estimate
        top = cy - 8 - QK_LABEL_PX if kind == "q" else cy + 8  # above the circle, below the diamond
        box = (cx - w / 2, top - 1, cx + w / 2, top + QK_LABEL_PX + 1)
        # the first of ``first`` (the chosen query) is always named; the rest of ``first`` before other names,
        # over points if need be; the others only clear of every name and point
        if n == 0 or apart(box, kept) and (n < len(first) or apart(box, marks)):
            kept.append(box)
            shown[kind][i] = True
    return shown["q"], shown["k"]


def qk_figure(q2: np.ndarray, k2: np.ndarray, q_labels, k_labels, query: int, top: Sequence[int],
              weights_row: np.ndarray, axis_titles: Optional[Sequence[str]] = None,
              names: Optional[Sequence[str]] = None, words: Words = ENGLISH) -> go.Figure:
    """q (circles) and k (diamonds) in one shared 2D projection, tokens written beside them; lines from the
    chosen query to its top keys, thicker for larger weights."""
    axis_titles = (words.pc.format(n=1), words.pc.format(n=2)) if axis_titles is None else axis_titles
    names = (words.queries, words.keys) if names is None else names
    ql, kl = [escape_for_plotly(str(s)) for s in q_labels], [escape_for_plotly(str(s)) for s in k_labels]
    qh, kh = hover_labels(q_labels), hover_labels(k_labels)  # the hover names a pretrained token's raw piece too
    q2, k2 = _finite(q2), _finite(k2)
    fig = go.Figure()
    w = np.asarray(weights_row, dtype=np.float64)
    q_on, k_on = spaced_labels(q2, k2, q_labels, k_labels, [("q", query)] + [("k", int(j)) for j in top])
    ql, kl = [s if on else "" for s, on in zip(ql, q_on)], [s if on else "" for s, on in zip(kl, k_on)]
    for j in top:
        fig.add_trace(go.Scatter(x=[q2[query, 0], k2[j, 0]], y=[q2[query, 1], k2[j, 1]], mode="lines",
                                 line=dict(color="#718096", width=1 + 8 * float(w[j])), hoverinfo="skip",
                                 showlegend=False, name="top"))
    fig.add_trace(go.Scatter(x=k2[:, 0], y=k2[:, 1], mode="markers+text", text=kl, textposition="bottom center",
                             marker=dict(symbol="diamond", size=11, color=_KEY_COLOUR), name=names[1],
                             customdata=_finite(w), textfont=dict(color=_KEY_COLOUR), hovertext=kh,
                             hovertemplate=f"k: %{{hovertext}}<br>{words.weight_from_query}: %{{customdata:.3f}}"
                                           "<extra></extra>"))
    sizes = [18 if i == query else 10 for i in range(len(ql))]
    fig.add_trace(go.Scatter(x=q2[:, 0], y=q2[:, 1], mode="markers+text", text=ql, textposition="top center",
                             marker=dict(symbol="circle", size=sizes, color=_QUERY_COLOUR,
                                         line=dict(width=[3 if i == query else 0 for i in range(len(ql))],
                                                   color="#1a202c")),
                             textfont=dict(color=_QUERY_COLOUR), name=names[0], hovertext=qh,
                             hovertemplate="q: %{hovertext}<extra></extra>"))
    fig.update_xaxes(title=dict(text=axis_titles[0]), zeroline=True, zerolinecolor="#e2e8f0")
    fig.update_yaxes(title=dict(text=axis_titles[1]), zeroline=True, zerolinecolor="#e2e8f0", scaleanchor="x")
    fig.update_layout(height=QK_HEIGHT_PX, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", y=1.06))
    return fig


def unnamed_points(fig: go.Figure) -> int:
    """How many points of a ``qk_figure`` have no name written beside them (named on hover only)."""
    return sum(1 for tr in fig.data if tr.mode == "markers+text" for s in tr.text if not s)


# ------------------------------------------------------------------------------------------- order and seeds
def matrices_row(mats: Sequence[np.ndarray], titles: Sequence[str], q_labels: Sequence[Sequence[str]],
                 k_labels: Sequence[Sequence[str]], allowed: Optional[Sequence[np.ndarray]] = None,
                 cols: int = 4, words: Words = ENGLISH, top: float = 1.0) -> go.Figure:
    """Weight maps side by side on one scale 0..``top`` (the view's: figures.weights_top), each with its own token
    labels (e.g. a sentence and its
    shuffle, or one head under several seeds)."""
    n = len(mats)
    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=list(titles), horizontal_spacing=0.06,
                        vertical_spacing=0.12 / max(1, rows / 2))
    T = max(m.shape[0] for m in mats) if n else 0
    for i, m in enumerate(mats):
        r, c = divmod(i, cols)
        x, y = axis_labels(k_labels[i]), axis_labels(q_labels[i])
        fig.add_trace(go.Heatmap(z=_finite(m), x=x, y=y, coloraxis="coloraxis",
                                 hovertemplate=f"{escape_for_plotly(titles[i])}<br>{words.query}: %{{y}}<br>"
                                               f"{words.key}: %{{x}}<br>{words.weight}: %{{z:.4f}}<extra></extra>"),
                      row=r + 1, col=c + 1)
        if allowed is not None and not np.asarray(allowed[i]).all():
            fig.add_trace(_blocked_overlay(allowed[i], x, y), row=r + 1, col=c + 1)
    band = _matrix_axes(fig, axis_labels(k_labels[0]) if n else [], T, panels=cols)
    cell = max(GRID_ROW_PX if T <= LABELS_MAX_TOKENS else 3, min(26, 700 // max(T, 1) // cols))
    fig.update_layout(coloraxis=dict(colorscale=WEIGHTS_SCALE, cmin=0.0, cmax=top,
                                     colorbar=dict(title=dict(text=weights_bar_title(top, words)), thickness=12)),
                      height=max(240, min(rows * (cell * T + 90 + band) + 30, 2400)),
                      margin=dict(l=10, r=10, t=40, b=10))
    return fig
