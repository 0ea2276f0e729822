"""Every use of Streamlit's private internals, in one place, for the one version they were read from.

Streamlit has no public API for four things the app's links need, nor for the two things its fair compute and its
memory bound need (issue #23): whether a session still exists (a long run stops when its visitor has left,
``session_exists``; ``Runtime.is_active_session``, with the run's ``ScriptRunContext.session_id``) and a limit on
what one session may hold in uploads (``limit_uploads``: Streamlit bounds each file by ``server.maxUploadSize`` but
keeps any number of PUTs to ``/_stcore/upload_file/<session>/<any id>`` until the session ends; the runtime's
``MemoryUploadedFileManager.add_file`` is wrapped to refuse past a count and a byte total per session and for the
whole server, with HTTP 413). A hosted server installs that limit before it starts, for the class
(``limit_uploads_for_every_server``, from ``mha/app/serve.py``): ``limit_uploads`` alone, from the first script run,
leaves a freshly started server's sessions unlimited until some page runs (issue #23.2). The same launcher turns
Streamlit's legacy ``pages/`` routing off before any session (``PagesManager.uses_pages_directory``) and starts
Streamlit's own command line (``streamlit.web.cli.main``, what the ``streamlit`` command runs) in its process.

The link internals:

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
to do); ``tests/app/test_internals.py`` fails the same way. Everything else in the app uses public APIs only.
"""
from __future__ import annotations

import math
import os
import threading
from typing import Any

import streamlit
from streamlit import runtime as _runtime
from streamlit.runtime import memory_uploaded_file_manager as _mufm
from streamlit.runtime import pages_manager as _pm
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
        "ScriptRunContext.session_id": "session_id" in getattr(_src.ScriptRunContext, "__annotations__", {}),
        "runtime.get_instance": callable(getattr(_runtime, "get_instance", None)),
        "Runtime.is_active_session": callable(getattr(_runtime.Runtime, "is_active_session", None)),
        "Runtime.uploaded_file_mgr": isinstance(getattr(_runtime.Runtime, "uploaded_file_mgr", None), property),
        "MemoryUploadedFileManager.add_file": callable(getattr(_mufm.MemoryUploadedFileManager, "add_file", None)),
        "MemoryUploadedFileManager.file_storage": "file_storage" in _mufm.MemoryUploadedFileManager.__init__.__code__
        .co_names,
        "PagesManager.uses_pages_directory": "uses_pages_directory" in vars(_pm.PagesManager),
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
            f"{version}, then set WRITTEN_FOR and run tests/app/test_internals.py.")


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



# ------------------------------------------------------------------------------------------------ sessions


def session_id() -> str | None:
    """This script run's session id; None outside a script run."""
    ctx = _ctx()
    return None if ctx is None else ctx.session_id


def session_exists(session: str) -> bool:
    """Whether ``session`` is still connected (its websocket open). True when there is no server to ask (AppTest, a
    unit test): then nobody can leave. Safe from any thread."""
    if not _runtime.exists():
        return True
    return _runtime.get_instance().is_active_session(session)


# ------------------------------------------------------------------------------------------------ uploads


def _env_mb(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name}={raw!r}: give a whole number of megabytes, at least 1 (e.g. {name}={default})")
    return int(raw)


MB = 2 ** 20
# The app has one uploader (the Share page's weights, one file of at most server.maxUploadSize = 10 MB); a new file
# replaces the old one (the browser deletes it). Three files and two full-size ones leave room for that swap.
UPLOAD_FILES = int(_env_mb("MHA_UPLOAD_FILES", 3))  # per session
UPLOAD_BYTES = _env_mb("MHA_UPLOAD_MB", 20) * MB  # per session
UPLOAD_TOTAL_BYTES = _env_mb("MHA_UPLOAD_TOTAL_MB", 200) * MB  # every session together
UPLOAD_REFUSED = ("Too many uploads held for this session: {files} files / {mb} MB at most. Remove a file first. / "
                  "이 세션에 올린 파일이 너무 많습니다(최대 {files}개, {mb}MB). 먼저 파일을 지우세요.")
UPLOAD_SERVER_FULL = ("The server holds too many uploads right now; try again in a minute. / "
                      "지금 서버에 올라온 파일이 너무 많습니다. 잠시 후 다시 해 보세요.")
_UPLOAD_LOCK = threading.Lock()


class UploadRefused(Exception):
    """An upload past the per-session or server-wide limit (the wrapper turns it into HTTP 413)."""


