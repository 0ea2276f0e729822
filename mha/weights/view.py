"""From the learner's settings to the numbers every page draws. Pure torch + numpy: no Streamlit here.

``run_view`` is what the app caches (keyed on plain values, see ``mha.app.compute``): it tokenises, embeds, builds the
seeded module and traces it, and returns plain numpy arrays so a cached result can be copied, pickled and
shared safely between users.

Weight sources (``ViewSpec.source``): "random" (the seeded module), "trained" (``mha.weights.train``: trained on
``task``, run on the content | position layout it was trained with) and "pretrained" (``mha.weights.pretrained``: one
attention layer
of a real model, run on the hidden states the model itself gives that layer; its tokens are the model's tokens).

The text may hold several sentences, one per line: they run as one padded batch (``mha.weights.batch``) and the view
shows one of them (``sentence``). ``kv_text`` switches to cross-attention: its tokens are the keys and values,
so the key axis (``key_tokens``, ``key_labels``) differs from the query axis (``tokens``, ``labels``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from mha.core.attention import AttentionTrace, MultiHeadAttention
from mha.core.inputs import init_weights, token_inputs
from mha.core.lru import ByteLRU
from mha.core.masks import causal_mask
from mha.core.tokens import TextError, clean_text, display_labels, safe_label, tokenize
from mha.weights import pretrained, pretrained_files
from mha.weights.batch import Batch, BatchError, batch_mask, make_batch, pair_kv, split_lines
from mha.weights.train import MAX_TRAIN_D_MODEL, MAX_TRAIN_STEPS, TASKS, layout_inputs, trained_module

# Limits that keep the largest view responsive on a small (2-core) hosted machine. See docs/weights.md "Limits".
MAX_CHARS = 2000  # characters of text read; the rest is cut with a note
MAX_TOKENS = 128  # positions per sentence; longer text is cut with a note
D_MODEL_CHOICES = (4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
MAX_HEADS = 16
MAX_SEED = 9999
DEFAULT_TEXT = "Orange is my favorite fruit"
DEFAULT_D_MODEL = 16
DEFAULT_NUM_HEADS = 4
DEFAULT_SEED = 0


def head_choices(d_model: int) -> list[int]:
    """The numbers of heads that divide d_model (so head_dim is whole), up to MAX_HEADS."""
    return [h for h in range(1, min(d_model, MAX_HEADS) + 1) if d_model % h == 0]


@dataclass(frozen=True)
class ViewSpec:
    """Everything that decides the numbers on screen. Plain values only: it is the cache key."""

    text: str = DEFAULT_TEXT
    d_model: int = DEFAULT_D_MODEL
    num_heads: int = DEFAULT_NUM_HEADS
    causal: bool = False
    seed: int = DEFAULT_SEED
    positional: bool = True
    padding: bool = True  # key-padding mask on: no query attends to a PAD key
    kv_text: str = ""  # keys and values from this text (cross-attention); empty = self-attention
    sentence: int = 0  # which sentence (line) of the batch the view shows
    # which parameters: "random" (from the seed) or "trained" (on ``task``, see mha.weights.train)
    source: str = "random"
    task: str = "previous"  # source "trained": the task (an id of mha.weights.train.TASKS)
    train_steps: int | None = None  # source "trained": optimizer steps; None = the task's own budget
    # source "pretrained": a Hugging Face model id or a local folder (mha.weights.pretrained.load_model)
    model: str = ""
    layer: int = 0  # source "pretrained": which attention layer


@dataclass(frozen=True)
class View:
    """One sentence of the batch run through the module. Arrays are float32 numpy with the batch axis dropped.

    Self-attention: Tk == Tq and the key axis is the query axis. Cross-attention (``is_cross``): the keys and
    values come from ``kv_text`` and Tk may differ from Tq: label the key axis with ``key_labels``.
    """

    spec: ViewSpec
    tokens: tuple[str, ...]  # query tokens as typed, padded with PAD to the batch's longest sentence
    labels: list[str]  # query labels, display-safe (plain text: escape before giving them to Plotly)
    notes: tuple[str, ...]  # message keys for what was changed on the way (cut, controls removed)
    note_args: dict = field(default_factory=dict)
    x: np.ndarray = None  # (T, d_model) input embeddings (+ positions)
    q: np.ndarray = None  # (H, Tq, head_dim)
    k: np.ndarray = None  # (H, Tk, head_dim)
    v: np.ndarray = None  # (H, Tk, head_dim)
    scores: np.ndarray = None  # (H, Tq, Tk) before masking
    allowed: np.ndarray = None  # (H, Tq, Tk) bool, True = may attend
    weights: np.ndarray = None  # (H, Tq, Tk)
    head_outputs: np.ndarray = None  # (H, Tq, head_dim)
    concat: np.ndarray = None  # (Tq, d_model)
    output: np.ndarray = None  # (Tq, d_model)
    fully_masked: np.ndarray = None  # (H, Tq) bool
    key_tokens: tuple[str, ...] = ()  # key (and value) tokens: the same as ``tokens`` unless cross-attention
    key_labels: list[str] = field(default_factory=list)  # display-safe key labels
    x_kv: np.ndarray = None  # (Tk, d_model) key/value input (the same array as x for self-attention)
    sentence: int = 0  # index of the shown sentence in the batch
    batch_size: int = 1  # B
    lengths: tuple[int, ...] = ()  # (B,) query tokens per sentence, before padding
    key_lengths: tuple[int, ...] = ()  # (B,) key tokens per sentence, before padding
    previews: tuple[str, ...] = ()  # (B,) a short label per sentence, for a selector
    is_cross: bool = False  # keys and values from kv_text
    query_is_pad: np.ndarray = None  # (Tq,) bool: this query position is padding
    key_is_pad: np.ndarray = None  # (Tk,) bool: this key position is padding

    @property
    def num_heads(self) -> int:
        return self.spec.num_heads

    @property
    def head_dim(self) -> int:
        return self.spec.d_model // self.spec.num_heads


def validate_spec(spec: ViewSpec) -> None:
    """Raise ValueError with a learner-facing message if the settings cannot be run. A pretrained spec is checked
    against its model when the model is loaded (``run_pretrained_view``): d_model and num_heads are the model's."""
    if spec.source not in SOURCES:
        raise ValueError(f"source must be one of {list(SOURCES)}, got {spec.source!r}.")
    if spec.source == "pretrained":
        if not 1 <= spec.num_heads <= MAX_HEADS or spec.d_model % spec.num_heads:
            raise ValueError(f"The model has num_heads={spec.num_heads} at d_model={spec.d_model}: this app shows up "
                             f"to {MAX_HEADS} heads, and num_heads must divide d_model. Choose a smaller model.")
        if not 1 <= spec.d_model <= MAX_PRETRAINED_D_MODEL:
            raise ValueError(f"The model has d_model={spec.d_model}: this app shows up to "
                             f"d_model={MAX_PRETRAINED_D_MODEL}. Choose a smaller model.")
        if isinstance(spec.layer, bool) or not isinstance(spec.layer, int) or spec.layer < 0:
            raise ValueError(f"layer={spec.layer!r} must be a whole number from 0.")
        return
    if spec.d_model not in D_MODEL_CHOICES:
        raise ValueError(f"d_model must be one of {list(D_MODEL_CHOICES)}, got {spec.d_model}.")
    if spec.num_heads not in head_choices(spec.d_model):
        raise ValueError(
            f"num_heads={spec.num_heads} does not divide d_model={spec.d_model}: "
            f"pick one of {head_choices(spec.d_model)}."
        )
    if spec.source == "trained":
        if spec.task not in TASKS:
            raise ValueError(f"Unknown task {spec.task!r}: pick one of {list(TASKS)}.")
        if spec.d_model > MAX_TRAIN_D_MODEL:
            raise ValueError(f"Trained weights go up to d_model={MAX_TRAIN_D_MODEL} (training takes longer beyond): "
                             f"pick a smaller d_model, or random weights.")
        steps = spec.train_steps
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int)
                                  or not 1 <= steps <= MAX_TRAIN_STEPS):
            raise ValueError(f"train_steps={steps!r} is out of range: pick 1 to {MAX_TRAIN_STEPS}.")


