"""Figures of the step-by-step page, the cell breakdown and the scaling lab. Pure Plotly.

Builders take arrays (or the small result objects of ``mha.lessons.explain``) plus token labels and return
``go.Figure``. Token labels go through ``figures.axis_labels`` (escaped, unique); every other word comes from ``words``
(``figures.Words``, English by default) or is passed in by the caller, so pages can translate it. No NaN is
ever put in a chart: the inputs here are all finite by construction.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from mha.charts import figures
from mha.charts.figures import ENGLISH, Words
from mha.lessons.explain import Contributions, RowStats, Sweep

HEAD_COLORS = qualitative.Dark24  # 24 >= MAX_HEADS distinct colours, one per head
HIGHLIGHT = "#ff7f0e"  # the chosen cell: the same orange as the heatmap's selection frame
BAR_BLUE = "#2b6cb0"
GREY = figures.MASKED_GREY
SCALED_COLOR, UNSCALED_COLOR = "#2b6cb0", "#d9480f"


def head_color(h: int) -> str:
    return HEAD_COLORS[h % len(HEAD_COLORS)]


def matrix(mat: np.ndarray, q_labels, k_labels, kind: str = "weights", *, allowed: np.ndarray | None = None,
           head: int | None = None, clickable: bool = False, selected=None, zmax: float | None = None,
           x_title: str | None = None, y_title: str | None = None, width_px: int | None = None,
           words: Words = ENGLISH) -> go.Figure:
    """``figures.head_heatmap`` (Tq, Tk) with translatable axis titles (default: ``words.key_axis`` and
    ``words.query_axis``)."""
    fig = figures.head_heatmap(mat, q_labels, k_labels, kind=kind, allowed=allowed, head=head, clickable=clickable,
                               selected=selected, zmax=zmax, width_px=width_px, words=words)
    if x_title is not None:
        fig.update_xaxes(title_text=x_title)
    if y_title is not None:
        fig.update_yaxes(title_text=y_title)
    return fig


# Head labels side by side over a chart ~380 px wide (a page column): above this many heads "head 3" no longer
# fits its band, so the labels become "h3" and every other one is raised a line (each gets two bands' width).
CROWDED_HEADS = 8


def head_labels(num_heads: int, head_word: str, words: Words = ENGLISH) -> list[str]:
    """One label per head: "head 3", or the short form (``words.head_short``) when the heads are crowded."""
    if num_heads > CROWDED_HEADS:
        return [words.head_short.format(n=h) for h in range(num_heads)]
    return [f"{head_word} {h}" for h in range(num_heads)]


def _stagger(h: int, num_heads: int) -> int:
    """Extra pixels above a head's label: odd heads one line up when crowded."""
    return 13 if num_heads > CROWDED_HEADS and h % 2 else 0


def _band_shapes(fig: go.Figure, num_heads: int, head_dim: int, n_rows: int, head_word: str, row=None, col=None,
                 labels_on_top: bool = True, words: Words = ENGLISH) -> None:
    """Outline the columns that belong to each head in a (T, d_model) heatmap."""
    labels = head_labels(num_heads, head_word, words)
    for h in range(num_heads):
        x0, x1 = h * head_dim - 0.5, (h + 1) * head_dim - 0.5
        fig.add_shape(type="rect", x0=x0, x1=x1, y0=-0.5, y1=n_rows - 0.5, line=dict(color=head_color(h), width=3),
                      row=row, col=col)
        if labels_on_top and num_heads <= 16:
            fig.add_annotation(x=(x0 + x1) / 2, y=-0.5, yshift=10 + _stagger(h, num_heads), text=labels[h],
                               showarrow=False, font=dict(color=head_color(h), size=11), row=row, col=col)


def banded_features(mat: np.ndarray, labels, num_heads: int, *, kind: str = "output", col_title: str = "d_model",
                    head_word: str | None = None, zmax: float | None = None, words: Words = ENGLISH) -> go.Figure:
    """A (T, d_model) matrix with each head's block of head_dim columns outlined in that head's colour."""
    T, D = mat.shape
    fig = figures.features_heatmap(mat, labels, kind=kind, col_title=col_title, zmax=zmax, words=words)
    if num_heads > 1:
        _band_shapes(fig, num_heads, D // num_heads, T, words.head if head_word is None else head_word,
                     words=words)
        # the head labels sit above the chart: the figure grows by their room, the rows keep theirs
        fig.update_layout(margin=dict(t=40 + _stagger(1, num_heads)), height=fig.layout.height + 40)
    return fig


