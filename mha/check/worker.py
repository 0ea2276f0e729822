"""Learner code never runs in the server's process: it runs here, in a pre-started worker, under OS limits.

``run_check(code, request, timeout=5.0, entry="mha.check.diagnose:diagnose") -> dict`` sends the code and the
request to a worker of ``POOL`` and returns what the entry returned (a JSON-able dict), or one of::

    {"status": "refused", "key", "line", "col", "fmt"}   # the sandbox refused the code (mha/check/sandbox.py)
    {"status": "limit", "key": "check_timeout" | "check_memory" | "check_worker_died" | "check_busy"
                               | "check_result_too_big", "fmt": {...}}
    {"status": "error", "key": "check_internal_error", "fmt": {"error": ...}}   # our entry failed
    {"status": "off", "key": "check_off"}                # MHA_CHECK=off: the feature is switched off

How (one worker, from the server's side to the learner's code):

- The **worker** is a separate Python (``python -m mha.check.worker``, started with ``subprocess`` in a clean
  environment, not forked from the server), niced (``MHA_CHECK_NICE``, default 10, its session's autogroup too),
  torch on one thread. It imports torch, the sandbox and the entry, runs the diagnosis once (so its lazy set-up is
  done before any fork), then waits. It never runs learner code itself: for each check it **forks a child** (a
  fresh copy of the warm process), so no state passes from one visitor's code to the next, and a child that loops,
  explodes or crashes leaves the warm worker intact.
- The **child** first lowers its limits — ``RLIMIT_CPU`` (the timeout, rounded up, + 1 s: a backstop),
  ``RLIMIT_AS`` (its size at the fork, ~0.6 GB, + ``MHA_CHECK_MEMORY_MB``, default 512; a check at 128 tokens x 16
  heads runs within 64), ``RLIMIT_FSIZE`` 0, ``RLIMIT_NPROC`` 0, ``RLIMIT_NOFILE`` 32, ``RLIMIT_CORE`` 0 — closes
  every file but its result pipe, becomes ``nobody`` if it was root, installs the seccomp filter
  (mha/check/seccomp.py: no sockets, processes, programs, file writes; skipped with a logged note where the
  platform has none), then runs ``compile_learner`` and the entry, and writes the result as one JSON frame.
- ``timeout`` is CPU seconds: the worker kills a child that used more (it reads the child's CPU time every 50 ms;
  learner code has nothing to wait on, so a loop shows there), or that took longer than ``wall_seconds(timeout)``
  (4 x timeout + 5 s, ``MHA_CHECK_WALL_FACTOR``): a niced check on a busy machine gets little CPU and must not be
  called a loop for it. The server waits for the worker that long + 10 s, then kills *that* (only its own process,
  by its handle) and starts a fresh one; so does a worker that died.
- Everything crossing a process boundary is JSON with a size cap, never pickle: a compromised child cannot make
  the worker or the server run anything.

``POOL`` holds at most ``MHA_CHECK_WORKERS`` workers (default 1) for the whole server; a check waits up to
``MHA_CHECK_QUEUE_S`` (default 10) seconds for a free one, then gets ``check_busy``. ``prestart()`` starts them when
a page opens; ``session_slot(session_id)`` lets a page allow one check at a time per session.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import logging
import math
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from mha.check.sandbox import MAX_CHARS, MAX_LINES

try:
    import resource  # imported here, not in the child: once it has dropped root it may not read the stdlib
except ImportError:  # not on Windows
    resource = None

log = logging.getLogger("mha.check")

DEFAULT_ENTRY = "mha.check.diagnose:diagnose"
ENTRY_PREFIX = "mha.check."
MAX_REQUEST_BYTES = 16 << 20  # x at 128 tokens x d_model 512 is ~1.3 MB of JSON
MAX_RESULT_BYTES = 64 << 20
START_TIMEOUT_S = 120.0  # importing torch on a busy machine
WORKER_MARGIN_S = 10.0
NICE = 10  # MHA_CHECK_NICE: 0..19
_HEADER = struct.Struct(">I")


def enabled() -> bool:
    """False when the host switched learner code off (``MHA_CHECK=off``, also ``0``, ``false``, ``no``)."""
    return os.environ.get("MHA_CHECK", "on").strip().lower() not in ("off", "0", "false", "no")


def _env_int(name: str, default: int, low: int, high: int) -> int:
    try:
        return min(high, max(low, int(os.environ.get(name, default))))
    except ValueError:
        return default


# ------------------------------------------------------------------------------------------------ framing
def _write_frame(fd: int, obj, max_bytes: int | None = None) -> None:
    # UTF-8, a lone surrogate (a learner's "\ud800") as "?": it would break the page's protobuf further on
    data = json.dumps(obj, ensure_ascii=False).encode("utf-8", "replace")
    if max_bytes is not None and len(data) > max_bytes:
        raise ValueError(f"a frame of {len(data)} bytes, more than {max_bytes}")
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class _FrameError(Exception):
    """The other side closed, took too long, or sent something that is not a frame."""

    def __init__(self, why: str):
        self.why = why
        super().__init__(why)


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise _FrameError("timeout")
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise _FrameError("closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int, deadline: float | None, max_bytes: int):
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    if size > max_bytes:
        raise _FrameError("too_big")
    try:
        return json.loads(_read_exact(fd, size, deadline))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise _FrameError("garbled") from None


def _limit(key: str, **fmt) -> dict:
    return {"status": "limit", "key": key, "fmt": fmt}


# ------------------------------------------------------------------------------------ the server's side
class Worker:
    """One worker process, owned by the server. Not thread-safe: the pool hands it to one check at a time."""

    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self.notes: list[str] = []
        self.ready = False
        self.last: dict = {}  # the last check's child: CPU seconds, wall seconds (for the bench)

    def start(self) -> None:
        root = str(Path(__file__).resolve().parents[2])
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": root, "LANG": "C.UTF-8",
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "MHA_CHECK_WORKER": "1"}
        for name in ("MHA_CHECK_MEMORY_MB", "MHA_CHECK_NICE", "MHA_CHECK_WALL_FACTOR", "HOME", "VIRTUAL_ENV"):
            if name in os.environ:
                env[name] = os.environ[name]
        debug = os.environ.get("MHA_CHECK_DEBUG") == "1"
        self.proc = subprocess.Popen([sys.executable, "-m", "mha.check.worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=None if debug else subprocess.DEVNULL,
                                     cwd=root, env=env, close_fds=True, start_new_session=True)
        self.ready = False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_ready(self, deadline: float) -> None:
        if self.ready:
            return
        hello = _read_frame(self.proc.stdout.fileno(), deadline, MAX_REQUEST_BYTES)
        if not isinstance(hello, dict) or not hello.get("ready"):
            raise _FrameError("garbled")
        self.notes = [str(n) for n in hello.get("notes", [])]
        for note in self.notes:
            log.warning("check worker %s: %s", self.proc.pid, note)
        self.ready = True

    def stop(self) -> None:
        """Kill this worker (only this process, by its handle) and reap it."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
            for f in (self.proc.stdin, self.proc.stdout):
                with contextlib.suppress(OSError):
                    f.close()
        self.proc, self.ready = None, False

    def _send(self, payload: dict) -> None:
        """Hand ``payload`` to a live, ready worker: one that was dead already (killed between checks) is
        replaced once, so the check still runs."""
        for attempt in (1, 2):
            try:
                if not self.alive():
                    self.stop()
                    self.start()
                self.wait_ready(time.monotonic() + START_TIMEOUT_S)
                _write_frame(self.proc.stdin.fileno(), payload, MAX_REQUEST_BYTES)
                ack = _read_frame(self.proc.stdout.fileno(), time.monotonic() + WORKER_MARGIN_S, 1024)
                if ack == {"started": True}:
                    return
                raise _FrameError("garbled")
            except (_FrameError, OSError) as err:
                if attempt == 2 or (isinstance(err, _FrameError) and err.why != "closed"):
                    raise
                self.stop()

    def check(self, payload: dict, timeout: float) -> dict:
        """One check on this worker; on a dead, hung or garbling worker, a fresh one replaces it."""
        try:
            try:
                self._send(payload)
            except ValueError:  # the server's own request is too large: our bug, not the learner's
                return {"status": "error", "key": "check_internal_error", "fmt": {"error": "request too large"}}
            result = _read_frame(self.proc.stdout.fileno(),
                                 time.monotonic() + wall_seconds(timeout) + WORKER_MARGIN_S, MAX_RESULT_BYTES)
        except (_FrameError, OSError) as err:
            why = err.why if isinstance(err, _FrameError) else "closed"
            log.warning("check worker replaced (%s)", why)
            self.stop()
            self.start()
            if why == "timeout":
                return _limit("check_timeout", seconds=_seconds(timeout))
            if why == "too_big":
                return _limit("check_result_too_big")
            return _limit("check_worker_died")
        if not (isinstance(result, dict) and isinstance(result.get("result"), dict)):
            self.stop()
            self.start()
            return _limit("check_worker_died")
        self.last = {k: result.get(k) for k in ("cpu_s", "wall_s")}
        return result["result"]


