"""The per-session and server-wide upload limits (mha/app/internals.py, issue #23.2), as a pure decision and as the
launcher's class-level wrap; the real server's answer (HTTP 413 with this reason) is tests/deploy/test_abuse.py's and,
from the first websocket on under ``python -m mha.app.serve``, tests/deploy/test_serve.py's."""
import pytest

from mha.app import internals

MB = 2 ** 20
LIMITS = dict(files=3, per_session=20 * MB, server=200 * MB)


def test_a_session_holds_at_most_three_files():
    held = {"a": MB, "b": MB}
    assert internals.upload_allowed(held, 2 * MB, "c", MB, **LIMITS) is None
    why = internals.upload_allowed({**held, "c": MB}, 3 * MB, "d", MB, **LIMITS)
    assert why is not None and "3 files" in why and "최대 3개" in why


def test_a_session_holds_at_most_its_bytes():
    assert internals.upload_allowed({"a": 10 * MB}, 10 * MB, "b", 10 * MB, **LIMITS) is None
    assert "20 MB" in internals.upload_allowed({"a": 10 * MB, "b": 10 * MB}, 20 * MB, "c", 1, **LIMITS)


def test_a_file_sent_again_under_its_id_counts_once():
    held = {"a": 10 * MB, "b": 10 * MB, "c": 0}
    assert internals.upload_allowed(held, 20 * MB, "b", 10 * MB, **LIMITS) is None  # replaces b: still 3 files, 20 MB
    assert internals.upload_allowed(held, 20 * MB, "d", 0, **LIMITS) is not None  # a fourth file is not


def test_every_session_together_is_bounded_too():
    why = internals.upload_allowed({}, 195 * MB, "a", 10 * MB, **LIMITS)
    assert why == internals.UPLOAD_SERVER_FULL


def test_without_a_server_nothing_is_wrapped():
    assert internals.limit_uploads() is False  # a unit test or AppTest: no runtime, no upload endpoint


def test_the_launcher_s_class_level_limit_refuses_past_three_files(monkeypatch):
    """``limit_uploads_for_every_server`` (mha/app/serve.py calls it before the server starts) limits every upload
    manager of the process; importing the module changes nothing (``streamlit run`` and AppTest keep Streamlit's)."""
    from starlette.exceptions import HTTPException
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    assert not internals.uploads_limited_for_every_server()
    assert MemoryUploadedFileManager.add_file.__module__.startswith("streamlit.")
    monkeypatch.setattr(MemoryUploadedFileManager, "add_file", MemoryUploadedFileManager.add_file)  # undone after
    internals.limit_uploads_for_every_server()
    internals.limit_uploads_for_every_server()  # a second call wraps nothing more
    assert internals.uploads_limited_for_every_server()
    mgr = MemoryUploadedFileManager("/upload")
    for n in range(3):
        mgr.add_file("s1", UploadedFileRec(file_id=f"f{n}", name="w.pt", type="application/octet-stream", data=b"x"))
    with pytest.raises(HTTPException) as refused:
        mgr.add_file("s1", UploadedFileRec(file_id="f3", name="w.pt", type="application/octet-stream", data=b"x"))
    assert refused.value.status_code == 413 and "3 files" in refused.value.detail
    assert sorted(mgr.file_storage["s1"]) == ["f0", "f1", "f2"]  # nothing kept of the refused one
    mgr.add_file("s2", UploadedFileRec(file_id="f0", name="w.pt", type="application/octet-stream", data=b"x"))
    assert len(mgr.get_files("s2", ["f0"])) == 1  # another session has its own three
