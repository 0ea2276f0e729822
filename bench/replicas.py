"""More than one process: N replicas behind nginx (deploy/run_local.sh, deploy/nginx/mha.conf), against one process,
in the same run, with the learners of bench/load.py at a classroom pace.

    python bench/replicas.py                       # 40 learners, think 3-8 s: one process, then 2 replicas + nginx
    python bench/replicas.py --learners 40 --replicas 2 --think 3 8 --json /tmp/replicas.json

Each learner is a browser tab as bench/load.py speaks it (``load.Session``: Streamlit's websocket protocol), plus what
a browser does before it: GET the page, keep the cookies it is given (nginx's ``mha_replica`` decides the replica),
and send them with the websocket. Rerun time = send -> ``script_finished`` at the client, through the proxy or
straight to the one process. ``Replicas`` (start, kill -9 one, which replica served a request: nginx's access log)
is also the harness of tests/deploy/test_replicas.py.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # noqa: E402  (bench/load.py: the session protocol)
from harness.server import free_port, start_server  # noqa: E402  tests/harness (load.py puts tests/ on sys.path)

ROOT = load.ROOT
RUN_LOCAL = ROOT / "deploy" / "run_local.sh"


# ------------------------------------------------------------------------------------------------- the harness
def _free_ports(n: int) -> int:
    """A first port with ``n`` free consecutive ports after it (for the replicas), on 127.0.0.1."""
    import socket

    for _ in range(50):
        first = free_port()
        socks = []
        try:
            for i in range(n):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", first + i))
            return first
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError(f"no {n} free consecutive ports")


@dataclass
class Replicas:
    """``deploy/run_local.sh`` running: ``n`` replicas and nginx on loopback."""

    n: int
    run_dir: Path
    proc: subprocess.Popen
    url: str  # the proxy
    replica_ports: list[int]

    @classmethod
    def start(cls, n: int = 2, run_dir: Path | None = None, timeout: float = 180) -> "Replicas":
        if not (os.path.exists("/usr/sbin/nginx") or any(
                os.access(os.path.join(d, "nginx"), os.X_OK) for d in os.environ.get("PATH", "").split(":"))):
            raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
        run_dir = Path(run_dir or tempfile.mkdtemp(prefix="mha-replicas-"))
        first, proxy = _free_ports(n), free_port()
        env = {**os.environ, "MHA_RUN_DIR": str(run_dir), "MHA_REPLICA_PORT": str(first), "PYTHON": sys.executable}
        log = open(run_dir / "run_local.out", "w")
        proc = subprocess.Popen(["bash", str(RUN_LOCAL), str(n), str(proxy)], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        self = cls(n, run_dir, proc, f"http://127.0.0.1:{proxy}", [first + i for i in range(n)])
        deadline = time.monotonic() + timeout
        while not (run_dir / "ready").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"deploy/run_local.sh did not come up: {(run_dir / 'run_local.out').read_text()}")
            time.sleep(0.3)
        return self

    def pid(self, i: int) -> int:
        """The process id of replica ``i`` (0-based)."""
        return int((self.run_dir / f"replica-{i + 1}.pid").read_text())

    def replica_of(self, port: int) -> int:
        return self.replica_ports.index(port)

    def kill(self, i: int) -> None:
        """kill -9 replica ``i``: no goodbye to its sessions."""
        os.kill(self.pid(i), signal.SIGKILL)

    def served(self) -> list[tuple[int | None, str, str, str]]:
        """nginx's access log so far: (replica index or None, the sticky key (the mha_replica cookie, or the one drawn),
        method, path)."""
        out = []
        for line in (self.run_dir / "nginx-access.log").read_text().splitlines():
            addr, cookie, method, uri, _status = line.rsplit(" ", 4)
            port = addr.rsplit(",", 1)[-1].strip().rsplit(":", 1)[-1]  # retried: "a:1, b:2" (the last answered)
            out.append((self.replica_of(int(port)) if port.isdigit() else None, cookie, method, uri))
        return out

    def stop(self) -> None:
        """Stop the script (it stops its replicas and nginx), then anything of its process group still left."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the group this harness started (start_new_session)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(timeout=10)


