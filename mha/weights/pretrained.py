"""Real heads: one attention layer of a pretrained model, loaded into the course's module and checked against the
model's own attention. Pure torch + transformers: no Streamlit here.

What happens, in order (``run_layer``):
  1. ``load_model(source)``: a Hugging Face model id or a local folder (``save_pretrained`` output), found by
     ``mha.weights.pretrained_files.resolve`` (the short list, the families, the size cap, the hub: import those
     names from there). A hub id is checked before anything large is fetched, then downloaded into the hub client's
     own cache and loaded from that folder, exactly as a local folder is. Loaded models are kept in a small bounded
     cache, shared read-only between sessions.
  2. ``model_tokens(model, texts)``: the model's own tokenizer, special tokens included; readable labels next to the raw
     pieces; padding as the tokenizer pads.
  3. ``layer_module(model, layer)``: the layer's Q, K, V and output projections copied into
     ``MultiHeadAttention(d_model, num_heads, qkv_bias=True)`` (GPT-2's fused, transposed Conv1D ``c_attn`` split).
  4. The model runs up to that layer only (eager attention; a hook stops it after the layer's attention), and gives
     the attention's input ``x``, its mask, its attention weights (what ``output_attentions`` returns) and its output
     projection (before dropout, residual and LayerNorm). Our module runs on the same ``x`` and mask; the largest
     differences are returned (float32: expect <= 1e-5).

Supported families (by ``config.model_type``): BERT, RoBERTa, ELECTRA and DistilBERT encoders, GPT-2 decoders.
"""
from __future__ import annotations

import contextvars
import dataclasses
import functools
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import torch

from mha.core.attention import AttentionTrace, MultiHeadAttention
from mha.core.lru import ByteLRU
from mha.core.masks import from_additive_mask
from mha.weights.pretrained_files import (
    CHOICES,
    Family,
    PretrainedError,
    Progress,
    _config_family,
    _folder_key,
    folder_size,
    resolve,
)

MAX_LOADED_MODELS = 2  # models kept in memory at once (bert-base: ~440 MB each); the least recently used goes
# Per loaded model: the layers' inputs, weights and outputs its runs captured, so that switching to a layer a run
# already passed does not run the model again (bert-base, 8 sentences of 128 tokens: ~13 MB a layer).
CAPTURE_BYTES = 64 * 2 ** 20
DEFAULT_MAX_TOKENS = 128  # the app's limit of positions per sentence (mha.weights.view.MAX_TOKENS)
CONTINUES = "…"  # label prefix of a piece that continues the previous word (WordPiece "##ing" -> "…ing")
NEWLINE = "↵"

def _sub(module: torch.nn.Module, path: str) -> torch.nn.Module:
    for name in path.split("."):
        module = getattr(module, name)
    return module


# --- Loaded models: cached, shared, read-only -----------------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    """What the app needs to know about a loaded model. Plain values."""

    source: str  # as given: hub id or folder
    folder: str  # where it was loaded from
    family: str  # FAMILIES key
    model_type: str
    num_layers: int
    d_model: int
    num_heads: int
    causal: bool
    max_tokens: int  # positions the model can take (special tokens included)
    size_bytes: int  # weight files on disk

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads


@dataclass(frozen=True, eq=False)
class LoadedModel:
    """A model, its tokenizer and what we know about it. Shared between sessions: never mutate the model (hooks
    installed at load stay inactive unless ``run_layer`` asks them for one call in its own context)."""

    info: ModelInfo
    model: torch.nn.Module = field(repr=False)
    tokenizer: object = field(repr=False)
    family: Family = field(repr=False)
    _modules: dict = field(default_factory=dict, repr=False)  # layer -> MultiHeadAttention, built once
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # the model's own numbers of every layer a run passed, per batch of tokens (``run_layer``): read-only
    _captures: ByteLRU = field(default_factory=lambda: ByteLRU("pretrained layer captures", max_bytes=CAPTURE_BYTES,
                                                               max_entries=8, ttl=3600), repr=False)


