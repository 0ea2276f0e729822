"""Time our MultiHeadAttention (forward, trace) against torch's nn.MultiheadAttention returning per-head weights.

    python bench/bench_core.py [threads]     # default 1 thread; about a minute

In eval mode under no_grad, torch runs its fused C++ path (torch._native_multi_head_attention) even when it returns
per-head weights: the bar is high. A benchmark, not a test: it prints ratios (ours / torch, lower is better; target
trace <= 1.2) and never fails. Batch 1, float32, CPU, torch.no_grad; per call the median of several repeats after a
warmup, by default on one thread timed with its CPU clock (see ``main``). The three contenders run interleaved, in a
fresh random order each round, so a slow moment of the machine hits all of them alike.

Two tables, one process. Large L also measures the C allocator: trace returns scores *and* weights, (H, L, L) each
(32 MB at L=512, H=16), where torch's module returns the weights only. Under glibc's default policy, freeing more
than its trim threshold (twice its adaptive mmap threshold, at most 64 MB) at the top of the heap hands the memory
back to the OS, and the next call pays a page fault per 4 KB page: about 8,000-9,000 per trace call at L=512, H=16,
and none for torch's module (ru_minflt). So the first table runs under the process's default policy; then glibc is
told to keep up to 256 MB of freed memory (mallopt M_TRIM_THRESHOLD / M_MMAP_THRESHOLD, what
MALLOC_TRIM_THRESHOLD_ / MALLOC_MMAP_THRESHOLD_ do) and the second table times the arithmetic and memory traffic of
both contenders alike. The target is judged on the second table; both are printed.

A fourth contender, ``removed fused``, is what ``trace`` did for self-attention until issue #12: Q, K and V as one
matrix product with a stacked weight kept between calls. That cache went stale under ``.data`` writes and failed under
pruning, parametrizations, wrappers and quantize_dynamic, so the module no longer has it; it is timed here (the stacked
weight built once, outside the timing, as the cache did) only to show what removing it costs: column trace/removed.
"""
from __future__ import annotations

import math
import random
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

import mha  # noqa: E402

LENGTHS = [16, 128, 512]
HEADS = [4, 16]
D_MODELS = [256, 512]
WARMUP = 3
MIN_REPEATS, MAX_REPEATS, BUDGET_S = 7, 200, 1.5  # per configuration: repeat until the budget, within bounds
TARGET = 1.2


def torch_twin(ours: mha.MultiHeadAttention) -> nn.MultiheadAttention:
    """nn.MultiheadAttention computing the same function (same weights, zero Q/K/V bias)."""
    ref = nn.MultiheadAttention(ours.d_model, ours.num_heads, batch_first=True)
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.query_linear.weight, ours.key_linear.weight,
                                            ours.value_linear.weight]))
        ref.in_proj_bias.zero_()
        ref.out_proj.weight.copy_(ours.output_linear.weight)
        ref.out_proj.bias.copy_(ours.output_linear.bias)
    return ref.eval()


def median_times(calls: dict, clock=time.perf_counter, budget_s: float = BUDGET_S) -> dict:
    """Median seconds per call of each zero-argument function, run interleaved."""
    for fn in calls.values():
        for _ in range(WARMUP):
            fn()
    names = list(calls)
    times = {name: [] for name in names}
    order = random.Random(0)  # the same sequence every run
    start = time.perf_counter()
    for n in range(1, MAX_REPEATS + 1):
        # A fresh random order each round: a call leaves caches and the heap shaped for its own sizes, so a fixed
        # or rotating order would always hand one contender the same predecessor (forward before trace, say).
        for name in order.sample(names, len(names)):
            t0 = clock()
            calls[name]()
            times[name].append(clock() - t0)
        if n >= MIN_REPEATS and time.perf_counter() - start > budget_s:
            break
    return {name: statistics.median(ts) for name, ts in times.items()}


