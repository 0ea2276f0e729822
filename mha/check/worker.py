"""Learner code runs here: a pre-started worker process, OS limits, a wall-clock timeout. Being filled in.

``run_check(code, request, timeout=5.0, entry="mha.check.diagnose:diagnose") -> dict``: the entry's JSON-able
dict, or ``{"status": "refused", "key", "line", "col", "fmt"}``, or ``{"status": "limit", "key":
"check_timeout" | "check_memory" | "check_worker_died" | "check_busy"}``, or ``{"status": "off", "key": "check_off"}``
when ``MHA_CHECK=off``.
"""
from __future__ import annotations


def run_check(code: str, request: dict, timeout: float = 5.0, entry: str = "mha.check.diagnose:diagnose") -> dict:
    raise NotImplementedError
