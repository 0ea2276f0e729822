"""The sidebar's link box: the link to this exact view with a copy button, answered in the browser.

The address bar is the truth (Streamlit updates it for every bound widget, fragments included): ``link_box.js``
shows the live address, adds the parameters in ``ensure`` that it lacks (``lang``: its default follows the visitor's
browser) and copies it. The text is only ever set with ``textContent``: a sentence in the link never becomes markup.
``mha.app.share.link_box`` works out the link and the words and draws it.
"""
from __future__ import annotations

from typing import Callable

from mha.app.components.component import in_page

_HTML = '<div class="mha-link"><code class="mha-url"></code><button type="button" class="mha-copy"></button></div>'


def _component() -> Callable:
    return in_page("mha_share_link", _HTML, __file__)


def link_box(link: str, ensure: dict[str, str], *, copy: str, copied: str, failed: str,
             key: str = "share_link_box") -> None:
    """Draw the box with ``link`` (the server's idea of it, shown until the browser's address is read), the query
    parameters ``ensure`` it must hold, and the button's words in the page's language: ``copy``, ``copied`` (after a
    copy) and ``failed`` (when the browser refuses to copy)."""
    _component()(data={"link": link, "ensure": ensure, "copy": copy, "copied": copied, "failed": failed},
                 key=key, default={})