SOURCES = ("random", "trained", "pretrained")
MAX_PRETRAINED_D_MODEL = 1024  # bert-base and gpt2 (768) fit; beyond, a 128-token view holds too many numbers


def pretrained_options() -> dict:
    """``load_model`` keywords from the environment: ``mha.weights.pretrained_files.server_options`` (public mode,
    MHA_MODELS_DIR, MHA_ALLOW_DOWNLOADS, MHA_ALLOWED_MODELS; docs/security.md). The size cap is MHA_MAX_MODEL_MB
    (``mha.weights.pretrained_files.max_bytes_from_env``)."""
    return pretrained_files.server_options()


def load_pretrained(source: str, progress=None) -> "pretrained.LoadedModel":
    """``mha.weights.pretrained.load_model`` with this server's options (cached there, shared read-only). Raises
    PretrainedError with a learner message."""
    return pretrained.load_model(source, progress=progress, **pretrained_options())


def pretrained_content(source: str) -> tuple:
    """``mha.weights.pretrained_files.content_key`` with this server's options: what the model folder holds now
    (file sizes and times). Part of every cache key of a pretrained view (``mha.app.compute.fingerprint``): a
    re-saved folder is picked up at the next run."""
    return pretrained_files.content_key(source, **pretrained_options())


def pretrained_layer(spec: ViewSpec) -> MultiHeadAttention:
    """The course's module holding ``spec.layer`` of ``spec.model`` (with Q/K/V biases; shared: never mutate)."""
    return pretrained.layer_module(load_pretrained(spec.model), spec.layer)


