"""Files a learner can take away, and the one file they can bring in. Pure Python + torch + numpy: no Streamlit.

Out:
- ``view_json`` / ``view_npz``: the settings, tokens and every intermediate array of a ``View`` (whatever arrays
  the View has: new fields are exported without touching this module);
- ``matrix_csv``: one matrix with its row and column labels (UTF-8 with BOM, so spreadsheet programs show Korean);
- ``state_dict_bytes``: a module's weights as a ``.pt`` state_dict that loads into the course's class unchanged.

In:
- ``load_state_dict_bytes``: an uploaded ``.pt`` file. Size-capped; its zip directory is read first (torch.save
  writes stored entries: a compressed entry or more unpacked bytes than a state_dict can have is refused before
  ``torch.load`` inflates anything), then read with ``torch.load(..., weights_only=True)`` only (a pickle that would
  run code is refused, never executed), and checked key by key, shape, layout and dtype against d_model before
  anything is materialised. Whatever a file holds, the only exception is ``WeightsError``, with a message key (and
  Markdown-safe values) for the UI.
"""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import math
import re
import warnings
import zipfile
from typing import Mapping

import numpy as np
import torch

from mha.core.errors import LearnerError

FORMAT = "mha-playground-view"
FORMAT_VERSION = 2  # 2: the module's parameters are "parameters" (was "weights", a name the arrays use)

# A state_dict of the largest module the app offers (d_model 512: 4 matrices 512x512 + a bias, float32) is ~4.2 MB.
# float64 doubles that; anything bigger cannot be one of ours. 9 MB as the app says it (10**6 bytes a MB). The
# uploader widget's own limit is above it (UPLOAD_WIDGET_MB = 10, as .streamlit/config.toml maxUploadSize): every
# file up to 10 MB reaches this check and gets its message here, replacing the previous file's; only larger ones
# are refused by Streamlit's widget (which counts 10**6 bytes a MB, 2**20 on Windows) before they reach us.
MAX_WEIGHTS_BYTES = 9 * 10**6
UPLOAD_WIDGET_MB = 10
# Trained attention weights are of order 1. Far larger values are not a trained model, and at d_model 512 values
# above ~1e8 can overflow float32 scores; up to 1e4 every intermediate the app shows stays finite.
MAX_ABS_WEIGHT = 1e4
MAX_D_MODEL = 512
# torch.save writes every zip entry stored (uncompressed), so a real file unpacks to about its own size. A small
# multiple of the cap leaves room for any honest writer; a "zip bomb" (1 GiB of deflated zeros in a 1 MB file)
# is refused by its directory, before torch.load would inflate it.
MAX_UNPACKED_BYTES = 2 * MAX_WEIGHTS_BYTES
MAX_ZIP_ENTRIES = 256  # a state_dict has ~10 (data.pkl, version, byteorder, one per tensor, ...)
MAX_WRAPPING = 4  # {"state_dict": ...} inside {"checkpoint": ...}: deeper nesting is not a checkpoint

# The course's MultiHeadAttention (and ours): parameter name -> shape as a function of d_model.
COURSE_KEYS = ("query_linear.weight", "key_linear.weight", "value_linear.weight", "output_linear.weight",
               "output_linear.bias")
_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def expected_shapes(d_model: int) -> dict[str, tuple[int, ...]]:
    """Shapes of the course class's state_dict. They depend on d_model only: num_heads only splits the columns."""
    return {k: (d_model,) if k.endswith("bias") else (d_model, d_model) for k in COURSE_KEYS}


# ---------------------------------------------------------------------------------------------------------- out


def _plain(value):
    """JSON-safe plain values (tuples -> lists, numpy scalars -> Python numbers)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def view_arrays(view) -> dict[str, np.ndarray]:
    """Every numpy array the View carries, by field name (x, q, k, v, scores, allowed, weights, head_outputs, ...)."""
    out = {}
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if isinstance(value, np.ndarray):
            out[f.name] = value
    return out


def view_meta(view, settings: Mapping | None = None, parameters: str = "seed") -> dict:
    """Everything but the arrays: the settings that reproduce the view, tokens, labels, notes and shapes."""
    spec = dataclasses.asdict(view.spec) if dataclasses.is_dataclass(view.spec) else dict(view.spec)
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "settings": _plain({**spec, **(settings or {})}),
        # the module's parameters: "seed" (seeded random) or "uploaded sha256:<hex>" (not the attention weights,
        # which are arrays["weights"]; version 1 called this field "weights")
        "parameters": parameters,
        "tokens": _plain(list(view.tokens)),
        "labels": _plain(list(view.labels)),
        "notes": _plain(list(getattr(view, "notes", ()))),
        "shapes": {name: list(a.shape) for name, a in view_arrays(view).items()},
        "fields": _other_fields(view),
    }


def _other_fields(view) -> dict:
    """The View's remaining plain fields (e.g. key tokens, sentence, lengths), whatever fields it grows."""
    out = {}
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if f.name in ("spec", "tokens", "labels", "notes") or isinstance(value, np.ndarray):
            continue
        if value is None or isinstance(value, (str, int, float, bool, tuple, list, dict)):
            out[f.name] = _plain(value)
    return out


