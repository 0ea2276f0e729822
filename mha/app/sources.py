"""The weight source controls (Streamlit layer): random / trained / pretrained, their sidebar controls, the note
every page shows about the weights in use (with the pretrained badge), and the model loading with its progress bar.

URL parameters (each control's key): ``source``, ``task``, ``train_steps`` (trained), ``model``, ``layer``
(pretrained). ``mha.app.sidebar.sidebar_controls`` draws ``source_controls()`` first: the other controls depend on
it (a pretrained layer fixes d_model, num_heads and the causal mask, and has no seed, positions or keys/values text).
The numbers come from ``mha.weights.view`` (``run_view`` dispatches on ``ViewSpec.source``) through ``mha.app.compute``.
"""
from __future__ import annotations

import string
import threading
from dataclasses import dataclass

import streamlit as st

from mha.app import compute, internals
from mha.app.compute import HEAVY_WORK
from mha.app.state import model_info, settings
from mha.app.widgets import int_input, lang, named_choice, t
from mha.core import i18n
from mha.core.markup import escape_markdown
from mha.weights import pretrained, pretrained_files
from mha.weights.train import MAX_TRAIN_STEPS, TASKS
from mha.weights.view import SOURCES, load_pretrained, pretrained_options

SOURCE_KEYS = ("source", "task", "train_steps", "model", "layer")  # URL parameters, also widget keys
BADGE_TOLERANCE = 1e-5  # float32: our weights and the model's output_attentions agree to this (issue #17)
MODEL_PICK_KEY = "_src_model_pick"  # the short list (not in the link: the ``model`` text box is)
OTHER = "__other__"

# Sources that loaded once in this process: later runs load from the cache, without a progress bar flashing.
_LOADED: set[str] = set()
_LOADED_LOCK = threading.Lock()


@dataclass(frozen=True)
class SourceChoice:
    """What the source controls chose, and for a pretrained model what is known about it."""

    source: str = "random"
    task: str = "previous"
    train_steps: int | None = None  # None: the task's own budget
    model: str = ""
    layer: int = 0
    info: pretrained.ModelInfo | None = None  # the loaded model (pretrained only)
    error: str | None = None  # why the model could not be loaded (shown next to its control)

    @property
    def pretrained(self) -> bool:
        return self.source == "pretrained"

    @property
    def steps(self) -> int:
        return TASKS[self.task].steps if self.train_steps is None else self.train_steps


def error_message(err: pretrained_files.PretrainedError, lang: str) -> str:
    """The learner's message for a PretrainedError, in ``lang``: the catalog's text when the error carries every
    placeholder it needs, else the error's own English text (escaped: it may hold what the visitor typed)."""
    entry = i18n.CATALOG.get(err.key, {})
    needed = {name for _, name, _, _ in string.Formatter().parse(entry.get("en", "")) if name}
    if entry and needed <= set(err.fmt):
        return err.message(lang)
    return escape_markdown(str(err))


def source_controls(sb) -> SourceChoice:
    """Draw the source picker and its own controls in the sidebar ``sb``; load a pretrained model (with a progress
    bar the first time). Returns the choice; a model that cannot load gets its message next to the control."""
    # The link holds the id (random, trained, pretrained); the buttons show names in the page's language.
    source = named_choice(t("src_source"), SOURCES, "source", {k: t(f"src_name_{k}") for k in SOURCES},
                          default="random", container=sb, help=t("src_source_help"))
    if source != "random":
        sb.caption(t(f"src_caption_{source}"))
    if source == "trained":
        # Shown by their names in the page's language; the link holds the id ("previous", "prev_next").
        task = named_choice(t("src_task"), list(TASKS), "task", {k: t(TASKS[k].name_key) for k in TASKS},
                            default="previous", container=sb, help=t("src_task_help"), select=True)
        sb.caption(f"**{t(TASKS[task].name_key)}**: {t(TASKS[task].description_key)}")
        steps = int_input(t("src_train_steps"), "train_steps", 1, MAX_TRAIN_STEPS, None, container=sb,
                          placeholder=t("src_train_steps_placeholder", steps=TASKS[task].steps),
                          help=t("src_train_steps_help", max_steps=MAX_TRAIN_STEPS))
        return SourceChoice("trained", task=task, train_steps=None if steps is None else int(steps))
    if source == "pretrained":
        return _pretrained_controls(sb)
    return SourceChoice("random")


