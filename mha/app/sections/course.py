"""The "Follow the course" page (``page``, which pages/course.py calls) and its sections: the step picker in the
link, Back / Next, predict then reveal, and one function per step that lays out the views of ``mha.lessons.course``
with the app's existing charts (the canvas heatmaps, explain's cell breakdown, the lab's figures, the Playground's head
outputs)."""
from __future__ import annotations

import urllib.parse

import numpy as np
import pandas as pd
import streamlit as st

from mha.app import frame, runs
from mha.app.components.heatmap_view import heatmaps
from mha.app.compute import SEEDED, cached_figure
from mha.app.compute import view as compute_view
from mha.app.sections import explain as steps
from mha.app.state import settings
from mha.app.widgets import chart_words, t, table
from mha.charts import explain as xf
from mha.charts import figures, heatmap_data
from mha.core.markup import escape_markdown
from mha.core.tokens import TextError
from mha.lessons import course, explain
from mha.weights.batch import BatchError
from mha.weights.train import GOAL, TASKS, TRAIN_LEN
from mha.weights.view import D_MODEL_CHOICES, DEFAULT_D_MODEL, DEFAULT_NUM_HEADS, View, head_choices

STEP_KEY = "step"  # the URL parameter: /course?step=3


def step_picker() -> int:
    """The row of step numbers, bound to ``?step=``; returns the step shown (1-based)."""
    n = len(course.STEPS)
    value = st.session_state.get(STEP_KEY)
    if value is not None and course.step_number(value) != value:
        st.session_state[STEP_KEY] = course.step_number(value)  # a step that no longer exists: the first
    step = st.segmented_control(t("co_step_picker"), list(range(1, n + 1)), default=1, key=STEP_KEY,
                                bind="query-params", required=True)
    return course.step_number(step)


def _go(to: int) -> None:
    st.session_state[STEP_KEY] = course.step_number(to)


def back_next(step: int) -> None:
    """Back / Next: they set the bound step control, so the link follows."""
    n = len(course.STEPS)
    left, mid, right = st.columns([1, 3, 1])
    left.button(t("co_back"), key="co_back", on_click=_go, args=(step - 1,), disabled=step <= 1, width="stretch")
    mid.caption(t("co_step_of", n=step, total=n))
    right.button(t("co_next"), key="co_next", on_click=_go, args=(step + 1,), disabled=step >= n, width="stretch",
                 type="primary")


def _reveal(shown: str, question: tuple) -> None:
    st.session_state[shown] = question


def predict(step: str, question: str, options: list[str], answer: int, answer_text: str) -> bool:
    """The learner's guess (a radio) and the button that reveals the module's answer; True once revealed. The
    verdict compares the guess with ``answer`` (an option index worked out from the module's numbers)."""
    with st.container(border=True, key=f"co_predict_{step}"):
        st.markdown(f"**{t('co_predict')}** · {question}")
        # in the link like every page control (a class's guess can be shared); the answer is not
        guess = st.radio(question, options, index=None, key=f"co_guess_{step}", bind="query-params",
                         label_visibility="collapsed", horizontal=len(options) > 5)  # a long sentence's keys
        shown = f"co_shown_{step}"
        asked = (question, tuple(options))  # a new sentence asks anew: the answer is hidden again
        # a callback: it runs before the script, so a rerun of the frame cannot lose the click
        st.button(t("co_reveal"), key=f"co_reveal_{step}", type="primary", on_click=_reveal, args=(shown, asked))
        if st.session_state.get(shown) != asked:
            return False
        if guess is None:
            st.info(t("co_no_guess", answer=answer_text))
        elif guess == options[answer]:
            st.success(t("co_right", answer=answer_text))
        else:
            st.warning(t("co_wrong", answer=answer_text))
    return True


def views(specs: dict) -> dict[str, View] | None:
    """The step's views through the app's one cached recipe (seeded parameters: the course ignores uploads), or
    None with a message when the sentence cannot run or the training queue is full."""
    out = {}
    try:
        for name, spec in specs.items():
            # a trained module trains once per server as a long run, in this session's place in the queue, with
            # its progress bar (mha.app.runs: outside the compute slots); False: the queue is full (it says so)
            if spec.source == "trained" and not runs.trained_for_view(spec):
                return None
            out[name] = compute_view(spec, SEEDED)
    except (TextError, BatchError):
        st.info(t("page_needs_text"), icon="✍️")
        return None
    return out


def sizes() -> tuple[int, int, int]:
    """The sidebar's d_model, num_heads and seed where a step runs random parameters (a pretrained model's sizes
    do not apply: the defaults then)."""
    s = settings()
    if s.source == "pretrained" or s.d_model not in D_MODEL_CHOICES or s.num_heads not in head_choices(s.d_model):
        return DEFAULT_D_MODEL, DEFAULT_NUM_HEADS, s.seed
    return s.d_model, s.num_heads, s.seed