class WorkerPool:
    """At most ``size`` workers for the whole server, started on first use (or by ``start()``)."""

    def __init__(self, size: int | None = None):
        self.size = size if size is not None else _env_int("MHA_CHECK_WORKERS", 1, 1, 8)
        self._lock = threading.Lock()
        self._idle: list[Worker] = []
        self._slots = threading.Semaphore(self.size)
        self._started = False

    def start(self) -> None:
        """Start every worker now (they warm up in the background); a no-op once started."""
        with self._lock:
            if self._started:
                return
            self._started = True
            for _ in range(self.size):
                worker = Worker()
                worker.start()
                self._idle.append(worker)

    def run(self, payload: dict, timeout: float, queue_s: float | None = None) -> dict:
        self.start()
        wait = queue_s if queue_s is not None else float(os.environ.get("MHA_CHECK_QUEUE_S", 10))
        if not self._slots.acquire(timeout=max(0.0, wait)):
            return _limit("check_busy")
        try:
            with self._lock:
                worker = self._idle.pop()
            try:
                return worker.check(payload, timeout)
            finally:
                with self._lock:
                    self._idle.append(worker)
        finally:
            self._slots.release()

    def last_stats(self) -> list[dict]:
        """Each idle worker's last check: its child's CPU and wall seconds (for the bench)."""
        with self._lock:
            return [dict(w.last) for w in self._idle]

    def pids(self) -> list[int]:
        """The workers' process ids (for tests and the bench)."""
        with self._lock:
            return [w.proc.pid for w in self._idle if w.proc is not None]

    def shutdown(self) -> None:
        with self._lock:
            for worker in self._idle:
                worker.stop()
            self._started = False
            self._idle = []