def load_model(source: str, *, max_bytes: Optional[int] = None, progress: Optional[Progress] = None,
               local_root: Optional[str] = None, downloads: bool = True, public: bool = False,
               allowed: Optional[Sequence[str]] = None) -> LoadedModel:
    """Load ``source`` (hub id or folder) within the size cap; cached (at most MAX_LOADED_MODELS at once).

    ``progress(stage, done, total)`` is called while files download and before the weights are read.
    ``local_root``: if given, folders outside it are refused (a hosted demo must not read arbitrary folders).
    ``downloads=False``: only models already on this server (folders, the hub cache) load, e.g. on a hosted demo
    whose disk a visitor must not fill with one model after another.
    ``public``: folders only inside ``local_root``, hub ids only from ``allowed``, one refusal for the rest
    (``mha.weights.pretrained_files.server_options`` reads all of these from the environment).
    Raises PretrainedError (unsupported architecture, too large, hub unreachable, ...) with a fix in the message.
    """
    folder = resolve(source, max_bytes=max_bytes, progress=progress, local_root=local_root, downloads=downloads,
                     public=public, allowed=allowed)
    if progress is not None:
        progress("load", 0, folder_size(folder))
    with _LOAD_LOCK:  # two sessions asking for the same new model load it once (lru_cache alone would load it twice)
        loaded = _load_folder(str(folder), _folder_key(folder))
    source = source.strip()
    if loaded.info.source != source:  # the same files reached by another name (id, folder): one model in memory
        loaded = dataclasses.replace(loaded, info=dataclasses.replace(loaded.info, source=source))
    return loaded


_LOAD_LOCK = threading.Lock()


@functools.lru_cache(maxsize=MAX_LOADED_MODELS)
def _load_folder(folder: str, key: tuple) -> LoadedModel:
    """The one path every model takes, from a hub download or a local folder. ``key`` (the files' sizes and times)
    makes a re-saved folder a new entry."""
    from transformers import AutoModel, AutoTokenizer

    config, family = _config_family(Path(folder))
    model = AutoModel.from_pretrained(folder, local_files_only=True, attn_implementation="eager",
                                      dtype=torch.float32)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    layers = _sub(model, family.layers)
    for i, layer in enumerate(layers):
        _install_hooks(family, i, layer)
    causal = family.decoder or bool(getattr(config, "is_decoder", False))
    max_pos = config.max_position_embeddings
    if family.key == "roberta":  # positions start after the padding index
        max_pos -= (config.pad_token_id or 0) + 1
    tok_max = getattr(tokenizer, "model_max_length", None) or max_pos
    info = ModelInfo(
        source=folder, folder=folder, family=family.key, model_type=config.model_type, num_layers=len(layers),
        d_model=config.hidden_size, num_heads=config.num_attention_heads, causal=causal,
        max_tokens=int(min(max_pos, tok_max)), size_bytes=folder_size(Path(folder)),
    )
    return LoadedModel(info=info, model=model, tokenizer=tokenizer, family=family)


def clear_cache() -> None:
    """Forget every loaded model (tests; a server that needs the memory back)."""
    _load_folder.cache_clear()


# --- Running the model up to one layer ------------------------------------------------------------------------

# One dict per run_layer call, visible only in that call's context (thread and asyncio safe, like transformers'
# own output capture): the hooks do nothing unless it is set and names their layer.
_ACTIVE: contextvars.ContextVar[Optional[dict]] = contextvars.ContextVar("mha_pretrained_capture", default=None)


class _StopAfterLayer(Exception):
    """Raised by the projection hook of the wanted layer: the layers after it need not run."""


def _install_hooks(family: Family, index: int, layer: torch.nn.Module) -> None:
    attention, projection = _sub(layer, family.attention), _sub(layer, family.projection)

    def slot(box: Optional[dict]) -> Optional[dict]:  # this layer's captures, if this run wants them
        return box["layers"].setdefault(index, {}) if box is not None and index <= box["layer"] else None

    def before_attention(module, args, kwargs):
        got = slot(_ACTIVE.get())
        if got is not None:
            got["x"] = args[0] if args else kwargs["hidden_states"]
            got["model_mask"] = kwargs.get("attention_mask")

    # BERT-style: the projection runs after the attention module; GPT-2, DistilBERT: inside it. Whichever hook
    # completes the capture stops the model.
    def after_attention(module, args, output):
        box = _ACTIVE.get()
        got = slot(box)
        if got is not None:
            got["weights"] = output[1]
            if "output" in got and index == box["layer"]:
                raise _StopAfterLayer

    def after_projection(module, args, output):
        box = _ACTIVE.get()
        got = slot(box)
        if got is not None:
            got["output"] = output
            if "weights" in got and index == box["layer"]:
                raise _StopAfterLayer

    attention.register_forward_pre_hook(before_attention, with_kwargs=True)
    attention.register_forward_hook(after_attention)
    projection.register_forward_hook(after_projection)


