"""The guided path "Follow the course" (강의 따라가기): its steps and the numbers each step reveals. Pure Python.

Seven steps follow the course deck (tests/seeds/): Q/K/V and scores, softmax, why scale, why mask, each head's
output and ``combine_heads``, why several heads, what trained heads look like. Each step runs the course's module
on the learner's own sentence (``step_specs``: plain ``ViewSpec`` values, so the app's one cached recipe runs them)
and asks the learner to predict something before it shows the answer; every answer is worked out here from the
module's numbers (``answer_*``), never written in. Random parameters show how the computation goes but no
pattern (every row is ~uniform), so the steps that ask "where does a head look" run on trained heads
(``mha.weights.train``: small copying tasks, trained once per process in about a second).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from mha.weights.train import TRAIN_LEN, content_dim, pattern_matrix, pattern_scores, slot_width
from mha.weights.view import View, ViewSpec, text_batch

STEPS = ("qkv", "softmax", "scale", "mask", "heads", "several", "trained")  # URL: ?step=1 .. 7 (1-based)

# The course's picture of softmax (deck "멀티헤드 자기어텐션"): query "Orange", one weight per key, summing to 1.
COURSE_TOKENS = ("Orange", "is", "my", "favorite", "fruit")
COURSE_WEIGHTS = (0.21, 0.03, 0.05, 0.31, 0.40)

# the tasks' own size (mha.weights.train.TASKS): each trains in ~1 s on one thread, once per process
TRAINED_D_MODEL = 32
TRAINED_HEADS = 4
# trained steps start from seed 0's parameters (the budgets are checked at seeds 0-3: tests/unit/test_train.py)
SEED = 0
SCALE_D_MODEL, SCALE_HEADS = 256, 4  # "why scale": head_dim 64, where dropping 1/sqrt(head_dim) shows


def step_number(value) -> int:
    """A step from a link or a button as 1 .. len(STEPS); anything else is step 1."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        return 1
    return n if 1 <= n <= len(STEPS) else 1


def step_id(number: int) -> str:
    return STEPS[step_number(number) - 1]


def trained_text(text: str, sentence: int = 0) -> tuple[str, int]:
    """The shown sentence (line ``sentence`` of the text) cut to its first TRAIN_LEN tokens, as text, and how many
    tokens it has in full: trained heads learned on sequences of TRAIN_LEN and beyond that position they look
    elsewhere (issue #27.3), so the steps that show what they do run on what they were trained for. Raises
    TextError when the text has nothing visible."""
    batch = text_batch(text)
    b = min(max(int(sentence), 0), batch.size - 1)
    tokens = batch.padded()[b][: batch.lengths[b]]
    return " ".join(tokens[:TRAIN_LEN]), len(tokens)  # the app's tokenizer reads the joined tokens back as they were


def _trained(text: str, sentence: int, task: str, num_heads: int = TRAINED_HEADS, causal: bool = False) -> ViewSpec:
    return ViewSpec(text=trained_text(text, sentence)[0], d_model=TRAINED_D_MODEL, num_heads=num_heads, seed=SEED,
                    source="trained", task=task, causal=causal)


def step_specs(step: str, text: str, sentence: int = 0, *, d_model: int = 16, num_heads: int = 4,
               seed: int = 0) -> dict[str, ViewSpec]:
    """The views a step shows, by name, for the learner's sentence (``d_model``, ``num_heads``, ``seed``: the
    sidebar's, used where the step runs random parameters)."""
    if step in ("qkv", "softmax"):  # a head trained to look at the previous word: its scores have a clear winner
        return {"main": _trained(text, sentence, "previous")}
    if step == "scale":
        return {"main": ViewSpec(text=text, sentence=sentence, d_model=SCALE_D_MODEL, num_heads=SCALE_HEADS,
                                 seed=seed)}
    if step == "mask":  # a head trained to copy the next word: the word a decoder is asked to predict
        return {"free": _trained(text, sentence, "next"), "masked": _trained(text, sentence, "next", causal=True)}
    if step == "heads":
        return {"main": ViewSpec(text=text, sentence=sentence, d_model=d_model, num_heads=num_heads, seed=seed)}
    if step == "several":  # copy the previous AND the next word: one head, then two
        return {"one": _trained(text, sentence, "prev_next", num_heads=1),
                "two": _trained(text, sentence, "prev_next", num_heads=2)}
    if step == "trained":
        return {"main": _trained(text, sentence, "mixed")}
    raise ValueError(f"Unknown course step {step!r}: use one of {list(STEPS)}.")


def playground_params(step: str, text: str, sentence: int = 0, *, d_model: int = 16, num_heads: int = 4,
                      seed: int = 0, head: int | None = None, query: int | None = None,
                      key: int | None = None) -> dict[str, str] | None:
    """Link parameters that open the Playground on what a step shows (None: the step has no Playground view):
    the module ``step_specs`` runs (``d_model``, ``num_heads``, ``seed``: the sidebar's, as there) and what the step
    points at, when given: the enlarged ``head`` and the cell's ``query`` and ``key`` (0-based positions, the
    Playground's ``head``, ``cell_query``, ``cell_key``)."""
    trained = {  # the steps on trained heads: the task and the heads
        "qkv": ("previous", TRAINED_HEADS, {"matrix": "scores"}), "softmax": ("previous", TRAINED_HEADS, {}),
        "mask": ("next", TRAINED_HEADS, {"causal": "true"}), "several": ("prev_next", 1, {}),
        "trained": ("mixed", TRAINED_HEADS, {}),
    }
    if step == "heads":  # random parameters of the sidebar's sizes, on the learner's whole text
        params = {"text": text, "d_model": str(d_model), "num_heads": str(num_heads), "seed": str(seed),
                  **({"sentence": str(sentence)} if sentence else {}), "matrix": "head_outputs"}
    elif step in trained:
        task, heads, extra = trained[step]
        params = {"text": trained_text(text, sentence)[0],  # one sentence, cut: no ``sentence`` parameter
                  "source": "trained", "d_model": str(TRAINED_D_MODEL), "seed": str(SEED), "task": task,
                  "num_heads": str(heads), **extra}
    else:
        return None
    focus = {"head": head, "cell_query": query, "cell_key": key}
    look = {"look": "head"} if head is not None else {}  # the Playground's closer look: that head enlarged
    return {**params, **look, **{name: str(int(v)) for name, v in focus.items() if v is not None}}