POOL = WorkerPool()


def prestart() -> None:
    """Start the server's workers now, in the background, so the first check is warm (a page calls this when it
    opens; a no-op when the feature is off or the workers run already)."""
    if enabled():
        POOL.start()


def _seconds(timeout: float) -> int | float:
    return int(timeout) if float(timeout).is_integer() else round(timeout, 1)


def run_check(code: str, request: dict, timeout: float = 5.0, entry: str = DEFAULT_ENTRY,
              pool: WorkerPool | None = None) -> dict:
    """The learner's ``code`` compiled in the sandbox and handed with ``request`` to ``entry`` (a trusted
    ``module:function`` under ``mha.check.``), in a worker process. See the module docstring for the result."""
    if not enabled():
        return {"status": "off", "key": "check_off", "fmt": {}}
    if not entry.startswith(ENTRY_PREFIX) or ":" not in entry:
        raise ValueError(f"entry {entry!r} must be 'mha.check.<module>:<function>'")
    timeout = min(max(float(timeout), 0.1), 120.0)
    if not isinstance(code, str) or len(code) > MAX_CHARS:  # the sandbox would refuse it too: no trip for it
        return {"status": "refused", "key": "check_too_long", "line": None, "col": None,
                "fmt": {"max_chars": MAX_CHARS, "max_lines": MAX_LINES}}
    payload = {"code": code, "request": request, "entry": entry, "timeout": timeout}
    return (pool or POOL).run(payload, timeout)


_running: set = set()
_running_lock = threading.Lock()


@contextlib.contextmanager
def session_slot(session_id):
    """``with session_slot(id) as free:`` — ``free`` is False while another check of the same session runs."""
    with _running_lock:
        free = session_id not in _running
        if free:
            _running.add(session_id)
    try:
        yield free
    finally:
        if free:
            with _running_lock:
                _running.discard(session_id)


# ------------------------------------------------------------------------------------ the worker's side
WARM_CODE = '''
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, d_model // num_heads
        self.query_linear = nn.Linear(d_model, d_model, bias=False)
        self.output_linear = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        B, T, D = query.shape
        q = self.query_linear(query).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
        scores = torch.matmul(q, q.transpose(-2, -1)) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        z = F.softmax(scores, dim=-1) @ q
        return self.output_linear(z.transpose(1, 2).contiguous().view(B, T, D))
'''


def _entry(name: str):
    module, _, function = name.partition(":")
    if not module.startswith(ENTRY_PREFIX):
        raise ValueError(f"entry {name!r} is not under {ENTRY_PREFIX}")
    return getattr(importlib.import_module(module), function)