def split_heads_figure(mat: np.ndarray, per_head: np.ndarray, labels, *, head_word: str | None = None,
                       top_title: str = "query_linear(x): (T, d_model)",
                       col_title: str | None = None, words: Words = ENGLISH) -> go.Figure:
    """The split_heads picture: the (T, d_model) projection on top, its column blocks below as H separate
    (T, head_dim) heads, each framed in the colour of the block it came from. One shared colour scale."""
    T, D = mat.shape
    H, _, hd = per_head.shape
    head_word = words.head if head_word is None else head_word
    col_title = words.feature if col_title is None else col_title
    zmax = figures.symmetric_range(mat, per_head)
    named = T <= figures.LABELS_MAX_TOKENS  # rows tall enough for their token label
    cell = max(figures.LABEL_ROW_PX, min(20, 420 // max(T, 1))) if named else max(3, 420 // T)
    height = int(2 * cell * T + 200)
    # between the two rows: the top chart's feature numbers (~20 px) and the heads' titles (two lines if crowded)
    gap_px = 24 + 24 + _stagger(1, H) + 8
    fig = make_subplots(rows=2, cols=H, specs=[[{"colspan": H}] + [None] * (H - 1), [{} for _ in range(H)]],
                        subplot_titles=[top_title] + head_labels(H, head_word, words),
                        vertical_spacing=min(0.4, gap_px / (height - 50)), horizontal_spacing=min(0.03, 0.3 / H),
                        row_heights=[0.5, 0.5])
    y = figures.axis_labels(labels)
    hover = f"{words.token}: %{{y}}<br>{col_title}: %{{x}}<br>{words.value}: %{{z:.4f}}<extra></extra>"
    fig.add_trace(go.Heatmap(z=mat.astype(np.float32), x=list(range(D)), y=y, coloraxis="coloraxis",
                             hovertemplate=hover), row=1, col=1)
    _band_shapes(fig, H, hd, T, head_word, row=1, col=1, labels_on_top=False)
    for h in range(H):
        # the head's own columns: x = its positions inside the head, hover names the d_model feature it came from
        fig.add_trace(go.Heatmap(z=per_head[h].astype(np.float32), x=list(range(hd)), y=y, coloraxis="coloraxis",
                                 customdata=np.tile(np.arange(h * hd, (h + 1) * hd), (T, 1)),
                                 hovertemplate=f"{head_word} {h}<br>{words.token}: %{{y}}<br>head_dim: %{{x}} "
                                               f"({col_title} %{{customdata}})<br>{words.value}: %{{z:.4f}}"
                                               "<extra></extra>"),
                      row=2, col=h + 1)
        fig.add_shape(type="rect", xref=f"x{h + 2} domain", yref=f"y{h + 2} domain", x0=0, x1=1, y0=0, y1=1,
                      line=dict(color=head_color(h), width=3))
    for h, ann in enumerate(fig.layout.annotations[1:]):
        ann.font = dict(color=head_color(h), size=11)
        ann.yshift = _stagger(h, H)
    fig.update_yaxes(autorange="reversed", type="category", showticklabels=False)
    fig.update_yaxes(figures.every_label({}, T <= figures.LABELS_MAX_TOKENS), row=1, col=1)
    fig.update_xaxes(showticklabels=False)
    fig.update_xaxes(showticklabels=True, row=1, col=1)
    fig.update_layout(coloraxis=dict(colorscale=figures.DIVERGING_SCALE, cmin=-zmax, cmax=zmax,
                                     colorbar=dict(thickness=12)),
                      height=height, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def attention_bar(row_weights: np.ndarray, row_allowed: np.ndarray, key_labels, *, highlight: int | None = None,
                  title: str = "", masked_word: str | None = None, y_title: str | None = None,
                  width_px: int = 440, top: float = 1.0, words: Words = ENGLISH) -> go.Figure:
    """One query's attention row as bars over the keys, on the axis 0..``top`` (the view's weights scale,
    ``figures.weights_top``; 0..1 by default: the course's "Orange" picture). Blocked keys are grey and labelled;
    the highlighted key is orange; bars above ``top`` (a row with one key) reach the top. ``width_px``: about how
    wide the bars' area is drawn (labels are sized for it)."""
    masked_word = words.masked if masked_word is None else masked_word
    y_title = words.weight if y_title is None else y_title
    w = np.asarray(row_weights, dtype=np.float64)
    n = w.size
    colors = [GREY if not row_allowed[j] else HIGHLIGHT if j == highlight else BAR_BLUE for j in range(n)]
    x = figures.axis_labels(key_labels)
    slot = width_px / max(n, 1)  # a bar's share of the chart's width
    # numbers over the bars while "0.12" (or the masked word) fits a bar at 12 px; the hover has them all
    fits = max([figures._text_px("0.00", 12)] + [figures._text_px(masked_word, 12)] * (not row_allowed.all()))
    text = [masked_word if not row_allowed[j] else f"{w[j]:.2f}" for j in range(n)] if fits + 2 <= slot else None
    top = top if 0 < top <= 1.0 else 1.0
    fig = go.Figure(go.Bar(x=x, y=np.minimum(w, top), customdata=w, marker_color=colors, text=text,
                           textposition="outside", cliponaxis=False,
                           hovertemplate=f"{words.key}: %{{x}}<br>{words.weight}: %{{customdata:.4f}}<extra></extra>"))
    show = n <= figures.LABELS_MAX_TOKENS and slot >= figures.MIN_FONT + 1
    fig.update_xaxes(figures.every_label(dict(type="category", automargin=True,
                                              tickangle=figures.tick_angle(x, slot)), show, labels=x))
    fig.update_yaxes(range=[0, 1.12 * top], title_text=f"{y_title} (0 … {top:.2g})" if top < 1.0 else y_title,
                     **(dict(tickvals=[0, 0.25, 0.5, 0.75, 1.0]) if top >= 1.0 else dict(nticks=6)),
                     tickfont=figures.tick_font())
    fig.update_layout(title=dict(text=title, font_size=14), height=300, margin=dict(l=10, r=10, t=40, b=10),
                      showlegend=False)
    return fig


CELL_TEXT_DIMS = 8  # up to this head_dim the q, k and product cells show their numbers
WATERFALL_TEXT_BARS = 8  # up to this many bars every bar of the dot product is labelled; beyond, the sum only


def cell_vectors(q: np.ndarray, k: np.ndarray, products: np.ndarray, *,
                 row_names=("q_i", "k_j", "q_i × k_j"), dim_word: str | None = None,
                 words: Words = ENGLISH) -> go.Figure:
    """q_i and k_j over head_dim on one diverging scale, and their elementwise products on their own below."""
    dim_word = words.dim if dim_word is None else dim_word
    hd = q.size
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=[2 / 3, 1 / 3])
    # Numbers in the cells only while a cell (a half column, ~400 px for the cells) holds "-0.12" at 12 px;
    # past that the cells are colour only and the hover gives each number (the waterfall lists the largest).
    show_text = hd <= CELL_TEXT_DIMS
    text = dict(texttemplate="%{z:.2f}", textfont=dict(size=12)) if show_text else {}
    hover = "%{y}<br>" + dim_word + " %{x}: %{z:.4f}<extra></extra>"
    fig.add_trace(go.Heatmap(z=np.stack([q, k]).astype(np.float32), x=list(range(hd)), y=list(row_names[:2]),
                             coloraxis="coloraxis", hovertemplate=hover, **text), row=1, col=1)
    fig.add_trace(go.Heatmap(z=products[None, :].astype(np.float32), x=list(range(hd)), y=[row_names[2]],
                             coloraxis="coloraxis2", hovertemplate=hover, **text), row=2, col=1)
    zq = figures.symmetric_range(q, k)
    zp = figures.symmetric_range(products)
    fig.update_yaxes(autorange="reversed", type="category", tickfont=figures.tick_font())
    fig.update_xaxes(tickfont=figures.tick_font())
    fig.update_xaxes(title_text=dim_word if show_text else f"{dim_word} · {words.values_on_hover}", row=2, col=1)
    fig.update_layout(
        coloraxis=dict(colorscale=figures.DIVERGING_SCALE, cmin=-zq, cmax=zq,
                       colorbar=dict(thickness=10, len=0.62, y=1, yanchor="top")),
        coloraxis2=dict(colorscale="PuOr_r", cmin=-zp, cmax=zp, showscale=False),  # values: hover, text, waterfall
        height=230, margin=dict(l=10, r=10, t=10, b=10))
    return fig


def contributions_waterfall(c: Contributions, total: float, *, dim_word: str | None = None,
                            rest_text: str | None = None, sum_text: str | None = None,
                            words: Words = ENGLISH) -> go.Figure:
    """The dot product as a running sum: one bar per term q_i[d]·k_j[d], the remaining terms as one bar, then the
    total (= raw score)."""
    dim_word = words.dim if dim_word is None else dim_word
    rest_text = words.rest.format(n=c.rest_count) if rest_text is None else rest_text
    sum_text = words.sum if sum_text is None else sum_text
    x = [f"{dim_word} {d}" for d in c.dims]
    y = list(c.values)
    if c.rest_count:
        x.append(rest_text)
        y.append(c.rest)
    x.append(sum_text)
    y.append(total)
    measure = ["relative"] * (len(y) - 1) + ["total"]
    # Labels above the bars only while they fit side by side (12 px "+0.12" in a bar's width); else the sum alone
    # is written and the hover gives every term. The y range leaves room for the labels (else they are clipped).
    every = len(y) <= WATERFALL_TEXT_BARS
    text = [f"{v:+.2f}" if every else "" for v in y[:-1]] + [f"{total:.4f}"]
    running = np.concatenate([[0.0], np.cumsum(y[:-1]), [total]])
    lo, hi = float(min(running.min(), 0.0)), float(max(running.max(), 0.0))
    pad = 0.18 * (hi - lo or 1.0)
    fig = go.Figure(go.Waterfall(
        x=x, y=y, measure=measure, text=text, textposition="outside",
        textfont=dict(size=12), constraintext="none",  # else Plotly shrinks the sum's label to its bar (~8 px)
        cliponaxis=False, connector=dict(line=dict(color="rgba(120,120,120,0.5)", width=1)),
        increasing=dict(marker=dict(color="#c92a2a")), decreasing=dict(marker=dict(color="#1c7ed6")),
        totals=dict(marker=dict(color=HIGHLIGHT)), hovertemplate="%{x}: %{y:.4f}<extra></extra>"))
    fig.update_xaxes(type="category", tickangle=figures.tick_angle(x, 400 / max(len(x), 1)),
                     tickfont=figures.tick_font())
    fig.update_yaxes(range=[lo - pad, hi + pad], tickfont=figures.tick_font())
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=20, b=10), showlegend=False)
    return fig


