"""Home: what this is, in a few lines, and where to go."""
import streamlit as st

from mha.app.frame import page_setup
from mha.app.controls import t

page_setup()

st.title(f"🔭 {t('app_title')}")
st.markdown(t("home_intro"))
st.subheader(t("home_pages"))
st.page_link("pages/playground.py", label=f"**{t('nav_playground')}** — {t('home_playground')}", icon="🔬")
st.page_link("pages/heads.py", label=f"**{t('nav_heads')}** — {t('home_heads')}", icon="🧠")
st.page_link("pages/explain.py", label=f"**{t('nav_explain')}** — {t('home_explain')}", icon="🧮")
st.page_link("pages/lab.py", label=f"**{t('nav_lab')}** — {t('home_lab')}", icon="🌡️")
st.page_link("pages/masks.py", label=f"**{t('nav_masks')}** — {t('home_masks')}", icon="🎭")
st.page_link("pages/bugs.py", label=f"**{t('nav_bugs')}** — {t('home_bugs')}", icon="🐛")
st.page_link("pages/share.py", label=f"**{t('nav_share')}** — {t('home_share')}", icon="🔗")
st.info(t("home_how"), icon="🔗")
st.caption(t("home_untrained"))