def train_steps(spec: ViewSpec) -> int:
    """The optimizer steps of a "trained" view: the spec's, or the task's own budget."""
    return TASKS[spec.task].steps if spec.train_steps is None else spec.train_steps


def trained_model(spec: ViewSpec) -> MultiHeadAttention:
    """The module trained on ``spec.task`` from the seeded random one (``mha.weights.train.trained_module``: trained
    once
    per process for these plain values, cached and shared: never mutate it)."""
    return trained_module(spec.task, spec.d_model, spec.num_heads, train_steps(spec), spec.seed)


def spec_inputs(tokens, spec: ViewSpec) -> torch.Tensor:
    """(T, d_model) one sentence as the module's input for these settings: the Playground's embeddings plus
    positions for random weights, the content | position layout the trained weights were trained with
    (``mha.weights.train.layout_inputs``) for trained ones. ``spec.positional`` turns the positions off in both."""
    if spec.source == "trained":
        return layout_inputs(tokens, spec.d_model, spec.seed, positional=spec.positional)
    if spec.source == "pretrained":
        raise ValueError("A pretrained layer's input is the model's own hidden states: run the model "
                         "(run_pretrained_view), the tokens alone do not make it.")
    return token_inputs(tokens, spec.d_model, spec.seed, positional=spec.positional)


def batch_inputs(batch: Batch, spec: ViewSpec) -> torch.Tensor:
    """(B, T, d_model) ``spec_inputs`` of every (padded) sentence of the batch."""
    if spec.source != "trained":
        return batch.inputs(spec.d_model, spec.seed, spec.positional)
    return torch.stack([spec_inputs(sentence, spec) for sentence in batch.padded()])


# The seeded modules, shared by every visitor: at most 32, and 48 MB (a d_model 512 module is 4.2 MB).
SEEDED_MODULES = ByteLRU("seeded modules", max_bytes=48 * 2 ** 20, max_entries=32, ttl=24 * 3600)


def build_model(d_model: int, num_heads: int, seed: int) -> MultiHeadAttention:
    """The seeded module for these settings, cached. Shared: never mutate it (use ``trace(head_mask=...)`` to
    ablate)."""
    return SEEDED_MODULES.get_or_compute((int(d_model), int(num_heads), int(seed)),
                                         lambda: _seeded_module(d_model, num_heads, seed))


def _seeded_module(d_model: int, num_heads: int, seed: int) -> MultiHeadAttention:
    model = init_weights(MultiHeadAttention(d_model, num_heads), seed).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def custom_model(d_model: int, num_heads: int, state_dict: dict) -> MultiHeadAttention:
    """A module on a visitor's uploaded weights (checked by ``mha.weights.export.load_state_dict_bytes``). Built per
    call,
    never cached here: it belongs to one session, unlike the shared seeded modules of ``build_model``."""
    model = MultiHeadAttention(d_model, num_heads, qkv_bias="query_linear.bias" in state_dict)  # a pretrained layer's
    model.load_state_dict(state_dict, strict=True)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def model_for(spec: ViewSpec, state_dict: dict | None = None, num_heads: int | None = None) -> MultiHeadAttention:
    """The module a view runs: the shared seeded one, the shared trained one (``source == "trained"``), or a fresh
    one on uploaded weights (they replace either); for ``source == "pretrained"`` the model's layer (uploaded weights
    do not replace it). ``num_heads`` overrides
    the spec's (the weights' shapes do not depend on it: the bug zoo's one-head comparison uses the same weights)."""
    h = spec.num_heads if num_heads is None else num_heads
    if spec.source == "pretrained":  # uploaded weights do not apply: the layer's inputs are the model's own
        layer = pretrained_layer(spec)
        return layer if h == spec.num_heads else custom_model(spec.d_model, h, layer.state_dict())
    if state_dict is None and spec.source == "trained":
        trained = trained_model(spec)
        return trained if h == spec.num_heads else custom_model(spec.d_model, h, trained.state_dict())
    return build_model(spec.d_model, h, spec.seed) if state_dict is None else custom_model(spec.d_model, h, state_dict)


