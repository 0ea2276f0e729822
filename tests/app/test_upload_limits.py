"""The per-session and server-wide upload limits (mha/app/internals.py, issue #23.2), as a pure decision; the real
server's answer (HTTP 413 with this reason) is tests/deploy/test_abuse.py's."""
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
