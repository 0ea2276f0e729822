"""Streamlit glue shared by every page: the sidebar controls, the cached computation, translated text.

The controls are drawn by ``app.py`` on every run (so their values survive page switches) and mirrored in the
URL: each widget key is also its query-parameter name (``bind="query-params"``). Pages read the choices with
``settings()`` and the numbers with ``current_view()``; they never build models themselves.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass

import streamlit as st

from mha import figures, i18n
from mha.app import compute, internals, runs
from mha.app.compute import HEAVY_WORK, SEEDED, Weights, cached, cached_figure  # noqa: F401 (pages use them)
from mha.batch import PAD, BatchError, pair_kv
from mha.errors import LearnerError
from mha.figures import Words
from mha.text import TextError, escape_markdown, one_line
from mha.course import long_for_training
from mha.train import MAX_TRAIN_D_MODEL, TASKS, TRAIN_LEN
from mha.view import (
    D_MODEL_CHOICES, DEFAULT_D_MODEL, DEFAULT_NUM_HEADS, DEFAULT_SEED, DEFAULT_TEXT, MAX_CHARS, MAX_SEED, View,
    ViewSpec, head_choices, kv_batch, run_view, text_batch,
)

# Shared control keys = URL parameter names. One name per concept across code, UI, URL and docs.
SHARED_KEYS = ("text", "d_model", "num_heads", "causal", "seed", "positional", "lang", "padding", "kv_text",
               "sentence", "source", "task", "train_steps", "model", "layer")


@dataclass(frozen=True)
class Settings:
    text: str
    d_model: int
    num_heads: int
    causal: bool
    seed: int
    positional: bool
    lang: str
    padding: bool = True  # key-padding mask: PAD keys blocked
    kv_text: str = ""  # keys/values text (cross-attention); "" = self-attention
    sentence: int = 0  # which sentence (line) of the batch is shown
    source: str = "random"  # weight source (mha.app.sources): "random" | "trained" | "pretrained"
    task: str = "previous"  # trained: the task
    train_steps: int | None = None  # trained: optimizer steps; None = the task's own budget
    model: str = ""  # pretrained: hub id or local folder
    layer: int = 0  # pretrained: the layer
    model_ok: bool = True  # pretrained: the model loaded (else its message is next to the model control)

    @property
    def steps(self) -> int:
        """Trained: the optimizer steps actually run."""
        return TASKS[self.task].steps if self.train_steps is None else self.train_steps

    def spec(self) -> ViewSpec:
        """The cache key of this run's numbers. Settings that do not apply to the source take their defaults, so
        that they do not split the cache (a pretrained layer has no seed, positions or keys/values text)."""
        if self.source == "pretrained":
            return ViewSpec(text=self.text, d_model=self.d_model, num_heads=self.num_heads, causal=self.causal,
                            sentence=self.sentence, source="pretrained", model=self.model, layer=self.layer)
        spec = ViewSpec(text=self.text, d_model=self.d_model, num_heads=self.num_heads, causal=self.causal,
                        seed=self.seed, positional=self.positional, padding=self.padding, kv_text=self.kv_text,
                        sentence=self.sentence)
        if self.source == "trained":
            spec = dataclasses.replace(spec, source="trained", task=self.task, train_steps=self.train_steps)
        return spec


def lang() -> str:
    value = st.session_state.get("lang")
    return value if value in i18n.LANGS else i18n.lang_from_locale(_browser_locale())


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


# Home's "Start here" link adds ?start=course: the sidebar puts the course's sentence back in the text box and drops
# the parameter (a link cannot reset a control any other way: Streamlit appends a page link's parameters to the
# bound ones, and refuses to clear bound ones from code).
START_PARAM = "start"


def _remember_url_params() -> None:
    """On a session's first run, keep the raw URL parameters so that values the widgets refused can be named."""
    if "_url_params_at_start" not in st.session_state:
        st.session_state["_url_params_at_start"] = {k: st.query_params.get_all(k) for k in st.query_params}


def link_value(given: str, max_chars: int | None = None) -> str:
    """A value a link gave, for a note: as code (Markdown, links and emoji codes in it stay text), or "(empty)"."""
    return escape_markdown(given, max_chars, code=True) if given.strip() else t("url_param_empty")


