"""From the learner's settings to the numbers every page draws. Pure torch + numpy: no Streamlit here.

``run_view`` is what the app caches (keyed on plain values, see ``mha.ui``): it tokenises, embeds, builds the
seeded module and traces it, and returns plain numpy arrays so a cached result can be copied, pickled and
shared safely between users.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import torch

from mha.attention import AttentionTrace, MultiHeadAttention
from mha.masks import causal_mask
from mha.text import TextError, display_labels, init_weights, token_inputs, tokenize

# Limits that keep the largest view responsive on a small (2-core) hosted machine. See README "Limits".
MAX_CHARS = 2000  # characters of text read; the rest is cut with a note
MAX_TOKENS = 128  # positions per sentence; longer text is cut with a note
D_MODEL_CHOICES = (4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
MAX_HEADS = 16
MAX_SEED = 9999
DEFAULT_TEXT = "Orange is my favorite fruit"
DEFAULT_D_MODEL = 16
DEFAULT_NUM_HEADS = 4
DEFAULT_SEED = 0


def head_choices(d_model: int) -> list[int]:
    """The numbers of heads that divide d_model (so head_dim is whole), up to MAX_HEADS."""
    return [h for h in range(1, min(d_model, MAX_HEADS) + 1) if d_model % h == 0]


@dataclass(frozen=True)
class ViewSpec:
    """Everything that decides the numbers on screen. Plain values only: it is the cache key."""

    text: str = DEFAULT_TEXT
    d_model: int = DEFAULT_D_MODEL
    num_heads: int = DEFAULT_NUM_HEADS
    causal: bool = False
    seed: int = DEFAULT_SEED
    positional: bool = True


@dataclass(frozen=True)
class View:
    """One sentence run through the module. Arrays are float32 numpy with the batch axis dropped."""

    spec: ViewSpec
    tokens: tuple[str, ...]  # query tokens as typed
    labels: list[str]  # display-safe labels (plain text: escape before giving them to Plotly)
    notes: tuple[str, ...]  # message keys for what was changed on the way (cut, controls removed)
    note_args: dict = field(default_factory=dict)
    x: np.ndarray = None  # (T, d_model) input embeddings (+ positions)
    q: np.ndarray = None  # (H, Tq, head_dim)
    k: np.ndarray = None  # (H, Tk, head_dim)
    v: np.ndarray = None  # (H, Tk, head_dim)
    scores: np.ndarray = None  # (H, Tq, Tk) before masking
    allowed: np.ndarray = None  # (H, Tq, Tk) bool, True = may attend
    weights: np.ndarray = None  # (H, Tq, Tk)
    head_outputs: np.ndarray = None  # (H, Tq, head_dim)
    concat: np.ndarray = None  # (Tq, d_model)
    output: np.ndarray = None  # (Tq, d_model)
    fully_masked: np.ndarray = None  # (H, Tq) bool

    @property
    def num_heads(self) -> int:
        return self.spec.num_heads

    @property
    def head_dim(self) -> int:
        return self.spec.d_model // self.spec.num_heads


def check_spec(spec: ViewSpec) -> None:
    """Raise ValueError with a learner-facing message if the settings cannot be run."""
    if spec.d_model not in D_MODEL_CHOICES:
        raise ValueError(f"d_model must be one of {list(D_MODEL_CHOICES)}, got {spec.d_model}.")
    if spec.num_heads not in head_choices(spec.d_model):
        raise ValueError(
            f"num_heads={spec.num_heads} does not divide d_model={spec.d_model}: pick one of {head_choices(spec.d_model)}."
        )


@lru_cache(maxsize=32)
def build_model(d_model: int, num_heads: int, seed: int) -> MultiHeadAttention:
    """The seeded module for these settings. Shared: never mutate it (use ``trace(head_mask=...)`` to ablate)."""
    model = init_weights(MultiHeadAttention(d_model, num_heads), seed).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def prepare_tokens(text: str) -> tuple[tuple[str, ...], tuple[str, ...], dict]:
    """Tokens within the limits, plus note keys and their arguments. Raises TextError for empty text."""
    notes, args = [], {}
    if len(text) > MAX_CHARS:
        notes.append("note_chars_cut")
        args.update(n_chars=len(text), max_chars=MAX_CHARS)
        text = text[:MAX_CHARS]
    toks = tokenize(text)
    tokens = toks.tokens
    if toks.removed:
        notes.append("note_controls_removed")
        args.update(n_removed=toks.removed)
    if len(tokens) > MAX_TOKENS:
        notes.append("note_tokens_cut")
        args.update(n_tokens=len(tokens), max_tokens=MAX_TOKENS)
        tokens = tokens[:MAX_TOKENS]
    return tokens, tuple(notes), args


def trace_tokens(model: MultiHeadAttention, tokens, spec: ViewSpec, head_mask=None) -> tuple[torch.Tensor, AttentionTrace]:
    """Embed the tokens and trace the module on them (self-attention, batch of one)."""
    x = token_inputs(tokens, spec.d_model, spec.seed, positional=spec.positional).unsqueeze(0)  # (1, T, d_model)
    mask = causal_mask(len(tokens)) if spec.causal else None
    with torch.no_grad():
        return x, model.trace(x, x, x, mask, head_mask=head_mask)


def run_view(spec: ViewSpec) -> View:
    """Run the settings end to end. Raises TextError (empty text) or ValueError (impossible settings)."""
    check_spec(spec)
    tokens, notes, args = prepare_tokens(spec.text)
    model = build_model(spec.d_model, spec.num_heads, spec.seed)
    x, tr = trace_tokens(model, tokens, spec)
    np32 = lambda t: t[0].detach().to(torch.float32).numpy().copy()  # noqa: E731 drop the batch axis
    allowed = tr.mask[0].numpy().copy() if tr.mask is not None else np.ones(tr.weights.shape[1:], dtype=bool)
    return View(
        spec=spec, tokens=tokens, labels=display_labels(tokens), notes=notes, note_args=args,
        x=np32(x), q=np32(tr.q), k=np32(tr.k), v=np32(tr.v), scores=np32(tr.scores), allowed=allowed,
        weights=np32(tr.weights), head_outputs=np32(tr.head_outputs), concat=np32(tr.concat),
        output=np32(tr.output), fully_masked=tr.fully_masked[0].numpy().copy(),
    )


__all__ = ["View", "ViewSpec", "TextError", "run_view", "build_model", "head_choices", "check_spec"]
