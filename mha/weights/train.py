"""Trained heads: train the course's MultiHeadAttention on small copying tasks and name what each head learned.

Pure torch + numpy: no Streamlit here. The Train page, the "trained" weight source and the Heads page build on it.

A task asks the module to copy, into its output at position i, something read from one or more other positions:
the token before i ("previous"), after i ("next"), the first token, and so on. Each such *slot* of the output has a
perfect attention pattern (``target_patterns``): which key a query must attend to so that the copy is possible.
One head can attend to one place per query, so a task with two slots that read different places (previous *and*
next) needs two heads: the course's reason for multi-head attention, measured.

The input layout decides whether the module can learn at all (``LAYOUTS``). ``"split"``: content (which word) in
the first half of the features, position in the second half. ``"added"``: the Playground's inputs, content over all
features with sinusoidal positions added on top; there the content noise swamps the positional signal in QK^T and
training stalls (a loss around 0.8 on "previous" instead of ~1e-4). Both are kept so that a page can show it.

Training is deterministic for (task, d_model, num_heads, steps, seed, layout) on CPU: the module starts from the
seeded random parameters of ``mha.core.inputs.init_weights`` (the Playground's module for that seed) and the batches
come from a private generator. Run with ``torch.set_num_threads(1)`` (as the app does) for the same bits on
every machine.

Vocabulary: ``weights`` are attention weights (after softmax), ``parameters`` the module's tensors.
"""
from __future__ import annotations

import hashlib
import re
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from mha.core.attention import MultiHeadAttention
from mha.core.inputs import embed_tokens, init_weights, sinusoidal_positions
from mha.core.lru import ByteLRU

# --------------------------------------------------------------------------------------------------------------
# Known attention patterns: one (T, T) matrix each, rows = queries, columns = keys, each row sums to 1.

PATTERNS = ("previous", "next", "first", "last", "self", "same_word", "reverse", "special", "spread")
# Tried only where they mean something: "same_word" with the tokens, "special" with a sink key in the middle.
SINK_SHARE = 0.25  # a broad head with at least this mean weight on one sink (and twice its even share) names it
_SPECIAL = re.compile(r"^(\[[A-Za-z_]+\]|<\|?[A-Za-z_/]+\|?>)$")  # [CLS], [SEP], <s>, </s>, <|endoftext|>
_PIECE_MARKS = ("##", "Ġ", "▁", "…")  # a piece's continuation / word-start marks, not part of what it spells


def is_special_token(token) -> bool:
    """[CLS], [SEP], <s>, </s>, <|endoftext|> and the like: the tokenizer's markers, not words."""
    return bool(_SPECIAL.match(str(token)))


def is_punctuation(token) -> bool:
    """A token made of punctuation only (".", ",", "Ġ!", "##?"), once its piece marks are taken off."""
    text = str(token)
    for mark in _PIECE_MARKS:
        text = text.removeprefix(mark)
    return bool(text) and all(unicodedata.category(ch).startswith("P") for ch in text)


def sink_keys(tokens: Optional[Sequence]) -> np.ndarray:
    """(T,) bool: the keys real models park attention on besides the first and last: special tokens and
    punctuation. All False without tokens."""
    if tokens is None:
        return np.zeros(0, dtype=bool)
    return np.array([is_special_token(t) or is_punctuation(t) for t in tokens], dtype=bool)


def first_occurrence(tokens: Sequence) -> np.ndarray:
    """(T,) int: for each position, the first position holding the same token (itself when the token is new)."""
    seen: dict = {}
    return np.array([seen.setdefault(tok, i) for i, tok in enumerate(tokens)], dtype=np.int64)


def pattern_sources(name: str, T: int, tokens: Optional[Sequence] = None) -> np.ndarray:
    """(T,) int: the key each query attends to in the one-key pattern ``name`` (not ``spread``). At the edges a
    query with no such key attends to itself: "previous" of the first token, "next" of the last."""
    i = np.arange(T)
    if name == "previous":
        return np.maximum(i - 1, 0)
    if name == "next":
        return np.minimum(i + 1, T - 1)
    if name == "first":
        return np.zeros(T, dtype=np.int64)
    if name == "last":
        return np.full(T, T - 1, dtype=np.int64)
    if name == "self":
        return i
    if name == "reverse":
        return T - 1 - i
    if name == "same_word":
        if tokens is None or len(tokens) != T:
            got = "no tokens" if tokens is None else f"{len(tokens)} tokens"
            raise ValueError(f"The 'same_word' pattern needs the {T} tokens of the sentence, got {got}.")
        return first_occurrence(tokens)
    raise ValueError(f"Unknown one-key pattern {name!r}: use one of "
                     f"{[p for p in PATTERNS if p not in ('spread', 'special')]}.")


