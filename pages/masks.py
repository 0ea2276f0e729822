"""Masks: the mask, the masked scores and the weights for none / causal / padding / both / your own mask; a query
with nothing to attend to; the two boolean conventions; a live check against PyTorch.

Thin: the pieces are ``mha.app.sections.masks``; masks and masked attention come from ``mha.weights.batch``, the comparison
with torch from ``mha.weights.torch_check``.
"""
import streamlit as st

from mha.app.sections import masks as mp
from mha.app.state import current_view, settings
from mha.app.widgets import head_picker, t
from mha.app.frame import page_setup
from mha.weights.batch import apply_mask, sentence_mask

page_setup()

st.title(t("mk_title"))
view = current_view()
if view is None:
    st.stop()
s = settings()
H, Tq, Tk = view.weights.shape
st.markdown(t("mk_intro"))
kind = mp.kind_picker(view, s)
head = head_picker("mk_head", H)
if kind != "custom":
    st.session_state.pop(mp.TABLE, None)  # the table is gone with this run: a later one starts from the text
allowed = mp.custom_mask(Tq, Tk, view.labels, view.key_labels) if kind == "custom" else None
if allowed is None:
    allowed = sentence_mask("none" if kind == "custom" else kind, Tq, Tk, view.key_is_pad)
masked = apply_mask(view.q, view.k, view.v, allowed)

mp.charts(view, allowed, masked, head)
mp.fully_masked_row(view, allowed, masked, head, s)
mp.polarity(view, allowed)
mp.live_check(view, allowed, kind, s)
