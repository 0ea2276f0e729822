"""How many learners one process on one core serves (issue #23.4): a measured figure, not one derived from CPU per
rerun.

    python bench/capacity.py                              # server on CPU 1, learners on CPU 0, 40, 60, 80, ... learners
    python bench/capacity.py --start 40 --step 20 --repeat 2 --json /tmp/capacity.json

The server is the hosted one (``python -m mha.app.serve``, tests/harness's starter) pinned with ``taskset -c`` to
``--server-cpu``; this process, the load generator, pins itself to ``--client-cpu``. One server for a repeat, warmed
up first (torch imported, the default view cached). Then classrooms of growing size, one after the other: each
learner is bench/replicas.py's browser tab (GET the page, then the websocket) and does what bench/replicas.py's
classroom does: arrives within ``--ramp`` s, opens /playground, then changes the sentence (its own, new in every
classroom: no cache hit), num_heads, causal and d_model, ``--think`` s apart (default 3-8 s: a classroom pace).
Rerun time = send -> ``script_finished`` at the client; a failed rerun counts as slower than any. A classroom passes
when p95 <= ``--target`` (1 s); the ramp stops at the first that does not, and the figure is the largest size that
passed. The load average and the load generator's own CPU are reported with every classroom (the machine is shared:
a busy client or a busy core shows there).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # noqa: E402  bench/load.py
import replicas  # noqa: E402  bench/replicas.py
from harness.server import start_server  # noqa: E402  tests/harness


async def _learner(n: int, base: str, args, rng: random.Random) -> list:
    await asyncio.sleep(rng.uniform(0, args.ramp))
    try:
        tab = await replicas.new_tab(base, "playground", {}, args.rerun_timeout)
        if tab.runs and tab.runs[0].ok:
            for key, kind, value in load.CHANGES:
                await asyncio.sleep(rng.uniform(*args.think))
                if not (await tab.change(key, kind, value.format(n=n) if isinstance(value, str) else value,
                                         args.rerun_timeout)).ok:
                    break
        await tab.close()
        return tab.runs
    except (OSError, TimeoutError) as exc:
        return [load.Run(0.0, False, f"connect: {type(exc).__name__}: {exc}")]
    except Exception as exc:  # noqa: BLE001 a websocket error: one failed learner, the classroom goes on
        return [load.Run(0.0, False, f"{type(exc).__name__}: {exc}")]


async def classroom(base: str, learners: int, first: int, args, seed: int) -> dict:
    rng = random.Random(seed)
    load_before, cpu0, t0 = os.getloadavg()[0], time.process_time(), time.perf_counter()
    runs = [r for rs in await asyncio.gather(*(_learner(first + i, base, args, random.Random(rng.random()))
                                               for i in range(learners))) for r in rs]
    wall = time.perf_counter() - t0
    times = sorted(r.seconds if r.ok else float("inf") for r in runs)
    p95 = load.percentile(times, 95) if times else float("inf")
    ok = [r.seconds for r in runs if r.ok]
    problems: dict[str, int] = {}
    for r in runs:
        if not r.ok:
            problems[r.problem[:120]] = problems.get(r.problem[:120], 0) + 1
    return {"learners": learners, "reruns": len(runs), "ok": len(ok) / len(runs) if runs else 0.0,
            "p50_s": load.percentile(ok, 50) if ok else None, "p95_s": p95 if p95 != float("inf") else None,
            "max_s": max(ok) if ok else None, "passed": p95 <= args.target, "wall_s": wall,
            "client_cpu_share": (time.process_time() - cpu0) / wall, "load_avg": [load_before, os.getloadavg()[0]],
            "problems": problems}


def run_queue_wait_s(pid: int) -> float | None:
    """Seconds the process's threads have spent runnable but waiting for a CPU (``/proc/<pid>/task/*/schedstat``,
    its second field): how much of the core other work took while the server had work to do."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[1])
            except (OSError, IndexError, ValueError):
                continue
    except OSError:
        return None
    return total / 1e9


