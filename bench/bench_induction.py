"""Time to the phase change of the two-layer induction model (mha/lessons/induction.py) against a baseline in the same
run.

    python bench/bench_induction.py                # the default settings, seed 0; about a minute on one free core
    python bench/bench_induction.py 0 1 2          # several seeds
    python bench/bench_induction.py --write        # also replace the "Induction head" section of bench/REPORT.md

One thread (as the app). For each seed, three contenders train on the same batches, one after the other:

- ``induction``: ``mha.lessons.induction.train_steps`` at the default InductionConfig, as the page runs it (held-out
scores
  every ``report_every`` steps, parameter snapshots every ``snapshot_every``), until the best layer-2 induction score
  on held-out sequences passes 0.5 and 40 steps more; the phase change (``find_phase_change``'s drop_step) is read
  off the loss curve afterwards, and its time is the time of the first checkpoint at or after it;
- ``two-layer steps``: the same model and steps with no checkpoints (what measuring and snapshots cost);
- ``one-layer baseline``: the same embeddings and unembedding around ONE MultiHeadAttention(64, 4), the same number
  of forward + backward + Adam steps on the same batch size (what a step of the simplest attention model costs here).

A benchmark, not a test: it prints wall and CPU seconds and ratios and never fails. Wall time on a shared machine is
an upper bound; the CPU time of this single-threaded process and the ratios are the steadier figures.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from anywhere without installing

from mha import MultiHeadAttention, causal_mask  # noqa: E402
from mha.lessons.induction import (  # noqa: E402
    InductionConfig,
    InductionModel,
    find_phase_change,
    next_token_loss,
    repeat_batch,
    train_steps,
)

SETTLE = 40
START, END = "<!-- induction:start -->", "<!-- induction:end -->"


class OneLayer(nn.Module):
    """The baseline: the induction model with its second attention layer taken out."""

    def __init__(self, c: InductionConfig):
        super().__init__()
        self.token_embedding = nn.Embedding(c.vocab_size, c.d_model)
        self.position_embedding = nn.Embedding(c.seq_len, c.d_model)
        self.layer = MultiHeadAttention(c.d_model, c.num_heads)
        self.unembedding = nn.Linear(c.d_model, c.vocab_size)

    def forward(self, tokens):
        T = tokens.size(1)
        x = self.token_embedding(tokens) + self.position_embedding.weight[:T]  # (B, T, d_model)
        x = x + self.layer(x, x, x, mask=causal_mask(T))
        return self.unembedding(x)  # (B, T, vocab_size)


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def plain_steps(model: nn.Module, c: InductionConfig, steps: int) -> tuple[float, float]:
    """(wall, cpu) seconds of ``steps`` forward + backward + Adam steps, no measuring."""
    data = torch.Generator().manual_seed(c.seed ^ 0x5EED_DA7A)
    optimizer = torch.optim.Adam(model.parameters(), lr=c.lr)
    w0, p0 = clocks()
    for _ in range(steps):
        batch = repeat_batch(data, c.batch_size, c.seq_len, c.block_len, c.vocab_size)
        loss = next_token_loss(model(batch.tokens), batch.tokens)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    w1, p1 = clocks()
    return w1 - w0, p1 - p0


def bench_seed(seed: int) -> dict:
    c = InductionConfig(seed=seed)
    w0, p0 = clocks()
    marks, losses, hit = [], [], None  # marks: (step, wall, cpu) at each checkpoint
    for cp in train_steps(c):
        w, p = clocks()
        marks.append((cp.step, w - w0, p - p0))
        losses.extend(cp.losses)
        if hit is None and cp.measured.induction_scores.max() >= 0.5:
            hit = cp.step
        if hit is not None and cp.step >= hit + SETTLE:
            break
    phase = find_phase_change(losses, vocab_size=c.vocab_size)
    done = marks[-1][0]
    row = {"seed": seed, "hit": hit, "drop": phase.drop_step, "plateau_end": phase.plateau_end, "steps": done,
           "plateau_loss": phase.plateau_loss, "after_loss": phase.after_loss,
           "run_wall": marks[-1][1], "run_cpu": marks[-1][2]}
    if phase.drop_step is None:
        return row
    step, wall, cpu = next(m for m in marks if m[0] >= phase.drop_step)
    row.update(drop_wall=wall, drop_cpu=cpu, drop_checkpoint=step)
    two = InductionModel.from_config(c)
    row["two_wall"], row["two_cpu"] = plain_steps(two, c, step)
    torch.manual_seed(seed)
    row["one_wall"], row["one_cpu"] = plain_steps(OneLayer(c), c, step)
    return row


def render(rows: list[dict], load: tuple, when: str) -> str:
    c = InductionConfig()
    lines = [
        START,
        "## Induction head, two layers (bench/bench_induction.py)",
        "",
        f"`python bench/bench_induction.py {' '.join(str(r['seed']) for r in rows)}` on {when}, one thread, torch "
        f"{torch.__version__}. Default settings: vocabulary {c.vocab_size}, d_model {c.d_model}, {c.num_heads} heads "
        f"per layer, sequences of {c.seq_len} tokens with a block of {c.block_len} repeated at a random place, batch "
        f"{c.batch_size}, Adam {c.lr:g} (constant), held-out scores every {c.report_every} steps, snapshots every "
        f"{c.snapshot_every}. The phase change is `find_phase_change`'s drop_step (the smoothed loss half-way from the "
        "plateau down); its time is that of the first checkpoint at or after it. Baseline: the same number of "
        "forward + backward + Adam steps of the same model with ONE attention layer, in the same process right after.",
        "",
        "| seed | plateau ends | phase change (step) | loss plateau → after | to the phase change, wall | CPU "
        "| steps per CPU s | two-layer steps alone, CPU | one-layer baseline, CPU | ratio to baseline (CPU) |",
        "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        if r.get("drop") is None:
            lines.append(f"| {r['seed']} | – | no drop in {r['steps']} steps | | | | | | | |")
            continue
        lines.append(
            f"| {r['seed']} | {r['plateau_end']} | {r['drop']} | {r['plateau_loss']:.2f} → {r['after_loss']:.2f} "
            f"| {r['drop_wall']:.1f} s | {r['drop_cpu']:.1f} s | {r['drop_checkpoint'] / r['drop_cpu']:.0f} "
            f"| {r['two_cpu']:.1f} s | {r['one_cpu']:.1f} s | {r['drop_cpu'] / r['one_cpu']:.2f} |"
        )
    lines += [
        "",
        f"Load average (1/5/15 min) before: {load[0]}; after: {load[1]}. The machine was shared with other work "
        "(several helpers running tests and benchmarks at once): wall times are upper bounds, the CPU seconds of "
        "this one-thread process and the ratios are the figures to compare. Target: the phase change in ≤ 30 s on "
        "one thread.",
        END,
    ]
    return "\n".join(lines) + "\n"


def write_report(section: str) -> None:
    path = ROOT / "bench" / "REPORT.md"
    text = path.read_text(encoding="utf-8")
    if START in text and END in text:
        text = re.sub(re.escape(START) + r".*?" + re.escape(END) + r"\n?", lambda m: section, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", nargs="*", type=int, default=[0])
    ap.add_argument("--write", action="store_true", help="replace the section in bench/REPORT.md")
    args = ap.parse_args()
    torch.set_num_threads(1)
    warm = InductionConfig(seed=12345)
    plain_steps(InductionModel.from_config(warm), warm, 30)  # first calls pay allocator and dispatch warm-up: not timed
    list(train_steps(InductionConfig(seed=12345, steps=20)))
    before = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = []
    for seed in args.seeds:
        rows.append(bench_seed(seed))
        print(rows[-1], flush=True)
    after = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    when = time.strftime("%Y-%m-%d", time.gmtime()) + f" ({platform.processor() or platform.machine()})"
    section = render(rows, (before, after), when)
    print(section)
    if args.write:
        write_report(section)


if __name__ == "__main__":
    main()
