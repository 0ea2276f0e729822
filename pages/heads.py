"""Heads: measure every head, compare two, switch some off, see q and k together, order and seeds.

Thin: the sections are ``mha.app.sections.heads`` (their numbers from ``mha.lessons.heads``, pure and tested, their figures from
``mha.charts.heads``). Only the open section is computed; it is part of the link: ``/heads?hd_section=ablate``.
"""
import streamlit as st

from mha.app.state import current_view, session_weights, settings
from mha.app.widgets import chart_words, t
from mha.app.frame import page_setup
from mha.app.sections.heads import SECTION_VIEWS, HeadsView, about_key, section_picker

page_setup()

st.title(t("hd_title"))
intro = st.empty()  # the sizes, once the view is known
section = section_picker()  # before the view: a link's section outlives a moment without a sentence
view = current_view()
if view is None:
    st.stop()
s = settings()
c = HeadsView.of(view, s, chart_words(), session_weights(s.d_model))
intro.caption(t("hd_intro", n=c.Tq, num_heads=c.H, head_dim=view.head_dim))
c.keep_choices_valid()  # num_heads or the sentence may have changed since a choice was made
st.caption(t(about_key(section, c)))
SECTION_VIEWS[section](c)
