"""Learner code runs in a worker process under OS limits (mha/check/worker.py): loops, explosions, crashes and
escapes that reached the OS are stopped there with a message key, and this process — the server's stand-in — is
unharmed: after each, the next check works, and nothing here changed (limits, files, threads).

The checks use the trusted stand-ins of mha/check/probe.py as their entry (the diagnosis has its own tests): what is
tested is the way to the learner's code and back, not what it computes.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import threading
import time

import pytest

from mha.check import examples, worker
from mha.check.worker import WorkerPool, run_check
from mha.strings.check import STRINGS

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport math\n"
FORWARD = "mha.check.probe:forward"
NAMES = "mha.check.probe:names"


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(size=1)
    p.start()
    yield p
    p.shutdown()


@pytest.fixture(scope="module")
def own_limits():
    return {name: resource.getrlimit(getattr(resource, name))
            for name in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE")}


def check(pool, code, entry=FORWARD, request=None, timeout=5.0):
    return run_check(code, request or {"d_model": 16, "num_heads": 4}, timeout=timeout, entry=entry, pool=pool)


def assert_next_check_works(pool):
    result = check(pool, examples.COURSE)
    assert result == {"status": "ok", "shape": [1, 5, 16], "sum": pytest.approx(result["sum"])}, result
    assert json.loads(json.dumps(result)) == result  # plain data


def assert_server_unharmed(pool, own_limits):
    assert_next_check_works(pool)
    now = {name: resource.getrlimit(getattr(resource, name)) for name in own_limits}
    assert now == own_limits  # the child's limits stayed in the child
    import torch

    assert torch.get_num_threads() >= 1 and float(torch.ones(2).sum()) == 2.0


# ---------------------------------------------------------------------------------------------- what must work
def test_the_courses_class_and_a_learners_run_in_the_worker_not_here(pool):
    course = check(pool, examples.COURSE)
    assert course["status"] == "ok" and course["shape"] == [1, 5, 16]
    # same seed, same class: the same numbers from a fresh child each time
    assert check(pool, examples.COURSE)["sum"] == course["sum"]
    seed_two = check(pool, examples.SEED_TWO, request={"d_model": 16, "num_heads": 1})
    assert seed_two["status"] == "ok"
    names = check(pool, "x = 1\n", entry=NAMES)["names"]
    assert "x" in names
    assert pool.pids() and os.getpid() not in pool.pids()


def test_the_worker_is_niced_single_threaded_and_limited(pool):
    result = check(pool, "x = 1", entry="mha.check.probe:os_escape")
    assert result["nice"] >= os.nice(0) + 1, "the worker must yield the CPU to the Playground"
    assert result["threads"] == 1
    if result["autogroup_nice"] is not None:  # Linux autogroups share the CPU by session first: niced as well
        assert result["autogroup_nice"] == result["nice"]
    assert result["limits"]["fsize"] == 0 and 0 < result["limits"]["cpu"] <= 7
    assert result["limits"]["as"] > 0


def test_a_refusal_comes_back_with_its_key_and_place(pool):
    result = check(pool, "import torch\nx = torch.load('w.pt')\n")
    assert result == {"status": "refused", "key": "check_attr_forbidden", "line": 2, "col": 5,
                      "fmt": {"name": "load", "owner": "torch"}}


def test_session_slot_allows_one_check_per_session():
    with worker.session_slot("a") as first:
        with worker.session_slot("a") as second, worker.session_slot("b") as other:
            assert (first, second, other) == (True, False, True)
    with worker.session_slot("a") as again:
        assert again


def test_mha_check_off_switches_the_feature_off(monkeypatch):
    monkeypatch.setenv("MHA_CHECK", "off")
    never = WorkerPool(size=1)
    assert run_check(examples.COURSE, {}, pool=never) == {"status": "off", "key": "check_off", "fmt": {}}
    assert never.pids() == []  # no worker was started


def test_only_a_trusted_entry_under_mha_check_is_called(pool):
    with pytest.raises(ValueError):
        run_check("x = 1", {}, entry="os:system", pool=pool)


# ----------------------------------------------------------------------------- exhaustion and escapes to the OS
EXHAUSTION = [
    ("endless_loop", "while True:\n    pass\n", NAMES, "check_timeout"),
    ("endless_loop_in_forward", HEADER + "class M(nn.Module):\n    def __init__(self, d, h):\n"
     "        super().__init__()\n    def forward(self, q, k, v, mask=None):\n        while True:\n"
     "            q = q + 1\n", FORWARD, "check_timeout"),
    ("huge_power", "x = 10 ** 10 ** 9\n", NAMES, "check_timeout"),
    ("deep_recursion", "def f(n):\n    return f(n + 1)\nf(0)\n", NAMES, "check_recursion"),
    ("recursion_in_forward", HEADER + "class M(nn.Module):\n    def forward(self, q, k, v, mask=None):\n"
     "        return self.forward(q, k, v)\n    def __init__(self, d, h):\n        super().__init__()\n",
     FORWARD, "check_recursion"),
    ("huge_tensor", HEADER + "x = torch.zeros(10 ** 11)\n", NAMES, "check_memory"),
    ("huge_string", "x = 'a' * 10 ** 11\n", NAMES, "check_memory"),
    ("growing_list", HEADER + "xs = []\nwhile True:\n    xs.append(torch.ones(10 ** 8))\n", NAMES, "check_memory"),
    ("huge_tensor_in_forward", HEADER + "class M(nn.Module):\n    def __init__(self, d, h):\n"
     "        super().__init__()\n    def forward(self, q, k, v, mask=None):\n"
     "        return torch.ones(10 ** 6, 10 ** 6)\n", FORWARD, "check_memory"),
]


@pytest.mark.parametrize("name,code,entry,key", EXHAUSTION, ids=[e[0] for e in EXHAUSTION])
def test_exhaustion_is_stopped_with_a_message(pool, own_limits, name, code, entry, key):
    started = time.monotonic()
    # the timeout cases get 1.5 s; the others enough not to hit it on a busy machine
    result = check(pool, code, entry=entry, timeout=1.5 if key == "check_timeout" else 20)
    assert result["key"] == key, result
    assert result["status"] in ("limit", "refused") and key in STRINGS
    if key == "check_timeout":
        assert result["fmt"] == {"seconds": 1.5}
    assert time.monotonic() - started < 60  # stopped, not waited out
    assert_server_unharmed(pool, own_limits)


def test_output_that_is_not_a_tensor_is_named(pool, own_limits):
    code = HEADER + ("class M(nn.Module):\n    def __init__(self, d, h):\n        super().__init__()\n"
                     "    def forward(self, q, k, v, mask=None):\n        return 'not a tensor'\n")
    result = check(pool, code)
    assert (result["key"], result["fmt"]) == ("check_output_not_tensor", {"type": "str"})
    assert_server_unharmed(pool, own_limits)


def test_a_hostile_exception_message_comes_back_as_plain_data(pool, own_limits):
    hostile = "<img src=x onerror=alert(1)> **bold** :red[boom] $\\LaTeX$"
    result = check(pool, HEADER + f"raise RuntimeError({hostile!r})\n")
    assert result == {"status": "refused", "key": "check_raised", "line": 5, "col": None,
                      "fmt": {"error": "RuntimeError", "message": hostile}}
    assert_server_unharmed(pool, own_limits)


def test_escapes_that_reach_the_os_are_refused_there(pool, own_limits, tmp_path):
    """Trusted code in the child tries what learner code would if it ever got out of the language: sockets,
    processes (os.system, subprocess, fork), a file write, a deletion, a signal to another process, raising its CPU
    limit. The seccomp filter and the limits refuse each; reading still works, and torch."""
    target, victim = tmp_path / "written", tmp_path / "victim"
    victim.write_text("keep me")
    result = check(pool, "x = 1", entry="mha.check.probe:os_escape",
                   request={"path": str(target), "unlink": str(victim)})
    attempts = result["attempts"]
    for name in ("socket", "socket_unix", "fork", "subprocess", "open_write", "unlink", "kill_parent"):
        assert attempts[name] == "EPERM", (name, attempts)
    assert attempts["os_system"] != 0  # the shell never started
    assert attempts["raise_cpu_limit"] in ("EPERM", "ValueError")
    assert attempts["read_ok"] is True and attempts["torch_ok"] == 1.0
    if os.geteuid() == 0:  # a root server's child runs as nobody: no other process's environment (secrets)
        assert result["uid"] == 65534 and attempts["read_parent_environ"] == "EACCES", attempts
    assert not target.exists() and victim.read_text() == "keep me"
    assert_server_unharmed(pool, own_limits)


def test_a_child_that_crashes_hard_leaves_the_worker_warm(pool, own_limits):
    before = pool.pids()
    result = check(pool, "x = 1", entry="mha.check.probe:abort")
    assert (result["status"], result["key"]) == ("limit", "check_worker_died")
    assert pool.pids() == before  # the worker survived its child
    assert_server_unharmed(pool, own_limits)


def test_a_dead_worker_is_replaced_by_a_fresh_one(pool, own_limits):
    (pid,) = pool.pids()
    os.kill(pid, signal.SIGKILL)  # our own worker, by its id
    assert_next_check_works(pool)
    assert pool.pids() != [pid]
    assert_server_unharmed(pool, own_limits)


def test_a_worker_killed_during_a_check_gives_worker_died_and_is_replaced(pool, own_limits):
    (pid,) = pool.pids()
    threading.Timer(1.0, os.kill, (pid, signal.SIGKILL)).start()
    result = check(pool, "while True:\n    pass\n", entry=NAMES, timeout=10)
    assert result["key"] == "check_worker_died", result
    assert_server_unharmed(pool, own_limits)


def test_a_busy_pool_says_so_instead_of_queueing_forever(pool):
    busy = WorkerPool(size=1)
    try:
        busy.start()
        thread = threading.Thread(target=run_check, args=("while True:\n    pass\n", {}),
                                  kwargs={"timeout": 3, "entry": NAMES, "pool": busy})
        thread.start()
        time.sleep(0.5)
        result = busy.run({"code": "x = 1", "request": {}, "entry": NAMES, "timeout": 1}, 1, queue_s=0)
        assert result == {"status": "limit", "key": "check_busy", "fmt": {}}
        thread.join()
    finally:
        busy.shutdown()


def test_no_state_passes_from_one_check_to_the_next(pool):
    """Each check is a fresh child of the warm worker: what one learner's code did is gone for the next."""
    first = check(pool, HEADER + "torch.manual_seed(123)\nstate = torch.ones(3).add_(1)\n", entry=NAMES)
    assert first["status"] == "ok"
    again = check(pool, examples.COURSE)
    assert again == check(pool, examples.COURSE)