def pattern_matrix(name: str, T: int, tokens: Optional[Sequence] = None,
                   allowed: Optional[np.ndarray] = None) -> np.ndarray:
    """(T, T) float64: the perfect attention weights of pattern ``name`` for T positions. ``spread`` is uniform over
    the keys a query may attend to (``allowed``, (T, T) bool, True = may attend; all keys when None); ``special``
    uniform over the sink keys among them (special tokens and punctuation, ``sink_keys(tokens)``; a query that
    may see none attends to itself)."""
    ok = np.ones((T, T), dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    if name == "spread":
        counts = ok.sum(axis=1, keepdims=True)
        return np.where(counts > 0, ok / np.maximum(counts, 1), 0.0)
    if name == "special":
        sinks = sink_keys(tokens)
        if len(sinks) != T or not sinks.any():
            raise ValueError(f"The 'special' pattern needs the {T} tokens of a sentence with a special token or "
                             "punctuation mark.")
        on = ok & sinks[None, :]  # (T, T)
        counts = on.sum(axis=1, keepdims=True)
        return np.where(counts > 0, on / np.maximum(counts, 1), np.eye(T))
    out = np.zeros((T, T))
    out[np.arange(T), pattern_sources(name, T, tokens)] = 1.0
    return out


# --------------------------------------------------------------------------------------------------------------
# Tasks


@dataclass(frozen=True)
class Task:
    """A copying task. Output slot s (a block of output features) must hold what ``slots[s]`` points at."""

    id: str  # also the URL value (``task=previous``)
    slots: tuple[str, ...]  # one known pattern per output slot, in output order
    copies: str  # "content": the key's content features; "tag": the key's tag (see ``task_batch``)
    steps: int  # default step budget: reaches the goal at the default size (see tests/unit/test_train.py)
    min_heads: int  # fewest heads that can solve it: one per distinct place a query must read
    d_model: int = 32  # default size: the goal within ``steps`` in about a second or two on one thread
    num_heads: int = 4

    @property
    def description_key(self) -> str:
        """String key (mha/strings/train.py) of the one sentence saying what the perfect attention pattern is."""
        return f"tr_task_{self.id}"

    @property
    def name_key(self) -> str:
        return f"tr_task_name_{self.id}"


TASKS: dict[str, Task] = {t.id: t for t in (
    # Budgets: 2-3 times the steps to the goal at seeds 0-3 (bench/bench_train.py prints the step it is reached)
    Task("previous", ("previous",), "content", steps=300, min_heads=1),
    Task("next", ("next",), "content", steps=300, min_heads=1),
    Task("first", ("first",), "content", steps=200, min_heads=1),
    Task("reverse", ("reverse",), "content", steps=300, min_heads=1),
    # Matching words needs enough word features: 16 of d_model=64 (8 at 32 matches less sharply).
    Task("same_word", ("same_word",), "tag", steps=400, min_heads=1, d_model=64),
    Task("prev_next", ("previous", "next"), "content", steps=300, min_heads=2, num_heads=2),
    Task("mixed", ("previous", "next", "first", "reverse"), "content", steps=1000, min_heads=4),
)}
DEFAULT_TASK = "previous"


def get_task(task_id: str) -> Task:
    try:
        return TASKS[task_id]
    except KeyError:
        raise ValueError(f"Unknown task {task_id!r}: pick one of {list(TASKS)}.") from None


def target_patterns(task_id: str, T: int, tokens: Optional[Sequence] = None) -> np.ndarray:
    """(S, T, T): the perfect attention weights for each of the task's S output slots on T positions (the
    "same_word" task needs the tokens)."""
    return np.stack([pattern_matrix(name, T, tokens) for name in get_task(task_id).slots])


# --------------------------------------------------------------------------------------------------------------
# The input layout

LAYOUTS = ("split", "added")
DEFAULT_LAYOUT = "split"


def content_dim(d_model: int, layout: str = DEFAULT_LAYOUT) -> int:
    """How many features carry content: the first half under "split", all of them under "added"."""
    _check_layout(layout)
    return d_model // 2 if layout == "split" else d_model


def _check_layout(layout: str) -> None:
    if layout not in LAYOUTS:
        raise ValueError(f"Unknown input layout {layout!r}: use 'split' (content | position) or 'added'.")


def compose_inputs(content: torch.Tensor, d_model: int, layout: str = DEFAULT_LAYOUT, *,
                   positional: bool = True) -> torch.Tensor:
    """Content vectors (..., T, content_dim) and positions -> the module's input (..., T, d_model).

    "split": ``[content | sinusoidal_positions(T, d_model - d_model // 2)]``: the content in the first half of the
    features, the position in the second, so a query can match keys by position without the content getting in
    the way (and by content without the positions).
    "added": ``content + sinusoidal_positions(T, d_model)``, the Playground's inputs: both share every feature.
    ``positional=False`` leaves the positions out (zeros in the position half under "split"): what a trained
    positional head does without them.
    """
    _check_layout(layout)
    T, dc = content.size(-2), content.size(-1)
    if dc != content_dim(d_model, layout):
        raise ValueError(
            f"content has {dc} features, but layout {layout!r} at d_model={d_model} takes "
            f"{content_dim(d_model, layout)}: make it with content_dim(d_model, layout)."
        )
    # float32 positions, like mha.core.inputs.token_inputs: "added" is then exactly the Playground's input
    pe = sinusoidal_positions(T, d_model - dc if layout == "split" else d_model).to(content.dtype)  # (T, ·)
    if not positional:
        pe = torch.zeros_like(pe)
    if layout == "split":
        return torch.cat([content, pe.expand(*content.shape[:-1], pe.size(-1))], dim=-1)  # (..., T, d_model)
    return content + pe


def layout_inputs(tokens: Sequence[str], d_model: int, seed: int = 0, layout: str = DEFAULT_LAYOUT,
                  dtype=torch.float32, *, positional: bool = True) -> torch.Tensor:
    """(T, d_model): a sentence's tokens as the trained module's input. The content comes from the app's
    deterministic embeddings (``mha.core.inputs.embed_tokens``, one fixed random vector per word and seed: the same
    distribution as the training content), the positions from ``compose_inputs``. Under "added" this is exactly
    the Playground's ``token_inputs(tokens, d_model, seed, positional)``."""
    content = embed_tokens(list(tokens), content_dim(d_model, layout), seed, dtype=torch.float64)
    return compose_inputs(content, d_model, layout, positional=positional).to(dtype)


def layout_parts(tokens: Sequence[str], d_model: int, seed: int = 0, layout: str = DEFAULT_LAYOUT, *,
                 positional: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """(content, positions), each (T, d_model) float64, whose sum is ``layout_inputs`` (up to its float32 cast):
    for explaining the input. Under "split" each is zero in the other's half of the features."""
    T, dc = len(tokens), content_dim(d_model, layout)
    content = torch.zeros(T, d_model, dtype=torch.float64)
    content[:, :dc] = embed_tokens(list(tokens), dc, seed, dtype=torch.float64)
    positions = compose_inputs(torch.zeros(T, dc, dtype=torch.float64), d_model, layout, positional=positional)
    return content, positions


# --------------------------------------------------------------------------------------------------------------
# Batches

TRAIN_LEN = 10  # tokens per training sequence
BATCH_SIZE = 64
LEARNING_RATE = 2e-2  # Adam; at 1e-2 "mixed" left a slot unlearned at some seeds (two heads on one place)
SAME_WORD_VOCAB = 5  # words per training sequence of the "same_word" task: most sequences repeat some word


def slot_width(d_model: int, n_slots: int) -> int:
    """Output features per slot: the first ``n_slots * slot_width`` output features are the task's; each slot
    copies the first ``slot_width`` features of what it reads (half the features for a one-slot task)."""
    return d_model // max(2, n_slots)


def task_batch(task_id: str, d_model: int, gen: torch.Generator, batch_size: int = BATCH_SIZE,
               seq_len: int = TRAIN_LEN, layout: str = DEFAULT_LAYOUT) -> tuple[torch.Tensor, torch.Tensor]:
    """One random batch: inputs (B, T, d_model) and targets (B, T, S * slot_width), from ``gen`` alone."""
    x, target, _ = _batch(task_id, d_model, gen, batch_size, seq_len, layout)
    return x, target


def _batch(task_id, d_model, gen, batch_size, seq_len, layout):
    """``task_batch`` plus the key each query must read, per slot: (S, B, T) int."""
    task = get_task(task_id)
    dc = content_dim(d_model, layout)
    B, T = batch_size, seq_len
    if task.copies == "tag":
        # Content = [word | tag]: the word part is shared by every occurrence of a word (what a query matches on),
        # the tag is fresh at every position (what is copied), so attending to the wrong occurrence costs as
        # much as attending to a wrong word.
        half = dc // 2
        vocab = torch.randn(B, SAME_WORD_VOCAB, half, generator=gen)  # (B, V, half) fresh words for every sequence
        ids = torch.randint(SAME_WORD_VOCAB, (B, T), generator=gen)  # (B, T)
        words = torch.gather(vocab, 1, ids.unsqueeze(-1).expand(B, T, half))  # (B, T, half)
        tags = torch.randn(B, T, dc - half, generator=gen)  # (B, T, dc - half)
        content = torch.cat([words, tags], dim=-1)  # (B, T, dc)
        first = (ids.unsqueeze(2) == ids.unsqueeze(1)).to(torch.int8).argmax(dim=-1)  # (B, T) first same word
        w = min(slot_width(d_model, 1), dc - half)
        parts = [torch.gather(tags[..., :w], 1, first.unsqueeze(-1).expand(B, T, w))]  # (B, T, w)
        sources = [first]
    else:
        content = torch.randn(B, T, dc, generator=gen)  # (B, T, dc) a fresh word at every position
        w = slot_width(d_model, len(task.slots))
        parts, sources = [], []
        for name in task.slots:
            src = torch.as_tensor(pattern_sources(name, T)).expand(B, T)  # (B, T)
            sources.append(src)
            parts.append(torch.gather(content[..., :w], 1, src.unsqueeze(-1).expand(B, T, w)))  # (B, T, w)
    x = compose_inputs(content, d_model, layout)  # (B, T, d_model)
    return x, torch.cat(parts, dim=-1), torch.stack(sources)


def task_loss(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean squared error over the task's output features (the rest of the output is free)."""
    return F.mse_loss(output[..., : target.size(-1)], target)


def _data_seed(task_id: str, seed: int) -> int:
    digest = hashlib.blake2b(f"train\x1f{task_id}\x1f{int(seed)}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & 0x7FFF_FFFF_FFFF_FFFF


# --------------------------------------------------------------------------------------------------------------
# Training

MAX_TRAIN_D_MODEL = 128  # training cost grows with d_model^2: beyond this a learner would wait too long
MAX_TRAIN_STEPS = 3000
MAX_TRAIN_SEED = 9999
GOAL = 0.9  # a slot is learned when some head puts, on average over queries, this much weight where it says
SNAPSHOTS = 40  # about this many snapshots of the probe's weights per run
DEFAULT_PROBE = ("the", "cat", "saw", "the", "dog", "and", "the", "dog", "saw", "it")  # TRAIN_LEN tokens, repeats
MAX_PROBE_TOKENS = 32  # snapshots keep (S, H, T, T) weights: 41 x 16 x 32 x 32 float32 = 2.7 MB at most


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the trained parameters. Plain values: a cache key and a link's parameters."""

    task: str = DEFAULT_TASK
    d_model: int = 32
    num_heads: int = 4
    steps: int = 300
    seed: int = 0  # the starting parameters are the random ones of this seed; the batches follow from it too
    layout: str = DEFAULT_LAYOUT  # "split" (content | position) or "added" (the Playground's inputs: stalls)
    seq_len: int = TRAIN_LEN  # tokens per training sequence ("reverse" mirrors around this length)

    @classmethod
    def for_task(cls, task_id: str, **overrides) -> "TrainConfig":
        """The task's default size and step budget, with any field overridden."""
        task = get_task(task_id)
        values = dict(task=task.id, d_model=task.d_model, num_heads=task.num_heads, steps=task.steps)
        values.update(overrides)
        return cls(**values)


def check_config(config: TrainConfig) -> None:
    """Raise ValueError with a learner-facing message if these settings cannot be trained."""
    get_task(config.task)
    _check_layout(config.layout)
    for name in ("d_model", "num_heads", "steps", "seed", "seq_len"):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an integer, got {value!r}.")
    if not (4 <= config.d_model <= MAX_TRAIN_D_MODEL and config.d_model % 2 == 0):
        raise ValueError(f"d_model={config.d_model} cannot be trained here: pick an even d_model from 4 to "
                         f"{MAX_TRAIN_D_MODEL} (content and position take half each).")
    if config.num_heads < 1 or config.d_model % config.num_heads:
        divisors = [h for h in range(1, config.d_model + 1) if config.d_model % h == 0]
        raise ValueError(f"num_heads={config.num_heads} does not divide d_model={config.d_model}: pick one of "
                         f"{divisors}.")
    if not 1 <= config.steps <= MAX_TRAIN_STEPS:
        raise ValueError(f"steps={config.steps} is out of range: pick 1 to {MAX_TRAIN_STEPS}.")
    if not 0 <= config.seed <= MAX_TRAIN_SEED:
        raise ValueError(f"seed={config.seed} is out of range: pick 0 to {MAX_TRAIN_SEED}.")
    if not 2 <= config.seq_len <= 32:
        raise ValueError(f"seq_len={config.seq_len} is out of range: pick 2 to 32 tokens per training sequence.")


@dataclass(frozen=True)
class Progress:
    """Where a run is: yielded by ``Trainer.run`` so a page can draw a progress bar and live charts."""

    step: int  # optimizer steps done
    steps: int  # the budget
    loss: Optional[float]  # loss of the last step's batch; None before the first step
    seconds: float  # spent training so far (not counting the time the consumer kept the run paused)
    snapshot: Optional[np.ndarray] = None  # (H, T, T) weights on the probe after ``step`` steps, when one was taken


class RunSteps:
    """How far a finished or stopped run got: ``TrainResult`` and ``mha.weights.train_runs.TrainRecord`` both carry
    ``config`` (its step budget) and ``losses`` (one per step done)."""

    config: TrainConfig
    losses: np.ndarray

    @property
    def steps_done(self) -> int:
        return int(self.losses.shape[0])

    @property
    def stopped(self) -> bool:
        """True when the run was stopped before its step budget."""
        return self.steps_done < self.config.steps


@dataclass(frozen=True)
class TrainResult(RunSteps):
    """A finished (or stopped) run. Arrays are numpy; ``state_dict`` tensors are CPU copies owned by the result."""

    config: TrainConfig
    state_dict: dict  # loads with strict=True into MultiHeadAttention(d_model, num_heads) and the course's class
    losses: np.ndarray  # (steps_done,) float64: loss of each step's batch, before that step's update
    snapshot_steps: tuple[int, ...]  # (S,) steps after which each snapshot was taken: 0 first, steps_done last
    snapshots: np.ndarray  # (S, H, T, T) float32 weights on the probe sentence
    probe_tokens: tuple[str, ...]  # the probe sentence (T tokens)
    seconds: float  # wall time spent training (snapshots included, the consumer's pauses not)

    def module(self) -> MultiHeadAttention:
        """A fresh module holding the trained parameters (eval mode, no gradients)."""
        return frozen_module(self.config.d_model, self.config.num_heads, self.state_dict)


def frozen_module(d_model: int, num_heads: int, state_dict: dict) -> MultiHeadAttention:
    """A fresh module with these parameters (tensors or numpy arrays, course names), loaded strictly, in eval mode,
    with no gradients: what a finished run hands out (``TrainResult.module``, ``train_runs.TrainRecord.module``)."""
    state_dict = {k: v if isinstance(v, torch.Tensor) else torch.tensor(v) for k, v in state_dict.items()}
    model = MultiHeadAttention(d_model, num_heads)
    model.load_state_dict(state_dict, strict=True)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


class Trainer:
    """One training run, step by step, so a page can show it live and stop it.

        trainer = Trainer(TrainConfig.for_task("previous"), probe_tokens=("the", "cat", "sat"))
        for p in trainer.run():          # a Progress every ``report_every`` steps and at every snapshot
            bar.progress(p.step / p.steps)
            if stop_requested():
                break                    # leaving the loop stops the run after the current step
        result = trainer.result()        # what was learned so far (``result.stopped`` says if it was cut short)

    The module starts from ``init_weights(MultiHeadAttention(d_model, num_heads), seed)``, the Playground's
    random module for that seed, and is trained with Adam on random batches of ``task_batch`` drawn from a
    private generator: the same config gives the same parameters, bit for bit, on one CPU thread.
    """

    def __init__(self, config: TrainConfig, probe_tokens: Optional[Sequence[str]] = None, *,
                 snapshot_every: Optional[int] = None, report_every: int = 10):
        check_config(config)
        self.config = config
        self.probe_tokens = tuple(DEFAULT_PROBE if probe_tokens is None else probe_tokens)
        if not self.probe_tokens:
            raise ValueError("The probe sentence is empty: give at least one token (or None for the default).")
        if len(self.probe_tokens) > MAX_PROBE_TOKENS:
            raise ValueError(f"The probe sentence has {len(self.probe_tokens)} tokens; training follows at most "
                             f"{MAX_PROBE_TOKENS}: shorten it (the trained heads learn on {config.seq_len}-token "
                             f"sequences).")
        if snapshot_every is not None and snapshot_every < 1:
            raise ValueError(f"snapshot_every must be at least 1, got {snapshot_every}.")
        if report_every < 1:
            raise ValueError(f"report_every must be at least 1, got {report_every}.")
        self.snapshot_every = snapshot_every or max(1, config.steps // SNAPSHOTS)
        self.report_every = report_every
        self.model = init_weights(MultiHeadAttention(config.d_model, config.num_heads), config.seed)
        self._probe = layout_inputs(self.probe_tokens, config.d_model, config.seed, config.layout).unsqueeze(0)
        self._gen = torch.Generator().manual_seed(_data_seed(config.task, config.seed))
        self._opt = torch.optim.Adam(self.model.parameters(), lr=LEARNING_RATE)
        self._losses: list[float] = []
        self._snapshot_steps: list[int] = []
        self._snapshots: list[np.ndarray] = []
        self._seconds = 0.0
        self._started = False

    def probe_weights(self) -> np.ndarray:
        """(H, T, T) float32: the module's attention weights on the probe sentence now."""
        with torch.no_grad():
            return self.model.trace(self._probe, self._probe, self._probe).weights[0].numpy().astype(np.float32)

    def _snapshot(self) -> np.ndarray:
        weights = self.probe_weights()
        self._snapshot_steps.append(len(self._losses))
        self._snapshots.append(weights)
        return weights

    def run(self) -> Iterator[Progress]:
        """Train, yielding progress. Can be run once; break out of the loop to stop early."""
        if self._started:
            raise RuntimeError("This Trainer has already run: make a new one to train again.")
        self._started = True
        cfg = self.config
        self.model.train()
        yield Progress(0, cfg.steps, None, 0.0, self._snapshot())
        resumed = time.perf_counter()  # time spent by the consumer between two yields is not training time
        for step in range(1, cfg.steps + 1):
            x, target = task_batch(cfg.task, cfg.d_model, self._gen, BATCH_SIZE, cfg.seq_len, cfg.layout)
            loss = task_loss(self.model(x, x, x), target)
            self._opt.zero_grad(set_to_none=True)
            loss.backward()
            self._opt.step()
            self._losses.append(loss.item())
            snap = self._snapshot() if step % self.snapshot_every == 0 or step == cfg.steps else None
            if snap is not None or step % self.report_every == 0 or step == cfg.steps:
                self._seconds += time.perf_counter() - resumed
                yield Progress(step, cfg.steps, self._losses[-1], self._seconds, snap)
                resumed = time.perf_counter()

    def result(self) -> TrainResult:
        """The run so far: parameters, losses and snapshots (a last snapshot is added if the run stopped between
        two). Call it after ``run`` finished or was left."""
        if not self._snapshot_steps or self._snapshot_steps[-1] != len(self._losses):
            self._snapshot()
        self.model.eval()
        state = {name: t.detach().clone() for name, t in self.model.state_dict().items()}
        return TrainResult(
            config=self.config, state_dict=state, losses=np.asarray(self._losses, dtype=np.float64),
            snapshot_steps=tuple(self._snapshot_steps), snapshots=np.stack(self._snapshots),
            probe_tokens=self.probe_tokens, seconds=self._seconds,
        )


def train(config: TrainConfig, probe_tokens: Optional[Sequence[str]] = None, *,
          on_progress: Optional[Callable[[Progress], bool | None]] = None, **kwargs) -> TrainResult:
    """``Trainer(config, probe_tokens, **kwargs)`` run to the end, or until ``on_progress`` (called with every
    Progress) returns True: the callback form of ``Trainer.run``."""
    trainer = Trainer(config, probe_tokens, **kwargs)
    for progress in trainer.run():
        if on_progress is not None and on_progress(progress):
            break
    return trainer.result()


# Trained modules shared by every visitor, bounded by bytes (mha.core.lru): one at d_model 128 is ~0.26 MB.
TRAINED = ByteLRU("trained modules", max_bytes=32 * 2 ** 20, max_entries=64, ttl=3600)


def trained_key(task: str, d_model: int, num_heads: int, steps: int, seed: int,
                layout: str = DEFAULT_LAYOUT) -> tuple:
    """The plain values a trained module is kept under (``TRAINED``)."""
    return (task, d_model, num_heads, steps, seed, layout)


def trained_module(task: str, d_model: int, num_heads: int, steps: int, seed: int,
                   layout: str = DEFAULT_LAYOUT, *, drive: Optional[Callable[[Iterator[Progress]], object]] = None
                   ) -> MultiHeadAttention:
    """The trained module for these plain values, trained once per process and shared: never mutate it (use
    ``trace(head_mask=...)`` to switch heads off). Visitors asking for the same settings at the same time wait for
    one training instead of each running their own. Raises ValueError for settings that cannot be trained.

    ``drive``: what iterates the training's step groups (``Trainer.run``), e.g. ``mha.app.runs.drive``, which stops
    it when nobody waits for it any more by raising: then nothing is kept. By default it runs to the end."""
    key = trained_key(task, d_model, num_heads, steps, seed, layout)

    def compute() -> MultiHeadAttention:
        # A step group of one step: ``drive`` can stop it within one optimizer step (~10 ms at d_model 128 on an
        # idle core); what is trained does not depend on how often it reports.
        trainer = Trainer(TrainConfig(task=task, d_model=d_model, num_heads=num_heads, steps=steps, seed=seed,
                                      layout=layout), report_every=1)
        steps_ = trainer.run()
        if drive is None:
            for _ in steps_:
                pass
        else:
            drive(steps_)
        return trainer.result().module()

    return TRAINED.get_or_compute(key, compute)


def trained_ready(key: tuple) -> bool:
    """Whether the module for ``trained_key(...)`` is trained and kept (a view of it is then light work)."""
    return TRAINED.lookup(key)[0]


# --------------------------------------------------------------------------------------------------------------
# How close each head got, and what any head does


def pattern_scores(weights, patterns) -> np.ndarray:
    """(P, H) in [0, 1]: how close each head's weights (H, T, T) are to each pattern (P, T, T), as
    1 - the mean over queries of the total variation distance between the two rows (1 = the same row; for a
    one-key pattern it is the weight on that key). Rows whose weights are all 0 (fully masked) are left out."""
    w = np.asarray(weights, dtype=np.float64)
    p = np.asarray(patterns, dtype=np.float64)
    if w.ndim != 3 or p.ndim != 3 or w.shape[1:] != p.shape[1:] or w.shape[1] != w.shape[2]:
        raise ValueError(f"weights must be (H, T, T) and patterns (P, T, T) for the same T: got weights "
                         f"{w.shape} and patterns {p.shape} (self-attention only: Tq must equal Tk).")
    live = w.sum(axis=-1) > 0  # (H, T) rows that attend somewhere
    tv = 0.5 * np.abs(w[None] - p[:, None]).sum(axis=-1)  # (P, H, T)
    n = np.maximum(live.sum(axis=-1), 1)  # (H,)
    return np.clip(1.0 - (tv * live[None]).sum(axis=-1) / n, 0.0, 1.0)  # (P, H)


@dataclass(frozen=True)
class SlotScore:
    """How well the heads do one slot of a task: the best head, its score and the share of queries it serves."""

    slot: str  # the slot's pattern
    head: int  # the head that puts most weight where the slot says
    score: float  # that head's mean weight on the right key, over queries (and batch)
    at_goal: float  # share of queries where that head's weight on the right key is >= GOAL
    per_head: tuple[float, ...]  # every head's mean weight on the right key


def slot_scores(module: MultiHeadAttention, task_id: str, layout: str = DEFAULT_LAYOUT, *, seq_len: int = TRAIN_LEN,
                batch_size: int = 256, seed: int = 12345) -> list[SlotScore]:
    """How well a module does each slot of a task on fresh random batches like the training ones."""
    gen = torch.Generator().manual_seed(seed)
    x, _, sources = _batch(task_id, module.d_model, gen, batch_size, seq_len, layout)
    with torch.no_grad():
        weights = module.trace(x, x, x).weights  # (B, H, T, T)
    out = []
    for name, src in zip(get_task(task_id).slots, sources):  # src: (B, T)
        index = src[:, None, :, None].expand(-1, weights.size(1), -1, 1)  # (B, H, T, 1)
        on_target = torch.gather(weights, 3, index).squeeze(-1).double()  # (B, H, T)
        per_head = on_target.mean(dim=(0, 2))  # (H,)
        best = int(per_head.argmax())
        out.append(SlotScore(slot=name, head=best, score=float(per_head[best]),
                             at_goal=float((on_target[:, best] >= GOAL).double().mean()),
                             per_head=tuple(float(v) for v in per_head)))
    return out


def reached_goal(scores: Sequence[SlotScore], goal: float = GOAL) -> bool:
    """Every slot has a head putting at least ``goal`` of its weight, on average, where the slot says."""
    return all(s.score >= goal for s in scores)


@dataclass(frozen=True)
class HeadMatch:
    """A head's best-matching known pattern."""

    head: int
    pattern: str  # one of PATTERNS
    score: float  # in [0, 1], see ``pattern_scores``
    scores: dict = field(default_factory=dict)  # every pattern tried -> its score
    sink: Optional[str] = None  # a broad head's sink: "first", "last" or "special" (SINK_SHARE of its weight)
    sink_share: float = 0.0  # mean weight, over queries, on that sink's keys


def _patterns_for(T: int, tokens: Optional[Sequence]) -> list[str]:
    """The patterns that mean something on T positions with these tokens (see PATTERNS)."""
    names = [n for n in PATTERNS if n not in ("same_word", "special") or tokens is not None]
    if "special" in names:
        inner = sink_keys(tokens)[1:-1]  # a sink only at the first / last position is "first" / "last"
        if not inner.any():
            names.remove("special")
    return names


def sink_shares(weights, tokens: Optional[Sequence] = None) -> dict[str, np.ndarray]:
    """Per sink ("first", "last" and, with tokens holding some, "special"), each head's mean weight over its live
    queries on that sink's keys, (H,) each; and "_even": the share an even spread would give it, (H,)."""
    w = np.asarray(weights, dtype=np.float64)
    T = w.shape[-1]
    live = w.sum(axis=-1) > 0  # (H, Tq)
    n = np.maximum(live.sum(axis=-1), 1)  # (H,)
    keys = {"first": np.arange(T) == 0, "last": np.arange(T) == T - 1}
    sinks = sink_keys(tokens)
    if len(sinks) == T and sinks[1:-1].any():
        keys["special"] = sinks
    out = {}
    for name, on in keys.items():
        out[name] = (w[..., on].sum(axis=-1) * live).sum(axis=-1) / n  # (H,)
        out["_even_" + name] = np.full(w.shape[0], on.sum() / T)
    return out


def match_heads(weights, tokens: Optional[Sequence] = None, allowed=None) -> list[HeadMatch]:
    """For each head of ``weights`` (H, T, T), the known pattern it is closest to (``PATTERNS``), trained or
    random. "same_word" (look at the first place this word appears) is tried only when the T tokens are given,
    "special" (special tokens and punctuation as sinks) only when they hold one between the first and the last;
    ``allowed`` (T, T) bool (True = may attend) makes "spread" uniform over the keys a query may attend to.
    Ties go to the pattern listed first in PATTERNS ("self" before "same_word" in a sentence without repeats).

    A broad ("spread") head that still parks SINK_SHARE of its weight, and twice an even share, on one sink
    (the first token or the last; else the special tokens and punctuation) carries it as ``sink`` / ``sink_share``:
    real models' heads often put a third of their weight on [CLS] and spread the rest."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 3 or w.shape[1] != w.shape[2]:
        raise ValueError(f"weights must have shape (H, T, T) (self-attention), got {w.shape}.")
    T = w.shape[1]
    if tokens is not None and len(tokens) != T:
        raise ValueError(f"The weights have {T} positions, while the number of tokens is {len(tokens)}.")
    names = _patterns_for(T, tokens)
    scores = pattern_scores(w, np.stack([pattern_matrix(n, T, tokens, allowed) for n in names]))  # (P, H)
    shares = sink_shares(w, tokens)
    out = []
    for h in range(w.shape[0]):
        best = int(np.argmax(scores[:, h]))  # the first of equal maxima
        sink, share = None, 0.0
        if names[best] == "spread":
            found = {k: float(shares[k][h]) for k in ("first", "last", "special") if k in shares
                     and shares[k][h] >= SINK_SHARE and shares[k][h] >= 2 * shares["_even_" + k][h]}
            one = [(v, k) for k, v in found.items() if k != "special"]  # one token says more than a set
            if one or found:
                share, sink = max(one) if one else (found["special"], "special")
        out.append(HeadMatch(head=h, pattern=names[best], score=float(scores[best, h]),
                             scores={n: float(scores[i, h]) for i, n in enumerate(names)}, sink=sink,
                             sink_share=share))
    return out


def pattern_label(pattern: str, labels: Optional[Sequence] = None, sink: Optional[str] = None,
                  share: float = 0.0) -> tuple[str, dict]:
    """The string key (mha/strings/train.py) naming a matched pattern, and its fields: on a model's tokens the name
    says which token ("[CLS] (first token)", "[SEP] (last token)", "broad, 0.33 on [CLS]"). ``labels``: the
    display-safe labels of the T tokens the pattern was matched on (None: the plain names)."""
    def on(where: str) -> tuple[str, dict]:
        if labels is not None and len(labels) and where in ("first", "last"):
            token = labels[0] if where == "first" else labels[-1]
            if is_special_token(token):
                return f"tr_pattern_{where}_token", {"token": str(token)}
        if where == "special" and labels is not None:
            sinks = sink_keys(labels)
            named = list(dict.fromkeys(str(x) for x, s in zip(labels, sinks) if s))
            return "tr_pattern_special_named", {"tokens": ", ".join(named[:4]) + (", …" if len(named) > 4 else "")}
        return f"tr_pattern_{where}", {}

    if pattern == "spread" and isinstance(sink, str):  # a table's missing sink may come back as NaN
        key, fields = on(sink)
        return "tr_pattern_spread_sink", {"share": f"{share:.2f}", "sink_key": key, **fields}
    if pattern in ("first", "last", "special"):
        return on(pattern)
    return f"tr_pattern_{pattern}", {}


CLEAR_SCORE = 0.5  # below: the closest pattern is named as only that ("no clear pattern; closest: ...")


def pattern_text(pattern: str, lang: str, labels: Optional[Sequence] = None, sink: Optional[str] = None,
                 share: float = 0.0, score: Optional[float] = None) -> str:
    """``pattern_label`` in words, in ``lang`` (plain text: the labels are display-safe). With ``score`` below
    CLEAR_SCORE the name says that the head is only closest to it."""
    from mha.core.i18n import text

    key, fields = pattern_label(pattern, labels, sink, share)
    if "sink_key" in fields:
        inner = {k: v for k, v in fields.items() if k not in ("share", "sink_key")}
        name = text(key, lang, share=fields["share"], sink=text(fields["sink_key"], lang, **inner))
    else:
        name = text(key, lang, **fields)
    return name if score is None or score >= CLEAR_SCORE else text("tr_pattern_unclear", lang, closest=name)
