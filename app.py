"""Multi-Head Attention Playground — entry point: `streamlit run app.py`.

Draws the shared controls (sidebar, mirrored in the URL), then runs the chosen page from pages/.
"""
import streamlit as st
import torch

from mha import ui

# Many visitors share two cores: one thread per computation keeps every session responsive.
torch.set_num_threads(1)

st.set_page_config(page_title="Multi-Head Attention Playground", page_icon="🔭", layout="wide")

# (file in pages/, title key in mha/strings, URL path, icon). URL paths never change: links depend on them.
PAGES = [
    ("pages/home.py", "nav_home", "", "🏠"),
    ("pages/playground.py", "nav_playground", "Playground", "🔬"),
]

ui.sidebar_controls()
page = st.navigation([
    st.Page(path, title=ui.t(title), url_path=url or None, icon=icon, default=not url)
    for path, title, url, icon in PAGES
])
page.run()