def prepare_tokens(text: str) -> tuple[tuple[str, ...], tuple[str, ...], dict]:
    """Tokens within the limits, plus note keys and their arguments. Raises TextError for empty text."""
    notes, args = [], {}
    if len(text) > MAX_CHARS:
        notes.append("note_chars_cut")
        args.update(n_chars=len(text), max_chars=MAX_CHARS)
        text = text[:MAX_CHARS]
    toks = tokenize(text)
    tokens = toks.tokens
    if toks.removed:
        notes.append("note_controls_removed")
        args.update(n_removed=toks.removed)
    if len(tokens) > MAX_TOKENS:
        notes.append("note_tokens_cut")
        args.update(n_tokens=len(tokens), max_tokens=MAX_TOKENS)
        tokens = tokens[:MAX_TOKENS]
    return tokens, tuple(notes), args


def trace_tokens(model: MultiHeadAttention, tokens, spec: ViewSpec,
                 head_mask=None) -> tuple[torch.Tensor, AttentionTrace]:
    """Embed the tokens and trace the module on them (self-attention, batch of one)."""
    x = spec_inputs(tokens, spec).unsqueeze(0)  # (1, T, d_model)
    mask = causal_mask(len(tokens)) if spec.causal else None
    with torch.no_grad():
        return x, model.trace(x, x, x, mask, head_mask=head_mask)


def text_batch(text: str) -> Batch:
    """The sentences of ``text`` (one per line) within the limits. Raises TextError when nothing is visible."""
    return make_batch(text, max_chars=MAX_CHARS, max_tokens=MAX_TOKENS)


def kv_batch(kv_text: str) -> Batch | None:
    """The keys/values text as a batch, or None (self-attention) when it is blank. Raises BatchError when it
    has nothing visible."""
    if not (kv_text or "").strip():
        return None
    try:
        return text_batch(kv_text)
    except TextError:
        raise BatchError("err_kv_empty",
                         "kv_text has nothing visible: type the keys/values text or clear it.") from None


@dataclass(frozen=True)
class ViewInputs:
    """What goes into the module for a ViewSpec: the whole batch, before any tracing."""

    model: MultiHeadAttention  # shared and cached: never mutate
    queries: Batch  # B sentences of ``text``
    keys: Batch  # B sentences the keys/values come from (``queries`` itself for self-attention)
    query: torch.Tensor  # (B, Tq, d_model)
    key: torch.Tensor  # (B, Tk, d_model), also the value input
    mask: torch.Tensor | None  # broadcastable to (B, H, Tq, Tk), True = may attend; None = nothing blocked
    is_cross: bool
    causal: bool  # causal mask applied (asked for, and self-attention)
    notes: tuple[str, ...]
    note_args: dict


def view_inputs(spec: ViewSpec, state_dict: dict | None = None) -> ViewInputs:
    """Batch, embed and mask the settings. Raises TextError, BatchError or ValueError with a learner message.
    ``state_dict``: uploaded weights to run instead of the seeded ones (the seed still makes the embeddings)."""
    validate_spec(spec)
    queries = text_batch(spec.text)
    kv = kv_batch(spec.kv_text)
    keys = pair_kv(queries, kv)
    is_cross = kv is not None
    causal = spec.causal and not is_cross  # a causal mask pairs query i with key i: self-attention only
    notes = queries.notes + (("note_causal_cross",) if spec.causal and is_cross else ())
    model = model_for(spec, state_dict)
    query = batch_inputs(queries, spec)  # (B, Tq, d_model)
    key = batch_inputs(keys, spec) if is_cross else query  # (B, Tk, d_model)
    mask = batch_mask(queries, keys, causal=causal, padding=spec.padding)
    return ViewInputs(model=model, queries=queries, keys=keys, query=query, key=key, mask=mask, is_cross=is_cross,
                      causal=causal, notes=notes, note_args=dict(queries.note_args))