def weights_pair(left: np.ndarray, right: np.ndarray, q_labels, k_labels, *, allowed: np.ndarray | None = None,
                 titles=None, top: float | None = None, words: Words = ENGLISH) -> go.Figure:
    """Two (Tq, Tk) weight maps side by side on one scale 0..``top`` (the page's, ``figures.weights_top``; default:
    worked out over the two), ``figures.heads_grid`` with two panels."""
    titles = (words.scaled, words.unscaled) if titles is None else titles
    both_allowed = None if allowed is None else np.stack([allowed, allowed])
    fig = figures.heads_grid(np.stack([left, right]), q_labels, k_labels, kind="weights", allowed=both_allowed,
                             cols=2, zmax=top, words=words)
    for ann, title in zip(fig.layout.annotations, titles):
        ann.text = title
    for n, (trace, title) in enumerate(zip([t for t in fig.data if t.name != "masked"], titles)):
        trace.hovertemplate = trace.hovertemplate.replace(f"{words.head} {n}<br>", f"{title}<br>", 1)
    # Two panels stretched over the page's width had cells ~65 x 30 px: as wide as square cells need (the rows' height
    # as heads_grid drew them), never wider than the page. Draw it with width="content".
    Tk = left.shape[1]
    y_width = figures.label_width_px(figures.axis_labels(q_labels), figures.GRID_FONT)
    col_px = (figures.GRID_WIDTH_PX - y_width - figures.COLORBAR_PX) / 2 / max(Tk, 1)
    row_px = max(figures.GRID_ROW_PX, min(28, int(col_px)))  # heads_grid's row height for two panels
    # a panel holds its title and its upright key labels (heads_grid chose their angle for the full width)
    x_labels = figures.axis_labels(k_labels)
    panel = max(Tk * row_px, 260, sum(figures.label_width_px([lab], figures.GRID_FONT) + 4 for lab in x_labels))
    natural = y_width + 2 * panel / (1 - 0.03) + figures.COLORBAR_PX + 40
    fig.update_layout(width=int(min(figures.GRID_WIDTH_PX, max(420, natural))))
    return fig


