"""Heads, measured and compared. Pure numpy + torch: no Streamlit here.

Everything takes the arrays a ``View`` carries (weights (H, Tq, Tk), q (H, Tq, head_dim), ...) or a module and
its inputs, so it can be tested on hand-built matrices. Vocabulary as in ``mha.core.attention``; one more word from
TransformerLens: a head's **result** is its head output pushed through its own slice of ``output_linear``
(H, Tq, d_model), so that ``output = bias + sum of the results``.

Ablation goes through ``MultiHeadAttention.trace(..., head_mask=...)``: the module is never changed (the modules
from ``mha.weights.view.build_model`` are shared by every visitor).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import pandas as pd
import torch

from mha.core.attention import MultiHeadAttention
from mha.core.clicks import clicked_pair
from mha.core.inputs import token_inputs
from mha.core.masks import causal_mask
from mha.weights.view import model_for, run_view, spec_inputs

_EPS = 1e-12

# Columns of the statistics table: stable names (the page translates the headers).
STAT_COLUMNS = ("head", "entropy", "distance", "diagonal", "previous", "max_weight", "sink", "sink_share")




# ----------------------------------------------------------------------------------------------- statistics
def valid_rows(weights: np.ndarray) -> np.ndarray:
    """(..., Tq) bool: rows that attend to something. A fully masked query row has weights exactly 0."""
    return np.asarray(weights).sum(axis=-1) > 0.5


def row_entropy(weights: np.ndarray) -> np.ndarray:
    """(..., Tq) entropy of each query row in bits: 0 = all attention on one key, log2(n) = spread evenly over n.
    A fully masked row (all 0) gets 0."""
    w = np.asarray(weights, dtype=np.float64)
    logs = np.log2(np.where(w > 0, w, 1.0))  # 0 * log 0 = 0
    return np.maximum(-(w * logs).sum(axis=-1), 0.0)


def _row_mean(x: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """(H, Tq) -> (H,) mean over the valid query rows (0 where a head has none)."""
    n = valid.sum(axis=-1)
    return np.where(n > 0, (x * valid).sum(axis=-1) / np.maximum(n, 1), 0.0)


def _require_square(weights: np.ndarray, what: str) -> None:
    if weights.shape[-2] != weights.shape[-1]:
        raise ValueError(
            f"{what} needs queries and keys from the same sentence (Tq == Tk), got Tq={weights.shape[-2]} and "
            f"Tk={weights.shape[-1]}: positions of two different texts cannot be compared."
        )


def mean_distance(weights: np.ndarray) -> np.ndarray:
    """(H,) mean over query rows of sum_j w_ij * |i - j|: how many positions away a head looks, on average."""
    w = np.asarray(weights, dtype=np.float64)
    _require_square(w, "Attention distance")
    T = w.shape[-1]
    dist = np.abs(np.arange(T)[:, None] - np.arange(T)[None, :])  # (T, T)
    return _row_mean((w * dist).sum(axis=-1), valid_rows(w))


def diagonal_share(weights: np.ndarray) -> np.ndarray:
    """(H,) mean over query rows of w_ii: the share of attention a token keeps for itself."""
    w = np.asarray(weights, dtype=np.float64)
    _require_square(w, "The diagonal share")
    return _row_mean(np.diagonal(w, axis1=-2, axis2=-1), valid_rows(w))


def previous_share(weights: np.ndarray) -> np.ndarray:
    """(H,) mean over query rows i >= 1 of w_i,i-1: the share on the token just before (a "previous-token head"
    in a trained model puts almost all of it there)."""
    w = np.asarray(weights, dtype=np.float64)
    _require_square(w, "The previous-token share")
    if w.shape[-1] < 2:
        return np.zeros(w.shape[0])
    prev = np.diagonal(w, offset=-1, axis1=-2, axis2=-1)  # (H, T-1): w[i, i-1] for i = 1..T-1
    return _row_mean(prev, valid_rows(w)[:, 1:])


@dataclass(frozen=True)
class HeadStats:
    """Per-head measurements of one weight map (H, Tq, Tk). ``None`` where Tq != Tk makes a number meaningless."""

    entropy: np.ndarray  # (H, Tq) bits per query row (0 for a fully masked row)
    valid: np.ndarray  # (H, Tq) bool: rows that attend to something
    entropy_mean: np.ndarray  # (H,) mean over valid rows
    max_entropy: np.ndarray  # (H, Tq) log2(number of keys the row may attend to): the evenly-spread ceiling
    max_weight: np.ndarray  # (H,) the largest single weight
    received: np.ndarray  # (H, Tk) mean weight each key receives over the valid query rows
    sink: np.ndarray  # (H,) int: the key that receives the most attention
    sink_share: np.ndarray  # (H,) its mean weight
    distance: Optional[np.ndarray] = None  # (H,) mean attention distance in positions
    diagonal: Optional[np.ndarray] = None  # (H,) mean weight on itself
    previous: Optional[np.ndarray] = None  # (H,) mean weight on the previous token

    @property
    def num_heads(self) -> int:
        return self.entropy.shape[0]


def head_stats(weights: np.ndarray, allowed: Optional[np.ndarray] = None) -> HeadStats:
    """Measure every head of ``weights`` (H, Tq, Tk). ``allowed`` (H, Tq, Tk) bool, True = may attend, gives the
    entropy ceiling per row (default: every key allowed)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 3:
        raise ValueError(f"weights must have shape (H, Tq, Tk), got {w.shape}.")
    H, Tq, Tk = w.shape
    valid = valid_rows(w)  # (H, Tq)
    n_allowed = np.full((H, Tq), Tk) if allowed is None else np.asarray(allowed, dtype=bool).sum(axis=-1)
    entropy = row_entropy(w)
    received = (w * valid[..., None]).sum(axis=1) / np.maximum(valid.sum(axis=1), 1)[:, None]  # (H, Tk)
    square = Tq == Tk
    return HeadStats(
        entropy=entropy, valid=valid, entropy_mean=_row_mean(entropy, valid),
        max_entropy=np.log2(np.maximum(n_allowed, 1)).astype(np.float64),
        max_weight=w.reshape(H, -1).max(axis=-1) if w.size else np.zeros(H),
        received=received, sink=received.argmax(axis=-1), sink_share=received.max(axis=-1),
        distance=mean_distance(w) if square else None,
        diagonal=diagonal_share(w) if square else None,
        previous=previous_share(w) if square else None,
    )


