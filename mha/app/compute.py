"""The one recipe for cached computation and cached figures, shared by every visitor.

- ``cached(fn, *args, weights=..., **kwargs)``: ``fn(*args, state_dict=weights.state_dict, **kwargs)`` computed once
  per distinct input, keyed on the function, its arguments (a ``ViewSpec`` as it is, a ``View`` by its spec, arrays
  by a digest of their bytes) and the sha256 of the uploaded file the parameters came from ("" = seeded). The
  uploaded tensors themselves are never hashed nor shared: only someone with the very same file gets that result.
- ``view(spec, weights)``: ``run_view`` through the same recipe; ``pretrained_layers(view)``: every layer of a
  pretrained view's model, from one run.
- ``cached_figure(builder, *args, **kwargs)``: a pure figure builder's figure, once per distinct input.

Every computation runs under one concurrency limit, ``HEAVY_WORK`` (two at a time on a 2-core machine); a cache
hit never takes it, and neither does building a figure, so a visitor whose view is cached is never queued behind
another's heavy work. Trainings are not computed here: they are long runs (``mha.app.runs``), outside these
slots, so two of them can no longer lock every other visitor out (issue #23). Each cache is bounded by bytes as
well as entries (``mha.core.lru.ByteLRU``), and a cached value is read-only (its arrays are frozen): it is shared by
every session.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import threading
from typing import Any, Callable

import numpy as np

from mha.charts.figures import readable_ticks
from mha.core.lru import ByteLRU, freeze, nbytes
from mha.core.tokens import PieceLabel
from mha.weights.view import View, ViewSpec, pretrained_content, pretrained_every_layer, run_view

MB = 2 ** 20
# Many visitors, few cores: at most two model computations at once; the others wait their turn. torch itself uses
# one thread per computation (mha.app.frame).
HEAVY_WORK = threading.BoundedSemaphore(2)
# The heaviest view (128 tokens, d_model 512, 16 heads) is ~3.5 MB, its four Playground figures ~8 MB together.
VIEWS = ByteLRU("views", max_bytes=96 * MB, max_entries=64, ttl=3600)
RESULTS = ByteLRU("page computations", max_bytes=64 * MB, max_entries=128, ttl=3600)


def figure_nbytes(fig) -> int:
    """About the memory a cached Plotly figure holds, quickly: ``lru.nbytes`` would copy the whole figure
    (``to_plotly_json``) and walk every hover text and label, ~0.1-0.3 s per figure at 128 tokens x 16 heads, paid
    on every cache miss (bench/profile_rerun.py). Here: the figure's own data and layout, read in place, long lists
    estimated from an even sample of 16 items."""
    parts = (getattr(fig, "_data", None), getattr(fig, "_layout", None))
    return _sampled_nbytes(list(parts)) if parts[0] is not None else nbytes(fig)


def _sampled_nbytes(value) -> int:
    if isinstance(value, dict):
        return 256 + sum(len(k) + _sampled_nbytes(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        step = max(1, len(value) // 16)
        sample = value[::step][:16]
        return 256 + int(sum(_sampled_nbytes(v) for v in sample) * len(value) / max(1, len(sample)))
    return nbytes(value)


FIGURES = ByteLRU("figures", max_bytes=64 * MB, max_entries=96, ttl=3600, size_of=figure_nbytes)
CACHES = (VIEWS, RESULTS, FIGURES)


@dataclasses.dataclass(frozen=True)
class Weights:
    """The parameters a computation runs on: the seeded ones (``sha == ""``), or a visitor's uploaded state_dict,
    known by its file's sha256. Only ``sha`` takes part in keys and comparisons."""

    sha: str = ""
    state_dict: dict | None = dataclasses.field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self):
        if bool(self.sha) != (self.state_dict is not None):
            raise ValueError("Weights: give both the uploaded file's sha256 and its state_dict, or neither")


SEEDED = Weights()


