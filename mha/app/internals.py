"""Every use of Streamlit's private internals, in one place, for the one version they were read from.

Streamlit has no public API for four things the app's links need:

- the URL parameters a run's widgets are seeded from (``QueryParams._initial_query_params``): an empty value is
  dropped so that the control keeps its default, a number too large for an integer (``seed=1e309``, which makes
  Streamlit 1.67's integer ``number_input`` raise ``OverflowError`` while seeding) is refused like any invalid
  value, and a position written by hand (``cell_query=3``) is read as the picker's label ("3: cat");
- which widgets are bound to which URL parameter, with their metadata (``QueryParams._bindings_by_param``,
  ``SessionState.get_widget_metadata``), and the query-string form Streamlit writes for a value
  (``query_params._coerce_value_for_query_url``): the link box and the note on refused link values use them;
- the page this run shows (``ScriptRunContext.page_script_hash``, ``pages_manager.get_pages()``);
- removing many link parameters in one message (``QueryParams.discard_param_no_forward_msg``: one ``del
  st.query_params[k]`` each resends the whole query string).

Nothing here swallows an error. The module checks on import that the installed Streamlit is the version it was
read from and that every name it uses is still there, and raises ``StreamlitInternalsChanged`` otherwise (with what
to do); ``tests/test_internals.py`` fails the same way. Everything else in the app uses public APIs only.
"""
from __future__ import annotations

import math
from typing import Any

import streamlit
from streamlit.runtime.scriptrunner_utils import script_run_context as _src
from streamlit.runtime.state import query_params as _qp
from streamlit.runtime.state import session_state as _ss
from streamlit.runtime.state import session_state_proxy as _proxy

WRITTEN_FOR = "1.67.0"  # the streamlit version these internals were read from (requirements.txt pins it)


class StreamlitInternalsChanged(RuntimeError):
    """The installed Streamlit is not the one ``mha/app/internals.py`` was written for."""


def _required() -> dict[str, bool]:
    """Each internal this module relies on, and whether the installed Streamlit has it."""
    qp_fields = getattr(_qp.QueryParams, "__dataclass_fields__", {})
    return {
        "QueryParams._initial_query_params": "_initial_query_params" in qp_fields,
        "QueryParams._bindings_by_param": "_bindings_by_param" in qp_fields,
        "QueryParams.remove_param": callable(getattr(_qp.QueryParams, "remove_param", None)),
        "QueryParams.discard_param_no_forward_msg": callable(getattr(_qp.QueryParams, "discard_param_no_forward_msg",
                                                                     None)),
        "query_params._coerce_value_for_query_url": callable(getattr(_qp, "_coerce_value_for_query_url", None)),
        "SessionState.query_params": "query_params" in getattr(_ss.SessionState, "__dataclass_fields__", {}),
        "SessionState.get_widget_metadata": callable(getattr(_ss.SessionState, "get_widget_metadata", None)),
        "session_state_proxy.get_session_state": callable(getattr(_proxy, "get_session_state", None)),
        "script_run_context.get_script_run_ctx": callable(getattr(_src, "get_script_run_ctx", None)),
        "ScriptRunContext.page_script_hash": isinstance(getattr(_src.ScriptRunContext, "page_script_hash", None),
                                                        property),
        "ScriptRunContext.pages_manager": "pages_manager" in getattr(_src.ScriptRunContext, "__annotations__", {}),
        "SharedRunState.widget_ids_this_run": hasattr(getattr(_src, "SharedRunState", object)(), "widget_ids_this_run"),
    }


def check(version: str | None = None) -> None:
    """Raise ``StreamlitInternalsChanged`` unless Streamlit is ``WRITTEN_FOR`` and has every internal used here."""
    version = streamlit.__version__ if version is None else version
    missing = [name for name, ok in _required().items() if not ok]
    if version != WRITTEN_FOR or missing:
        raise StreamlitInternalsChanged(
            f"mha/app/internals.py reads private parts of Streamlit {WRITTEN_FOR}, but Streamlit {version} is "
            f"installed{' and lacks ' + ', '.join(missing) if missing else ''}. Install the pinned version "
            f"(pip install -r requirements.txt), or check each function of mha/app/internals.py against Streamlit "
            f"{version}, then set WRITTEN_FOR and run tests/test_internals.py.")


check()


# ----------------------------------------------------------------------------------------------------- this run


