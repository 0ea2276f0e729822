"""Several sentences, one per line, as one padded batch; a second text for cross-attention. Pure Python + torch.

A batch is a rectangle: every sentence is padded with the visible token ``PAD`` to the longest one (T). Padding
is only there to make the rectangle; the key-padding mask (True = may attend, as everywhere here) keeps every
query from attending to it. Turn the mask off and the pads soak up attention like real words.

Cross-attention: the queries come from ``text``, the keys and values from ``kv_text`` (the course class's
``forward(query, key, value)``), so Tq != Tk in general. ``kv_text`` has one line (used for every sentence) or
one line per sentence of ``text``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import torch

from mha.core.attention import attention_steps
from mha.core.errors import LearnerError
from mha.core.inputs import token_inputs
from mha.core.masks import causal_mask, combine_masks, padding_mask
from mha.core.tokens import TextError, clean_text, safe_label, tokenize

# Brackets are split off by the tokenizer, so a typed "[PAD]" becomes "[", "PAD", "]": never this token.
PAD = "[PAD]"
MAX_SENTENCES = 8  # lines of a batch; the rest is cut with a note


class BatchError(LearnerError):
    """The two texts cannot form a batch (``mha.core.errors``: ``key`` and ``fmt`` name the message for the learner)."""


@dataclass(frozen=True)
class Batch:
    """Sentences of one text, each a tuple of tokens (not padded)."""

    sentences: tuple[tuple[str, ...], ...]
    previews: tuple[str, ...]  # one short display label per sentence (for a selector)
    notes: tuple[str, ...] = ()  # message keys for what was changed (cut, controls removed)
    note_args: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.sentences)

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(len(s) for s in self.sentences)

    @property
    def max_len(self) -> int:
        return max(self.lengths)

    def padded(self) -> tuple[tuple[str, ...], ...]:
        """(B, T) tokens: each sentence followed by PAD up to the longest."""
        return tuple(s + (PAD,) * (self.max_len - len(s)) for s in self.sentences)

    def repeat(self, size: int) -> "Batch":
        """This one-sentence batch used for ``size`` sentences (one kv_text for every query sentence)."""
        return Batch(self.sentences * size, self.previews * size, self.notes, self.note_args)

    def inputs(self, d_model: int, seed: int, positional: bool = True, dtype=torch.float32) -> torch.Tensor:
        """(B, T, d_model) model input. PAD is a token like any other: it has its own vector (and position)."""
        return torch.stack([token_inputs(s, d_model, seed, positional=positional, dtype=dtype) for s in self.padded()])

    def key_padding_mask(self) -> torch.Tensor:
        """(B, 1, 1, T) bool, True = a real token (may be attended to), False = PAD."""
        return padding_mask(self.lengths, max_len=self.max_len)


# A line ends where a text box's Enter ends it. str.splitlines() would also split at invisible controls (\x0b, \x0c,
# \x1c-\x1e, \x85) that look like nothing in the box and are removed from tokens like every other control.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The non-blank lines of ``text`` (a line with nothing visible counts as blank)."""
    return [line for line in _LINE_BREAK.split(text or "") if clean_text(line)[0].strip()]


def make_batch(text: str, *, max_chars: int, max_tokens: int, max_sentences: int = MAX_SENTENCES) -> Batch:
    """One sentence per non-blank line, each cut to ``max_tokens``. Raises TextError when nothing is visible."""
    text = text if isinstance(text, str) else str(text)
    notes: list[str] = []
    args: dict = {}
    if len(text) > max_chars:
        notes.append("note_chars_cut")
        args.update(n_chars=len(text), max_chars=max_chars)
        text = text[:max_chars]
    sentences, previews, removed, longest = [], [], 0, 0
    for line in split_lines(text):
        try:
            toks = tokenize(line)
        except TextError:  # only joiners or the like: nothing to show, like a blank line
            continue
        removed += toks.removed
        longest = max(longest, len(toks.tokens))
        sentences.append(toks.tokens[:max_tokens])
        previews.append(safe_label(" ".join(toks.tokens), max_chars=28))
    if not sentences:
        tokenize("")  # raises the learner-facing TextError
    if removed:
        notes.append("note_controls_removed")
        args.update(n_removed=removed)
    if longest > max_tokens:
        notes.append("note_tokens_cut")
        args.update(n_tokens=longest, max_tokens=max_tokens)
    if len(sentences) > max_sentences:
        notes.append("note_sentences_cut")
        args.update(n_sentences=len(sentences), max_sentences=max_sentences)
        sentences, previews = sentences[:max_sentences], previews[:max_sentences]
    return Batch(tuple(sentences), tuple(previews), tuple(notes), args)