def layer_module(loaded: LoadedModel, layer: int) -> MultiHeadAttention:
    """The layer's attention in the course's module: Q, K, V and output projections with their biases. Built once
    per layer and shared: never mutate it (``trace(head_mask=...)`` ablates without changing it)."""
    _check_layer(loaded.info, layer)
    with loaded._lock:
        module = loaded._modules.get(layer)
        if module is None:
            module = _copy_layer(loaded, layer)
            loaded._modules[layer] = module
    return module


def _check_layer(info: ModelInfo, layer) -> None:
    if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < info.num_layers:
        raise PretrainedError("err_layer", f"layer must be a whole number from 0 to {info.num_layers - 1} "
                              f"({info.source} has {info.num_layers} layers), got {layer!r}.",
                              layer=str(layer), num_layers=info.num_layers)


def _copy_layer(loaded: LoadedModel, layer: int) -> MultiHeadAttention:
    family, info = loaded.family, loaded.info
    block = _sub(loaded.model, family.layers)[layer]
    attention, projection = _sub(block, family.attention), _sub(block, family.projection)
    d = info.d_model
    if isinstance(family.qkv, str):
        # GPT-2's Conv1D stores (in, out) and computes x @ W + b: our nn.Linear wants (out, in). [Q | K | V] fused.
        fused = _sub(attention, family.qkv)
        weights = fused.weight.t().split(d, dim=0)  # 3 x (d_model, d_model)
        biases = fused.bias.split(d, dim=0)  # 3 x (d_model,)
        out_w, out_b = projection.weight.t(), projection.bias
    else:
        linears = [_sub(attention, name) for name in family.qkv]
        weights = [lin.weight for lin in linears]
        biases = [lin.bias for lin in linears]
        out_w, out_b = projection.weight, projection.bias
    module = MultiHeadAttention(d, info.num_heads, qkv_bias=True)
    targets = (module.query_linear, module.key_linear, module.value_linear)
    with torch.no_grad():
        for target, w, b in zip(targets, weights, biases):
            target.weight.copy_(w)
            target.bias.copy_(b)
        module.output_linear.weight.copy_(out_w)
        module.output_linear.bias.copy_(out_b)
    module.eval()
    for p in module.parameters():
        p.requires_grad_(False)
    return module


# --- Tokens --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelTokens:
    """A batch of sentences as the model's tokenizer makes them, padded as it pads. (B, T) everywhere."""

    ids: torch.Tensor  # (B, T) int64 token ids
    attention_mask: torch.Tensor  # (B, T) 1 = real token (special tokens included), 0 = padding
    token_type_ids: Optional[torch.Tensor]  # (B, T) if the model takes them (BERT-style), else None
    pieces: tuple[tuple[str, ...], ...]  # the tokenizer's own pieces ("##ing", "Ġthe", "[CLS]"): for hover text
    labels: tuple[tuple[str, ...], ...]  # readable ("…ing", "the", "[CLS]"): plain text, escape before display
    special: tuple[tuple[bool, ...], ...]  # [CLS], [SEP], <s>, </s>, <|endoftext|>, padding
    continues: tuple[tuple[bool, ...], ...]  # the piece continues the word before it (no space between)
    lengths: tuple[int, ...]  # (B,) real tokens per sentence
    truncated: tuple[bool, ...]  # (B,) the sentence was cut to fit max_tokens
    full_lengths: tuple[int, ...] = ()  # (B,) tokens before the cut (special tokens included)

    @property
    def is_pad(self) -> torch.Tensor:
        return self.attention_mask == 0  # (B, T)


@functools.lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet back to bytes (each byte is shown as one printable character, "Ġ" = space)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(
        range(ord("®"), ord("ÿ") + 1))
    codes, n = printable[:], 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            codes.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(printable, codes)}


