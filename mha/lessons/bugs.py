"""A zoo of real attention bugs, for teaching. NOT the real module: each bug is a small, clearly named variant of
``mha.core.attention.MultiHeadAttention`` that gets exactly one step wrong (or, for the second seed, the course
material's class exactly as written). ``tests/unit/test_bugs.py`` holds, for every bug, the test that catches it: the
bug fails it and the real module passes it. Several bugs hide behind ``num_heads = 1`` and some need a mask.

Pure torch + numpy: no Streamlit here. Bugs never NaN (a chart must never see NaN): where a bug would produce
NaN, rows are zeroed as in the real module, so what you see is the bug and only the bug.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from mha.core.attention import AttentionSteps, AttentionTrace, MultiHeadAttention, attention_steps
from mha.core.inputs import init_weights
from mha.core.masks import as_allowed

# --- the second seed's class, as written ------------------------------------------------------------------------------
# Copied from ../shared/seeds/002_* (only comments added). Its Linear layers act on head_dim features, but they
# receive d_model features: any num_heads > 1 fails with a shape error. With num_heads = 1 it runs, and attends
# over the *heads* axis: view(N, T, heads, head_dim) puts heads where the tokens should be, so each token attends
# only among its own heads (an H x H matrix per token; 1 x 1 = always itself with one head).

def seed_scaled_dot_product_attention(Q, K, V):
    d_k = Q.size(-1)  # Key의 차원 수
    scores = torch.matmul(Q, K.transpose(-2, -1)) / torch.sqrt(torch.tensor(d_k, dtype=torch.float32))
    attn_weights = F.softmax(scores, dim=-1)
    output = torch.matmul(attn_weights, V)
    return output, attn_weights


class SeedTwoMultiHeadAttention(nn.Module):
    """BUG ZOO: the second seed's MultiHeadAttention exactly as written."""

    def __init__(self, embed_size, heads):
        super(SeedTwoMultiHeadAttention, self).__init__()
        self.embed_size = embed_size
        self.heads = heads
        self.head_dim = embed_size // heads

        assert (
            self.head_dim * heads == embed_size
        ), "Embedding size needs to be divisible by heads"

        self.values = nn.Linear(self.head_dim, self.head_dim, bias=False)
        self.keys = nn.Linear(self.head_dim, self.head_dim, bias=False)
        self.queries = nn.Linear(self.head_dim, self.head_dim, bias=False)
        self.fc_out = nn.Linear(heads * self.head_dim, embed_size)

    def forward(self, values, keys, query, mask=None):
        N = query.shape[0]
        value_len, key_len, query_len = values.shape[1], keys.shape[1], query.shape[1]

        # Linear transformations
        values = self.values(values).view(N, value_len, self.heads, self.head_dim)
        keys = self.keys(keys).view(N, key_len, self.heads, self.head_dim)
        queries = self.queries(query).view(N, query_len, self.heads, self.head_dim)

        # Scaled dot-product attention
        out, _ = seed_scaled_dot_product_attention(queries, keys, values)

        out = out.view(N, query_len, self.heads * self.head_dim)
        out = self.fc_out(out)
        return out


def seed_two_error(x: torch.Tensor, num_heads: int, seed: int = 0) -> Optional[str]:
    """The error the seed's class raises on ``x`` (B, T, d_model) with ``num_heads``, or None if it runs."""
    module = init_weights(SeedTwoMultiHeadAttention(x.size(-1), num_heads), seed).to(x.dtype)
    try:
        with torch.no_grad():
            module(x, x, x)
    except RuntimeError as err:
        return str(err).splitlines()[0]
    return None


