"""The Train page's pieces (Streamlit layer): the training controls, the live run, the trained heads on the learner's
own sentence, how close each head got, the two lessons (input layout; previous-and-next with 1 head vs 2), the link
that opens every page on these trained weights and the ``.pt`` download. ``page`` (which ``pages/train.py`` calls)
calls them in order.

Training and its record come from ``mha.weights.train`` / ``mha.weights.train_runs``, the curves from
``mha.charts.train``, the heatmaps from ``mha.charts.figures``; the live UI (progress, Stop, snapshots, cache) is
``mha.app.sections.live``.
"""
from __future__ import annotations

from urllib.parse import quote, urlencode

import numpy as np
import streamlit as st

from mha.app import frame
from mha.app.compute import SEEDED, cached, cached_figure
from mha.app.sections import live
from mha.app.state import Settings, settings
from mha.app.widgets import chart_words, int_input, named_choice, t, weights_scale
from mha.charts import figures
from mha.charts import train as tf
from mha.core.markup import escape_markdown
from mha.core.tokens import TextError, display_labels
from mha.weights import export
from mha.weights import train as tr
from mha.weights import train_runs as runs
from mha.weights.view import text_batch

D_MODELS = (8, 16, 32, 64, 128)  # trainable sizes (mha.weights.train.MAX_TRAIN_D_MODEL), a subset of the app's
KEYS = ("tr_task", "tr_d_model", "tr_num_heads", "tr_steps", "tr_seed", "tr_layout", "tr_at", "tr_compare")
COMPARE_TASK = "prev_next"


