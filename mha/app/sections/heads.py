"""The Heads page's sections (Streamlit layer): measure every head, compare two, switch some off, see q and k
together, order and seeds. ``page`` (which ``pages/heads.py`` calls) picks the open section and calls
``SECTIONS[section](HeadsInputs)``.

The numbers come from ``mha.lessons.heads`` (pure, tested), the figures from ``mha.charts.heads``. Only the open
section is computed; each section is a fragment (a control inside it reruns only the section), and everything beyond the
shared view goes through ``compute.cached`` (keyed on the spec and the weights' sha256). The open section is part of
the link: ``/heads?hd_section=ablate``.
"""
from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np
import streamlit as st

from mha.app import frame, runs
from mha.app.compute import Weights, cached, cached_figure
from mha.app.compute import view as compute_view
from mha.app.state import Settings, current_view, session_weights, settings
from mha.app.widgets import (
    chart_words,
    head_picker,
    hide,
    int_input,
    keep_index,
    lang,
    link_value,
    t,
    table,
    token_picker,
    weights_scale,
)
from mha.charts import figures
from mha.charts import heads as hf
from mha.charts.figures import Words
from mha.core.markup import escape_markdown
from mha.lessons import heads
from mha.lessons.course import long_for_training
from mha.weights.batch import PAD
from mha.weights.train import TASKS, TRAIN_LEN, pattern_text
from mha.weights.view import MAX_SEED, View, ViewSpec


@dataclasses.dataclass(frozen=True)
class HeadsInputs:
    """What every section reads: the view, its settings, the parameters and the chart words of this run."""

    view: View
    s: Settings
    spec: ViewSpec
    words: Words
    weights: Weights
    H: int
    Tq: int
    Tk: int
    q_labels: list
    k_labels: list
    square: bool  # self-attention: positions of queries and keys match

    @classmethod
    def of(cls, view: View, s: Settings, words: Words, weights: Weights) -> "HeadsInputs":
        H, (Tq, Tk) = view.num_heads, view.weights.shape[1:]
        q_labels, k_labels = view.labels, view.key_labels or view.labels
        return cls(view, s, s.spec(), words, weights, H, Tq, Tk, q_labels, k_labels,
                   Tq == Tk and list(k_labels) == list(q_labels))

    def keep_choices_valid(self) -> None:
        """Before any section draws: choices made for more heads or a longer sentence come back in range."""
        for key, n in (("heads_a", self.H), ("heads_b", self.H), ("heads_qk_head", self.H),
                       ("heads_order_head", self.H), ("heads_seed_head", self.H), ("heads_query", self.Tq)):
            keep_index(key, n)
        off = st.session_state.get("heads_off")
        if heads.sanitize_heads(off, self.H) != list(off or []):
            st.session_state["heads_off"] = heads.sanitize_heads(off, self.H)


SECTION_IDS = ("measure", "compare", "ablate", "qk", "order", "seeds")
EXAMPLE_REPEAT = "the cat saw the dog"


SECTION_KEY, PICK_KEY = "hd_section", "hd_section_pick"


def _open_picked() -> None:
    st.session_state[SECTION_KEY] = st.session_state.get(PICK_KEY) or SECTION_IDS[0]
    st.session_state["_hd_section_picked"] = True  # the learner chose: a note about the link's value is done


def section_picker() -> str:
    """The open section, from the link or the learner. A bound control puts the text it *shows* in the URL, and the
    picker shows translated titles: so the URL value is held by a hidden bound control over the section ids (the
    same in every language; anything else in the link gives the first section), and the picker mirrors it."""
    hide(SECTION_KEY)
    section = st.segmented_control(t("hd_section"), SECTION_IDS, default=SECTION_IDS[0], key=SECTION_KEY,
                                   bind="query-params", required=True, label_visibility="collapsed")
    section = section if section in SECTION_IDS else SECTION_IDS[0]
    if st.session_state.get(PICK_KEY) != section:  # first run, or the URL changed (a link, the back button)
        st.session_state[PICK_KEY] = section
    titles = {k: t(f"hd_sec_{k}") for k in SECTION_IDS}  # in this run's language, whenever the picker formats
    st.segmented_control(t("hd_section"), SECTION_IDS, key=PICK_KEY, required=True, on_change=_open_picked,
                         format_func=titles.get, label_visibility="collapsed", width="stretch")
    given = (st.session_state.get("_url_params_at_start") or {}).get(SECTION_KEY)
    if given and given[0] != section and not st.session_state.get("_hd_section_picked"):  # not a section id
        st.caption(t("url_param_ignored", param=SECTION_KEY, given=link_value(given[0], 40),
                     used=f"**{titles[section]}**"))
    return section