def stats_table(stats: HeadStats, key_labels: Sequence[str]) -> pd.DataFrame:
    """One row per head with the columns of ``STAT_COLUMNS`` (those that exist for this shape)."""
    cols = {
        "head": np.arange(stats.num_heads),
        "entropy": stats.entropy_mean,
        "distance": stats.distance,
        "diagonal": stats.diagonal,
        "previous": stats.previous,
        "max_weight": stats.max_weight,
        "sink": [f"{j}: {key_labels[j]}" for j in stats.sink],
        "sink_share": stats.sink_share,
    }
    return pd.DataFrame({k: v for k, v in cols.items() if v is not None})


# ----------------------------------------------------------------------------------------------- similarity
def js_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen-Shannon divergence in bits between distributions on the last axis: 0 = identical, 1 = no overlap.
    Symmetric and always finite (unlike KL, a zero in one row is fine)."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    m = 0.5 * (p + q)

    def kl(a, b):  # sum a log2(a / b) over a > 0 (then b >= a/2 > 0)
        return (a * np.log2(np.where(a > 0, a, 1.0) / np.where(a > 0, b, 1.0))).sum(axis=-1)

    return np.clip(0.5 * kl(p, m) + 0.5 * kl(q, m), 0.0, 1.0)


def head_similarity(weights: np.ndarray, metric: str = "js") -> np.ndarray:
    """(H, H) comparison of the heads' weight maps.

    ``js``: mean over query rows of the Jensen-Shannon divergence of the two heads' rows (0 = same pattern).
    ``cosine``: cosine of the flattened maps (1 = same pattern; weights are >= 0, so never below 0).
    Rows fully masked in either head are left out.
    """
    w = np.asarray(weights, dtype=np.float64)  # (H, Tq, Tk)
    H = w.shape[0]
    if metric == "js":
        valid = valid_rows(w)  # (H, Tq)
        both = valid[:, None, :] & valid[None, :, :]  # (H, H, Tq)
        js = js_divergence(w[:, None], w[None, :])  # (H, H, Tq)
        out = np.where(both.any(-1), (js * both).sum(-1) / np.maximum(both.sum(-1), 1), 0.0)
        np.fill_diagonal(out, 0.0)
        return out
    if metric == "cosine":
        flat = w.reshape(H, -1)
        norms = np.linalg.norm(flat, axis=1)
        out = flat @ flat.T / np.maximum(np.outer(norms, norms), _EPS)
        return np.clip(out, 0.0, 1.0)
    raise ValueError(f"metric must be 'js' or 'cosine', got {metric!r}.")