def trained_note(view: View) -> None:
    spec = view.spec
    st.caption(t("co_trained_note", task=t(TASKS[spec.task].name_key), d_model=spec.d_model, seed=spec.seed))
    s = settings()
    _, n = course.trained_text(s.text, s.sentence)
    if n > TRAIN_LEN:
        st.caption(t("co_long", n=n, train_len=TRAIN_LEN))


def playground_link(step: str, focus: dict[str, int] | None = None) -> None:
    """The step's "open in the Playground": the same module (sidebar sizes included, as ``sizes()``) and what the
    step points at so far (``focus``: ``head``, ``query``, ``key``, as the step function returns them)."""
    s = settings()
    d_model, num_heads, seed = sizes()
    params = course.playground_params(step, s.text, s.sentence, d_model=d_model, num_heads=num_heads, seed=seed,
                                      **(focus or {}))
    if params is None:
        return
    query = urllib.parse.urlencode({"lang": s.lang, **params})
    st.link_button(t("co_open_playground"), f"playground?{query}", icon="🔬")


def _label(view: View, i: int, key: bool = False) -> str:
    return escape_markdown((view.key_labels if key else view.labels)[i])


def _n(view: View) -> int:
    return int(view.lengths[view.sentence])


# ----------------------------------------------------------------------------------------------------- steps
# Each step function returns what it points at so far ({"head", "query", "key"}: the Playground link carries them);
# an answer joins only once revealed, so the link never tells it first.


def step_qkv(v: dict[str, View]) -> dict[str, int]:
    view = v["main"]
    n = _n(view)
    head = course.best_head(view.weights[:, :n, :n], "previous")
    qi = course.default_query(view)
    kj = course.top_key(view.scores[head, qi, :n])
    st.markdown(t("co_qkv_text", head=head))
    trained_note(view)
    answer = t("co_qkv_answer", k=_label(view, kj, True), score=float(view.scores[head, qi, kj]))
    options = [f"{j}: {_label(view, j, True)}" for j in range(n)]
    if not predict("qkv", t("co_qkv_question", q=_label(view, qi)), options, kj, answer):
        return {"head": head, "query": qi}
    st.caption(t("co_qkv_after", head=head))
    heatmaps(heatmap_data.prepare(view.scores[head][None], view.labels, view.key_labels, kind="scores", heads=[head],
                                  layout="single", selected=(qi, kj), words=chart_words()), key="co_qkv_scores")
    steps.cell_breakdown(view, head, qi, kj, key="co_cell")
    return {"head": head, "query": qi, "key": kj}


def step_softmax(v: dict[str, View]) -> dict[str, int]:
    view = v["main"]
    st.markdown(t("co_softmax_text"))
    row = course.course_row()
    top = int(np.argmax(row.weights))
    answer = t("co_softmax_answer", k=course.COURSE_TOKENS[top], w=float(row.weights[top]))
    n = _n(view)
    head = course.best_head(view.weights[:, :n, :n], "previous")
    qi = course.default_query(view)
    if not predict("softmax", t("co_softmax_question"), list(course.COURSE_TOKENS), top, answer):
        return {"head": head, "query": qi}
    words = chart_words()
    left, right = st.columns(2, gap="medium")
    with left:
        st.markdown(t("co_softmax_course", row=" ".join(f"{w:.2f}" for w in course.COURSE_WEIGHTS),
                      total=float(sum(course.COURSE_WEIGHTS)), back=" ".join(f"{w:.2f}" for w in row.weights)))
        st.plotly_chart(cached_figure(xf.attention_bar, row.weights, np.ones(len(row.weights), dtype=bool),
                                      list(course.COURSE_TOKENS), highlight=top, title="Orange", words=words),
                        key="co_course_row")
    ok = view.allowed[head, qi]
    kj = course.top_key(view.weights[head, qi], ok)
    mine = course.softmax_row(np.where(ok, view.scores[head, qi], -np.inf))
    with right:
        st.markdown(t("co_softmax_yours", q=_label(view, qi), head=head, total=mine.total,
                      wsum=float(view.weights[head, qi].sum())))
        table(pd.DataFrame({t("co_col_key"): [f"{j}: {lab}" for j, lab in enumerate(view.key_labels)],
                            t("co_col_score"): mine.scores, t("co_col_exp"): mine.exps,
                            t("co_col_weight"): view.weights[head, qi]}).round(3),
              key="co_softmax_table", hide_index=True)
        st.plotly_chart(cached_figure(xf.attention_bar, view.weights[head, qi], ok, view.key_labels,
                                      highlight=kj, title=figures.hover_labels([view.labels[qi]])[0],
                                      words=words),
                        key="co_your_row")
    return {"head": head, "query": qi, "key": kj}


