"""The one live-training UI, shared by the Train and Induction pages: a Train button, a progress bar, a Stop button,
charts redrawn while training runs, the finished result cached for every visitor, and a slider to scrub back
through the snapshots afterwards.

A page describes its run (``Live``: widget-key prefix, the run's plain values as the cache key, its step budget) and
gives ``start()``, which returns the training's events (any iterator: ``mha.weights.train.Progress``,
``mha.lessons.induction.Checkpoint``), how to read a step from one, and ``finish(stopped)`` building the result. ``run``
then trains in the script thread:

- the training is a long run (``mha.app.runs.LONG_RUNS``): it runs in a thread of its own, outside
  ``compute.HEAVY_WORK``'s slots, one per session, a few at a time server-wide; while it waits its turn the bar
  says how many runs are ahead; it stops at its next step group when its visitor leaves or asks for another run;
- the page's ``draw(events, slots, n)`` fills ``st.empty`` placeholders with the run's events so far, at most every
  ``DRAW_SECONDS``: light, whatever the number of steps;
- Stop is an ordinary button: its click interrupts the waiting script at its next drawing (Streamlit's rerun), and
  its callback, which runs before any widget of the next run, stops the run where it was (unless another visitor
  waits for the same one), finishes it and lets the page set its steps control to the steps done (so the link
  reproduces what is shown: training is deterministic);
- a finished result is stored in ``compute.RESULTS`` under the page's plain values: the same settings, from any
  visitor or a link opened later, show it at once. A stopped one stays in this session only.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

import streamlit as st

from mha.app import compute, runs
from mha.app.widgets import hide, t
from mha.charts.train import CurveWords
from mha.core.lru import freeze

DRAW_SECONDS = 0.35  # live charts are redrawn at most this often (and once at the end)


@dataclass(frozen=True)
class Live:
    prefix: str  # widget keys f"{prefix}_train", f"{prefix}_stop"; session keys f"_{prefix}_..."
    key: tuple  # the run's plain values: the cache key (and what a link carries)
    total: int  # the step budget
    on_stop: Optional[Callable[[Any], tuple]] = None  # result -> the key it is kept under (the page may change
    #                                                    its steps control there: a callback runs before widgets)
    scrub_key: Optional[str] = None  # the snapshot slider's key (``scrub``): drawn disabled before training
    link_params: tuple[str, ...] = ()  # a link carrying one of these (the snapshot slider's: only a view that shows
    #                                    a trained run has it) trains at once: the link reproduces that view


@dataclass(frozen=True)
class Outcome:
    result: Any
    fresh: bool  # just trained or stopped (the run before this one): the slider moves to the last snapshot
    stopped: bool  # stopped by the learner (this session only)


Start = Callable[[], tuple[Iterator[Any], Callable[[Any], int], Callable[[bool], Any]]]
Draw = Callable[[list, list, int], None]


def curve_words() -> CurveWords:
    return CurveWords(**{name: t(f"lv_ch_{name}") for name in CurveWords.__dataclass_fields__})


def from_link(live: Live) -> bool:
    """True on the session's first run of this page when the opening link carried one of its parameters."""
    flag = f"_{live.prefix}_first_run_done"
    first = flag not in st.session_state
    st.session_state[flag] = True
    raw = st.session_state.get("_url_params_at_start") or {}
    return first and any(p in raw for p in live.link_params)


def cached(live: Live) -> Any | None:
    found, value = compute.RESULTS.lookup(_cache_key(live.prefix, live.key))
    return value if found else None


def warm(live: Live, compute_fn: Callable[[], Any]) -> Any:
    """The result for ``live.key`` computed now without drawing (``compute_fn()``, in the caller's thread, not in
    the long-run queue) and cached like a live run's: a server can be warmed with the default run, a test can skip
    the drawing. Not for a visitor's request (``run`` is)."""
    return compute.RESULTS.get_or_compute(_cache_key(live.prefix, live.key), lambda: freeze(compute_fn()))


def _cache_key(prefix: str, key: tuple) -> tuple:
    return ("live", prefix, key)


