"""The app's one of each control and the words on screen (Streamlit glue): translation ``t()`` and ``lang()``, the
words inside charts, the one head picker, token picker, named choice, integer input, file uploader, keyed table and
the weights colour scale.

Every control is bound to the URL: its widget key is its query-parameter name (``bind="query-params"``). Imports only
``mha.app.internals`` and the layers below ``mha.app``.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass

import streamlit as st

from mha.app import internals
from mha.charts import figures
from mha.charts.figures import Words
from mha.core import i18n
from mha.core.markup import escape_markdown, one_line


def lang() -> str:
    """The page's language: the language control's, else the visitor's browser's."""
    value = st.session_state.get("lang")
    return value if value in i18n.LANGS else browser_lang()


def browser_lang() -> str:
    """The language of the visitor's browser (its locale): Korean for a Korean one, else English."""
    return i18n.lang_from_locale(_browser_locale())


def t(key: str, /, **fmt) -> str:
    """Translated UI text for the current language."""
    return i18n.text(key, lang(), **fmt)


def chart_words() -> Words:
    """The words inside charts (titles, axes, hover text) in the current language: pass it as ``words=`` to every
    figure builder. Frozen and hashable, so English and Korean figures are separate ``cached_figure`` entries."""
    return _chart_words(lang())


@functools.lru_cache(maxsize=len(i18n.LANGS))
def _chart_words(lang_: str) -> Words:
    return Words(**{f.name: i18n.text(f"ch_{f.name}", lang_) for f in dataclasses.fields(Words)})


def _browser_locale() -> str | None:
    try:
        return st.context.locale
    except Exception:  # no browser (bare script, some test harnesses)
        return None


def link_value(given: str, max_chars: int | None = None) -> str:
    """A value a link gave, for a note: as code (Markdown, links and emoji codes in it stay text), or "(empty)"."""
    return escape_markdown(given, max_chars, code=True) if given.strip() else t("url_param_empty")


def keep_index(key: str, n: int, fallback: int = 0) -> None:
    """Keep a widget's chosen index (0 .. n-1) valid before drawing it, when its options may have shrunk. A choice
    the options no longer hold can come back from the browser as its label (a str such as "3" or "3: cat"): read
    its number; anything out of range becomes ``fallback``."""
    value = st.session_state.get(key)
    if value is None:
        return
    try:
        pos = int(str(value).split(":", 1)[0].strip())
    except ValueError:
        pos = -1
    pos = pos if 0 <= pos < n else min(max(fallback, 0), n - 1)
    if pos != value:
        st.session_state[key] = pos


INDEX_FORM = re.compile(r"\s*(\d{1,6})\s*(?::.*)?", re.S)  # a position as a link may write it: "3", "3: cat"


def head_picker(key: str, num_heads: int, label: str | None = None, container=None) -> int:
    """The one head picker: heads 0 .. num_heads-1 as a row of buttons, bound to the URL parameter ``key``, kept
    valid when num_heads shrinks. ``container``: where to draw it (default: the page)."""
    keep_index(key, num_heads)
    return (container or st).segmented_control(label or t("ctl_head"), list(range(num_heads)), default=0, key=key,
                                               bind="query-params", required=True)


def token_picker(label: str, key: str, labels, container=None) -> int:
    """The one token picker: a position 0 .. len(labels)-1, shown as "3: cat", bound to the URL parameter ``key``.

    Streamlit writes the shown label into the link ("3: cat"); a link written by hand says ``key=3``, and one made
    for another sentence ``key=3: dog``: both open at position 3 (Streamlit alone would drop them)."""
    options = [f"{i}: {lab}" for i, lab in enumerate(labels)]
    keep_index(key, len(options))
    # The browser shows the label it was last sent: when the tokens change under a position that stays valid
    # (0 before and after), Streamlit sends no new value and the box would go on reading "0: <old word>". Setting
    # the same position again makes Streamlit send it, with its new label (and write that into the link).
    shown_key = f"_token_picker_options_{key}"
    if st.session_state.get(key) is not None and st.session_state.get(shown_key) not in (None, options):
        st.session_state[key] = st.session_state[key]
    st.session_state[shown_key] = options
    given = internals.link_values().get(key)
    if given and given[0] not in options:
        match = INDEX_FORM.fullmatch(given[0])
        if match and int(match.group(1)) < len(options):
            internals.keep_link_values(key, [options[int(match.group(1))]])
    return (container or st).selectbox(label, range(len(options)), key=key, bind="query-params",
                                       format_func=options.__getitem__)