def keep_freed_memory() -> bool:
    """Ask glibc to keep freed memory for reuse instead of returning it to the OS (see the module docstring).
    False where the C library is not glibc (macOS, musl): then only the first table is printed."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h
    return bool(mallopt(M_TRIM_THRESHOLD, 256 << 20)) and bool(mallopt(M_MMAP_THRESHOLD, 64 << 20))


def removed_fused_trace(m: mha.MultiHeadAttention, x: torch.Tensor, w_qkv: torch.Tensor) -> tuple:
    """Self-attention as ``trace`` ran it before issue #12 (for this benchmark only): the same checks and attention,
    but Q, K and V from one product with the stacked (3 * d_model, d_model) weight ``w_qkv``."""
    m._check_inputs(x, x, x, None)
    batch_size = x.size(0)
    qkv = F.linear(x, w_qkv)  # (B, T, 3 * d_model)
    q, k, v = qkv.view(batch_size, -1, 3, m.num_heads, m.head_dim).permute(2, 0, 3, 1, 4).unbind(0)
    steps = mha.attention_steps(q, k, v)
    concat = m.combine_heads(steps.output, batch_size)
    output = m.output_linear(concat)
    if not math.isfinite(output.sum().item()):
        raise ValueError("overflow")
    return q, k, v, steps, concat, output


def page_faults() -> int:
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    except ImportError:  # not on Windows
        return 0


def rows(clock=time.thread_time, budget_s: float = BUDGET_S) -> list[dict]:
    """One row per (d_model, H, L): median ms of torch, forward and trace, their ratios, page faults per call."""
    torch.manual_seed(0)
    out = []
    with torch.no_grad():
        for d_model in D_MODELS:
            for heads in HEADS:
                ours = mha.init_weights(mha.MultiHeadAttention(d_model, heads), seed=0).eval()
                ref = torch_twin(ours)
                for length in LENGTHS:
                    x = torch.randn(1, length, d_model)
                    expected, _ = ref(x, x, x, need_weights=True, average_attn_weights=False)
                    torch.testing.assert_close(ours(x, x, x), expected, rtol=1e-4, atol=1e-4)  # same function timed
                    w_qkv = torch.cat([ours.query_linear.weight, ours.key_linear.weight, ours.value_linear.weight])
                    torch.testing.assert_close(removed_fused_trace(ours, x, w_qkv)[-1], expected, rtol=1e-4, atol=1e-4)
                    calls = {
                        "torch": lambda: ref(x, x, x, need_weights=True, average_attn_weights=False),
                        "forward": lambda: ours(x, x, x),
                        "trace": lambda: ours.trace(x, x, x),
                        "removed": lambda: removed_fused_trace(ours, x, w_qkv),
                    }
                    t = median_times(calls, clock, budget_s)
                    faults = {}
                    for name in ("torch", "trace"):
                        before = page_faults()
                        for _ in range(5):
                            calls[name]()
                        faults[name] = (page_faults() - before) / 5
                    out.append({"L": length, "H": heads, "d_model": d_model, "torch_ms": t["torch"] * 1e3,
                                "forward_ms": t["forward"] * 1e3, "trace_ms": t["trace"] * 1e3,
                                "forward_ratio": t["forward"] / t["torch"], "trace_ratio": t["trace"] / t["torch"],
                                "torch_faults": faults["torch"], "trace_faults": faults["trace"],
                                "removed_ms": t["removed"] * 1e3, "trace_vs_removed": t["trace"] / t["removed"]})
    return out


def print_table(title: str, table: list[dict]) -> None:
    print(f"\n{title}")
    header = f"{'L':>5} {'H':>3} {'d_model':>7} | {'torch ms':>9} {'forward ms':>10} {'trace ms':>9} | " \
             f"{'forward/torch':>13} {'trace/torch':>11} | {'page faults/call torch, trace':>29} | " \
             f"{'trace/removed':>13}"
    print(header)
    print("-" * len(header))
    for r in table:
        flag = "  <- above target" if r["trace_ratio"] > TARGET else ""
        print(f"{r['L']:>5} {r['H']:>3} {r['d_model']:>7} | {r['torch_ms']:>9.3f} {r['forward_ms']:>10.3f} "
              f"{r['trace_ms']:>9.3f} | {r['forward_ratio']:>13.2f} {r['trace_ratio']:>11.2f} | "
              f"{r['torch_faults']:>14.0f} {r['trace_faults']:>14.0f} | {r['trace_vs_removed']:>13.2f}{flag}")
    print(f"worst trace/torch: {max(r['trace_ratio'] for r in table):.2f} (target <= {TARGET}); trace/removed fused "
          f"path: median {statistics.median(r['trace_vs_removed'] for r in table):.2f}, "
          f"max {max(r['trace_vs_removed'] for r in table):.2f}")


def main() -> None:
    # One thread by default, timed with this thread's CPU clock: on a shared or busy machine, wall-clock and
    # multi-threaded timings are dominated by scheduling noise. Pass a thread count to time wall-clock instead.
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    torch.set_num_threads(threads)
    clock = time.thread_time if threads == 1 else time.perf_counter
    print(f"torch {torch.__version__}, {threads} thread(s), {clock.__name__}, float32, batch 1, no_grad; "
          f"median of >= {MIN_REPEATS} repeats after {WARMUP} warmup calls")
    print_table("1. The C allocator's default policy (freed memory may go back to the OS)", rows(clock))
    if keep_freed_memory():
        print_table("2. glibc keeping freed memory for reuse, for both contenders (the target is judged here)",
                    rows(clock))
    else:
        print("\n(not glibc: no second table)")


if __name__ == "__main__":
    main()
