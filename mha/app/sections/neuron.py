"""The Playground's neuron view: one query's row of the enlarged head, every key at once (``mha.charts.neuron``).

Folded like the cell breakdown beside it, bound to the link (``show_neuron``); its chart is built and sent only
while it is open. The query is the one the Playground's token picker chose, the highlighted key the picked key.
"""
from __future__ import annotations

import math

import streamlit as st

from mha.app.compute import cached_figure
from mha.app.widgets import chart_words, t
from mha.charts import neuron as neuron_figures
from mha.core.markup import escape_markdown
from mha.weights.view import View


def neuron_section(view: View, head: int, i: int, j: int, top: float = 1.0) -> None:
    """The folded neuron view of ``head``'s query ``i`` (0-based), key ``j`` highlighted; ``top``: the page's
    weights scale (``weights_scale``), the end of the weights' axis."""
    box = st.expander(t("nv_open"), key="show_neuron", bind="query-params")
    with box:
        if not box.open:  # a folded section sends no chart
            return
        allowed = view.allowed[head, i]
        st.markdown(t("nv_title", head=head, q=escape_markdown(view.labels[i]), i=i,
                      n_keys=len(view.key_labels)))
        st.caption(t("nv_help", scale=math.sqrt(view.head_dim),
                     masked=t("nv_masked") if not allowed.all() else ""))
        st.plotly_chart(cached_figure(neuron_figures.neuron_view, view.q[head, i], view.k[head],
                                      view.scores[head, i], view.weights[head, i], view.key_labels,
                                      query_label=view.labels[i], allowed=allowed, highlight=j, top=top,
                                      words=chart_words()),
                        key="pg_neuron", width="stretch")