def _pick_model() -> None:
    pick = st.session_state.get(MODEL_PICK_KEY)
    if pick and pick != OTHER:
        st.session_state["model"] = pick


def _choice_label(choice: pretrained_files.Choice) -> str:
    return (f"{choice.label} · {choice.layers}×{choice.heads} heads, d_model {choice.d_model} · "
            f"~{choice.size_mb} MB")


def _pretrained_controls(sb) -> SourceChoice:
    ids = [c.id for c in pretrained_files.CHOICES]
    labels = {c.id: _choice_label(c) for c in pretrained_files.CHOICES}
    labels[OTHER] = t("src_model_other")
    # before the box has read the link
    linked = internals.link_values().get("model") or [pretrained_files.DEFAULT_MODEL]
    current = (st.session_state.get("model") or linked[0] or pretrained_files.DEFAULT_MODEL).strip()
    st.session_state[MODEL_PICK_KEY] = current if current in ids else OTHER  # mirrors the text box (and the link)
    sb.selectbox(t("src_model_list"), ids + [OTHER], key=MODEL_PICK_KEY, format_func=labels.get,
                 on_change=_pick_model)
    model = sb.text_input(t("src_model"), value=pretrained_files.DEFAULT_MODEL, key="model", bind="query-params",
                          help=t("src_model_help"), max_chars=400)
    model = (model or "").strip()
    info, error = load_info(model, sb)
    if error:
        sb.error(error, icon="🧱")
        return SourceChoice("pretrained", model=model, error=error)
    last = info.num_layers - 1
    if isinstance(st.session_state.get("layer"), int) and st.session_state["layer"] > last:
        st.session_state["layer"] = last  # a model with fewer layers than the one before
    asked = (internals.link_values().get("layer") or [""])[0].strip()
    if asked.isdigit() and int(asked) > last:  # a link's layer past this model's: the last (the link note says so)
        internals.keep_link_values("layer", [str(last)])
    layer = int_input(t("src_layer", last=last), "layer", 0, last, 0, container=sb,
                      help=t("src_layer_help", n=info.num_layers))
    kind = t("src_kind_decoder" if info.causal else "src_kind_encoder")
    family = pretrained_files.FAMILIES[info.family].name
    sb.caption(t("src_model_info", family=family, layers=info.num_layers, heads=info.num_heads,
                  d_model=info.d_model, kind=kind))
    return SourceChoice("pretrained", model=model, layer=int(layer), info=info)


def load_info(model: str, container) -> tuple[pretrained.ModelInfo | None, str | None]:
    """Load ``model`` (cached across sessions) and return (its info, None), or (None, the message). The first load
    shows a progress bar in ``container``: bytes downloaded, then the weights being read."""
    box = container.empty()
    bar = [None]

    def progress(stage: str, done: int, total: int) -> None:
        with _LOADED_LOCK:
            if model in _LOADED:
                return
        mb = 1e6
        text = (t("src_downloading", done=done / mb, total=total / mb) if stage == "download"
                else t("src_loading", mb=total / mb))
        frac = min(max(done / total, 0.0), 1.0) if total and stage == "download" else 0.0
        if bar[0] is None:
            bar[0] = box.progress(frac, text=text)
        else:
            bar[0].progress(frac, text=text)

    try:
        # the hub (network; timeouts and remembered failures in mha.weights.pretrained_files) outside HEAVY_WORK: a slow
        # download must not hold a compute slot
        pretrained_files.resolve(model, progress=progress, **pretrained_options())
        with HEAVY_WORK:  # reading the weights is heavy work: under the same limit as every computation
            loaded = load_pretrained(model, progress=progress)
    except pretrained_files.PretrainedError as err:
        return None, error_message(err, lang())
    except (OSError, ValueError, RuntimeError) as err:  # transformers' own: a broken folder, a bad tokenizer file
        if pretrained_options()["public"]:  # its text may name the server's paths: a public server names nothing
            return None, error_message(pretrained_files.PretrainedError("err_load_failed_public"), lang())
        return None, error_message(pretrained_files.PretrainedError(
            "err_unsupported", f"This model could not be loaded ({type(err).__name__}: {str(err)[:200]}): choose a "
            f"model of a supported family ({pretrained_files.SUPPORTED}).", model_type=type(err).__name__), lang())
    finally:
        if bar[0] is not None:
            box.empty()
    with _LOADED_LOCK:
        _LOADED.add(model)
    return loaded.info, None