def _tokenizer_kind(tokenizer) -> tuple[str, str]:
    """("wordpiece", prefix) | ("bytelevel", "") | ("other", "")."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    model = getattr(backend, "model", None)
    prefix = getattr(model, "continuing_subword_prefix", None)
    if type(model).__name__ == "WordPiece":
        return "wordpiece", prefix or "##"
    if "ByteLevel" in repr(getattr(backend, "pre_tokenizer", None)):
        return "bytelevel", ""
    return "other", ""


def _readable(piece: str, kind: str, prefix: str, first: bool) -> tuple[str, bool]:
    """(label, continues) of one non-special piece. ``first``: the sentence starts here or after a line break."""
    if kind == "wordpiece":
        if prefix and piece.startswith(prefix) and len(piece) > len(prefix):
            return CONTINUES + piece[len(prefix):], True
        return piece, False
    if kind == "bytelevel":
        decoder = _byte_decoder()
        if all(ch in decoder for ch in piece):
            raw = bytes(decoder[ch] for ch in piece)
            text = raw.decode("utf-8", errors="replace")
            if "\ufffd" in text:  # part of a character (Hangul is 3 bytes): show the bytes
                text = "⟨" + " ".join(f"{b:02X}" for b in raw) + "⟩"
        else:
            text = piece
        label = text.strip(" ").replace("\n", NEWLINE).replace("\t", "⇥") or "␣"
        continues = not first and not text[:1].isspace()
        if continues and label[:1].isalnum():
            return CONTINUES + label, True
        return label, continues
    text = piece.replace("▁", " ")  # SentencePiece's word-start mark (not a supported family, kept readable)
    return text.strip() or "␣", not text.startswith(" ") and not first


# --- Text below a letter: Hangul split into jamo pieces --------------------------------------------------------
# An uncased English WordPiece strips accents (NFD), which splits every Hangul syllable into its jamo: 나는 becomes
# ᄂ ##ᅡ ##ᄂ ##ᅳ ##ᆫ, fragments that render as nothing readable. Labels compose them back (NFC) per word.


def _is_jamo(ch: str) -> bool:
    """A conjoining Hangul jamo (a part of a syllable, not a letter one writes alone)."""
    return "\u1100" <= ch <= "\u11ff" or "\ua960" <= ch <= "\ua97f" or "\ud7b0" <= ch <= "\ud7ff"


@functools.lru_cache(maxsize=1)
def _compat_jamo() -> dict[str, str]:
    """Conjoining jamo -> the compatibility jamo that stands alone (ᄂ -> ㄴ, ᅡ -> ㅏ)."""
    import unicodedata

    out = {}
    for code in range(0x3131, 0x318F):  # HANGUL LETTER NIEUN -> HANGUL CHOSEONG / JUNGSEONG / JONGSEONG NIEUN
        alone = chr(code)
        letter = unicodedata.name(alone, "").removeprefix("HANGUL LETTER ")
        for part in ("CHOSEONG", "JUNGSEONG", "JONGSEONG"):
            try:
                out.setdefault(unicodedata.lookup(f"HANGUL {part} {letter}"), alone)
            except KeyError:
                pass  # this letter has no such part (a vowel is never an initial)
    return out


_BYTES_LABEL = re.compile(r"⟨[0-9A-F]{2}(?: [0-9A-F]{2})*⟩$")  # a byte-level piece's label: part of a character


def below_a_letter(piece: str) -> bool:
    """The piece spells less than a letter: Hangul jamo, or a byte-level piece holding part of a character."""
    return any(_is_jamo(ch) for ch in piece) or bool(_BYTES_LABEL.search(piece))


def compose_jamo(texts: Sequence[str]) -> list[str]:
    """Readable labels for the pieces of one word (``texts``: each piece's text, marks off) that hold jamo: each
    names the syllable(s) it is part of, composed back with NFC over the word's joined pieces, and its own jamo as
    a letter: ᄂ ᅡ ᄂ ᅳ ᆫ -> 나(ㄴ) 나(ㅏ) 는(ㄴ) 는(ㅡ) 는(ㄴ). Pieces without jamo keep their text."""
    import unicodedata

    word = unicodedata.normalize("NFC", "".join(texts))
    compat = _compat_jamo()
    out, before = [], ""
    for text in texts:
        done = before + text
        if not any(_is_jamo(ch) for ch in text):
            out.append(text)
        else:
            start = len(unicodedata.normalize("NFC", before)) if before else 0
            if before and unicodedata.normalize("NFC", before + text[:1]) != \
                    unicodedata.normalize("NFC", before) + text[:1]:
                start -= 1  # its first jamo joins the syllable before (a vowel or a final consonant)
            end = len(unicodedata.normalize("NFC", done))
            spelled = word[max(start, 0):max(end, start + 1)]
            letters = "".join(compat.get(ch, ch) for ch in text)
            out.append(spelled if spelled == letters else f"{spelled}({letters})")
        before = done
    return out


def compose_bytes(chunks: Sequence[bytes]) -> list[Optional[str]]:
    """For the byte-level pieces of one word (``chunks``: each piece's bytes), the characters each is part of
    (decoded over the word's joined bytes), or None for a piece that holds whole characters only: a Hangul
    syllable is 3 bytes, often split over two pieces, ⟨EB 82⟩ ⟨98⟩ -> 나, 나."""
    word = b"".join(chunks)
    spans = []  # (start, end, character) over the word's bytes
    i = 0
    while i < len(word):
        lead = word[i]
        n = 1 if lead < 0x80 else 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 \
            else 1
        try:
            ch = word[i:i + n].decode("utf-8")
        except UnicodeDecodeError:
            ch, n = "\ufffd", 1
        spans.append((i, i + n, ch))
        i += n
    out, at = [], 0
    for chunk in chunks:
        start, end = at, at + len(chunk)
        at = end
        inside = [(a, b, ch) for a, b, ch in spans if a < end and b > start]
        whole = all(start <= a and b <= end for a, b, _ in inside)
        out.append(None if whole else "".join(ch for _, _, ch in inside).strip() or None)
    return out


def _compose_row(labels: list[str], continues: list[bool], special: list[bool],
                 pieces: Optional[Sequence[str]] = None, kind: str = "") -> list[str]:
    """The row's labels with every word that holds jamo composed back (``compose_jamo``), and for a byte-level
    tokenizer every piece holding part of a character named by that character (``compose_bytes``: 나⟨EB 82⟩),
    word by word."""
    out = list(labels)
    i = 0
    while i < len(out):
        j = i + 1
        while j < len(out) and continues[j] and not special[j]:
            j += 1
        if kind == "bytelevel" and pieces is not None and not special[i] and \
                any(below_a_letter(lab) for lab in labels[i:j]):
            decoder = _byte_decoder()
            if all(ch in decoder for p in pieces[i:j] for ch in p):
                chunks = [bytes(decoder[ch] for ch in p) for p in pieces[i:j]]
                for k, chars in enumerate(compose_bytes(chunks)):
                    if chars and below_a_letter(labels[i + k]):
                        body = labels[i + k].removeprefix(CONTINUES)
                        out[i + k] = (CONTINUES if labels[i + k].startswith(CONTINUES) else "") + chars + body
        elif not special[i] and any(_is_jamo(ch) for lab in labels[i:j] for ch in lab):
            texts = [lab[len(CONTINUES):] if c and lab.startswith(CONTINUES) else lab
                     for lab, c in zip(labels[i:j], continues[i:j])]
            for k, lab in enumerate(compose_jamo(texts)):
                out[i + k] = (CONTINUES if continues[i + k] else "") + lab
        i = j
    return out


@dataclass(frozen=True)
class Coverage:
    """How well the model's vocabulary covers one sentence: its real, non-special pieces and how many of them are
    unknown ([UNK]) or spell less than a letter (jamo, bytes of a character)."""

    pieces: int
    unknown: int
    below_letter: int
    script: str  # "ko" when the text holds Hangul, else "en"

    @property
    def covered(self) -> bool:
        return self.unknown == 0 and self.below_letter == 0


def coverage(pieces: Sequence[str], labels: Sequence[str], is_pad: Sequence[bool], unk_token: Optional[str],
             special: Sequence[bool], text: str = "") -> Coverage:
    """``Coverage`` of one sentence from its raw ``pieces``, readable ``labels`` and ``special`` flags (a
    ``ModelTokens`` row, or a View's ``tokens`` / ``labels`` with the model's special tokens); padding and special
    tokens are left out, except [UNK], which is counted. ``text``: what was typed (its script: [UNK] hides it)."""
    n = unk = below = 0
    hangul = any("\uac00" <= ch <= "\ud7a3" or _is_jamo(ch) for ch in text)
    for piece, label, pad, sp in zip(pieces, labels, is_pad, special):
        piece, label = str(piece), str(label)
        hangul = hangul or any("\uac00" <= ch <= "\ud7a3" or _is_jamo(ch) for ch in piece + label)
        if pad or (sp and piece != unk_token):
            continue
        n += 1
        if unk_token is not None and piece == unk_token:
            unk += 1
        elif below_a_letter(piece) or below_a_letter(label):
            below += 1
    return Coverage(pieces=n, unknown=unk, below_letter=below, script="ko" if hangul else "en")


def covering_models(script: str, model: str) -> list[str]:
    """Names of the short list's models for text in ``script`` ("ko" / "en"), other than ``model``."""
    return [c.label.split(" (")[0] for c in CHOICES if c.language == script and c.id != model]


def model_tokens(loaded: LoadedModel, texts: Sequence[str], *, max_tokens: int = DEFAULT_MAX_TOKENS) -> ModelTokens:
    """The model's tokens for one sentence per entry of ``texts``, special tokens added, cut to ``max_tokens`` (and
    to what the model's positions allow), padded on the tokenizer's side with its pad token (GPT-2 has none: its
    end-of-text token is used, masked out like any padding)."""
    tokenizer = loaded.tokenizer
    if isinstance(texts, str):
        texts = [texts]
    texts = [t for t in texts]
    if not texts or not any(t.strip() for t in texts):
        raise PretrainedError("err_empty_text", "Type a sentence: there is nothing to tokenize.")
    limit = max(1, min(int(max_tokens), loaded.info.max_tokens))
    encoded = [tokenizer(t, add_special_tokens=True, truncation=False)["input_ids"] for t in texts]
    full_lengths = tuple(len(ids) for ids in encoded)
    truncated = tuple(n > limit for n in full_lengths)
    if any(truncated):
        encoded = [tokenizer(t, add_special_tokens=True, truncation=True, max_length=limit)["input_ids"]
                   for t in texts]
    if any(not ids for ids in encoded):
        raise PretrainedError("err_empty_text", "A sentence has no tokens for this model: type some text on "
                              "every line.")
    lengths = tuple(len(ids) for ids in encoded)
    T = max(lengths)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    if pad_id is None and min(lengths) < T:
        raise PretrainedError("err_no_pad", "This tokenizer has no padding token: type one sentence at a time.")
    left = getattr(tokenizer, "padding_side", "right") == "left"
    ids, mask = [], []
    for seq in encoded:
        pad = [pad_id] * (T - len(seq))
        ids.append(pad + seq if left else seq + pad)
        mask.append([0] * len(pad) + [1] * len(seq) if left else [1] * len(seq) + [0] * len(pad))
    ids_t = torch.tensor(ids, dtype=torch.long)
    mask_t = torch.tensor(mask, dtype=torch.long)
    types = torch.zeros_like(ids_t) if "token_type_ids" in getattr(tokenizer, "model_input_names", ()) else None
    kind, prefix = _tokenizer_kind(tokenizer)
    special_ids = set(tokenizer.all_special_ids)
    pieces, labels, special, continues = [], [], [], []
    for row, row_mask in zip(ids, mask):
        row_pieces = tokenizer.convert_ids_to_tokens(row)
        row_labels, row_special, row_cont = [], [], []
        first = True
        for tid, piece, real in zip(row, row_pieces, row_mask):
            is_special = not real or tid in special_ids
            if is_special:
                label, cont = piece, False
            else:
                label, cont = _readable(piece, kind, prefix, first)
                first = label.endswith(NEWLINE)  # the next piece starts a line: it continues nothing
            row_labels.append(label)
            row_special.append(is_special)
            row_cont.append(cont)
        pieces.append(tuple(row_pieces))
        labels.append(tuple(_compose_row(row_labels, row_cont, row_special, row_pieces, kind)))
        special.append(tuple(row_special))
        continues.append(tuple(row_cont))
    return ModelTokens(ids=ids_t, attention_mask=mask_t, token_type_ids=types, pieces=tuple(pieces),
                       labels=tuple(labels), special=tuple(special), continues=tuple(continues), lengths=lengths,
                       truncated=truncated, full_lengths=full_lengths)


def allowed_mask(tokens: ModelTokens, causal: bool) -> torch.Tensor:
    """(B, 1, T, T) bool, True = may attend: padding keys blocked (as the model's attention_mask does), and for a
    decoder every later key too."""
    keys = tokens.attention_mask.bool()[:, None, None, :]  # (B, 1, 1, Tk)
    T = keys.size(-1)
    allowed = keys.expand(-1, 1, T, T)
    if causal:
        allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()  # (B, 1, Tq, Tk)
    return allowed


# --- One layer, ours next to the model's ----------------------------------------------------------------------


@dataclass(frozen=True)
class LayerRun:
    """One layer on one batch of sentences: our module's trace next to the model's own numbers."""

    info: ModelInfo
    layer: int
    tokens: ModelTokens
    x: torch.Tensor  # (B, T, d_model) the attention's input as the model gives it (GPT-2: after ln_1)
    mask: torch.Tensor  # (B, 1, T, T) bool, True = may attend: what our module was given
    trace: AttentionTrace  # our module on x with mask (trace.mask is None when mask blocks nothing)
    model_weights: torch.Tensor  # (B, H, T, T) the model's attention weights (what output_attentions returns)
    model_output: torch.Tensor  # (B, T, d_model) the model's output projection (before dropout/residual/LayerNorm)
    model_allowed: Optional[torch.Tensor]  # (B, 1 or H, T, T) bool from the mask the model used; None = no mask
    weights_diff: float  # max |ours - model's| attention weights, over real query rows (padding left out)
    output_diff: float  # the same for the output projection


def _model_numbers(loaded: LoadedModel, tokens: ModelTokens, layer: int) -> dict:
    """The model's own numbers at ``layer`` for these tokens: {"x", "model_mask", "weights", "output"}. The model
    runs up to that layer, and what it gives every layer on the way is kept (``LoadedModel._captures``, per batch of
    tokens, read-only): a later call for a layer it passed runs nothing."""
    key = tuple((t.shape, t.numpy().tobytes()) if t is not None else None
                for t in (tokens.ids, tokens.attention_mask, tokens.token_type_ids))
    hit, layers = loaded._captures.lookup(key)
    if hit and layer in layers:
        return layers[layer]
    inputs = {"input_ids": tokens.ids, "attention_mask": tokens.attention_mask}
    if tokens.token_type_ids is not None:
        inputs["token_type_ids"] = tokens.token_type_ids
    box = {"layer": layer, "layers": {}}
    token = _ACTIVE.set(box)
    try:
        with torch.no_grad():
            loaded.model(**inputs)
    except _StopAfterLayer:
        pass
    finally:
        _ACTIVE.reset(token)
    got = {i: numbers for i, numbers in box["layers"].items() if {"x", "weights", "output"} <= numbers.keys()}
    if layer not in got:
        raise RuntimeError(f"{loaded.info.model_type} layer {layer}: the model ran without passing its attention "
                           f"(captured {sorted(box['layers'].get(layer, {}))}); this transformers version is not "
                           f"supported.")
    if not hit or max(got) > max(layers):  # keep the run that went furthest
        loaded._captures.put(key, got)
    return got[layer]


def every_layer_weights(loaded: LoadedModel, tokens: ModelTokens) -> torch.Tensor:
    """The model's own attention weights at every layer, (L, B, H, T, T) (what ``output_attentions`` returns,
    stacked), from one run through all layers: it keeps every layer's numbers (``_model_numbers``), so a
    ``run_layer`` for any layer on these tokens afterwards runs no model. Read-only."""
    last = loaded.info.num_layers - 1
    _model_numbers(loaded, tokens, last)  # one run, every layer captured on the way
    return torch.stack([_model_numbers(loaded, tokens, i)["weights"] for i in range(last + 1)])


def run_layer(loaded: LoadedModel, layer: int, texts: Sequence[str] | str, *,
              max_tokens: int = DEFAULT_MAX_TOKENS, tokens: Optional[ModelTokens] = None) -> LayerRun:
    """Run the model up to ``layer`` on ``texts`` (one sentence each), then our module on the same input. The
    model's tensors (``x``, ``model_weights``, ``model_output``) are kept for later runs: read them, never change
    them."""
    info = loaded.info
    _check_layer(info, layer)
    tokens = model_tokens(loaded, texts, max_tokens=max_tokens) if tokens is None else tokens
    box = _model_numbers(loaded, tokens, layer)
    x = box["x"]
    mask = allowed_mask(tokens, info.causal)
    module = layer_module(loaded, layer)
    with torch.no_grad():
        # nothing blocked (one sentence, an encoder): no mask, the same numbers without a pass over (B, H, T, T)
        trace = module.trace(x, x, x, None if mask.all() else mask)
    model_mask = box.get("model_mask")  # additive (0 / a very negative number) or bool (True = may attend)
    model_allowed = model_mask if model_mask is None or model_mask.dtype == torch.bool else \
        from_additive_mask(model_mask)
    real = tokens.attention_mask.bool()  # (B, T)
    # Real query rows only: a padded query's row is never shown, and a row with no key to attend to is 0 here
    # and undefined in the model.
    rows = ~trace.fully_masked & real[:, None, :]  # (B, H, Tq)
    weights_diff = (trace.weights - box["weights"]).abs()[rows].max().item() if rows.any() else 0.0
    output_diff = (trace.output - box["output"]).abs()[real].max().item()
    return LayerRun(info=info, layer=layer, tokens=tokens, x=x, mask=mask, trace=trace,
                    model_weights=box["weights"], model_output=box["output"], model_allowed=model_allowed,
                    weights_diff=float(weights_diff), output_diff=float(output_diff))


def view_fields(run: LayerRun, sentence: int = 0) -> dict:
    """The arrays and labels of one sentence of ``run``, named as ``mha.weights.view.View``'s fields (float32 numpy, the
    batch axis dropped): ``View(spec=..., notes=..., **view_fields(run, b))``. Self-attention only: the key axis is
    the query axis. ``tokens`` are the tokenizer's raw pieces, ``labels`` the readable ones made display-safe, each
    a ``mha.core.tokens.PieceLabel`` carrying its raw piece where the two differ (charts name it in the hover).
    ``sentence`` must be a valid index (0 <= sentence < B)."""
    import numpy as np

    from mha.core.tokens import piece_label

    B = run.tokens.ids.size(0)
    if not 0 <= sentence < B:
        raise PretrainedError("err_sentence", f"sentence must be from 0 to {B - 1}, got {sentence}.")
    tr, b = run.trace, sentence
    H = tr.weights.size(1)

    def np32(t: torch.Tensor) -> np.ndarray:
        return t[b].detach().to(torch.float32).numpy().copy()

    labels = [piece_label(label, piece) for label, piece in zip(run.tokens.labels[b], run.tokens.pieces[b])]
    is_pad = run.tokens.is_pad[b].numpy().copy()
    x = np32(run.x)
    return dict(
        tokens=run.tokens.pieces[b], labels=labels, x=x, q=np32(tr.q), k=np32(tr.k), v=np32(tr.v),
        scores=np32(tr.scores), allowed=run.mask[b].expand(H, -1, -1).numpy().copy(), weights=np32(tr.weights),
        head_outputs=np32(tr.head_outputs), concat=np32(tr.concat), output=np32(tr.output),
        fully_masked=tr.fully_masked[b].numpy().copy(), key_tokens=run.tokens.pieces[b], key_labels=list(labels),
        x_kv=x, sentence=b, batch_size=B, lengths=run.tokens.lengths, key_lengths=run.tokens.lengths,
        is_cross=False, query_is_pad=is_pad, key_is_pad=is_pad.copy(),
    )


__all__ = [
    "Coverage", "LayerRun", "LoadedModel", "MAX_LOADED_MODELS", "ModelInfo", "ModelTokens", "allowed_mask",
    "below_a_letter", "clear_cache", "compose_bytes", "compose_jamo", "coverage", "covering_models",
    "every_layer_weights", "layer_module", "load_model", "model_tokens", "run_layer", "view_fields",
]