def most_alike(sim: np.ndarray, metric: str) -> tuple[int, int]:
    """The pair of different heads whose patterns are most alike (lowest JS, highest cosine); (0, 0) for H = 1."""
    H = sim.shape[0]
    if H < 2:
        return 0, 0
    s = np.where(np.eye(H, dtype=bool), np.inf if metric == "js" else -np.inf, sim)
    flat = s.argmin() if metric == "js" else s.argmax()
    a, b = divmod(int(flat), H)
    return min(a, b), max(a, b)


def pair_from_event(event, num_heads: int) -> Optional[tuple[int, int]]:
    """The (head a, head b) a click on the similarity heatmap selected, or None. The event is Streamlit's dict:
    ``{"selection": {"points": [{"customdata": [a, b], ...}]}}``; a typed-array customdata arrives as
    ``{"0": a, "1": b}`` instead, which is read too."""
    pair = clicked_pair(event)
    return pair if pair is not None and all(0 <= h < num_heads for h in pair) else None


# ----------------------------------------------------------------------------------------------- ablation
def head_results(model: MultiHeadAttention, head_outputs) -> np.ndarray:
    """(H, Tq, d_model): each head's output through its own slice of ``output_linear`` (no bias).

    output_linear(concat) = concat @ W.T + b, and concat is the heads side by side, so
    output = b + sum_h head_outputs[h] @ W[:, h*head_dim:(h+1)*head_dim].T."""
    z = torch.tensor(np.asarray(head_outputs), dtype=torch.float64)  # (H, Tq, head_dim)
    H, hd = model.num_heads, model.head_dim
    if z.dim() != 3 or z.shape[0] != H or z.shape[-1] != hd:
        raise ValueError(f"head_outputs must have shape (H={H}, Tq, head_dim={hd}), got {tuple(z.shape)}.")
    W = model.output_linear.weight.detach().to(torch.float64)  # (d_model, d_model) = (out, in)
    W_h = W.view(model.d_model, H, hd).permute(1, 2, 0)  # (H, head_dim, d_model): head h's columns, transposed
    return torch.matmul(z, W_h).numpy()  # (H, Tq, d_model)


def head_mask_for(num_heads: int, heads_off: Sequence[int]) -> torch.Tensor:
    """(H,) 1 = kept, 0 = switched off. Unknown head numbers raise with the valid range."""
    bad = [h for h in heads_off if not 0 <= int(h) < num_heads]
    if bad:
        raise ValueError(f"heads {bad} do not exist: this module has heads 0..{num_heads - 1}.")
    mask = torch.ones(num_heads)
    mask[list(int(h) for h in heads_off)] = 0.0
    return mask


@dataclass(frozen=True)
class Ablation:
    """The same input with and without some heads. Arrays (Tq, ...) with the batch axis dropped."""

    heads_off: tuple[int, ...]
    output: np.ndarray  # (Tq, d_model) every head kept
    ablated: np.ndarray  # (Tq, d_model) heads_off zeroed before output_linear
    change: np.ndarray  # (Tq,) ||ablated - output|| per token
    output_norm: np.ndarray  # (Tq,) ||output|| per token, for scale
    results: np.ndarray  # (H, Tq, d_model) each head's contribution (head_results)
    bias: np.ndarray  # (d_model,) output_linear.bias: what is left when every head is off


