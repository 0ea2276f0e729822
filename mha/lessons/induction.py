"""Two layers of the course's MultiHeadAttention growing an induction head (issue #18). Pure torch, no Streamlit.

The model is attention only (Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"):

    x      = token_embedding[tokens] + position_embedding[:T]          (B, T, d_model)  learned, both
    x      = x + layers[0](x, x, x, causal mask)                       layer 1: e.g. a "previous token" head
    x      = x + layers[1](x, x, x, causal mask)                       layer 2: e.g. an induction head
    logits = unembedding(x)                                            (B, T, vocab_size)

``layers[0]`` and ``layers[1]`` are ``mha.MultiHeadAttention``, so each layer's state_dict loads into the course's
class (``export_layers``). The data are random tokens with one random block written a second time at a random later
place (``repeat_batch``): the tokens of the copy can only be predicted by finding where the current token appeared
before and reading the token after it, because *where* the copy starts changes from sequence to sequence (with a
fixed offset a purely positional head solves it without any induction).

What to expect (Olsson et al. 2022, "In-context Learning and Induction Heads"): the loss sits on a plateau near
ln(vocab_size) (every token is a fresh random draw, nothing to predict), then drops within a few hundred steps —
the phase change — while a layer-1 head learns to attend to the previous token and the layer-2 heads learn to attend
to "the token after the previous occurrence of my token". The second head reads keys that the first head has already
shifted by one position (K-composition).

Main entry points:
    config = InductionConfig(seed=0)                 # every setting; deterministic for (config) on CPU
    for cp in train_steps(config): ...               # a Checkpoint every config.report_every steps (stop = break)
    run = train_run(config, on_checkpoint=...)       # the same, collected; the callback returns True to stop
    find_phase_change(run.losses, vocab_size=64)     # where the plateau ends and the drop happens
    ablate_head(run.model, head=h)                   # a layer-1 head off: induction score and copy loss, on / off
    ablate_each(run.model)                           # ... for every layer-1 head
    tt = map_text("the cat sat on the mat.")         # words -> token ids (documented in ``word_id``), repeated
    att = attend_text(run.model, tt)                 # layer-1 and layer-2 attention weights (H, T, T) on it
    export_layers(run.model)                         # two .pt files for the course's class
"""
from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Optional, Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from mha.core.attention import AttentionTrace, MultiHeadAttention
from mha.core.masks import causal_mask
from mha.core.tokens import tokenize
from mha.lessons.heads import head_mask_for
from mha.weights.export import state_dict_bytes

EVAL_SEED = 20_221_208  # the held-out sequences: one fixed set for every training seed, never trained on
NUM_LAYERS = 2