def seed_two_head_weights(x: torch.Tensor, num_heads: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """What the seed's class computes once made to run (each token's features pre-split into heads, the only input
    its Linear layers accept): ``(weights, output)``, weights (B, T, H, H) — heads attending to heads, per token.

    The same steps as ``SeedTwoMultiHeadAttention.forward`` (tests/unit/test_bugs.py checks the outputs agree)."""
    B, T, d_model = x.shape
    module = init_weights(SeedTwoMultiHeadAttention(d_model, num_heads), seed).to(x.dtype)
    split = x.view(B, T, num_heads, d_model // num_heads)  # (B, T, H, head_dim): what nn.Linear(head_dim) accepts
    with torch.no_grad():
        q = module.queries(split)  # (B, T, H, head_dim)
        k = module.keys(split)
        v = module.values(split)
        z, weights = seed_scaled_dot_product_attention(q, k, v)  # softmax over the LAST BUT ONE axis: heads
        output = module.fc_out(z.reshape(B, T, d_model))
    return weights, output  # weights (B, T, H, H)


# --- one-step bugs of the real module ---------------------------------------------------------------------------------

class SplitHeadsWithoutTranspose(MultiHeadAttention):
    """BUG: split_heads reshapes straight to (B, H, T, head_dim). The numbers are right, their places wrong: each
    "head" gets a slab of consecutive numbers that mixes positions. Invisible with one head."""

    def split_heads(self, x, batch_size):
        seq_length = x.size(1)
        return x.reshape(batch_size, self.num_heads, seq_length, self.head_dim)  # BUG: no permute from (B, T, H, hd)


class CombineHeadsWithoutPermute(MultiHeadAttention):
    """BUG: combine_heads views (B, H, Tq, head_dim) as (B, Tq, d_model) without moving heads back behind
    positions: a token's output is stitched from other tokens' head outputs. Invisible with one head."""

    def combine_heads(self, x, batch_size):
        return x.contiguous().view(batch_size, -1, self.d_model)  # BUG: no permute(0, 2, 1, 3) first


class _OneStepBug(MultiHeadAttention):
    """The real module with its attention step behind a hook (``attend``) that a bug replaces. ``trace`` is the
    real one, step for step, except that line (tests/unit/test_bugs.py checks that with no bug they agree exactly)."""

    def attend(self, q, k, v, mask) -> AttentionSteps:
        return attention_steps(q, k, v, mask)

    def trace(self, query, key, value, mask=None, *, head_mask=None) -> AttentionTrace:
        self._check_inputs(query, key, value, None)
        batch_size = query.size(0)
        q = self.split_heads(self.query_linear(query), batch_size)  # (B, H, Tq, head_dim)
        k = self.split_heads(self.key_linear(key), batch_size)  # (B, H, Tk, head_dim)
        v = self.split_heads(self.value_linear(value), batch_size)  # (B, H, Tk, head_dim)
        steps = self.attend(q, k, v, mask)
        concat = self.combine_heads(steps.output, batch_size)  # (B, Tq, d_model)
        output = self.output_linear(concat)
        return AttentionTrace(q=q, k=k, v=v, scores=steps.scores, allowed=steps.allowed, weights=steps.weights,
                              head_outputs=steps.output, concat=concat, output=output,
                              fully_masked=steps.fully_masked)


class SoftmaxOverQueries(_OneStepBug):
    """BUG: F.softmax(scores, dim=-2): each *column* sums to 1 (keys share out the queries) instead of each row."""

    def attend(self, q, k, v, mask):
        steps = attention_steps(q, k, v, mask)
        logits = steps.scores if steps.allowed is None else steps.scores.masked_fill(~steps.allowed, float("-inf"))
        weights = torch.nan_to_num(F.softmax(logits, dim=-2), nan=0.0)  # BUG: dim=-2 (a blocked column gives NaN)
        return _steps(steps, weights, v)


class FlippedMaskPolarity(_OneStepBug):
    """BUG: masked_fill(mask == 1, -inf): True read as "blocked" (nn.MultiheadAttention's convention) in code that
    means True = may attend. Every allowed key is blocked and every blocked key allowed. Invisible with no mask."""

    def attend(self, q, k, v, mask):
        flipped = None if mask is None else ~as_allowed(mask, q.shape[:-1] + (k.size(-2),))  # BUG: ~
        return attention_steps(q, k, v, flipped)


class MaskAfterSoftmax(_OneStepBug):
    """BUG: softmax first, then zero the blocked weights: the rows no longer sum to 1, so the allowed keys get
    less than their share. Invisible with no mask."""

    def attend(self, q, k, v, mask):
        steps = attention_steps(q, k, v, None)  # BUG: softmax over every key ...
        if mask is None:
            return steps
        allowed = as_allowed(mask, steps.scores.shape)
        return _steps(steps, steps.weights.masked_fill(~allowed, 0.0), v, allowed)  # ... then zero the blocked


class NoScale(_OneStepBug):
    """BUG: scores = QK^T without / sqrt(head_dim): softmax gets sharper as head_dim grows (saturates)."""

    def attend(self, q, k, v, mask):
        return attention_steps(q, k, v, mask, scale=False)  # BUG: scale=False


def _steps(steps: AttentionSteps, weights, v, allowed=None) -> AttentionSteps:
    allowed = steps.allowed if allowed is None else allowed
    fully = steps.fully_masked if allowed is None else ~allowed.any(dim=-1)
    return AttentionSteps(scores=steps.scores, allowed=allowed, weights=weights, output=torch.matmul(weights, v),
                          fully_masked=fully)


# --- the catalogue ----------------------------------------------------------------------------------------------------

TEST_FILE = "tests/unit/test_bugs.py"


@dataclass(frozen=True)
class Bug:
    name: str  # id, also the URL value
    cls: type  # the buggy class (takes d_model, num_heads like the real one)
    test: str  # the test in our suite that catches it (the bug fails it, the real module passes it)
    wrong: str  # the buggy line
    right: str  # the real module's line
    hidden_by_one_head: bool = False  # num_heads = 1 gives exactly the real numbers
    needs_mask: bool = False  # with no mask it gives exactly the real numbers

    @property
    def test_id(self) -> str:
        return f"{TEST_FILE}::{self.test}"


SEED_TWO = "seed_two_as_written"
BUGS: tuple[Bug, ...] = (
    Bug(SEED_TWO, SeedTwoMultiHeadAttention, "test_runs_for_every_num_heads_dividing_d_model",
        wrong="self.values = nn.Linear(self.head_dim, self.head_dim)\n"
              "values = self.values(values).view(N, value_len, self.heads, self.head_dim)\n"
              "out, _ = scaled_dot_product_attention(queries, keys, values)  # (N, T, heads, head_dim)",
        right="self.value_linear = nn.Linear(d_model, d_model)\n"
              "value = self.split_heads(self.value_linear(value), batch_size)  # (B, H, T, head_dim)\n"
              "# attention over the last two axes, (T, head_dim): weights (B, H, Tq, Tk)"),
    Bug("split_heads_no_transpose", SplitHeadsWithoutTranspose, "test_split_heads_keeps_each_position_apart",
        wrong="x.reshape(batch_size, self.num_heads, seq_length, self.head_dim)",
        right="x.reshape(batch_size, seq_length, self.num_heads, self.head_dim).permute(0, 2, 1, 3)",
        hidden_by_one_head=True),
    Bug("softmax_over_queries", SoftmaxOverQueries, "test_weight_rows_sum_to_one",
        wrong="F.softmax(scores, dim=-2)", right="F.softmax(scores, dim=-1)"),
    Bug("flipped_mask_polarity", FlippedMaskPolarity, "test_blocked_keys_get_zero_weight",
        wrong="scores.masked_fill(mask == 1, float('-inf'))", right="scores.masked_fill(mask == 0, float('-inf'))",
        needs_mask=True),
    Bug("mask_after_softmax", MaskAfterSoftmax, "test_blocked_key_equals_deleting_it",
        wrong="F.softmax(scores, dim=-1).masked_fill(mask == 0, 0)",
        right="F.softmax(scores.masked_fill(mask == 0, float('-inf')), dim=-1)", needs_mask=True),
    Bug("no_scaling", NoScale, "test_head_outputs_match_torch_sdpa",
        wrong="torch.matmul(query, key.transpose(-2, -1))",
        right="torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)"),
    Bug("combine_heads_no_permute", CombineHeadsWithoutPermute, "test_combine_heads_undoes_split_heads",
        wrong="x.contiguous().view(batch_size, -1, self.d_model)",
        right="x.permute(0, 2, 1, 3).contiguous().view(batch_size, -1, self.d_model)", hidden_by_one_head=True),
)
BUG_NAMES = tuple(b.name for b in BUGS)


def get_bug(name: str) -> Bug:
    for bug in BUGS:
        if bug.name == name:
            return bug
    raise KeyError(f"no bug named {name!r}; the zoo has {list(BUG_NAMES)}.")


def buggy_copy(bug: Bug, model: MultiHeadAttention) -> MultiHeadAttention:
    """A new module of the bug's class with ``model``'s weights (``model`` itself, often shared, is untouched)."""
    bias = model.query_linear.bias is not None  # a pretrained layer's Q/K/V biases come along (the bug is the same)
    twin = bug.cls(model.d_model, model.num_heads, qkv_bias=bias).to(model.output_linear.weight.dtype)
    twin.load_state_dict(model.state_dict())
    return twin.eval()


@dataclass(frozen=True)
class BugRun:
    """One bug on one sentence, beside the real module. Arrays are float32 numpy, batch axis dropped."""

    name: str
    weights_ok: np.ndarray  # (H, Tq, Tk) the real module's weights
    allowed: np.ndarray  # (Tq, Tk) bool: the mask both ran with
    demo_mask: bool  # True when the view has no mask and a causal-style one was used to show the bug
    weights_bug: Optional[np.ndarray] = None  # (H, Tq, Tk), or None (the seed's class)
    max_error_output: Optional[float] = None  # max |bug output - real output|
    max_error_weights: Optional[float] = None  # max |bug weights - real weights|
    max_error_one_head: Optional[float] = None  # the same output error with num_heads = 1 (transpose bugs)
    error: Optional[str] = None  # what the seed's class raises as written with this num_heads
    head_weights: Optional[np.ndarray] = None  # (Tq, H, H) the seed's class: heads attending to heads, per token
    output_ok: Optional[np.ndarray] = None  # (Tq, d_model) the real module's output
    output_bug: Optional[np.ndarray] = None  # (Tq, d_model) the bug's output

    @property
    def difference(self) -> Optional[np.ndarray]:
        return None if self.weights_bug is None else self.weights_bug - self.weights_ok


def demo_allowed(tq: int, tk: int) -> torch.Tensor:
    """(Tq, Tk) lower-triangular mask for bugs that only show under a mask: query i may see keys 0..i. Key 0 is
    always allowed, so no row is fully masked."""
    return torch.ones(tq, tk, dtype=torch.bool).tril()


def run_bug(bug: Bug, model: MultiHeadAttention, query: torch.Tensor, key: torch.Tensor,
            allowed: Optional[torch.Tensor], seed: int = 0,
            one_head_model: Optional[MultiHeadAttention] = None) -> BugRun:
    """Run ``bug`` and the real ``model`` on one sentence: query (1, Tq, d_model), key = value (1, Tk, d_model),
    ``allowed`` (Tq, Tk) bool or None. ``one_head_model``: the same weights with num_heads = 1, to show what a
    transpose bug does with a single head."""
    tq, tk = query.size(1), key.size(1)
    demo = bug.needs_mask and (allowed is None or bool(allowed.all()))
    mask = demo_allowed(tq, tk) if demo else allowed
    shown = (mask if mask is not None else torch.ones(tq, tk, dtype=torch.bool)).numpy().copy()
    with torch.no_grad():
        ok = model.trace(query, key, key, mask)
    weights_ok = ok.weights[0].numpy().copy()
    if bug.name == SEED_TWO:
        head_weights, _ = seed_two_head_weights(query, model.num_heads, seed)
        return BugRun(bug.name, weights_ok, shown, demo, error=seed_two_error(query, model.num_heads, seed),
                      head_weights=head_weights[0].numpy().copy())
    with torch.no_grad():
        bad = buggy_copy(bug, model).trace(query, key, key, mask)
    one_head = None
    if bug.hidden_by_one_head and one_head_model is not None:
        with torch.no_grad():
            one_ok = one_head_model.trace(query, key, key, mask).output
            one_bad = buggy_copy(bug, one_head_model).trace(query, key, key, mask).output
        one_head = float((one_bad - one_ok).abs().max())
    return BugRun(bug.name, weights_ok, shown, demo, weights_bug=bad.weights[0].numpy().copy(),
                  max_error_output=float((bad.output - ok.output).abs().max()),
                  max_error_weights=float((bad.weights - ok.weights).abs().max()), max_error_one_head=one_head,
                  output_ok=ok.output[0].numpy().copy(), output_bug=bad.output[0].numpy().copy())


def run_zoo(model: MultiHeadAttention, query, key, allowed, seed: int = 0, one_head_model=None) -> list[BugRun]:
    """Every bug of the zoo on one sentence (see ``run_bug``)."""
    return [run_bug(b, model, query, key, allowed, seed, one_head_model) for b in BUGS]


def zoo_for_view(view, *, state_dict: dict | None = None) -> dict[str, BugRun]:
    """{bug name: its run} on the sentence a View shows, with the module the view ran on (seeded, or
    ``state_dict``) and a one-head module on the same parameters. The view's mask is the same for every head."""
    # mha.weights.view imports nothing from here: a late import keeps the layers one-way
    from mha.weights.view import model_for

    spec = view.spec
    model, one_head = model_for(spec, state_dict), model_for(spec, state_dict, num_heads=1)
    q, k = torch.tensor(view.x)[None], torch.tensor(view.x_kv)[None]  # (1, Tq | Tk, d_model), copies
    allowed = torch.tensor(view.allowed[0])  # (Tq, Tk)
    runs = run_zoo(model, q, k, None if allowed.all() else allowed, spec.seed, one_head)
    return {r.name: r for r in runs}


__all__ = ["BUGS", "BUG_NAMES", "Bug", "BugRun", "get_bug", "run_bug", "run_zoo", "zoo_for_view", "buggy_copy",
           "demo_allowed", "SeedTwoMultiHeadAttention", "SplitHeadsWithoutTranspose", "CombineHeadsWithoutPermute",
           "SoftmaxOverQueries", "FlippedMaskPolarity", "MaskAfterSoftmax", "NoScale", "seed_two_error",
           "seed_two_head_weights"]
