"""Streamlit glue for sharing: the link box, the custom-weights note, exports and the upload of your own weights.

The frame (``mha.app.frame``) calls ``weights_note()`` and ``link_box()`` before every page (a note while uploaded
weights are in use; the link with a copy button) and ``after_page()`` after it. The Share page uses the rest.

The link is built from Streamlit's own URL bindings (every widget made with ``bind="query-params"`` on the shared
controls and on the page), so a control added by any page is part of the link without touching this module. In the
browser a small component then shows the live address (which Streamlit keeps in sync even for widgets inside
fragments) and adds ``lang`` (its default depends on the visitor's browser). Parameters that nothing reads are
named once and removed from the address bar (``after_page``).

Uploaded weights live in ``st.session_state`` only: one visitor's file never reaches another. The cached
computation is keyed on the file's sha256, never on the tensors.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable
from urllib.parse import quote, urlencode, urlsplit

import streamlit as st

from mha.app import internals, sources
from mha.app.components import link_box as link_box_component
from mha.app.components.paint_gate import NOTES_AGAIN
from mha.app.compute import Weights, pretrained_layers
from mha.app.pages import OWN_MODULE_PAGES, PAGES, url_path
from mha.app.state import CUSTOM_WEIGHTS_KEY, SHARED_KEYS, settings
from mha.app.widgets import INDEX_FORM, chart_words, lang, link_value, t
from mha.core import i18n
from mha.core.markup import escape_markdown
from mha.weights import export
from mha.weights.view import D_MODEL_CHOICES, head_choices

_INDEX_FORM = INDEX_FORM  # a position as a link may write it (mha.app.widgets.token_picker reads it)

TEXT_PARAMS = ("text", "kv_text")  # where an empty value means what it says: no text


def clean_link() -> None:
    """Before any widget: an empty parameter (``?head=``) would clear a control that must always have a value, so
    it is dropped and the control keeps its default (the link note names it). Works on the values Streamlit seeds
    widgets from (``mha.app.internals``), on every run: Streamlit takes them from the address bar again on a rerun
    and on the back button."""
    for key, values in internals.link_values().items():
        if key in TEXT_PARAMS:
            continue
        kept = [v for v in values if v.strip()]
        if not kept:
            internals.drop_link_value(key)
        elif kept != values:
            internals.keep_link_values(key, kept)

WEIGHTS_STATE = CUSTOM_WEIGHTS_KEY  # session_state: {"sha", "name", "d_model", "state_dict"}; this session only
UPLOAD_KEY = "share_upload"
EMBED_KEYS = ("embed", "embed_options")  # Streamlit's own; never ours to keep or drop
# Link parameters the app no longer binds but still understands: a link that has them opens as it meant to, and they
# leave the address bar without a note. The Playground's folds of the outputs (before its "look closer" choice: such
# a link opens the outputs there).
RETIRED_KEYS = ("show_head_outputs", "show_output")

# ------------------------------------------------------------------------------------------------------ the link


def _bindings() -> dict[str, tuple[object, object]]:
    """URL-bound widgets of the shared frame and of the current page: {param key: (widget metadata, value)}.

    Reads Streamlit's binding registry (pinned streamlit==1.67.0). Called before the page runs, it sees the page's
    widgets as registered by the previous run of the same page, with this run's values (a widget's new value is in
    session_state before the script starts)."""
    # Streamlit drops the bindings of widgets a run did not draw, so the registry holds this run's widgets so far
    # plus the previous run's: those belong to this view only if the previous run showed this same page.
    same_page = st.session_state.get("_share_prev_page") == internals.page_hash()  # set by link_box()
    return internals.url_bindings(previous_run_too=same_page)


def _url_value(meta, value) -> str | list[str] | None:
    """The query-string form Streamlit itself writes for this widget value, or None when it is the default."""
    if value == meta.deserializer(None):
        return None
    return internals.url_form(meta, value)


def link_params() -> dict[str, str | list[str]]:
    """Query parameters that reproduce the current view: every bound control that is not at its default, plus
    ``lang`` always (its default follows the visitor's browser, so a link must say it)."""
    params: dict[str, str | list[str]] = {}
    for key, (meta, value) in sorted(_bindings().items()):
        try:
            v = _url_value(meta, value)
        except Exception:  # noqa: BLE001 a value a serializer refuses is left out, not fatal
            v = None
        if v is not None and v != []:
            params[key] = v
    params["lang"] = settings().lang
    return params


def build_link(base: str | None, page_path: str, params: dict) -> str:
    """``base`` is the app's root URL (scheme, host and any base path; see ``_app_root``); without it the link is
    relative. ``page_path`` is the page's URL path ('' for home)."""
    query = urlencode(params, doseq=True, quote_via=quote)
    root = (base or "").rstrip("/") + "/" + page_path
    return f"{root}?{query}" if query else root


def _app_root(url: str | None) -> str | None:
    """st.context.url without the page part Streamlit appends (which may name home by its file, e.g. /home)."""
    if not url:
        return None
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if last and last in {Path(p).stem for p, _, _ in PAGES}:
        path = path[: -len(last)]
    return f"{parts.scheme}://{parts.netloc}{path.rstrip('/')}"


def _current_url_path() -> str:
    """The URL path of the page this run shows ('' for home), for a relative link when the browser URL is unknown."""
    script = internals.page_script_path()
    for path, _, _ in PAGES:  # the app's own rule (home is "/"), whichever mode Streamlit ran the page in
        if script.endswith("/" + path):
            return url_path(path)
    return internals.page_url_pathname()


def _context_url() -> str | None:
    try:
        return st.context.url
    except Exception:  # noqa: BLE001 no browser (bare run)
        return None


def link_box(url_path: str | None = None) -> str:
    """The sidebar box with the link to this exact view and a copy button. Returns the link (kept for tests).

    Drawn before the page so it is there on every page, whatever the page does; in the browser the component
    then follows the live address (see the module docstring)."""
    params = link_params()
    link = build_link(_app_root(_context_url()), _current_url_path() if url_path is None else url_path, params)
    page = _page_hash()
    if st.session_state.get("_share_prev_page") == page:
        after_page()  # the page's controls are registered since the previous run (no-op once done)
    st.session_state["_share_prev_page"] = page
    sb = st.sidebar
    sb.markdown(f"**🔗 {t('share_link_title')}**", help=t("share_link_help"))
    with sb:  # mha.app.components.link_box: the browser shows the live address from then on
        link_box_component.link_box(link, {"lang": params["lang"]}, copy=t("share_copy"), copied=t("share_copied"),
                                    failed=t("share_copy_failed"))
    st.session_state["_share_link"] = link
    return link


def _page_hash() -> str | None:
    return internals.page_hash()


def after_page() -> None:
    """Once per session, when every control of the page has registered its URL parameter: name the parameters of
    the opening link that nothing reads, and remove them from the address bar. The frame calls this after the
    page; ``link_box`` calls it on the next run when the page ran without the frame around it. A rerun that the
    app started itself (``NOTES_AGAIN``) shows the same notes again: the visitor did nothing that answers them."""
    if st.session_state.get("_share_unknown_checked"):
        if st.session_state.pop(NOTES_AGAIN, False):
            for note in st.session_state.get("_share_link_notes", []):
                st.sidebar.caption(note)
        return
    st.session_state["_share_unknown_checked"] = True
    st.session_state["_share_link_notes"] = []
    bindings = _bindings()
    known = set(bindings) | {"lang"}
    raw = st.session_state.get("_url_params_at_start") or {}
    unknown = [k for k in raw if k not in known and k.lower() not in EMBED_KEYS and k not in RETIRED_KEYS]
    retired = [k for k in raw if k in RETIRED_KEYS and k not in known]  # dropped without a note
    _note_refused_page_values(raw, bindings)
    if unknown or retired:
        internals.drop_url_params(unknown + retired)  # one message, however many (issue #13)
    if unknown:
        shown = ", ".join(escape_markdown(k, 40, code=True) for k in unknown[:UNKNOWN_NAMED])
        if len(unknown) > UNKNOWN_NAMED:
            shown += " " + t("share_param_more", n=len(unknown) - UNKNOWN_NAMED)
        _link_note("🔗 " + t("share_param_unknown", key=shown))


def _link_note(note: str) -> None:
    """A note on the opening link, in the sidebar, kept for a rerun the app starts itself."""
    st.session_state.setdefault("_share_link_notes", []).append(note)
    st.sidebar.caption(note)


UNKNOWN_NAMED = 5  # the note names at most this many unknown link parameters, then says how many more


# Page controls whose refused link values the page itself explains, next to them (Heads' section, the Masks page's
# mask text, which is also rewritten in a canonical form).
SELF_NOTED = ("hd_section", "mk_cells")


def _shown_url_values(meta, value) -> list[str]:
    """The query-string form of a widget value, the default included, as a list (several for a multiselect)."""
    v = internals.url_form(meta, value)
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]