def _ctx():
    return _src.get_script_run_ctx()  # None outside a script run (a bare import, a unit test)


def _query_params():
    return _proxy.get_session_state()._state.query_params


def page_hash() -> str | None:
    """The script hash of the page this run shows; None outside a script run."""
    ctx = _ctx()
    return None if ctx is None else ctx.page_script_hash


def page_script_path() -> str:
    """The file of the page this run shows ('' outside a script run)."""
    ctx = _ctx()
    if ctx is None:
        return ""
    info = ctx.pages_manager.get_pages().get(ctx.page_script_hash) or {}
    return str(info.get("script_path") or "").replace("\\", "/")


def page_url_pathname() -> str:
    """Streamlit's own URL path of the page this run shows ('' outside a script run)."""
    ctx = _ctx()
    if ctx is None:
        return ""
    info = ctx.pages_manager.get_pages().get(ctx.page_script_hash) or {}
    return str(info.get("url_pathname") or "").strip("/")


# ------------------------------------------------------------------------- the URL values widgets are seeded from


def link_values() -> dict[str, list[str]]:
    """The URL parameters this run's widgets are seeded from (read-only copy); {} outside a script run."""
    if _ctx() is None:
        return {}
    return {k: list(v) for k, v in _query_params()._initial_query_params.items()}


def drop_link_value(key: str) -> None:
    """Seed nothing from ``key``: the control keeps its default (the address bar is left as it is)."""
    if _ctx() is not None:
        _query_params()._initial_query_params.pop(key, None)


def keep_link_values(key: str, values: list[str]) -> None:
    """Seed ``key`` from ``values`` instead of what the link said."""
    if _ctx() is not None:
        _query_params()._initial_query_params[key] = list(values)


def refuse_link_value(key: str) -> None:
    """Treat ``key``'s link value as Streamlit treats any invalid one: not seeded (the default applies) and removed
    from the address bar."""
    if _ctx() is not None:
        qp = _query_params()
        qp._initial_query_params.pop(key, None)
        qp.remove_param(key)


def drop_url_params(keys) -> None:
    """Remove these unbound parameters from the address bar in ONE message (security, issue #13 item 4).

    ``del st.query_params[k]`` sends the whole remaining query string once per key: 990 long unknown parameters
    made one run send 256 MB. Streamlit has no public bulk delete that keeps the bound parameters (``from_dict``
    refuses them), so the keys leave the session's query parameters without a message, then the public
    ``st.query_params.update()`` sends the one message with what is left. A bound parameter is never dropped."""
    if _ctx() is None:
        return
    qp = _query_params()
    for key in keys:
        if not qp.is_bound(key):
            qp.discard_param_no_forward_msg(key)
    streamlit.query_params.update()


def is_overflowing_number(value: str) -> bool:
    """A number that parses as a float but is infinite (``1e309``, ``inf``): Streamlit 1.67's integer
    ``number_input`` raises ``OverflowError`` seeding from it, instead of falling back to the default."""
    try:
        return math.isinf(float(value))
    except (ValueError, OverflowError):
        return False


# ------------------------------------------------------------------------------------------------- URL bindings


def url_bindings(previous_run_too: bool) -> dict[str, tuple[Any, Any]]:
    """Widgets bound to URL parameters: {parameter: (widget metadata, current value)}.

    Streamlit keeps the bindings of this run's widgets drawn so far plus those of the previous run; the previous
    run's belong to this view only if it showed the same page (``previous_run_too``)."""
    ctx = _ctx()
    if ctx is None:
        return {}
    state = _proxy.get_session_state()._state
    drawn = ctx.shared.widget_ids_this_run
    values = streamlit.session_state
    out = {}
    for key, binding in dict(state.query_params._bindings_by_param).items():
        if binding.widget_id not in drawn and not previous_run_too:
            continue  # a control of the page shown before: not part of this view
        meta = state.get_widget_metadata(binding.widget_id)
        if meta is not None and key in values:
            out[key] = (meta, values[key])
    return out


def url_form(meta, value) -> str | list[str]:
    """The query-string form Streamlit itself writes for this widget value."""
    return _qp._coerce_value_for_query_url(meta.serializer(value), meta.value_type)


def bound_params(app_test) -> list[str]:
    """For tests: the URL parameters bound to widgets after an AppTest's last run (``AppTest._session_state``)."""
    return sorted(app_test._session_state._state.query_params._bindings_by_param)