def _stop(prefix: str, on_stop) -> None:
    """The Stop button's callback (before the next run's widgets): finish the interrupted run where it was."""
    live = st.session_state.pop(f"_{prefix}_live", None)
    if live is None:  # the run had already finished
        return
    key, job = live
    # Stopped here only when nobody else waits for the same run (then it goes on and is cached for everyone), and
    # only once it had started: a run still in the queue has trained nothing.
    if not runs.LONG_RUNS.stop(job, runs.session()) or "finish" not in job.meta:
        return
    result = job.meta["finish"](True)
    kept = on_stop(result) if on_stop else key
    st.session_state[f"_{prefix}_stopped"] = (kept, result)
    st.session_state[f"_{prefix}_fresh"] = kept  # the slider moves to where it stopped


def run(live: Live, start: Start, draw: Optional[Draw] = None, *, slots: int = 0, autostart: bool = False,
        button: Optional[str] = None) -> Optional[Outcome]:
    """The result for ``live.key``: from the cache, from this session's Stop, or trained now (live) when the Train
    button is pressed or ``autostart``. None (with the Train button on the page) when it has not been trained."""
    p = live.prefix
    found = cached(live)
    fresh = st.session_state.pop(f"_{p}_fresh", None) == live.key  # trained by the run just before this one
    go = st.session_state.pop(f"_{p}_go", False)
    # A cached run is shown only once this session asked for it (Train, or a link that names a snapshot): a link
    # without one shows the Train button whatever another visitor trained, so every link reproduces its view.
    asked = st.session_state.setdefault(f"_{p}_asked", set())
    if go or autostart:
        asked.add(live.key)
    if found is not None and (live.key in asked or fresh):
        return Outcome(found, fresh=fresh, stopped=False)
    stopped = st.session_state.get(f"_{p}_stopped")
    if stopped is not None and stopped[0] == live.key:
        st.session_state.pop(f"_{p}_live", None)
        return Outcome(stopped[1], fresh=fresh, stopped=True)
    st.session_state.pop(f"_{p}_live", None)  # a run left by another rerun (not Stop) is not resumed
    # Train's click is read by its callback; the run it starts draws Train again in the same place (disabled) with
    # Stop beside it, so the page does not jump and no stale button is left on screen while training runs.
    if not (go or autostart):
        _buttons(live, training=False, label=button)
        if live.scrub_key:
            _idle_scrub(live.scrub_key, live.total)
        return None
    try:
        _train(live, start, draw, slots, button, idle_slider=not autostart)  # a link's snapshot seeds the real slider
    except runs.QueueFull as full:  # too many trainings waiting: say so, with the Train button to try again
        st.warning(t("run_queue_full", n=full.waiting), icon="⏳")
        _buttons(live, training=False, label=button)
        return None
    # The page is drawn again from the cache: the snapshot slider then starts where the run ended, and Streamlit
    # puts its value into the address bar (see _idle_scrub).
    st.session_state[f"_{p}_fresh"] = live.key
    st.rerun()


def _go(prefix: str) -> None:
    st.session_state[f"_{prefix}_go"] = True


def _buttons(live: Live, training: bool, label: Optional[str] = None):
    p = live.prefix
    place = st.empty()
    cols = place.container().columns([1, 1, 4])
    cols[0].button(label or t("lv_train"), key=f"{p}_train", type="primary", icon="▶️", on_click=_go, args=(p,),
                   disabled=training, width="stretch")
    if training:
        cols[1].button(t("lv_stop"), key=f"{p}_stop", icon="⏹️", on_click=_stop, args=(p, live.on_stop),
                       width="stretch")
    return place