# ----------------------------------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class InductionConfig:
    """Everything a run depends on. The same config gives the same parameters, bit for bit, on CPU with the same
    number of torch threads (the app and the tests use one)."""

    seed: int = 0  # parameters' initialisation and training data
    steps: int = 600  # the step budget (one step = one Adam update on one batch); the drop comes at ~200-300
    vocab_size: int = 64  # token ids 0 .. vocab_size-1, drawn uniformly
    d_model: int = 64  # width of the residual stream
    num_heads: int = 4  # heads per layer (d_model must be divisible by it, as in the course)
    seq_len: int = 32  # tokens per training sequence: also the longest text the model can read
    block_len: int = 12  # the repeated block: its second copy is what induction can predict
    batch_size: int = 64
    lr: float = 5e-3  # Adam, constant: 3e-3 took ~30% more steps to the drop, 8e-3 more too (bench/REPORT.md)
    report_every: int = 10  # a Checkpoint (losses, scores on held-out sequences) every this many steps
    snapshot_every: int = 20  # a Checkpoint also keeps the parameters (~170 kB) every this many steps and at the end
    eval_size: int = 64  # held-out sequences the scores are measured on (a measurement costs ~half a step)

    def check(self) -> "InductionConfig":
        """Raise ValueError saying what to change; return self."""
        for name in ("steps", "vocab_size", "d_model", "num_heads", "seq_len", "block_len", "batch_size",
                     "report_every", "snapshot_every", "eval_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}.")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**63:
            raise ValueError(f"seed must be an integer from 0 to 2**63 - 1, got {self.seed!r}.")
        if not (isinstance(self.lr, (int, float)) and math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be a positive number, got {self.lr!r}.")
        if self.d_model % self.num_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by num_heads ({self.num_heads}).")
        if self.block_len < 2 or 2 * self.block_len > self.seq_len:
            raise ValueError(
                f"block_len must be from 2 to seq_len / 2 = {self.seq_len // 2} (the block and its copy must both "
                f"fit in one sequence), got {self.block_len}."
            )
        if self.vocab_size < 2:
            raise ValueError(f"vocab_size must be at least 2, got {self.vocab_size}.")
        return self


# --------------------------------------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class ModelTrace:
    """One pass of the two-layer model with every attention intermediate."""

    logits: torch.Tensor  # (B, T, vocab_size): the prediction of the NEXT token at each position
    layers: tuple[AttentionTrace, ...]  # one per layer: .weights (B, H, T, T), .scores, .q, .k, .v, ...
    residual: tuple[torch.Tensor, ...]  # (B, T, d_model) the stream before layer 1, after layer 1, after layer 2


class InductionModel(nn.Module):
    """Token + learned position embeddings, two course-compatible attention layers with a causal mask and residual
    connections, a linear unembedding. No MLP, no layer norm: every computation is attention or linear."""

    def __init__(self, vocab_size: int = 64, d_model: int = 64, num_heads: int = 4, seq_len: int = 32):
        super().__init__()
        self.vocab_size, self.d_model, self.num_heads, self.seq_len = vocab_size, d_model, num_heads, seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(seq_len, d_model)
        self.layers = nn.ModuleList(MultiHeadAttention(d_model, num_heads) for _ in range(NUM_LAYERS))
        self.unembedding = nn.Linear(d_model, vocab_size)

    @classmethod
    def from_config(cls, config: InductionConfig) -> "InductionModel":
        """A freshly initialised model: parameters drawn from a private generator seeded with ``config.seed``
        (the global RNG is never touched, so concurrent runs cannot disturb each other)."""
        config.check()
        with torch.device("meta"):  # shapes only: nn.Linear / nn.Embedding would draw from the global RNG
            model = cls(config.vocab_size, config.d_model, config.num_heads, config.seq_len)
        model = model.to_empty(device="cpu")
        g = torch.Generator().manual_seed(config.seed)
        with torch.no_grad():
            for name, p in model.named_parameters():  # registration order: fixed by __init__
                if name in ("token_embedding.weight", "position_embedding.weight"):
                    p.normal_(0.0, 1.0, generator=g)  # nn.Embedding's default
                else:  # nn.Linear's default, U(-1/sqrt(fan_in), 1/sqrt(fan_in)), for weights and biases alike
                    fan_in = p.size(-1) if p.dim() > 1 else model.d_model
                    bound = 1.0 / math.sqrt(fan_in)
                    p.uniform_(-bound, bound, generator=g)
        return model

    def run(self, tokens: torch.Tensor, head_masks: Optional[Sequence[Optional[torch.Tensor]]] = None) -> ModelTrace:
        """Run on token ids (B, T) or (T,), T <= seq_len. ``head_masks``: one (H,) 0/1 per layer (or None = all
        heads on), passed to ``MultiHeadAttention.trace(head_mask=...)``: a head at 0 adds nothing to the stream."""
        tokens = self._check_tokens(tokens)
        if head_masks is None:
            head_masks = (None,) * NUM_LAYERS
        if len(head_masks) != NUM_LAYERS:
            raise ValueError(f"head_masks needs one entry per layer ({NUM_LAYERS}), got {len(head_masks)}.")
        T = tokens.size(1)
        x = self.token_embedding(tokens) + self.position_embedding.weight[:T]  # (B, T, d_model)
        allowed = causal_mask(T)  # (T, T): query i reads keys 0..i
        residual, traces = [x], []
        for layer, head_mask in zip(self.layers, head_masks):
            tr = layer.trace(x, x, x, mask=allowed, head_mask=head_mask)
            x = x + tr.output  # residual connection: layer 2 reads the embeddings AND what layer 1 wrote
            residual.append(x)
            traces.append(tr)
        return ModelTrace(logits=self.unembedding(x), layers=tuple(traces), residual=tuple(residual))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.run(tokens).logits  # (B, T, vocab_size)

    def _check_tokens(self, tokens) -> torch.Tensor:
        if not isinstance(tokens, torch.Tensor):
            tokens = torch.as_tensor(tokens)
        if tokens.dim() == 1:
            tokens = tokens.unsqueeze(0)
        if tokens.dim() != 2 or tokens.dtype not in (torch.int64, torch.int32) or tokens.numel() == 0:
            raise ValueError(f"tokens must be integer ids of shape (batch, length) or (length,), got "
                             f"{tuple(tokens.shape)} {tokens.dtype}.")
        if tokens.size(1) > self.seq_len:
            raise ValueError(f"{tokens.size(1)} tokens, but the model has positions for {self.seq_len}: "
                             f"shorten the sequence to at most {self.seq_len} tokens.")
        if int(tokens.min()) < 0 or int(tokens.max()) >= self.vocab_size:
            raise ValueError(f"token ids must be from 0 to {self.vocab_size - 1}, got {int(tokens.min())} .. "
                             f"{int(tokens.max())}: map words with map_text.")
        return tokens.long()


# ---------------------------------------------------------------------------------------------------------- the data
@dataclass(frozen=True)
class RepeatBatch:
    tokens: torch.Tensor  # (B, T) int64
    first: torch.Tensor  # (B,) where the block starts
    second: torch.Tensor  # (B,) where its copy starts (second >= first + block_len: the two never overlap)
    block_len: int

    def copy_positions(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(queries, keys), each (B, block_len - 1): at query ``second + j`` (the copy of token ``first + j``) the
        next token is predictable, and an induction head attends to key ``first + j + 1``, the token after the
        previous occurrence of the query's token."""
        j = torch.arange(self.block_len - 1)
        return self.second[:, None] + j, self.first[:, None] + j + 1


def _block_starts(seq_len: int, block_len: int) -> torch.Tensor:
    """Every (first, second) with the block and its copy inside seq_len and not overlapping: (n, 2)."""
    pairs = [(a, b) for a in range(seq_len) for b in range(a + block_len, seq_len - block_len + 1)]
    return torch.tensor(pairs, dtype=torch.long)


def repeat_batch(generator: torch.Generator, batch_size: int, seq_len: int = 32, block_len: int = 12,
                 vocab_size: int = 64) -> RepeatBatch:
    """Uniform random tokens; in each sequence one block of ``block_len`` tokens is written again later. Where the
    block and its copy start is drawn uniformly from every placement that fits, so position alone cannot find it."""
    tokens = torch.randint(0, vocab_size, (batch_size, seq_len), generator=generator)  # (B, T)
    pairs = _block_starts(seq_len, block_len)
    first, second = pairs[torch.randint(0, len(pairs), (batch_size,), generator=generator)].unbind(1)  # (B,) each
    j = torch.arange(block_len)
    tokens.scatter_(1, second[:, None] + j, tokens.gather(1, first[:, None] + j))
    return RepeatBatch(tokens=tokens, first=first, second=second, block_len=block_len)


def eval_batch(config: InductionConfig) -> RepeatBatch:
    """The held-out sequences of a config: drawn from EVAL_SEED, so the same for every training seed."""
    return repeat_batch(torch.Generator().manual_seed(EVAL_SEED), config.eval_size, config.seq_len,
                        config.block_len, config.vocab_size)


# -------------------------------------------------------------------------------------------------------- the scores
def next_token_loss(logits: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of predicting token t+1 at position t, over every position (nats)."""
    V = logits.size(-1)
    return F.cross_entropy(logits[:, :-1].reshape(-1, V), tokens[:, 1:].reshape(-1))


def copy_loss(logits: torch.Tensor, batch: RepeatBatch) -> float:
    """Mean cross-entropy on the predictable tokens only: the 2nd .. last token of the copy (nats)."""
    queries, _ = batch.copy_positions()  # (B, L-1)
    rows = torch.arange(batch.tokens.size(0))[:, None]
    return float(F.cross_entropy(logits[rows, queries].reshape(-1, logits.size(-1)),
                                 batch.tokens[rows, queries + 1].reshape(-1)))


def induction_scores(weights: torch.Tensor, batch: RepeatBatch) -> np.ndarray:
    """(H,) per layer-2 head: its mean attention weight, from each predictable query in the copy, on the key just
    after the previous occurrence of the query's token. 1 = a perfect induction head; about 1 / (position + 1) for a
    head that spreads evenly. ``weights``: (B, H, T, T)."""
    queries, keys = batch.copy_positions()  # (B, L-1) each
    rows = torch.arange(weights.size(0))[:, None]
    return weights[rows, :, queries, keys].mean(dim=(0, 1)).numpy().astype(np.float64)  # (B, L-1, H) -> (H,)


def previous_token_scores(weights: torch.Tensor) -> np.ndarray:
    """(H,) per layer-1 head: its mean attention weight from each query (but the first) on the token just before it.
    1 = a perfect previous-token head. ``weights``: (B, H, T, T)."""
    t = torch.arange(1, weights.size(-1))
    return weights[:, :, t, t - 1].mean(dim=(0, 2)).numpy().astype(np.float64)  # (B, H, T-1) -> (H,)


def duplicate_token_scores(weights: torch.Tensor, batch: RepeatBatch) -> np.ndarray:
    """(H,) per layer-1 head: its mean attention weight, from each predictable query in the copy, on the earlier
    occurrence of the same token. Some seeds grow this instead of a previous-token head: layer 1 then finds the
    earlier occurrence by content and layer 2 reads the position after it (Q-composition instead of K-composition).
    ``weights``: (B, H, T, T)."""
    queries, keys = batch.copy_positions()
    rows = torch.arange(weights.size(0))[:, None]
    return weights[rows, :, queries, keys - 1].mean(dim=(0, 1)).numpy().astype(np.float64)


@dataclass(frozen=True)
class Measurement:
    loss: float  # next-token loss over every position of the held-out sequences
    copy_loss: float  # on the predictable tokens of the copy only
    induction_scores: np.ndarray  # (H,) layer-2 heads
    previous_token_scores: np.ndarray  # (H,) layer-1 heads
    duplicate_token_scores: np.ndarray  # (H,) layer-1 heads


def measure(model: InductionModel, batch: RepeatBatch,
            head_masks: Optional[Sequence[Optional[torch.Tensor]]] = None) -> Measurement:
    """Losses and scores on held-out sequences (no gradient)."""
    with torch.no_grad():
        tr = model.run(batch.tokens, head_masks)
    return Measurement(
        loss=float(next_token_loss(tr.logits, batch.tokens)), copy_loss=copy_loss(tr.logits, batch),
        induction_scores=induction_scores(tr.layers[1].weights, batch),
        previous_token_scores=previous_token_scores(tr.layers[0].weights),
        duplicate_token_scores=duplicate_token_scores(tr.layers[0].weights, batch),
    )


# ------------------------------------------------------------------------------------------------------------ training
@dataclass(frozen=True)
class Checkpoint:
    """What training reports every ``report_every`` steps (and at step 0 and the last step)."""

    step: int  # updates done so far (0 = the initial parameters)
    losses: tuple[float, ...]  # training loss of each step since the previous checkpoint (steps step-len+1 .. step)
    measured: Measurement  # on the held-out sequences, with the parameters after ``step`` updates
    parameters: Optional[dict[str, torch.Tensor]]  # a copy of the model's state_dict, every snapshot_every steps
    seconds: float  # wall time spent training and measuring so far, not counting the time the consumer held the
    #                 generator between two checkpoints (drawing a chart); the only field that is not deterministic

    @property
    def loss(self) -> float:
        """Mean training loss since the previous checkpoint (the held-out loss at step 0)."""
        return float(np.mean(self.losses)) if self.losses else self.measured.loss


def train_steps(config: InductionConfig = InductionConfig(), *,
                model: Optional[InductionModel] = None) -> Iterator[Checkpoint]:
    """Train, yielding a Checkpoint at step 0, every ``config.report_every`` steps and at the last step. To stop
    early, stop iterating (``break`` or ``close()``): nothing runs between two checkpoints you did not ask for.

    ``model``: optional, a model to train in place (it must come from ``InductionModel.from_config(config)`` for the
    run to be the config's); by default a fresh one. Uses whatever torch's thread count is: set
    ``torch.set_num_threads(1)`` for the app's numbers (determinism holds for a fixed thread count)."""
    config.check()
    model = InductionModel.from_config(config) if model is None else model
    model.train()
    held_out = eval_batch(config)
    data = torch.Generator().manual_seed(config.seed ^ 0x5EED_DA7A)  # training data: apart from the init stream
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    spent, resumed = 0.0, time.perf_counter()

    def checkpoint(step: int, losses: list[float]) -> Checkpoint:
        nonlocal spent
        keep = step % config.snapshot_every == 0 or step == config.steps
        params = {k: v.detach().clone() for k, v in model.state_dict().items()} if keep else None
        measured = measure(model, held_out)
        spent += time.perf_counter() - resumed
        return Checkpoint(step=step, losses=tuple(losses), measured=measured, parameters=params, seconds=spent)

    yield checkpoint(0, [])
    resumed = time.perf_counter()
    losses: list[float] = []
    for step in range(1, config.steps + 1):
        batch = repeat_batch(data, config.batch_size, config.seq_len, config.block_len, config.vocab_size)
        loss = next_token_loss(model(batch.tokens), batch.tokens)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % config.report_every == 0 or step == config.steps:
            yield checkpoint(step, losses)
            resumed = time.perf_counter()  # the consumer's time between two checkpoints is not training time
            losses = []


@dataclass(frozen=True)
class History:
    """The checkpoints' measurements as arrays, for charts against steps (works on a partial list, live)."""

    steps: np.ndarray  # (N,) int: the checkpoints' steps
    train_loss: np.ndarray  # (N,) mean training loss since the previous checkpoint (held-out loss at step 0)
    loss: np.ndarray  # (N,) held-out next-token loss
    copy_loss: np.ndarray  # (N,) held-out loss on the predictable tokens of the copy
    induction_scores: np.ndarray  # (N, H) layer-2 heads
    previous_token_scores: np.ndarray  # (N, H) layer-1 heads
    duplicate_token_scores: np.ndarray  # (N, H) layer-1 heads

    def first_step(self, threshold: float = 0.5) -> Optional[int]:
        """The first checkpoint step at which the best layer-2 induction score reached ``threshold``."""
        hit = np.flatnonzero(self.induction_scores.max(axis=1) >= threshold) if self.steps.size else []
        return int(self.steps[hit[0]]) if len(hit) else None


def history(checkpoints: Sequence[Checkpoint]) -> History:
    if not checkpoints:
        raise ValueError("no checkpoints yet: train_steps yields the first one (step 0) before any update.")
    ms = [cp.measured for cp in checkpoints]
    return History(
        steps=np.array([cp.step for cp in checkpoints]), train_loss=np.array([cp.loss for cp in checkpoints]),
        loss=np.array([m.loss for m in ms]), copy_loss=np.array([m.copy_loss for m in ms]),
        induction_scores=np.stack([m.induction_scores for m in ms]),
        previous_token_scores=np.stack([m.previous_token_scores for m in ms]),
        duplicate_token_scores=np.stack([m.duplicate_token_scores for m in ms]),
    )


@dataclass
class InductionRun:
    """A finished (or stopped) run: the trained model and everything reported on the way."""

    config: InductionConfig
    model: InductionModel  # parameters after the last step done
    checkpoints: list[Checkpoint] = field(default_factory=list)
    stopped: bool = False  # True when on_checkpoint stopped it before config.steps

    @property
    def steps_done(self) -> int:
        return self.checkpoints[-1].step if self.checkpoints else 0

    @property
    def losses(self) -> list[float]:
        """Training loss of every step, steps 1 .. steps_done (index i = step i + 1)."""
        return [x for cp in self.checkpoints for x in cp.losses]

    def history(self) -> History:
        return history(self.checkpoints)

    def phase_change(self) -> "PhaseChange":
        return find_phase_change(self.losses, vocab_size=self.config.vocab_size)

    def snapshot_steps(self) -> list[int]:
        return [cp.step for cp in self.checkpoints if cp.parameters is not None]

    def model_at(self, step: int) -> InductionModel:
        """A model with the parameters of the latest snapshot at or before ``step`` (for scrubbing back)."""
        kept = [cp for cp in self.checkpoints if cp.parameters is not None and cp.step <= step]
        if not kept:
            raise ValueError(f"no snapshot at or before step {step}; snapshots: {self.snapshot_steps()}.")
        c = self.config
        model = InductionModel(c.vocab_size, c.d_model, c.num_heads, c.seq_len)
        model.load_state_dict(kept[-1].parameters, strict=True)
        return model.eval()


def train_run(config: InductionConfig = InductionConfig(), *,
              on_checkpoint: Optional[Callable[[Checkpoint], Optional[bool]]] = None) -> InductionRun:
    """``train_steps`` collected into an InductionRun: the callback form (as ``mha.weights.train.train``).
    ``on_checkpoint`` is called with each Checkpoint (e.g. to draw the loss curve live); returning True stops
    training there, and the run's last checkpoint then keeps the parameters (``run.stopped`` is True)."""
    model = InductionModel.from_config(config)
    run = InductionRun(config=config, model=model)
    steps = train_steps(config, model=model)
    for cp in steps:
        run.checkpoints.append(cp)
        if on_checkpoint is not None and on_checkpoint(cp) and cp.step < config.steps:
            if cp.parameters is None:
                run.checkpoints[-1] = replace(cp, parameters={k: v.detach().clone()
                                                              for k, v in model.state_dict().items()})
            run.stopped = True
            steps.close()
            break
    model.eval()
    return run


# ------------------------------------------------------------------------------------------------- the phase change
@dataclass(frozen=True)
class PhaseChange:
    """Where the loss curve sits still and where it falls. Steps are 1-based training steps; None = not (yet) seen.

    plateau_start: the first step whose smoothed loss is within ``PLATEAU_MARGIN`` of ln(vocab_size), the loss of
                   a model that predicts every token uniformly (the fall from the random initial loss is over);
    plateau_end:   the last step before the drop whose smoothed loss is still above plateau_loss - 10% of the drop;
    drop_step:     the phase change: the first step whose smoothed loss is half-way from plateau_loss down to
                   after_loss (None when the curve fell less than ``MIN_DROP`` below the plateau);
    plateau_loss:  the median smoothed loss from plateau_start until the drop begins;
    after_loss:    the lowest smoothed loss after the plateau."""

    plateau_start: Optional[int]
    plateau_end: Optional[int]
    drop_step: Optional[int]
    plateau_loss: Optional[float]
    after_loss: Optional[float]
    window: int  # the moving average's length (steps)

    @property
    def dropped(self) -> bool:
        return self.drop_step is not None


PLATEAU_MARGIN = 0.05  # nats above ln(vocab_size)
MIN_DROP = 0.2  # nats below the plateau before a drop counts as the phase change


def smooth(losses: Sequence[float], window: int) -> np.ndarray:
    """Trailing moving average (the first values average what there is so far)."""
    x = np.asarray(losses, dtype=np.float64)
    if x.size == 0:
        return x
    c = np.cumsum(np.concatenate([[0.0], x]))
    n = np.minimum(np.arange(1, x.size + 1), window)
    return (c[1:] - c[np.arange(1, x.size + 1) - n]) / n


def find_phase_change(losses: Sequence[float], *, vocab_size: int = 64, window: int = 25) -> PhaseChange:
    """Find the plateau and the drop in a curve of per-step training losses (``InductionRun.losses``); works on a
    partial curve too, so a page can mark them while training runs (the marks can move as more steps arrive)."""
    s = smooth(losses, window)
    none = PhaseChange(None, None, None, None, None, window)
    if s.size == 0 or not np.isfinite(s).all():
        return none
    level = math.log(vocab_size)
    near = np.flatnonzero(s <= level + PLATEAU_MARGIN)
    if near.size == 0:
        return none
    p0 = int(near[0])
    low = float(s[p0:].min())
    # the plateau: from p0 until the curve is a quarter of the way down to its lowest point (or to the end)
    below = np.flatnonzero(s[p0:] < level - 0.25 * max(level - low, MIN_DROP))
    p_end = p0 + int(below[0]) if below.size else s.size
    plateau = float(np.median(s[p0:max(p_end, p0 + 1)]))
    if plateau - low < MIN_DROP:
        return PhaseChange(p0 + 1, None, None, plateau, low, window)
    half = np.flatnonzero(s[p0:] <= (plateau + low) / 2)
    drop = p0 + int(half[0])
    still = np.flatnonzero(s[p0:drop] >= plateau - 0.1 * (plateau - low))
    end = p0 + int(still[-1]) if still.size else p0
    return PhaseChange(p0 + 1, end + 1, drop + 1, plateau, low, window)


# ---------------------------------------------------------------------------------------------------------- ablation
@dataclass(frozen=True)
class InductionAblation:
    layer: int  # 0 = layer 1
    head: int  # the head switched off
    on: Measurement  # every head on
    off: Measurement  # that head off

    @property
    def induction_drop(self) -> float:
        """How much the best layer-2 induction score fell."""
        return float(self.on.induction_scores.max() - self.off.induction_scores.max())


def ablate_head(model: InductionModel, head: int, *, layer: int = 0, batch: Optional[RepeatBatch] = None,
                config: Optional[InductionConfig] = None) -> InductionAblation:
    """Switch one head off (``trace(head_mask=...)``, parameters untouched) and measure on held-out sequences
    (``batch``, by default ``eval_batch`` of ``config`` or of the model's sizes)."""
    if not (0 <= layer < NUM_LAYERS):
        raise ValueError(f"layer must be 0 (layer 1) or 1 (layer 2), got {layer}.")
    if not (0 <= head < model.num_heads):
        raise ValueError(f"head must be from 0 to {model.num_heads - 1}, got {head}.")
    batch = batch if batch is not None else _default_batch(model, config)
    return InductionAblation(layer=layer, head=head, on=measure(model, batch),
                             off=measure(model, batch, layer_head_masks(model, layer, [head])))


def layer_head_masks(model: InductionModel, layer: int, heads_off: Sequence[int]) -> list[Optional[torch.Tensor]]:
    """``head_masks`` for ``InductionModel.run`` / ``attend_text``: ``heads_off`` of ``layer`` (0 = layer 1) off,
    every other head on (the (H,) mask of one layer is ``mha.lessons.heads.head_mask_for``'s)."""
    if not 0 <= layer < NUM_LAYERS:
        raise ValueError(f"layer must be 0 (layer 1) or 1 (layer 2), got {layer}.")
    masks: list[Optional[torch.Tensor]] = [None] * NUM_LAYERS
    masks[layer] = head_mask_for(model.num_heads, heads_off)  # (H,) 1 = kept; unknown heads raise
    return masks


def ablate_each(model: InductionModel, *, layer: int = 0, batch: Optional[RepeatBatch] = None,
                config: Optional[InductionConfig] = None) -> tuple[InductionAblation, ...]:
    """``ablate_head`` for every head of one layer, in head order. The layer-1 head whose ablation lowers the
    induction score most is the one layer 2 builds on (``max(..., key=lambda a: a.induction_drop)``)."""
    batch = batch if batch is not None else _default_batch(model, config)
    return tuple(ablate_head(model, h, layer=layer, batch=batch) for h in range(model.num_heads))


def _default_batch(model: InductionModel, config: Optional[InductionConfig]) -> RepeatBatch:
    if config is None:
        config = InductionConfig(vocab_size=model.vocab_size, d_model=model.d_model, num_heads=model.num_heads,
                                 seq_len=model.seq_len, block_len=min(InductionConfig.block_len, model.seq_len // 2))
    return eval_batch(config)


# ------------------------------------------------------------------------------------------- the learner's own text
def word_id(word: str, vocab_size: int = 64) -> int:
    """A word's preferred token id: the first 8 bytes of BLAKE2b of its UTF-8 text, as an unsigned little-endian
    integer, modulo vocab_size. The same word always gets the same id, in every process and on every machine."""
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") % vocab_size


@dataclass(frozen=True)
class TextTokens:
    """The learner's text as token ids the trained model reads.

    How (``map_text``): the text is split into tokens like everywhere in the app (``mha.core.tokens.tokenize``: words,
    and each punctuation mark on its own; case kept). Each distinct token gets ``word_id(token)``; when that id
    already belongs to an earlier, different token (a hash collision), it takes the next free id (id + 1, + 2, ...
    modulo vocab_size) and is listed in ``moved``. Only with more distinct tokens than ids do different tokens
    share an id (``shared``). The random training tokens carry no meaning, so any distinct ids work: what the model
    learned is to find where the current token appeared before, whatever it is."""

    words: tuple[str, ...]  # the tokens the model reads (the text, then the text again when repeated)
    ids: tuple[int, ...]  # one id per word
    repeated: bool  # True: words = the text's tokens twice
    cut: int  # tokens of the text left out because the model has positions for seq_len tokens only
    moved: tuple[tuple[str, int, int], ...]  # (token, its word_id, the id it got instead)
    shared: tuple[tuple[int, tuple[str, ...]], ...]  # (id, the different tokens that share it)

    @property
    def half(self) -> int:
        """Length of one copy (the whole text when not repeated)."""
        return len(self.words) // 2 if self.repeated else len(self.words)


def map_text(text: str, *, vocab_size: int = 64, seq_len: int = 32, repeat: bool = True) -> TextTokens:
    """Tokenize ``text`` and give each distinct token an id (see TextTokens). ``repeat``: read the text twice in a
    row (an induction head can only predict the second time); the text is cut to seq_len // 2 tokens for that
    (seq_len without repeating), with ``cut`` saying how many were left out. Raises mha.core.tokens.TextError for empty
    text."""
    tokens = tokenize(text).tokens
    room = seq_len // 2 if repeat else seq_len
    cut = max(0, len(tokens) - room)
    tokens = tokens[:room]
    given: dict[str, int] = {}
    owner: dict[int, str] = {}
    moved, shared_ids = [], {}
    for tok in tokens:
        if tok in given:
            continue
        want = word_id(tok, vocab_size)
        got = want
        for k in range(vocab_size):  # linear probing: the next free id
            if (want + k) % vocab_size not in owner:
                got = (want + k) % vocab_size
                break
        else:  # every id is taken: share the preferred one
            shared_ids.setdefault(want, {owner[want]}).add(tok)
        if got != want:
            moved.append((tok, want, got))
        given[tok] = got
        owner.setdefault(got, tok)
    words = tokens + tokens if repeat else tokens
    shared = tuple((i, tuple(sorted(ws))) for i, ws in sorted(shared_ids.items()))
    return TextTokens(words=tuple(words), ids=tuple(given[w] for w in words), repeated=repeat, cut=cut,
                      moved=tuple(moved), shared=shared)


@dataclass(frozen=True)
class TextAttention:
    words: tuple[str, ...]
    ids: tuple[int, ...]
    weights: tuple[np.ndarray, ...]  # per layer (H, T, T) float64: layer 1, layer 2
    previous_token_scores: np.ndarray  # (H,) layer-1 heads on this text (weight on the token just before)
    induction_scores: np.ndarray  # (H,) layer-2 heads on this text (NaN-free: 0 when the text repeats nothing)
    predicted: tuple[int, ...]  # the model's most likely next id at each position
    copy_loss: Optional[float]  # mean loss predicting the 2nd .. last token of the second copy (None: not repeated)


def induction_target(ids: Sequence[int], query: int) -> Optional[int]:
    """The key an induction head should attend to from ``query``: the position just after the latest earlier
    occurrence of the query's token; None when the token has not appeared before."""
    for s in range(query - 1, -1, -1):
        if ids[s] == ids[query]:
            return s + 1  # <= query: causal
    return None


def attend_text(model: InductionModel, text: TextTokens,
                head_masks: Optional[Sequence[Optional[torch.Tensor]]] = None) -> TextAttention:
    """Run the model on the mapped text: both layers' attention weights and how each head behaves on it."""
    tokens = torch.tensor(text.ids, dtype=torch.long)[None]  # (1, T)
    with torch.no_grad():
        tr = model.run(tokens, head_masks)
    w1, w2 = (t.weights[0].double().numpy() for t in tr.layers)  # (H, T, T) each
    T = len(text.ids)
    prev = w1[:, np.arange(1, T), np.arange(T - 1)].mean(axis=1) if T > 1 else np.zeros(w1.shape[0])
    pairs = [(q, k) for q in range(T) if (k := induction_target(text.ids, q)) is not None]
    if pairs:
        qs, ks = np.array(pairs).T
        ind = w2[:, qs, ks].mean(axis=1)
    else:
        ind = np.zeros(w2.shape[0])
    loss = None
    if text.repeated and text.half >= 2:
        queries = torch.arange(text.half, T - 1)  # positions whose next token is the copy's 2nd .. last
        loss = float(F.cross_entropy(tr.logits[0, queries], tokens[0, queries + 1]))
    return TextAttention(words=text.words, ids=text.ids, weights=(w1, w2), previous_token_scores=prev,
                         induction_scores=ind, predicted=tuple(tr.logits[0].argmax(-1).tolist()), copy_loss=loss)


@dataclass(frozen=True)
class Pointer:
    head: int
    key: int  # the earlier position this head attends to most from the picked query
    weight: float  # its attention weight


def points_to(weights: np.ndarray, query: int) -> tuple[Pointer, ...]:
    """For each head of one layer's weights (H, T, T): the key with the largest weight from ``query``."""
    H, T, _ = weights.shape
    if not 0 <= query < T:
        raise ValueError(f"query must be from 0 to {T - 1}, got {query}.")
    keys = weights[:, query].argmax(axis=-1)
    return tuple(Pointer(head=h, key=int(keys[h]), weight=float(weights[h, query, keys[h]])) for h in range(H))


# ------------------------------------------------------------------------------------------------------------ export
def export_layers(model: InductionModel) -> tuple[bytes, ...]:
    """Each layer's state_dict as ``.pt`` bytes (``torch.save``): ``course_mha.MultiHeadAttention(d_model,
    num_heads).load_state_dict(torch.load(io.BytesIO(data)), strict=True)`` loads it."""
    return tuple(state_dict_bytes(layer) for layer in model.layers)