def step_scale(v: dict[str, View]) -> None:
    view = v["main"]
    hd = view.head_dim
    st.markdown(t("co_scale_text", head_dim=hd, d_model=view.spec.d_model, num_heads=view.num_heads))
    scaled = view.weights[0]
    unscaled = explain.lab_weights(view, scale=False)[0]  # the same q, k through attention_steps(scale=False)
    allowed = view.allowed[0]
    s_stats, u_stats = explain.row_stats(scaled, allowed), explain.row_stats(unscaled, allowed)
    gap = float(u_stats.max_weight.mean() - s_stats.max_weight.mean())
    answer_index = 0 if gap > 0.02 else 1 if gap < -0.02 else 2
    options = [t("co_scale_peaked"), t("co_scale_flatter"), t("co_scale_same")]
    if not predict("scale", t("co_scale_question", head_dim=hd), options, answer_index, options[answer_index]):
        return
    words = chart_words()
    st.markdown(t("co_scale_after", max_s=float(s_stats.max_weight.mean()), max_u=float(u_stats.max_weight.mean()),
                  ent_s=float(s_stats.entropy.mean()), ent_u=float(u_stats.entropy.mean()),
                  uniform=float(s_stats.max_entropy.mean())))
    st.plotly_chart(cached_figure(xf.weights_pair, scaled, unscaled, view.labels, view.key_labels, allowed=allowed,
                                  titles=(t("lab_scaled"), t("lab_unscaled")), words=words),
                    key="co_scale_pair", width="content")
    result = steps.sweep(int(np.clip(view.weights.shape[2], 2, 64)), view.spec.seed)
    st.plotly_chart(cached_figure(xf.sweep_figure, result, hd, names=(t("lab_with"), t("lab_without")),
                                  current_name=t("lab_current"),
                                  titles=(t("lab_mean_entropy_axis"), t("lab_mean_maxw_axis"),
                                          t("lab_mean_grad_axis")), words=words),
                    key="co_scale_sweep")


def _one_head(view: View, head: int, key: str) -> None:
    heatmaps(heatmap_data.prepare(view.weights[head][None], view.labels, view.key_labels, kind="weights",
                                  heads=[head], allowed=view.allowed[head][None], layout="single",
                                  words=chart_words()), key=key)


def _intro(text_key: str, view: View) -> bool:
    """A step on a trained module: its text and the trained note; False, with a note, when the sentence has
    fewer than two tokens (the step compares a token with the one next to it)."""
    st.markdown(t(text_key))
    trained_note(view)
    if _n(view) < 2:
        st.info(t("co_needs_two"))
        return False
    return True


def step_mask(v: dict[str, View]) -> dict[str, int] | None:
    free, masked = v["free"], v["masked"]
    if not _intro("co_mask_text", free):
        return None
    c = course.cheating(free, masked)
    left, right = st.columns(2, gap="medium")
    with left:
        st.markdown(f"**{t('co_mask_free')}**")
        _one_head(free, c.head, "co_mask_free")
    options = [t("co_mask_same"), t("co_mask_half"), t("co_mask_zero")]
    answer = 2 if c.weight_next_masked == 0.0 else 0
    if not predict("mask", t("co_mask_question", head=c.head), options, answer,
                   t("co_mask_answer", free=c.weight_next_free)):
        return {"head": c.head}
    with right:
        st.markdown(f"**{t('co_mask_masked')}**")
        _one_head(masked, c.head, "co_mask_masked")
    pct = lambda x: f"{max(x, 0.0) * 100:.0f}"  # noqa: E731 0% or less: nothing of the next word
    cols = st.columns(2)
    cols[0].metric(t("co_mask_metric_weight"), f"{c.weight_next_masked:.2f}",
                   delta=f"{c.weight_next_masked - c.weight_next_free:+.2f}", delta_color="off",
                   help=f"{t('co_mask_free')}: {c.weight_next_free:.2f}")
    cols[1].metric(t("co_mask_metric_copied"), f"{pct(c.copied_masked)}%",
                   delta=f"{int(pct(c.copied_masked)) - int(pct(c.copied_free)):+d}%", delta_color="off",
                   help=f"{t('co_mask_free')}: {pct(c.copied_free)}%")
    st.markdown(t("co_mask_after", head=c.head, free=c.weight_next_free, masked=c.weight_next_masked,
                  copied_free=pct(c.copied_free), copied_masked=pct(c.copied_masked), n=_n(free) - 1))
    return {"head": c.head}


