"""How long Check your code takes, and what it costs a bystander (issue #25.8).

    python bench/bench_check.py [repeats]    # default 7; about two minutes on 2 cores
    python bench/bench_check.py 3 --no-bystander

Three measurements, each a median over ``repeats``:

1. One check of the course's class, at the default view (5 tokens, d_model 16, 4 heads) and at 128 tokens x 16 heads
   (d_model 256), three ways:
   - *in process*: ``compile_learner`` + ``diagnose`` called here, no worker: the diagnosis's own cost, the baseline;
   - *warm*: ``run_check`` on a started, idle pool (what a visitor gets): the baseline plus the fork of a child of the
     warm worker, its limits and seccomp filter, the JSON both ways;
   - *cold*: a fresh pool, from ``start()`` to the result (the first check after a worker died or the server
     started: Python, torch, the warm-up, then the check);
   - *child's CPU*: the CPU seconds the warm worker's forked child used (``os.wait4``): what a check costs the
     machine, whatever else runs on it.
   Targets: warm at the default size <= 0.5 s.
2. The bystander: the Playground's rerun with new numbers (a seed change, through AppTest as bench/bench_playground.py
   does, in this process like the server) idle, then while 4 visitors press Check in a loop (4 threads calling
   ``run_check`` on the 128 x 16 check without pause; the pool has ``MHA_CHECK_WORKERS`` workers, default 1, so one
   runs and three wait). Ratio loaded / idle; target <= 1.5. The two are taken alternately, in rounds, so a busy
   moment of the shared machine hits both.

A benchmark, not a test: it prints a table and never fails.
"""
from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from anywhere without installing

import torch  # noqa: E402

from mha.check import examples, worker  # noqa: E402
from mha.check.diagnose import diagnose  # noqa: E402
from mha.check.sandbox import compile_learner  # noqa: E402

SIZES = [("default view (5 tokens, d_model 16, 4 heads)", 5, 16, 4),
         ("128 tokens, 16 heads, d_model 256", 128, 256, 16)]


def request(tokens: int, d_model: int, heads: int) -> dict:
    g = torch.Generator().manual_seed(0)
    return {"tokens": [f"w{i}" for i in range(tokens)], "x": torch.randn(1, tokens, d_model, generator=g).tolist(),
            "d_model": d_model, "num_heads": heads, "mask": None, "seed": 0}


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def in_process(req: dict) -> dict:
    """The baseline on one thread, as the worker runs it (two threads on a loaded 2-core machine were 5x slower)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return diagnose(compile_learner(examples.COURSE), req)
    finally:
        torch.set_num_threads(threads)


def check_times(repeats: int) -> list[dict]:
    rows = []
    warm_pool = worker.WorkerPool()
    warm_pool.start()
    worker.run_check("x = 1", {}, entry="mha.check.probe:names", pool=warm_pool)  # wait until it is ready
    for name, t, d, h in SIZES:
        req = request(t, d, h)
        base, warm, cold, cpu = [], [], [], []
        in_process(req)  # this process's own warm-up
        for _ in range(repeats):
            s, r = timed(lambda: in_process(req))
            base.append(s)
            s, r2 = timed(lambda: worker.run_check(examples.COURSE, req, timeout=30, pool=warm_pool))
            assert r2.get("status") == "equal", r2
            warm.append(s)
            cpu.append(warm_pool.last_stats()[0]["cpu_s"])
        for _ in range(max(2, repeats // 3)):
            fresh = worker.WorkerPool()
            s, r3 = timed(lambda: (fresh.start(), worker.run_check(examples.COURSE, req, timeout=30, pool=fresh)))
            assert r3[1].get("status") == "equal", r3
            cold.append(s)
            fresh.shutdown()
        rows.append({"size": name, "in_process": statistics.median(base), "warm": statistics.median(warm),
                     "child_cpu": statistics.median(cpu),
                     "cold": statistics.median(cold), "status": r.get("status")})
    warm_pool.shutdown()
    return rows


def bystander(repeats: int, visitors: int = 4, size: tuple = (128, 256, 16)) -> dict:
    from bench_playground import ours

    app = ours({})
    pool = worker.WorkerPool()
    pool.start()
    worker.run_check("x = 1", {}, entry="mha.check.probe:names", pool=pool)
    heavy = request(*size)
    stop = threading.Event()
    done = [0]

    def visitor():
        while not stop.is_set():
            worker.run_check(examples.COURSE, heavy, timeout=30, pool=pool)
            done[0] += 1

    idle, loaded, seed = [], [], 2000
    app.rerun(seed=seed)  # warm-up
    for _ in range(repeats):
        seed += 1
        idle.append(app.rerun(seed=seed)[0])
        threads = [threading.Thread(target=visitor, daemon=True) for _ in range(visitors)]
        for th in threads:
            th.start()
        time.sleep(0.5)  # the checks are under way
        for _ in range(3):
            seed += 1
            loaded.append(app.rerun(seed=seed)[0])
        stop.set()
        for th in threads:
            th.join()
        stop.clear()
    pool.shutdown()
    i, l_ = statistics.median(idle), statistics.median(loaded)
    return {"idle": i, "loaded": l_, "ratio": l_ / i, "checks": done[0], "workers": pool.size,
            "visitors": visitors, "size": size}


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    repeats = int(args[0]) if args else 7
    print(f"load average before: {os.getloadavg()[0]:.1f}; workers: {worker.WorkerPool().size}")
    print("\n| check of the course's class | in process (baseline) | warm worker | warm / baseline | child's CPU "
          "| cold worker |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for row in check_times(repeats):
        print(f"| {row['size']} | {row['in_process']:.3f} s | {row['warm']:.3f} s | "
              f"{row['warm'] / row['in_process']:.2f}x | {row['child_cpu']:.3f} s | {row['cold']:.2f} s |")
    if "--no-bystander" not in sys.argv:
        sys.path.insert(0, str(ROOT / "bench"))
        for size in ((5, 16, 4), (128, 256, 16)):
            b = bystander(max(3, repeats // 2), size=size)
            print(f"\nPlayground rerun (new seed, default view) idle {b['idle']:.3f} s, while {b['visitors']} "
                  f"visitors check {size[0]} tokens x {size[2]} heads in a loop ({b['workers']} worker(s), "
                  f"{b['checks']} checks done) {b['loaded']:.3f} s: {b['ratio']:.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