def run_view(spec: ViewSpec, state_dict: dict | None = None) -> View:
    """Run the settings end to end and keep one sentence. Raises TextError (empty text), BatchError (texts that
    do not pair up) or ValueError (impossible settings; PretrainedError is one). ``state_dict``: see
    ``view_inputs`` (not used by a pretrained layer)."""
    if spec.source == "pretrained":
        return run_pretrained_view(spec)
    inp = view_inputs(spec, state_dict)
    with torch.no_grad():
        tr = inp.model.trace(inp.query, inp.key, inp.key, inp.mask)
    notes, args = inp.notes, dict(inp.note_args)
    b = spec.sentence
    if not 0 <= b < inp.queries.size:
        b = min(max(b, 0), inp.queries.size - 1)
        notes += ("note_sentence_clamped",)
        args.update(asked=spec.sentence, used=b, n_sentences=inp.queries.size)
    tokens, key_tokens = inp.queries.padded()[b], inp.keys.padded()[b]
    np32 = lambda t: t[b].detach().to(torch.float32).numpy().copy()  # noqa: E731 keep sentence b: drop the batch axis
    H, Tq, Tk = tr.weights.shape[1:]
    allowed = tr.allowed[b].numpy().copy() if tr.allowed is not None else np.ones((H, Tq, Tk), dtype=bool)
    return View(
        spec=spec, tokens=tokens, labels=display_labels(tokens), notes=notes, note_args=args,
        x=np32(inp.query), q=np32(tr.q), k=np32(tr.k), v=np32(tr.v), scores=np32(tr.scores), allowed=allowed,
        weights=np32(tr.weights), head_outputs=np32(tr.head_outputs), concat=np32(tr.concat),
        output=np32(tr.output), fully_masked=tr.fully_masked[b].numpy().copy(),
        key_tokens=key_tokens, key_labels=display_labels(key_tokens), x_kv=np32(inp.key), sentence=b,
        batch_size=inp.queries.size, lengths=inp.queries.lengths, key_lengths=inp.keys.lengths,
        previews=inp.queries.previews, is_cross=inp.is_cross,
        query_is_pad=np.arange(Tq) >= inp.queries.lengths[b], key_is_pad=np.arange(Tk) >= inp.keys.lengths[b],
    )


def pretrained_texts(text: str) -> tuple[list[str], tuple[str, ...], dict]:
    """The sentences a pretrained model reads: one per non-blank line, cleaned as the app's own tokenizer cleans
    (invisible controls removed), within MAX_CHARS and MAX_SENTENCES. Returns (lines, note keys, note args).
    Raises TextError when nothing is visible."""
    from mha.weights.batch import MAX_SENTENCES

    notes, args = [], {}
    text = text if isinstance(text, str) else str(text)
    if len(text) > MAX_CHARS:
        notes.append("note_chars_cut")
        args.update(n_chars=len(text), max_chars=MAX_CHARS)
        text = text[:MAX_CHARS]
    lines = []
    for line in split_lines(text):
        clean, _ = clean_text(line)
        if clean.strip():
            lines.append(clean.strip())
    if not lines:
        tokenize("")  # raises the learner-facing TextError
    if len(lines) > MAX_SENTENCES:
        notes.append("note_sentences_cut")
        args.update(n_sentences=len(lines), max_sentences=MAX_SENTENCES)
        lines = lines[:MAX_SENTENCES]
    return lines, tuple(notes), args


def pretrained_run(spec: ViewSpec) -> "pretrained.LayerRun":
    """``mha.weights.pretrained.run_layer`` for the spec's model, layer and text (every sentence): our module's trace
    next to
    the model's own attention. Raises PretrainedError / TextError / ValueError with a learner message."""
    validate_spec(spec)
    loaded = load_pretrained(spec.model)
    info = loaded.info
    if (spec.d_model, spec.num_heads) != (info.d_model, info.num_heads):
        raise ValueError(f"{spec.model} has d_model={info.d_model} and num_heads={info.num_heads}, the settings say "
                         f"{spec.d_model} and {spec.num_heads}: a pretrained layer keeps the model's sizes.")
    lines, _, _ = pretrained_texts(spec.text)
    return pretrained.run_layer(loaded, spec.layer, lines, max_tokens=MAX_TOKENS)


