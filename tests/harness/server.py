"""A Streamlit server on loopback for tests and bench/: the one ``streamlit run`` command line.

    with start_server() as s:            # app.py; returns once /_stcore/health answers ok
        urlopen(s.url + "/playground")
    s = start_server("tests/browser/apps/head_view_app.py", log=path, env={"MHA_PUBLIC": "1"}); ...; s.stop()

Every call starts a server of its own (no browser has talked to it yet: what a fresh server shows); ``launch``
starts one without waiting, so several start side by side.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEALTHY_TIMEOUT_S = 90.0  # the server imports little before /health answers; a busy 2-core machine is slow


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command(script: str | Path, port: int, extra: list[str] | None = None, *, serve: bool = False,
            cpus: str | None = None) -> list[str]:
    """``streamlit run <script>`` on 127.0.0.1:``port``: headless, no usage stats, no file watcher. ``serve``: start
    the app as the hosted demo does, ``python -m mha.app.serve`` (on app.py); ``cpus``: pinned (``taskset -c 1``)."""
    start = ["-m", "mha.app.serve"] if serve else ["-m", "streamlit", "run", str(script)]
    cmd = [sys.executable, *start, "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none", *(extra or [])]
    return ["taskset", "-c", cpus, *cmd] if cpus is not None else cmd


@dataclass
class Server:
    """A started ``streamlit run``: ``url`` is http://127.0.0.1:PORT; ``log`` its output (None: discarded). A
    context manager that stops it on exit."""

    url: str
    proc: subprocess.Popen
    log: Path | None = None
    script: str = "app.py"

    def stop(self) -> None:
        """Terminate the server (kill it if it does not stop within 10 s) and reap it."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def healthy(self) -> bool:
        """Does /_stcore/health answer ok right now?"""
        try:
            with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                return r.read().strip() == b"ok"
        except OSError:
            return False

    def wait_healthy(self, timeout: float = HEALTHY_TIMEOUT_S) -> Server:
        """Wait until /_stcore/health answers ok; if the server exits or is not healthy in time, stop it and raise."""
        deadline = time.monotonic() + timeout
        where = f"; see {self.log}" if self.log else ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.script}: streamlit exited with code {self.proc.returncode}{where}")
            if self.healthy():
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.script}: streamlit was not healthy after {timeout:.0f} s{where}")

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def launch(script: str | Path = "app.py", *, log: Path | None = None, extra: list[str] | None = None,
           root: Path = ROOT, env: dict[str, str] | None = None, port: int | None = None, serve: bool = False,
           cpus: str | None = None) -> Server:
    """Start ``streamlit run <script>`` (a path from ``root``, the checkout to run) without waiting for it.
    ``log``: a file for its output (else discarded); ``extra``: more command-line options; ``env``: variables set
    over this process's environment; ``port``: a free one by default; ``serve``, ``cpus``: as ``command``."""
    port = port or free_port()
    if log:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
    out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115  the child writes to it; closed below
    try:
        proc = subprocess.Popen(command(script, port, extra, serve=serve, cpus=cpus), cwd=root, stdout=out,
                                stderr=subprocess.STDOUT,
                                env={**os.environ, **env} if env else None)
    finally:
        if log:
            out.close()  # the child holds its own copy of the descriptor
    return Server(url=f"http://127.0.0.1:{port}", proc=proc, log=Path(log) if log else None, script=str(script))


def start_server(script: str | Path = "app.py", *, timeout: float = HEALTHY_TIMEOUT_S, **options) -> Server:
    """``launch`` (same options), then wait until the server answers ok on /_stcore/health."""
    return launch(script, **options).wait_healthy(timeout)