def _vm_bytes() -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _warm_up(notes: list[str]) -> None:
    import torch

    from mha.check import sandbox

    namespace = sandbox.compile_learner(WARM_CODE)
    module = namespace["MultiHeadAttention"](16, 4)
    x = torch.randn(1, 5, 16)
    module(x, x, x, torch.tril(torch.ones(5, 5)))
    try:
        entry = importlib.import_module(DEFAULT_ENTRY.partition(":")[0])
    except ImportError as err:
        notes.append(f"default entry not importable yet: {err}")
        return
    warm = getattr(entry, "warm_up", None)
    try:
        if callable(warm):
            warm()
        else:  # the diagnosis once at the default size: its first call pays for torch's lazy set-up
            x = torch.randn(1, 5, 16).tolist()
            entry.diagnose(namespace, {"x": x, "d_model": 16, "num_heads": 4, "mask": None, "seed": 0})
    except Exception as err:  # noqa: BLE001 - a warm-up that fails is a note: the checks still run
        notes.append(f"warm-up of the diagnosis failed: {type(err).__name__}: {err}"[:300])


def _limits(timeout: float, memory_mb: int, notes: list[str]) -> None:
    """In the child, before any learner code: the resource limits. Failures are notes, not fatal."""
    if resource is None:
        notes.append("resource: not available, no CPU/memory limits in the child")
        return
    cpu = int(math.ceil(timeout)) + 1  # a backstop: the worker watches the child's CPU time more finely
    wanted = [("RLIMIT_CPU", cpu, cpu + 1), ("RLIMIT_FSIZE", 0, 0), ("RLIMIT_CORE", 0, 0),
              ("RLIMIT_NPROC", 0, 0), ("RLIMIT_NOFILE", 32, 32)]
    size = _vm_bytes()
    if size is not None:
        wanted.append(("RLIMIT_AS", size + (memory_mb << 20), size + (memory_mb << 20)))
    else:
        notes.append("RLIMIT_AS: the process size is unknown here, no memory limit")
    for name, soft, hard in wanted:
        try:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        except (AttributeError, ValueError, OSError) as err:
            notes.append(f"{name}: {err}")


NOBODY = 65534


def _drop_root(notes: list[str]) -> None:
    """Run as root (a container's default)? The child becomes nobody: it can then read no other process's
    /proc/<pid>/environ or memory and write none of the app's files, whatever the seccomp filter lets through."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    try:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    except OSError as err:
        notes.append(f"could not drop root: {err}")


def _close_other_fds(keep: int) -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 16)


def _child(result_fd: int, payload: dict, memory_mb: int) -> None:
    """Runs in the forked child: limits, filter, the learner's code, one result frame. Never returns."""
    status = 0
    try:
        notes: list[str] = []
        _close_other_fds(result_fd)
        # What the child imports, imported while it can still read the files: as nobody it may not (a Python
        # under /root, a root-only home), and a limit, the filter or the entry must not fail for want of a module.
        # (resource and the sandbox came with this module.)
        from mha.check import seccomp

        entry = _entry(payload["entry"])
        _drop_root(notes)
        _limits(float(payload["timeout"]), memory_mb, notes)
        if seccomp.available() is None:
            seccomp.install()
        result = _run(payload, entry)
        try:
            _write_frame(result_fd, result)
        except (TypeError, ValueError) as err:  # not JSON-able: our entry's bug
            _write_frame(result_fd, {"status": "error", "key": "check_internal_error",
                                     "fmt": {"error": f"result is not JSON: {err}"[:200]}})
    except MemoryError:
        with contextlib.suppress(BaseException):
            _write_frame(result_fd, _limit("check_memory"))
        status = 3
    except BaseException:  # noqa: BLE001 - nothing may escape the child but its exit status
        status = 4
    os._exit(status)


def _run(payload: dict, entry) -> dict:
    """The learner's code compiled by the sandbox, then ``entry(namespace, request)`` (imported before the drop)."""
    from mha.check import sandbox

    try:
        namespace = sandbox.compile_learner(payload["code"])
        result = entry(namespace, payload["request"])
    except sandbox.Refused as refused:
        return _limit("check_memory") if refused.key == "check_memory" else refused.as_dict()
    except BaseException as err:  # noqa: BLE001 - learner code's exceptions are data; ours are an error
        if sandbox.traceback_line(err) is not None or isinstance(err, (MemoryError, RecursionError)):
            refused = sandbox.learner_error(err)
            if refused.key == "check_memory":
                return _limit("check_memory")
            return refused.as_dict()
        return {"status": "error", "key": "check_internal_error",
                "fmt": {"error": f"{type(err).__name__}: {err}"[:300]}}
    return result if isinstance(result, dict) else {
        "status": "error", "key": "check_internal_error", "fmt": {"error": "the entry returned no dict"}}