def ablate(model: MultiHeadAttention, x_q, x_kv=None, mask=None, heads_off: Sequence[int] = ()) -> Ablation:
    """Run ``model`` on one sequence twice, once with ``heads_off`` switched off via ``trace(head_mask=...)``.

    x_q (Tq, d_model); x_kv (Tk, d_model), default x_q (self-attention); mask broadcastable to (H, Tq, Tk),
    True = may attend. The module is only read, never changed."""
    xq = torch.tensor(np.asarray(x_q), dtype=model.output_linear.weight.dtype).unsqueeze(0)  # (1, Tq, D)
    xkv = xq if x_kv is None else torch.tensor(np.asarray(x_kv), dtype=xq.dtype).unsqueeze(0)  # (1, Tk, D)
    m = None if mask is None else torch.tensor(np.asarray(mask, dtype=bool)).unsqueeze(0)  # (1, H, Tq, Tk)
    off = tuple(sorted({int(h) for h in heads_off}))
    with torch.no_grad():
        full = model.trace(xq, xkv, xkv, m)
        cut = model.trace(xq, xkv, xkv, m, head_mask=head_mask_for(model.num_heads, off))
    out, abl = full.output[0].double().numpy(), cut.output[0].double().numpy()
    return Ablation(
        heads_off=off, output=out, ablated=abl, change=np.linalg.norm(abl - out, axis=-1),
        output_norm=np.linalg.norm(out, axis=-1), results=head_results(model, full.head_outputs[0]),
        bias=model.output_linear.bias.detach().double().numpy().copy(),
    )


def ablate_view(view, heads_off: Sequence[int], *, state_dict: Optional[dict] = None) -> Ablation:
    """``ablate`` on the sentence a View shows, with the module it ran on (seeded, or ``state_dict``)."""
    return ablate(model_for(view.spec, state_dict), view.x, view.x_kv, view.allowed, heads_off)


def sanitize_heads(values, num_heads: int) -> list[int]:
    """Keep the head numbers that exist for ``num_heads`` (e.g. after num_heads was lowered), sorted, unique."""
    out = set()
    for v in values or ():
        try:
            h = int(v)
        except (TypeError, ValueError):
            continue
        if 0 <= h < num_heads:
            out.add(h)
    return sorted(out)


# ----------------------------------------------------------------------------------------------- what heads do
def head_patterns(view, first: Optional[int] = None) -> Optional[pd.DataFrame]:
    """What each head of a self-attention View does: its best-matching known pattern (``mha.weights.train.match_heads``:
    previous, next, first, last, self, same word, reverse, special tokens and punctuation, broad) with its score,
    the runner-up, and a broad head's sink (``sink``, ``sink_share``), measured on the shown sentence's real tokens
    (padding left out). One row per head; None for cross-attention or fewer than two real tokens (no pattern can be
    told apart).

    ``first``: also score the same pattern on the first ``first`` queries only (column ``score_first``): trained
    heads learned on short sequences and look elsewhere past them, which lowers the whole sentence's score."""
    from mha.weights.train import match_heads, pattern_matrix

    if view.is_cross or view.weights.shape[1] != view.weights.shape[2]:
        return None
    real = np.flatnonzero(~np.asarray(view.query_is_pad, dtype=bool)) if view.query_is_pad is not None \
        else np.arange(view.weights.shape[1])
    if len(real) < 2:
        return None
    w = np.asarray(view.weights, dtype=np.float64)[:, real][:, :, real]  # (H, T, T) real tokens only
    allowed = np.asarray(view.allowed, dtype=bool)[0][real][:, real]  # (T, T): the same mask for every head
    tokens = [view.tokens[i] for i in real]
    rows = []
    for m in match_heads(w, tokens, allowed):
        ranked = sorted(m.scores.items(), key=lambda kv: -kv[1])
        second = next((kv for kv in ranked if kv[0] != m.pattern), (m.pattern, m.score))
        rows.append({"head": m.head, "pattern": m.pattern, "score": m.score, "runner_up": second[0],
                     "runner_up_score": second[1], "sink": m.sink, "sink_share": m.sink_share})
    if first is not None:
        for row in rows:
            p = pattern_matrix(row["pattern"], len(real), tokens, allowed)  # (T, T)
            row["score_first"] = float(np.nanmean(row_scores(w[row["head"]], p, allowed)[:first]))
    return pd.DataFrame(rows)


