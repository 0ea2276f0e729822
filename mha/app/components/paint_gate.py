"""Plotly's charts wait until the page's first canvas heatmap has drawn (#27.4: a slow page paints its first chart
first).

Plotly's script is one 4.7 MB chunk that the browser fetches when the first Plotly chart reaches the page; evaluating
it holds the page's one thread for seconds on a busy machine (5-10 s on our 2 shared cores), and a canvas heatmap
(``mha.app.components.heatmap_view``) whose turn comes after it waits as long: on Step by step with every step open,
step 1's picture appeared after Plotly's charts. So on a browser's first visit the page sends a blank as tall as each
Plotly chart (``chart``, ``hold=True``) and a small component (``gate``, ``paint_gate.js``) that tells the server once
the first canvas has drawn (the canvas says so on ``window``), or after ``WAIT_MS`` without one; the server then reruns
the page with its Plotly charts, which no longer delay a picture already on screen. The session remembers it: later
runs send everything at once.

A client that sent no User-Agent (AppTest, a script) runs no JavaScript and could never report: it gets every chart
at once.
"""
from __future__ import annotations

import streamlit as st

from mha.app.components.component import in_page

WAIT_MS = 4000  # no canvas drawn by then (none on the page, or it failed): send the Plotly charts anyway
_DONE = "_paint_gate_done"  # session state: this session's browser has painted a page's canvases
# session state: set before the rerun the gate starts itself; ``mha.app.share.after_page`` shows the opening link's
# notes again on that run (the visitor did nothing that answers them)
NOTES_AGAIN = "_share_notes_again"


def hold_plotly() -> bool:
    """Whether this run holds its Plotly charts back: a browser's session whose first canvas has not yet drawn."""
    return not st.session_state.get(_DONE) and from_browser()


def from_browser() -> bool:
    """Whether this session's client is a browser (it sent a User-Agent; AppTest and scripts send none)."""
    try:
        return bool(st.context.headers.get("User-Agent"))
    except Exception:  # noqa: BLE001 no request (a bare script): nothing to wait for
        return False


def _opened() -> None:
    """The gate's callback: the browser has drawn a canvas (or waited WAIT_MS). The rerun that follows is the app's,
    not the visitor's: the opening link's notes stay (``NOTES_AGAIN``)."""
    st.session_state[_DONE] = True
    st.session_state[NOTES_AGAIN] = True


def gate(hold: bool, key: str = "paint_gate") -> None:
    """While ``hold``: the component that reports the first canvas drawn (a rerun follows, with the charts)."""
    if hold:
        in_page("mha_paint_gate", '<div class="paint-gate"></div>', __file__)(
            data={"wait_ms": WAIT_MS}, key=key, on_ready_change=_opened)


def chart(fig, *, hold: bool, container=None, **kw) -> None:
    """``st.plotly_chart(fig, **kw)`` (in ``container``), or while ``hold`` a blank of the chart's height: the page
    does not jump when the chart comes."""
    where = container if container is not None else st
    if hold:
        where.container(height=int(fig.layout.height or 450), border=False)
        return
    where.plotly_chart(fig, **kw)