def row_stats_figure(labels, series: dict[str, RowStats], *, titles=None, uniform_name: str | None = None,
                     colors=None, width_px: float = 900, words: Words = ENGLISH) -> go.Figure:
    """Per query row: entropy (with the uniform row's as a dashed line), largest weight, softmax-gradient size.
    One bar per series (e.g. scaled / unscaled, or two temperatures). ``width_px``: about how wide the figure is
    drawn (the three panels share it; the key labels turn when they would not fit a bar group)."""
    titles = (words.entropy, words.max_weight, words.softmax_gradient) if titles is None else titles
    uniform_name = words.uniform if uniform_name is None else uniform_name
    x = figures.axis_labels(labels)
    colors = colors or [SCALED_COLOR, UNSCALED_COLOR, "#2f9e44", "#862e9c"]
    fig = make_subplots(rows=1, cols=3, subplot_titles=list(titles), horizontal_spacing=0.06)
    for n, (name, st) in enumerate(series.items()):
        for c, values in enumerate((st.entropy, st.max_weight, st.grad_norm)):
            fig.add_trace(go.Bar(x=x, y=np.asarray(values, dtype=np.float64), name=name, legendgroup=name,
                                 showlegend=c == 0, marker_color=colors[n % len(colors)],
                                 hovertemplate=f"{name}<br>%{{x}}: %{{y:.3f}}<extra></extra>"), row=1, col=c + 1)
    first = next(iter(series.values()))
    fig.add_trace(go.Scatter(x=x, y=first.max_entropy, mode="lines", line=dict(dash="dot", color="#555"),
                             line_shape="hvh", name=uniform_name,
                             hovertemplate=f"{uniform_name}: %{{y:.3f}}<extra></extra>"), row=1, col=1)
    slot = width_px / 3 / max(len(x), 1)  # a bar group's width: three panels side by side
    show = len(x) <= figures.LABELS_MAX_TOKENS and slot >= figures.MIN_FONT + 1
    fig.update_xaxes(figures.every_label(dict(type="category", tickangle=figures.tick_angle(x, slot, 11)), show, 11,
                                         labels=x))
    fig.update_yaxes(range=[0, 1.05], row=1, col=2)
    fig.update_layout(barmode="group", height=320, margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(orientation="h", y=-0.3 if show else -0.1))
    return fig


