"""The frame around every page: page config, shared sidebar controls, navigation. Streamlit glue.

Normally ``app.py`` calls ``run_app()``, which draws the frame and runs the chosen page. But because a
``pages/`` folder exists, Streamlit routes the very first request to a freshly started server in its legacy
multipage mode: a direct link such as ``/playground`` then runs ``pages/playground.py`` alone, without app.py.
Every page therefore starts with ``page_setup()``: a no-op inside ``run_app()``; otherwise it does what
``run_app()`` does (frame, navigation, the page, ``share_ui.after_page()``), running the page file once more inside
the frame, then stops the outer run. Registering the navigation switches the server to ``st.navigation`` for
every later run.
"""
from __future__ import annotations

import sys
import threading
from pathlib import Path

import streamlit as st
import torch

from mha import share_ui
from mha.pages import PAGES, url_path
from mha.ui import sidebar_controls, t

_inside_app = threading.local()  # set while app.py's run_app() runs in this script thread


def _config_and_controls() -> None:
    # Many visitors share a few cores: one thread per computation keeps every session responsive.
    torch.set_num_threads(1)
    st.set_page_config(page_title="Multi-Head Attention Playground", page_icon="🔭", layout="wide")
    share_ui.clean_link()  # before any widget reads the link
    sidebar_controls()
    share_ui.weights_note()  # on every page, above its content, while this visitor's uploaded weights are in use
    share_ui.link_box()  # the link to this view, with a copy button


def _navigation():
    return st.navigation([
        st.Page(path, title=t(title), icon=icon, url_path=url_path(path) or None, default=n == 0)
        for n, (path, title, icon) in enumerate(PAGES)
    ])


def run_app() -> None:
    """Draw the frame and run the page the URL asks for (app.py)."""
    _inside_app.active = True
    try:
        _config_and_controls()
        page = _navigation()
        page.run()
        share_ui.after_page()  # only now is every URL parameter of the page's controls known
    finally:
        _inside_app.active = False


def page_setup() -> None:
    """First call of every page. When Streamlit ran the page file without app.py, run it the way app.py would:
    frame, this page inside it, the end-of-page link check; then stop the outer run of the file."""
    if getattr(_inside_app, "active", False):
        return
    _inside_app.active = True
    try:
        _config_and_controls()
        page = _navigation()
        page_file = sys._getframe(1).f_globals.get("__file__")
        if page_file is None or Path(page_file).resolve() != Path(str(page._page)).resolve():
            return  # not the page st.navigation resolved: let the running file go on (as before)
        page.run()  # this very file once more, inside the frame
        share_ui.after_page()
    finally:
        _inside_app.active = False
    st.stop()