def view_json(view, settings: Mapping | None = None, parameters: str = "seed") -> bytes:
    """The whole view as JSON: ``meta`` fields plus ``arrays`` as nested lists (bool masks stay true/false).

    Non-finite numbers (none should exist: fully masked rows are 0, not NaN) would be written as null, never as
    the invalid JSON token NaN."""
    doc = view_meta(view, settings, parameters)
    arrays = {}
    for name, a in view_arrays(view).items():
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            arrays[name] = _plain(np.where(np.isfinite(a), a, np.nan).astype(object).tolist())
        else:
            arrays[name] = a.tolist()
    doc["arrays"] = arrays
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def view_npz(view, settings: Mapping | None = None, parameters: str = "seed") -> bytes:
    """The whole view as a compressed .npz: one array per intermediate plus ``meta`` (a JSON string) and ``tokens``.
    Loads with ``np.load(f)`` (no pickle needed: every entry is a plain numeric, bool or unicode array)."""
    buf = io.BytesIO()
    meta = json.dumps(view_meta(view, settings, parameters), ensure_ascii=False)
    np.savez_compressed(buf, meta=np.array(meta), tokens=np.array(list(view.tokens), dtype=str),
                        **view_arrays(view))
    return buf.getvalue()


def _safe_cell(text: str) -> str:
    """Spreadsheets run a cell starting with = + - @ (or tab/CR) as a formula: a token must stay text."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def matrix_csv(mat, row_labels, col_labels, corner: str = "") -> bytes:
    """One 2-D matrix as CSV with a header row and a label column. Labels are written ``i: token`` so a repeated
    word stays its own row; UTF-8 with BOM so Excel shows Hangul. Numbers are written with full float32 precision."""
    a = np.asarray(mat)
    if a.ndim != 2:
        raise ValueError(f"matrix_csv needs a 2-D matrix, got shape {a.shape}: pick one head first.")
    if (len(row_labels), len(col_labels)) != a.shape:
        raise ValueError(f"{len(row_labels)} row labels and {len(col_labels)} column labels for a matrix of shape "
                         f"{a.shape}: they must match.")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([_safe_cell(corner)] + [_safe_cell(f"{j}: {lab}") for j, lab in enumerate(col_labels)])
    for i, (lab, row) in enumerate(zip(row_labels, a)):
        cells = [("true" if v else "false") if a.dtype == bool else repr(float(v)) for v in row]
        w.writerow([_safe_cell(f"{i}: {lab}")] + cells)
    return ("\ufeff" + buf.getvalue()).encode("utf-8")


def state_dict_bytes(model: torch.nn.Module) -> bytes:
    """``torch.save(model.state_dict())`` as bytes: tensors only (copied, so a shared module is never exposed),
    loadable with ``weights_only=True`` into the course's class with ``strict=True``."""
    sd = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    buf = io.BytesIO()
    torch.save(sd, buf)
    return buf.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ----------------------------------------------------------------------------------------------------------- in


class WeightsError(LearnerError):
    """An uploaded file that cannot be used (``mha.core.errors``: ``key`` and ``fmt`` name a string of
    mha/strings/share.py; ``message(lang)`` escapes every value taken from the file: key names, type names, a
    refused global)."""


def _shape(t) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def _unwrap(obj) -> dict:
    """The state_dict inside what was saved: a plain dict of tensors, or a checkpoint {'state_dict': ...} /
    {'model_state_dict': ...}; names from nn.DataParallel ('module.query_linear.weight') are accepted too.
    A loop, not recursion: a file nested thousands of levels deep is refused, not a RecursionError."""
    for _ in range(MAX_WRAPPING + 1):
        if not isinstance(obj, Mapping):
            raise WeightsError("share_err_not_dict", found=type(obj).__name__)
        if any(isinstance(v, torch.Tensor) for v in obj.values()):
            break
        inner = next((obj[k] for k in ("state_dict", "model_state_dict", "model") if isinstance(obj.get(k), Mapping)),
                     None)
        if inner is None:
            break
        obj = inner
    else:
        raise WeightsError("share_err_nested", levels=MAX_WRAPPING)
    if obj and all(isinstance(k, str) and k.startswith("module.") for k in obj):
        obj = {k[len("module."):]: v for k, v in obj.items()}
    return dict(obj)