@st.fragment
def measure(c: HeadsInputs) -> None:
    view, s, words, Tq = c.view, c.s, c.words, c.Tq
    Tk, q_labels, k_labels, square = c.Tk, c.q_labels, c.k_labels, c.square
    stats = heads.head_stats(view.weights, view.allowed)
    stats_tab = heads.stats_table(stats, k_labels)
    shown = stats_tab.rename(columns={col: t(f"hd_col_{col}") for col in stats_tab.columns})
    table(shown, "heads_stats_table", hide_index=True, width="stretch", column_config={
        t(f"hd_col_{col}"): st.column_config.NumberColumn(format="%.3f", help=t(f"hd_help_{col}"))
        for col in stats_tab.columns if col not in ("head", "sink")})
    st.download_button(t("hd_download_csv"), stats_tab.to_csv(index=False).encode("utf-8"), key="heads_stats_csv",
                       file_name="head_stats.csv", mime="text/csv")
    numeric = {col: stats_tab[col].to_numpy() for col in stats_tab.columns if col not in ("head", "sink")}
    # Cached figures: a warm visit of the page skips Plotly's figure building (~0.5 s for this chart alone).
    st.plotly_chart(cached_figure(hf.stats_chart, numeric, {c: t(f"hd_col_{c}") for c in numeric},
                                  t("hd_head"), words=words), key="heads_stats_chart")
    if not square:
        st.info(t("hd_not_square", tq=Tq, tk=Tk))
    if s.causal:
        st.caption(t("hd_causal_sink"))
    head_names(c)
    st.subheader(t("hd_entropy_rows"))
    st.caption(t("hd_entropy_rows_help", bits=float(np.log2(max(Tk, 1)))))
    st.plotly_chart(cached_figure(hf.entropy_heatmap, stats.entropy, stats.valid, q_labels,
                                  float(np.log2(max(Tk, 2))), t("hd_head"), t("hd_bits"), words=words),
                    key="heads_entropy_chart")


def head_names(c: HeadsInputs) -> None:
    """What each head does: its closest known pattern with a score (``mha.lessons.heads.head_patterns``), on any
    weights."""
    st.subheader(t("src_head_names"))
    long = long_for_training(c.view)  # trained heads past their training length: also scored on what they learned
    found = cached(heads.head_patterns, c.view, TRAIN_LEN if long else None, weights=c.weights)
    if found is None:
        st.info(t("hd_not_square", tq=c.Tq, tk=c.Tk) if not c.square else t("src_head_names_short"))
        return
    st.caption(t("src_head_names_help"))
    if long:
        st.caption("📏 " + t("hd_names_long", n=int(c.view.lengths[c.view.sentence]), train_len=TRAIN_LEN))
    pad = c.view.query_is_pad if c.view.query_is_pad is not None else [False] * len(c.view.labels)
    labels = [lab for lab, p in zip(c.view.labels, pad) if not p]  # the real tokens the patterns were matched on
    name = lambda p, sink=None, share=0.0, score=None: pattern_text(p, lang(), labels, sink, share, score)  # noqa
    patterns = [name(p, sk, sh, sc) for p, sk, sh, sc in zip(found["pattern"], found["sink"], found["sink_share"],
                                                             found["score"])]
    shown = {t("src_col_head"): found["head"], t("src_col_pattern"): patterns,
             t("src_col_score"): found["score"],
             t("src_col_runner_up"): [f"{name(p)} ({v:.2f})" for p, v in zip(found["runner_up"],
                                                                           found["runner_up_score"])]}
    bars = {t("src_col_score"): st.column_config.ProgressColumn(format="%.2f", min_value=0.0, max_value=1.0)}
    if long:
        first = t("hd_col_score_first", train_len=TRAIN_LEN)
        shown[first] = found["score_first"]
        bars[first] = st.column_config.ProgressColumn(format="%.2f", min_value=0.0, max_value=1.0)
    table(shown, "heads_names_table", hide_index=True, width="stretch", column_config=bars)


def _pick_pair(H: int) -> None:
    pair = heads.pair_from_event(st.session_state.get("heads_sim_chart"), H)
    if pair is not None:
        st.session_state["heads_a"], st.session_state["heads_b"] = pair


