"""The Induction page (``page``, which pages/induction.py calls) and its pieces (Streamlit layer): the two-layer run
(live through ``mha.app.sections.live``), the loss curve with the plateau and the drop, every head's score against
steps, the learner's text repeated with both layers' weights, what each head does from a picked query, the composition
in plain words, the ablation, and the ``.pt`` export.

The model and its measurements come from ``mha.lessons.induction``, the page's reading of them from
``mha.lessons.induction_reading``, the charts from ``mha.charts.train`` and ``mha.charts.figures``.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from mha.app import frame
from mha.app.compute import HEAVY_WORK, cached_figure
from mha.app.sections import live
from mha.app.sections.model_view import model_view
from mha.app.state import settings
from mha.app.widgets import chart_words, int_input, t, token_picker, weights_scale
from mha.charts import figures
from mha.charts import train as tf
from mha.core.clicks import clicked_pair
from mha.core.markup import escape_markdown
from mha.core.tokens import TextError, display_labels
from mha.lessons import induction as ind
from mha.lessons import induction_reading as ir

KEYS = ("ind_seed", "ind_steps", "ind_at", "ind_query", "ind_ablate")
MAX_STEPS = 2000
SMOOTH = 25  # the loss curve is drawn as a moving average over this many steps (find_phase_change's window)


def controls() -> ind.InductionConfig:
    c = st.columns(2)
    seed = int_input(t("ctl_seed"), "ind_seed", 0, 9999, 0, container=c[0], help=t("ind_seed_help"))
    steps = int_input(t("tp_steps"), "ind_steps", 10, MAX_STEPS, ind.InductionConfig.steps, container=c[1],
                      help=t("ind_steps_help", default=ind.InductionConfig.steps))
    return ind.InductionConfig(seed=int(seed), steps=int(steps))


def _restep(run: ind.InductionRun) -> tuple:
    done = max(run.steps_done, 10)
    st.session_state["ind_steps"] = done
    return (run.config.seed, done)


def _direct(builder, *args, **kwargs):
    return builder(*args, **kwargs)  # live charts: each is drawn once, not worth a place in the figure cache


def loss_figure(losses, total: int, now: int | None = None, build=cached_figure):
    """The training loss (moving average) with the plateau shaded and the phase change marked."""
    pc = ind.find_phase_change(losses, window=SMOOTH)
    plateau = (pc.plateau_start, pc.plateau_end) if pc.plateau_end is not None else None
    smooth = ind.smooth(losses, SMOOTH)
    cw = live.curve_words()
    return build(tf.loss_curve, {cw.loss: (np.arange(1, len(smooth) + 1), smooth)}, log_y=False,
                         steps_total=total, now=now, plateau=plateau, drop=pc.drop_step, words=cw,
                         title=t("ind_loss_title", window=SMOOTH)), pc


def score_figures(hist: ind.History, total: int, now: int | None = None, build=cached_figure):
    cw = live.curve_words()
    l1 = build(tf.score_curves, hist.steps, hist.previous_token_scores, steps_total=total, now=now,
                       threshold=ir.ROLE_AT, words=cw, title=t("ind_prev_title"))
    l2 = build(tf.score_curves, hist.steps, hist.induction_scores, steps_total=total, now=now,
                       threshold=ir.ROLE_AT, words=cw, title=t("ind_ind_title"))
    return l1, l2


def _spec(config: ind.InductionConfig) -> live.Live:
    return live.Live("ind", (config.seed, config.steps), config.steps, on_stop=_restep, scrub_key="ind_at",
                     link_params=("ind_at",))


def warm(config: ind.InductionConfig) -> ind.InductionRun:
    """Train ``config`` without drawing and cache it as the page would (``mha.lessons.induction.train_run``: the
    same run)."""
    return live.warm(_spec(config), lambda: ind.train_run(config))


def train_live(config: ind.InductionConfig) -> live.Outcome | None:
    spec = _spec(config)
    autostart = live.from_link(spec)

    def start():
        model = ind.InductionModel.from_config(config)
        seen: list[ind.Checkpoint] = []

        def events():
            for cp in ind.train_steps(config, model=model):
                seen.append(cp)
                yield cp

        def finish(stopped: bool) -> ind.InductionRun:
            cps = list(seen)
            if stopped and cps and cps[-1].parameters is None:  # keep the parameters where it stopped
                last = cps[-1]
                cps[-1] = ind.Checkpoint(last.step, last.losses, last.measured,
                                         {k: v.detach().clone() for k, v in model.state_dict().items()}, last.seconds)
            model.eval()
            return ind.InductionRun(config=config, model=model, checkpoints=cps, stopped=stopped)

        return events(), (lambda cp: cp.step), finish

    def paint(cps, slots, n):
        losses = [x for cp in cps for x in cp.losses]
        slots[0].plotly_chart(loss_figure(losses, config.steps, build=_direct)[0],
                              key=f"ind_live_loss_{n}")
        l1, l2 = score_figures(ind.history(cps), config.steps, build=_direct)
        cols = slots[1].container().columns(2)
        cols[0].plotly_chart(l1, key=f"ind_live_l1_{n}")
        cols[1].plotly_chart(l2, key=f"ind_live_l2_{n}")

    return live.run(spec, start, paint, slots=2, autostart=autostart)


def show_training(outcome: live.Outcome) -> int:
    """The run: what happened, the snapshot slider, the loss and the scores. Returns the step shown."""
    run: ind.InductionRun = outcome.result
    losses = run.losses
    pc = ind.find_phase_change(losses, window=SMOOTH)
    if outcome.stopped:
        st.warning(t("tp_stopped", done=run.steps_done, total=run.config.steps),
                   icon="⏹️")
    if pc.dropped:
        st.success(t("ind_dropped", start=pc.plateau_start, end=pc.plateau_end, drop=pc.drop_step,
                     plateau=f"{pc.plateau_loss:.2f}", after=f"{pc.after_loss:.2f}",
                     seconds=f"{run.checkpoints[-1].seconds:.0f}"), icon="📉")
    else:
        st.info(t("ind_not_dropped", steps=run.steps_done), icon="⏳")
    step = live.scrub("ind_at", run.snapshot_steps(), outcome)
    st.plotly_chart(loss_figure(losses, run.config.steps, now=step)[0], key="ind_loss")
    l1, l2 = score_figures(run.history(), run.config.steps, now=step)
    cols = st.columns(2)
    cols[0].plotly_chart(l1, key="ind_l1_scores")
    cols[1].plotly_chart(l2, key="ind_l2_scores")
    st.caption(t("ind_scores_caption"))
    return step


def read_picked(run: ind.InductionRun, step: int, text: str) -> ir.SnapshotReading | None:
    """The snapshot on the learner's text, with the query from the one token picker (a click on the heatmap also
    picks it). Computed under the app's limit on heavy work (a few ms: small model, ≤ 32 tokens)."""
    try:
        tokens = ind.map_text(text, vocab_size=run.config.vocab_size, seq_len=run.config.seq_len)
    except TextError:
        st.info(t("page_needs_text"), icon="✍️")
        return None
    labels = display_labels(tokens.words)
    raw = st.session_state.get("_url_params_at_start") or {}
    if "ind_query" not in st.session_state and "ind_query" not in raw:
        st.session_state["ind_query"] = min(tokens.half + 1, len(labels) - 1)  # a query of the copy
    query = token_picker(t("ind_query"), "ind_query", labels)
    with HEAVY_WORK:
        return ir.read_snapshot(run, step, text, query)