def long_for_training(view: View) -> bool:
    """The sentence is longer than the trained heads' training sequences (they were never shown such positions)."""
    return view.spec.source == "trained" and int(view.lengths[view.sentence]) > TRAIN_LEN


# ---------------------------------------------------------------------------------------------- answers


def best_head(weights: np.ndarray, pattern: str, tokens=None) -> int:
    """The head (of (H, T, T) weights) closest to a known pattern (``mha.weights.train.pattern_scores``)."""
    T = weights.shape[-1]
    return int(np.argmax(pattern_scores(weights, pattern_matrix(pattern, T, tokens)[None])[0]))


def default_query(view: View) -> int:
    """The query a step asks about: the sentence's last real token (it has a previous word to look at)."""
    return max(0, int(view.lengths[view.sentence]) - 1)


def top_key(row: np.ndarray, allowed: np.ndarray | None = None) -> int:
    """The key with the largest value in a row (blocked keys left out)."""
    r = np.asarray(row, dtype=np.float64)
    if allowed is not None:
        r = np.where(np.asarray(allowed, dtype=bool), r, -np.inf)
    return int(np.argmax(r))


@dataclass(frozen=True)
class SoftmaxRow:
    """One query's row through softmax: scores, exp(score - max), their sum and the weights."""

    scores: np.ndarray
    exps: np.ndarray
    total: float
    weights: np.ndarray


def softmax_row(scores) -> SoftmaxRow:
    """``F.softmax`` of one row, with the parts the course's formula names (α_i = exp(s_i) / Σ_j exp(s_j))."""
    s = torch.as_tensor(np.asarray(scores, dtype=np.float64))
    exps = torch.exp(s - s.max())  # shifted by the max: the same weights, no overflow
    return SoftmaxRow(scores=s.numpy(), exps=exps.numpy(), total=float(exps.sum()),
                      weights=torch.softmax(s, dim=-1).numpy())


def course_row() -> SoftmaxRow:
    """The course's row back from scores: softmax(log w) = w, since the w sum to 1 (any added constant cancels)."""
    return softmax_row(np.log(np.asarray(COURSE_WEIGHTS)))


@dataclass(frozen=True)
class Cheating:
    """What a head trained to copy the next word does, with and without the causal mask (queries 1 .. T-1: the
    last word has no next word)."""

    head: int  # the head that reads the next word (without the mask)
    weight_next_free: float  # its mean weight on the next word, no mask
    weight_next_masked: float  # the same with the causal mask: exactly 0 (the next word is blocked)
    copied_free: float  # how much of the next word the output holds (1 = all of it, 0 = nothing), no mask
    copied_masked: float  # the same with the causal mask


def copied_share(view: View, n: int) -> float:
    """How much of the next word's content the module's output holds at queries 0 .. n-2: 1 - squared error /
    squared size of the target (the task's first output slot copies the first ``slot_width`` content features of
    the next word, ``mha.weights.train.task_batch``). 1: the output is the next word; 0 or below: nothing of it."""
    w = min(slot_width(view.spec.d_model, 1), content_dim(view.spec.d_model))
    target = view.x[1:n, :w].astype(np.float64)  # the next word's content, for queries 0 .. n-2
    out = view.output[: n - 1, :w].astype(np.float64)
    return float(1.0 - ((out - target) ** 2).sum() / max((target ** 2).sum(), 1e-12))


def cheating(free: View, masked: View) -> Cheating:
    """The mask step's numbers, from the module's own views of the sentence without and with the causal mask."""
    n = int(free.lengths[free.sentence])
    if n < 2:
        raise ValueError("The mask step needs at least 2 words: type a longer sentence.")
    nxt = np.arange(1, n)  # (n-1,) the next word of queries 0 .. n-2
    head = best_head(free.weights[:, :n, :n], "next")
    rows = np.arange(n - 1)
    return Cheating(head=head, weight_next_free=float(free.weights[head, rows, nxt].mean()),
                    weight_next_masked=float(masked.weights[head, rows, nxt].mean()),
                    copied_free=copied_share(free, n), copied_masked=copied_share(masked, n))


def slot_weights(view: View) -> dict[str, float]:
    """prev_next on the learner's sentence: for each slot (previous, next), the best head's mean weight on the key
    the slot must read (real tokens only)."""
    n = int(view.lengths[view.sentence])
    w = view.weights[:, :n, :n]
    out = {}
    for slot in ("previous", "next"):
        scores = pattern_scores(w, pattern_matrix(slot, n)[None])[0]  # (H,)
        out[slot] = float(scores.max())
    return out


def head_roles(view: View) -> list[tuple[str, float]]:
    """For each head, its closest known pattern and how close (``pattern_scores``), on the real tokens."""
    from mha.weights.train import match_heads

    n = int(view.lengths[view.sentence])
    return [(m.pattern, m.score) for m in match_heads(view.weights[:, :n, :n], view.tokens[:n])]
