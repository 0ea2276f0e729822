"""Plotly figures for attention. Pure Plotly: builders take arrays plus token labels and return ``go.Figure``.

Conventions shared by every figure:
- queries down the side (y, first token at the top), keys along the top (x);
- a repeated word stays its own row and column: labels are made unique with invisible zero-width spaces;
- labels are HTML-escaped (Plotly renders <b>, <a>, <span style> in text), so a token is shown, never interpreted;
- weights use a 0..1 sequential scale; scores and outputs a diverging scale centred on 0;
- blocked (masked) cells are covered in grey by a transparent-elsewhere overlay, so they never look like a
  merely small weight, and no NaN is ever put in a chart.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mha.text import escape_for_plotly

WEIGHTS_SCALE = "Blues"
DIVERGING_SCALE = "RdBu_r"
MASKED_GREY = "rgba(150, 150, 150, 1)"
_ZWSP = "\u200b"
_MASK_SCALE = [[0.0, "rgba(0,0,0,0)"], [0.5, "rgba(0,0,0,0)"], [0.5, MASKED_GREY], [1.0, MASKED_GREY]]


def axis_labels(labels) -> list[str]:
    """Escaped, unique category labels: the k-th repeat of a label gets k zero-width spaces appended."""
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        n = seen.get(lab, 0)
        seen[lab] = n + 1
        out.append(escape_for_plotly(lab) + _ZWSP * n)
    return out


def _color_kwargs(kind: str, zmax: float | None = None) -> dict:
    if kind == "weights":
        return dict(colorscale=WEIGHTS_SCALE, cmin=0.0, cmax=1.0)
    return dict(colorscale=DIVERGING_SCALE, cmid=0.0) if zmax is None else dict(
        colorscale=DIVERGING_SCALE, cmin=-zmax, cmax=zmax)


def _sym_max(a: np.ndarray) -> float:
    m = float(np.max(np.abs(a))) if a.size else 1.0
    return m if m > 0 and math.isfinite(m) else 1.0


def _hover(kind: str, head: int | None, row_name: str = "query", col_name: str = "key") -> str:
    head_part = f"head {head}<br>" if head is not None else ""
    return f"{head_part}{row_name}: %{{y}}<br>{col_name}: %{{x}}<br>{kind}: %{{z:.4f}}<extra></extra>"


def _mask_overlay(allowed: np.ndarray, x, y, **kw) -> go.Heatmap:
    blocked = (~allowed).astype(np.int8)  # 1 = blocked: grey; 0 = transparent
    return go.Heatmap(z=blocked, x=x, y=y, zmin=0, zmax=1, colorscale=_MASK_SCALE, showscale=False,
                      hoverinfo="skip", name="masked", **kw)


def _square_axes(fig: go.Figure, n_rows: int, tick_font: int) -> None:
    fig.update_yaxes(autorange="reversed", type="category", tickfont_size=tick_font, automargin=True)
    fig.update_xaxes(type="category", side="top", tickfont_size=tick_font, tickangle=-45, automargin=True)


def heads_grid(mats: np.ndarray, q_labels, k_labels, kind: str = "weights", allowed: np.ndarray | None = None,
               cols: int = 4, heads=None) -> go.Figure:
    """Small multiples: one heatmap per head (H, Tq, Tk) on one shared colour scale."""
    H, Tq, Tk = mats.shape
    heads = list(range(H)) if heads is None else list(heads)
    cols = max(1, min(cols, H))
    rows = math.ceil(H / cols)
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"head {h}" for h in heads],
                        horizontal_spacing=0.04 + 0.02 * (Tq <= 24), vertical_spacing=0.08 / max(1, rows / 2))
    for i, h in enumerate(heads):
        r, c = divmod(i, cols)
        fig.add_trace(go.Heatmap(z=mats[i].astype(np.float32), x=x, y=y, coloraxis="coloraxis",
                                 hovertemplate=_hover(kind, h)), row=r + 1, col=c + 1)
        if allowed is not None and not allowed[i].all():
            fig.add_trace(_mask_overlay(allowed[i], x, y), row=r + 1, col=c + 1)
    cell_px = max(4, min(28, 900 // max(Tq, 1) // cols * 1))
    height = int(rows * (cell_px * Tq + 90) + 60)
    show_ticks = Tq <= 20
    _square_axes(fig, Tq, 9)
    fig.update_xaxes(showticklabels=show_ticks, side="bottom")  # on top they would collide with the titles
    fig.update_yaxes(showticklabels=show_ticks)
    fig.update_layout(coloraxis=dict(**_color_kwargs(kind, None if kind == "weights" else _sym_max(mats)),
                                     colorbar=dict(title=dict(text=kind), thickness=12)),
                      height=max(260, min(height, 2400)), margin=dict(l=10, r=10, t=50, b=10))
    return fig


def head_heatmap(mat: np.ndarray, q_labels, k_labels, kind: str = "weights", allowed: np.ndarray | None = None,
                 head: int | None = None, clickable: bool = True, selected: tuple[int, int] | None = None,
                 zmax: float | None = None) -> go.Figure:
    """One head, large. With ``clickable``, an invisible scatter marker sits on every cell: Plotly heatmap cells
    emit no selection events, markers do (``customdata`` = [query index, key index])."""
    Tq, Tk = mat.shape
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    fig = go.Figure(go.Heatmap(z=mat.astype(np.float32), x=x, y=y, hovertemplate=_hover(kind, head),
                               coloraxis="coloraxis"))
    if allowed is not None and not allowed.all():
        fig.add_trace(_mask_overlay(allowed, x, y))
    if clickable:
        ii, jj = np.meshgrid(np.arange(Tq), np.arange(Tk), indexing="ij")
        fig.add_trace(go.Scatter(
            x=[x[j] for j in jj.ravel()], y=[y[i] for i in ii.ravel()], mode="markers",
            customdata=np.stack([ii.ravel(), jj.ravel()], axis=1).astype(np.int32),
            marker=dict(symbol="square", size=max(6, min(40, 560 // max(Tq, Tk))), opacity=0),
            hovertemplate=_hover(kind, head).replace("%{z:.4f}", "%{text}"),
            text=[f"{v:.4f}" for v in mat.ravel()], name="cells", showlegend=False))
    if selected is not None:
        i, j = selected
        if 0 <= i < Tq and 0 <= j < Tk:
            fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5,
                          line=dict(color="#ff7f0e", width=3))
    size = max(280, min(700, 60 + 30 * max(Tq, Tk)))
    _square_axes(fig, Tq, 11 if Tq <= 30 else 8)
    fig.update_xaxes(showticklabels=Tk <= 64, title=dict(text="key (attended to)", standoff=4))
    fig.update_yaxes(showticklabels=Tq <= 64, title=dict(text="query (attending)", standoff=4))
    fig.update_layout(coloraxis=dict(**_color_kwargs(kind, zmax if zmax else (None if kind == "weights" else _sym_max(mat))),
                                     colorbar=dict(title=dict(text=kind), thickness=12)),
                      height=size, margin=dict(l=10, r=10, t=30, b=10), dragmode=False, clickmode="event+select")
    return fig


def features_heatmap(mat: np.ndarray, row_labels, kind: str = "output", col_title: str = "feature",
                     zmax: float | None = None) -> go.Figure:
    """A (T, F) matrix with tokens down the side and feature indices along the bottom (head outputs, output)."""
    T, Fdim = mat.shape
    y = axis_labels(row_labels)
    fig = go.Figure(go.Heatmap(z=mat.astype(np.float32), x=list(range(Fdim)), y=y, coloraxis="coloraxis",
                               hovertemplate=f"token: %{{y}}<br>{col_title}: %{{x}}<br>{kind}: %{{z:.4f}}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category", automargin=True, showticklabels=T <= 64)
    fig.update_xaxes(title=dict(text=col_title))
    fig.update_layout(coloraxis=dict(**_color_kwargs(kind, zmax or _sym_max(mat)), colorbar=dict(thickness=12)),
                      height=max(220, min(640, 70 + 22 * T)), margin=dict(l=10, r=10, t=30, b=10))
    return fig


def head_outputs_grid(head_outputs: np.ndarray, q_labels, cols: int = 4) -> go.Figure:
    """Each head's output (H, Tq, head_dim) as small multiples on one shared diverging scale."""
    H, Tq, hd = head_outputs.shape
    cols = max(1, min(cols, H))
    rows = math.ceil(H / cols)
    y = axis_labels(q_labels)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"head {h}" for h in range(H)],
                        horizontal_spacing=0.05, vertical_spacing=0.1 / max(1, rows / 2))
    for h in range(H):
        r, c = divmod(h, cols)
        fig.add_trace(go.Heatmap(z=head_outputs[h].astype(np.float32), x=list(range(hd)), y=y,
                                 coloraxis="coloraxis",
                                 hovertemplate=f"head {h}<br>token: %{{y}}<br>dim: %{{x}}<br>value: %{{z:.4f}}<extra></extra>"),
                      row=r + 1, col=c + 1)
    fig.update_yaxes(autorange="reversed", type="category", showticklabels=Tq <= 20, tickfont_size=9)
    fig.update_layout(coloraxis=dict(**_color_kwargs("output", _sym_max(head_outputs)), colorbar=dict(thickness=12)),
                      height=max(240, min(rows * (min(22, 600 // max(Tq, 1)) * Tq + 80) + 40, 2000)),
                      margin=dict(l=10, r=10, t=50, b=10))
    return fig


# --- masks (the Masks page and the bug zoo) ---------------------------------------------------------------------------
MAY_ATTEND_GREEN = "rgba(198, 239, 206, 1)"


def mask_heatmap(allowed: np.ndarray, q_labels, k_labels) -> go.Figure:
    """A (Tq, Tk) mask: green ✓ = may attend (True / 1), grey ✗ = blocked (False / 0)."""
    allowed = np.asarray(allowed, dtype=bool)
    Tq, Tk = allowed.shape
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    fig = go.Figure(go.Heatmap(
        z=allowed.astype(np.int8), x=x, y=y, zmin=0, zmax=1, showscale=False, xgap=1, ygap=1,
        colorscale=[[0.0, MASKED_GREY], [0.5, MASKED_GREY], [0.5, MAY_ATTEND_GREEN], [1.0, MAY_ATTEND_GREEN]],
        text=np.where(allowed, "✓", "✗"), texttemplate="%{text}" if max(Tq, Tk) <= 24 else None,
        hovertemplate="query: %{y}<br>key: %{x}<br>mask: %{z} (1 = may attend, 0 = blocked)<extra></extra>"))
    _square_axes(fig, Tq, 11 if Tq <= 30 else 8)
    fig.update_xaxes(showticklabels=Tk <= 64, title=dict(text="key", standoff=4))
    fig.update_yaxes(showticklabels=Tq <= 64, title=dict(text="query", standoff=4))
    fig.update_layout(height=max(260, min(620, 60 + 26 * max(Tq, Tk))), margin=dict(l=10, r=10, t=30, b=10))
    return fig


def masked_scores_heatmap(scores: np.ndarray, allowed: np.ndarray, q_labels, k_labels) -> go.Figure:
    """Scores after masking: allowed cells coloured by score, blocked cells grey and marked −∞ (the chart holds
    0 there: −∞ has no colour, and a chart never gets NaN or infinities). Hover shows the hidden score."""
    allowed = np.asarray(allowed, dtype=bool)
    shown = np.where(allowed, scores, 0.0).astype(np.float32)
    zmax = _sym_max(scores[allowed]) if allowed.any() else 1.0
    fig = head_heatmap(shown, q_labels, k_labels, kind="scores", allowed=allowed, clickable=False, zmax=zmax)
    fig.data[0].text = np.where(allowed, np.char.mod("%.4f", scores), np.char.mod("−∞ (blocked; score was %.4f)", scores))
    fig.data[0].hovertemplate = "query: %{y}<br>key: %{x}<br>masked score: %{text}<extra></extra>"
    if not allowed.all():  # the grey overlay: write −∞ on each blocked cell
        fig.data[1].text = np.where(allowed, "", "−∞")
        fig.data[1].texttemplate = "%{text}" if max(allowed.shape) <= 24 else None
    return fig
