"""Induction: two layers of the course's MultiHeadAttention grow an induction head, live; then the learner's own
text repeated shows the previous-token diagonal (layer 1) and the induction stripe (layer 2), and switching the
layer-1 head off removes the stripe. Thin: the pieces are ``mha.app.sections.induction`` and ``mha.app.sections.live``.
(No ``st.stop()``: the frame's link checks run after the page.)"""
import streamlit as st

from mha.app.sections import induction as ip
from mha.app.state import settings
from mha.app.widgets import t
from mha.app.frame import page_setup

page_setup()


def composition() -> None:
    st.subheader(t("ind_how_title"))
    st.markdown(t("ind_how_text"))


st.title(t("ind_title"))
st.markdown(t("ind_intro"))
s = settings()
config = ip.controls()
outcome = ip.train_live(config)
if outcome is None:
    st.info(t("ind_press_train"), icon="▶️")
    composition()
else:
    step = ip.show_training(outcome)
    st.divider()
    st.subheader(t("ind_text_title"))
    st.markdown(t("ind_text_intro", step=step))
    tv = ip.text_view(outcome.result, step, s.text)
    if tv is not None:
        ip.mapping_note(tv)
        top = ip.show_text(tv)  # the text view's one weights colour scale, shared by the ablation below
    st.divider()
    composition()
    if tv is not None:
        ip.ablation(tv, top)
    st.divider()
    st.subheader(t("ind_export_title"))
    ip.export(outcome.result, step)
