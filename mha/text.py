"""Text to tokens to tensors: tokenizer, display-safe labels, deterministic embeddings, positions.

Pure Python + torch. Nothing here depends on Python's salted ``hash()``: the same token, seed and d_model give
the same vector in every process and on every machine.
"""
from __future__ import annotations

import hashlib
import html
import math
import re
import unicodedata
from dataclasses import dataclass

import torch

from mha.errors import LearnerError

# Characters that change how text *looks* without being visible: removed before tokenising, never displayed.
# Bidi embeddings/overrides/isolates and marks could reorder what a learner sees; C0/C1 controls print nothing.
_BIDI = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_JOINERS = "\u200d\ufe0e\ufe0f"  # ZWJ and variation selectors: part of emoji, kept
_TAGS = range(0xE0020, 0xE0080)  # tag characters: part of subdivision flags (England, Scotland, Wales), kept
MAX_LABEL_CHARS = 16

_WORD = re.compile(r"\w+(?:['’]\w+)*")


class TextError(LearnerError):
    """The text cannot be turned into tokens (empty, or nothing visible): ``mha.errors``, key "err_empty_text"."""


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
    str is used (markdown, pickers, tables); ``mha.figures.axis_labels`` names the raw piece in a chart's hover."""

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


def escape_for_plotly(label: str) -> str:
    """Plotly renders a subset of HTML in labels and hover text: escape so a token is shown, never interpreted.
    Plotly decodes numeric entities and only a few named ones (lt, gt, amp, not quot): a double quote becomes
    ``&#34;``, or the chart would show ``&quot;``."""
    return html.escape(_BIDI_RE.sub("", label), quote=True).replace("&quot;", "&#34;")


# Every ASCII punctuation character: CommonMark lets a backslash make any of them literal text.
_MARKDOWN_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
# Streamlit's Markdown also rewrites *text* after the escapes are resolved (so a backslash cannot stop it): GFM
# auto-links (``https://…``, ``www.…``, ``a@b.c``), emoji and icon shortcodes (``:smile:``, ``:material/home:``,
# ``:streamlit:``) and arrows (``->``, ``<=``, ``--``). A word joiner (U+2060: invisible, zero width, never a break)
# after every ``:`` and ``@``, after ``www`` and inside those arrow pairs keeps each pattern from matching.
_WJ = "\u2060"
_DEFUSE = re.compile(r"(?<=[:@])|(?i:(?<=www)(?=\.))|(?<=[<>~-])(?=[->=])")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\s" + _BIDI + r"]+")
_BIDI_RE = re.compile("[" + _BIDI + "]")


def escape_markdown(text, max_chars: int | None = None, *, code: bool = False) -> str:
    """THE escaping helper: anything a visitor typed, uploaded or put in a link (tokens, file names, state_dict key
    names, link parameter names and values, typed masks) as literal Markdown, safe anywhere in a message.

    No link, image, emphasis, maths, colour, HTML, heading or list can come out of it, and it stays on one line:
    line breaks, other controls and bidi overrides become one space. ``max_chars`` cuts the text first (with "…"),
    so an escape is never cut in half. ``code=True`` shows it as a code span (a value quoted in a note: "head=`9`"),
    otherwise as plain text inside a sentence (a backslash before every ASCII punctuation character). Either way
    the page shows exactly the text given (tests/test_text.py parses it as CommonMark and applies Streamlit's own
    text rewrites)."""
    text = _DEFUSE.sub(_WJ, _CONTROLS.sub(" ", str(text)) if max_chars is None else _cut(text, max_chars))
    if not code:
        return _MARKDOWN_PUNCT.sub(r"\\\1", text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)  # longer than any run of backticks inside, so none of them can end the span
    pad = " " if text[:1] == "`" or text[-1:] == "`" or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def one_line(text, max_chars: int | None = None) -> str:
    """The characters ``escape_markdown`` shows for ``text``, without its Markdown escapes: line breaks, other
    controls and bidi overrides as one space, cut to ``max_chars``. For text that is not Markdown (a CSS ``content``
    string: ``mha.app.controls.file_uploader`` shows an uploaded file's name with it)."""
    return _CONTROLS.sub(" ", str(text)) if max_chars is None else _cut(text, max_chars)


def _cut(text, max_chars: int) -> str:
    text = _CONTROLS.sub(" ", str(text))
    return text if len(text) <= max_chars else text[: max(max_chars - 1, 0)] + "…"


def _token_seed(token: str, seed: int, d_model: int) -> int:
    digest = hashlib.blake2b(f"{seed}\x1f{d_model}\x1f{token}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") & 0x7FFF_FFFF_FFFF_FFFF


def embed_tokens(tokens, d_model: int, seed: int = 0, dtype=torch.float32) -> torch.Tensor:
    """(T, d_model): a fixed random vector per distinct token string (unit variance per feature), reproducible
    across processes and machines. The same word at two positions gets the same vector: positions tell them apart."""
    vectors = {}
    for tok in tokens:
        if tok not in vectors:
            g = torch.Generator().manual_seed(_token_seed(tok, seed, d_model))
            vectors[tok] = torch.randn(d_model, generator=g, dtype=torch.float64)
    return torch.stack([vectors[t] for t in tokens]).to(dtype) if tokens else torch.zeros(0, d_model, dtype=dtype)


def sinusoidal_positions(seq_len: int, d_model: int, dtype=torch.float32) -> torch.Tensor:
    """(T, d_model) sinusoidal positional encoding from 'Attention Is All You Need' (works for odd d_model too)."""
    pos = torch.arange(seq_len, dtype=torch.float64).unsqueeze(1)  # (T, 1)
    i = torch.arange(0, d_model, 2, dtype=torch.float64)  # even feature indices
    angle = pos / torch.pow(10000.0, i / d_model)  # (T, ceil(D/2))
    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe.to(dtype)


def token_inputs(tokens, d_model: int, seed: int = 0, positional: bool = True, dtype=torch.float32) -> torch.Tensor:
    """(T, d_model) model input: token embeddings, plus sinusoidal positions when ``positional``."""
    x = embed_tokens(tokens, d_model, seed, dtype=torch.float64)
    if positional:
        x = x + sinusoidal_positions(len(tokens), d_model)
    return x.to(dtype)


def init_weights(module: torch.nn.Module, seed: int) -> torch.nn.Module:
    """Re-initialise every parameter of ``module`` (for MultiHeadAttention: the four nn.Linear weights and the output
    bias) like PyTorch's nn.Linear default, U(-1/sqrt(fan_in), 1/sqrt(fan_in)), in name order, from a private
    generator: reproducible for a seed and safe under threads (the global RNG is never touched)."""
    g = torch.Generator().manual_seed(int(seed))
    with torch.no_grad():
        for _name, p in sorted(module.named_parameters()):  # in name order
            fan_in = p.size(-1) if p.dim() > 1 else p.size(0)
            bound = 1.0 / math.sqrt(fan_in)
            p.copy_(torch.empty(p.shape, dtype=torch.float64).uniform_(-bound, bound, generator=g).to(p.dtype))
    return module