def named_choice(label: str, options, key: str, names: dict, default=None, container=None, help=None,
                 select: bool = False, on_change=None) -> str:
    """The one row of buttons whose options are ids ("weights", "causal") shown by their names in the page's
    language ("가중치", "인과"), bound to the URL parameter ``key`` that holds the id in every language.
    ``select``: a drop-down list instead of buttons (many options in a narrow column). ``on_change``: called (no
    arguments) after a learner's pick has reached ``key``, before the widgets (a callback).

    Streamlit writes a bound control's *shown* label into the URL, so the URL is held by a hidden bound control
    over the ids (anything else in a link gives ``default``), and the visible control mirrors it."""
    where = container or st
    options = list(options)
    default = options[0] if default is None else default
    hide(key)
    value = where.segmented_control(label, options, default=default, key=key, bind="query-params", required=True,
                                    label_visibility="collapsed")
    value = value if value in options else default
    shown = f"{key}_shown"
    # Every run, not only when it differs: on a session's first page the widget ids change between the first run and
    # the next (the route decides them: mha.app.frame), and an unbound control whose id changed would come back empty.
    st.session_state[shown] = value
    visible = dict(key=shown, format_func=lambda o: names.get(o, o), help=help, on_change=_copy_choice,
                   args=(key, shown, on_change))
    if select:
        where.selectbox(label, options, **visible)
    else:
        where.segmented_control(label, options, required=True, **visible)
    return value


def _copy_choice(key: str, shown: str, then=None) -> None:
    st.session_state[key] = st.session_state.get(shown)
    if then is not None:
        then()


def int_input(label: str, key: str, min_value: int, max_value: int, value: int, container=None, **kwargs) -> int:
    """An integer ``number_input`` bound to the URL parameter ``key``. A link value too large for an integer
    (``1e309``, ``inf``) is refused like any other invalid value (Streamlit 1.67 would raise while seeding from it)."""
    if any(internals.is_overflowing_number(v) for v in internals.link_values().get(key, [])):
        internals.refuse_link_value(key)
    return (container or st).number_input(label, min_value=min_value, max_value=max_value, value=value, step=1,
                                          key=key, bind="query-params", **kwargs)


@dataclass(frozen=True)
class WeightsScale:
    """The one colour rule of a view's weights charts: every one of them runs 0 .. ``top``."""
    top: float  # figures.weights_top over everything the view shows
    fit: bool  # the learner's "fit to data" switch (fit_scale)
    reason: str  # "full" (0 .. 1), "fit" (fitted because the learner asked), "long" (long rows, every weight small)


def weights_scale(mats, *, toggle: bool = True, container=None) -> WeightsScale:
    """The colour scale of every weights chart of this page's view: the "Fit the colour scale to the weights"
    switch (``fit_scale``, in the link; one per page run) and the top worked out once over ``mats``, everything the
    view shows (an array or a list of arrays: ``figures.weights_top``). ``toggle=False``: no switch drawn (the view
    shows no weights colour scale to fit): the default rule."""
    fit = bool(toggle) and (container or st).toggle(t("fit_scale"), key="fit_scale", bind="query-params",
                                                    help=t("fit_scale_help"))
    top = figures.weights_top(mats, fit=fit)
    reason = "full" if top >= 1.0 else "long" if not fit or figures.weights_top(mats) < 1.0 else "fit"
    return WeightsScale(top, fit, reason)


