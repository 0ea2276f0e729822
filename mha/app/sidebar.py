"""The shared controls in the sidebar (Streamlit glue): ``sidebar_controls()``, drawn by the frame on every run (so
their values survive page switches) and mirrored in the URL (each widget key is also its query-parameter name).
It draws the weight source's controls first (``mha.app.sources``), then the text, sizes and the folded rest, names
the link's values it could not use, and keeps the choices for ``mha.app.state.settings()``.
"""
from __future__ import annotations

import streamlit as st

from mha.app import internals, sources
from mha.app.state import SHARED_KEYS, Settings
from mha.app.widgets import browser_lang, int_input, keep_index, lang, link_value, t
from mha.core import i18n
from mha.core.markup import escape_markdown
from mha.core.tokens import TextError
from mha.weights.batch import PAD, BatchError, pair_kv
from mha.weights.pretrained_files import PretrainedError
from mha.weights.train import MAX_TRAIN_D_MODEL
from mha.weights.view import (
    D_MODEL_CHOICES,
    DEFAULT_D_MODEL,
    DEFAULT_NUM_HEADS,
    DEFAULT_SEED,
    DEFAULT_TEXT,
    MAX_CHARS,
    MAX_SEED,
    ViewSpec,
    head_choices,
    kv_batch,
    pretrained_counts,
    text_batch,
)

# Home's "Start here" link adds ?start=course: the sidebar puts the course's sentence back in the text box and drops
# the parameter (a link cannot reset a control any other way: Streamlit appends a page link's parameters to the
# bound ones, and refuses to clear bound ones from code).
START_PARAM = "start"


def _remember_url_params() -> None:
    """On a session's first run, keep the raw URL parameters so that values the widgets refused can be named."""
    if "_url_params_at_start" not in st.session_state:
        st.session_state["_url_params_at_start"] = {k: st.query_params.get_all(k) for k in st.query_params}


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
            if not all(_same_shared_value(key, g, shown) for g in given):
                found.append((key, [g[:40] for g in given[:REPEATS_QUOTED + 1]], len(given), shown))
        st.session_state["_url_notes"] = found
    # Values from the link are shown as code: Markdown, links and emoji codes in them stay text.
    return [_url_note(key, given, n, used) for key, given, n, used in st.session_state["_url_notes"]
            if key in values and _as_url_value(values[key]) == used]


REPEATS_QUOTED = 5  # a repeated parameter's note quotes at most this many of its values


def _same_shared_value(key: str, given: str, shown: str) -> bool:
    """Whether a link's value is what the control shows. A text longer than MAX_CHARS is cut before the box reads
    it (``_cap_link_text``, whose caption says so): its first MAX_CHARS characters are the value used."""
    if key == "text":
        return given[:MAX_CHARS] == shown
    if key == "model":
        return given == shown
    return given.strip().lower() == shown.lower()


def _url_note(key: str, given: list[str], n: int, used: str) -> str:
    """The note for one shared control's link value(s) that could not be used as given."""
    used_shown = escape_markdown(used, 40, code=True)
    if n > 1:  # one control, one value: Streamlit reads the last one (or the default when that one is refused)
        shown = ", ".join(link_value(g) for g in given[:REPEATS_QUOTED]) + (" …" if n > REPEATS_QUOTED else "")
        return t("url_param_repeated", param=key, n=n, given=shown, used=used_shown)
    if key == "layer" and _past(given[0], used):
        return _layer_past_last(given[0], used)
    return t("url_param_ignored", param=key, given=link_value(given[0]), used=used_shown)


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


def _cap_link_text() -> None:
    """A link's ``text=`` longer than MAX_CHARS (what is ever read) is cut here, before the text box is seeded from
    it: a 400 KB link would otherwise come back ~3 times (the box's value, the address bar, the link box). Keeps
    (the link's length, the text kept) for the box's one note on it (``_link_cut_note``)."""
    linked = internals.link_values().get("text")
    if not linked or len(linked[0]) <= MAX_CHARS:
        return
    cut = linked[0][:MAX_CHARS]
    internals.keep_link_values("text", [cut])
    st.query_params["text"] = cut  # the address bar too (one short message)
    st.session_state[LINK_CUT] = (len(linked[0]), cut)


LINK_CUT = "_text_link_cut"  # session_state: (characters in the link's text=, the text kept)


def _link_cut_note(text: str | None) -> str | None:
    """The note on a link's text that was cut, while the box still holds that text (as every link note)."""
    found = st.session_state.get(LINK_CUT)
    if found is None or found[1] != text:
        st.session_state.pop(LINK_CUT, None)
        return None
    return t("ctl_text_link_cut", n_chars=found[0], max_chars=MAX_CHARS)


def sidebar_controls() -> Settings:
    """Draw the shared controls in the sidebar and return the choices. Called once per run, by app.py."""
    _remember_url_params()
    sb = st.sidebar
    locale_lang = browser_lang()
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
    _cap_link_text()
    text = sb.text_area(t("ctl_text"), value=DEFAULT_TEXT, key="text", bind="query-params", height=90,
                        help=t("ctl_text_help", max_chars=MAX_CHARS) + " " + t("ctl_text_batch_help", pad=PAD))
    link_cut = _link_cut_note(text)
    if link_cut:
        sb.caption(link_cut)
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
_MORE_DEFAULTS = {key: getattr(ViewSpec(), key) for key in ("kv_text", "padding", "positional", "seed")}


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
