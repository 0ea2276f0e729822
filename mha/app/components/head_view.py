"""The head view: every head's attention weights as lines between two columns of tokens, answered in the browser.

Queries on the left, keys on the right, one colour per head; a line's opacity and width are the weight (BertViz's
head view, CircuitsVis's). Pointing at a query shows its row (where it looks), at a key its column (who looks at
it); clicking a head's colour shows or hides the head, double-clicking shows it alone, "All heads" brings every
head back. The keyboard does the same: Tab to a column, arrow keys to move (up/down a column, left/right across).
The numbers are sent once (``mha.charts.head_view_data.prepare``): no hover or click goes to the server.

In the page the view says what it shows in data attributes of its root (``.hv``), for tests and benchmarks:
``data-ready`` (the payload's ``sig`` once drawn), ``data-hover`` ("q3", "k5" or ""), ``data-visible`` (the shown
heads, "0,2,3"), ``data-lines`` (how many lines are drawn now); ``root.__hvDrawn`` lists them as [head, query, key].

Every token is user text: it is only ever set with ``textContent`` or as an attribute value, never as markup.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from mha.app.components.component import in_page
from mha.charts import head_view_data

_HTML = '<div class="hv"></div>'


def _component() -> Callable:
    return in_page("mha_head_view", _HTML, __file__)


def head_view(weights, query_labels: Sequence[str], key_labels: Sequence[str], *,
              head_colours: Sequence[str] | None = None, key: str = "head_view",
              words: Mapping[str, str] | None = None, top: float = 1.0) -> dict:
    """Draw the head view of ``weights`` (H, Tq, Tk), after softmax, with one label per query and per key (plain
    text). ``head_colours``: one #rrggbb per head (default: ``head_view_data.palette``); ``words``: the view's words
    in the page's language (``head_view_data.words(lang)``); ``top``: the weight drawn at full strength (the view's
    colour scale). Raises ValueError when the weights and labels disagree, saying how to fix it. Returns the payload
    sent to the browser."""
    payload = head_view_data.prepare(weights, query_labels, key_labels, head_colours=head_colours, words=words,
                                     top=top)
    _component()(data={**payload, "alphabet": head_view_data.ALPHABET}, key=key)
    return payload