def _pick_query() -> None:
    cell = clicked_pair(st.session_state.get("ind_l2_head"))
    if cell is not None:
        st.session_state["ind_query"] = cell[0]


def mapping_note(reading: ir.SnapshotReading) -> None:
    tt = reading.text
    st.caption(t("ind_mapping", n=tt.half, vocab=ind.InductionConfig.vocab_size))
    if tt.cut:
        st.caption(t("ind_cut", cut=tt.cut, n=tt.half))
    for word, want, got in tt.moved:
        st.caption(t("ind_moved", word=escape_markdown(word, 24, code=True), want=want, got=got))
    for i, words in tt.shared:
        st.caption(t("ind_shared", id=i, words=", ".join(escape_markdown(w, 24, code=True) for w in words)))


def _open_head(layer: int, head: int) -> None:
    """A click on the model view: that layer's head is the large one below."""
    st.session_state["ind_open"] = (layer, head)


def opened_head(reading: ir.SnapshotReading) -> tuple[int, int] | None:
    """The (layer, head) the learner opened in the model view, if it is one of this model's; else None."""
    got = st.session_state.get("ind_open")
    H = reading.attention.weights[0].shape[0]
    if isinstance(got, tuple) and len(got) == 2 and got[0] in (0, 1) and isinstance(got[1], int) and 0 <= got[1] < H:
        return got
    return None


def show_text(reading: ir.SnapshotReading) -> float:
    """Both layers' weights on the text, one sentence per head for the picked query, and one layer-2 head large
    (click a row to pick the query). Returns the top of the weights colour scale, for the ablation's grid."""
    labels = display_labels(reading.text.words)
    words = chart_words()
    # one colour scale for every weights chart of the text: both layers, the large head, the ablated layer 2
    top = weights_scale([*reading.attention.weights, reading.ablated.weights[1]]).top
    allowed = np.broadcast_to(reading.allowed, reading.attention.weights[0].shape)
    q = reading.query
    opened = opened_head(reading)
    best = reading.enlarged  # chosen on this text at this snapshot (mha.lessons.induction_reading.strongest_induction)
    big = opened or (1, best)
    # both layers' heads as thumbnails, numbered as this page numbers its layers (from 1); a click opens one large
    model_view(np.stack(reading.attention.weights), labels, labels, key="ind_model_view", words=words, top=top,
               allowed=reading.allowed, marked=big, first_layer=1, on_open=_open_head)
    for layer in (0, 1):
        st.markdown(f"**{t('ind_layer_title', n=layer + 1)}**")
        st.plotly_chart(cached_figure(figures.heads_grid, reading.attention.weights[layer], labels, labels,
                                      allowed=allowed, zmax=top, words=words), key=f"ind_grid_l{layer + 1}")
        lines = [head_line(r, labels, q, reading.target) for r in reading.roles[layer]]
        st.markdown("\n".join(lines))
    here = f"{reading.roles[1][best].on_text:.2f}"
    title = t("ind_big_title" if reading.strongest is not None else "ind_big_none", head=best, here=here)
    if opened is not None:
        title = t("mv_ind_opened", layer=big[0] + 1, head=big[1])
    st.markdown(f"**{title}**")
    st.caption(t("ind_big_caption"))
    picked = (q, reading.target if reading.target is not None else q)
    big_fig = figures.head_heatmap(reading.attention.weights[big[0]][big[1]], labels, labels, allowed=reading.allowed,
                                   head=big[1], selected=picked, zmax=top, words=words)
    st.plotly_chart(figures.readable_ticks(big_fig),  # not cached: its ticks and hover made readable here
                    key="ind_l2_head", selection_mode="points", on_select=_pick_query)
    return top


