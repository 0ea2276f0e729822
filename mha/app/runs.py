"""Long runs (any training): outside the compute slots, one per session, a few at a time server-wide, in a queue
that says its place, and stopped when nobody waits for them any more.

A view that is cached, or light, takes one of ``compute.HEAVY_WORK``'s slots for a fraction of a second; a training
(the ``trained`` weight source, the Train page, the Induction page) takes seconds to minutes. Run inside those slots,
two trainings locked every other visitor out (issue #23). Here:

- ``LONG_RUNS``: the one ``Scheduler``. At most ``MHA_LONG_RUNS`` runs at once (default: half the cores, at least
  1), each in a thread of its own; the others wait in a FIFO queue of at most ``MHA_LONG_RUNS_QUEUE`` (default 32:
  past it a request is refused with a message, not queued). A run's work yields control every step group
  (``drive``): that is where it reports progress and where it is stopped.
- **One long run per session.** A session's new request supersedes its previous one (other settings, another
  page): the old one is left, and stopped if nobody else waits for it. Two sessions asking for the same run (the
  same cache key) share it.
- **Stopped when nobody waits.** A run is wanted while one of its sessions still exists (``internals.session_exists``)
  and a script of it waits for the run (``wait``, however long its drawing takes), or did within ``HEARTBEAT``
  seconds (a rerun of the page may ask for it again). The run checks that at every step group: a visitor who
  closes the tab or asks for other settings stops it within a step group; one whose page reruns into something
  else, within ``HEARTBEAT``.
- **A finished run is cached for everyone** (the ``store`` given, a ``mha.core.lru.ByteLRU``); a cancelled or failed one
  is not.

``wait(job, ...)`` is the Streamlit side: it shows the place in the queue ("2 runs ahead of yours"), then the
caller's progress, until the run ends; it re-raises the run's error. torch runs on one thread (``mha.app.frame``).
"""
from __future__ import annotations

import os
import threading
import time
from collections import deque
from typing import Any, Callable, Hashable, Iterable, Optional

from mha.core.lru import ByteLRU, freeze

POLL = 0.1  # seconds between two looks of a waiting script (it also sends a message: Streamlit can stop it there)
HEARTBEAT = 1.5  # a run no session has looked at for this long is not wanted any more


def _env_int(name: str, default: int, low: int = 1) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r}: give a whole number of at least {low}, e.g. {name}={default}") from None
    if value < low:
        raise ValueError(f"{name}={value}: give at least {low}, e.g. {name}={default}")
    return value


