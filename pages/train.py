"""Train: train the course's MultiHeadAttention on a small copying task, live, and watch its heads specialise on the
learner's own sentence. Thin: the pieces are ``mha.app.sections.train`` (and the live UI ``mha.app.sections.live``)."""
import streamlit as st

from mha.app.sections import train as tp
from mha.app.state import settings
from mha.app.widgets import t
from mha.app.frame import page_setup

page_setup()

st.title(t("tp_title"))
st.markdown(t("tp_intro"))
s = settings()
config = tp.controls()
tp.describe(config)
found = tp.probe(s)  # no st.stop(): the frame's link checks run after the page
if found is not None:
    tokens, labels = found
    st.caption(t("tp_probe", n=len(tokens)))
    outcome = tp.train_live(config, tokens, labels)
    if outcome is None:
        st.info(t("tp_press_train"), icon="▶️")
    else:
        tp.show(outcome, tokens, labels)
        tp.share_and_export(outcome.result, s.lang)

st.divider()
st.subheader(t("tp_layout_title"))
st.markdown(t("tp_layout_text"))
if found is not None:
    st.divider()
    tp.compare_heads(config, tokens, labels)
