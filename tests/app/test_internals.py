"""mha/app/internals.py: the only module that touches Streamlit's private internals, for one Streamlit version.

This test fails on purpose when Streamlit is upgraded (or downgraded): check each function of the module against
the new version, then set ``WRITTEN_FOR``. It also fails when a name the module uses disappears, whatever the
version says.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import streamlit

from mha.app import internals

ROOT = Path(__file__).resolve().parents[2]


def test_the_installed_streamlit_is_the_one_the_internals_were_read_from():
    assert streamlit.__version__ == internals.WRITTEN_FOR, (
        f"Streamlit {streamlit.__version__} is installed, mha/app/internals.py was written for "
        f"{internals.WRITTEN_FOR}: check every function there against the new version, then update WRITTEN_FOR")


def test_requirements_pin_the_same_version():
    pins = re.findall(r"^streamlit==([\w.]+)", (ROOT / "requirements.txt").read_text(), re.M)
    assert pins == [internals.WRITTEN_FOR]


def test_every_internal_used_is_there():
    missing = [name for name, ok in internals._required().items() if not ok]
    assert not missing, f"Streamlit {streamlit.__version__} lacks {missing}"


def test_another_version_fails_loudly_with_what_to_do():
    with pytest.raises(internals.StreamlitInternalsChanged) as err:
        internals.check("99.0.0")
    message = str(err.value)
    assert "99.0.0" in message and internals.WRITTEN_FOR in message and "requirements.txt" in message
    internals.check()  # the installed one passes


def test_a_missing_internal_fails_loudly_too(monkeypatch):
    from streamlit.runtime.state import query_params

    monkeypatch.delattr(query_params, "_coerce_value_for_query_url")
    with pytest.raises(internals.StreamlitInternalsChanged, match="_coerce_value_for_query_url"):
        internals.check()


def _private_streamlit_uses(path: Path) -> list[str]:
    """Imports of streamlit modules other than the public ``streamlit`` / ``streamlit.testing.v1`` (and the
    ``streamlit.proto`` wire format, which is what a browser speaks), and attributes starting with an underscore
    read from Streamlit objects by name (``._initial_query_params``, ``._bindings_by_param``, ...)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("streamlit."):
            if not node.module.startswith(("streamlit.testing.v1", "streamlit.proto")):
                found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name.startswith("streamlit.")
                      and not a.name.startswith(("streamlit.testing.v1", "streamlit.proto"))]
        elif isinstance(node, ast.Attribute) and node.attr in (
                "_initial_query_params", "_bindings_by_param", "_coerce_value_for_query_url", "_seed_widget_from_url",
                "_state", "_session_state", "_tree", "get_widget_metadata", "widget_ids_this_run", "pages_manager"):
            found.append(f".{node.attr}")
    return found


def test_no_other_file_of_the_app_touches_streamlit_internals():
    files = [p for d in ("mha", "pages") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
    offenders = {str(p.relative_to(ROOT)): uses for p in files if p != ROOT / "mha" / "app" / "internals.py"
                 if (uses := _private_streamlit_uses(p))}
    assert not offenders, f"Streamlit internals outside mha/app/internals.py: {offenders}"


def test_tests_read_pages_through_public_apptest_apis():
    """Tests walk ``at.sidebar`` / ``at.main`` (harness.apptest.page_root), not AppTest's private tree or state."""
    private = {"._tree", "._session_state", "._bindings_by_param", "._initial_query_params"}
    offenders = {str(p.relative_to(ROOT)): uses for p in (ROOT / "tests").rglob("*.py") if p != Path(__file__).resolve()
                 if (uses := [u for u in _private_streamlit_uses(p) if u in private])}
    assert not offenders, offenders


def test_no_monkeypatch_of_streamlit_is_left():
    """The app replaces no Streamlit function: the two import-time patches of 1.67 are gone (public APIs and the
    values in internals.py do their work)."""
    from streamlit.elements.widgets import number_input
    from streamlit.runtime.state.session_state import SessionState

    import mha.app.share  # noqa: F401 (imported for the check: it used to patch on import)

    assert not hasattr(number_input.NumberInputSerde.deserialize, "_mha_guarded")
    assert not hasattr(SessionState._seed_widget_from_url, "_mha_index_urls")
    assert number_input.NumberInputSerde.deserialize.__module__.startswith("streamlit.")
    assert SessionState._seed_widget_from_url.__module__.startswith("streamlit.")
