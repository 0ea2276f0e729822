"""Training runs as the Train page shows them: kept by their parameters, so any sentence can be looked at later.

Pure torch + numpy (no Streamlit). ``mha.weights.train.Trainer`` keeps the weights on one probe sentence at each
snapshot; a page that lets the learner change the sentence after training needs the *parameters* at each snapshot
instead. ``RecordingTrainer`` keeps them (as numpy, so a run can be a cache key's value and be fingerprinted by its
bytes), ``TrainRecord`` is the finished (or stopped) run, ``probe_weights`` reads the weights of any snapshot on any
sentence, ``closeness`` says how near each head got to what the task asks.

A run is fixed by its plain values (``TrainConfig``: task, d_model, num_heads, steps, seed, layout): the page caches
it on them, and a link carrying them retrains the very same parameters on a fresh server.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional, Sequence

import numpy as np
import torch

from mha.core.attention import MultiHeadAttention
from mha.weights.train import (
    MAX_PROBE_TOKENS,
    Progress,
    RunSteps,
    TrainConfig,
    Trainer,
    frozen_module,
    get_task,
    layout_inputs,
    match_heads,
    pattern_scores,
    slot_scores,
    target_patterns,
)


@dataclass(frozen=True)
class TrainRecord(RunSteps):
    """A finished or stopped run: its losses and the module's parameters after each snapshot step."""

    config: TrainConfig
    losses: np.ndarray  # (steps_done,) float64: loss of each step's batch, before that step's update
    snapshot_steps: tuple[int, ...]  # (S,) 0 first, steps_done last
    snapshot_params: tuple[dict, ...]  # (S,) state_dicts as float32 numpy arrays, course names
    seconds: float  # time spent training (not deterministic; never part of what a page compares)

    def index_at(self, step: int) -> int:
        """The snapshot at or before ``step`` (the first one for steps before it)."""
        idx = int(np.searchsorted(np.asarray(self.snapshot_steps), step, side="right")) - 1
        return max(idx, 0)

    def module(self, index: int = -1) -> MultiHeadAttention:
        """A fresh module (eval mode, no gradients) with the parameters of snapshot ``index`` (the last by default):
        it loads strictly into the course's class too."""
        return frozen_module(self.config.d_model, self.config.num_heads, self.snapshot_params[index])


def _params(model: torch.nn.Module) -> dict:
    return {k: v.detach().to(torch.float32).numpy().copy() for k, v in model.state_dict().items()}


class RecordingTrainer:
    """``mha.weights.train.Trainer`` that also keeps the parameters at every snapshot. Use like the Trainer:

        rec = RecordingTrainer(config, probe_tokens)
        for p in rec.run(): ...        # mha.weights.train.Progress; leave the loop to stop
        record = rec.record()          # TrainRecord of what was done
    """

    def __init__(self, config: TrainConfig, probe_tokens: Optional[Sequence[str]] = None, **kwargs):
        self.trainer = Trainer(config, probe_tokens, **kwargs)
        self._steps: list[int] = []
        self._params: list[dict] = []

    @property
    def config(self) -> TrainConfig:
        return self.trainer.config

    def run(self) -> Iterator[Progress]:
        for progress in self.trainer.run():
            if progress.snapshot is not None:
                self._steps.append(progress.step)
                self._params.append(_params(self.trainer.model))
            yield progress

    def record(self) -> TrainRecord:
        """The run so far (a last snapshot is added when it stopped between two)."""
        result = self.trainer.result()
        if not self._steps or self._steps[-1] != result.steps_done:
            self._steps.append(result.steps_done)
            self._params.append(_params(self.trainer.model))
        return TrainRecord(config=self.config, losses=result.losses, snapshot_steps=tuple(self._steps),
                           snapshot_params=tuple(self._params), seconds=result.seconds)


def train_record(config: TrainConfig) -> TrainRecord:
    """A whole run, recorded (no probe needed: the weights on any sentence come from ``probe_weights``)."""
    rec = RecordingTrainer(config)
    for _ in rec.run():
        pass
    return rec.record()


def check_probe(tokens: Sequence[str]) -> tuple[str, ...]:
    """The probe sentence the page follows: at most MAX_PROBE_TOKENS tokens (cut, the caller says so)."""
    tokens = tuple(tokens)
    if not tokens:
        raise ValueError("The probe sentence is empty: type a sentence in the sidebar.")
    return tokens[:MAX_PROBE_TOKENS]


def probe_weights(record: TrainRecord, tokens: Sequence[str], indices: Optional[Sequence[int]] = None) -> np.ndarray:
    """(S, H, T, T) float32: the attention weights of each snapshot (or of ``indices``) on the sentence ``tokens``,
    with the inputs the run was trained on (``mha.weights.train.layout_inputs`` of its layout and seed)."""
    c = record.config
    tokens = check_probe(tokens)
    x = layout_inputs(tokens, c.d_model, c.seed, c.layout).unsqueeze(0)  # (1, T, d_model)
    chosen = range(len(record.snapshot_params)) if indices is None else indices
    out = []
    with torch.no_grad():
        for i in chosen:
            out.append(record.module(i).trace(x, x, x).weights[0].numpy().astype(np.float32))  # (H, T, T)
    return np.stack(out)


@dataclass(frozen=True)
class SlotCloseness:
    """How close the heads got to one slot of the task."""

    slot: str  # the slot's pattern (mha.weights.train.PATTERNS)
    head: int  # the head closest to it on training-like sequences
    score: float  # that head's mean weight on the right key there (1 = perfect)
    probe_head: int  # the head closest to it on the learner's sentence
    probe_score: float  # 1 - mean total variation distance to the perfect row there (pattern_scores)


@dataclass(frozen=True)
class Closeness:
    slots: tuple[SlotCloseness, ...]
    heads: tuple  # mha.weights.train.HeadMatch per head: its closest known pattern on the sentence


def closeness(record: TrainRecord, index: int, tokens: Sequence[str], weights: Optional[np.ndarray] = None
              ) -> Closeness:
    """For snapshot ``index``: each task slot's closest head, on fresh training-like sequences (``slot_scores``) and on
    the sentence (``pattern_scores`` against ``target_patterns``), and each head's closest known pattern
    (``match_heads``). ``weights`` (H, T, T): that snapshot's weights on ``tokens`` when already computed."""
    c = record.config
    tokens = check_probe(tokens)
    w = probe_weights(record, tokens, [index])[0] if weights is None else np.asarray(weights)
    if w.shape[1] != len(tokens):
        raise ValueError(f"The weights have {w.shape[1]} positions, while the number of tokens is {len(tokens)}.")
    on_data = slot_scores(record.module(index), c.task, c.layout, seq_len=c.seq_len)
    on_probe = pattern_scores(w, target_patterns(c.task, len(tokens), tokens))  # (S, H)
    slots = tuple(SlotCloseness(slot=s.slot, head=s.head, score=s.score, probe_head=int(on_probe[i].argmax()),
                                probe_score=float(on_probe[i].max()))
                  for i, s in enumerate(on_data))
    return Closeness(slots=slots, heads=tuple(match_heads(w, tokens)))


def task_slots(task_id: str) -> tuple[str, ...]:
    return get_task(task_id).slots
