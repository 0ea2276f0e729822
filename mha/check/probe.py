"""Trusted entry points for the worker's tests and bench (``run_check(..., entry="mha.check.probe:forward")``):
small stand-ins for the diagnosis, and a probe of the OS limits from inside the child.

Not learner code: these run unrestricted in the worker's child, after ``compile_learner``, like the diagnosis does.
"""
from __future__ import annotations

import errno
import os
import resource  # at import: the child imports its entry before it drops root, and cannot read the stdlib after
import socket
import subprocess

import torch


def _module_class(namespace: dict):
    classes = [v for v in namespace.values() if isinstance(v, type) and issubclass(v, torch.nn.Module)]
    return classes[-1] if classes else None


def forward(namespace: dict, request: dict) -> dict:
    """The learner's last nn.Module class built with ``(d_model, num_heads)`` and run on random tokens; its output's
    shape (``status`` "ok"), or ``check_output_not_tensor``."""
    cls = _module_class(namespace)
    if cls is None:
        return {"status": "refused", "key": "check_no_class", "line": None, "col": None, "fmt": {}}
    d_model, num_heads, tokens = request.get("d_model", 16), request.get("num_heads", 4), request.get("tokens", 5)
    torch.manual_seed(request.get("seed", 0))
    module = cls(d_model, num_heads)
    x = torch.randn(1, tokens, d_model)
    with torch.no_grad():
        out = module(x, x, x)
    if not isinstance(out, torch.Tensor):
        return {"status": "refused", "key": "check_output_not_tensor", "line": None, "col": None,
                "fmt": {"type": type(out).__name__}}
    return {"status": "ok", "shape": list(out.shape), "sum": float(out.double().sum())}


def names(namespace: dict, request: dict) -> dict:
    """The names the learner's code defined (the sandbox's answer, for tests)."""
    return {"status": "ok", "names": sorted(namespace)}


def os_escape(namespace: dict, request: dict) -> dict:
    """What the OS lets this child do, tried by trusted code (as learner code would, had it escaped the language):
    each attempt's errno (or "ok"). The seccomp filter and the limits should refuse all of them."""
    out: dict[str, object] = {}

    def attempt(name, fn):
        try:
            fn()
            out[name] = "ok"
        except OSError as err:
            out[name] = errno.errorcode.get(err.errno, str(err.errno))
        except (ValueError, subprocess.SubprocessError) as err:
            out[name] = type(err).__name__

    attempt("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    attempt("socket_unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
    attempt("fork", os.fork)
    attempt("subprocess", lambda: subprocess.run(["/bin/true"], check=True))
    out["os_system"] = os.system("/bin/true")
    attempt("open_write", lambda: open(request.get("path", "/tmp/mha_check_probe"), "w"))
    attempt("unlink", lambda: os.unlink(request.get("unlink", "/tmp/mha_check_probe_unlink")))
    attempt("kill_parent", lambda: os.kill(os.getppid(), 0))
    attempt("raise_cpu_limit", lambda: resource.setrlimit(resource.RLIMIT_CPU, (10_000, 10_000)))
    out["read_ok"] = bool(open("/proc/self/status").read())
    attempt("read_parent_environ", lambda: open(f"/proc/{os.getppid()}/environ").read())
    out["torch_ok"] = float(torch.softmax(torch.ones(3), 0).sum())
    try:
        autogroup = open("/proc/self/autogroup").read().split()  # "/autogroup-123 nice 10"
    except OSError:
        autogroup = []
    return {"status": "ok", "attempts": out, "limits": {
        "cpu": resource.getrlimit(resource.RLIMIT_CPU)[0], "fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
        "as": resource.getrlimit(resource.RLIMIT_AS)[0]}, "nice": os.nice(0), "threads": torch.get_num_threads(),
        "autogroup_nice": int(autogroup[-1]) if autogroup else None, "uid": os.getuid()}


def abort(namespace: dict, request: dict) -> dict:
    """The child dies hard (a crash in C code, say)."""
    os.abort()


def sleep(namespace: dict, request: dict) -> dict:
    """Waits without using the CPU (as a niced check starved by a busy machine does)."""
    import time

    time.sleep(float(request.get("seconds", 1.0)))
    return {"status": "ok"}


def huge(namespace: dict, request: dict) -> dict:
    """A result larger than the worker takes back (MAX_RESULT_BYTES)."""
    from mha.check.worker import MAX_RESULT_BYTES

    return {"status": "ok", "blob": "x" * (MAX_RESULT_BYTES + 1)}