def upload_allowed(held: dict, total: int, file_id: str, size: int, *, files: int = None, per_session: int = None,
                   server: int = None) -> str | None:
    """Why one more file of ``size`` bytes (``file_id``) may not join a session holding ``held`` ({file id: bytes})
    on a server holding ``total`` bytes; None when it may. A file replacing one of the same id counts once."""
    files = UPLOAD_FILES if files is None else files
    per_session = UPLOAD_BYTES if per_session is None else per_session
    server = UPLOAD_TOTAL_BYTES if server is None else server
    others = {k: v for k, v in held.items() if k != file_id}
    if len(others) + 1 > files or sum(others.values()) + size > per_session:
        return UPLOAD_REFUSED.format(files=files, mb=per_session // MB)
    if total - held.get(file_id, 0) + size > server:
        return UPLOAD_SERVER_FULL
    return None


def _limited(mgr, add_file, session_id, file) -> None:
    """``add_file(session_id=, file=)`` of ``mgr`` if ``upload_allowed`` lets the file in; HTTP 413 otherwise."""
    from starlette.exceptions import HTTPException

    with _UPLOAD_LOCK:
        held = {k: len(v.data) for k, v in dict(mgr.file_storage.get(session_id, {})).items()}
        total = sum(len(f.data) for files in list(mgr.file_storage.values()) for f in list(files.values()))
        why = upload_allowed(held, total, file.file_id, len(file.data))
        if why is not None:
            raise HTTPException(status_code=413, detail=why)
        add_file(session_id=session_id, file=file)


def uploads_limited_for_every_server() -> bool:
    """Whether ``limit_uploads_for_every_server`` has run in this process."""
    return getattr(_mufm.MemoryUploadedFileManager.add_file, "_mha_limited", False)


def limit_uploads_for_every_server() -> None:
    """Before a server starts (``mha/app/serve.py``): every ``MemoryUploadedFileManager`` of this process, hence the
    server's from its first websocket on, refuses uploads past the limits of ``limit_uploads``. Nothing calls this on
    import: ``streamlit run app.py`` and AppTest keep Streamlit's class as it is."""
    cls = _mufm.MemoryUploadedFileManager
    if uploads_limited_for_every_server():
        return
    add_file = cls.add_file

    def limited_add_file(self, session_id, file):
        _limited(self, lambda **kw: add_file(self, **kw), session_id, file)

    limited_add_file._mha_limited = True
    cls.add_file = limited_add_file


def limit_uploads() -> bool:
    """Wrap the running server's upload manager (once) so that each session holds at most ``UPLOAD_FILES`` files and
    ``UPLOAD_BYTES`` bytes, and all sessions together ``UPLOAD_TOTAL_BYTES``; past that the PUT gets HTTP 413 with
    the reason and nothing is kept. Returns whether the limit is in place (False without a server: AppTest).
    Called by the first script run (``streamlit run app.py``); under ``mha/app/serve.py`` the class is limited
    already and nothing more is wrapped."""
    if not _runtime.exists():
        return False
    mgr = _runtime.get_instance().uploaded_file_mgr
    if getattr(mgr, "_mha_limited", False):  # wrapped already (AppTest's mock runtime answers truthy here too)
        return True
    if not isinstance(mgr, _mufm.MemoryUploadedFileManager):
        raise StreamlitInternalsChanged(f"mha/app/internals.py limits uploads held by Streamlit's "
                                        f"MemoryUploadedFileManager, but the server uses {type(mgr).__name__}: "
                                        f"check limit_uploads against it.")
    if uploads_limited_for_every_server():
        return True
    add_file = mgr.add_file
    mgr.add_file = lambda session_id, file: _limited(mgr, add_file, session_id, file)
    mgr._mha_limited = True
    return True


# ------------------------------------------------------------------------------------------------ the launcher


def route_through_app_only() -> None:
    """Before any session: this process never enters Streamlit's legacy ``pages/`` routing (a folder ``pages/`` next
    to app.py makes a fresh server run a direct link's page file alone, without app.py, until some run calls
    ``st.navigation``). Every run then executes app.py, whose ``st.navigation`` picks the page by its URL; the
    frame's ``page`` decorator (mha/app/frame.py) still hands such runs over under ``streamlit run app.py``."""
    _pm.PagesManager.uses_pages_directory = False


def run_streamlit(args: list[str]) -> None:
    """Streamlit's own command line in this process, as the ``streamlit`` command runs it (``streamlit.web.cli.main``,
    the console script of Streamlit 1.67): ``run_streamlit(["run", "app.py", "--server.port=8501"])``. Exits the
    process when the server stops (click's standalone mode)."""
    from streamlit.web import cli

    if not hasattr(cli.main, "main"):  # a click command (``main(args=, prog_name=)``), as in 1.67
        raise StreamlitInternalsChanged("mha/app/internals.py starts Streamlit through streamlit.web.cli.main, a click "
                                        "command in Streamlit 1.67; check run_streamlit against the installed one.")
    cli.main.main(args=list(args), prog_name="streamlit")
