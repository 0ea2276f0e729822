"""The hosted launcher (``python -m mha.app.serve``, mha/app/serve.py; issue #23.2): its upload limit holds from the
server's first websocket on, where ``streamlit run app.py`` installs it only with the first script run.

A session that never asked for a run is told nothing, its id included (Streamlit sends the id in the first run's
``new_session`` message); these tests learn it from the server's debug log to name exactly that session. A visitor
learns it from the first run's ``new_session``, which comes while app.py is still importing, before it reaches
``limit_uploads``: on a fresh ``streamlit run`` server PUTs sent at once are all kept (a race: not asserted here;
docs/security.md gives the figures). Marked ``slow``: two servers of their own."""
from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import abuse  # noqa: E402  bench/abuse.py
import load  # noqa: E402  bench/load.py
from harness.server import Server, start_server  # noqa: E402

pytestmark = pytest.mark.slow
TIMEOUT = 120.0
SIX_MB = 6 * 10 ** 6  # three fit the 3 files / 20 MB of a session (mha/app/internals.py), a fourth does not
NEW_SESSION = re.compile(r"Created new session for client \d+\. Session ID: (\S+)")


def _start(tmp_path: Path, serve: bool):
    log = tmp_path / ("serve.log" if serve else "run.log")
    server = start_server(log=log, extra=["--logger.level", "debug"], serve=serve)
    return server.proc, server.url, log


def _puts_from_a_session_that_never_ran(base: str, log: Path, n: int) -> list[tuple[int, str]]:
    """Open a websocket, send no BackMsg at all, and PUT ``n`` files of 6 MB to that session's upload URL."""
    import websockets

    async def scenario():
        seen = set(NEW_SESSION.findall(log.read_text()))
        ws = await websockets.connect(base.replace("http://", "ws://") + "/_stcore/stream",
                                      subprotocols=["streamlit"], origin=base, max_size=None, ping_interval=None)
        try:
            deadline = time.monotonic() + 30
            while not (ids := [s for s in NEW_SESSION.findall(log.read_text()) if s not in seen]):
                assert time.monotonic() < deadline, "the server logged no new session"
                await asyncio.sleep(0.1)
            token = abuse.xsrf_token()
            loop = asyncio.get_running_loop()
            return [await loop.run_in_executor(None, _put, base, ids[0], f"file-{k}", token) for k in range(n)]
        finally:
            await ws.close()

    return load.run_async(scenario())


def _put(base: str, session: str, file_id: str, token: str) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(abuse.upload_request(base, session, file_id, SIX_MB, token), timeout=60) as r:
            return r.status, ""
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@pytest.fixture(scope="module")
def launcher(tmp_path_factory):
    proc, base, log = _start(tmp_path_factory.mktemp("serve"), serve=True)
    try:
        yield proc, base, log
    finally:
        _stop(proc)


def test_the_launcher_limits_a_session_that_never_ran(launcher):
    proc, base, log = launcher
    rss0 = load.rss_mb(proc.pid)
    answers = _puts_from_a_session_that_never_ran(base, log, 8)
    assert [code for code, _ in answers] == [204] * 3 + [413] * 5, answers
    assert "3 files" in answers[3][1] and "최대 3개" in answers[3][1]
    assert load.rss_mb(proc.pid) - rss0 < 100  # 18 MB kept, not 48


def test_the_launcher_limits_the_first_run_s_session_at_once(launcher):
    """The visitor's own path: the id from the first run's new_session, PUTs sent at once while the run goes on."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    _, base, _ = launcher

    async def scenario():
        ws = await websockets.connect(base.replace("http://", "ws://") + "/_stcore/stream",
                                      subprotocols=["streamlit"], origin=base, max_size=None, ping_interval=None)
        try:
            msg = BackMsg()
            msg.rerun_script.page_name = "share"
            msg.rerun_script.context_info.url = f"{base}/share"
            await ws.send(msg.SerializeToString())
            async with asyncio.timeout(TIMEOUT):
                while True:
                    fm = ForwardMsg()
                    fm.ParseFromString(await ws.recv())
                    if fm.WhichOneof("type") == "new_session":
                        break
            token = abuse.xsrf_token()
            loop = asyncio.get_running_loop()
            sid = fm.new_session.initialize.session_id
            return [await loop.run_in_executor(None, _put, base, sid, f"f{k}", token) for k in range(5)]
        finally:
            await ws.close()

    assert [code for code, _ in load.run_async(scenario())] == [204] * 3 + [413] * 2


def _first_run_of_a_direct_link(base: str) -> tuple[list[int], list[str]]:
    """A direct link to /playground as a fresh server's very first run: every ``script_finished`` status until the
    run ends, and the widget keys it drew."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    async def scenario():
        ws = await websockets.connect(base.replace("http://", "ws://") + "/_stcore/stream",
                                      subprotocols=["streamlit"], origin=base, max_size=None, ping_interval=None)
        finished, keys = [], []
        try:
            msg = BackMsg()
            msg.rerun_script.page_name = "playground"
            msg.rerun_script.context_info.url = f"{base}/playground"
            await ws.send(msg.SerializeToString())
            async with asyncio.timeout(TIMEOUT):
                while not finished or finished[-1] not in load.FINISHED:
                    fm = ForwardMsg()
                    fm.ParseFromString(await ws.recv())
                    if fm.WhichOneof("type") == "script_finished":
                        finished.append(fm.script_finished)
                    elif fm.WhichOneof("type") == "delta" and fm.delta.HasField("new_element"):
                        el = fm.delta.new_element
                        if el.WhichOneof("type") in load.WIDGET_FIELDS:
                            keys.append(getattr(el, el.WhichOneof("type")).id.rsplit("-", 1)[-1])
        finally:
            await ws.close()
        return finished, keys

    return load.run_async(scenario())


def test_a_direct_link_on_the_launcher_s_fresh_server_runs_through_app_py_at_once(tmp_path):
    """No legacy pages/ routing under the launcher: the first run, a direct link, is app.py's (the frame and its
    page) and ends without the rerun ``frame.page`` asks for when Streamlit ran the page file alone."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    proc, base, _ = _start(tmp_path, serve=True)
    try:
        finished, keys = _first_run_of_a_direct_link(base)
    finally:
        _stop(proc)
    assert finished == [ForwardMsg.FINISHED_SUCCESSFULLY], finished
    assert "num_heads" in keys and "text" in keys  # the frame's controls and the Playground's


def test_plain_streamlit_run_keeps_every_upload_of_a_session_that_never_ran(tmp_path):
    """What the launcher fixes: ``streamlit run app.py`` before any script run holds every PUT (Streamlit's own
    store has no count limit; if this fails, Streamlit bounds uploads itself now: see docs/security.md), and
    routes a fresh server's first direct link through the legacy pages/ mode."""
    proc, base, log = _start(tmp_path, serve=False)
    try:
        answers = _puts_from_a_session_that_never_ran(base, log, 5)
        finished, keys = _first_run_of_a_direct_link(base)
    finally:
        _stop(proc)
    assert [code for code, _ in answers] == [204] * 5, answers
    # and its first direct link runs pages/playground.py alone, whose page() (@frame.page) reruns through app.py
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    assert finished[0] == ForwardMsg.FINISHED_EARLY_FOR_RERUN and finished[-1] in load.FINISHED, finished
    assert "num_heads" in keys and "text" in keys


def _stop(proc) -> None:
    Server(url="", proc=proc).stop()
