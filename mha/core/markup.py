"""Markup escaping: anything a visitor typed, uploaded or put in a link, shown as text and never rendered.

``escape_markdown`` is THE helper for Markdown (``st.markdown``, ``st.error``, captions); ``escape_for_plotly`` for
Plotly's labels and hover text; ``one_line`` for text that is not Markdown (a CSS ``content`` string). Pure Python.
"""
from __future__ import annotations

import html
import re

# Characters that change how text *looks* without being visible: removed before tokenising, never displayed.
# Bidi embeddings/overrides/isolates and marks could reorder what a learner sees; C0/C1 controls print nothing.
_BIDI = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def escape_for_plotly(label: str) -> str:
    """Plotly renders a subset of HTML in labels and hover text: escape so a token is shown, never interpreted.
    Plotly decodes numeric entities and only a few named ones (lt, gt, amp, not quot): a double quote becomes
    ``&#34;``, or the chart would show ``&quot;``."""
    return html.escape(_BIDI_RE.sub("", label), quote=True).replace("&quot;", "&#34;")


# Every ASCII punctuation character: CommonMark lets a backslash make any of them literal text.
_MARKDOWN_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
# Streamlit's Markdown also rewrites *text* after the escapes are resolved (so a backslash cannot stop it): GFM
# auto-links (``https://…``, ``www.…``, ``a@b.c``), emoji and icon shortcodes (``:smile:``, ``:material/home:``,
# ``:streamlit:``) and arrows (``->``, ``<=``, ``--``). A word joiner (U+2060: invisible, zero width, never a break)
# after every ``:`` and ``@``, after ``www`` and inside those arrow pairs keeps each pattern from matching.
_WJ = "\u2060"
_DEFUSE = re.compile(r"(?<=[:@])|(?i:(?<=www)(?=\.))|(?<=[<>~-])(?=[->=])")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\s" + _BIDI + r"]+")
_BIDI_RE = re.compile("[" + _BIDI + "]")


def escape_markdown(text, max_chars: int | None = None, *, code: bool = False) -> str:
    """THE escaping helper: anything a visitor typed, uploaded or put in a link (tokens, file names, state_dict key
    names, link parameter names and values, typed masks) as literal Markdown, safe anywhere in a message.

    No link, image, emphasis, maths, colour, HTML, heading or list can come out of it, and it stays on one line:
    line breaks, other controls and bidi overrides become one space. ``max_chars`` cuts the text first (with "…"),
    so an escape is never cut in half. ``code=True`` shows it as a code span (a value quoted in a note: "head=`9`"),
    otherwise as plain text inside a sentence (a backslash before every ASCII punctuation character). Either way
    the page shows exactly the text given (tests/unit/test_text.py parses it as CommonMark and applies Streamlit's own
    text rewrites)."""
    text = _DEFUSE.sub(_WJ, _CONTROLS.sub(" ", str(text)) if max_chars is None else _cut(text, max_chars))
    if not code:
        return _MARKDOWN_PUNCT.sub(r"\\\1", text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)  # longer than any run of backticks inside, so none of them can end the span
    pad = " " if text[:1] == "`" or text[-1:] == "`" or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def one_line(text, max_chars: int | None = None) -> str:
    """The characters ``escape_markdown`` shows for ``text``, without its Markdown escapes: line breaks, other
    controls and bidi overrides as one space, cut to ``max_chars``. For text that is not Markdown (a CSS ``content``
    string: ``mha.app.widgets.file_uploader`` shows an uploaded file's name with it)."""
    return _CONTROLS.sub(" ", str(text)) if max_chars is None else _cut(text, max_chars)


def _cut(text, max_chars: int) -> str:
    text = _CONTROLS.sub(" ", str(text))
    return text if len(text) <= max_chars else text[: max(max_chars - 1, 0)] + "…"