def _same_url_value(given: str, shown: str) -> bool:
    """Whether a link's value is what the control shows: up to case and spaces, as a number ("0.50" is 0.5), or
    as a position ("3" is "3: cat")."""
    a, b = given.strip(), shown.strip()
    if a.lower() == b.lower():
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        pass
    match = _INDEX_FORM.fullmatch(a)
    return match is not None and ":" not in a and b.startswith(f"{int(match.group(1))}: ")


def _many_values(meta, value) -> bool:
    """Whether a control holds several values (a multiselect: a link repeats its parameter, one per value)."""
    return isinstance(internals.url_form(meta, value), list)


def _note_refused_page_values(raw: dict, bindings: dict) -> None:
    """A page control's link value that it could not use (garbage, out of range, repeated): name it, and what is
    used instead, under the link box. (The sidebar's controls note theirs next to them: see sidebar._url_notes.)"""
    notes = []
    for key, given in raw.items():
        if key in SHARED_KEYS or key in SELF_NOTED or key not in bindings or not given:
            continue
        meta, value = bindings[key]
        try:
            used = _shown_url_values(meta, value)
        except Exception:  # noqa: BLE001 a value a serializer refuses: nothing to compare
            continue
        # what the link gave that the control does not show: garbage, out of range, a repeat of a one-value control
        refused = [g for g in given if not any(_same_url_value(g, u) for u in used)]
        if refused and len(given) > 1 and value is not None and not _many_values(meta, value):
            # one control, one value: Streamlit reads the last one (or the default when that one is refused)
            shown = ", ".join(link_value(g, 40) for g in given[:5]) + (" …" if len(given) > 5 else "")
            notes.append(t("url_param_repeated", param=key, n=len(given), given=shown,
                           used=escape_markdown(", ".join(used) or "—", 40, code=True)))
        elif refused:
            shown = ", ".join(refused[:5]) + (" …" if len(refused) > 5 else "")
            if value is None:  # a control with no value (a hidden step holder): nothing to name as used
                notes.append(t("url_param_dropped", param=key, given=link_value(shown, 60)))
            else:
                notes.append(t("url_param_ignored", param=key, given=link_value(shown, 60),
                               used=escape_markdown(", ".join(used) or "—", 40, code=True)))
    for note in notes:
        _link_note("🔗 " + note)