def _check_keys(sd: Mapping) -> None:
    keys = set(sd)
    missing = [k for k in COURSE_KEYS if k not in keys]
    extra = sorted(_short(k) for k in keys - set(COURSE_KEYS))
    if missing or extra:
        more = " …" if len(extra) > 6 else ""
        raise WeightsError("share_err_keys", missing=", ".join(missing) or "-",
                           extra=", ".join(extra[:6]) + more if extra else "-", expected=", ".join(COURSE_KEYS))


def _short(name, max_chars: int = 60) -> str:
    """A name from the file, cut for a message (``message()`` escapes it)."""
    if not isinstance(name, str):
        name = repr(name) if isinstance(name, (int, float, bool)) else type(name).__name__
    text = name
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def _check_kinds(sd: Mapping) -> None:
    """Every course key holds a plain dense CPU tensor (checked before any shape is read: a nested tensor has none)."""
    for name in COURSE_KEYS:
        t = sd[name]
        if not isinstance(t, torch.Tensor):
            raise WeightsError("share_err_not_tensor", name=name, found=_short(type(t).__name__))
        if t.is_nested or t.is_quantized or t.layout != torch.strided:
            # sparse COO/CSR/CSC/BSR, nested or quantized tensors: weights are dense, and these neither load into
            # nn.Linear nor convert with .contiguous()
            kind = "nested" if t.is_nested else "quantized" if t.is_quantized else str(t.layout).replace("torch.", "")
            raise WeightsError("share_err_layout", name=name, layout=kind)
        if t.device.type != "cpu":  # e.g. a "meta" tensor: a shape without numbers
            raise WeightsError("share_err_device", name=name, device=t.device.type)


def check_state_dict(sd: Mapping, d_model: int, num_heads: int | None = None) -> None:
    """Raise WeightsError unless ``sd`` has exactly the course class's keys with the shapes for ``d_model``.

    Only shapes are read here: no tensor is materialised before its shape is known to be small."""
    if num_heads is not None and (num_heads < 1 or d_model % num_heads):
        raise WeightsError("share_err_heads", d_model=d_model, num_heads=num_heads)
    _check_keys(sd)
    _check_kinds(sd)
    for name, want in expected_shapes(d_model).items():
        t = sd[name]
        if _shape(t) != want:
            found = _shape(t)
            implied = found[0] if found and all(s == found[0] for s in found) else None
            raise WeightsError("share_err_shape", name=name, found="×".join(map(str, found)) or "()",
                               want="×".join(map(str, want)), d_model=d_model,
                               hint_d_model=implied if implied else "?")
        if t.dtype not in _FLOAT_DTYPES:
            raise WeightsError("share_err_dtype", name=name, dtype=str(t.dtype).replace("torch.", ""))


def infer_d_model(sd: Mapping) -> int | None:
    """The d_model these weights were made for (from query_linear.weight), if that is a sane square matrix."""
    t = sd.get("query_linear.weight") if isinstance(sd, Mapping) else None
    if isinstance(t, torch.Tensor) and t.dim() == 2 and t.shape[0] == t.shape[1] and 1 <= t.shape[0] <= MAX_D_MODEL:
        return int(t.shape[0])
    return None


def load_state_dict_bytes(data: bytes, d_model: int | None = None, num_heads: int | None = None,
                          max_bytes: int = MAX_WEIGHTS_BYTES) -> dict[str, torch.Tensor]:
    """Read an uploaded ``.pt`` state_dict safely and return float32 CPU tensors ready for ``load_state_dict``.

    ``d_model=None`` takes d_model from the file (its query_linear.weight); otherwise the file must match it.
    Raises WeightsError (with a message key), and nothing else, whatever the bytes: too large, compressed or
    unpacking to too much, not a torch file, a pickle that asks to run code or build objects (refused by
    ``weights_only=True``, never run), nested too deeply, wrong keys, wrong shapes, sparse / nested / quantized /
    non-CPU tensors, non-float or non-finite values, values beyond ±MAX_ABS_WEIGHT."""
    try:
        return _load(data, d_model, num_heads, max_bytes)
    except WeightsError:
        raise
    except RecursionError:
        raise WeightsError("share_err_nested", levels=MAX_WRAPPING) from None
    except MemoryError:
        raise WeightsError("share_err_memory") from None
    except Exception as err:  # noqa: BLE001 whatever else a file can make torch or this module raise: its fault
        raise WeightsError("share_err_unreadable", error=_short(type(err).__name__)) from None


