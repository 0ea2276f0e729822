"""The neuron view (BertViz's): for one query of one head, how every key's score is made. Pure Plotly.

One row per key, read left to right: the key vector k_j, its elementwise product with the query q_i (the query
sits above the keys, on the same colour scale), the scaled score sum(q_i × k_j) / √head_dim and the weight the
softmax gives it. The scores and weights are the module's own (a ``View``'s ``scores`` and ``weights``); the
products are the arithmetic a learner would do by hand, so the figure shows that both agree.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mha.charts import figures
from mha.charts.figures import ENGLISH, Words
from mha.core.markup import escape_for_plotly

HIGHLIGHT = "#ff7f0e"  # the picked key: the heatmaps' selection orange
BAR_BLUE = "#2b6cb0"
ROW_PX = 18  # one key's row; the figure grows with the keys
GAP_PX = 28  # between the query's row and the keys' rows: the columns' titles
MIN_PLOT_PX = 220  # at least: the two colour bars share the plot's height (at 5 keys they were squeezed to a line)
TOP_TERMS = 3  # each key's largest terms of its dot product, named in the score's hover


def top_terms(products: np.ndarray, n: int = TOP_TERMS) -> list[list[tuple[int, float]]]:
    """Each row's ``n`` largest terms by size, as (dim, value): (Tk, head_dim) in, Tk lists out."""
    order = np.argsort(-np.abs(products), axis=-1, kind="stable")[:, :n]
    return [[(int(d), float(row[d])) for d in idx] for row, idx in zip(products, order, strict=True)]