def pretrained_counts(model: str, text: str) -> tuple[tuple[int, ...], int, str]:
    """What the model's tokenizer makes of the text box (the sidebar counts with it, not with the course's
    tokenizer): (real tokens per sentence, special tokens included; the padded length T; its padding token)."""
    loaded = load_pretrained(model)
    lines, _, _ = pretrained_texts(text)
    tokens = pretrained.model_tokens(loaded, lines, max_tokens=MAX_TOKENS)
    tok = loaded.tokenizer
    pad = tok.pad_token if tok.pad_token is not None else (tok.eos_token or "")
    return tuple(int(n) for n in tokens.lengths), int(tokens.ids.size(1)), str(pad)


def pretrained_every_layer(spec: ViewSpec) -> tuple[np.ndarray, np.ndarray]:
    """The model view's numbers: every layer's attention weights for the spec's sentence, (L, H, T, T) float32 (the
    model's own, what ``output_attentions`` returns), and the mask they were drawn with, (1, T, T) bool (True = may
    attend). One run through all layers, on the same tokens as ``run_pretrained_view``: afterwards the view of any
    layer runs no model (``mha.weights.pretrained.every_layer_weights``). ``spec.layer`` plays no part."""
    validate_spec(spec)
    loaded = load_pretrained(spec.model)
    lines, _, _ = pretrained_texts(spec.text)
    tokens = pretrained.model_tokens(loaded, lines, max_tokens=MAX_TOKENS)
    b = min(max(spec.sentence, 0), tokens.ids.size(0) - 1)  # clamped as the view clamps it
    weights = pretrained.every_layer_weights(loaded, tokens)[:, b]  # (L, H, T, T)
    allowed = pretrained.allowed_mask(tokens, loaded.info.causal)[b]  # (1, T, T)
    return weights.to(torch.float32).numpy().copy(), allowed.numpy().copy()


def run_pretrained_view(spec: ViewSpec) -> View:
    """The View of one layer of a pretrained model (``mha.weights.pretrained.run_layer`` + ``view_fields``): the model's
    tokens (``tokens`` = its raw pieces, ``labels`` readable), its hidden states as ``x``, its mask (padding, and
    causal for a decoder). ``note_args`` carries ``weights_diff`` / ``output_diff``: the largest difference between
    our weights (output) and the model's own ``output_attentions`` (output projection) for that layer."""
    run = pretrained_run(spec)
    _, notes, args = pretrained_texts(spec.text)
    notes = list(notes)
    B = run.tokens.ids.size(0)
    b = spec.sentence
    if not 0 <= b < B:
        b = min(max(b, 0), B - 1)
        notes.append("note_sentence_clamped")
        args.update(asked=spec.sentence, used=b, n_sentences=B)
    if any(run.tokens.truncated):
        notes.append("note_tokens_cut")
        args.update(n_tokens=max(run.tokens.full_lengths), max_tokens=min(MAX_TOKENS, run.info.max_tokens))
    fields = pretrained.view_fields(run, b)
    previews = tuple(safe_label(" ".join(lab for lab, sp in zip(labels, special) if not sp), max_chars=28)
                     for labels, special in zip(run.tokens.labels, run.tokens.special))
    args.update(weights_diff=run.weights_diff, output_diff=run.output_diff, model_causal=run.info.causal,
                num_layers=run.info.num_layers)
    fields["lengths"] = fields["key_lengths"] = tuple(int(n) for n in run.tokens.lengths)
    return View(spec=spec, notes=tuple(notes), note_args=args, previews=previews, **fields)


__all__ = ["View", "ViewSpec", "ViewInputs", "run_view", "view_inputs", "build_model",
           "custom_model", "model_for", "trained_model", "spec_inputs", "batch_inputs", "train_steps", "SOURCES",
           "head_choices", "validate_spec", "text_batch", "kv_batch", "pretrained_options", "load_pretrained",
           "pretrained_layer", "pretrained_content", "pretrained_texts", "pretrained_counts",
           "pretrained_run", "run_pretrained_view",
           "MAX_PRETRAINED_D_MODEL"]
