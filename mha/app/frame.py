"""The frame around every page: page config, shared sidebar controls, navigation. Streamlit glue.

``app.py`` calls ``run_app()``, which draws the frame and runs the chosen page; each ``pages/<name>.py`` only calls
its section's ``page()`` (``mha.app.sections.<name>``), decorated by ``page`` here.

Why ``page`` checks anything: because a ``pages/`` folder exists next to app.py, Streamlit 1.67 decides at the first
session of a process that the app uses its legacy multipage mode (``PagesManager.uses_pages_directory``, set once per
process; no option changes it, and under ``streamlit run app.py`` no code of ours runs before it), and routes that
server's first requests in it: a direct link such as ``/playground`` then runs ``pages/playground.py`` alone, without
app.py. Only a call of the public ``st.navigation`` turns the mode off, for every later run. So ``page`` tells, per run,
whether app.py is running the page: if not, it registers the navigation (leaving the legacy mode for good) and reruns at
once, so that the first visitor's page, too, is run by app.py: the same frame, the same widgets (the ids Streamlit gives
them depend on the route), the same link checks after the page. This is the only place that knows about it.
(The hosted launcher, ``python -m mha.app.serve``, turns the legacy mode off before its server starts, through
``internals.route_through_app_only``; under ``streamlit run app.py`` and in AppTest the check is what holds.)
"""
from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from pathlib import Path

import streamlit as st
import torch

from mha.app import internals, share
from mha.app.components.component import asset
from mha.app.pages import PAGES, url_path
from mha.app.sidebar import sidebar_controls
from mha.app.widgets import css_content, lang, t
from mha.core import i18n

# True while app.py's run_app() runs, in this script run (a script run has a thread, and so a context, of its own)
_in_app: contextvars.ContextVar[bool] = contextvars.ContextVar("in_app", default=False)

# A Korean page's line breaking: frame.css (lines break between words only)
KOREAN_CSS = "<style>" + asset(__file__, ".css") + "</style>"
# Streamlit's own English in a Korean page, hidden and sized: frame_streamlit_ko.css; its Korean words below
_STREAMLIT_KO_CSS = asset(Path(__file__).with_name("frame_streamlit_ko"), ".css")


def _streamlit_korean_css() -> str:
    """Streamlit's own English, written over in Korean where no option changes it: the running indicator's "Stop"
    (and "Stopping..."), every file uploader's "Upload" button. Each uploader's limits are written over by
    ``widgets.file_uploader``; what stays English is in docs/korean.md. The rules are frame_streamlit_ko.css's;
    only their words are written here, as each ::after's ``content``: they are the string catalog's."""
    status, upload = "[data-testid='stStatusWidget'] button", "[data-testid='stFileUploaderDropzone'] button p"
    return ("<style>" + _STREAMLIT_KO_CSS
            + css_content(f"{status}::after", i18n.text("st_stop", "ko"))
            + css_content(f"{status}:disabled::after", i18n.text("st_stopping", "ko"))
            + css_content(f"{upload}::after", i18n.text("up_button", "ko")) + "</style>")


def _config_and_controls() -> None:
    # Many visitors share a few cores: one thread per computation keeps every session responsive.
    torch.set_num_threads(1)
    internals.limit_uploads()  # once per server: uploads bounded per session and in all (issue #23)
    st.set_page_config(page_title="Multi-Head Attention Playground", page_icon="🔭", layout="wide")
    share.clean_link()  # before any widget reads the link
    # Streamlit's "Stop" shows while this run is still going: its Korean comes first (the language control is not
    # drawn yet, so the link's lang decides on a first run)
    korean_first = (st.session_state.get("lang") or st.query_params.get("lang")) == "ko"
    if korean_first:
        st.html(_streamlit_korean_css())  # only styles: Streamlit adds them without a visible element
    sidebar_controls()
    if lang() == "ko":
        st.html(KOREAN_CSS + ("" if korean_first else _streamlit_korean_css()))
    share.link_box()  # the link to this view, with a copy button


def _navigation():
    return st.navigation([
        st.Page(path, title=t(title), icon=icon, url_path=url_path(path) or None, default=n == 0)
        for n, (path, title, icon) in enumerate(PAGES)
    ])


def run_app() -> None:
    """Draw the frame and run the page the URL asks for (app.py)."""
    token = _in_app.set(True)
    try:
        _config_and_controls()
        page = _navigation()
        # Which weights are in use, above the page's content. Only after st.navigation() is the page of this run
        # known on every route: on a session's first run (a direct link to a server that already left legacy
        # routing) Streamlit still names app.py as the page until then, and Train and Induction got the note.
        share.weights_note(page.url_path)
        page.run()
        share.after_page()  # only now is every URL parameter of the page's controls known
    finally:
        _in_app.reset(token)


def _through_app() -> None:
    """Streamlit ran a page file without app.py (its legacy routing, see the module's docstring): switch to app.py's
    navigation and rerun through it."""
    internals.limit_uploads()  # the very first run of a fresh server may come here first
    _navigation()  # registering the pages switches this server to st.navigation for every run from now on
    st.rerun()  # ... including this one: run again, through app.py, like every later run


def page(body: Callable[[], None]) -> Callable[[], None]:
    """Decorates the function that draws a page (``mha.app.sections.<name>.page``, called by ``pages/<name>.py``):
    run by app.py's ``run_app()`` it draws the page; run alone by Streamlit's legacy routing, it hands the run over
    to app.py first."""
    @functools.wraps(body)
    def run() -> None:
        if not _in_app.get():
            _through_app()
        body()
    return run

