"""A view as one self-contained HTML file (BertViz returns its views as HTML): for a teacher's slides or a course
page, opened from disk with no server and no network. Pure Python: no Streamlit here.

Each part of the file is one of the app's in-page components (``mha/app/*.js`` + ``.css``, read by the caller
with ``mha.app.components.component.asset``) and the payload it already draws in the app. The component's script is
inlined as a module whose ``export default function(component)`` becomes a local function, and a two-line bootstrap
calls it with ``{parentElement, data}`` as Streamlit does: hover, keyboard and clicks answer in the file as in the page
(nothing is sent anywhere: the server's callbacks are no-ops).

Every token reaches the browser as data, never as markup: the payload is JSON inside the script with every ``<``,
``>`` and ``&`` written as ``\\u003c`` (so no ``</script>`` a learner typed can close it), and the components draw
labels with ``fillText`` / ``textContent``. Headings and the title are HTML-escaped.
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

EXPORT = "export default function(component)"
_JS_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


@dataclass(frozen=True)
class Part:
    """One component of the file: its script and style (the files' text), the root element its script looks for
    (``'<div class="hm"></div>'``), the payload, and a heading above it (plain text)."""

    js: str
    css: str
    root_html: str
    data: dict
    heading: str = ""
    note: str = ""  # a line of plain text under the heading
    extra: dict = field(default_factory=dict)  # merged into ``data`` (e.g. the head view's alphabet)


def script_json(value) -> str:
    """``value`` as a JavaScript literal that is safe inside ``<script>``: JSON with ``<``, ``>``, ``&`` and the
    two line separators JavaScript does not allow in strings escaped. Raises ValueError on NaN or infinity."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return "".join(_JS_ESCAPES.get(c, c) for c in text)


def module_script(js: str) -> str:
    """The component's script with its default export made the local function ``__mhaRender``. Raises ValueError
    when the script does not have exactly one default export, or could close its ``<script>`` element."""
    if js.count(EXPORT) != 1:
        raise ValueError(f"The component script must contain {EXPORT!r} exactly once (it has "
                         f"{js.count(EXPORT)}): the file calls that function.")
    if "</script" in js.lower() or "<!--" in js:
        raise ValueError("The component script contains '</script' or '<!--': it cannot be inlined as it is.")
    return js.replace(EXPORT, "const __mhaRender = function(component)")


def _style(css: str) -> str:
    if "</style" in css.lower():
        raise ValueError("A component style contains '</style': it cannot be inlined as it is.")
    return css


# The page around the parts: standalone.css beside this module (mha.charts sits below mha.app, so it reads its file
# itself rather than through mha.app.components.component.asset)
BASE_CSS = Path(__file__).with_suffix(".css").read_text(encoding="utf-8")


def standalone_html(parts: Sequence[Part], *, title: str, lang: str = "en", caption: str = "") -> str:
    """The whole file: ``title`` (plain text) as its title and first heading, ``caption`` under it, then every
    part under its heading. Needs nothing but the file itself to open."""
    if not parts:
        raise ValueError("A saved view needs at least one part.")
    styles, body = [BASE_CSS], [f"<h1>{html.escape(title)}</h1>"]
    if caption:
        body.append(f'<p class="note">{html.escape(caption)}</p>')
    for n, part in enumerate(parts):
        styles.append(_style(part.css))
        if part.heading:
            body.append(f"<h2>{html.escape(part.heading)}</h2>")
        if part.note:
            body.append(f'<p class="note">{html.escape(part.note)}</p>')
        body.append(f'<div id="mha-part-{n}" class="mha-part">{part.root_html}</div>')
        data = {**part.data, **part.extra}
        body.append('<script type="module">\n' + module_script(part.js) + "\n"
                    f"const __mhaData = {script_json(data)};\n"
                    f"__mhaRender({{ parentElement: document.getElementById('mha-part-{n}'), data: __mhaData, "
                    "setTriggerValue() {}, setStateValue() {} });\n</script>")
    lang_attr = html.escape(lang if lang in ("en", "ko") else "en")
    return ("<!DOCTYPE html>\n"
            f'<html lang="{lang_attr}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>\n" + "\n".join(styles) + "\n</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
