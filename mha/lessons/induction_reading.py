"""What the Induction page says about a trained two-layer model, as plain data. Pure (no Streamlit).

``read_snapshot`` runs one snapshot of an ``mha.lessons.induction.InductionRun`` on the learner's text (repeated, mapped
onto the trained vocabulary with ``map_text``), names each head's role from the held-out scores of that snapshot,
measures each head on the text itself (the head enlarged is the one that does induction most *there*: a head that does
it on held-out sequences may be a first-token sink on a short sentence), says where each head points from a picked
query, and switches the layer-1 head that layer 2 builds on off (``ablate_each``: the
head whose removal lowers the induction score most) to show the stripe disappear and the copy loss rise.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from mha.core.masks import causal_mask
from mha.lessons import induction as ind

ROLE_AT = 0.5  # a held-out score at least this high names the head's role


@dataclass(frozen=True)
class HeadRole:
    layer: int  # 0 = layer 1
    head: int
    role: str  # "previous" | "duplicate" | "induction" | "none"
    score: float  # the held-out score behind the role (the best one when "none")
    key: int  # where the head attends most from the picked query (on the text)
    weight: float  # that weight
    on_text: float  # the same kind of score measured on the text shown (induction: layer 2; previous token: layer 1)


@dataclass(frozen=True)
class SnapshotReading:
    text: ind.TextTokens
    attention: ind.TextAttention  # every head on
    ablated: ind.TextAttention  # the layer-1 head ``builds_on`` off
    builds_on: ind.InductionAblation  # on / off measurements on held-out sequences
    roles: tuple[tuple[HeadRole, ...], ...]  # per layer, per head
    query: int
    target: Optional[int]  # the key an induction head should attend to from ``query`` (None: no earlier copy)
    allowed: np.ndarray  # (T, T) bool: the causal mask, True = may attend
    enlarged: int  # the layer-2 head shown large: the one with the highest induction score on the text
    strongest: Optional[int]  # ``enlarged`` when it is an induction head at this snapshot, None before that


def checkpoint_at(run: ind.InductionRun, step: int) -> ind.Checkpoint:
    """The latest checkpoint at or before ``step`` (held-out scores are measured at every checkpoint)."""
    kept = [cp for cp in run.checkpoints if cp.step <= step]
    if not kept:
        raise ValueError(f"no checkpoint at or before step {step}.")
    return kept[-1]


def roles(measured: ind.Measurement, weights: tuple[np.ndarray, ...], query: int,
          on_text: Optional[tuple[np.ndarray, np.ndarray]] = None) -> tuple[tuple[HeadRole, ...], ...]:
    """Each head's role from held-out scores, and where it points from ``query`` in ``weights`` (per layer, (H, T,
    T)). ``on_text``: per layer (H,) the scores measured on the text (``TextAttention``: previous-token, induction);
    None: NaN."""
    out = []
    for layer, w in enumerate(weights):
        here = on_text[layer] if on_text is not None else np.full(w.shape[0], np.nan)
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
                                  key=p.key, weight=p.weight, on_text=float(here[p.head])))
        out.append(tuple(heads))
    return tuple(out)


def read_snapshot(run: ind.InductionRun, step: int, text: str, query: Optional[int] = None) -> SnapshotReading:
    """The snapshot at ``step`` on ``text`` (repeated). ``query`` None: the second token of the second copy.
    Raises mha.core.tokens.TextError for an empty text, ValueError for a query out of range."""
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
    off = ind.attend_text(model, tokens, ind.layer_head_masks(model, 0, [abl.head]))
    named = roles(measured, on.weights, query, (on.previous_token_scores, on.induction_scores))
    enlarged, strongest = strongest_induction(named[1], on.induction_scores)
    return SnapshotReading(text=tokens, attention=on, ablated=off, builds_on=abl, roles=named, query=query,
                    target=ind.induction_target(tokens.ids, query), allowed=causal_mask(T).numpy().astype(bool),
                    enlarged=enlarged, strongest=strongest)


def strongest_induction(layer2: tuple[HeadRole, ...], on_text: np.ndarray) -> tuple[int, Optional[int]]:
    """(the layer-2 head to enlarge, the strongest induction head or None). The head enlarged is chosen on the text
    shown: the highest induction score there (``on_text``, (H,)). It is named the strongest induction head only when
    that snapshot's held-out scores make it one (``role == "induction"``): before the phase change no head is, and
    the page says "none yet" instead of naming one."""
    if len(layer2) != len(on_text):
        raise ValueError(f"{len(layer2)} layer-2 heads but {len(on_text)} scores on the text.")
    best = int(np.argmax(on_text))
    return best, (best if layer2[best].role == "induction" else None)