def visit(base: str, path: str = "", cookies: dict | None = None) -> dict:
    """GET a page as the browser does first; returns the cookies it holds after (nginx's ``mha_replica``)."""
    cookies = dict(cookies or {})
    req = urllib.request.Request(f"{base}/{path}", headers={"Cookie": "; ".join(f"{k}={v}" for k, v in
                                                                               cookies.items())})
    with urllib.request.urlopen(req, timeout=30) as r:
        for header in r.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                cookies[name] = morsel.value
    return cookies


@dataclass
class Tab(load.Session):
    """A browser tab: ``load.Session`` that sends its cookies with the websocket, as a browser does."""

    cookies: dict = field(default_factory=dict)

    async def open(self, timeout: float) -> load.Run:
        host = urlsplit(self.base)
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        self.ws = await asyncio.wait_for(websockets.connect(
            f"ws://{host.netloc}/_stcore/stream", subprotocols=["streamlit"], origin=self.base,
            additional_headers={"Cookie": cookie} if cookie else None, max_size=None, ping_interval=None,
            open_timeout=timeout), timeout)
        self.query_string = urlencode(self.query, doseq=True)
        return await self.rerun(timeout)


async def new_tab(base: str, page: str = "playground", query: dict | None = None, timeout: float = 60) -> Tab:
    """Open ``base/page?query`` as a browser: the page first (cookies), then the websocket and the first run."""
    cookies = await asyncio.to_thread(visit, base, page)
    tab = Tab(base, page, dict(query or {}), cookies=cookies)
    await tab.open(timeout)
    return tab


# ------------------------------------------------------------------------------------------------- the scenario
async def learner(n: int, base: str, args, rng: random.Random) -> Tab | None:
    await asyncio.sleep(rng.uniform(0, args.ramp))
    try:
        tab = await new_tab(base, args.page, {}, args.rerun_timeout)
        if tab.runs and tab.runs[0].ok:
            for key, kind, value in load.CHANGES:
                await asyncio.sleep(rng.uniform(*args.think))
                run = await tab.change(key, kind, value.format(n=n) if isinstance(value, str) else value,
                                       args.rerun_timeout)
                if not run.ok:
                    break
        await tab.close()
        return tab
    except (OSError, TimeoutError, websockets.WebSocketException) as exc:
        tab = Tab(base, args.page)
        tab.runs.append(load.Run(0.0, False, f"connect: {type(exc).__name__}: {exc}"))
        return tab


async def classroom(base: str, args, seed: int, warm_up: list[str] | None = None) -> dict:
    """``args.learners`` learners at once against ``base``; the figures of their reruns. ``warm_up``: the servers
    to open the page on first (every replica: the first run of a process imports torch, seconds)."""
    for server in warm_up or [base]:
        warm = await new_tab(server, args.page, {}, args.rerun_timeout)
        await warm.close()
    rng = random.Random(seed)
    t0 = time.perf_counter()
    tabs = await asyncio.gather(*(learner(i, base, args, random.Random(rng.random())) for i in range(args.learners)))
    runs = [r for t in tabs for r in t.runs]
    ok = [r.seconds for r in runs if r.ok]
    changes = [r.seconds for t in tabs for r in t.runs[1:] if r.ok]
    problems: dict[str, int] = {}
    for r in runs:
        if not r.ok:
            problems[r.problem] = problems.get(r.problem, 0) + 1
    return {"learners": args.learners, "reruns": len(runs), "ok": len(ok) / len(runs) if runs else 0.0,
            "wall_s": time.perf_counter() - t0,
            "p50_s": statistics.median(ok) if ok else None, "p95_s": load.percentile(ok, 95) if ok else None,
            "change_p95_s": load.percentile(changes, 95) if changes else None,
            "max_s": max(ok) if ok else None, "problems": problems}