def ramp(args, repeat: int) -> dict:
    log = Path(tempfile.gettempdir()) / f"mha-capacity-{repeat}.log"
    server = start_server(log=log, serve=True, cpus=str(args.server_cpu))
    proc, base = server.proc, server.url
    out = {"repeat": repeat, "classrooms": []}
    try:
        async def warm():
            tab = await replicas.new_tab(base, "playground", {}, args.rerun_timeout)
            await tab.close()
        asyncio.run(warm())
        first = 0
        n = args.start
        while n <= args.stop:
            cpu0, wait0 = load.cpu_seconds(proc.pid), run_queue_wait_s(proc.pid)
            room = asyncio.run(classroom(base, n, first, args, seed=1000 * repeat + n))
            cpu1, wait1 = load.cpu_seconds(proc.pid), run_queue_wait_s(proc.pid)
            room["server_cpu_share"] = (cpu1 - cpu0) / room["wall_s"] if None not in (cpu0, cpu1) else None
            room["server_wait_share"] = (wait1 - wait0) / room["wall_s"] if None not in (wait0, wait1) else None
            out["classrooms"].append(room)
            print(describe(room), flush=True)
            if not room["passed"]:
                break
            first += n  # the next classroom's sentences are new: no learner hits another's cache
            n += args.step
            time.sleep(args.pause)
    finally:
        server.stop()
    passed = [r["learners"] for r in out["classrooms"] if r["passed"]]
    out["largest_under_target"] = max(passed) if passed else None
    out["first_over_target"] = next((r["learners"] for r in out["classrooms"] if not r["passed"]), None)
    return out


def describe(r: dict) -> str:
    def f(v):
        return "n/a" if v is None else f"{v:.2f} s"

    wait = r.get("server_wait_share")
    return (f"  {r['learners']:4d} learners: reruns ok {r['ok']:.0%} of {r['reruns']}; p50 {f(r['p50_s'])}, "
            f"p95 {f(r['p95_s'])}, max {f(r['max_s'])}; server {r['server_cpu_share']:.0%} of its core"
            + (f" ({wait:.0%} runnable but waiting for it)" if wait is not None else "")
            + f", client {r['client_cpu_share']:.0%} of its core; load average {r['load_avg'][0]:.1f} -> "
            f"{r['load_avg'][1]:.1f} -> {'ok' if r['passed'] else 'OVER'}"
            + "".join(f"\n      FAILED x{c}: {p}" for p, c in sorted(r["problems"].items(), key=lambda kv: -kv[1])[:3]))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--start", type=int, default=40, help="learners in the first classroom (default 40)")
    p.add_argument("--step", type=int, default=20, help="learners added per classroom (default 20)")
    p.add_argument("--stop", type=int, default=400, help="the largest classroom tried (default 400)")
    p.add_argument("--repeat", type=int, default=2, help="whole ramps, each on a fresh server (default 2)")
    p.add_argument("--first-repeat", type=int, default=1, help="number of the first repeat (its seeds; default 1)")
    p.add_argument("--think", type=float, nargs=2, default=(3.0, 8.0), metavar=("MIN", "MAX"))
    p.add_argument("--ramp", type=float, default=10.0, help="learners arrive within this many seconds (default 10)")
    p.add_argument("--target", type=float, default=1.0, help="p95 a classroom must stay under (default 1 s)")
    p.add_argument("--rerun-timeout", type=float, default=60.0)
    p.add_argument("--pause", type=float, default=5.0, help="seconds between classrooms (sessions closing)")
    p.add_argument("--server-cpu", type=int, default=1)
    p.add_argument("--client-cpu", type=int, default=0)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    os.sched_setaffinity(0, {args.client_cpu})
    result = {"cpus": os.cpu_count(), "server_cpu": args.server_cpu, "client_cpu": args.client_cpu,
              "think_s": list(args.think), "ramp_s": args.ramp, "target_s": args.target, "repeats": []}
    print(f"server on CPU {args.server_cpu}, learners on CPU {args.client_cpu}; think {args.think[0]:g}-"
          f"{args.think[1]:g} s, arriving within {args.ramp:g} s; load average {os.getloadavg()}", flush=True)
    for k in range(args.first_repeat, args.first_repeat + args.repeat):
        print(f"repeat {k}:", flush=True)
        r = ramp(args, k)
        result["repeats"].append(r)
        print(f"  largest classroom with p95 <= {args.target:g} s: {r['largest_under_target']} "
              f"(first over: {r['first_over_target']})", flush=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
