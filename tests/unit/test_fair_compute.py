"""The long-run scheduler (mha.app.runs, issue #23.1): a cap on runs at once, a FIFO queue with its places, one run per
session, cancellation when nobody waits (session gone, superseded, stopped looking), a finished run cached for
everyone and a cancelled one not. Behaviour only: the time bounds here are generous waits, never measurements
(bench/ has the figures)."""
from __future__ import annotations

import threading
import time

import pytest

from mha.app import runs
from mha.core.lru import ByteLRU
from mha.weights import train as tr

WAIT = 10.0  # seconds a test waits at most for what must happen at the next step group (~10 ms here)


class Steps:
    """A training stand-in: step groups of ~5 ms, forever or ``n`` of them; records how it ended."""

    def __init__(self, n: int | None = None):
        self.n, self.done, self.closed, self.started = n, 0, threading.Event(), threading.Event()

    def __iter__(self):
        return self.gen()

    def gen(self):
        self.started.set()
        try:
            i = 0
            while self.n is None or i < self.n:
                time.sleep(0.005)
                i += 1
                self.done = i
                yield i
        finally:
            self.closed.set()  # a cancelled run's generator is closed: its training stops there


def work_of(steps: Steps, result="trained"):
    def work(job):
        runs.drive(job, steps)
        return {"result": result, "steps": steps.done}
    return work


def scheduler(**kw) -> runs.Scheduler:
    # A long heartbeat unless a test is about it: on a loaded machine a waiting test may look late.
    return runs.Scheduler(**{"cap": 1, "max_waiting": 8, "heartbeat": 600.0, **kw})


def test_at_most_cap_runs_at_once_and_the_queue_says_each_place():
    s = scheduler(cap=1)
    work = [Steps() for _ in range(3)]
    jobs = [s.submit(f"visitor{i}", ("run", i), work_of(w)) for i, w in enumerate(work)]
    assert work[0].started.wait(WAIT)
    assert [j.state for j in jobs] == ["running", "queued", "queued"]
    assert [j.look(f"visitor{i}") for i, j in enumerate(jobs)] == [0, 1, 2]  # "2 runs ahead of yours"
    assert not work[1].started.is_set() and not work[2].started.is_set()
    s.leave(jobs[0], "visitor0")  # the first visitor leaves: the next one starts, places move up
    assert jobs[0].done.wait(WAIT) and jobs[0].state == "cancelled"
    assert work[1].started.wait(WAIT)
    assert jobs[1].state == "running" and jobs[2].look("visitor2") == 1
    for i in (1, 2):
        s.leave(jobs[i], f"visitor{i}")
    assert all(j.done.wait(WAIT) for j in jobs)


def test_two_runs_at_once_with_a_cap_of_two():
    s = scheduler(cap=2)
    work = [Steps() for _ in range(3)]
    jobs = [s.submit(f"v{i}", i, work_of(w)) for i, w in enumerate(work)]
    assert work[0].started.wait(WAIT) and work[1].started.wait(WAIT)
    assert [j.state for j in jobs] == ["running", "running", "queued"] and jobs[2].look("v2") == 2
    for i, j in enumerate(jobs):
        s.leave(j, f"v{i}")
    assert all(j.done.wait(WAIT) for j in jobs)


def test_a_new_request_of_the_same_session_supersedes_its_previous_run():
    s = scheduler(cap=2)
    first, second = Steps(), Steps()
    old = s.submit("visitor", "settings A", work_of(first))
    assert first.started.wait(WAIT)
    new = s.submit("visitor", "settings B", work_of(second))
    assert old.done.wait(WAIT) and old.state == "cancelled" and first.closed.is_set()
    assert new.state == "running" and s.job_of("visitor") is new
    assert len(s.running()) == 1  # one long run per session
    s.leave(new, "visitor")
    assert new.done.wait(WAIT)