def compare(args) -> dict:
    """One process, then ``args.replicas`` replicas behind nginx, the same learners against each, one after the
    other in this run."""
    out = {"learners": args.learners, "think_s": list(args.think), "ramp_s": args.ramp, "replicas": args.replicas,
           "cores": os.cpu_count(), "load_avg_before": os.getloadavg()[0]}
    with start_server(log=Path(tempfile.gettempdir()) / "mha-replicas-single.log") as server:
        cpu0 = load.cpu_seconds(server.proc.pid)
        out["one_process"] = asyncio.run(classroom(server.url, args, args.seed))
        cpu1 = load.cpu_seconds(server.proc.pid)
        out["one_process"]["server_cpu_s"] = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    if args.one_process_only:
        out["load_avg_after"] = os.getloadavg()[0]
        return out
    group = Replicas.start(args.replicas)
    try:
        warm = [f"http://127.0.0.1:{port}" for port in group.replica_ports]
        out["proxy"] = asyncio.run(classroom(group.url, args, args.seed, warm))
        served = [r for r, _, _, uri in group.served() if uri == "/_stcore/stream"]  # the learners' only
        out["proxy"]["sessions_per_replica"] = [served.count(i) for i in range(args.replicas)]
    finally:
        group.stop()
    out["load_avg_after"] = os.getloadavg()[0]
    return out


def report(r: dict) -> str:
    def f(v):
        return "n/a" if v is None else f"{v:.2f} s"

    lines = [f"{r['learners']} learners at once (arriving within {r['ramp_s']:g} s), each: open /playground, then 4 "
             f"changes {r['think_s'][0]:g}-{r['think_s'][1]:g} s apart; {r['cores']} cores, load average "
             f"{r['load_avg_before']:.1f} before, {r['load_avg_after']:.1f} after"]
    for name, key in (("one process", "one_process"), (f"{r['replicas']} replicas + nginx", "proxy")):
        if key not in r:
            continue
        x = r[key]
        lines.append(f"  {name}: reruns ok {x['ok']:.0%} of {x['reruns']}; p50 {f(x['p50_s'])}, p95 {f(x['p95_s'])}"
                     f" (changes: p95 {f(x['change_p95_s'])}), max {f(x['max_s'])}"
                     + (f"; server CPU {x['server_cpu_s']:.1f} s over {x['wall_s']:.0f} s"
                        if x.get("server_cpu_s") is not None else "")
                     + (f"; websocket sessions per replica {x['sessions_per_replica']}"
                        if "sessions_per_replica" in x else ""))
        for problem, count in sorted(x["problems"].items(), key=lambda kv: -kv[1])[:5]:
            lines.append(f"    FAILED x{count}: {problem}")
    one, many = r["one_process"]["p95_s"], r.get("proxy", {}).get("p95_s")
    if one and many:
        lines.append(f"  p95 through the proxy / one process: {many / one:.2f}x (target: p95 <= 1 s through the "
                     f"proxy: {'met' if many <= 1.0 else 'MISSED'})")
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--learners", type=int, default=40)
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--think", type=float, nargs=2, default=(3.0, 8.0), metavar=("MIN", "MAX"),
                   help="seconds between a learner's changes (uniform; default 3 8: a classroom pace)")
    p.add_argument("--ramp", type=float, default=10.0, help="learners arrive within this many seconds (default 10)")
    p.add_argument("--page", default="playground")
    p.add_argument("--rerun-timeout", type=float, default=60.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--one-process-only", action="store_true", help="only the one process (its ceiling)")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if not 1 <= args.learners <= 200 or not 1 <= args.replicas <= 8:
        p.error("learners 1..200, replicas 1..8")
    result = compare(args)
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