def sweep_figure(sweep: Sweep, current_head_dim: int | None = None, *, titles=None, names=None,
                 current_name: str | None = None, x_title: str = "head_dim", words: Words = ENGLISH) -> go.Figure:
    """Line charts over head_dim (log axis): with scaling the curves stay flat, without they saturate."""
    titles = tuple(words.mean.format(what=w) for w in (words.entropy, words.max_weight, words.softmax_gradient)
                   ) if titles is None else titles
    names = (words.with_scaling, words.without_scaling) if names is None else names
    current_name = words.your_head_dim if current_name is None else current_name
    fig = make_subplots(rows=1, cols=3, subplot_titles=list(titles), horizontal_spacing=0.07)
    pairs = ((sweep.entropy_scaled, sweep.entropy_unscaled), (sweep.max_scaled, sweep.max_unscaled),
             (sweep.grad_scaled, sweep.grad_unscaled))
    x = list(sweep.head_dims)
    for c, (scaled, unscaled) in enumerate(pairs):
        for name, ys, color in ((names[0], scaled, SCALED_COLOR), (names[1], unscaled, UNSCALED_COLOR)):
            fig.add_trace(go.Scatter(x=x, y=list(ys), mode="lines+markers", name=name, legendgroup=name,
                                     showlegend=c == 0, line=dict(color=color),
                                     hovertemplate=f"{name}<br>head_dim %{{x}}: %{{y:.3f}}<extra></extra>"),
                          row=1, col=c + 1)
    tops = (max(sweep.uniform_entropy, max(sweep.entropy_scaled + sweep.entropy_unscaled)) * 1.05, 1.05,
            max(sweep.grad_scaled + sweep.grad_unscaled) * 1.1 or 1.0)
    fig.add_trace(go.Scatter(x=[x[0], x[-1]], y=[sweep.uniform_entropy] * 2, mode="lines", name="log₂(T)",
                             line=dict(dash="dot", color="#555"), showlegend=False,
                             hovertemplate=f"{words.uniform}: %{{y:.3f}}<extra></extra>"), row=1, col=1)
    if current_head_dim:
        for c, top in enumerate(tops):
            fig.add_trace(go.Scatter(x=[current_head_dim] * 2, y=[0, top], mode="lines", name=current_name,
                                     legendgroup="current", showlegend=c == 0,
                                     line=dict(dash="dash", color="#2f9e44"),
                                     hovertemplate=f"{current_name}: {current_head_dim}<extra></extra>"),
                          row=1, col=c + 1)
    for c, top in enumerate(tops):
        fig.update_yaxes(range=[0, top], row=1, col=c + 1)
    lo = min(x + ([current_head_dim] if current_head_dim else []))
    fig.update_xaxes(type="log", tickvals=sorted(set(x) | ({current_head_dim} if current_head_dim else set())),
                     title_text=x_title, range=[math.log10(lo) - 0.1, math.log10(max(x)) + 0.1])
    fig.update_layout(height=340, margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.3))
    return fig