def _load(data, d_model, num_heads, max_bytes) -> dict[str, torch.Tensor]:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise WeightsError("share_err_not_bytes")
    size = len(data)
    if size > max_bytes:
        raise WeightsError("share_err_too_big", size_mb=size / 10**6, max_mb=max_bytes / 10**6)
    if size == 0:
        raise WeightsError("share_err_empty")
    data = bytes(data)
    if zipfile.is_zipfile(io.BytesIO(data)):
        data = _restored_zip(data)
    obj = _torch_load(data)
    sd = _unwrap(obj)
    if d_model is None:
        _check_keys(sd)
        _check_kinds(sd)
        d_model = infer_d_model(sd)
        if d_model is None:
            found = "×".join(map(str, _shape(sd["query_linear.weight"])))
            raise WeightsError("share_err_bad_d_model", found=found, max_d_model=MAX_D_MODEL)
    check_state_dict(sd, d_model, num_heads)
    out = {}
    for name in COURSE_KEYS:
        t = sd[name].detach().to(device="cpu", dtype=torch.float32).contiguous().clone()
        if not torch.isfinite(t).all():
            raise WeightsError("share_err_not_finite", name=name)
        largest = float(t.abs().max()) if t.numel() else 0.0
        if largest > MAX_ABS_WEIGHT:
            raise WeightsError("share_err_too_large", name=name, found=largest, limit=MAX_ABS_WEIGHT)
        out[name] = t
    return out


def _restored_zip(data: bytes) -> bytes:
    """The archive rebuilt from its directory, after checking that directory: only stored (uncompressed) entries,
    at most MAX_ZIP_ENTRIES, unpacking to at most MAX_UNPACKED_BYTES in total (overlapping entries counted as often
    as they are listed). torch.load then reads this copy, so it can only see what was checked here, whatever its
    own zip reader would have made of an ambiguous file."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except Exception:  # noqa: BLE001 a broken directory: not a file torch.save wrote
        raise WeightsError("share_err_not_torch") from None
    if len(entries) > MAX_ZIP_ENTRIES:
        raise WeightsError("share_err_zip_entries", found=len(entries), limit=MAX_ZIP_ENTRIES)
    packed = [e for e in entries if e.compress_type != zipfile.ZIP_STORED]
    if packed:
        raise WeightsError("share_err_compressed", entry=_short(packed[0].filename))
    unpacked = sum(e.file_size for e in entries)
    if unpacked > MAX_UNPACKED_BYTES:
        raise WeightsError("share_err_unpacked_too_big", size_mb=unpacked / 10**6, max_mb=MAX_UNPACKED_BYTES / 10**6)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as clean:
        for e in entries:
            clean.writestr(e.filename, archive.read(e))  # stored: read() copies file_size bytes and checks the CRC
    return out.getvalue()


_GLOBAL = re.compile(r"GLOBAL\s+([\w.]+)", re.IGNORECASE)


def _torch_load(data: bytes):
    try:
        # weights_only=True: the unpickler only rebuilds tensors and plain containers; anything else is refused
        # before it is constructed, so a file cannot run code here. Everything is read from memory.
        with warnings.catch_warnings():  # torch warns about pickle protocols; the verdict below is what counts
            warnings.simplefilter("ignore")
            return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except (RecursionError, MemoryError):
        raise
    except Exception as err:  # noqa: BLE001 every failure is the file's, and is reported, never raised on
        text = str(err)
        low = text.lower()
        found = _GLOBAL.search(text)
        name = _short(found.group(1) if found else "?")
        if "is blocked" in low:
            # torch 2.13: "Trying to load unsupported GLOBAL posix.system whose module posix is blocked": a function
            # of os, subprocess, ... that the pickle wants to call. Refused before it is looked up, never run.
            raise WeightsError("share_err_runs_code", what=name) from None
        if "unsupported global" in low or "unsupported class" in low or "can only build" in low \
                or "can only create new object" in low:
            # any other object: a whole model (torch.save(model)), or a function outside the blocked modules
            raise WeightsError("share_err_unsafe", what=name) from None
        raise WeightsError("share_err_not_torch") from None  # not a zip, truncated, not a pickle at all ...


__all__ = [
    "COURSE_KEYS", "MAX_ABS_WEIGHT", "MAX_UNPACKED_BYTES", "MAX_WEIGHTS_BYTES", "UPLOAD_WIDGET_MB", "WeightsError",
    "check_state_dict", "expected_shapes", "infer_d_model",
    "load_state_dict_bytes", "matrix_csv", "sha256", "state_dict_bytes", "view_arrays", "view_json", "view_meta",
    "view_npz",
]
