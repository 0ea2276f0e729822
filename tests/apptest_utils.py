"""Helpers for AppTest: open a page with URL parameters, and read the data of the Plotly charts it drew."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 90  # import torch alone takes ~3 s, AppTest's default timeout is 3 s


def open_page(page: str | None = None, **params) -> AppTest:
    """Run app.py with these URL parameters, then switch to ``page`` (e.g. "pages/playground.py")."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if page is not None:
        at.switch_page(page)
        at.run()
    return at


def decode(arr):
    """A Plotly array from a chart spec as numpy: plain lists, or {"dtype", "bdata"[, "shape"]} base64."""
    if isinstance(arr, dict) and "bdata" in arr:
        out = np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
        if "shape" in arr:
            shape = arr["shape"]
            out = out.reshape([int(n) for n in str(shape).split(",")] if isinstance(shape, str) else shape)
        return out
    return np.asarray(arr)


def chart_specs(at: AppTest) -> dict:
    """{position on the page: parsed Plotly spec} for every chart drawn."""
    return {n: json.loads(el.proto.spec) for n, el in enumerate(at.get("plotly_chart"))}


def heatmaps(spec: dict, name: str | None = None) -> list[np.ndarray]:
    """The z matrices of the heatmap traces in a spec (the mask overlays, named "masked", are left out)."""
    return [decode(tr["z"]).astype(float) for tr in spec["data"]
            if tr.get("type") == "heatmap" and tr.get("name") != "masked" and (name is None or tr.get("name") == name)]


def all_numbers_finite(spec: dict) -> bool:
    """No NaN or infinity in any numeric array of any trace."""
    for tr in spec["data"]:
        for field in ("z", "x", "y"):
            v = tr.get(field)
            if isinstance(v, dict) and "bdata" in v:
                if not np.isfinite(decode(v).astype(float)).all():
                    return False
            elif isinstance(v, list) and v and all(isinstance(e, (int, float)) or e is None for e in np.ravel(v)):
                if any(e is None for e in np.ravel(v)) or not np.isfinite(np.asarray(v, dtype=float)).all():
                    return False
    return True
