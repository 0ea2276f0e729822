"""The restricted language learner code runs in (inside the worker process, never the server's).

``compile_learner(code)`` returns the learner's namespace; ``Refused(key, line, col, **fmt)`` is raised for
anything the language does not allow (``key`` names a message in ``mha/strings/check.py``). Being filled in.
"""
from __future__ import annotations


class Refused(BaseException):
    """Learner code the sandbox does not run: ``key`` names a message in ``mha/strings/check.py``, ``line`` and
    ``col`` (1-based, or None) point at the code, ``fmt`` fills the message's placeholders (plain data: escape it
    before showing). A BaseException, so a learner's (or a diagnosis's) ``except Exception`` does not swallow it."""

    def __init__(self, key: str, line: int | None = None, col: int | None = None, **fmt):
        self.key, self.line, self.col, self.fmt = key, line, col, fmt
        super().__init__(key, line, col, fmt)

    def as_dict(self) -> dict:
        return {"status": "refused", "key": self.key, "line": self.line, "col": self.col, "fmt": dict(self.fmt)}


def compile_learner(code: str) -> dict:
    """The learner's namespace: module globals after running ``code``'s top level in the restricted language."""
    raise NotImplementedError
