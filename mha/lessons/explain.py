"""The numbers behind the pictures: one cell's dot product, the course code path, and the scaling lab.

Pure numpy + torch, no Streamlit. Nothing here re-implements attention: every score and weight is read from a
``View`` (the module's trace), intermediates the View does not keep are recomputed by calling the module's own
submodules (``extras``), and the lab's variants go through ``mha.core.attention.attention_steps`` — the one
implementation — with its ``scale`` and ``temperature`` arguments. What *is* computed here is the arithmetic a
learner does by hand to check a number (q_i * k_j summed, e^score over a sum) and statistics of weights.
"""
from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass

import numpy as np
import torch

from mha.core.attention import attention_steps
from mha.core.clicks import clicked_pair
from mha.core.inputs import embed_tokens, sinusoidal_positions
from mha.lessons.heads import row_entropy  # bits; the Heads page's unit too
from mha.weights.view import View

TOP_K = 12  # a breakdown lists every dimension up to this head_dim; above, the largest TOP_K and "the rest"
SWEEP_HEAD_DIMS = (4, 8, 16, 32, 64, 128, 256, 512)

# ---------------------------------------------------------------------------------------------------------------
# The course code, quoted line for line from ../shared/seeds/000_* (tests/unit/test_explain.py checks every line).
# ---------------------------------------------------------------------------------------------------------------
STEPS = ("embed", "linear", "split_heads", "qk", "scale", "mask", "softmax", "weighted_sum", "combine_heads",
         "output_linear")

_COURSE = {
    "embed": """
    def forward(self, query, key, value, mask=None):
        batch_size = query.size(0)
""",
    "linear": """
        self.query_linear = nn.Linear(d_model, d_model, bias=False)
        self.key_linear = nn.Linear(d_model, d_model, bias=False)
        self.value_linear = nn.Linear(d_model, d_model, bias=False)
""",
    "split_heads": """
        query = self.split_heads(self.query_linear(query), batch_size)
        key = self.split_heads(self.key_linear(key), batch_size)
        value = self.split_heads(self.value_linear(value), batch_size)

    def split_heads(self, x, batch_size):
        seq_length = x.size(1)
        x = x.reshape(batch_size, seq_length, self.num_heads, self.head_dim)
        return x.permute(0, 2, 1, 3)
""",
    "qk": """
        scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)
""",
    "scale": """
        scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)
""",
    "mask": """
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))
""",
    "softmax": """
        attention_weights = F.softmax(scores, dim=-1)
""",
    "weighted_sum": """
        attention_weights = F.softmax(scores, dim=-1)
        return torch.matmul(attention_weights, value)
""",
    "combine_heads": """
    def combine_heads(self, x, batch_size):
        x = x.permute(0, 2, 1, 3).contiguous()
        return x.view(batch_size, -1, self.d_model)
""",
    "output_linear": """
        output = self.combine_heads(attention_weights, batch_size)
        return self.output_linear(output)
""",
}
COURSE_CODE = {step: textwrap.dedent(code).strip("\n") for step, code in _COURSE.items()}

# The tensor each step produces, with the shape letters used in comments across the project.
STEP_SHAPES = {
    "embed": ("x", "B, T, d_model"),
    "linear": ("query_linear(x)", "B, T, d_model"),
    "split_heads": ("query", "B, H, T, head_dim"),
    "qk": ("QKᵀ", "B, H, Tq, Tk"),
    "scale": ("scores", "B, H, Tq, Tk"),
    "mask": ("scores.masked_fill(...)", "B, H, Tq, Tk"),
    "softmax": ("weights", "B, H, Tq, Tk"),
    "weighted_sum": ("head_outputs", "B, H, Tq, head_dim"),
    "combine_heads": ("concat", "B, Tq, d_model"),
    "output_linear": ("output", "B, Tq, d_model"),
}


