"""Many learners at once: N concurrent sessions against a Streamlit server on loopback, over Streamlit's own protocol.

    python bench/load.py                          # start a server, 2 waves of 25 sessions, report, stop it
    python bench/load.py --sessions 25 --waves 2 --page playground --think 0.5 2
    python bench/load.py --url http://127.0.0.1:8501 --pid 12345   # a server already running (loopback only)
    python bench/load.py --json /tmp/load.json    # the figures as JSON too (bench/report.py reads them)

Each session does what the browser does (read from Streamlit's frontend and its server, pinned streamlit==1.67.0):
opens a websocket at ``/_stcore/stream`` (subprotocol ``streamlit``, same Origin), sends a ``BackMsg`` with
``rerun_script`` (a ``ClientState``: query string, page name from the URL path, empty page hash on the first run,
then the hash the server sent; browser context: locale, timezone, URL) and reads ``ForwardMsg``s until
``script_finished``. The widget ids come from the elements the server sent (a keyed widget's id ends in
``-<key>``); a change is a new ``rerun_script`` carrying the changed ``WidgetState``s (and every earlier one, as
the browser does), with the query string the server last set (``page_info_changed``).

Per session: open the page at the default view, then the changes (by default a sentence of its own — every
session's numbers are new, no cache hit —, num_heads=2, causal on, d_model=32), each after a think time drawn from
``--think`` (seeded). Rerun time = send -> ``script_finished`` on the client. A rerun succeeds when the script
finished without an exception element or error message within ``--rerun-timeout`` seconds; a session succeeds when
all of its reruns do. Server memory: RSS (psutil when installed, else /proc/<pid>/status) after a warm-up session
(torch imported, caches filled), at the end of each wave while its sessions are still connected, and after they
closed; growth is reported per 50 sessions. The whole run stops by itself after ``--timeout`` seconds.
Targets (issue 8), at the default view on a 2-core machine: 25 sessions, 100% success, p95 <= 2 s, memory growth
< 100 MB per 50 sessions.
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import hashlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from harness.server import start_server  # noqa: E402  tests/harness: the one server starter of tests and bench/

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
WIDGET_FIELDS = ("text_area", "text_input", "selectbox", "checkbox", "button_group", "number_input", "slider",
                 "radio", "multiselect")
TARGETS = {"sessions": 25, "success": 1.0, "p95_s": 2.0, "mb_per_50": 100.0}

# The changes each session makes, in order: (widget key, WidgetState field, value). "{n}" = the session's number.
CHANGES = [
    ("text", "string_value", "student {n} reads the cat sat on the warm mat"),
    ("num_heads", "string_value", "2"),
    ("causal", "bool_value", True),
    ("d_model", "string_value", "32"),
]


# ------------------------------------------------------------------------------------------------------ server
def run_async(coro):
    """``asyncio.run(coro)``, also where this thread already runs an event loop: in one pytest process with the
    browser tests, Playwright's sync API keeps its loop running in the main thread, and ``asyncio.run`` refuses
    ("cannot be called from a running event loop"). Then the coroutine runs in a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def rss_mb(pid: int | None) -> float | None:
    """Resident memory of a process in MB: psutil when installed, else /proc/<pid>/status; None if unknown."""
    if pid is None:
        return None
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss / 2 ** 20
    except ImportError:
        pass
    except Exception:  # noqa: BLE001 the process is gone
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds a process has used so far (psutil, else /proc/<pid>/stat); None if unknown."""
    if pid is None:
        return None
    try:
        import psutil

        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    except ImportError:
        pass
    except Exception:  # noqa: BLE001 the process is gone
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    except (OSError, IndexError, ValueError):
        return None


# ----------------------------------------------------------------------------------------------------- session
@dataclass
class Run:
    seconds: float
    ok: bool
    problem: str = ""
    payload: int = 0  # bytes of ForwardMsgs received for this run


@dataclass
class Session:
    """One browser tab, spoken for over the websocket."""

    base: str  # http://127.0.0.1:PORT
    page: str  # URL path of the page, "" for home
    query: dict = field(default_factory=dict)
    locale: str = "en-US"
    ws: object = None
    page_hash: str = ""
    query_string: str = ""
    widget_ids: dict = field(default_factory=dict)  # key -> id, from the elements of the last run
    sent: dict = field(default_factory=dict)  # id -> WidgetState: every change so far, sent again on each rerun
    runs: list = field(default_factory=list)
    content: str = ""  # digest of the text and charts the last run drew
    session_id: str = ""  # the server's id of this session (uploads are addressed to it)
    sent_bytes: int = 0  # the largest BackMsg this session sent (server.maxWidgetStateSize must let it through)
    texts: list = field(default_factory=list)  # alert bodies and progress texts of the last run, in order

    async def open(self, timeout: float) -> Run:
        host = urlsplit(self.base)
        self.ws = await asyncio.wait_for(websockets.connect(
            f"ws://{host.netloc}/_stcore/stream", subprotocols=["streamlit"], origin=self.base,
            max_size=None, ping_interval=None, open_timeout=timeout), timeout)
        self.query_string = urlencode(self.query, doseq=True)
        return await self.rerun(timeout)

    async def change(self, key: str, kind: str, value, timeout: float) -> Run:
        wid = self.widget_ids.get(key)
        if wid is None:
            run = Run(0.0, False, f"no widget with key {key!r} on the page")
            self.runs.append(run)
            return run
        state = WidgetState(id=wid)
        setattr(state, kind, value)
        self.sent[wid] = state
        # The browser writes a bound control's new value into its address bar itself and sends that query string.
        self.query[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        self.query_string = urlencode(self.query, doseq=True)
        before = self.content
        run = await self.rerun(timeout)
        if run.ok and self.content == before:  # every change here alters what the page shows
            run.ok, run.problem = False, f"change of {key} not applied (the page looks the same)"
        return run

    async def rerun(self, timeout: float) -> Run:
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query_string
        cs.page_script_hash = self.page_hash
        if not self.page_hash:
            cs.page_name = self.page  # first run: the server finds the page by its URL path, as for a direct link
        cs.widget_states.widgets.extend(self.sent.values())
        ctx = cs.context_info
        ctx.timezone, ctx.timezone_offset, ctx.locale = "UTC", 0, self.locale
        ctx.url = f"{self.base}/{self.page}" + (f"?{self.query_string}" if self.query_string else "")
        ctx.is_embedded, ctx.color_scheme = False, "light"
        t0 = time.perf_counter()
        data = msg.SerializeToString()
        self.sent_bytes = max(self.sent_bytes, len(data))
        await self.ws.send(data)
        problem, payload, ids, digest, texts = "", 0, {}, hashlib.sha256(), []
        try:
            async with asyncio.timeout(timeout):
                while True:
                    raw = await self.ws.recv()
                    payload += len(raw)
                    fm = ForwardMsg()
                    fm.ParseFromString(raw)
                    kind = fm.WhichOneof("type")
                    if kind == "new_session":
                        self.page_hash = fm.new_session.page_script_hash or self.page_hash
                        self.session_id = fm.new_session.initialize.session_id or self.session_id
                    elif kind == "navigation":
                        self.page_hash = fm.navigation.page_script_hash or self.page_hash
                    elif kind == "page_info_changed":  # the app changed the URL (cleaned it, corrected a value)
                        self.query_string = fm.page_info_changed.query_string
                        self.query = {k: v[0] if len(v) == 1 else v for k, v in
                                      parse_qs(self.query_string, keep_blank_values=True).items()}
                    elif kind == "page_not_found":
                        problem = problem or "page not found"
                    elif kind == "delta" and fm.delta.HasField("new_element"):
                        el = fm.delta.new_element
                        which = el.WhichOneof("type")
                        if which == "exception":
                            problem = problem or f"exception: {el.exception.type}: {el.exception.message[:200]}"
                        elif which == "alert" and el.alert.format == el.alert.ERROR:
                            problem = problem or f"error message: {el.alert.body[:200]}"
                        elif which in WIDGET_FIELDS:
                            wid = getattr(el, which).id
                            ids[wid.rsplit("-", 1)[-1]] = wid
                        elif which in ("markdown", "plotly_chart", "heading"):
                            digest.update(getattr(el, which).SerializeToString())
                        if which == "alert":
                            texts.append(el.alert.body)
                        elif which == "progress":
                            texts.append(el.progress.text)
                    elif kind == "script_finished":
                        if fm.script_finished in FINISHED:
                            break
                        if fm.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                            problem = problem or "compile error"
                            break
                        # FINISHED_EARLY_FOR_RERUN: the app asked for a rerun; the real end comes later
        except TimeoutError:
            problem = problem or f"no script_finished within {timeout:.0f} s"
        except websockets.ConnectionClosed as exc:
            problem = problem or f"connection closed: {exc}"
        run = Run(time.perf_counter() - t0, not problem, problem, payload)
        if ids:
            self.widget_ids = ids
        self.content = digest.hexdigest()
        self.texts = texts
        self.runs.append(run)
        return run

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


async def one_learner(n: int, args, rng: random.Random, start: asyncio.Event, done: asyncio.Event) -> Session:
    s = Session(args.base, args.page, dict(args.query))
    try:
        await asyncio.sleep(rng.uniform(0, args.ramp))  # learners arrive within the ramp
        first = await s.open(args.rerun_timeout)
        if first.ok:
            for key, kind, value in CHANGES[: args.changes]:
                await asyncio.sleep(rng.uniform(*args.think))
                run = await s.change(key, kind, value.format(n=n) if isinstance(value, str) else value,
                                     args.rerun_timeout)
                if not run.ok:
                    break
    except (OSError, TimeoutError, websockets.WebSocketException) as exc:
        s.runs.append(Run(0.0, False, f"connect: {type(exc).__name__}: {exc}"))
    start.set()
    await done.wait()  # stay connected until the wave's memory is read
    await s.close()
    return s


async def wave(args, first_n: int, seed: int) -> tuple[list[Session], float | None]:
    rng = random.Random(seed)
    finished = [asyncio.Event() for _ in range(args.sessions)]
    release = asyncio.Event()
    tasks = [asyncio.create_task(one_learner(first_n + i, args, random.Random(rng.random()), finished[i], release))
             for i in range(args.sessions)]
    await asyncio.gather(*(e.wait() for e in finished))
    rss_connected = rss_mb(args.pid)
    release.set()
    return list(await asyncio.gather(*tasks)), rss_connected


def percentile(xs: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    xs = sorted(xs)
    return xs[max(0, min(len(xs) - 1, int(round(q / 100 * len(xs) + 0.5)) - 1))]


async def main_async(args) -> dict:
    warm = Session(args.base, args.page, dict(args.query))
    first = await warm.open(args.rerun_timeout)  # imports torch, fills caches: not counted as growth
    for key, kind, value in CHANGES[: args.changes]:
        await warm.change(key, kind, value.format(n="warm-up") if isinstance(value, str) else value,
                          args.rerun_timeout)
    await warm.close()
    if not first.ok:
        raise RuntimeError(f"the warm-up session failed: {first.problem}")
    await asyncio.sleep(1)
    rss0 = rss_mb(args.pid)
    sessions, memory = [], [{"when": "after warm-up", "rss_mb": rss0}]
    cpu0, wall, load0 = cpu_seconds(args.pid), 0.0, os.getloadavg()[0]
    for w in range(args.waves):
        t0 = time.perf_counter()
        got, rss_connected = await wave(args, w * args.sessions, args.seed + w)
        wall += time.perf_counter() - t0
        sessions += got
        await asyncio.sleep(1)
        memory += [{"when": f"wave {w + 1}: {args.sessions} sessions connected", "rss_mb": rss_connected},
                   {"when": f"wave {w + 1}: closed", "rss_mb": rss_mb(args.pid)}]
        print(f"wave {w + 1}/{args.waves}: {args.sessions} sessions in {time.perf_counter() - t0:.1f} s",
              file=sys.stderr)
    cpu1 = cpu_seconds(args.pid)
    cpu = {"server_cpu_s": cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None, "wall_s": wall,
           "load_avg_1min_before": load0, "load_avg_1min": os.getloadavg()[0]}
    return summarize(args, sessions, memory, cpu)


def summarize(args, sessions: list[Session], memory: list[dict], cpu: dict | None = None) -> dict:
    runs = [r for s in sessions for r in s.runs]
    first = [s.runs[0].seconds for s in sessions if s.runs and s.runs[0].ok]
    changes = [r.seconds for s in sessions for r in s.runs[1:] if r.ok]
    ok_sessions = sum(1 for s in sessions if s.runs and all(r.ok for r in s.runs)
                      and len(s.runs) == 1 + args.changes)
    problems: dict[str, int] = {}
    for r in runs:
        if not r.ok:
            problems[r.problem] = problems.get(r.problem, 0) + 1
    rss = [m["rss_mb"] for m in memory]
    growth = (max(r for r in rss if r is not None) - rss[0]) if rss and rss[0] is not None else None
    total = len(sessions)
    out = {
        "sessions": args.sessions, "waves": args.waves, "total_sessions": total, "page": args.page or "(home)",
        "query": args.query, "changes": [c[0] for c in CHANGES[: args.changes]], "think_s": list(args.think),
        "ramp_s": args.ramp, "session_success": ok_sessions / total if total else 0.0,
        "reruns": len(runs), "rerun_success": sum(r.ok for r in runs) / len(runs) if runs else 0.0,
        "first_run_p50_s": statistics.median(first) if first else None,
        "first_run_p95_s": percentile(first, 95) if first else None,
        "change_p50_s": statistics.median(changes) if changes else None,
        "change_p95_s": percentile(changes, 95) if changes else None,
        "change_max_s": max(changes) if changes else None,
        "all_p95_s": percentile(first + changes, 95) if first + changes else None,
        "payload_first_run_kb": statistics.median(s.runs[0].payload for s in sessions if s.runs) / 1024
        if sessions else None,
        "memory": memory, "rss_growth_mb": growth,
        "rss_growth_mb_per_50": growth * 50 / total if growth is not None and total else None,
        "problems": problems,
        **(cpu or {}),
        "server_cpu_per_run_s": cpu["server_cpu_s"] / len(runs) if cpu and cpu["server_cpu_s"] and runs else None,
        "cores": os.cpu_count(),
    }
    return out


def describe(r: dict) -> str:
    """The scenario in one sentence, for a report."""
    return (f"{r['total_sessions']} sessions in {r['waves']} wave(s) of {r['sessions']} at once on /{r['page']} "
            f"(default view), arriving within {r['ramp_s']:g} s; each opens the page, then changes "
            f"{', '.join(r['changes'])} (a sentence of its own: no cache hits), waiting {r['think_s'][0]:g}-"
            f"{r['think_s'][1]:g} s before each change. Rerun time = send -> script_finished at the client.")


def report(r: dict) -> str:
    def f(v, unit="s", nd=2):
        return "n/a" if v is None else f"{v:.{nd}f} {unit}".strip()

    lines = [
        f"load: {r['total_sessions']} sessions ({r['waves']} wave(s) of {r['sessions']} concurrent) on /{r['page']}"
        f"{'?' + urlencode(r['query'], doseq=True) if r['query'] else ''}; each: open, then {', '.join(r['changes'])}"
        f"; think {r['think_s'][0]}-{r['think_s'][1]} s, arrivals within {r['ramp_s']} s",
        f"  sessions fully successful: {r['session_success']:.0%}   reruns ok: {r['rerun_success']:.1%} of "
        f"{r['reruns']}",
        f"  rerun after a change: p50 {f(r['change_p50_s'])}  p95 {f(r['change_p95_s'])}  max {f(r['change_max_s'])}",
        f"  first run (open the page): p50 {f(r['first_run_p50_s'])}  p95 {f(r['first_run_p95_s'])}   "
        f"all runs p95 {f(r['all_p95_s'])}",
        f"  first-run payload (median): {f(r['payload_first_run_kb'], 'KB', 0)}",
        "  server RSS: " + ", ".join(f"{m['when']} {f(m['rss_mb'], 'MB', 0)}" for m in r["memory"]),
        f"  RSS growth: {f(r['rss_growth_mb'], 'MB', 0)} = {f(r['rss_growth_mb_per_50'], 'MB', 0)} per 50 sessions",
        f"  server CPU: {f(r.get('server_cpu_s'), 's', 1)} over {f(r.get('wall_s'), 's', 1)} of waves = "
        f"{f(r.get('server_cpu_per_run_s'), 's', 3)} per run; machine load average (1 min) "
        f"{r.get('load_avg_1min_before', 0):.1f} before, {r.get('load_avg_1min', 0):.1f} after, on {r.get('cores')} "
        "cores",
    ]
    for problem, count in sorted(r["problems"].items(), key=lambda kv: -kv[1])[:10]:
        lines.append(f"  FAILED x{count}: {problem}")
    t = TARGETS
    verdict = [
        ("success 100%", r["session_success"] >= t["success"]),
        (f"p95 <= {t['p95_s']} s", r["change_p95_s"] is not None and r["change_p95_s"] <= t["p95_s"]),
        (f"growth < {t['mb_per_50']:.0f} MB/50", r["rss_growth_mb_per_50"] is not None
         and r["rss_growth_mb_per_50"] < t["mb_per_50"]),
    ]
    lines.append("  targets: " + ", ".join(f"{name}: {'ok' if ok else 'MISSED'}" for name, ok in verdict))
    return "\n".join(lines)


# ------------------------------------------------------------------------------- memory ceiling and fairness (#13)
HEAVY = {"d_model": "512", "num_heads": "16"}  # with 128 tokens: the heaviest view the app allows


def heavy_text(n: int) -> str:
    """128 tokens (the cap), different for every n: a view no cache holds yet."""
    return " ".join(f"w{n}x{i}" for i in range(128))


async def _open(base: str, page: str, query: dict, timeout: float) -> Session:
    s = Session(base, page, dict(query))
    await s.open(timeout)
    return s


def _sample_rss(pid, peak: list, stop: asyncio.Event):
    async def loop():
        while not stop.is_set():
            r = rss_mb(pid)
            if r is not None:
                peak[0] = max(peak[0], r)
            await asyncio.sleep(0.2)
    return asyncio.create_task(loop())


async def memory_async(args) -> dict:
    """``--views`` distinct heaviest views (128 tokens, d_model 512, 16 heads), ``--concurrency`` sessions at a
    time, each opening its own view and closing; server RSS after a warm-up (one heavy view), the peak, and after."""
    warm = await _open(args.base, args.page, {**HEAVY, "text": heavy_text(-1)}, args.rerun_timeout)
    await warm.close()
    await asyncio.sleep(1)
    rss0, peak, stop = rss_mb(args.pid), [0.0], asyncio.Event()
    sampler = _sample_rss(args.pid, peak, stop)
    times, failed, queue = [], 0, list(range(args.views))

    async def worker():
        nonlocal failed
        while queue:
            n = queue.pop(0)
            s = Session(args.base, args.page, {**HEAVY, "text": heavy_text(n)})
            try:
                run = await s.open(args.rerun_timeout)
                times.append(run.seconds)
                failed += not run.ok
            except (OSError, TimeoutError, websockets.WebSocketException):
                failed += 1
            finally:
                await s.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    wall = time.perf_counter() - t0
    await asyncio.sleep(2)
    rss1 = rss_mb(args.pid)
    stop.set()
    await sampler
    return {"scenario": "memory", "views": args.views, "concurrency": args.concurrency, "failed": failed,
            "rss_after_warmup_mb": rss0, "rss_peak_mb": peak[0], "rss_after_mb": rss1,
            "growth_mb": None if rss0 is None or rss1 is None else rss1 - rss0,
            "first_run_p50_s": statistics.median(times) if times else None, "wall_s": wall,
            "target_rss_after_mb": 800}


async def fairness_async(args) -> dict:
    """The first run of a visitor at the default (cached) view: alone, then while ``--heavy`` visitors load
    heaviest views of their own (no cache hits). ``--rounds`` of each; the ratio is against the idle time of the
    same run."""
    warm = await _open(args.base, args.page, {}, args.rerun_timeout)  # the default view is now cached
    await warm.close()
    idle, busy, heavy_times = [], [], []
    for r in range(args.rounds):
        s = await _open(args.base, args.page, {}, args.rerun_timeout)
        idle.append(s.runs[0].seconds)
        await s.close()
        await asyncio.sleep(0.5)

        async def heavy_one(n):
            text = heavy_text(-2) if args.same_heavy else heavy_text(10_000 * (r + 1) + n)
            h = Session(args.base, args.page, {**HEAVY, "text": text})
            try:
                run = await h.open(args.rerun_timeout)
                heavy_times.append(run.seconds)
            finally:
                await h.close()

        tasks = [asyncio.create_task(heavy_one(n)) for n in range(args.heavy)]
        await asyncio.sleep(args.delay)  # the heavy visitors' work is under way
        light = await _open(args.base, args.page, {}, args.rerun_timeout)
        busy.append(light.runs[0].seconds)
        await light.close()
        await asyncio.gather(*tasks)
        await asyncio.sleep(1)
    return {"scenario": "fairness", "heavy_visitors": args.heavy, "rounds": args.rounds, "delay_s": args.delay,
            "same_heavy_view": args.same_heavy,
            "idle_first_run_s": idle, "busy_first_run_s": busy,
            "busy_p50_s": statistics.median(busy), "busy_max_s": max(busy),
            "ratio_busy_to_idle": statistics.median(busy) / statistics.median(idle),
            "heavy_first_run_p50_s": statistics.median(heavy_times) if heavy_times else None,
            "target_busy_s": 1.5}


def report_extra(r: dict) -> str:
    def f(v, unit="s", nd=2):
        return "n/a" if v is None else f"{v:.{nd}f} {unit}".strip()

    if r["scenario"] == "memory":
        ok = r["rss_after_mb"] is not None and r["rss_after_mb"] <= r["target_rss_after_mb"]
        return (f"memory: {r['views']} distinct heaviest views (128 tokens, d_model 512, 16 heads), "
                f"{r['concurrency']} at a time, {r['failed']} failed\n"
                f"  server RSS: after warm-up {f(r['rss_after_warmup_mb'], 'MB', 0)}, peak "
                f"{f(r['rss_peak_mb'], 'MB', 0)}, "
                f"after {f(r['rss_after_mb'], 'MB', 0)} (target <= {r['target_rss_after_mb']} MB: "
                f"{'ok' if ok else 'MISSED'}); first run p50 {f(r['first_run_p50_s'])}, {f(r['wall_s'], 's', 0)} in "
                "all")
    ok = r["busy_p50_s"] <= r["target_busy_s"]
    return (f"fairness: first run at the default (cached) view while {r['heavy_visitors']} visitors load heaviest "
            f"views ({'one and the same' if r.get('same_heavy_view') else 'each its own'}), {r['rounds']} rounds, "
            f"arriving {r['delay_s']:g} s before it\n"
            f"  idle {', '.join(f(x) for x in r['idle_first_run_s'])}; busy "
            f"{', '.join(f(x) for x in r['busy_first_run_s'])}"
            f"\n  busy p50 {f(r['busy_p50_s'])} = {r['ratio_busy_to_idle']:.1f}x idle (target <= {r['target_busy_s']} "
            "s: "
            f"{'ok' if ok else 'MISSED'}); the heavy visitors' own first run p50 {f(r['heavy_first_run_p50_s'])}")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sessions", type=int, default=25, help="concurrent sessions per wave (default 25, max 200)")
    p.add_argument("--waves", type=int, default=2, help="waves of sessions, one after the other (default 2)")
    p.add_argument("--changes", type=int, default=len(CHANGES), help=f"changes per session (0..{len(CHANGES)})")
    p.add_argument("--page", default="playground", help="URL path of the page ('' = home; default playground)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="URL parameter of the link every session opens (repeatable; default: the default view)")
    p.add_argument("--think", type=float, nargs=2, default=(0.5, 2.0), metavar=("MIN", "MAX"),
                   help="seconds a learner waits before each change (uniform; default 0.5 2)")
    p.add_argument("--ramp", type=float, default=2.0, help="learners arrive within this many seconds (default 2)")
    p.add_argument("--rerun-timeout", type=float, default=60.0, help="a rerun slower than this fails (default 60)")
    p.add_argument("--timeout", type=float, default=600.0, help="hard limit for the whole run in s (default 600)")
    p.add_argument("--url", help="a running server (loopback only); default: start one")
    p.add_argument("--pid", type=int, help="with --url: the server's process id, for its memory")
    p.add_argument("--server-option", action="append", default=[], metavar="NAME=VALUE",
                   help="a Streamlit config option for the server this script starts, e.g. runner.postScriptGC=false")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scenario", choices=("learners", "memory", "fairness"), default="learners",
                   help="learners (default): waves of learners changing controls; memory: --views distinct heaviest "
                        "views and the server's RSS; fairness: a cached view's first run while --heavy visitors load "
                        "heaviest views")
    p.add_argument("--views", type=int, default=300, help="memory: distinct heaviest views (default 300, max 1000)")
    p.add_argument("--concurrency", type=int, default=4, help="memory: sessions at a time (default 4, max 20)")
    p.add_argument("--heavy", type=int, default=10, help="fairness: visitors loading heaviest views (default 10)")
    p.add_argument("--rounds", type=int, default=3, help="fairness: rounds (default 3)")
    p.add_argument("--delay", type=float, default=0.5,
                   help="fairness: seconds between the heavy visitors' arrival and the light one's (default 0.5)")
    p.add_argument("--same-heavy", action="store_true",
                   help="fairness: every heavy visitor opens the same heaviest view (default: one of its own)")
    p.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = p.parse_args(argv)
    if not 1 <= args.sessions <= 200 or not 1 <= args.waves <= 10 or not 0 <= args.changes <= len(CHANGES):
        p.error("sessions 1..200, waves 1..10, changes 0..4")
    if not 1 <= args.views <= 1000 or not 1 <= args.concurrency <= 20 or not 1 <= args.heavy <= 50 \
            or not 1 <= args.rounds <= 10:
        p.error("views 1..1000, concurrency 1..20, heavy 1..50, rounds 1..10")
    args.query = {}
    for kv in args.param:
        k, _, v = kv.partition("=")
        args.query.setdefault(k, []).append(v)
    args.query = {k: v[0] if len(v) == 1 else v for k, v in args.query.items()}
    args.page = args.page.strip("/")
    return args


def run(args) -> dict:
    """Start (or use) the server, run the load, stop what was started. Returns the figures."""
    server = None
    if args.url:
        host = urlsplit(args.url).hostname
        if host not in LOOPBACK:
            raise SystemExit(f"--url must be a loopback address ({', '.join(sorted(LOOPBACK))}), not {host}")
        args.base = args.url.rstrip("/")
    else:
        log = Path(tempfile.gettempdir()) / "mha-load-server.log"
        extra = [a for opt in args.server_option for a in ("--" + opt.partition("=")[0], opt.partition("=")[2])]
        server = start_server(log=log, extra=extra)
        args.base, args.pid = server.url, server.proc.pid
    body = {"learners": main_async, "memory": memory_async, "fairness": fairness_async}[args.scenario]
    try:
        return asyncio.run(asyncio.wait_for(body(args), args.timeout))
    finally:
        if server is not None:
            server.stop()


def main(argv=None) -> None:
    args = parse_args(argv)
    try:
        result = run(args)
    except TimeoutError:
        raise SystemExit(f"load: stopped after the hard timeout of {args.timeout:.0f} s") from None
    except RuntimeError as exc:  # the server did not start, or the warm-up session failed
        raise SystemExit(f"load: {exc}") from exc
    print(report(result) if args.scenario == "learners" else report_extra(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