# ----------------------------------------------------------------------------------------------- custom weights


def custom_weights() -> dict | None:
    """This session's uploaded weights, if any: {"sha", "name", "d_model", "state_dict"}."""
    return st.session_state.get(WEIGHTS_STATE)


def _clear_weights() -> None:
    st.session_state.pop(WEIGHTS_STATE, None)
    st.session_state.pop("_share_upload_message", None)


def _on_upload() -> None:
    """Runs once per new file (not on every rerun): read it safely, keep it in this session, match d_model."""
    f = st.session_state.get(UPLOAD_KEY)
    if f is None:  # the file was removed with the x
        _clear_weights()
        return
    lang = settings_lang()
    try:
        data = f.getvalue()
        sd = export.load_state_dict_bytes(data)  # d_model from the file; checked against the app's choices below
        d_model = int(sd["query_linear.weight"].shape[0])
        if d_model not in D_MODEL_CHOICES:
            raise export.WeightsError("share_err_d_model_choice", d_model=d_model,
                                      choices=", ".join(map(str, D_MODEL_CHOICES)))
    except Exception as err:  # noqa: BLE001 whatever the file holds, the page keeps working and says why
        if not isinstance(err, export.WeightsError):  # the loader raises nothing else; a new bug must not leak
            err = export.WeightsError("share_err_unreadable", error=type(err).__name__)
        _clear_weights()  # the new file replaced the previous one in the uploader: its weights and message go too
        st.session_state["_share_upload_message"] = ("error", t("share_upload_failed", reason=err.message(lang)))
        return
    name = escape_markdown(getattr(f, "name", None) or "weights.pt", 60, code=True)  # shown, never interpreted
    st.session_state[WEIGHTS_STATE] = {"sha": export.sha256(data), "name": name, "d_model": d_model,
                                       "state_dict": sd}
    msg = t("share_upload_ok", name=name, d_model=d_model)
    if st.session_state.get("d_model") != d_model:
        # Set the shared control (a callback runs before the widgets, so this is allowed) and keep num_heads valid.
        st.session_state["d_model"] = d_model
        heads = head_choices(d_model)
        if st.session_state.get("num_heads") not in heads:
            st.session_state["num_heads"] = max(h for h in heads if h <= 4)
        msg += " " + t("share_upload_switched", d_model=d_model)
    st.session_state["_share_upload_message"] = ("success", msg)