def shape_text(letters: str, shape) -> str:
    """'(B, T, d_model) = (1, 5, 16)'. Raises if the letters do not name every axis (a wrong caption is a bug)."""
    names = [s.strip() for s in letters.split(",")]
    if len(names) != len(shape):
        raise ValueError(f"shape {tuple(shape)} has {len(shape)} axes but the caption names {len(names)}: {letters}")
    return f"({', '.join(names)}) = ({', '.join(str(int(n)) for n in shape)})"


# ---------------------------------------------------------------------------------------------------------------
# Intermediates the View does not keep, recomputed by the module itself.
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Extras:
    """The step-by-step page's tensors that a View does not keep: the shown sentence, batch axis dropped, float32."""

    embedding: np.ndarray | None  # (Tq, d_model) each query token's vector (the same word gets the same vector)
    positions: np.ndarray | None  # (Tq, d_model) sinusoidal positions (zeros when positional encoding is off)
    query: np.ndarray  # (Tq, d_model) query_linear(x), before split_heads
    key: np.ndarray  # (Tk, d_model) key_linear(x_kv)
    value: np.ndarray  # (Tk, d_model) value_linear(x_kv)
    qk: np.ndarray  # (H, Tq, Tk) QKᵀ, before / sqrt(head_dim)
    sentence: int  # which sentence of the batch these are (as in the View)
    layout: str = "added"  # how x was made: "added" (embedding + positions), "split" (content | position, trained
    # weights: ``mha.weights.train.layout_parts``), "model" (a pretrained model's hidden states: no embedding/positions)


def extras(view: View) -> Extras:
    """What the step-by-step page shows and a View does not keep, from the View itself (no second run of the
    module): the token embeddings and positions, the projections before ``split_heads``, and QKᵀ before scaling.

    Every number is the module's: ``embed_tokens`` and ``sinusoidal_positions`` are what ``token_inputs`` adds up;
    ``combine_heads`` undoes ``split_heads`` exactly, so the trace's q, k, v recombined are ``query_linear(x)``,
    ``key_linear(x_kv)`` and ``value_linear(x_kv)``; and QKᵀ is ``attention_steps(scale=False)`` on the same q, k, v
    and mask (the one implementation of attention)."""
    H, Tq, hd = view.q.shape

    def combine(a):  # (H, T, hd) -> (T, d_model)
        return np.ascontiguousarray(a.transpose(1, 0, 2).reshape(a.shape[1], H * hd))

    q, k, v = (torch.tensor(a) for a in (view.q, view.k, view.v))  # copies: a cached View is read-only
    with torch.no_grad():
        qk = attention_steps(q, k, v, torch.tensor(view.allowed), scale=False).scores  # (H, Tq, Tk)
    spec = view.spec
    parts = dict(query=combine(view.q), key=combine(view.k), value=combine(view.v),
                 qk=qk.to(torch.float32).numpy().copy(), sentence=view.sentence)
    if spec.source == "pretrained":  # x is the model's own hidden state: no embedding table or positions of ours
        return Extras(embedding=None, positions=None, layout="model", **parts)
    if spec.source == "trained":  # the layout the weights were trained with: content | position
        from mha.weights.train import layout_parts

        embedding, positions = layout_parts(view.tokens, spec.d_model, spec.seed, positional=spec.positional)
        layout = "split"
    else:
        embedding = embed_tokens(view.tokens, spec.d_model, spec.seed, dtype=torch.float64)  # (Tq, d_model)
        positions = (sinusoidal_positions(len(view.tokens), spec.d_model) if spec.positional
                     else torch.zeros_like(embedding))  # (Tq, d_model)
        layout = "added"
    return Extras(embedding=embedding.to(torch.float32).numpy(), positions=positions.to(torch.float32).numpy(),
                  layout=layout, **parts)


def cell_from_selection(event) -> tuple[int, int] | None:
    """(query i, key j) of the first clicked cell in a ``st.plotly_chart`` selection event, or None. The clickable
    heatmaps (``figures.head_heatmap``) carry [i, j] as each marker's customdata: read by
    ``mha.core.clicks.clicked_pair``."""
    return clicked_pair(event)


