"""A thread-safe least-recently-used cache bounded by bytes as well as entries, with a time to live.

Pure Python + numpy (no Streamlit): ``mha.app.compute`` keeps the views, page computations and figures of every
visitor in instances of it, and ``mha.weights.view.build_model`` its seeded modules. Streamlit's own caches are bounded
by entries only, and one entry of the heaviest view (128 tokens, d_model 512, 16 heads) is ~3.5 MB while the
lightest is a few kB: a bound by entries alone is either far too large or far too small.

A value computed by ``get_or_compute`` is computed once even when several threads ask for it at the same time
(the others wait for that one result, not for a lock around the whole cache); a lookup only ever takes a short
lock. Cached numpy arrays are made read-only: a value is shared by every visitor and must never be mutated.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Hashable

import numpy as np

_OVERHEAD = 256  # bytes counted for any Python object (an estimate: a key, a small dataclass, a string)


def nbytes(value: Any, _seen: set | None = None) -> int:
    """An estimate of the memory a value holds: the bytes of every numpy array and torch tensor (each counted
    once), strings by length, containers and dataclasses item by item, anything else a small constant."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + _OVERHEAD
    if type(value).__module__.startswith("torch") and hasattr(value, "element_size"):
        return int(value.element_size() * value.nelement()) + _OVERHEAD
    if isinstance(value, (str, bytes, bytearray)):
        return len(value) + _OVERHEAD // 4
    if isinstance(value, dict):
        return _OVERHEAD + sum(nbytes(k, seen) + nbytes(v, seen) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return _OVERHEAD + sum(nbytes(v, seen) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _OVERHEAD + sum(nbytes(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    if hasattr(value, "to_plotly_json"):  # a Plotly figure: its data and layout as plain containers and arrays
        return nbytes(value.to_plotly_json(), seen)
    if hasattr(value, "state_dict") and callable(value.state_dict):  # a torch module: its parameters and buffers
        return _OVERHEAD + sum(nbytes(t, seen) for t in value.state_dict().values())
    if hasattr(value, "__dict__"):
        return _OVERHEAD + sum(nbytes(v, seen) for v in vars(value).values())
    return _OVERHEAD // 8


def freeze(value: Any, _seen: set | None = None) -> Any:
    """Make every numpy array reachable from ``value`` (containers, dataclass fields) read-only, in place."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return value
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, dict):
        for v in value.values():
            freeze(v, seen)
    elif isinstance(value, (list, tuple)):
        for v in value:
            freeze(v, seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            freeze(getattr(value, f.name), seen)
    return value


@dataclasses.dataclass
class _Entry:
    value: Any
    size: int
    stored: float


class ByteLRU:
    """At most ``max_entries`` values and ``max_bytes`` bytes (as ``nbytes`` counts them), each kept at most
    ``ttl`` seconds; the least recently used go first. A single value larger than ``max_bytes`` is returned but
    not kept."""

    def __init__(self, name: str, *, max_bytes: int, max_entries: int, ttl: float = 3600.0,
                 size_of: Callable[[Any], int] = nbytes, clock: Callable[[], float] = time.monotonic):
        if max_bytes <= 0 or max_entries <= 0 or ttl <= 0:
            raise ValueError(f"{name}: max_bytes, max_entries and ttl must be positive, got {max_bytes}, "
                             f"{max_entries}, {ttl}")
        self.name, self.max_bytes, self.max_entries, self.ttl = name, max_bytes, max_entries, ttl
        self._size_of, self._clock = size_of, clock
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._pending: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return self.lookup(key)[0]

    def lookup(self, key: Hashable) -> tuple[bool, Any]:
        """(True, value) when ``key`` is cached and fresh, else (False, None). Never waits for a computation."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return False, None
            if self._clock() - entry.stored > self.ttl:
                self._drop(key)
                return False, None
            self._entries.move_to_end(key)
            return True, entry.value

    def put(self, key: Hashable, value: Any) -> Any:
        size = self._size_of(value)
        with self._lock:
            if key in self._entries:
                self._drop(key)
            if size <= self.max_bytes:
                self._entries[key] = _Entry(value, size, self._clock())
                self.bytes += size
                while self.bytes > self.max_bytes or len(self._entries) > self.max_entries:
                    self._drop(next(iter(self._entries)))
        return value

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The cached value for ``key``, or ``compute()`` stored under it. Concurrent callers with the same key
        wait for the one computation; a failed computation is not cached (each caller then sees the error)."""
        while True:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None and self._clock() - entry.stored <= self.ttl:
                    self._entries.move_to_end(key)
                    self.hits += 1
                    return entry.value
                pending = self._pending.get(key)
                if pending is None:
                    self._pending[key] = threading.Event()
                    self.misses += 1
                    break
            pending.wait()  # someone else computes this very key: wait for it, then look again
        try:
            return self.put(key, compute())
        finally:
            with self._lock:
                self._pending.pop(key).set()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0

    def _drop(self, key: Hashable) -> None:
        self.bytes -= self._entries.pop(key).size
