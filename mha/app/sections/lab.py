"""The Scaling & softmax lab page (``page``, which pages/lab.py calls): why the course divides by √head_dim, measured
on the learner's sentence (scaled against unscaled weights, their rows' entropy, top weight and softmax gradient),
on random q, k (``mha.app.sections.explain.sweep``), and with a temperature. The numbers come
from ``mha.lessons.explain``, the figures from ``mha.charts.explain``."""
from __future__ import annotations

import math

import numpy as np
import streamlit as st

from mha.app import frame
from mha.app.compute import cached_figure
from mha.app.sections.explain import sweep
from mha.app.state import current_view, settings
from mha.app.widgets import chart_words, head_picker, t, weights_scale
from mha.charts import explain as xf
from mha.lessons import explain


def metrics(series: dict) -> None:
    """Mean entropy, max weight and softmax gradient of each series; the deltas compare with the first one."""
    means = {name: (st_.entropy.mean(), st_.max_weight.mean(), st_.grad_norm.mean()) for name, st_ in series.items()}
    base = next(iter(means.values()))
    for name, values in means.items():
        cols = st.columns([2, 1, 1, 1])
        cols[0].markdown(f"**{name}**")
        for n, (col, label, v) in enumerate(zip(cols[1:], ("lab_mean_entropy", "lab_mean_maxw", "lab_mean_grad"),
                                                values)):
            delta = None if values is base else f"{v - base[n]:+.3f}"
            col.metric(t(label), f"{v:.3f}", delta=delta, delta_color="off", help=t("lab_metric_help"))


@frame.page
def page() -> None:
    """Why the course divides by √head_dim, measured on the learner's sentence and on random q, k."""
    st.title(t("lab_title"))
    st.caption(t("lab_intro"))
    view = current_view()
    if view is None:
        st.stop()
    s = settings()
    words = chart_words()  # the words inside the charts, in the page's language
    H, T, hd = view.num_heads, view.weights.shape[2], view.head_dim  # T: keys per query row
    head = head_picker("lab_head", H)
    scale_box = st.container()  # the "fit to data" switch: one colour scale for the page's weights maps (see below)
    allowed = view.allowed[head]
    stat_titles = (t("lab_entropy"), t("lab_maxw"), t("lab_grad"))

    st.subheader(t("lab_scaling_title"))
    st.caption(t("lab_scaling_text", head=head, head_dim=hd, sqrt=f"{math.sqrt(hd):.4g}"))
    scaled = view.weights[head]  # the module's own weights
    unscaled = explain.lab_weights(view, scale=False)[head]  # the same q, k and mask: attention_steps(scale=False)
    names = (t("lab_scaled"), t("lab_unscaled"))
    pair_box = st.container()  # drawn once the temperature below is read: its map shares the pair's colour scale
    st.markdown(t("lab_stats_text"))
    pair = {names[0]: explain.row_stats(scaled, allowed), names[1]: explain.row_stats(unscaled, allowed)}
    st.plotly_chart(cached_figure(xf.row_stats_figure, view.labels, pair, titles=stat_titles,
                                  uniform_name=t("lab_uniform"), words=words), key="lab_pair_stats")
    metrics(pair)
    if hd < 32:
        st.info(t("lab_small_head_dim", head_dim=hd), icon="🔎")

    st.subheader(t("lab_sweep_title"))
    n_tokens = int(np.clip(T, 2, 64))
    result = sweep(n_tokens, s.seed)
    st.caption(t("lab_sweep_text", n_samples=result.n_samples, n_tokens=n_tokens, seed=s.seed))
    st.plotly_chart(cached_figure(xf.sweep_figure, result, hd, names=(t("lab_with"), t("lab_without")),
                                  current_name=t("lab_current"),
                                  titles=(t("lab_mean_entropy_axis"), t("lab_mean_maxw_axis"), t("lab_mean_grad_axis")),
                                  words=words),
                    key="lab_sweep")

    st.subheader(t("lab_temp_title"))
    tau = st.slider(t("lab_temperature"), min_value=0.1, max_value=5.0, value=1.0, step=0.05, key="lab_temperature",
                    bind="query-params", help=t("lab_temp_help"))
    st.caption(t("lab_temp_text", head=head, tau=f"{tau:g}", inv_sqrt=f"{1 / math.sqrt(hd):.3g}",
                 coldness=t("lab_cold_" + explain.coldness(1 / math.sqrt(hd)))))
    warm = explain.lab_weights(view, temperature=tau)[head]  # attention_steps(..., temperature=tau)
    top = weights_scale([scaled, unscaled, warm], container=scale_box).top  # every weights map of the page: one scale
    # Figures through cached_figure: a warm visit (or moving the temperature) skips Plotly's figure building.
    pair_box.plotly_chart(cached_figure(xf.weights_pair, scaled, unscaled, view.labels, view.key_labels,
                                        allowed=allowed, titles=names, top=top, words=words),
                          key="lab_pair", width="content")
    # The map beside its row statistics while the sentence is short; a long one gets both the page's width (43 keys in
    # 360 px were a 2-3 px strip).
    side = len(view.key_labels) <= 12
    left, right = st.columns([2, 3], gap="medium") if side else (st.container(), st.container())
    left.plotly_chart(cached_figure(xf.matrix, warm, view.labels, view.key_labels, "weights", allowed=allowed,
                                    head=head, width_px=360 if side else None, x_title=t("ex_axis_key"),
                                    y_title=t("ex_axis_query"), zmax=top, words=words),
                      key="lab_temp_weights", width="content")
    temps = {t("lab_tau_module"): explain.row_stats(scaled, allowed),
             t("lab_tau", tau=f"{tau:g}"): explain.row_stats(warm, allowed)}
    right.plotly_chart(cached_figure(xf.row_stats_figure, view.labels, temps, titles=stat_titles,
                                     uniform_name=t("lab_uniform"), colors=[xf.SCALED_COLOR, "#2f9e44"],
                                     width_px=540 if side else 900, words=words),
                       key="lab_temp_stats")
    metrics(temps)

    st.subheader(t("lab_why_title"))
    st.markdown(t("lab_why_text"))