# ---------------------------------------------------------------------------------------------------------------
# One cell, by hand.
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Contributions:
    """The terms of one dot product, readable at any head_dim: every term, or the largest and the rest summed."""

    dims: tuple[int, ...]  # which dimensions are listed (in head_dim order, or by |term| when cut)
    values: tuple[float, ...]  # q_i[d] * k_j[d] for those dims
    rest: float  # the sum of the terms not listed (0.0 when nothing was left out)
    rest_count: int  # how many terms were summed into ``rest``

    @property
    def total(self) -> float:
        return float(sum(self.values) + self.rest)


def contributions(products: np.ndarray, top_k: int = TOP_K) -> Contributions:
    """All terms in order when there are at most ``top_k``; else the ``top_k`` largest by size, then the rest."""
    products = np.asarray(products, dtype=np.float64)
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1, got {top_k}.")
    if products.size <= top_k:
        return Contributions(tuple(range(products.size)), tuple(products.tolist()), 0.0, 0)
    order = np.argsort(-np.abs(products), kind="stable")
    top, rest = order[:top_k], order[top_k:]
    return Contributions(tuple(int(d) for d in top), tuple(products[top].tolist()), float(products[rest].sum()),
                         int(rest.size))


@dataclass(frozen=True)
class CellBreakdown:
    """How scores[head, i, j] and weights[head, i, j] come about. Module numbers are copied from the View."""

    head: int
    i: int  # query position
    j: int  # key position
    q: np.ndarray  # (head_dim,) q_i of this head: what token i looks for
    k: np.ndarray  # (head_dim,) k_j of this head: what token j offers
    products: np.ndarray  # (head_dim,) q_i * k_j, float64
    raw: float  # sum of the products: (QKᵀ)_ij
    scale: float  # sqrt(head_dim)
    score: float  # the module's scores[head, i, j] = raw / scale (up to float32 rounding)
    row_scores: np.ndarray  # (Tk,) the module's scores[head, i]
    row_allowed: np.ndarray  # (Tk,) bool, True = may attend
    row_weights: np.ndarray  # (Tk,) the module's weights[head, i]
    weight: float  # the module's weights[head, i, j]
    exp_scores: np.ndarray  # (Tk,) e^(score - shift) for allowed keys, 0 for blocked ones (the softmax by hand)
    shift: float  # 0, or the row's largest score when e^score would overflow

    @property
    def head_dim(self) -> int:
        return int(self.q.size)

    @property
    def allowed(self) -> bool:
        return bool(self.row_allowed[self.j])

    @property
    def fully_masked(self) -> bool:
        return not self.row_allowed.any()

    @property
    def exp_sum(self) -> float:
        return float(self.exp_scores.sum())

    def contributions(self, top_k: int = TOP_K) -> Contributions:
        return contributions(self.products, top_k)


def cell_breakdown(view: View, head: int, i: int, j: int) -> CellBreakdown:
    """The breakdown of one cell of one head. Raises IndexError naming the valid range."""
    H, Tq, Tk = view.weights.shape
    for name, value, n in (("head", head, H), ("query position i", i, Tq), ("key position j", j, Tk)):
        if not 0 <= int(value) < n:
            raise IndexError(f"{name} must be in 0..{n - 1}, got {value}.")
    q = view.q[head, i]  # (head_dim,)
    k = view.k[head, j]  # (head_dim,)
    products = q.astype(np.float64) * k.astype(np.float64)
    row_scores = view.scores[head, i].astype(np.float64)  # (Tk,)
    row_allowed = view.allowed[head, i].copy()
    top = float(row_scores[row_allowed].max()) if row_allowed.any() else 0.0
    shift = top if top > 700.0 else 0.0  # e^709 is float64's limit: shift (as softmax implementations do)
    exp_scores = np.where(row_allowed, np.exp(np.minimum(row_scores - shift, 700.0)), 0.0)
    return CellBreakdown(
        head=int(head), i=int(i), j=int(j), q=q.copy(), k=k.copy(), products=products, raw=float(products.sum()),
        scale=math.sqrt(view.head_dim), score=float(view.scores[head, i, j]), row_scores=row_scores,
        row_allowed=row_allowed, row_weights=view.weights[head, i].copy(), weight=float(view.weights[head, i, j]),
        exp_scores=exp_scores, shift=shift,
    )