def row_scores(weights: np.ndarray, pattern: np.ndarray, allowed: Optional[np.ndarray] = None) -> np.ndarray:
    """(Tq,) one head's closeness to a pattern, query by query: 1 - the total variation distance between the two
    rows (``mha.weights.train.pattern_scores`` is their mean). A fully masked row (all False in ``allowed``) scores
    NaN."""
    w, p = np.asarray(weights, dtype=np.float64), np.asarray(pattern, dtype=np.float64)
    if w.shape != p.shape or w.ndim != 2:
        raise ValueError(f"weights {w.shape} and pattern {p.shape} must be the same (Tq, Tk).")
    out = 1.0 - 0.5 * np.abs(w - p).sum(axis=-1)
    if allowed is not None:
        out[~np.asarray(allowed, dtype=bool).any(axis=-1)] = np.nan
    return out


# ----------------------------------------------------------------------------------------------- queries and keys
@dataclass(frozen=True)
class QKProjection:
    """q and k of one head in one shared 2D plane (PCA of all the vectors together)."""

    q2: np.ndarray  # (Tq, 2)
    k2: np.ndarray  # (Tk, 2)
    explained: np.ndarray  # (2,) share of the total variance each axis keeps
    components: np.ndarray  # (2, head_dim) the plane's axes (rows; zero row where head_dim == 1)
    center: np.ndarray  # (head_dim,) mean of all the vectors, subtracted first