def test_the_same_request_again_joins_the_run_and_two_sessions_share_one():
    s = scheduler(cap=1)
    w = Steps()
    a = s.submit("a", "same settings", work_of(w))
    assert s.submit("a", "same settings", work_of(Steps())) is a  # a rerun of the page waits for the same run
    b = s.submit("b", "same settings", work_of(Steps()))
    assert b is a and w.started.wait(WAIT)
    assert not s.leave(a, "a")  # b still waits: it goes on
    time.sleep(0.05)
    assert a.state == "running" and not w.closed.is_set()
    assert s.leave(a, "b")  # nobody waits any more: cancelled
    assert a.done.wait(WAIT) and a.state == "cancelled" and w.closed.is_set()


def test_a_run_stops_at_its_next_step_group_when_its_session_is_gone():
    alive = {"visitor"}
    s = scheduler(alive=lambda session: session in alive)
    w = Steps()
    job = s.submit("visitor", "long", work_of(w))
    assert w.started.wait(WAIT)
    alive.discard("visitor")  # the tab was closed: Streamlit no longer has the session
    assert job.done.wait(WAIT), "the run did not stop"
    assert job.state == "cancelled" and w.closed.is_set() and job.result is None


def test_a_queued_run_whose_session_is_gone_gives_its_place_up():
    alive = {"first", "second", "third"}
    s = scheduler(alive=lambda session: session in alive)
    jobs = [s.submit(name, name, work_of(Steps())) for name in ("first", "second", "third")]
    assert jobs[2].look("third") == 2
    alive.discard("second")
    assert jobs[2].look("third") == 1  # one run ahead now
    assert jobs[1].done.is_set() and jobs[1].state == "cancelled"
    for j, name in ((jobs[0], "first"), (jobs[2], "third")):
        s.leave(j, name)
    assert all(j.done.wait(WAIT) for j in jobs)


def test_a_run_nobody_looks_at_any_more_is_cancelled_after_the_heartbeat():
    now = [0.0]
    s = scheduler(heartbeat=1.5, clock=lambda: now[0])
    w = Steps()
    job = s.submit("visitor", "long", work_of(w))
    assert w.started.wait(WAIT)
    now[0] = 1.0
    job.look("visitor")  # the waiting script looks: still wanted
    now[0] = 2.0
    time.sleep(0.05)
    assert job.state == "running"
    now[0] = 3.0  # 2 s without a look (the page went elsewhere)
    assert job.done.wait(WAIT) and job.state == "cancelled" and w.closed.is_set()


def test_a_finished_run_is_cached_for_everyone_and_a_cancelled_one_is_not():
    store = ByteLRU("test", max_bytes=2 ** 20, max_entries=8)
    s = scheduler(cap=2)
    done = s.submit("a", "finishes", work_of(Steps(3), "A"), store=store)
    assert done.done.wait(WAIT) and done.state == "done" and done.result == {"result": "A", "steps": 3}
    assert store.lookup("finishes") == (True, done.result)
    again = s.submit("b", "finishes", work_of(Steps(3), "other"), store=store)  # another visitor: from the cache
    assert again.done.is_set() and again.result is done.result
    w = Steps()
    cut = s.submit("c", "cut short", work_of(w), store=store)
    assert w.started.wait(WAIT)
    s.leave(cut, "c")
    assert cut.done.wait(WAIT) and cut.state == "cancelled"
    assert store.lookup("cut short") == (False, None)


def test_an_error_reaches_the_waiting_script_and_is_not_cached():
    store = ByteLRU("test", max_bytes=2 ** 20, max_entries=8)
    s = scheduler()

    def broken(job):
        raise ValueError("d_model 7 does not divide into 2 heads")

    job = s.submit("a", "bad", broken, store=store)
    assert job.done.wait(WAIT) and job.state == "failed"
    with pytest.raises(ValueError, match="does not divide"):
        runs.wait(job, lambda ahead, j: None)
    assert "bad" not in store


