"""The one convention for an input the app cannot use: an exception that carries a translated message.

``LearnerError(key, message=None, **fmt)``: ``key`` names a UI string (``mha/strings``) and ``fmt`` fills its
placeholders; ``str(err)`` is the English text (logs, tests: given, or the catalog's); ``err.message(lang)`` is the
text for the page, in which every string value is escaped (it may come from a visitor: a file's key names, a typed
character), so it is shown, never rendered. ``TextError``, ``BatchError``, ``MaskTextError``, ``WeightsError`` and
``PretrainedError`` are all of this kind.
"""
from __future__ import annotations

from mha.core import i18n
from mha.core.markup import escape_markdown


class LearnerError(ValueError):
    """An input the app cannot use, with a message in every language. See the module docstring."""

    def __init__(self, key: str, message: str | None = None, /, **fmt):
        self.key, self.fmt = key, fmt
        super().__init__(message if message is not None else i18n.text(key, "en", **fmt))

    def message(self, lang: str = "en") -> str:
        return i18n.text(self.key, lang, **{k: escape_markdown(v) if isinstance(v, str) else v
                                           for k, v in self.fmt.items()})

    @property
    def args_(self) -> dict:
        """The old name of ``fmt`` (kept while other branches move over; use ``fmt``)."""
        return self.fmt