def head_options(d_model: int) -> list[int]:
    return [h for h in (1, 2, 4, 8, 16) if d_model % h == 0 and d_model // h >= 2]


def _task_defaults() -> None:
    """A new task (callback, before the widgets): its own default size and step budget."""
    task = tr.get_task(st.session_state["tr_task"])
    st.session_state.update(tr_d_model=task.d_model, tr_num_heads=task.num_heads, tr_steps=task.steps)


def controls() -> tr.TrainConfig:
    """Task, d_model, num_heads, steps, seed and input layout; every one in the link. Defaults come from the task."""
    c = st.columns([2.2, 1, 1, 1.2, 1.2])
    # Shown by their names in the page's language; the link holds the ids ("previous", "split") in every language.
    task_id = named_choice(t("tp_task"), tr.TASKS, "tr_task", {k: t(tr.get_task(k).name_key) for k in tr.TASKS},
                           default=tr.DEFAULT_TASK, container=c[0], help=t("tp_task_help"), select=True,
                           on_change=_task_defaults)
    task = tr.get_task(task_id)
    # Fixed widget defaults (the default task's): a link names every size that differs from them, whatever the task
    # (picking a task sets its own sizes through _task_defaults).
    base = tr.get_task(tr.DEFAULT_TASK)
    d_model = c[1].selectbox("d_model", D_MODELS, index=D_MODELS.index(base.d_model), key="tr_d_model",
                             bind="query-params", help=t("tp_d_model_help", max=tr.MAX_TRAIN_D_MODEL))
    heads = head_options(d_model)
    if st.session_state.get("tr_num_heads") not in (None, *heads):
        st.session_state["tr_num_heads"] = max(h for h in heads if h <= max(st.session_state["tr_num_heads"], 1))
    num_heads = c[2].selectbox("num_heads", heads, index=heads.index(base.num_heads) if base.num_heads in heads
                               else 0, key="tr_num_heads", bind="query-params")
    steps = int_input(t("tp_steps"), "tr_steps", 1, tr.MAX_TRAIN_STEPS, base.steps, container=c[3],
                      help=t("tp_steps_help", default=task.steps))
    seed = int_input(t("ctl_seed"), "tr_seed", 0, tr.MAX_TRAIN_SEED, 0, container=c[4], help=t("tp_seed_help"))
    layout = named_choice(t("tp_layout"), tr.LAYOUTS, "tr_layout", {k: t(f"tr_layout_{k}") for k in tr.LAYOUTS},
                          default=tr.DEFAULT_LAYOUT, help=t("tp_layout_help"))
    st.caption(t(f"tr_layout_{layout}_help"))
    return tr.TrainConfig(task=task_id, d_model=int(d_model), num_heads=int(num_heads), steps=int(steps),
                          seed=int(seed), layout=layout)


def describe(config: tr.TrainConfig) -> None:
    """The task in one sentence: what the perfect attention pattern is; a warning when there are too few heads."""
    task = tr.get_task(config.task)
    st.markdown(f"**{t(task.name_key)}**: " + t(task.description_key, seq_len=config.seq_len))  # no id in prose
    if config.num_heads < task.min_heads:
        st.warning(t("tp_too_few_heads", need=task.min_heads, heads=config.num_heads), icon="⚠️")
    if config.layout == "added":
        st.info(t("tp_added_note"), icon="🧪")


def probe(s: Settings) -> tuple[tuple[str, ...], list[str]] | None:
    """The learner's sentence from the sidebar (the one shown, when there are several lines), cut to the probe's
    length: (tokens, display labels), or None with a message."""
    try:
        batch = text_batch(s.text)
    except TextError:
        st.info(t("page_needs_text"), icon="✍️")
        return None
    tokens = batch.sentences[min(s.sentence, batch.size - 1)]
    if len(tokens) > tr.MAX_PROBE_TOKENS:
        st.caption(t("tp_probe_cut", n=len(tokens), max=tr.MAX_PROBE_TOKENS))
    tokens = runs.check_probe(tokens)
    return tokens, display_labels(tokens)


def _config_key(c: tr.TrainConfig) -> tuple:
    return (c.task, c.d_model, c.num_heads, c.steps, c.seed, c.layout)


def _restep(result: runs.TrainRecord) -> tuple:
    """Stopped: the steps control becomes the steps done, so the link trains exactly what is shown."""
    done = max(result.steps_done, 1)
    st.session_state["tr_steps"] = done
    c = result.config
    return (c.task, c.d_model, c.num_heads, done, c.seed, c.layout)


def train_live(config: tr.TrainConfig, tokens, labels, prefix: str = "tr", autostart: bool | None = None,
               draw: bool = True, button: str | None = None) -> live.Outcome | None:
    """The run for ``config`` (cached, stopped or trained now, live); ``autostart`` None = when the link shows a
    trained view (it names the snapshot shown, ``tr_at``: the slider is only there once a run is shown)."""
    spec = live.Live(prefix, _config_key(config), config.steps, on_stop=_restep if prefix == "tr" else None,
                     scrub_key="tr_at" if prefix == "tr" else None, link_params=("tr_at",))
    if autostart is None:
        autostart = live.from_link(spec)
    words, cw = chart_words(), live.curve_words()

    def start():
        rec = runs.RecordingTrainer(config, tokens)
        return rec.run(), (lambda p: p.step), (lambda stopped: rec.record())

    def paint(events, slots, n):
        xs = [p.step for p in events if p.loss is not None]
        ys = [p.loss for p in events if p.loss is not None]
        slots[0].plotly_chart(tf.loss_curve({cw.loss: (xs, ys)}, steps_total=config.steps, words=cw,
                                            title=t("tp_loss_title")), key=f"{prefix}_live_loss_{n}")
        snap = next(p.snapshot for p in reversed(events) if p.snapshot is not None)
        grid = figures.heads_grid(snap, labels, labels, zmax=figures.weights_top(snap), words=words)
        slots[1].plotly_chart(figures.readable_ticks(grid),
                              key=f"{prefix}_live_heads_{n}")

    try:
        return live.run(spec, start, paint if draw else None, slots=2 if draw else 0, autostart=autostart,
                        button=button)
    except (ValueError, TypeError) as err:  # settings that cannot be trained: say which and how to fix it
        st.error(t("tp_cannot_train", detail=escape_markdown(str(err))))
        return None


def show(outcome: live.Outcome, tokens, labels) -> int:
    """The finished (or stopped) run: the snapshot slider, the loss curve, the heads on the sentence, how close each
    head got. Returns the snapshot index shown."""
    rec: runs.TrainRecord = outcome.result
    c = rec.config
    if outcome.stopped:
        st.warning(t("tp_stopped", done=rec.steps_done, total=c.steps), icon="⏹️")
    else:
        st.success(t("tp_done", steps=rec.steps_done, loss=f"{float(np.mean(rec.losses[-20:])):.2g}",
                     seconds=f"{rec.seconds:.1f}"), icon="✅")
    step = live.scrub("tr_at", list(rec.snapshot_steps), outcome)
    index = rec.index_at(step)
    cw = live.curve_words()
    st.plotly_chart(cached_figure(tf.loss_curve, {cw.loss: (np.arange(1, rec.steps_done + 1), rec.losses)},
                                  now=step, words=cw, title=t("tp_loss_title")), key="tr_loss")
    weights = cached(runs.probe_weights, rec, tokens, [index], weights=SEEDED)[0]  # (H, T, T)
    st.subheader(t("tp_heads_title", step=step))
    st.caption(t("tp_heads_caption"))
    st.plotly_chart(cached_figure(figures.heads_grid, weights, labels, labels, zmax=weights_scale(weights).top,
                                  words=chart_words()), key="tr_heads")
    closeness_text(cached(runs.closeness, rec, index, tokens, weights=SEEDED), c, labels)
    return index


def closeness_text(cl: runs.Closeness, c: tr.TrainConfig, labels) -> None:
    """Per task slot, the closest head and how close it is; per head, its closest known pattern on the sentence."""
    st.markdown("**" + t("tp_goal_title") + "**")
    lines = []
    for s in cl.slots:
        ok = "✅" if s.score >= tr.GOAL else "❌"
        lines.append("- " + t("tp_slot_line", ok=ok, slot=t(f"tr_pattern_{s.slot}"), head=s.head,
                                score=f"{s.score:.2f}", goal=tr.GOAL, probe_head=s.probe_head,
                                probe_score=f"{s.probe_score:.2f}"))
    st.markdown("\n".join(lines))
    if c.task == "reverse" and len(labels) != c.seq_len:
        st.caption(t("tp_reverse_length", n=len(labels), seq_len=c.seq_len))
    heads = ", ".join(t("tp_head_match", head=m.head, pattern=t(f"tr_pattern_{m.pattern}"), score=f"{m.score:.2f}")
                      for m in cl.heads)
    st.caption(t("tp_heads_match", heads=heads))


def explore_link(c: tr.TrainConfig, lang: str) -> str:
    """The link that opens the Playground on these trained weights (the shared controls' weight source)."""
    params = dict(source="trained", task=c.task, train_steps=c.steps, d_model=c.d_model, num_heads=c.num_heads,
                  seed=c.seed, lang=lang)
    return "playground?" + urlencode(params, quote_via=quote)


def share_and_export(rec: runs.TrainRecord, lang: str) -> None:
    c = rec.config
    left, right = st.columns(2)
    if c.layout == tr.DEFAULT_LAYOUT:
        left.markdown(f"🔭 [{t('tp_explore')}]({explore_link(c, lang)})")
        left.caption(t("tp_explore_help"))
    else:
        left.caption(t("tp_explore_added"))
    name = f"mha_{c.task}_d{c.d_model}_h{c.num_heads}_s{c.seed}_{rec.steps_done}steps.pt"
    right.download_button(t("tp_download"), export.state_dict_bytes(rec.module()), file_name=name,
                          mime="application/octet-stream", key="tr_download", on_click="ignore", icon="⬇️")
    right.caption(t("tp_download_help", d_model=c.d_model, num_heads=c.num_heads))


def compare_heads(c: tr.TrainConfig, tokens, labels) -> None:
    """Previous-and-next with 1 head and with 2, side by side (one toggle; both runs cached like any other)."""
    st.subheader(t("tp_compare_title"))
    st.markdown(t("tp_compare_text"))
    if not st.toggle(t("tp_compare_toggle"), key="tr_compare", bind="query-params"):
        return
    base = tr.TrainConfig.for_task(COMPARE_TASK, seed=c.seed)
    results = {}
    for h in (1, 2):
        out = train_live(tr.TrainConfig.for_task(COMPARE_TASK, seed=c.seed, num_heads=h), tokens, labels,
                         prefix=f"trc{h}", autostart=True, draw=False)
        if out is None:
            return
        results[h] = out.result
    cw = live.curve_words()
    names = {h: t("tp_n_heads", n=h) for h in results}
    st.plotly_chart(cached_figure(tf.loss_curve, {names[h]: (np.arange(1, r.steps_done + 1), r.losses)
                                                  for h, r in results.items()}, words=cw,
                                  title=t("tp_compare_loss", d_model=base.d_model, steps=base.steps)),
                    key="tr_compare_loss")
    cols = st.columns([1, 2])
    final_weights = {h: cached(runs.probe_weights, r, tokens, [len(r.snapshot_steps) - 1], weights=SEEDED)[0]
                     for h, r in results.items()}
    top = weights_scale(list(final_weights.values()), toggle=False).top  # 1 head and 2 heads: one colour scale
    for col, (h, w) in zip(cols, final_weights.items()):
        col.markdown(f"**{names[h]}**")
        col.plotly_chart(cached_figure(figures.heads_grid, w, labels, labels, zmax=top, words=chart_words()),
                         key=f"tr_compare_heads_{h}")
    final = {h: float(np.mean(r.losses[-20:])) for h, r in results.items()}
    two = cached(runs.closeness, results[2], len(results[2].snapshot_steps) - 1, tokens, weights=SEEDED)
    roles = ", ".join(t("tp_head_match", head=s.head, pattern=t(f"tr_pattern_{s.slot}"), score=f"{s.score:.2f}")
                      for s in two.slots)
    st.markdown(t("tp_compare_result", one=f"{final[1]:.2g}", two=f"{final[2]:.2g}", roles=roles))


@frame.page
def page() -> None:
    """Train the course's module on a small copying task, live; its heads on the learner's own sentence."""
    st.title(t("tp_title"))
    st.markdown(t("tp_intro"))
    s = settings()
    config = controls()
    describe(config)
    found = probe(s)  # no st.stop(): the frame's link checks run after the page
    if found is not None:
        tokens, labels = found
        st.caption(t("tp_probe", n=len(tokens)))
        outcome = train_live(config, tokens, labels)
        if outcome is None:
            st.info(t("tp_press_train"), icon="▶️")
        else:
            show(outcome, tokens, labels)
            share_and_export(outcome.result, s.lang)

    st.divider()
    st.subheader(t("tp_layout_title"))
    st.markdown(t("tp_layout_text"))
    if found is not None:
        st.divider()
        compare_heads(config, tokens, labels)