def test_the_queue_is_bounded():
    s = scheduler(cap=1, max_waiting=2)
    jobs = [s.submit(f"v{i}", i, work_of(Steps())) for i in range(3)]  # one runs, two wait
    with pytest.raises(runs.QueueFull) as full:
        s.submit("v3", 3, work_of(Steps()))
    assert full.value.waiting == 2
    for i, j in enumerate(jobs):
        s.leave(j, f"v{i}")
    assert all(j.done.wait(WAIT) for j in jobs)


def test_stop_stops_the_run_and_what_it_did_can_be_read():
    s = scheduler()
    w = Steps()
    job = s.submit("visitor", "to stop", work_of(w))
    while w.done < 3:
        time.sleep(0.01)
    assert s.stop(job, "visitor")
    assert job.state == "cancelled" and w.closed.is_set()
    steps_then = w.done
    time.sleep(0.05)
    assert w.done == steps_then >= 3  # nothing runs after the stop: the parameters can be read as they are


def test_wait_shows_the_place_then_returns_the_result():
    s = scheduler(cap=1)
    blocker = Steps()
    first = s.submit("other", "ahead", work_of(blocker))
    mine = s.submit(runs.session(), "mine", work_of(Steps(2), "mine"))
    shown = []
    threading.Timer(0.3, lambda: s.leave(first, "other")).start()
    assert runs.wait(mine, lambda ahead, job: shown.append(ahead), every=0.02)["result"] == "mine"
    assert 1 in shown  # "1 run ahead of yours" while the other one ran


def test_a_cancelled_trained_module_is_not_kept_and_a_finished_one_is():
    key = tr.trained_key("first", 8, 2, 400, 4321)
    s = scheduler()
    job = s.submit("visitor", ("trained", *key), lambda j: tr.trained_module(*key, drive=lambda st: runs.drive(j, st)))
    while not job.events:
        time.sleep(0.01)
    s.leave(job, "visitor")
    assert job.done.wait(WAIT) and job.state == "cancelled"
    assert not tr.trained_ready(key) and job.events[-1].step < 400
    small = tr.trained_key("first", 8, 2, 20, 4321)
    done = s.submit("visitor", ("trained", *small),
                    lambda j: tr.trained_module(*small, drive=lambda st: runs.drive(j, st)))
    assert done.done.wait(WAIT * 3) and done.state == "done" and tr.trained_ready(small)
    assert tr.trained_module(*small) is done.result  # the view then finds it: light work


def test_settings_for_the_scheduler_are_checked(monkeypatch):
    monkeypatch.setenv("MHA_LONG_RUNS", "zero")
    with pytest.raises(ValueError, match="MHA_LONG_RUNS"):
        runs._env_int("MHA_LONG_RUNS", 1)
    monkeypatch.setenv("MHA_LONG_RUNS", "3")
    assert runs._env_int("MHA_LONG_RUNS", 1) == 3
    with pytest.raises(ValueError, match="cap"):
        runs.Scheduler(cap=0)


def test_a_script_slow_to_draw_keeps_its_run_and_one_interrupted_gives_it_up_after_the_heartbeat():
    s = scheduler(heartbeat=0.2)
    job = s.submit(runs.session(), "slow page", work_of(Steps(60), "drawn slowly"))

    def slow_show(ahead, job):
        time.sleep(0.5)  # drawing the live charts on a busy machine: longer than the heartbeat

    assert runs.wait(job, slow_show, every=0.01)["result"] == "drawn slowly"
    w = Steps()
    other = s.submit(runs.session(), "interrupted", work_of(w))

    def interrupted(ahead, job):
        raise KeyboardInterrupt  # as Streamlit's StopException / RerunException leave a waiting script

    with pytest.raises(KeyboardInterrupt):
        runs.wait(other, interrupted, every=0.01)
    assert other.done.wait(WAIT) and other.state == "cancelled" and w.closed.is_set()