# ---------------------------------------------------------------------------------------------------------------
# Statistics of weight rows: how peaked is each query's attention?
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RowStats:
    """Per query row (shape (..., Tq)). Fully masked rows (all weights 0) get 0 everywhere."""

    entropy: np.ndarray  # bits (as on the Heads page): log2(n) for a uniform row over n keys, 0 for a one-hot row
    max_weight: np.ndarray  # the largest weight: 1/n (uniform) .. 1 (saturated)
    grad_norm: np.ndarray  # Frobenius norm of the softmax Jacobian diag(w) - w wᵀ: ~0 when saturated
    max_entropy: np.ndarray  # log2(number of allowed keys) bits: the entropy of a uniform row


def softmax_gradient_norm(weights: np.ndarray) -> np.ndarray:
    """||d softmax / d scores||_F per row, from the weights alone (rows that sum to 1, or all-zero rows).

    The Jacobian is J = diag(w) - w wᵀ, so ||J||² = Σ_i w_i² ((1 - w_i)² + Σ_{j≠i} w_j²), built without a (Tk, Tk)
    matrix per row. When one weight is ~1 the rest are ~0 and every entry of J is ~0: the scores stop receiving
    gradient. For that largest weight, 1 - w and Σ_{j≠i} w_j² are summed from the other weights, not subtracted
    from 1, so a saturated row's tiny norm keeps its digits.
    """
    w = np.asarray(weights, dtype=np.float64)
    w2 = w ** 2
    is_top = np.arange(w.shape[-1]) == w.argmax(axis=-1)[..., None]  # (..., Tk) the row's largest weight
    rest = np.where(is_top, 0.0, w).sum(axis=-1, keepdims=True)  # Σ of the other weights = 1 - w_top
    rest_sq = np.where(is_top, 0.0, w2).sum(axis=-1, keepdims=True)  # Σ of the other weights' squares
    top_sq = np.where(is_top, w2, 0.0).sum(axis=-1, keepdims=True)
    one_minus = np.where(is_top, rest, 1.0 - w)
    others_sq = np.where(is_top, rest_sq, rest_sq + top_sq - w2)  # Σ_{j≠i} w_j²
    return np.sqrt((w2 * (one_minus ** 2 + others_sq)).sum(axis=-1))


def row_stats(weights: np.ndarray, allowed: np.ndarray | None = None) -> RowStats:
    w = np.asarray(weights, dtype=np.float64)
    n_allowed = (np.asarray(allowed).sum(axis=-1) if allowed is not None else np.full(w.shape[:-1], w.shape[-1]))
    return RowStats(entropy=row_entropy(w), max_weight=w.max(axis=-1, initial=0.0), grad_norm=softmax_gradient_norm(w),
                    max_entropy=np.log2(np.maximum(n_allowed, 1)).astype(np.float64))


# ---------------------------------------------------------------------------------------------------------------
# The lab: the learner's q and k through attention_steps, with and without scaling, at any temperature.
# ---------------------------------------------------------------------------------------------------------------
def check_temperature(temperature: float) -> float:
    t = float(temperature)
    if not (math.isfinite(t) and t > 0):
        raise ValueError(f"temperature must be a positive number, got {temperature!r}: try 1.0 (no change).")
    return t