@st.fragment
def compare(c: HeadsInputs) -> None:
    view, words, H, q_labels, k_labels = c.view, c.words, c.H, c.q_labels, c.k_labels
    if H < 2:
        st.info(t("hd_one_head"))
        return
    # Shown as their URL values (the same words in both languages); the caption below explains the one chosen.
    metric = st.segmented_control(t("hd_metric"), ["JS", "cosine"], default="JS", key="heads_metric",
                                  bind="query-params", required=True, help=t("hd_metric_help")).lower()
    sim = heads.head_similarity(view.weights, metric)
    best = heads.most_alike(sim, metric)
    left, right = st.columns([2, 3])
    col_a, col_b = right.columns(2)
    a = col_a.selectbox(t("hd_pair_a"), range(H), index=best[0], key="heads_a", bind="query-params")
    b = col_b.selectbox(t("hd_pair_b"), range(H), index=best[1], key="heads_b", bind="query-params")
    right.markdown(t(f"hd_pair_summary_{metric}", a=a, b=b, value=float(sim[a, b]), best_a=best[0], best_b=best[1]))
    right.caption(t(f"hd_metric_{metric}_help") + " " + t("hd_click_hint"))
    left.plotly_chart(figures.readable_ticks(hf.similarity_heatmap(sim, metric, (a, b), t("hd_head"),
                                                                   t(f"hd_metric_{metric}_short"), words=words)),
                      key="heads_sim_chart", on_select=partial(_pick_pair, H),
                      selection_mode="points")
    titles = [f"{t('hd_head')} {a}", f"{t('hd_head')} {b}", t("hd_difference", a=a, b=b)]
    st.plotly_chart(figures.readable_ticks(hf.pair_figure(
        view.weights[a], view.weights[b], q_labels, k_labels, titles, view.allowed[a] & view.allowed[b], words=words,
        top=weights_scale(view.weights).top)), key="heads_pair_chart")


@st.fragment
def ablate(c: HeadsInputs) -> None:
    view, words, weights, H, q_labels = c.view, c.words, c.weights, c.H, c.q_labels
    off = st.multiselect(t("hd_off"), list(range(H)), key="heads_off", bind="query-params", help=t("hd_off_help"),
                         placeholder=t("hd_off_placeholder"))
    ab = cached(heads.ablate_view, view, tuple(sorted(off)), weights=weights)
    if not off:
        st.info(t("hd_off_none"))
    elif len(off) == H:
        st.warning(t("hd_off_all", err=float(np.abs(ab.ablated - ab.bias).max())))
    else:
        worst = escape_markdown(q_labels[int(ab.change.argmax())])
        st.markdown(t("hd_off_summary", n=len(off), mean=float(ab.change.mean()), worst=worst,
                      pct=float(100 * ab.change.sum() / max(ab.output_norm.sum(), 1e-12))))
    st.plotly_chart(figures.readable_ticks(hf.change_chart(ab.change, ab.output_norm, q_labels, t("hd_change_axis"),
                                                         words=words)), key="heads_change_chart")
    st.subheader(t("hd_results"))
    gap = float(np.abs(ab.bias + ab.results.sum(axis=0) - ab.output).max())
    st.caption(t("hd_results_help", gap=gap))
    st.plotly_chart(figures.readable_ticks(hf.contributions_heatmap(np.linalg.norm(ab.results, axis=-1), q_labels, off,
                                                                  t("hd_head"), t("hd_off_word"), words=words)),
                    key="heads_results_chart")


@st.fragment
def queries_keys(c: HeadsInputs) -> None:
    view, words, H, q_labels, k_labels = c.view, c.words, c.H, c.q_labels, c.k_labels
    head = head_picker("heads_qk_head", H)
    left, right = st.columns([3, 2])
    qi = token_picker(t("hd_query"), "heads_query", q_labels, container=left)
    most = min(5, int(view.allowed[head, qi].sum()))  # keys this query may attend to (the mask may block some)
    if st.session_state.get("heads_topk", 1) > most:
        st.session_state["heads_topk"] = most
    k = right.slider(t("hd_topk"), 1, most, min(3, most), key="heads_topk", bind="query-params") if most > 1 else 1
    proj = heads.qk_pca(view.q[head], view.k[head])
    top = heads.top_keys(view.weights[head, qi], view.allowed[head, qi], k)
    near = heads.nearest_keys(proj, qi, k, view.allowed[head, qi])
    axes = [t("hd_pc", n=n + 1, pct=100 * float(proj.explained[n])) for n in range(2)]
    fig = hf.qk_figure(proj.q2, proj.k2, q_labels, k_labels, qi, top, view.weights[head, qi], axes,
                       (t("hd_queries"), t("hd_keys")), words=words)
    st.plotly_chart(figures.readable_ticks(fig), key="heads_qk_chart")
    if unnamed := hf.unnamed_points(fig):
        st.caption(t("hd_qk_unnamed", n=unnamed, total=len(q_labels) + len(k_labels)))
    names = lambda idx: ", ".join(f"**{escape_markdown(k_labels[j])}**" for j in idx)  # noqa: E731
    st.markdown(t("hd_qk_compare", top=names(top), near=names(near), same=len(set(top) & set(near)), k=len(top),
                  kept=100 * float(proj.explained.sum())))
    if view.head_dim == 1:
        st.caption(t("hd_qk_one_dim"))
    st.info(t("hd_qk_explain"), icon="📐")