def settings_lang() -> str:
    try:
        return settings().lang
    except RuntimeError:
        return i18n.LANGS[0]


def weights_note(page_path: str) -> None:
    """On every page, before its content: which weights are in use (``mha.app.sources.source_note``: random,
    trained, or a pretrained layer with its badge), and while an uploaded file replaces them, say so (or why not).
    ``page_path``: the URL path of the page this run shows (the frame's st.navigation() result: '' for home)."""
    if page_path in {url_path(p) for p in OWN_MODULE_PAGES}:
        return  # Train and Induction train modules of their own: the sidebar's weights are not what they show
    w = custom_weights()
    s = settings()
    if w and s.source == "pretrained":
        st.caption("🧩 " + t("src_upload_not_used"))
    if not w or s.source == "pretrained" or w["d_model"] != s.d_model:
        sources.source_note()
    if not w or s.source == "pretrained":
        return
    d_model = s.d_model
    if w["d_model"] == d_model:
        st.info(t("share_custom_note", name=w["name"], d_model=w["d_model"]), icon="🧩")
    else:
        st.warning(t("share_custom_mismatch", weights_d_model=w["d_model"], d_model=d_model), icon="🧩")


# ------------------------------------------------------------------------------------------------------ exports


def csv_download(mat, row_labels, col_labels, file_name: str, key: str, corner: str = "", label: str | None = None):
    """A download button for one matrix as CSV: the shared helper every page can call next to a chart."""
    return st.download_button(label or t("share_csv_download"), export.matrix_csv(mat, row_labels, col_labels, corner),
                              file_name=file_name, mime="text/csv", key=key, on_click="ignore", icon="⬇️")


# Rows / columns of each intermediate, by its name in View (see mha/core/attention.py for the vocabulary).
_AXES = {
    "scores": ("q", "k"), "weights": ("q", "k"), "allowed": ("q", "k"),
    "q": ("q", "f"), "k": ("k", "f"), "v": ("k", "f"), "head_outputs": ("q", "f"),
    "x": ("q", "f"), "x_kv": ("k", "f"), "concat": ("q", "f"), "output": ("q", "f"),
}
_AXIS_NAMES = {"q": "share_rows_queries", "k": "share_rows_keys"}


def matrix_choices(view) -> dict[str, tuple]:
    """{name: (array, (row name key, row labels), (column name key, column labels), per_head)} for every matrix of
    the view whose shape fits its labels: (H, rows, cols) per head, or (rows, cols)."""
    q_labels = list(view.labels)
    k_labels = list(getattr(view, "key_labels", None) or view.labels)  # cross-attention: the keys/values text
    labels = {"q": q_labels, "k": k_labels}
    out = {}
    arrays = export.view_arrays(view)
    for name, (r, c) in _AXES.items():
        a = arrays.get(name)
        if a is None or a.ndim not in (2, 3):
            continue
        rows, cols = a.shape[-2:]
        row_labels = labels[r]
        col_labels = labels[c] if c != "f" else [str(j) for j in range(cols)]
        if len(row_labels) != rows or len(col_labels) != cols:
            continue  # a shape this helper does not understand (e.g. a batch axis): leave it out, never mislabel
        col_name = "share_cols_keys" if c == "k" else "share_cols_features"
        out[name] = (a, (_AXIS_NAMES[r], row_labels), (col_name, col_labels), a.ndim == 3)
    return out


def parameters_bytes_callable(s, weights: Weights) -> Callable[[], bytes]:
    """A deferred download of the parameters behind the current view (a ``.pt`` state_dict): the module actually in
    use (``mha.weights.view.model_for``): the uploaded ones, the trained module, a pretrained layer (with Q/K/V biases:
    it loads into ``MultiHeadAttention(d_model, num_heads, qkv_bias=True)``) or the seeded ones."""
    spec, state_dict = s.spec(), weights.state_dict

    def make() -> bytes:
        from mha.weights.view import model_for

        return export.state_dict_bytes(model_for(spec, state_dict))

    return make