def coldness(temperature: float) -> str:
    """How much sharper than the module a softmax at this temperature is: "none", "slightly", "cold", "very_cold".

    The lab's text uses it for τ = 1/√head_dim (what dropping the scaling amounts to): head_dim 1 changes nothing,
    head_dim 4 (τ = 0.5) only sharpens a little, head_dim 64 and up (τ ≤ 1/8) is a very cold softmax.
    """
    temperature = check_temperature(temperature)
    if temperature >= 1.0:
        return "none"
    if temperature > 0.25:  # head_dim < 16
        return "slightly"
    return "cold" if temperature > 0.125 else "very_cold"  # head_dim < 64 / head_dim >= 64


def lab_weights(view: View, *, scale: bool = True, temperature: float = 1.0) -> np.ndarray:
    """(H, Tq, Tk) weights for the view's own q, k and mask, through ``attention_steps(scale=, temperature=)``.

    With the defaults this is the module's computation again, so it equals ``view.weights``.
    """
    temperature = check_temperature(temperature)
    q, k, v = (torch.tensor(a) for a in (view.q, view.k, view.v))  # (H, T, head_dim), copies: a View is read-only
    mask = torch.tensor(view.allowed)  # (H, Tq, Tk) True = may attend
    steps = attention_steps(q, k, v, mask, scale=scale, temperature=temperature)
    return steps.weights.numpy().copy()


@dataclass(frozen=True)
class Sweep:
    """Mean statistics of random attention rows at each head_dim, with and without 1/sqrt(head_dim).

    Plain tuples of floats: cheap to cache and to pickle.
    """

    head_dims: tuple[int, ...]
    entropy_scaled: tuple[float, ...]
    entropy_unscaled: tuple[float, ...]
    max_scaled: tuple[float, ...]
    max_unscaled: tuple[float, ...]
    grad_scaled: tuple[float, ...]
    grad_unscaled: tuple[float, ...]
    uniform_entropy: float  # log2(n_tokens) bits: the largest possible entropy
    n_tokens: int
    n_samples: int


def head_dim_sweep(head_dims=SWEEP_HEAD_DIMS, n_tokens: int = 8, n_samples: int = 64, seed: int = 0) -> Sweep:
    """Random q and k with unit-variance entries (n_samples sequences of n_tokens) at each head_dim.

    A dot product of head_dim such terms has variance head_dim: unscaled scores spread like sqrt(head_dim) and
    softmax saturates; divided by sqrt(head_dim) they keep variance 1 at every size.
    """
    head_dims = tuple(int(d) for d in head_dims)
    if not head_dims or min(head_dims) < 1:
        raise ValueError(f"head_dims must be positive integers, got {head_dims}.")
    if n_tokens < 2 or n_samples < 1:
        raise ValueError(f"need at least 2 tokens and 1 sample, got n_tokens={n_tokens}, n_samples={n_samples}.")
    g = torch.Generator().manual_seed(int(seed))
    out: dict[str, list[float]] = {k: [] for k in ("es", "eu", "ms", "mu", "gs", "gu")}
    for d in head_dims:
        q = torch.randn(n_samples, n_tokens, d, generator=g, dtype=torch.float64)  # (S, Tq, head_dim)
        k = torch.randn(n_samples, n_tokens, d, generator=g, dtype=torch.float64)  # (S, Tk, head_dim)
        v = torch.zeros(n_samples, n_tokens, 1, dtype=torch.float64)  # the output is not studied here
        for scaled, (e, m, gr) in ((True, ("es", "ms", "gs")), (False, ("eu", "mu", "gu"))):
            stats = row_stats(attention_steps(q, k, v, scale=scaled).weights.numpy())
            out[e].append(float(stats.entropy.mean()))
            out[m].append(float(stats.max_weight.mean()))
            out[gr].append(float(stats.grad_norm.mean()))
    return Sweep(head_dims=head_dims, entropy_scaled=tuple(out["es"]), entropy_unscaled=tuple(out["eu"]),
                 max_scaled=tuple(out["ms"]), max_unscaled=tuple(out["mu"]), grad_scaled=tuple(out["gs"]),
                 grad_unscaled=tuple(out["gu"]), uniform_entropy=math.log2(n_tokens), n_tokens=int(n_tokens),
                 n_samples=int(n_samples))