def _shuffle(step: int) -> None:
    st.session_state["heads_shuffle"] = 0 if step == 0 else st.session_state.get("heads_shuffle", 0) % MAX_SEED + 1


@st.fragment
def order(c: HeadsInputs) -> None:
    view, s, spec, words, weights, H, square = c.view, c.s, c.spec, c.words, c.weights, c.H, c.square
    st.markdown(t("hd_equivariance"))
    if spec.source == "pretrained":  # the layer's input already carries the model's positions: nothing to switch
        st.info(t("src_heads_order_pretrained"), icon="🧠")
        return
    other = compute_view(dataclasses.replace(spec, positional=not s.positional), weights)
    reps = {s.positional: heads.repeated_rows(view.tokens, view.weights, view.output, ignore=(PAD,)),
            not s.positional: heads.repeated_rows(other.tokens, other.weights, other.output, ignore=(PAD,))}
    st.subheader(t("hd_repeat"))
    if reps[False]:
        rep = heads.repeated_table(reps[False], reps[True]).rename(columns=lambda col: t(f"hd_repeat_{col}"))
        table(rep, "heads_repeat_table", hide_index=True, column_config={
            t(f"hd_repeat_{col}"): st.column_config.NumberColumn(format="%.4f") for col in ("gap_off", "gap_on")})
        now = t("hd_repeat_now_" + ("on" if s.positional else "off"))
        st.caption(now + (t("hd_repeat_causal") if s.causal else ""))
    else:
        st.info(t("hd_repeat_none"))
        if st.button(t("hd_repeat_try", text=EXAMPLE_REPEAT), key="heads_try_repeat",
                     on_click=lambda: st.session_state.update(text=EXAMPLE_REPEAT, positional=False)):
            st.rerun()  # the sentence lives in the sidebar: rerun the whole app, not just this fragment
    st.subheader(t("hd_shuffle"))
    col1, col2, col3, _ = st.columns([3, 2, 2, 3], vertical_alignment="bottom")
    shuffle = int_input(t("hd_shuffle_seed"), "heads_shuffle", 0, MAX_SEED, 0, container=col1,
                        help=t("hd_shuffle_seed_help"))
    col2.button(t("hd_shuffle_button"), key="heads_shuffle_next", on_click=_shuffle, args=(1,), width="stretch")
    col3.button(t("hd_shuffle_reset"), key="heads_shuffle_reset", on_click=_shuffle, args=(0,), width="stretch",
                disabled=shuffle == 0)
    real = [i for i, tok in enumerate(view.tokens) if tok != PAD]  # the sentence itself, without padding
    labels = [view.labels[i] for i in real]
    if shuffle == 0 or len(real) < 2:
        st.caption(t("hd_shuffle_hint"))
        return
    checks = cached(heads.permutation_checks, spec, tuple(view.tokens[i] for i in real), int(shuffle), weights=weights)
    now = checks[s.positional]
    shuffled = [labels[i] for i in now.perm]
    st.markdown(t("hd_shuffled", text=escape_markdown(" ".join(shuffled))))
    verdict = {p: t("hd_moved" if ch.equivariant() else "hd_not_moved", err=ch.output_error)
               for p, ch in checks.items()}
    st.markdown(t("hd_shuffle_result", off=verdict[False], on=verdict[True]))
    if s.causal:
        st.caption(t("hd_shuffle_causal"))
    head = head_picker("heads_order_head", H)
    mats = [now.weights[head], now.shuffled_weights[head], now.put_back()[head]]
    titles = [t("hd_order_original"), t("hd_order_shuffled"), t("hd_order_back")]
    st.plotly_chart(figures.readable_ticks(hf.matrices_row(mats, titles, [labels, shuffled, labels],
                                                           [labels, shuffled, labels], cols=3, words=words,
                                                           top=weights_scale(mats).top)), key="heads_shuffle_chart")
    st.caption(t("hd_order_caption_" + ("on" if s.positional else "off")))
    if not square or len(real) < len(view.tokens):
        st.caption(t("hd_shuffle_self"))


SAME_PATTERN = 0.1  # seeds whose maps of a head differ by at most this (heads.seed_spread) show "the same pattern"


