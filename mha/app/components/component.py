"""The one way to build an in-page component (``st.components.v2``): its JavaScript and CSS live in real files
beside the Python module that uses it (``head_view.py`` + ``head_view.js`` + ``head_view.css``), read once.

Editors, ESLint (``eslint.config.js``, run by ``scripts/test.sh``) and formatters see them; nothing is templated
into the code: what a script needs from Python arrives in its ``data``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import streamlit as st

_BUILT: dict[str, Callable] = {}


def asset(stem: str | Path, suffix: str) -> str:
    """The text of ``stem`` with ``suffix`` (``asset(__file__, ".js")``: the module's sibling ``.js``)."""
    return Path(stem).with_suffix(suffix).read_text(encoding="utf-8")


def in_page(name: str, html: str, stem: str | Path) -> Callable:
    """The component ``name`` (built once per process): ``html``, ``stem.css`` and ``stem.js`` (``stem``: the
    files' path without suffix; a module's ``__file__`` names its siblings). Streamlit registers a component by
    its name, so each name is built in one place only."""
    if name not in _BUILT:
        _BUILT[name] = st.components.v2.component(name, html=html, css=asset(stem, ".css"), js=asset(stem, ".js"))
    return _BUILT[name]