def qk_pca(q, k) -> QKProjection:
    """Project q (Tq, head_dim) and k (Tk, head_dim) with **one** PCA fitted on both, so the picture compares them.
    Signs are fixed (largest loading positive) so the picture does not flip between runs."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k must be (Tq, head_dim) and (Tk, head_dim), got {q.shape} and {k.shape}.")
    X = np.concatenate([q, k])  # (Tq + Tk, head_dim)
    center = X.mean(axis=0)
    _, s, vt = np.linalg.svd(X - center, full_matrices=False)  # vt: (min(n, hd), hd)
    comps = np.zeros((2, X.shape[1]))
    n = min(2, vt.shape[0])
    comps[:n] = vt[:n]
    for r in range(n):
        if comps[r, np.abs(comps[r]).argmax()] < 0:
            comps[r] = -comps[r]
    total = float((s ** 2).sum())
    explained = np.zeros(2)
    if total > _EPS:
        explained[:n] = s[:n] ** 2 / total
    proj = (X - center) @ comps.T  # (Tq + Tk, 2)
    return QKProjection(q2=proj[: len(q)], k2=proj[len(q):], explained=explained, components=comps, center=center)


def top_keys(weights_row, allowed_row=None, k: int = 3) -> np.ndarray:
    """Indices of the ``k`` keys with the largest weight in one query row (blocked keys never), largest first."""
    w = np.asarray(weights_row, dtype=np.float64)
    ok = np.ones_like(w, dtype=bool) if allowed_row is None else np.asarray(allowed_row, dtype=bool)
    idx = np.flatnonzero(ok)
    order = idx[np.argsort(-w[idx], kind="stable")]
    return order[: max(0, int(k))]


def nearest_keys(proj: QKProjection, query: int, k: int = 3, allowed_row=None) -> np.ndarray:
    """The ``k`` keys closest to query ``query`` in the 2D picture (what the eye reads), closest first."""
    d = np.linalg.norm(proj.k2 - proj.q2[query], axis=-1)
    ok = np.ones_like(d, dtype=bool) if allowed_row is None else np.asarray(allowed_row, dtype=bool)
    idx = np.flatnonzero(ok)
    return idx[np.argsort(d[idx], kind="stable")][: max(0, int(k))]


# ----------------------------------------------------------------------------------------------- order and positions
def permutation(n: int, seed: int) -> np.ndarray:
    """A reproducible shuffle of range(n) for ``seed``; never the identity when n >= 2 (a shuffle must move)."""
    if n < 1:
        return np.zeros(0, dtype=int)
    perm = np.random.default_rng(int(seed)).permutation(n)
    if n >= 2 and (perm == np.arange(n)).all():
        perm = np.roll(perm, 1)
    return perm


@dataclass(frozen=True)
class PermutationCheck:
    """The sentence and a shuffle of it, through the same module. ``perm[i]`` = original position now at i."""

    perm: np.ndarray  # (T,)
    weights: np.ndarray  # (H, T, T) original order
    shuffled_weights: np.ndarray  # (H, T, T) shuffled order
    output: np.ndarray  # (T, d_model) original order
    shuffled_output: np.ndarray  # (T, d_model) shuffled order
    output_error: float  # max |shuffled_output - output[perm]|: 0 = outputs moved with their tokens
    weights_error: float  # max |shuffled_weights - weights[:, perm][:, :, perm]|

    def equivariant(self, tol: float = 1e-4) -> bool:
        return self.output_error <= tol * max(1.0, float(np.abs(self.output).max(initial=0.0)))

    def put_back(self) -> np.ndarray:
        """(H, T, T) the shuffled run's weights with rows and columns moved back to the original order: equal to
        ``weights`` exactly when the module is permutation-equivariant on this input."""
        back = np.argsort(self.perm)  # where each original token went
        return self.shuffled_weights[:, back][:, :, back]


def permutation_check(model: MultiHeadAttention, tokens: Sequence[str], seed: int, perm, positional: bool,
                      causal: bool = False, spec=None) -> PermutationCheck:
    """Self-attention on ``tokens`` and on the same tokens shuffled by ``perm``; embeddings of ``seed``, made as the
    weight source of ``spec`` (a ViewSpec) makes them (``mha.weights.view.spec_inputs``: the trained layout for trained
    weights); without ``spec``, the Playground's inputs.

    Without positional encoding (and without a causal mask) attention is permutation-equivariant: shuffling the
    input shuffles the output the same way, nothing else changes. Positions (or a causal mask, which is a statement
    about positions) break that."""
    perm = np.asarray(perm, dtype=int)
    T = len(tokens)
    if sorted(perm.tolist()) != list(range(T)):
        raise ValueError(f"perm must be a permutation of 0..{T - 1}, got {perm.tolist()}.")
    mask = causal_mask(T) if causal else None  # (T, T), broadcast over batch and heads

    def run(toks):
        if spec is None:
            x = token_inputs(list(toks), model.d_model, seed, positional=positional)
        else:
            x = spec_inputs(list(toks), dataclasses.replace(spec, seed=int(seed), positional=positional))
        x = x.unsqueeze(0)  # (1, T, d_model)
        with torch.no_grad():
            tr = model.trace(x, x, x, mask)
        return tr.weights[0].double().numpy(), tr.output[0].double().numpy()

    w, out = run(tokens)
    ws, outs = run([tokens[i] for i in perm])
    return PermutationCheck(
        perm=perm, weights=w, shuffled_weights=ws, output=out, shuffled_output=outs,
        output_error=float(np.abs(outs - out[perm]).max(initial=0.0)),
        weights_error=float(np.abs(ws - w[:, perm][:, :, perm]).max(initial=0.0)),
    )


def permutation_checks(spec, tokens: Sequence[str], shuffle: int, *,
                       state_dict: Optional[dict] = None) -> dict[bool, PermutationCheck]:
    """{positional: its check} for both settings of positional encoding: ``tokens`` against their shuffle number
    ``shuffle`` (``permutation``), through the module of ``spec`` (seeded, or ``state_dict``)."""
    model = model_for(spec, state_dict)
    perm = permutation(len(tokens), shuffle)
    return {p: permutation_check(model, tokens, spec.seed, perm, positional=p, causal=spec.causal, spec=spec)
            for p in (False, True)}


@dataclass(frozen=True)
class RepeatedToken:
    token: str
    positions: tuple[int, ...]
    weights_gap: float  # max |row difference| over heads and pairs of positions
    output_gap: float  # max |output difference|


def repeated_rows(tokens: Sequence[str], weights: np.ndarray, output: np.ndarray,
                  ignore: Sequence[str] = ()) -> list[RepeatedToken]:
    """For every token that occurs more than once (except those in ``ignore``, e.g. padding): how different its
    occurrences' weight rows and outputs are. Without positions (and mask) they are the same vector, so their
    rows are identical: gap 0."""
    w = np.asarray(weights, dtype=np.float64)  # (H, Tq, Tk)
    out = np.asarray(output, dtype=np.float64)  # (Tq, d_model)
    groups: dict[str, list[int]] = {}
    for i, tok in enumerate(tokens):
        groups.setdefault(tok, []).append(i)
    found = []
    for tok, pos in groups.items():
        if len(pos) > 1 and tok not in ignore:
            first = pos[0]
            found.append(RepeatedToken(
                token=tok, positions=tuple(pos),
                weights_gap=float(max(np.abs(w[:, p] - w[:, first]).max() for p in pos[1:])),
                output_gap=float(max(np.abs(out[p] - out[first]).max() for p in pos[1:])),
            ))
    return found


def repeated_table(without_positions: list[RepeatedToken], with_positions: list[RepeatedToken]) -> pd.DataFrame:
    """One row per repeated token: its positions and the largest weight-row difference without / with positions.
    Both lists come from the same tokens (the positional setting does not change the tokens)."""
    return pd.DataFrame({
        "token": [r.token for r in without_positions],
        "positions": [", ".join(map(str, r.positions)) for r in without_positions],
        "gap_off": [r.weights_gap for r in without_positions],
        "gap_on": [r.weights_gap for r in with_positions],
    })


# ----------------------------------------------------------------------------------------------- seeds
def seed_list(seed: int, n: int = 4, max_seed: int = 9999) -> list[int]:
    """The learner's seed and the next ``n - 1`` (wrapping past ``max_seed``)."""
    return [(int(seed) + i) % (max_seed + 1) for i in range(n)]