def pair_kv(queries: Batch, kv: Optional[Batch]) -> Batch:
    """The keys/values batch matching ``queries``: itself (self-attention), ``kv`` one line for every sentence,
    or ``kv`` line by line. Raises BatchError when the counts do not fit."""
    if kv is None:
        return queries
    if kv.size == queries.size:
        return kv
    if kv.size == 1:
        return kv.repeat(queries.size)
    raise BatchError(
        "err_kv_lines",
        f"kv_text has {kv.size} lines but the text has {queries.size}: give one line (used for every sentence) "
        f"or one line per sentence.",
        n_kv=kv.size, n_text=queries.size,
    )


def batch_mask(queries: Batch, kv: Batch, *, causal: bool, padding: bool) -> Optional[torch.Tensor]:
    """The mask the view applies, True = may attend: key padding (B, 1, 1, Tk) AND causal (Tq, Tk) -> (B, 1, Tq, Tk).

    ``causal`` is for self-attention only (query i and key i must be the same token): pass ``kv is queries``
    or causal=False for cross-attention; a mismatch raises ValueError.
    """
    tq, tk = queries.max_len, kv.max_len
    if causal and tq != tk:
        raise ValueError(f"a causal mask needs self-attention (Tq == Tk), got Tq={tq}, Tk={tk}.")
    return combine_masks(
        causal_mask(tq) if causal else None,  # (Tq, Tk)
        kv.key_padding_mask() if padding and min(kv.lengths) < tk else None,  # (B, 1, 1, Tk)
    )


# --- masks for one sentence of a view (the Masks page) ----------------------------------------------------------------

MASK_KINDS = ("none", "causal", "padding", "causal_padding", "custom")
CUSTOM_STARTS = ("all", "causal", "row")  # what a custom mask starts from: everything allowed, causal, row 0 blocked
MAX_CUSTOM = 24  # largest Tq and Tk whose mask the learner edits cell by cell


def mask_kinds(is_cross: bool) -> list[str]:
    """The mask kinds that make sense: causal ones need self-attention (query i and key i the same token)."""
    return [k for k in MASK_KINDS if not (is_cross and k.startswith("causal"))]


def sentence_mask(kind: str, tq: int, tk: int, key_is_pad) -> np.ndarray:
    """(Tq, Tk) bool, True = may attend, for a preset kind (not "custom": that one is the learner's)."""
    if kind not in MASK_KINDS or kind == "custom":
        raise ValueError(f"kind must be one of {list(MASK_KINDS[:-1])}, got {kind!r} (a custom mask is drawn by hand).")
    allowed = np.ones((tq, tk), dtype=bool)
    if kind.startswith("causal"):
        if tq != tk:
            raise ValueError(f"a causal mask needs self-attention (Tq == Tk), got Tq={tq}, Tk={tk}.")
        allowed &= np.tri(tq, tk, dtype=bool)  # query i may see keys 0..i
    if kind.endswith("padding"):
        allowed &= ~np.asarray(key_is_pad, dtype=bool)[None, :]  # no query may see a PAD key
    return allowed


def custom_start(start: str, tq: int, tk: int) -> np.ndarray:
    """(Tq, Tk) bool: the custom mask before the learner's edits."""
    if start not in CUSTOM_STARTS:
        raise ValueError(f"start must be one of {list(CUSTOM_STARTS)}, got {start!r}.")
    allowed = np.tri(tq, tk, dtype=bool) if start == "causal" else np.ones((tq, tk), dtype=bool)
    if start == "row":
        allowed[0] = False  # query 0 may attend to nothing: a fully masked row
    return allowed


def block_row(allowed: np.ndarray, row: int) -> np.ndarray:
    """A copy of ``allowed`` with every key of query ``row`` blocked."""
    out = np.array(allowed, dtype=bool, copy=True)
    out[row] = False
    return out


# --- a custom mask as text: the Masks page's URL parameter and text box -----------------------------------------------

MAX_MASK_CHARS = 2 * MAX_CUSTOM * (MAX_CUSTOM + 1)  # room for a 24 x 24 mask with a space after every digit
_ROW_BREAK = re.compile(r"[\s.,;/|]+")  # what may separate rows when typed; encode_mask writes a dot


class MaskTextError(LearnerError):
    """A mask text that is not a mask of the expected shape (``mha.core.errors``: ``key`` and ``fmt``)."""


def encode_mask(allowed) -> str:
    """(Tq, Tk) bool -> one row of digits per query, 1 = may attend, 0 = blocked, a dot between rows.

    Readable in a link and in a text box: the 3 x 3 causal mask is ``100.110.111`` (row i = query i's keys)."""
    allowed = np.asarray(allowed, dtype=bool)
    if allowed.ndim != 2 or 0 in allowed.shape:
        raise ValueError(f"a mask to write as text is (Tq, Tk) with Tq, Tk >= 1, got shape {allowed.shape}.")
    return ".".join("".join("1" if a else "0" for a in row) for row in allowed)