def fingerprint(value) -> Any:
    """An exact, plain cache key for an argument: arrays by dtype, shape and a digest of their bytes (Streamlit's own
    hashing samples arrays of 500k+ elements), a ``View`` by the ``ViewSpec`` it was computed from (with the weights'
    sha256, which every key holds, that fixes it; a pretrained spec with its model folder's content,
    ``mha.weights.view.pretrained_content``), a token label with its raw piece, containers item by item, dataclass
    instances by type and field values, plain values as they are."""
    if isinstance(value, np.ndarray):
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16).hexdigest()
        return ("ndarray", value.dtype.str, value.shape, digest)
    if isinstance(value, View):
        return ("View", fingerprint(value.spec))
    if isinstance(value, ViewSpec):  # a pretrained model's: with what its folder holds now (a re-save is new)
        return (value, pretrained_content(value.model)) if value.source == "pretrained" else value
    if isinstance(value, PieceLabel):  # a token label that carries its raw piece: both make the key
        return ("PieceLabel", str(value), value.raw)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(fingerprint(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, fingerprint(v)) for k, v in sorted(value.items())))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A dataclass instance (figures.Words, explain.Contributions): its type and each field's fingerprint, read
        # directly (no deep copy).
        cls = type(value)
        return (f"{cls.__module__}.{cls.__qualname__}",
                tuple(fingerprint(getattr(value, f.name)) for f in dataclasses.fields(value)))
    hash(value)  # anything else must be a plain, hashable value: fail here, not with a wrong cache hit
    return value


def _name(fn: Callable) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


@functools.lru_cache(maxsize=None)
def _takes_state_dict(fn: Callable) -> bool:
    return "state_dict" in inspect.signature(fn).parameters


def cached(fn: Callable, *args, weights: Weights, store: ByteLRU = RESULTS, **kwargs):
    """``fn(*args, **kwargs)`` computed at most once per distinct input under ``HEAVY_WORK``, then shared (read-only).

    ``weights``: the parameters this session's views run on (``state.session_weights``); their sha256 is part of
    every key, and ``fn`` gets their state_dict as ``state_dict=`` when it has that parameter. A ``View`` among the
    arguments is keyed by its spec: it must be one computed on these same weights. ``fn`` must be a module-level
    function of its arguments and the parameters alone. Raises what ``fn`` raises (errors are not cached)."""
    extra = {"state_dict": weights.state_dict} if _takes_state_dict(fn) else {}
    key = (_name(fn), fingerprint(args), fingerprint(kwargs), weights.sha)

    def compute():
        with HEAVY_WORK:
            return freeze(fn(*args, **kwargs, **extra))

    return store.get_or_compute(key, compute)


def view(spec: ViewSpec, weights: Weights = SEEDED) -> View:
    """``run_view(spec)`` on these parameters, cached. Raises TextError, BatchError or ValueError like run_view."""
    return cached(run_view, spec, weights=weights, store=VIEWS)


def pretrained_layers(view: View) -> tuple[np.ndarray, np.ndarray]:
    """Every layer's weights of a pretrained view's sentence, (L, H, T, T), and their mask (1, T, T): one run
    through all layers, cached like every computation (keyed on the spec without its layer: the same numbers for
    every layer shown). The model view draws them (``mha.app.sections.model_view``), the saved HTML file too."""
    spec = dataclasses.replace(view.spec, layer=0)
    return cached(pretrained_every_layer, spec, weights=SEEDED)


def cached_figure(builder: Callable, *args, **kwargs):
    """``builder(*args, **kwargs)`` (a module-level figure builder such as ``figures.heads_grid``), built once per
    distinct input and then shared by every rerun and visitor: a rerun that changes nothing in a chart skips
    Plotly's slow figure building (most of a rerun's time). Keyed on the builder's name and the arguments' content,
    so it never shows another input's figure. Not under ``HEAVY_WORK``. The figure is shared: never mutate it.
    Token labels that carry raw pieces (pretrained views) keep them in the hover and out of the tick labels
    (``figures.readable_ticks``, applied here once for every page)."""
    key = (_name(builder), fingerprint(args), fingerprint(kwargs))
    return FIGURES.get_or_compute(key, lambda: readable_ticks(builder(*args, **kwargs)))


def clear() -> None:
    """Empty every cache (tests)."""
    for c in CACHES:
        c.clear()