def seed_patterns(spec, seeds: Sequence[int], head: int, state_dict: Optional[dict] = None) -> np.ndarray:
    """(S, Tq, Tk) head ``head``'s weights for each seed, everything else as in ``spec`` (a ViewSpec). With
    ``state_dict`` (uploaded weights) only the embeddings change with the seed."""
    return np.stack([run_view(dataclasses.replace(spec, seed=int(s)), state_dict=state_dict).weights[head]
                     for s in seeds])


def seed_spread(mats: np.ndarray, allowed: Optional[np.ndarray] = None) -> float:
    """How far one head's maps (S, Tq, Tk) under S seeds are from the first seed's: the largest, over seeds, mean
    over query rows of the total variation distance between the two rows (0 = the same pattern in every seed, 1 =
    no key in common). Fully masked rows (``allowed`` (Tq, Tk) all False) are left out."""
    m = np.asarray(mats, dtype=np.float64)
    if m.ndim != 3 or len(m) < 2:
        raise ValueError(f"mats must have shape (S, Tq, Tk) with S >= 2 seeds, got {m.shape}.")
    rows = np.ones(m.shape[1], dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool).any(axis=-1)
    if allowed is not None and np.shape(allowed) != m.shape[1:]:
        raise ValueError(f"allowed has shape {np.shape(allowed)}, the maps {m.shape[1:]}.")
    if not rows.any():
        return 0.0
    tv = 0.5 * np.abs(m[1:] - m[:1]).sum(axis=-1)  # (S-1, Tq)
    return float(tv[:, rows].mean(axis=1).max())


def seed_table(mats: np.ndarray, seeds: Sequence[int], allowed: Optional[np.ndarray],
               key_labels: Sequence[str]) -> pd.DataFrame:
    """One row per seed for one head's maps (S, Tq, Tk): mean entropy, largest weight and sink key."""
    stats = head_stats(np.asarray(mats), None if allowed is None else np.broadcast_to(allowed, np.shape(mats)))
    return pd.DataFrame({"seed": list(seeds), "entropy": stats.entropy_mean, "max_weight": stats.max_weight,
                         "sink": [key_labels[int(j)] for j in stats.sink]})
