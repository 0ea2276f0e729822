"""The Home page (``page``, which pages/home.py calls): what this is, the guided path first, then a first step (the
course's sentence in the Playground), a picture of what the Playground shows, and a link to every page."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from mha.app import frame
from mha.app.compute import SEEDED, cached_figure
from mha.app.compute import view as compute_view
from mha.app.pages import PAGES
from mha.app.sidebar import START_PARAM
from mha.app.widgets import chart_words, t
from mha.charts import figures
from mha.core import i18n
from mha.weights.view import DEFAULT_TEXT, ViewSpec

PLAYGROUND = "pages/playground.py"
COURSE = "pages/course.py"


@frame.page
def page() -> None:
    """What this is, the guided path first, a first step, a picture, and where to go."""
    st.title(f"🔭 {t('app_title')}")
    st.markdown(t("home_intro"))
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.subheader(t("home_course_title"))  # the guided path is the first thing Home offers (#27)
        st.markdown(t("home_course_text"))
        with st.container(key="home_course"):
            st.page_link(COURSE, label=f"**{t('home_course_start')}**", icon="🎓")
        st.subheader(t("home_start_title"))
        st.markdown(t("home_start_text", sentence=DEFAULT_TEXT))
        # A link (switch_page would clear the link's parameters, which Streamlit refuses for bound controls): its
        # START_PARAM tells the sidebar to put the course's sentence back, whatever the learner typed before.
        with st.container(key="home_start"):
            st.page_link(PLAYGROUND, label=f"**{t('home_start')}**", icon="▶️", query_params={START_PARAM: "course"})
    with right:  # a picture of what the Playground shows, drawn by the app's own figure builder (not interactive)
        course = compute_view(ViewSpec(text=DEFAULT_TEXT, causal=True), SEEDED)
        st.plotly_chart(cached_figure(figures.head_heatmap, course.weights[0], course.labels, course.key_labels,
                                      allowed=course.allowed[0], head=0, clickable=False, width_px=340,
                                      words=chart_words()),
                        key="home_picture", config={"staticPlot": True}, width="content")
        st.caption(t("home_picture", sentence=DEFAULT_TEXT))

    st.subheader(t("home_pages"))
    # A link per page with its description below it: a description in a link's label is cut to one line.
    for path, title_key, icon in PAGES[1:]:
        st.page_link(path, label=f"**{t(title_key)}**", icon=icon)
        about = f"home_{Path(path).stem}"
        if about in i18n.CATALOG:
            st.caption(t(about))
    st.info(t("home_how"), icon="🔗")
    st.caption(t("home_untrained"))