def about_key(section: str, c: HeadsInputs) -> str:
    """The key of the caption under the section picker. Seeds says what the seed changes for the weights in use:
    trained modules are not random patterns (#27: that text stood above four identical trained diagonals)."""
    if section == "seeds" and c.spec.source == "trained" and not c.weights.sha:
        return "hd_about_seeds_trained"
    return f"hd_about_{section}"


def _train_seeds(spec: ViewSpec, seed_values) -> bool:
    """Each seed's trained module, trained as a long run (``runs.trained_for_view``: progress in the page's language,
    outside the compute slots) before the maps are computed; a line says which seed trains. False: the queue is full
    (the message is on the page)."""
    from mha.weights.train import trained_key, trained_ready
    from mha.weights.view import train_steps

    line = st.empty()
    try:
        for n, seed in enumerate(seed_values, 1):
            one = dataclasses.replace(spec, seed=int(seed))
            if trained_ready(trained_key(one.task, one.d_model, one.num_heads, train_steps(one), one.seed)):
                continue
            line.caption("⏳ " + t("hd_seeds_training", seed=seed, n=n, total=len(seed_values)))
            if not runs.trained_for_view(one):
                return False
        return True
    finally:
        line.empty()


@st.fragment
def seeds(c: HeadsInputs) -> None:
    view, s, spec, words = c.view, c.s, c.spec, c.words
    weights, H, q_labels, k_labels = c.weights, c.H, c.q_labels, c.k_labels
    if spec.source == "pretrained":
        st.info(t("src_heads_seeds_pretrained"), icon="🧠")
        return
    trained = spec.source == "trained" and not weights.sha  # uploaded weights replace the trained ones
    if trained:
        st.caption(t("src_heads_seeds_trained"))
    head = head_picker("heads_seed_head", H)
    seed_values = heads.seed_list(s.seed, 4, MAX_SEED)
    if trained and not _train_seeds(spec, seed_values):
        return
    mats = cached(heads.seed_patterns, spec, tuple(seed_values), head, weights=weights)
    titles = [t("hd_seed_title", seed=v) for v in seed_values]
    st.plotly_chart(figures.readable_ticks(hf.matrices_row(list(mats), titles, [q_labels] * len(mats),
                                                           [k_labels] * len(mats), [view.allowed[head]] * len(mats),
                                                           cols=4, words=words, top=weights_scale(list(mats)).top)),
                    key="heads_seeds_chart")
    seed_tab = heads.seed_table(mats, seed_values, view.allowed[head], k_labels)
    table(seed_tab.rename(columns=lambda col: t(f"hd_col_{col}")), "heads_seed_table", hide_index=True, column_config={
        t(f"hd_col_{col}"): st.column_config.NumberColumn(format="%.3f") for col in ("entropy", "max_weight")})
    if weights.sha:  # the uploaded parameters stay; only the embeddings change with the seed
        st.caption(t("hd_seeds_custom"))
    elif trained:  # say what the picture shows: the same job in every seed, or not
        # past the training length no seed learned anything: compare what they learned (the first TRAIN_LEN queries)
        rows = TRAIN_LEN if long_for_training(view) else len(mats[0])
        spread = heads.seed_spread(mats[:, :rows], view.allowed[head][:rows])
        key = "hd_seeds_text_trained_same" if spread <= SAME_PATTERN else "hd_seeds_text_trained_differ"
        st.markdown(t(key, head=head, task=t(TASKS[spec.task].name_key), spread=f"{spread:.2f}"))
        if rows < len(mats[0]):
            st.caption("📏 " + t("hd_seeds_first_rows", train_len=TRAIN_LEN))
    else:  # random weights: the text about random, meaningless patterns belongs here only
        st.markdown(t("hd_seeds_text", head=head))
        st.info(t("hd_trained"), icon="🎓")


SECTIONS = dict(zip(SECTION_IDS, (measure, compare, ablate, queries_keys, order, seeds)))


@frame.page
def page() -> None:
    """Measure every head, compare two, switch some off, see q and k together, order and seeds."""
    st.title(t("hd_title"))
    intro = st.empty()  # the sizes, once the view is known
    section = section_picker()  # before the view: a link's section outlives a moment without a sentence
    view = current_view()
    if view is None:
        st.stop()
    s = settings()
    c = HeadsInputs.of(view, s, chart_words(), session_weights(s.d_model))
    intro.caption(t("hd_intro", n=c.Tq, num_heads=c.H, head_dim=view.head_dim))
    c.keep_choices_valid()  # num_heads or the sentence may have changed since a choice was made
    st.caption(t(about_key(section, c)))
    SECTIONS[section](c)