# ---------------------------------------------------------------------------------------------- the note


def source_note() -> None:
    """At the top of every page: which weights are in use; for a pretrained layer, the badge with the largest
    difference between our weights and the model's own attention. (An uploaded file has its own note: share.)"""
    s = settings()
    if s.source == "trained":
        task = TASKS[s.task]
        st.info(t("src_note_trained", task=t(task.name_key), steps=s.steps, seed=s.seed, d_model=s.d_model,
                   num_heads=s.num_heads, half=s.d_model // 2), icon="🎓")
    elif s.source == "pretrained":
        info = model_info()
        if not s.model_ok or info is None:
            return  # the message is next to the model control; the page says so too
        st.info(t("src_note_pretrained", model=escape_markdown(s.model, 80, code=True), layer=s.layer,
                   num_layers=info.num_layers, d_model=info.d_model, num_heads=info.num_heads), icon="🧠")
        try:
            view = compute.view(s.spec())
        except ValueError:  # the page shows why (empty text, ...)
            return
        badge(view)
        pieces(view)
        coverage_note(view, s.model)
    else:
        st.caption("🎲 " + t("src_note_random", seed=s.seed))


def piece_pairs(view, limit: int = 16) -> list[tuple[str, str]]:
    """(readable label, the tokenizer's raw piece) for the shown sentence's tokens whose label differs from the
    piece ("…ing" / "##ing", "the" / "Ġthe"), each once, in order, at most ``limit``."""
    seen, out = set(), []
    for label, piece, pad in zip(view.labels, view.tokens, view.query_is_pad):
        if pad or label == piece or (label, piece) in seen:
            continue
        seen.add((label, piece))
        out.append((label, piece))
    return out[:limit]


def pieces(view) -> None:
    """Under the pretrained note: the raw pieces behind the readable labels the charts show."""
    pairs = piece_pairs(view)
    if pairs:
        shown = ", ".join(f"{escape_markdown(label, 24, code=True)} = {escape_markdown(piece, 24, code=True)}"
                          for label, piece in pairs)
        st.caption(t("src_tokens_pieces", pairs=shown))


def coverage_note(view, model: str) -> None:
    """Under the pretrained note, when the model's vocabulary does not cover the shown sentence: how many pieces
    are [UNK] or spell less than a letter, and which models on the short list cover such text."""
    tok = load_pretrained(model).tokenizer
    specials = set(tok.all_special_tokens)
    cov = pretrained.coverage(view.tokens, view.labels, view.query_is_pad, tok.unk_token,
                              [str(p) in specials for p in view.tokens], text=view.spec.text)
    if cov.covered:
        return
    msg = t("src_coverage", pieces=cov.pieces, unknown=cov.unknown, below=cov.below_letter)
    models = pretrained.covering_models(cov.script, model)
    if models:
        msg += " " + t(f"src_coverage_models_{cov.script}", models=", ".join(models))
    with st.container(key="src_coverage"):
        st.warning(msg, icon="🔤")


def badge(view) -> None:
    """The check of a pretrained view: max |our weights - the model's output_attentions| over every sentence."""
    diff = float(view.note_args.get("weights_diff", float("nan")))
    ok = diff <= BADGE_TOLERANCE
    label = t("src_badge_ok" if ok else "src_badge_bad", diff=diff, tol=BADGE_TOLERANCE)
    with st.container(key="src_badge"):
        st.badge(label, icon="✅" if ok else "⚠️", color="green" if ok else "red",
                 help=t("src_badge_help", tol=BADGE_TOLERANCE))