def _one_check(payload: dict, memory_mb: int) -> dict:
    """In the worker: fork a child for ``payload``, wait for its frame (at most the timeout), reap it. Returns
    ``{"result": ..., "cpu_s": the child's CPU seconds, "wall_s": fork to reaped}``."""
    started = time.monotonic()
    result, cpu = _fork_check(payload, memory_mb)
    return {"result": result, "cpu_s": round(cpu, 4), "wall_s": round(time.monotonic() - started, 4)}


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """A child's CPU seconds so far, from /proc (None where there is none: RLIMIT_CPU is then the limit)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime (fields 14, 15 of stat)
    except (OSError, IndexError, ValueError):
        return None


def _await_frame(fd: int, pid: int, cpu_budget: float, wall_deadline: float) -> None:
    """Until the child starts answering: it may use ``cpu_budget`` CPU seconds, and the wall clock up to
    ``wall_deadline`` (a niced check on a busy machine gets little CPU, so it gets more wall time; learner code has
    nothing to wait on, so its CPU time is what a loop uses up). Raises _FrameError("timeout")."""
    while True:
        left = wall_deadline - time.monotonic()
        if left <= 0:
            raise _FrameError("timeout")
        if select.select([fd], [], [], min(left, 0.05))[0]:
            return
        used = _cpu_seconds(pid)
        if used is not None and used > cpu_budget:
            raise _FrameError("timeout")


def wall_seconds(timeout: float) -> float:
    """The wall-clock time a check of ``timeout`` CPU seconds may take (MHA_CHECK_WALL_FACTOR, default 4, + 5 s)."""
    return timeout * _env_int("MHA_CHECK_WALL_FACTOR", 4, 1, 100) + 5.0


def _fork_check(payload: dict, memory_mb: int) -> tuple[dict, float]:
    timeout = float(payload.get("timeout", 5.0))
    wall_deadline = time.monotonic() + wall_seconds(timeout)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_fd)
        _child(write_fd, payload, memory_mb)
    os.close(write_fd)
    killed = False
    try:
        _await_frame(read_fd, pid, timeout, wall_deadline)
        result = _read_frame(read_fd, wall_deadline, MAX_RESULT_BYTES)
    except _FrameError as err:
        result = None
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # our own child, by its id; a garbled or oversized frame ends it too
        killed = err.why == "timeout"
        if err.why == "too_big":
            result = _limit("check_result_too_big")
    finally:
        os.close(read_fd)
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    if result is not None:
        return result, cpu
    if killed or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU):
        return _limit("check_timeout", seconds=_seconds(timeout)), cpu
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return _limit("check_memory"), cpu  # not killed by us: the kernel's OOM killer
    return _limit("check_worker_died"), cpu


def serve() -> None:
    """The worker's main loop: requests on stdin, results on stdout, one JSON frame each."""
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # nothing printed by a library can garble the protocol
    notes: list[str] = []  # no PR_SET_PDEATHSIG: it fires when the *thread* that started us ends (Streamlit's
    # script threads come and go); the worker ends when the server closes its pipe instead
    _yield_cpu(notes)
    import torch

    torch.set_num_threads(1)
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)
    from mha.check import seccomp

    why = seccomp.available()
    if why:
        notes.append(why)
    if not hasattr(os, "fork"):
        raise SystemExit("the check worker needs os.fork")
    _warm_up(notes)
    if _threads() > 1:
        notes.append(f"{_threads()} threads before forking: a forked child keeps only one")
    memory_mb = _env_int("MHA_CHECK_MEMORY_MB", 512, 64, 16384)
    _write_frame(proto_out, {"ready": True, "pid": os.getpid(), "notes": notes})
    while True:
        try:
            payload = _read_frame(proto_in, None, MAX_REQUEST_BYTES)
        except _FrameError:
            return  # the server went away
        _write_frame(proto_out, {"started": True})
        _write_frame(proto_out, _one_check(payload, memory_mb))


def _yield_cpu(notes: list[str]) -> None:
    """Nice the worker (its children inherit it). Linux with autogroups (``sched_autogroup_enabled``) shares the CPU
    between sessions first and only then by nice value inside each: the worker is started in a session of its own
    (``start_new_session``), so that session's autogroup is niced too, else nice 10 would change nothing against the
    server (measured: a bystander's rerun 2.1x slower while checks ran, with only the process niced)."""
    nice = _env_int("MHA_CHECK_NICE", NICE, 0, 19)
    try:
        os.nice(nice)
    except OSError as err:
        notes.append(f"nice: {err}")
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(nice))
    except OSError:
        pass  # no autogroups here: the process's nice value is what counts


if __name__ == "__main__":
    serve()