def test_the_largest_request_the_app_sends_goes_through(pool):
    """128 tokens at d_model 512 (the app's limits): about 1.3 MB of JSON to the worker."""
    x = [[[0.123456789] * 512 for _ in range(128)]]
    result = check(pool, "x = 1\n", entry=NAMES, request={"x": x, "d_model": 512, "num_heads": 16})
    assert result["status"] == "ok"


def test_code_over_the_limit_is_refused_without_a_trip_to_the_worker():
    never = WorkerPool(size=1)
    result = run_check("#" * 20_001, {}, pool=never)
    assert (result["status"], result["key"]) == ("refused", "check_too_long") and never.pids() == []


def test_a_lone_surrogate_in_a_message_arrives_as_valid_text(pool):
    """A learner's ``"\\ud800"`` cannot be encoded as UTF-8 (Streamlit's protobuf would fail on it): replaced."""
    result = check(pool, "raise ValueError('a\\ud800b \U0001f600')\n")
    assert result["key"] == "check_raised" and result["fmt"]["message"] == "a?b \U0001f600"
    result["fmt"]["message"].encode("utf-8")


def test_the_timeout_counts_cpu_seconds_and_a_starved_check_is_not_called_a_loop(pool):
    """A check that waits 2.5 s (no CPU) within a 1 s budget is fine (a niced check on a busy machine); a loop of
    the same budget is stopped; the wall clock stops what waits too long (4 x 1 s + 5 s)."""
    assert check(pool, "x = 1", entry="mha.check.probe:sleep", request={"seconds": 2.5}, timeout=1) == {
        "status": "ok"}
    assert check(pool, "while True:\n    pass\n", entry=NAMES, timeout=1)["key"] == "check_timeout"
    assert worker.wall_seconds(1) == 9.0
    started = time.monotonic()
    result = check(pool, "x = 1", entry="mha.check.probe:sleep", request={"seconds": 60}, timeout=1)
    assert result["key"] == "check_timeout" and time.monotonic() - started < 30


