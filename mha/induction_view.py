"""What the Induction page says about a trained two-layer model, as plain data. Pure (no Streamlit).

``text_view`` runs one snapshot of an ``mha.induction.InductionRun`` on the learner's text (repeated, mapped onto the
trained vocabulary with ``map_text``), names each head's role from the held-out scores of that snapshot, says where
each head points from a picked query, and switches the layer-1 head that layer 2 builds on off (``ablate_each``: the
head whose removal lowers the induction score most) to show the stripe disappear and the copy loss rise.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from mha import induction as ind
from mha.masks import causal_mask

ROLE_AT = 0.5  # a held-out score at least this high names the head's role


@dataclass(frozen=True)
class HeadRole:
    layer: int  # 0 = layer 1
    head: int
    role: str  # "previous" | "duplicate" | "induction" | "none"
    score: float  # the held-out score behind the role (the best one when "none")
    key: int  # where the head attends most from the picked query (on the text)
    weight: float  # that weight


@dataclass(frozen=True)
class TextView:
    text: ind.TextTokens
    attention: ind.TextAttention  # every head on
    ablated: ind.TextAttention  # the layer-1 head ``builds_on`` off
    builds_on: ind.Ablation  # on / off measurements on held-out sequences
    roles: tuple[tuple[HeadRole, ...], ...]  # per layer, per head
    query: int
    target: Optional[int]  # the key an induction head should attend to from ``query`` (None: no earlier copy)
    allowed: np.ndarray  # (T, T) bool: the causal mask, True = may attend


def checkpoint_at(run: ind.InductionRun, step: int) -> ind.Checkpoint:
    """The latest checkpoint at or before ``step`` (held-out scores are measured at every checkpoint)."""
    kept = [cp for cp in run.checkpoints if cp.step <= step]
    if not kept:
        raise ValueError(f"no checkpoint at or before step {step}.")
    return kept[-1]


def roles(measured: ind.Measurement, weights: tuple[np.ndarray, ...],
          query: int) -> tuple[tuple[HeadRole, ...], ...]:
    """Each head's role from held-out scores, and where it points from ``query`` in ``weights`` (per layer, (H, T,
    T))."""
    out = []
    for layer, w in enumerate(weights):
        pointers = ind.points_to(w, query)
        if layer == 0:
            named = {"previous": measured.previous_token_scores, "duplicate": measured.duplicate_token_scores}
        else:
            named = {"induction": measured.induction_scores}
        heads = []
        for p in pointers:
            best = max(named, key=lambda n: named[n][p.head])
            score = float(named[best][p.head])
            heads.append(HeadRole(layer=layer, head=p.head, role=best if score >= ROLE_AT else "none", score=score,
                                  key=p.key, weight=p.weight))
        out.append(tuple(heads))
    return tuple(out)


def text_view(run: ind.InductionRun, step: int, text: str, query: Optional[int] = None) -> TextView:
    """The snapshot at ``step`` on ``text`` (repeated). ``query`` None: the second token of the second copy.
    Raises mha.text.TextError for an empty text, ValueError for a query out of range."""
    c = run.config
    model = run.model_at(step)
    tokens = ind.map_text(text, vocab_size=c.vocab_size, seq_len=c.seq_len)
    T = len(tokens.ids)
    if query is None:
        query = min(tokens.half + 1, T - 1)
    if not 0 <= query < T:
        raise ValueError(f"query must be from 0 to {T - 1}, got {query}.")
    measured = checkpoint_at(run, step).measured
    on = ind.attend_text(model, tokens)
    abl = max(ind.ablate_each(model, config=c), key=lambda a: a.induction_drop)
    off = ind.attend_text(model, tokens, ind.heads_off(model, 0, [abl.head]))
    return TextView(text=tokens, attention=on, ablated=off, builds_on=abl, roles=roles(measured, on.weights, query),
                    query=query, target=ind.induction_target(tokens.ids, query),
                    allowed=causal_mask(T).numpy().astype(bool))