def _url_notes(values: dict) -> list[str]:
    """Parameters from the link that could not be used as given (garbage, out of range, repeated). Worked out
    on the session's first run and shown until the learner changes that control."""
    if "_url_notes" not in st.session_state:
        raw = st.session_state.get("_url_params_at_start") or {}
        found = []
        for key in SHARED_KEYS:
            given = raw.get(key)
            if not given or key not in values:  # a control of another weight source: not read (after_page says)
                continue
            shown = _as_url_value(values[key])
            same = given[0] == shown if key in ("text", "model") else given[0].strip().lower() == shown.lower()
            if len(given) > 1 or not same:
                found.append((key, given[0][:40], shown))
        st.session_state["_url_notes"] = found
    # Values from the link are shown as code: Markdown, links and emoji codes in them stay text.
    return [_layer_past_last(given, used) if key == "layer" and _past(given, used) else
            t("url_param_ignored", param=key, given=link_value(given), used=escape_markdown(used, 40, code=True))
            for key, given, used in st.session_state["_url_notes"]
            if key in values and _as_url_value(values[key]) == used]


def _past(given: str, used: str) -> bool:
    """A link's layer past the model's last one, which ``sources`` clamped to the last (``used``)."""
    return given.strip().isdigit() and used.isdigit() and int(given) > int(used)


def _layer_past_last(given: str, last: str) -> str:
    """The note for ``layer=`` past the model's last layer: the model's layer count and the layer shown (#26.6)."""
    return t("url_layer_past_last", param="layer", given=link_value(given), n=int(last) + 1, last=int(last))