def step_heads(v: dict[str, View]) -> None:
    view = v["main"]
    d_model, H, hd = view.spec.d_model, view.num_heads, view.head_dim
    st.markdown(t("co_heads_text"))
    options = sorted({hd, d_model, d_model * H}) if H > 1 else sorted({hd, 2 * d_model})
    if not predict("heads", t("co_heads_question", d_model=d_model, num_heads=H), [str(o) for o in options],
                   options.index(view.head_outputs.shape[-1]),
                   t("co_heads_answer", d_model=d_model, num_heads=H, head_dim=hd)):
        return
    words = chart_words()
    st.plotly_chart(cached_figure(figures.head_outputs_grid, view.head_outputs, view.labels, words=words),
                    key="co_head_outputs")
    diff = max(float(np.abs(view.concat[:, h * hd:(h + 1) * hd] - view.head_outputs[h]).max()) for h in range(H))
    st.markdown(t("co_heads_after", head_dim=hd, diff=diff))
    st.plotly_chart(cached_figure(xf.banded_features, view.concat, view.labels, H, kind="concat", words=words),
                    key="co_concat")


def step_several(v: dict[str, View]) -> None:
    one, two = v["one"], v["two"]
    if not _intro("co_several_text", one):
        return
    got = {1: course.slot_weights(one), 2: course.slot_weights(two)}
    options = [t("co_several_yes"), t("co_several_no")]
    answer = 0 if min(got[1].values()) >= GOAL else 1
    if not predict("several", t("co_several_question"), options, answer, options[answer]):
        return
    st.markdown(t("co_several_after"))
    slots = ("previous", "next")
    table(pd.DataFrame({t("co_several_table_heads"): [t("co_several_one"), t("co_several_two")],
                        **{t(f"tr_pattern_{s}"): [round(got[1][s], 3), round(got[2][s], 3)] for s in slots}}),
          key="co_several_table", hide_index=True)
    left, right = st.columns([1, 2], gap="medium")
    words = chart_words()
    for col, view, key, title in ((left, one, "co_several_one", "co_several_one"),
                                  (right, two, "co_several_two", "co_several_two")):
        with col:
            st.markdown(f"**{t(title)}**")
            heatmaps(heatmap_data.prepare(view.weights, view.labels, view.key_labels, kind="weights",
                                          allowed=view.allowed, words=words), key=key)


def step_trained(v: dict[str, View]) -> dict[str, int] | None:
    view = v["main"]
    n = _n(view)
    st.markdown(t("co_trained_text", train_len=TRAIN_LEN))
    trained_note(view)
    first = course.best_head(view.weights[:, :n, :n], "first")
    options = [t("co_trained_answer", head=h) for h in range(view.num_heads)]
    if not predict("trained", t("co_trained_question"), options, first, options[first]):
        return None  # the heads' weights answer the question: drawn only once it is answered
    heatmaps(heatmap_data.prepare(view.weights, view.labels, view.key_labels, kind="weights", allowed=view.allowed,
                                  words=chart_words()), key="co_trained_grid")
    st.markdown(t("co_trained_roles"))
    clear = 0.6  # below: the head does none of the known patterns here (a sentence unlike the training ones)
    st.markdown("\n".join(
        "- " + t("co_trained_role" if sc >= clear else "co_trained_role_unclear", head=h, role=t(f"tr_pattern_{p}"),
                 score=sc) for h, (p, sc) in enumerate(course.head_roles(view))))
    st.caption(t("co_done"))
    return {"head": first}


SECTIONS = {"qkv": step_qkv, "softmax": step_softmax, "scale": step_scale, "mask": step_mask, "heads": step_heads,
            "several": step_several, "trained": step_trained}


def show_step(number: int) -> None:
    """Step ``number`` (1-based) on the learner's sentence."""
    s = settings()
    step = course.step_id(number)
    d_model, num_heads, seed = sizes()
    st.header(f"{number} · {t(f'co_step_{step}')}")
    try:
        specs = course.step_specs(step, s.text, s.sentence, d_model=d_model, num_heads=num_heads, seed=seed)
    except TextError:  # nothing visible in the text box: its own message is in the sidebar
        st.info(t("page_needs_text"), icon="✍️")
        return
    v = views(specs)
    if v is None:
        return
    focus = SECTIONS[step](v)
    playground_link(step, focus)


@frame.page
def page() -> None:
    """The course's questions one step at a time, on the learner's sentence; the step is in the link."""
    st.title(f"🎓 {t('co_title')}")
    s = settings()
    first_line = (s.text or "").strip().splitlines()[0] if (s.text or "").strip() else ""
    st.caption(t("co_intro", sentence=escape_markdown(first_line, 80)))
    step = step_picker()
    show_step(step)
    st.divider()
    back_next(step)
