"""Follow the course (강의 따라가기): the course's questions one step at a time, on the learner's sentence.

The step is in the link (``/course?step=3``): a teacher can send any step. The sections are in
``mha.app.sections.course``, the steps and their answers in ``mha.lessons.course``."""
import streamlit as st

from mha.app.sections import course as course_page
from mha.app.state import settings
from mha.app.widgets import t
from mha.app.frame import page_setup
from mha.core.markup import escape_markdown

page_setup()
st.title(f"🎓 {t('co_title')}")
s = settings()
first_line = (s.text or "").strip().splitlines()[0] if (s.text or "").strip() else ""
st.caption(t("co_intro", sentence=escape_markdown(first_line, 80)))
step = course_page.step_picker()
course_page.show_step(step)
st.divider()
course_page.back_next(step)