def _as_url_value(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _keep_lang_in_url(locale_lang: str) -> None:
    """Keep ``lang`` in the address bar always, as the link box's Copy does: its default follows the visitor's
    browser, so an address copied from the bar must say it. Streamlit writes a bound control into the address only
    when it differs from the control's default, so the language control has none (``default=None``, never chosen:
    it is required). Its first value: the link's, else the browser's, written into the address on the session's
    first run (before the control binds the parameter: Streamlit refuses to set a bound one)."""
    if "_lang_in_url" not in st.session_state:
        st.session_state["_lang_in_url"] = True
        if "lang" not in st.query_params:
            st.query_params["lang"] = locale_lang
            st.session_state["lang"] = locale_lang  # the control reads the link before this run's change to it
            return
    if st.session_state.get("lang") not in i18n.LANGS and st.query_params.get("lang") not in i18n.LANGS:
        st.session_state["lang"] = locale_lang  # a link's lang=fr: the browser's language


def _cap_link_text() -> int:
    """A link's ``text=`` longer than MAX_CHARS (what is ever read) is cut here, before the text box is seeded from
    it: a 400 KB link would otherwise come back ~3 times (the box's value, the address bar, the link box). Returns
    the link's length when it was cut (the box says so), else 0."""
    linked = internals.link_values().get("text")
    if not linked or len(linked[0]) <= MAX_CHARS:
        return 0
    cut = linked[0][:MAX_CHARS]
    internals.keep_link_values("text", [cut])
    st.query_params["text"] = cut  # the address bar too (one short message)
    return len(linked[0])


def sidebar_controls() -> Settings:
    """Draw the shared controls in the sidebar and return the choices. Called once per run, by app.py."""
    from mha.app import sources

    _remember_url_params()
    sb = st.sidebar
    locale_lang = i18n.lang_from_locale(_browser_locale())
    _keep_lang_in_url(locale_lang)
    # Bound widgets put their *displayed* option in the URL, so options are shown as their URL values (en, ko).
    if st.query_params.get(START_PARAM) is not None:  # Home's "Start here": the course's sentence, once
        del st.query_params[START_PARAM]
        st.session_state["text"] = DEFAULT_TEXT
        # A new session's box is seeded from the link's own text= (the link wins over session state on a first
        # load): Start here means the course's sentence, so that value is not seeded; neither it nor start is
        # named as a link value left unused.
        internals.refuse_link_value("text")
        raw = st.session_state.get("_url_params_at_start") or {}
        for key in (START_PARAM, "text"):
            raw.pop(key, None)
    sb.segmented_control("🌐 English · 한국어", options=list(i18n.LANGS), default=None, key="lang",
                         bind="query-params", required=True)
    src = sources.source_controls(sb)  # first: it decides which of the controls below apply
    pre = src.pretrained
    info = src.info if pre else None
    st.session_state["_src_info"] = info
    link_cut = _cap_link_text()
    text = sb.text_area(t("ctl_text"), value=DEFAULT_TEXT, key="text", bind="query-params", height=90,
                        help=t("ctl_text_help", max_chars=MAX_CHARS) + " " + t("ctl_text_batch_help", pad=PAD))
    if link_cut:
        sb.caption(t("ctl_text_link_cut", n_chars=link_cut, max_chars=MAX_CHARS))
    batch = _text_batch(text)  # tokenised once per run for the three checks below
    text_message = _check_text(batch)
    if text_message and not (pre and text_message[0] == "caption"):  # a model cuts with its own tokenizer
        kind, msg = text_message
        (sb.error if kind == "error" else sb.caption)(msg)
    sentence = _sentence_control(batch, text or "", src.model if pre and info is not None else None)
    if pre:
        d_model, num_heads = _locked_sizes(info)
    else:
        d_model, num_heads = _size_controls(src.source == "trained")
    sb.caption(t("ctl_head_dim", head_dim=d_model // num_heads, d_model=d_model, num_heads=num_heads))
    causal_box = sb.container()  # drawn here, filled below: whether causal applies depends on the folded kv text
    # Rarely used: folded away until wanted, open while one of them differs from its default (a link with kv_text or
    # seed=3 opens with it shown), so the sidebar fits a laptop window and num_heads is reached without scrolling.
    more = sb.expander(t("ctl_more"), expanded=_more_settings_changed())
    kv_text = more.text_area(t("ctl_kv_text"), value="", key="kv_text", bind="query-params", height=68,
                             placeholder=t("ctl_kv_text_placeholder"), help=t("ctl_kv_text_help"), disabled=pre)
    if pre:
        more.caption(t("src_not_apply", what=t("src_not_apply_kv_text")))
        kv_text = ""
    kv_message = _check_kv_text(batch, kv_text)
    if kv_message:
        kind, msg = kv_message
        (sb.error if kind == "error" else sb.caption)(msg)  # outside the expander: seen even when it is folded
    is_cross = bool((kv_text or "").strip())

    if pre:  # fixed by the model: shown, locked (not bound: a link's causal/padding are not read)
        causal = bool(info.causal) if info else False
        st.session_state["src_causal_locked"] = causal
        causal_box.toggle(t("ctl_causal"), key="src_causal_locked", disabled=True, help=t("src_causal_model"))
        causal_box.caption(t("src_causal_model"))
        st.session_state["src_padding_locked"] = True
        more.toggle(t("ctl_padding"), key="src_padding_locked", disabled=True, help=t("src_padding_model"))
        padding = True
    else:
        causal = causal_box.toggle(t("ctl_causal"), value=False, key="causal", bind="query-params",
                                   help=t("ctl_causal_help"), disabled=is_cross)
        if is_cross:  # query i and key i are tokens of two different texts: "earlier" means nothing
            causal_box.caption(t("ctl_causal_cross_kept" if causal else "ctl_causal_cross"))
        padding = more.toggle(t("ctl_padding"), value=True, key="padding", bind="query-params",
                              help=t("ctl_padding_help", pad=PAD))
    positional = more.toggle(t("ctl_positional"), value=True, key="positional", bind="query-params",
                             help=t("ctl_positional_help"), disabled=pre)
    if pre:
        more.caption(t("src_not_apply", what=t("src_not_apply_positional")))
    seed = int_input(t("ctl_seed"), "seed", 0, MAX_SEED, DEFAULT_SEED, container=more, help=t("ctl_seed_help"),
                     disabled=pre)
    if pre:
        more.caption(t("src_not_apply", what=t("src_not_apply_seed")))
    settings = Settings(text=text or "", d_model=int(d_model), num_heads=int(num_heads),
                        causal=bool(causal) and not is_cross, seed=int(seed), positional=bool(positional),
                        lang=lang(), padding=bool(padding), kv_text=kv_text or "", sentence=int(sentence),
                        source=src.source, task=src.task, train_steps=src.train_steps, model=src.model,
                        layer=src.layer, model_ok=not (pre and info is None))
    # The toggle keeps a linked causal=true in cross-attention (disabled, its caption says why; it applies again
    # once the keys/values text is cleared): that value was used, not refused.
    values = {**settings.__dict__, "causal": bool(causal)}
    for key in _not_read(src.source):
        values.pop(key, None)
    if src.source == "trained":
        values["train_steps"] = settings.steps
    for note in _url_notes(values):
        sb.warning(note, icon="🔗")
    st.session_state["_settings"] = settings
    return settings


# The folded controls and their defaults: the fold opens by itself while one of them differs (in this session or in
# the link being opened), so a changed setting is never hidden.
_MORE_DEFAULTS = {"kv_text": "", "padding": True, "positional": True, "seed": DEFAULT_SEED}


def _more_settings_changed() -> bool:
    """Whether a folded control holds something other than its default (session state, or the link's value)."""
    link = st.query_params
    for key, default in _MORE_DEFAULTS.items():
        value = st.session_state.get(key, default)
        if isinstance(default, str):
            if (value or "").strip() or (link.get(key) or "").strip():
                return True
        elif value != default or (key in link and str(link.get(key)).lower() != str(default).lower()):
            return True
    return False


def _not_read(source: str) -> tuple[str, ...]:
    """Link parameters the controls of this weight source do not read (a link's value for them is not refused)."""
    if source == "pretrained":
        return ("task", "train_steps", "d_model", "num_heads", "causal", "padding", "kv_text")
    return ("model", "layer") + (() if source == "trained" else ("task", "train_steps"))


def model_info():
    """This run's pretrained model (``mha.pretrained.ModelInfo``), or None (another source, or it did not load)."""
    return st.session_state.get("_src_info")


def _locked_sizes(info) -> tuple[int, int]:
    """d_model and num_heads of a pretrained layer: the model's, shown in locked controls (not bound to the link)."""
    sb = st.sidebar
    d_model, num_heads = (info.d_model, info.num_heads) if info else (DEFAULT_D_MODEL, DEFAULT_NUM_HEADS)
    left, right = sb.columns(2)  # side by side, as in the free controls
    left.selectbox("d_model", [d_model], key="src_d_model_locked", disabled=True, help=t("src_locked_help"))
    right.selectbox("num_heads", [num_heads], key="src_num_heads_locked", disabled=True, help=t("src_locked_help"))
    sb.caption(t("src_locked_sizes"))
    return d_model, num_heads


def _size_controls(trained: bool) -> tuple[int, int]:
    """The d_model and num_heads pickers (trained weights: d_model up to MAX_TRAIN_D_MODEL)."""
    sb = st.sidebar
    choices = [d for d in D_MODEL_CHOICES if not trained or d <= MAX_TRAIN_D_MODEL]
    current = st.session_state.get("d_model")
    if trained and isinstance(current, int) and current > MAX_TRAIN_D_MODEL:
        st.session_state["d_model"] = MAX_TRAIN_D_MODEL
        st.session_state["_dmodel_clamped"] = (current, MAX_TRAIN_D_MODEL)
    left, right = sb.columns(2)  # side by side: the pair is one choice (head_dim = d_model / num_heads, below)
    d_model = left.selectbox("d_model", choices, index=choices.index(DEFAULT_D_MODEL), key="d_model",
                           bind="query-params", help=t("ctl_d_model_help"))
    clamped = st.session_state.pop("_dmodel_clamped", None)
    if clamped:
        sb.caption(t("src_trained_dmodel", max=MAX_TRAIN_D_MODEL, old=clamped[0], new=clamped[1]))
    heads = head_choices(d_model)
    current = st.session_state.get("num_heads")
    if current is not None and current not in heads:
        # d_model changed under a head count that no longer divides it: keep the nearest smaller valid one.
        st.session_state["num_heads"] = max(h for h in heads if h <= current) if current > 1 else 1
        st.session_state["_heads_adjusted"] = (current, st.session_state["num_heads"], d_model)
    num_heads = right.selectbox("num_heads", heads, index=heads.index(DEFAULT_NUM_HEADS) if DEFAULT_NUM_HEADS in heads
                             else 0, key="num_heads", bind="query-params",
                             help=t("ctl_num_heads_help", d_model=d_model, choices=", ".join(map(str, heads))))
    adjusted = st.session_state.pop("_heads_adjusted", None)
    if adjusted:
        sb.caption(t("note_heads_adjusted", old=adjusted[0], new=adjusted[1], d_model=adjusted[2]))
    return d_model, num_heads


def _text_batch(text: str | None):
    """The sentences of the text box, or None when it has nothing visible."""
    try:
        return text_batch(text or "")
    except TextError:
        return None


def _check_text(batch) -> tuple[str, str] | None:
    """A message for the text box: an error when nothing can be shown, a caption when the text was changed."""
    if batch is None:
        return "error", t("err_empty_text")
    if batch.notes:
        return "caption", " ".join(t(n, **batch.note_args) for n in batch.notes)
    return None


def _model_counts(model: str, text: str):
    """(lengths, T, padding token) by the pretrained model's own tokenizer, or None when it cannot tokenize."""
    from mha.pretrained import PretrainedError
    from mha.view import pretrained_counts

    try:
        return pretrained_counts(model, text)
    except (PretrainedError, TextError, ValueError):  # the page says why, next to the text box or the model
        return None


def _sentence_control(batch, text: str = "", model: str | None = None) -> int:
    """With several lines, a control for which sentence of the batch to show; 0 (and no control) otherwise.
    ``model``: a pretrained model's id; its own tokenizer counts the tokens and its padding (the charts' numbers)."""
    if batch is None or batch.size < 2:
        return 0
    keep_index("sentence", batch.size, fallback=batch.size - 1)  # lines may have been removed under the choice
    choice = st.sidebar.segmented_control(t("ctl_sentence"), options=list(range(batch.size)), default=0,
                                          key="sentence", bind="query-params", required=True,
                                          help=t("ctl_sentence_help", n=batch.size, pad=PAD))
    choice = int(choice or 0)
    lengths, T, pad = batch.lengths, batch.max_len, PAD
    counts = _model_counts(model, text) if model else None
    if counts is not None and choice < len(counts[0]):
        lengths, T, pad = counts
    preview = escape_markdown(batch.previews[choice])  # the typed words, joined: Markdown in them stays text
    st.sidebar.caption(t("ctl_sentence_shown", preview=preview, n=lengths[choice], n_pad=T - lengths[choice],
                         pad=escape_markdown(pad, 24) if counts is not None else pad))
    return choice


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
    its own English in the drop zone ("9MB per file • PT, PTH, BIN") and lets no app change it (streamlit#13500):
    in Korean a style scoped to this uploader's key writes it over (the frame's style does the "Upload" button).
    Not reachable: the tooltip of a refused file ("File must be 9.0MB or smaller."), see docs/korean.md.
    ``limit_mb``: the app's own, lower limit, checked after the upload with a message next to the uploader (a file
    the widget refuses leaves the previous file's message on screen): the drop zone names it, in every language."""
    box = container or st
    if lang() == "ko" or (limit_mb is not None and limit_mb != max_mb):
        text = t("up_instructions", mb=limit_mb or max_mb, types=", ".join(x.upper() for x in types))
        st.html("<style>" + _css_text(f".st-key-{key} [data-testid='stFileUploaderDropzoneInstructions'] span",
                                      text, "14px") + "</style>")
    value = box.file_uploader(label, type=types, key=key, max_upload_size=max_mb, **kwargs)
    name = getattr(value, "name", None)
    if name and one_line(name) != name:
        # Streamlit's file chip shows the name as given: a right-to-left override (U+202E) would show
        # "evil\u202egnp.pt" as "eviltp.png". This file's chip (found by its title, the raw name) shows it as every
        # message does: controls and bidi overrides as spaces.
        chip = f".st-key-{key} [data-testid='stFileChipName'][title={css_string(name)}]"
        # isolated: the hidden name's unterminated override would still reorder the text drawn after it
        st.html("<style>" + _css_text(chip, one_line(name, 60), "14px")
                + f"{chip}::after {{ unicode-bidi: isolate; direction: ltr; }}</style>")
    return value


def css_string(text: str) -> str:
    """``text`` as a quoted CSS string: every character but letters, digits, space and ``._-`` as a CSS escape, so
    nothing in it ends the string, the rule or the ``<style>`` element."""
    return '"' + "".join(c if c.isascii() and (c.isalnum() or c in " ._-") else f"\\{ord(c):x} " for c in text) + '"'


def _css_text(selector: str, text: str, size: str) -> str:
    """CSS that hides the text of ``selector`` and shows ``text`` in its place (our own catalog text only)."""
    quoted = text.replace("\\", "\\\\").replace('"', '\\"').replace("<", "\\3c ").replace("\n", " ")
    return (f"{selector} {{ font-size: 0 !important; }} "
            f'{selector}::after {{ content: "{quoted}"; font-size: {size}; }} ')


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


def _check_kv_text(batch, kv_text: str | None) -> tuple[str, str] | None:
    """A message for the keys/values box: it has nothing visible, or its lines do not pair with the text's."""
    try:
        kv = kv_batch(kv_text or "")
        if kv is None or batch is None:  # no keys/values text; or the main text is empty: its own message says so
            return None
        pair_kv(batch, kv)
    except BatchError as err:
        return "error", err.message(lang())
    return ("caption", " ".join(t(n, **kv.note_args) for n in kv.notes)) if kv.notes else None


def settings() -> Settings:
    """The shared choices of this run (drawn by app.py before the page runs)."""
    found = st.session_state.get("_settings")
    if found is None:
        raise RuntimeError("sidebar_controls() must run before a page asks for settings()")
    return found


# This session's uploaded weights (mha.app.share puts them here): {"sha", "name", "d_model", "state_dict"}.
CUSTOM_WEIGHTS_KEY = "_share_custom_weights"


def session_weights(d_model: int) -> Weights:
    """The parameters this session's views of ``d_model`` run on: its uploaded file when that fits ``d_model``, else
    the seeded ones (``compute.SEEDED``). The one place that decides it; pass the result to ``compute.cached``."""
    w = st.session_state.get(CUSTOM_WEIGHTS_KEY)
    s = st.session_state.get("_settings")
    if s is not None and s.source == "pretrained":  # a pretrained layer runs on the model's own parameters
        return SEEDED
    return Weights(w["sha"], w["state_dict"]) if w and w.get("d_model") == d_model else SEEDED


def current_view() -> View | None:
    """The numbers for the current settings, or None (with a message on the page) when there is nothing to show."""
    s = settings()
    if s.source == "pretrained" and not s.model_ok:
        st.info(t("src_page_needs_model"), icon="🧱")
        return None
    try:
        weights = session_weights(s.d_model)
        # The first time these settings are asked for, the module trains: a long run (mha.app.runs), in this
        # session's place in the queue, outside the compute slots; the view itself is then light work.
        if s.source == "trained" and weights is SEEDED and not runs.trained_for_view(s.spec()):
            return None
        view = compute.view(s.spec(), weights)
        if weights is SEEDED and long_for_training(view):  # next to the charts, on every page that draws the view
            st.warning(t("src_trained_long", n=int(view.lengths[view.sentence]), train_len=TRAIN_LEN), icon="📏")
        return view
    except TextError:
        st.info(t("page_needs_text"), icon="✍️")
        return None
    except BatchError:  # the message itself is next to the keys/values box in the sidebar
        st.info(t("page_needs_kv_text"), icon="✍️")
        return None
    except LearnerError as err:  # a pretrained model's (PretrainedError): e.g. no tokens for it in this text
        st.error(err.message(lang()))
        return None
    except ValueError as err:  # settings that cannot run (only reachable by hand-edited state)
        st.error(t("err_settings", detail=escape_markdown(str(err))))
        return None


def hide(key: str) -> None:
    """Hide the element with widget key ``key`` (it stays in the page: bound to the link, read by the script).
    Only a style: it draws nothing itself."""
    st.html(f"<style>.st-key-{key} {{ display: none; }}</style>")