def head_line(r: ir.HeadRole, labels, q: int, target) -> str:
    role = t(f"ind_role_{r.role}", score=f"{r.score:.2f}", here=f"{r.on_text:.2f}")
    where = t("ind_points", q=escape_markdown(labels[q]), i=q, k=escape_markdown(labels[r.key]), j=r.key,
              w=f"{r.weight:.2f}")
    hit = ""
    if r.layer == 0 and r.key == q - 1 and q > 0:
        hit = " " + t("ind_hit_previous")
    elif r.layer == 1 and target is not None and r.key == target:
        hit = " " + t("ind_hit_induction")
    return f"- {t('ind_head', layer=r.layer + 1, head=r.head)}: {role} {where}{hit}"


def ablation(reading: ir.SnapshotReading, top: float = 1.0) -> None:
    """Layer 1's head that layer 2 builds on switched off. ``top``: the text's weights scale (``show_text``)."""
    st.subheader(t("ind_ablate_title"))
    a = reading.builds_on
    st.markdown(t("ind_ablate_text", head=a.head, prev=f"{a.on.previous_token_scores[a.head]:.2f}",
                  dup=f"{a.on.duplicate_token_scores[a.head]:.2f}"))
    if not st.toggle(t("ind_ablate_toggle", head=a.head), key="ind_ablate", bind="query-params"):
        return
    labels = display_labels(reading.text.words)
    c = st.columns(3)
    c[0].metric(t("ind_metric_induction"), f"{a.off.induction_scores.max():.2f}",
                delta=f"{a.off.induction_scores.max() - a.on.induction_scores.max():+.2f}", delta_color="inverse")
    c[1].metric(t("ind_metric_copy_loss"), f"{a.off.copy_loss:.2f}", delta=f"{a.off.copy_loss - a.on.copy_loss:+.2f}",
                delta_color="inverse")
    if reading.attention.copy_loss is not None and reading.ablated.copy_loss is not None:
        c[2].metric(t("ind_metric_text_loss"), f"{reading.ablated.copy_loss:.2f}",
                    delta=f"{reading.ablated.copy_loss - reading.attention.copy_loss:+.2f}", delta_color="inverse")
    allowed = np.broadcast_to(reading.allowed, reading.ablated.weights[1].shape)
    st.plotly_chart(cached_figure(figures.heads_grid, reading.ablated.weights[1], labels, labels, allowed=allowed,
                                  zmax=top, words=chart_words()), key="ind_grid_ablated")
    st.caption(t("ind_ablate_caption", head=a.head))


def export(run: ind.InductionRun, step: int) -> None:
    model = run.model_at(step)
    data = ind.export_layers(model)
    c = st.columns(2)
    for n, blob in enumerate(data):
        c[n].download_button(t("ind_download", n=n + 1), blob, file_name=f"induction_s{run.config.seed}_"
                             f"step{step}_layer{n + 1}.pt", mime="application/octet-stream",
                             key=f"ind_download_{n + 1}", on_click="ignore", icon="⬇️")
    st.caption(t("ind_download_help", d_model=run.config.d_model, num_heads=run.config.num_heads))


def composition() -> None:
    """How the two layers compose, in plain words."""
    st.subheader(t("ind_how_title"))
    st.markdown(t("ind_how_text"))


@frame.page
def page() -> None:
    """Two layers grow an induction head, live; the learner's text repeated shows it; switching a head off."""
    st.title(t("ind_title"))
    st.markdown(t("ind_intro"))
    s = settings()
    config = controls()
    outcome = train_live(config)
    if outcome is None:
        st.info(t("ind_press_train"), icon="▶️")
        composition()
    else:
        step = show_training(outcome)
        st.divider()
        st.subheader(t("ind_text_title"))
        st.markdown(t("ind_text_intro", step=step))
        reading = read_picked(outcome.result, step, s.text)
        if reading is not None:
            mapping_note(reading)
            top = show_text(reading)  # the one weights colour scale of the text, shared by the ablation below
        st.divider()
        composition()
        if reading is not None:
            ablation(reading, top)
        st.divider()
        st.subheader(t("ind_export_title"))
        export(outcome.result, step)