def _train(live: Live, start: Start, draw: Optional[Draw], n_slots: int, label: Optional[str], idle_slider: bool):
    p = live.prefix
    total = max(live.total, 1)

    def work(job: runs.Job):
        events, step_of, finish = start()
        job.meta.update(step_of=step_of, finish=finish)
        runs.drive(job, events)
        return finish(False)

    # Before anything is drawn: a full queue raises QueueFull, and ``run`` then draws the idle Train button.
    job = runs.LONG_RUNS.submit(runs.session(), _cache_key(p, live.key), work, store=compute.RESULTS)
    st.session_state[f"_{p}_live"] = (live.key, job)
    place = _buttons(live, training=True, label=label)  # removed when training ends
    if live.scrub_key and idle_slider:
        _idle_scrub(live.scrub_key, live.total)
    elif live.scrub_key:
        _hold_link_step(live.scrub_key)
    bar = st.progress(0.0, text=t("lv_starting"))
    places = [st.empty() for _ in range(n_slots)]
    drawn = {"at": 0.0, "n": 0, "began": None}

    def show(ahead: int, job: runs.Job):
        now = time.perf_counter()
        if now - drawn["at"] < DRAW_SECONDS:
            return
        drawn["at"] = now
        if ahead or "step_of" not in job.meta:
            bar.progress(0.0, text=t("run_waiting", n=ahead) if ahead else t("lv_starting"))
            return
        drawn["began"] = drawn["began"] or now
        seen = list(job.events)
        step = job.meta["step_of"](seen[-1]) if seen else 0
        if draw is not None and seen:  # the charts first: once the bar names a step, its charts are there
            draw(seen, places, drawn["n"])
            drawn["n"] += 1
        bar.progress(min(1.0, step / total),
                     text=t("lv_progress", step=step, total=live.total, seconds=f"{now - drawn['began']:.1f}"))

    show(job.look(runs.session()), job)
    try:
        result = runs.wait(job, show)
    except runs.Superseded:  # stopped under this script (its Stop came while it was not drawing): show it again
        st.rerun()
    st.session_state.pop(f"_{p}_live", None)
    for element in (place, bar, *places):
        element.empty()
    return result


def _step_in_link(key: str, steps: list[int]) -> int | None:
    """The control that holds the snapshot shown in the link (URL-bound as ``key``), hidden: the slider a learner
    sees mirrors it. Its default is no step at all (None), never a step: Streamlit leaves a bound control at its
    default out of the address bar, and a slider's default is its first step, so a view scrubbed to step 0 lost
    ``key`` from its link, which then opened on the Train button. In the link = a trained view, at that step."""
    hide(key)
    return st.selectbox(t("lv_scrub"), steps, index=None, key=key, bind="query-params", label_visibility="collapsed")


def _hold_link_step(key: str) -> None:
    """While a link's run trains (before its steps are known): the link's snapshot, held by the link's control
    seeded with it alone. Without it the training run drew no control for ``key``, and the link's value was named
    unused and removed from the address bar (and from the link box) when the trained view came up."""
    given = (st.session_state.get("_url_params_at_start") or {}).get(key) or []
    _step_in_link(key, [int(v) for v in given[:1] if v.strip().isdigit()])


def _copy_step(key: str, shown: str) -> None:
    st.session_state[key] = st.session_state.get(shown)


def _idle_scrub(key: str, total: int) -> None:
    """The snapshot slider before and while training: disabled, at step 0, no step in the link. Drawn so that the
    run showing the result (after the training run, or after Stop) finds the link's control in the previous run's
    widgets: Streamlit 1.67 writes a bound widget's value set from session state into the address bar only for a
    widget the previous run drew, and the snapshot in the address bar is what makes a copied link show the trained
    run."""
    if st.session_state.get(key) is not None:
        st.session_state[key] = None
    _step_in_link(key, [])  # no step to hold: nothing to pick either
    st.session_state[f"{key}_shown"] = 0
    st.select_slider(t("lv_scrub"), options=[0, total], key=f"{key}_shown", disabled=True, help=t("lv_scrub_help"))


def scrub(key: str, steps: list[int], outcome: Outcome, *, label: Optional[str] = None) -> int:
    """The snapshot slider: which training step to show, in the link as ``key`` at every step (``_step_in_link``).
    Right after a training it moves to the last snapshot; a value the options no longer hold goes there too."""
    if len(steps) < 2:
        return steps[-1]
    here = st.session_state.get(key)
    raw = st.session_state.get("_url_params_at_start") or {}
    consumed = f"_{key}_link_read"
    if key in raw and consumed not in st.session_state:
        st.session_state[consumed] = True  # the link's snapshot, once: Streamlit seeds the control from it ...
        if here not in steps:
            st.session_state[key] = steps[-1]  # ... unless it is no snapshot: then the last one
    elif outcome.fresh or here not in steps:
        st.session_state[key] = steps[-1]
    step = _step_in_link(key, steps)
    step = steps[-1] if step is None else step
    shown = f"{key}_shown"
    # Every run: on a session's first page the widget ids change between the first run and the next (the route
    # decides them: mha.app.frame), and an unbound control whose id changed would come back at its default.
    st.session_state[shown] = step
    st.select_slider(label or t("lv_scrub"), options=steps, key=shown, on_change=_copy_step, args=(key, shown),
                     help=t("lv_scrub_help"))
    return step