def _shown_char(c: str) -> str:
    """A character for a message: itself when visible, else its code point (an invisible control, a joiner)."""
    return c if c.isprintable() and not c.isspace() else f"U+{ord(c):04X}"


def decode_mask(text: str, tq: int, tk: int) -> np.ndarray:
    """The (Tq, Tk) bool mask written as text by ``encode_mask`` (rows may also be split by spaces, commas, slashes
    or semicolons). Strict: anything but 0 and 1 in a row, a wrong number of rows or of digits in a row raises
    MaskTextError naming the problem and the expected shape."""
    text = text if isinstance(text, str) else ""
    shape = dict(tq=tq, tk=tk)
    if len(text) > MAX_MASK_CHARS:
        raise MaskTextError("mk_cells_err_long", f"the mask text has {len(text)} characters, at most "
                            f"{MAX_MASK_CHARS}: write {tq} rows of {tk} digits.", n=len(text), max=MAX_MASK_CHARS,
                            **shape)
    for pos, c in enumerate(text, start=1):
        if c not in "01" and not _ROW_BREAK.fullmatch(c):
            raise MaskTextError("mk_cells_err_char", f"character {pos} ({_shown_char(c)!r}) is not 0, 1 or a dot "
                                f"between rows: write {tq} rows of {tk} digits.", char=_shown_char(c), pos=pos, **shape)
    rows = [r for r in _ROW_BREAK.split(text) if r]
    if not rows:
        raise MaskTextError("mk_cells_err_empty", f"the mask text is empty: write {tq} rows of {tk} digits.", **shape)
    if len(rows) != tq:
        raise MaskTextError("mk_cells_err_rows", f"the mask text has {len(rows)} rows, the sentence {tq} queries: "
                            f"write {tq} rows of {tk} digits.", rows=len(rows), **shape)
    for i, row in enumerate(rows, start=1):  # counted from 1, as a person counts the lines they typed
        if len(row) != tk:
            raise MaskTextError("mk_cells_err_cols", f"row {i} has {len(row)} digits, the sentence {tk} keys: "
                                f"write {tq} rows of {tk} digits.", row=i, n=len(row), **shape)
    return np.array([[c == "1" for c in row] for row in rows], dtype=bool).reshape(tq, tk)


def apply_cell_edits(allowed, edited_rows, columns) -> np.ndarray:
    """A copy of ``allowed`` (Tq, Tk) with a table's cell edits applied: ``edited_rows`` is {row position: {column
    name: value}} as st.data_editor reports it, ``columns`` the table's column names (one per key). Edits of
    anything else (the index, an unknown column or row) are ignored."""
    out = np.array(allowed, dtype=bool, copy=True)
    where = {name: j for j, name in enumerate(columns)}
    for row, cells in (edited_rows or {}).items():
        try:
            i = int(row)
        except (TypeError, ValueError):
            continue
        if not 0 <= i < out.shape[0] or not isinstance(cells, dict):
            continue
        for name, value in cells.items():
            if name in where:
                out[i, where[name]] = bool(value)  # a cleared checkbox (None) is unticked: blocked
    return out


@dataclass(frozen=True)
class Masked:
    """One sentence's attention under a given (Tq, Tk) mask, every head. float32 numpy, no NaN anywhere."""

    allowed: np.ndarray  # (Tq, Tk) bool, True = may attend
    scores: np.ndarray  # (H, Tq, Tk) before masking
    weights: np.ndarray  # (H, Tq, Tk) exactly 0 where blocked, and on fully masked rows
    head_outputs: np.ndarray  # (H, Tq, head_dim)
    fully_masked: np.ndarray  # (Tq,) bool: query rows with no key allowed


def apply_mask(q: np.ndarray, k: np.ndarray, v: np.ndarray, allowed: np.ndarray) -> Masked:
    """Attention of a view's q (H, Tq, head_dim), k, v (H, Tk, head_dim) under ``allowed`` (Tq, Tk), by the
    package's one implementation (``mha.core.attention.attention_steps``)."""
    allowed = np.asarray(allowed, dtype=bool)
    q, k, v, mask = (torch.tensor(a) for a in (q, k, v, allowed))  # copies: cached arrays may be read-only
    steps = attention_steps(q, k, v, mask)
    return Masked(allowed=allowed, scores=steps.scores.numpy().copy(), weights=steps.weights.numpy().copy(),
                  head_outputs=steps.output.numpy().copy(), fully_masked=steps.fully_masked[0].numpy().copy())


__all__ = ["PAD", "MAX_SENTENCES", "Batch", "BatchError", "make_batch", "pair_kv", "batch_mask", "split_lines",
           "MASK_KINDS", "CUSTOM_STARTS", "MAX_CUSTOM", "mask_kinds", "sentence_mask", "custom_start", "block_row",
           "MAX_MASK_CHARS", "MaskTextError", "encode_mask", "decode_mask", "apply_cell_edits", "Masked", "apply_mask"]
