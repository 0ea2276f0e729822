"""Weight files as a visitor uploads them, and the loader's refusals (tests/app/test_upload.py, test_security.py)."""
from __future__ import annotations

import io

import pytest
import torch

from mha.weights import export


def saved(obj) -> bytes:
    """``obj`` as ``torch.save`` writes it: the bytes of an uploaded .pt file."""
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def refused(data: bytes, key: str | tuple[str, ...], **kw) -> export.WeightsError:
    """Load ``data`` as uploaded weights (``kw``: d_model, num_heads, ...), which must be refused with the message
    ``key`` (or one of several keys), in Korean as well as in English; returns the error."""
    with pytest.raises(export.WeightsError) as info:
        export.load_state_dict_bytes(data, **kw)
    err = info.value
    assert err.key in ((key,) if isinstance(key, str) else key), (err.key, str(err))
    assert err.message("ko") != err.message("en")  # a Korean message too, not the English one
    return err
