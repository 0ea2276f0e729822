"""Plotly figures of training (Train and Induction pages): loss curves and per-head scores against steps.

Pure Plotly: arrays and words in, ``go.Figure`` out; lengths are checked (a curve's steps and values must agree), no
NaN or infinity reaches a chart (non-finite values are left out of a curve, with the step). Every word a chart shows
comes from ``CurveWords`` (English by default; the pages pass the translated one). Names given by the caller (a
run's legend entry) are escaped for Plotly like every label.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

import numpy as np
import plotly.graph_objects as go

from mha.core.markup import escape_for_plotly

HEAD_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
               "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd")
PLATEAU_FILL = "rgba(255, 193, 7, 0.18)"
DROP_COLOR = "#d62728"
NOW_COLOR = "rgba(60, 60, 60, 0.55)"


@dataclass(frozen=True)
class CurveWords:
    """Words inside the training charts (``mha.app.sections.live.curve_words()`` builds the translated one)."""

    step: str = "step"
    loss: str = "loss"
    head: str = "head"
    plateau: str = "plateau"
    drop: str = "phase change"
    shown: str = "shown"  # the snapshot the page shows
    score: str = "score"


ENGLISH = CurveWords()


def _finite_xy(steps, values) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(steps, dtype=np.float64).ravel()
    y = np.asarray(values, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"A curve has {x.size} steps and {y.size} values: give one value per step.")
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok], y[ok]


def _now_line(step: Optional[int], words: CurveWords) -> list[dict]:
    if step is None:
        return []
    return [dict(type="line", xref="x", yref="paper", x0=step, x1=step, y0=0, y1=1,
                 line=dict(color=NOW_COLOR, width=1.5, dash="dot"))]


def loss_curve(curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], *, log_y: bool = True,
               steps_total: Optional[int] = None, now: Optional[int] = None, plateau: Optional[tuple[int, int]] = None,
               drop: Optional[int] = None, title: str = "", words: CurveWords = ENGLISH,
               height: int = 300) -> go.Figure:
    """One line per run ``{name: (steps, losses)}``. ``steps_total`` fixes the x range (a live curve then grows
    into it); ``now`` marks the snapshot shown; ``plateau`` (first, last step) is shaded and ``drop`` (the phase
    change's step) drawn as a line, both named in the legend-free annotations."""
    data = []
    top = 0.0
    for n, (name, (steps, losses)) in enumerate(curves.items()):
        x, y = _finite_xy(steps, losses)
        if log_y:
            keep = y > 0
            x, y = x[keep], y[keep]
        top = max(top, float(x.max()) if x.size else 0.0)
        data.append(dict(type="scatter", mode="lines", x=x, y=y, name=escape_for_plotly(str(name)),
                         line=dict(width=2, color=HEAD_COLORS[n % len(HEAD_COLORS)]),
                         hovertemplate=f"{words.step} %{{x}}<br>{words.loss} %{{y:.4g}}<extra>"
                                       f"{escape_for_plotly(str(name))}</extra>"))
    shapes, notes = _now_line(now, words), []
    if plateau is not None:
        a, b = plateau
        if not (0 <= a <= b):
            raise ValueError(f"plateau must be (first step, last step) with first <= last, got {plateau}.")
        shapes.append(dict(type="rect", xref="x", yref="paper", x0=a, x1=b, y0=0, y1=1, fillcolor=PLATEAU_FILL,
                           line=dict(width=0), layer="below"))
        notes.append(dict(x=(a + b) / 2, y=1, xref="x", yref="paper", text=words.plateau, showarrow=False,
                          yanchor="bottom", font=dict(size=11, color="#8a6d00")))
    if drop is not None:
        shapes.append(dict(type="line", xref="x", yref="paper", x0=drop, x1=drop, y0=0, y1=1,
                           line=dict(color=DROP_COLOR, width=2)))
        notes.append(dict(x=drop, y=1, xref="x", yref="paper", text=words.drop, showarrow=False, xanchor="left",
                          yanchor="bottom", font=dict(size=11, color=DROP_COLOR)))
    xmax = steps_total if steps_total is not None else max(top, 1.0)
    layout = dict(
        title=dict(text=title, font=dict(size=14)) if title else None, height=height,
        margin=dict(l=10, r=10, t=40 if (title or notes) else 20, b=10),
        xaxis=dict(title=dict(text=words.step), range=[0, xmax], automargin=True),
        yaxis=dict(title=dict(text=words.loss), type="log" if log_y else "linear", automargin=True),
        shapes=shapes, annotations=notes, showlegend=len(curves) > 1,
    )
    return go.Figure(dict(data=data, layout={k: v for k, v in layout.items() if v is not None}))


def score_curves(steps: Sequence[int], scores, *, title: str = "", steps_total: Optional[int] = None,
                 now: Optional[int] = None, threshold: Optional[float] = None, words: CurveWords = ENGLISH,
                 height: int = 260) -> go.Figure:
    """Per-head scores (N, H) in [0, 1] against the N checkpoints' ``steps``: one line per head."""
    s = np.asarray(scores, dtype=np.float64)
    x = np.asarray(steps)
    if s.ndim != 2 or s.shape[0] != x.size:
        raise ValueError(f"scores must be (steps, heads) with one row per step: got {s.shape} for {x.size} steps.")
    data = []
    for h in range(s.shape[1]):
        xs, ys = _finite_xy(x, s[:, h])
        data.append(dict(type="scatter", mode="lines", x=xs, y=ys, name=f"{words.head} {h}",
                         line=dict(width=2, color=HEAD_COLORS[h % len(HEAD_COLORS)]),
                         hovertemplate=f"{words.head} {h}<br>{words.step} %{{x}}<br>{words.score} %{{y:.3f}}"
                                       "<extra></extra>"))
    shapes = _now_line(now, words)
    if threshold is not None:
        shapes.append(dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=threshold, y1=threshold,
                           line=dict(color="#888", width=1, dash="dash")))
    top = float(x.max()) if x.size else 1.0
    layout = dict(height=height, margin=dict(l=10, r=10, t=40 if title else 20, b=10), shapes=shapes,
                  xaxis=dict(title=dict(text=words.step), range=[0, steps_total or max(top, 1.0)], automargin=True),
                  yaxis=dict(title=dict(text=words.score), range=[0, 1.02], automargin=True))
    if title:
        layout["title"] = dict(text=title, font=dict(size=14))
    return go.Figure(dict(data=data, layout=layout))