DEFAULT_CAP = _env_int("MHA_LONG_RUNS", max(1, (os.cpu_count() or 2) // 2))  # 1 on 2 cores: the other serves views
DEFAULT_QUEUE = _env_int("MHA_LONG_RUNS_QUEUE", 32)


class Cancelled(Exception):
    """The run is not wanted any more (raised inside its work, at a step group)."""


class QueueFull(Exception):
    """Too many runs are waiting already: ``waiting`` of them."""

    def __init__(self, waiting: int):
        super().__init__(f"{waiting} long runs are waiting already; try again in a minute")
        self.waiting = waiting


class Job:
    """One long run. ``work(job)`` computes its result and calls ``job.check()`` (and ``job.report(event)``) at every
    step group; ``drive`` does both for an iterator of step groups."""

    def __init__(self, scheduler: "Scheduler", key: Hashable, work: Callable[["Job"], Any],
                 store: Optional[ByteLRU]):
        self.scheduler, self.key, self.work, self.store = scheduler, key, work, store
        self.state = "queued"  # -> "running" -> "done" | "failed" | "cancelled"
        self.events: list = []  # what the work reported so far (read by the waiting scripts)
        self.meta: dict = {}  # what the work leaves for its callers (e.g. how to finish a stopped run)
        self.result: Any = None
        self.error: Optional[BaseException] = None
        self.done = threading.Event()
        self._cancel = threading.Event()
        self._seen: dict[str, float] = {}  # session -> when it last looked at this run
        self._waiting: dict[str, int] = {}  # session -> its scripts inside ``wait`` for this run now

    # -- inside the work
    def check(self) -> None:
        """Raise ``Cancelled`` when the run has been cancelled or nobody waits for it any more."""
        if self._cancel.is_set() or not self.scheduler._wanted(self):
            self._cancel.set()
            raise Cancelled(f"long run {self.key!r} is not wanted any more")

    def report(self, event: Any) -> None:
        self.events.append(event)

    # -- from the waiting sessions
    def look(self, owner: str) -> int:
        """``owner`` still waits for this run. Returns how many runs are ahead of it (0 once it runs)."""
        return self.scheduler.look(self, owner)

    def cancel(self) -> None:
        self._cancel.set()
        self.scheduler._drop_if_queued(self)

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def __repr__(self) -> str:
        return f"Job({self.key!r}, {self.state})"


def drive(job: Job, steps: Iterable) -> list:
    """Iterate ``steps`` (a training's step groups) inside ``job``: check for cancellation before each step group and
    report each one. The iterator is closed however it ends (a generator runs its ``finally``). Returns the events."""
    it = iter(steps)
    try:
        while True:
            job.check()
            try:
                event = next(it)
            except StopIteration:
                return job.events
            job.report(event)
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            close()


class Scheduler:
    """At most ``cap`` long runs at once, the rest in a FIFO queue of at most ``max_waiting``. ``alive(session)``
    says whether a session still exists; ``clock`` is for tests."""

    def __init__(self, cap: int = DEFAULT_CAP, *, max_waiting: int = DEFAULT_QUEUE, heartbeat: float = HEARTBEAT,
                 alive: Callable[[str], bool] = lambda session: True, clock: Callable[[], float] = time.monotonic,
                 name: str = "long runs"):
        if cap < 1 or max_waiting < 0 or heartbeat <= 0:
            raise ValueError(f"{name}: cap >= 1, max_waiting >= 0 and heartbeat > 0, got {cap}, {max_waiting}, "
                             f"{heartbeat}")
        self.cap, self.max_waiting, self.heartbeat, self.name = cap, max_waiting, heartbeat, name
        self._alive, self._clock = alive, clock
        self._lock = threading.RLock()
        self._queue: deque[Job] = deque()
        self._running: list[Job] = []
        self._jobs: dict[Hashable, Job] = {}  # key -> its queued or running job
        self._of: dict[str, Job] = {}  # session -> the one long run it waits for

    # ------------------------------------------------------------------------------------------ requests
    def submit(self, owner: str, key: Hashable, work: Callable[[Job], Any], store: Optional[ByteLRU] = None) -> Job:
        """The run for ``key`` that ``owner`` waits for now: the one already queued or running for that key, or a new
        one. Whatever else ``owner`` waited for is left (and cancelled if nobody else waits for it). Raises
        ``QueueFull`` when a new run would make the queue longer than ``max_waiting``."""
        with self._lock:
            if store is not None:
                found, value = store.lookup(key)
                if found:  # finished meanwhile: nothing to run
                    job = Job(self, key, work, store)
                    job.result = value
                    self._end(job, "done")
                    return job
            previous = self._of.get(owner)
            if previous is not None and previous.key != key:
                self._leave(previous, owner)
            job = self._jobs.get(key)
            if job is None or job.cancelled:
                self._prune()
                if len(self._queue) >= self.max_waiting and len(self._running) >= self.cap:
                    raise QueueFull(len(self._queue))
                job = Job(self, key, work, store)
                self._jobs[key] = job
                self._queue.append(job)
            job._seen[owner] = self._clock()
            self._of[owner] = job
            self._dispatch()
            return job

    def look(self, job: Job, owner: str) -> int:
        with self._lock:
            if not job.done.is_set():
                job._seen[owner] = self._clock()
            self._prune()
            self._dispatch()
            if job.state != "queued":
                return 0
            queued = [j for j in self._queue if not j.cancelled]
            return len(self._running) + (queued.index(job) if job in queued else len(queued))

    def leave(self, job: Job, owner: str) -> bool:
        """``owner`` no longer waits for ``job``. True when that cancelled it (nobody else waits)."""
        with self._lock:
            return self._leave(job, owner)

    def stop(self, job: Job, owner: str, timeout: float = 5.0) -> bool:
        """The Stop button: ``owner`` leaves ``job``; when nobody else waits for it, wait until its work has stopped
        (within a step group) so that what it did can be read. True when it stopped here (it had not finished)."""
        if not self.leave(job, owner):
            return False
        job.done.wait(timeout)
        return job.state == "cancelled"

    # --------------------------------------------------------------------------------------------- state
    def running(self) -> list[Job]:
        with self._lock:
            return list(self._running)

    def waiting(self) -> list[Job]:
        with self._lock:
            self._prune()
            return list(self._queue)

    def job_of(self, owner: str) -> Optional[Job]:
        with self._lock:
            job = self._of.get(owner)
            return job if job is not None and not job.done.is_set() else None

    # ----------------------------------------------------------------------------------------- internals
    def _wanted(self, job: Job) -> bool:
        """A session wants a run while it exists and a script of it waits for the run (however long that script
        takes to draw), or did within ``heartbeat`` seconds (the next run of its page may ask for it again)."""
        with self._lock:
            now = self._clock()
            for owner, seen in list(job._seen.items()):
                if not self._alive(owner) or (not job._waiting.get(owner) and now - seen > self.heartbeat):
                    del job._seen[owner]
                    job._waiting.pop(owner, None)
                    if self._of.get(owner) is job:
                        del self._of[owner]
            return bool(job._seen)

    def _enter(self, job: Job, owner: str) -> None:
        with self._lock:
            job._waiting[owner] = job._waiting.get(owner, 0) + 1
            job._seen[owner] = self._clock()

    def _exit(self, job: Job, owner: str) -> None:
        with self._lock:
            n = job._waiting.get(owner, 0) - 1
            if n > 0:
                job._waiting[owner] = n
            else:
                job._waiting.pop(owner, None)
            if owner in job._seen:  # from now on the heartbeat counts
                job._seen[owner] = self._clock()

    def _leave(self, job: Job, owner: str) -> bool:
        job._seen.pop(owner, None)
        job._waiting.pop(owner, None)
        if self._of.get(owner) is job:
            del self._of[owner]
        if job._seen or job.done.is_set():
            return False
        job._cancel.set()
        self._drop_if_queued(job)
        return True

    def _drop_if_queued(self, job: Job) -> None:
        with self._lock:
            if job.state == "queued" and job in self._queue:
                self._queue.remove(job)
                self._end(job, "cancelled")

    def _prune(self) -> None:
        """Drop the queued runs nobody waits for any more."""
        for job in list(self._queue):
            if job.cancelled or not self._wanted(job):
                job._cancel.set()
                self._queue.remove(job)
                self._end(job, "cancelled")

    def _dispatch(self) -> None:
        while len(self._running) < self.cap and self._queue:
            job = self._queue.popleft()
            if job.cancelled or not self._wanted(job):
                job._cancel.set()
                self._end(job, "cancelled")
                continue
            job.state = "running"
            self._running.append(job)
            threading.Thread(target=self._run, args=(job,), name=f"long run {job.key!r}"[:60], daemon=True).start()

    def _run(self, job: Job) -> None:
        state = "failed"
        try:
            result = freeze(job.work(job))
            if job.store is not None:
                job.store.put(job.key, result)  # cached for everyone (a value too large for the store is not kept)
            job.result, state = result, "done"
        except Cancelled:
            state = "cancelled"
        except BaseException as err:  # noqa: BLE001 handed to the waiting scripts, which raise it there
            job.error = err
        finally:
            with self._lock:
                if job in self._running:
                    self._running.remove(job)
                self._end(job, state)
                self._dispatch()

    def _end(self, job: Job, state: str) -> None:
        job.state = state
        if self._jobs.get(job.key) is job:
            del self._jobs[job.key]
        for owner in [o for o, j in self._of.items() if j is job]:
            del self._of[owner]
        job.done.set()


def _session_exists(session: str) -> bool:
    from mha.app import internals

    return internals.session_exists(session)


LONG_RUNS = Scheduler(alive=_session_exists)


# ------------------------------------------------------------------------------------------ the Streamlit side


class Superseded(Exception):
    """The run this script waited for was cancelled (Stop, or this session asked for another one)."""


def session() -> str:
    """This script run's session id ('' outside a script run: tests without a server)."""
    from mha.app import internals

    return internals.session_id() or "no-session"


def wait(job: Job, show: Callable[[int, Job], None], every: float = POLL) -> Any:
    """Wait for ``job`` in this script run; ``show(ahead, job)`` is called at least every ``every`` s (it must draw
    something: a script interrupted by its visitor is stopped by Streamlit at the next message). Returns the result;
    raises the run's error, or ``Superseded`` when it was cancelled. A script stopped or rerun while waiting does
    not leave the run at once: the next run of the page may ask for the same one (a new sentence while the
    ``trained`` source trains) and goes on waiting for it; one that asks for nothing stops looking, and the run
    ends after ``HEARTBEAT`` s; a session that is gone ends it at its next step group."""
    owner = session()
    job.scheduler._enter(job, owner)
    try:
        while not job.done.wait(every):
            show(job.look(owner), job)
    finally:
        job.scheduler._exit(job, owner)
    if job.state == "done":
        return job.result
    if job.state == "failed" and job.error is not None:
        raise job.error
    raise Superseded(f"long run {job.key!r} was cancelled")


def trained_for_view(spec) -> bool:
    """The ``trained`` weight source's module for ``spec``, trained as a long run in this session's place in the
    queue (a view of it is then light work under ``compute.HEAVY_WORK``). True once it is kept
    (``mha.weights.train.TRAINED``); False, with a message on the page, when the queue is full."""
    import streamlit as st

    from mha.app.widgets import t
    from mha.weights.train import TASKS, trained_key, trained_module, trained_ready
    from mha.weights.view import train_steps

    key = trained_key(spec.task, spec.d_model, spec.num_heads, train_steps(spec), spec.seed)
    if trained_ready(key):
        return True
    total = key[3]
    place = st.empty()

    def work(job: Job):
        return trained_module(*key, drive=lambda steps: drive(job, steps))

    def show(ahead: int, job: Job):
        if ahead:
            place.info(t("run_waiting", n=ahead), icon="⏳")
        else:
            step = job.events[-1].step if job.events else 0
            place.progress(min(1.0, step / max(total, 1)),
                           text=t("src_training", task=t(TASKS[spec.task].name_key), steps=total) + " · "
                           + t("run_progress", step=step, total=total))

    try:
        for _ in range(3):  # cancelled under it (this script was held up past HEARTBEAT): ask again
            try:
                job = LONG_RUNS.submit(session(), ("trained",) + key, work)
                show(job.look(session()), job)
                wait(job, show)
                return True
            except Superseded:
                continue
        return trained_ready(key)
    except QueueFull as full:
        st.warning(t("run_queue_full", n=full.waiting), icon="⏳")
        return False
    finally:
        place.empty()
