"""Check your code: a learner's MultiHeadAttention beside the course's module, on the sidebar's sentence; the first
step that differs, the shape trace, the bug by name and its fix.

Thin: the sections are in ``mha.app.sections.check``; the code runs in the sandboxed worker (``mha.check``).
"""
import streamlit as st

from mha.app.sections import check as ck
from mha.app.state import current_view, settings
from mha.app.widgets import t
from mha.app.frame import page_setup

page_setup()

st.title(f"🩺 {t('ck_title')}")
st.markdown(t("ck_intro"))
if not ck.enabled():
    st.info(t("ck_off"), icon="🔒")
    st.stop()
ck.warm()
view = current_view()
if view is None:
    st.stop()
s = settings()
if view.is_cross:
    st.caption(t("ck_cross"))
if s.source != "random" or ck.uploaded_weights():
    st.caption(t("ck_source"))

ck.link_holder()  # before the editor: a link's code goes into it
ck.example_buttons()
ck.upload()
code = ck.editor()
request = ck.request_for(view, s)
ck.check_button(code, request)
ck.answer_area(code, request)  # right under the editor: a refusal, else the verdict and what follows
ck.numbered(code)
ck.link_section()