def test_a_result_over_the_cap_is_dropped_and_the_worker_stays(pool, own_limits):
    before = pool.pids()
    result = check(pool, "x = 1", entry="mha.check.probe:huge", timeout=20)
    assert (result["status"], result["key"]) == ("limit", "check_result_too_big")
    assert pool.pids() == before
    assert_server_unharmed(pool, own_limits)


# ------------------------------------------------------------------------------ with the real diagnosis as entry
def _learner_class(forward_body: str) -> str:
    return HEADER + ("class MultiHeadAttention(nn.Module):\n    def __init__(self, d_model, num_heads):\n"
                     "        super().__init__()\n        self.q = nn.Linear(d_model, d_model)\n"
                     "    def forward(self, query, key, value, mask=None):\n" + forward_body)


DIAGNOSIS_REQUEST = {"x": [[[0.01 * (i + j) for j in range(16)] for i in range(5)]], "d_model": 16,
                     "num_heads": 4, "mask": None, "seed": 0}


@pytest.mark.parametrize("body,key", [
    ("        return query.numpy()\n", "check_attr_forbidden"),
    ("        return open('/etc/passwd')\n", "check_name_forbidden"),
    ("        return torch.load('w.pt')\n", "check_attr_forbidden"),
    ("        while True:\n            query = query + 1\n", "check_timeout"),
], ids=["tensor_numpy", "open", "torch_load", "endless_loop"])
def test_escapes_inside_forward_stop_the_diagnosis_too(pool, own_limits, body, key):
    """The diagnosis (mha.check.diagnose) calls the learner's forward: a refusal there is not taken for a crash of
    theirs (Refused is a BaseException), and a loop there is stopped by the worker."""
    result = run_check(_learner_class(body), DIAGNOSIS_REQUEST, timeout=2, pool=pool)
    assert result["key"] == key, result
    if result["status"] == "refused":
        assert result["line"] == _learner_class(body).count("\n")  # the forward's one line: the last
    assert_server_unharmed(pool, own_limits)


def test_the_courses_class_is_diagnosed_equal_through_the_worker(pool):
    from mha.check import examples as ex

    result = run_check(ex.COURSE, DIAGNOSIS_REQUEST, pool=pool)
    assert result["status"] == "equal", {k: result.get(k) for k in ("status", "message", "crash")}