def file_uploader(label: str, key: str, types: list[str], max_mb: int, container=None, *,
                  limit_mb: int | None = None, **kwargs):
    """The one file uploader: ``st.file_uploader`` limited to ``max_mb`` MB of the ``types`` given. Streamlit draws
    its own English in the drop zone ("10MB per file • PT, PTH, BIN") and lets no app change it (streamlit#13500):
    in Korean a style scoped to this uploader's key writes it over (the frame's style does the "Upload" button).
    Not reachable: the tooltip of a refused file ("File must be 10.0MB or smaller." at ``max_mb`` 10), see
    docs/korean.md.
    ``limit_mb``: the app's own, lower limit, checked after the upload with a message next to the uploader (a file
    the widget refuses leaves the previous file's message on screen): the drop zone names it, in every language."""
    box = container or st
    if lang() == "ko" or (limit_mb is not None and limit_mb != max_mb):
        # generated, not a .css file: scoped to this uploader's key, with the catalog's words
        text = t("up_instructions", mb=limit_mb or max_mb, types=", ".join(x.upper() for x in types))
        st.html("<style>" + css_text(f".st-key-{key} [data-testid='stFileUploaderDropzoneInstructions'] span",
                                      text, "14px") + "</style>")
    value = box.file_uploader(label, type=types, key=key, max_upload_size=max_mb, **kwargs)
    name = getattr(value, "name", None)
    if name and one_line(name) != name:
        # Streamlit's file chip shows the name as given: a right-to-left override (U+202E) would show
        # "evil\u202egnp.pt" as "eviltp.png". This file's chip (found by its title, the raw name) shows it as every
        # message does: controls and bidi overrides as spaces.
        chip = f".st-key-{key} [data-testid='stFileChipName'][title={css_string(name)}]"
        # isolated: the hidden name's unterminated override would still reorder the text drawn after it. Generated,
        # not a .css file: scoped to this uploader's key and this file's name.
        st.html("<style>" + css_text(chip, one_line(name, 60), "14px")
                + f"{chip}::after {{ unicode-bidi: isolate; direction: ltr; }}</style>")
    return value


def css_string(text: str) -> str:
    """``text`` as a quoted CSS string: every character but letters, digits, space and ``._-`` as a CSS escape, so
    nothing in it ends the string, the rule or the ``<style>`` element."""
    return '"' + "".join(c if c.isascii() and (c.isalnum() or c in " ._-") else f"\\{ord(c):x} " for c in text) + '"'


# The CSS written in Python: only rules that cannot be a .css file, because their selector holds one widget's key
# (``.st-key-<key>``, known at run time) or their ``content`` is text from the string catalog. Every other rule is
# in a .css file beside its module (frame.css, sections/check.css, ...), where Stylelint checks it.
def _css_quoted(text: str) -> str:
    """Our own catalog text as a quoted CSS string (``"``, ``\\``, ``<`` and newlines escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("<", "\\3c ").replace("\n", " ") + '"'


def css_content(selector: str, text: str) -> str:
    """A rule that gives ``selector`` (a ``::after``) ``text`` as its content (our own catalog text only)."""
    return f"{selector} {{ content: {_css_quoted(text)}; }} "


def css_text(selector: str, text: str, size: str) -> str:
    """CSS that hides the text of ``selector`` and shows ``text`` in its place (our own catalog text only)."""
    return (f"{selector} {{ font-size: 0 !important; }} "
            f"{selector}::after {{ content: {_css_quoted(text)}; font-size: {size}; }} ")


def table(data, key: str, container=None, **kwargs):
    """``st.dataframe(data, **kwargs)`` inside a container keyed ``key``: the page can be styled and tested by that
    key (``.st-key-<key>`` in the browser, ``apptest_utils.table(at, key)`` in AppTest; a read-only table alone
    carries no key there). Up to ``WHOLE_ROWS`` rows, the table is as tall as its rows (Streamlit's default shows
    ten: a 12-head model's table was cut at head 9, #26.6)."""
    if "height" not in kwargs and len(data) <= WHOLE_ROWS:  # a row per head: every head at once, no scrolling
        kwargs["height"] = "content"
    with (container or st).container(key=key):
        return st.dataframe(data, **kwargs)


WHOLE_ROWS = 16  # tables up to this many rows are shown whole (16 heads: the most a view has); longer ones scroll


def hide(key: str) -> None:
    """Hide the element with widget key ``key`` (it stays in the page: bound to the link, read by the script).
    Only a style: it draws nothing itself. Generated, not a .css file: one rule, scoped to the key given."""
    st.html(f"<style>.st-key-{key} {{ display: none; }}</style>")
