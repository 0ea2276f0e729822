"""The shared choices of this run and the numbers they give (Streamlit glue): ``Settings`` (every ``ViewSpec`` field,
the language, whether the model loaded), ``settings()``, ``session_weights()`` and ``current_view()``.

The sidebar (``mha.app.sidebar``) draws the controls and keeps its ``Settings`` here; pages read them with
``settings()`` and the numbers with ``current_view()``; they never build models themselves.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import streamlit as st

from mha.app import compute, runs
from mha.app.compute import SEEDED, Weights
from mha.app.widgets import lang, t
from mha.core import i18n
from mha.core.errors import LearnerError
from mha.core.markup import escape_markdown
from mha.core.tokens import TextError
from mha.lessons.course import long_for_training
from mha.weights.batch import BatchError
from mha.weights.train import TASKS, TRAIN_LEN
from mha.weights.view import View, ViewSpec


@dataclass(frozen=True)
class Settings(ViewSpec):
    """The sidebar's choices of this run: every field of ``ViewSpec`` (the one list of the settings, with their
    defaults) and two that only the app has. Not a cache key itself: ``spec()`` is."""

    lang: str = i18n.LANGS[0]  # the page's language
    model_ok: bool = True  # pretrained: the model loaded (else its message is next to the model control)

    @property
    def steps(self) -> int:
        """Trained: the optimizer steps actually run."""
        return TASKS[self.task].steps if self.train_steps is None else self.train_steps

    def spec(self) -> ViewSpec:
        """The cache key of this run's numbers: every ``ViewSpec`` field, those that do not apply to the source at
        their defaults (``IGNORED_BY_SOURCE``), so that they do not split the cache."""
        source = self.source if self.source in IGNORED_BY_SOURCE else "random"
        ignored = IGNORED_BY_SOURCE[source]
        return ViewSpec(**{f.name: f.default if f.name in ignored else getattr(self, f.name)
                           for f in dataclasses.fields(ViewSpec)} | {"source": source})


# What a weight source does not read: a pretrained layer has no seed, positions, padding or keys/values text of ours;
# only trained heads have a task and steps; only a pretrained model a model and a layer.
IGNORED_BY_SOURCE = {
    "random": frozenset({"task", "train_steps", "model", "layer"}),
    "trained": frozenset({"model", "layer"}),
    "pretrained": frozenset({"seed", "positional", "padding", "kv_text", "task", "train_steps"}),
}


# Shared control keys = URL parameter names, one per setting (every field but ``model_ok``, which no control has).
# One name per concept across code, UI, URL and docs.
SHARED_KEYS = tuple(f.name for f in dataclasses.fields(Settings) if f.name != "model_ok")


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


def model_info():
    """This run's pretrained model (``mha.weights.pretrained.ModelInfo``), or None (another source, or it did not
    load). The sidebar keeps it."""
    return st.session_state.get("_src_info")