def parameters_name(s, weights: Weights) -> tuple[str, str]:
    """(what the parameters are, for the export's meta; a file name stem) for the module in use."""
    base = f"mha_d{s.d_model}_h{s.num_heads}"
    if weights.sha:
        return f"uploaded sha256:{weights.sha}", f"{base}_seed{s.seed}_uploaded"
    if s.source == "trained":
        return (f"trained task={s.task} train_steps={s.steps} seed={s.seed}",
                f"{base}_{s.task}_{s.steps}steps_seed{s.seed}")
    if s.source == "pretrained":
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(s.model.rstrip("/\\")).name or s.model)[-60:]
        return f"pretrained model={s.model} layer={s.layer}", f"{name}_layer{s.layer}"
    return "seed", f"{base}_seed{s.seed}"


# ------------------------------------------------------------------------------------------- one HTML file
def view_html(view, parameters: str) -> Callable[[], bytes]:
    """The view as one self-contained HTML file (``html_file``) in the page's language; a pretrained view's file
    has the model view (every layer x head) too. Returns the builder of the file for a deferred download: every
    word (and a pretrained model's every layer, cached with the Playground's) is read now, in the page's run; the
    file is built from these plain values when the learner clicks."""
    from mha.charts import head_view_data

    language = lang()
    text = " ".join(str(tok) for tok, pad in zip(view.tokens, view.query_is_pad, strict=True) if not pad)
    title = t("share_html_doc_title", text=text[:80] + ("…" if len(text) > 80 else ""))
    spec = view.spec  # the parameters named in the page's words (``parameters`` is the exports' English meta)
    named = t("share_html_uploaded") if parameters.startswith("uploaded") else t(f"src_name_{spec.source}")
    if spec.source == "pretrained" and not parameters.startswith("uploaded"):
        named += f" · {Path(spec.model.rstrip('/')).name or spec.model}"
    caption = t("share_html_caption", d_model=spec.d_model, num_heads=view.num_heads, head_dim=view.head_dim,
                n=int((~view.query_is_pad).sum()), parameters=named)
    layers = pretrained_layers(view) if view.spec.source == "pretrained" else None
    words = dict(words=chart_words(), head_view_words=head_view_data.words(language),
                 headings=(t("pg_all_heads"), t("hv_section_title"), t("mv_title")), title=title, caption=caption,
                 lang=language, layers=layers, layer=view.spec.layer)
    return lambda: html_file(view.weights, view.labels, view.key_labels, allowed=view.allowed, **words)


def html_file(weights, labels, key_labels, *, allowed=None, words, head_view_words, headings, title: str,
              caption: str = "", lang: str = "en", layers=None, layer: int = 0) -> bytes:
    """Weights (H, Tq, Tk) as one HTML file (``mha.charts.standalone``): the all-heads grid and the head view, and with
    ``layers`` (every layer's weights (L, H, Tq, Tk) and their mask, ``compute.pretrained_layers``) the model
    view, ``layer`` framed; the components' own scripts and styles inlined, on the Playground's colour rule
    (without its "fit" switch: over every layer when there are several)."""
    from mha.app.components import head_view, heatmap_view
    from mha.app.components.component import asset
    from mha.charts import figures, head_view_data, heatmap_data, standalone

    top = figures.weights_top(weights if layers is None else layers[0])
    grid = heatmap_data.prepare(weights, labels, key_labels, kind="weights", allowed=allowed, words=words, top=top)
    lines = head_view_data.prepare(weights, labels, key_labels, words=head_view_words, top=top)
    canvas = asset(heatmap_view.__file__, ".js"), asset(heatmap_view.__file__, ".css")
    parts = [standalone.Part(*canvas, '<div class="hm"></div>', grid, heading=headings[0]),
             standalone.Part(asset(head_view.__file__, ".js"), asset(head_view.__file__, ".css"),
                             '<div class="hv"></div>', lines, heading=headings[1],
                             extra={"alphabet": head_view_data.ALPHABET})]
    if layers is not None:  # a click frames a thumbnail (the file has no layer below to open)
        model = heatmap_data.model_view(layers[0], labels, key_labels, top=top, allowed=layers[1], words=words,
                                        marked=(layer, 0))
        parts.append(standalone.Part(*canvas, '<div class="hm"></div>', model, heading=headings[2]))
    return standalone.standalone_html(parts, title=title, lang=lang, caption=caption).encode("utf-8")
