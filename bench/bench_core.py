"""Time our MultiHeadAttention (forward, trace) against torch's nn.MultiheadAttention returning per-head weights.

    python bench/bench_core.py [threads]     # default 1 thread

In eval mode under no_grad, torch runs its fused C++ path (torch._native_multi_head_attention) even when it returns
per-head weights: the bar is high. A benchmark, not a test: it prints ratios (ours / torch, lower is better; target trace <= 1.2) and never fails.
Batch 1, float32, CPU, torch.no_grad; per call the median of several repeats after a warmup, by default on one
thread timed with its CPU clock (see ``main``). The three contenders run interleaved, in a rotating order, so a
slow moment of the machine hits all of them alike.

Large L is sensitive to the C allocator: trace returns scores *and* weights, (H, L, L) each, where torch returns
the weights only; when glibc hands that memory back to the OS, the next call pays page faults for it. To time
the arithmetic alone: MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_MMAP_THRESHOLD_=1073741824 python bench/bench_core.py
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn

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
        ref.in_proj_weight.copy_(torch.cat([ours.query_linear.weight, ours.key_linear.weight, ours.value_linear.weight]))
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
    start = time.perf_counter()
    for n in range(1, MAX_REPEATS + 1):
        for name in names[n % len(names):] + names[: n % len(names)]:  # rotate: no one always runs after another
            t0 = clock()
            calls[name]()
            times[name].append(clock() - t0)
        if n >= MIN_REPEATS and time.perf_counter() - start > budget_s:
            break
    return {name: statistics.median(ts) for name, ts in times.items()}


def main() -> None:
    # One thread by default, timed with this thread's CPU clock: on a shared or busy machine, wall-clock and
    # multi-threaded timings are dominated by scheduling noise. Pass a thread count to time wall-clock instead.
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    torch.set_num_threads(threads)
    clock = time.thread_time if threads == 1 else time.perf_counter
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {threads} thread(s), {clock.__name__}, float32, batch 1, no_grad; "
          f"median of >= {MIN_REPEATS} repeats after {WARMUP} warmup calls")
    header = f"{'L':>5} {'H':>3} {'d_model':>7} | {'torch ms':>9} {'forward ms':>10} {'trace ms':>9} | " \
             f"{'forward/torch':>13} {'trace/torch':>11}"
    print(header)
    print("-" * len(header))
    worst = 0.0
    with torch.no_grad():
        for d_model in D_MODELS:
            for heads in HEADS:
                ours = mha.init_weights(mha.MultiHeadAttention(d_model, heads), seed=0).eval()
                ref = torch_twin(ours)
                for length in LENGTHS:
                    x = torch.randn(1, length, d_model)
                    expected, _ = ref(x, x, x, need_weights=True, average_attn_weights=False)
                    torch.testing.assert_close(ours(x, x, x), expected, rtol=1e-4, atol=1e-4)  # same function timed
                    t = median_times({
                        "torch": lambda: ref(x, x, x, need_weights=True, average_attn_weights=False),
                        "forward": lambda: ours(x, x, x),
                        "trace": lambda: ours.trace(x, x, x),
                    }, clock)
                    fwd, trc = t["forward"] / t["torch"], t["trace"] / t["torch"]
                    worst = max(worst, trc)
                    flag = "  <- above target" if trc > TARGET else ""
                    print(f"{length:>5} {heads:>3} {d_model:>7} | {t['torch'] * 1e3:>9.3f} {t['forward'] * 1e3:>10.3f} "
                          f"{t['trace'] * 1e3:>9.3f} | {fwd:>13.2f} {trc:>11.2f}{flag}")
    print(f"worst trace/torch: {worst:.2f} (target <= {TARGET})")


if __name__ == "__main__":
    main()