def neuron_view(q: np.ndarray, k: np.ndarray, scores: np.ndarray, weights: np.ndarray, key_labels, *,
                query_label: str, allowed: np.ndarray | None = None, highlight: int | None = None,
                top: float = 1.0, words: Words = ENGLISH) -> go.Figure:
    """One query's row of one head, key by key.

    q: (head_dim,) the query vector; k: (Tk, head_dim) every key vector; scores, weights: (Tk,) the module's
    scaled scores and weights of this row; allowed: (Tk,) True = may attend (blocked keys are grey and weigh 0);
    highlight: the key picked below (orange); top: the right end of the weights' axis, the page's weights scale
    (``figures.weights_top``: at 40 keys every weight is near 1/40, invisible on 0 … 1; a larger weight runs to the
    edge, its hover gives the number). Raises ValueError when the arrays and labels disagree.
    """
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    scores, weights = np.asarray(scores, dtype=np.float64), np.asarray(weights, dtype=np.float64)
    if q.ndim != 1 or k.ndim != 2 or k.shape[1] != q.size:
        raise ValueError(f"q has shape {q.shape} and k {k.shape}: k must be (keys, head_dim) with head_dim = "
                         f"{q.size}, the length of q.")
    n_keys = k.shape[0]
    for name, arr in (("scores", scores), ("weights", weights)):
        if arr.shape != (n_keys,):
            raise ValueError(f"{name} has shape {arr.shape}, while there are {n_keys} keys: pass one query's row.")
    if len(key_labels) != n_keys:
        raise ValueError(f"There are {n_keys} keys, while the number of key labels is {len(key_labels)}.")
    allowed = np.ones(n_keys, bool) if allowed is None else np.asarray(allowed, bool)
    if allowed.shape != (n_keys,):
        raise ValueError(f"allowed has shape {allowed.shape}, while there are {n_keys} keys.")
    if not (np.isfinite(q).all() and np.isfinite(k).all() and np.isfinite(scores).all()
            and np.isfinite(weights).all()):
        raise ValueError("q, k, scores and weights must be finite: the neuron view puts no NaN in a chart.")
    head_dim = q.size
    products = q[None, :] * k  # (Tk, head_dim): q_i[d] * k_j[d]
    ys = figures.axis_labels(key_labels)
    dims = list(range(head_dim))
    q_name = f"q · {escape_for_plotly(str(query_label))}"
    plot_px = max(ROW_PX * (n_keys + 1) + GAP_PX, MIN_PLOT_PX)
    fig = make_subplots(rows=2, cols=4, shared_yaxes=True, horizontal_spacing=0.02,
                        vertical_spacing=GAP_PX / plot_px,  # room for the columns' titles between q and the keys
                        column_widths=[0.34, 0.34, 0.16, 0.16], row_heights=[ROW_PX, ROW_PX * n_keys],
                        specs=[[{}, None, None, None], [{}, {}, {}, {}]],
                        subplot_titles=(q_name, "", "q × k", words.scores, words.weights))
    fig.add_trace(go.Heatmap(z=q[None, :].astype(np.float32), x=dims, y=[q_name], coloraxis="coloraxis",
                             name="q", hovertemplate=f"{q_name}<br>{words.dim} %{{x}}: %{{z:.4f}}<extra></extra>"),
                  row=1, col=1)
    hover = "%{y}<br>" + words.dim + " %{x}: %{z:.4f}<extra></extra>"
    fig.add_trace(go.Heatmap(z=k.astype(np.float32), x=dims, y=ys, coloraxis="coloraxis", name="k",
                             hovertemplate="k · " + hover), row=2, col=1)
    fig.add_trace(go.Heatmap(z=products.astype(np.float32), x=dims, y=ys, coloraxis="coloraxis2", name="q × k",
                             hovertemplate="q × k · " + hover), row=2, col=2)
    terms = [", ".join(f"{words.dim} {d}: {v:+.3f}" for d, v in row) for row in top_terms(products)]
    raw = products.sum(axis=-1)
    colours = [figures.MASKED_GREY if not ok else HIGHLIGHT if j == highlight else BAR_BLUE
               for j, ok in enumerate(allowed)]
    fig.add_trace(go.Bar(x=scores, y=ys, orientation="h", name=words.scores, marker_color=colours,
                         customdata=np.stack([raw, np.array(terms, dtype=object)], axis=-1),
                         hovertemplate=(f"%{{y}}<br>{words.scores}: %{{x:.4f}}<br>"
                                        f"q · k = %{{customdata[0]:.4f}}, / √{head_dim} = {math.sqrt(head_dim):.3g}"
                                        f"<br>%{{customdata[1]}}<extra></extra>")),
                  row=2, col=3)
    weight_hover = [words.masked if not ok else "" for ok in allowed]
    fig.add_trace(go.Bar(x=np.where(allowed, weights, 0.0), y=ys, orientation="h", name=words.weights,
                         marker_color=colours, customdata=weight_hover,
                         hovertemplate=f"%{{y}}<br>{words.weight}: %{{x:.4f}} %{{customdata}}<extra></extra>"),
                  row=2, col=4)
    zq, zp = figures.symmetric_range(q, k), figures.symmetric_range(products)
    fig.update_yaxes(autorange="reversed", type="category", tickfont=figures.tick_font())
    fig.update_yaxes(showticklabels=False, row=1, col=1)
    fig.update_xaxes(showticklabels=False, row=1)
    fig.update_xaxes(title_text=f"k · {words.dim}", tickfont=figures.tick_font(), row=2, col=1)
    fig.update_xaxes(title_text=words.dim, tickfont=figures.tick_font(), row=2, col=2)
    if not (isinstance(top, (int, float)) and 0 < top <= 1):
        raise ValueError(f"top={top!r}: the right end of the weights' axis must be in (0, 1].")
    fig.update_xaxes(range=[0, float(top)], row=2, col=4)
    fig.update_layout(
        coloraxis=dict(colorscale=figures.DIVERGING_SCALE, cmin=-zq, cmax=zq,
                       colorbar=dict(title=dict(text="q, k"), thickness=10, len=0.45, y=1, yanchor="top")),
        coloraxis2=dict(colorscale="PuOr_r", cmin=-zp, cmax=zp,
                        colorbar=dict(title=dict(text="q × k"), thickness=10, len=0.45, y=0.45,
                                      yanchor="top")),
        showlegend=False, bargap=0.15, height=plot_px + 80, margin=dict(l=10, r=10, t=30, b=50))
    return fig
