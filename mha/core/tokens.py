"""Text to tokens: the course's tokenizer (words, punctuation, emoji clusters) and display-safe labels.

Pure Python. Invisible controls and bidi overrides are removed before tokenising and never displayed.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from mha.core.errors import LearnerError
from mha.core.markup import _BIDI

_JOINERS = "\u200d\ufe0e\ufe0f"  # ZWJ and variation selectors: part of emoji, kept
_TAGS = range(0xE0020, 0xE0080)  # tag characters: part of subdivision flags (England, Scotland, Wales), kept
MAX_LABEL_CHARS = 16

_WORD = re.compile(r"\w+(?:['’]\w+)*")


class TextError(LearnerError):
    """The text cannot be turned into tokens (empty, or nothing visible): ``mha.core.errors``, key "err_empty_text"."""


@dataclass(frozen=True)
class Tokens:
    tokens: tuple[str, ...]  # as typed (after NFC and removal of invisible controls)
    removed: int  # how many invisible control / bidi characters were removed

    @property
    def labels(self) -> list[str]:
        return display_labels(self.tokens)


def clean_text(text: str) -> tuple[str, int]:
    """NFC-normalise and drop control and bidi-override characters; return (clean text, how many dropped)."""
    text = unicodedata.normalize("NFC", text)
    kept, removed = [], 0
    for ch in text:
        cat = unicodedata.category(ch)
        invisible = ch in _BIDI or (cat == "Cc" and ch not in "\t\n\r") or (
            cat == "Cf" and ch not in _JOINERS and ord(ch) not in _TAGS
        )
        if invisible:
            removed += 1
        else:
            kept.append(ch)
    return "".join(kept), removed


def _clusters(text: str) -> list[str]:
    """Split into user-perceived characters: a base plus combining marks, ZWJ sequences, skin tones, flags."""
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        attach = bool(out) and (
            unicodedata.category(ch).startswith("M")
            or ch in _JOINERS
            or 0x1F3FB <= cp <= 0x1F3FF  # skin-tone modifiers
            or cp in _TAGS  # tag characters (subdivision flags)
            or out[-1].endswith("\u200d")  # the character after a ZWJ joins the emoji before it
            or (0x1F1E6 <= cp <= 0x1F1FF and len(out[-1]) == 1 and 0x1F1E6 <= ord(out[-1]) <= 0x1F1FF)  # flag pair
        )
        if attach and not out[-1].isspace() and not ch.isspace():  # whitespace never joins (even after a ZWJ)
            out[-1] += ch
        else:
            out.append(ch)
    return out


def tokenize(text: str, mode: str = "word") -> Tokens:
    """Split text into tokens. ``word``: words (any script) and each symbol or emoji on its own; ``char``: every
    visible character. Repeated tokens stay separate positions. Raises TextError for text with nothing to show."""
    if mode not in ("word", "char"):
        raise ValueError(f"mode must be 'word' or 'char', got {mode!r}.")
    clean, removed = clean_text(text if isinstance(text, str) else str(text))
    tokens: list[str] = []
    if mode == "char":
        tokens = _clusters(clean)
    else:
        pos = 0
        for m in _WORD.finditer(clean):
            tokens += _clusters(clean[pos:m.start()])
            tokens.append(m.group())
            pos = m.end()
        tokens += _clusters(clean[pos:])
        tokens = _merge_word_marks(tokens)  # before dropping spaces: a mark after a space joins no word
    # Joiners, variation selectors or tags with nothing to join show nothing: removed (and counted) like controls.
    removed += sum(len(t) for t in tokens if not t.isspace() and not _visible(t))
    tokens = [t for t in tokens if _visible(t)]
    if not tokens:
        raise TextError("err_empty_text", "The text is empty or only whitespace: type a sentence, e.g. "
                                          "'Orange is my favorite fruit'.")
    return Tokens(tokens=tuple(tokens), removed=removed)


def _visible(cluster: str) -> bool:
    return any(not ch.isspace() and ch not in _JOINERS and ord(ch) not in _TAGS for ch in cluster)


def _merge_word_marks(tokens: list[str]) -> list[str]:
    """A combining mark that \\w did not take (e.g. some Indic vowel signs) belongs to the word before it."""
    out: list[str] = []
    for t in tokens:
        if out and unicodedata.category(t[0]).startswith("M") and _WORD.fullmatch(out[-1]):
            out[-1] += t
        else:
            out.append(t)
    return out


def safe_label(token: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    """A token as plain display text: NFC, invisible controls removed, at most ``max_chars`` characters."""
    text, _ = clean_text(token)
    text = " ".join(text.split()) or "·"
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


class PieceLabel(str):
    """A display-safe readable token label ("…ing", "the") that also carries the tokenizer's raw piece ("##ing",
    "Ġthe"; display-safe too, and different from the label) as ``raw``, for hover text. It is the label wherever a
    str is used (markdown, pickers, tables); ``mha.charts.figures.axis_labels`` names the raw piece in a chart's
    hover."""

    raw: str

    def __new__(cls, label: str, raw: str):
        obj = super().__new__(cls, label)
        obj.raw = raw
        return obj

    def __reduce__(self):  # copies and pickles keep the raw piece
        return PieceLabel, (str(self), self.raw)

    def __repr__(self) -> str:
        return f"PieceLabel({str(self)!r}, raw={self.raw!r})"


def piece_label(label: str, raw: str) -> str:
    """The display-safe ``label``, as a PieceLabel carrying the display-safe ``raw`` piece when the two differ
    ("Ġthe" -> "the"), else as the plain label ("[CLS]", "the" of WordPiece)."""
    label, raw = safe_label(label), safe_label(raw)
    return label if raw == label else PieceLabel(label, raw)


def display_labels(tokens) -> list[str]:
    """Plain-text labels, one per position (duplicates are kept: positions, not strings, identify a token)."""
    return [safe_label(t) for t in tokens]
