"""Words inside charts follow the language: every figure builder takes ``words=`` (``figures.Words``), the pages
pass ``widgets.chart_words()``, and a Korean page shows no English chart word (while the English page does).

The English chart words checked are the literal parts of every ``Words`` field's English text, matched as whole
words: "head" is caught in "head 0" but not in the identifier "head_dim", "weight" not in "weights".
"""
from __future__ import annotations

import dataclasses
import inspect
import re
import string

import numpy as np
import pytest
from harness.apptest import FOLDED, LOOKS, all_open, charts_by_key, open_page

from mha.app import compute, widgets
from mha.app.pages import PAGES
from mha.charts import explain as xf
from mha.charts import figures
from mha.charts import heads as hf
from mha.charts import neuron as nf
from mha.core import i18n
from mha.lessons import explain, heads
from mha.lessons.bugs import BUG_NAMES
from mha.weights.view import ViewSpec, run_view

HANGUL = re.compile(r"[\uac00-\ud7a3]")
EN = figures.Words()
KO = widgets._chart_words("ko")
HOSTILE = "<b>x</b>"  # a token Plotly would render as bold if it were not escaped
FIELDS = [f.name for f in dataclasses.fields(figures.Words)]


def _literal_parts(template: str) -> list[str]:
    """'rest ({n})' -> ['rest (', ')'] -> the parts holding letters: ['rest (']."""
    parts = [lit.strip() for lit, *_ in string.Formatter().parse(template)]
    return [p for p in parts if re.search(r"[A-Za-z]", p)]


ENGLISH_WORDS = sorted({p for name in FIELDS for p in _literal_parts(getattr(EN, name))}, key=len, reverse=True)
ENGLISH_RE = re.compile("|".join(rf"(?<![A-Za-z_]){re.escape(w)}(?![A-Za-z_])" for w in ENGLISH_WORDS))
TEXT_KEYS = {"text", "hovertemplate", "texttemplate", "ticktext"}


def shown_text(spec: dict) -> list[str]:
    """Every string a chart shows: titles, annotations, axis and colour-bar titles, hover and cell text, category
    labels along the axes, and legend names (of traces that have a legend entry). The Plotly template is skipped."""
    out: list[str] = []

    def strings(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, list):
            for e in v:
                strings(e)

    def walk(v, key=None):
        if isinstance(v, dict):
            for k, sub in v.items():
                if k == "template":
                    continue
                if k in TEXT_KEYS or (k == "title" and isinstance(sub, str)):
                    strings(sub)
                walk(sub, k)
        elif isinstance(v, list):
            for e in v:
                walk(e, key)

    for trace in spec.get("data", []):
        walk(trace)
        for axis in ("x", "y"):
            if isinstance(trace.get(axis), list):
                strings(trace[axis])
        if trace.get("showlegend") is not False and trace.get("type") not in ("heatmap",) and trace.get("name"):
            out.append(trace["name"])
    walk(spec.get("layout", {}))
    return out


def english_in(spec: dict) -> set[str]:
    return {m.group(0) for s in shown_text(spec) for m in ENGLISH_RE.finditer(s)}


# ------------------------------------------------------------------------------------------------ the catalog


def test_every_field_has_a_catalog_entry_whose_english_is_the_default_and_whose_korean_is_korean():
    """The English is written once, in the catalog: ``Words``' defaults read it (a field naming another field's entry,
    or a catalog word no field shows, fails here)."""
    keys = {k for k in i18n.CATALOG if k.startswith("ch_")}
    assert keys == {f"ch_{name}" for name in FIELDS}
    for name in FIELDS:
        assert i18n.text(f"ch_{name}", "en") == getattr(EN, name), name
        assert HANGUL.search(getattr(KO, name)), f"ch_{name} has no Korean: {getattr(KO, name)!r}"
    assert widgets._chart_words("en") == EN


def test_a_chart_word_missing_from_the_catalog_is_refused_with_where_to_add_it():
    with pytest.raises(KeyError, match=r"'ch_nope'.*mha/strings/charts.py"):
        figures._en("nope")
    assert figures._en("head") == "head" == EN.head  # what a default is made from


def test_words_are_hashable_and_the_code_names_are_kept():
    assert hash(KO) != hash(EN) and KO != EN
    # colour bars and hover name weights, scores, outputs and concat in the page's language (#16 item 10); maths stays
    assert (KO.kind("weights"), KO.kind("scores"), KO.kind("output")) == ("가중치", "점수", "출력")
    assert (KO.kind("head_outputs"), KO.kind("concat")) == ("헤드 출력", "이어 붙인 헤드")
    assert EN.kind("weights") == "weights" and KO.kind("QKᵀ") == "QKᵀ" and KO.kind("x") == "x"
    assert KO.kind("query") == KO.query and KO.kind("difference") == KO.difference
    assert EN.kind("key") == "key"


# ------------------------------------------------------------------------------------------------ every builder

VIEW = run_view(ViewSpec(text="the cat saw the dog", d_model=32, num_heads=2, causal=True))
H, T = VIEW.num_heads, len(VIEW.tokens)
LABELS = ["the", "cat", HOSTILE, "the", "dog"]  # as one token (the tokenizer would split it)
W, S, A = VIEW.weights, VIEW.scores, VIEW.allowed
BREAKDOWN = explain.cell_breakdown(VIEW, 1, 3, 1)  # head_dim 16 > TOP_K: the waterfall has a "rest" bar
STATS = heads.head_stats(W, A)
PROJ = heads.qk_pca(VIEW.q[0], VIEW.k[0])
ROWS = {"a": explain.row_stats(W[0], A[0]), "b": explain.row_stats(W[1], A[1])}
SWEEP = explain.head_dim_sweep((4, 8), n_tokens=4, n_samples=4)

# builder -> how to call it with only data (every word left to ``words``)
BUILDERS = {
    figures.heads_grid: lambda w: figures.heads_grid(W, LABELS, LABELS, allowed=A, words=w),
    figures.head_heatmap: lambda w: figures.head_heatmap(S[0], LABELS, LABELS, kind="scores", head=0, words=w),
    figures.features_heatmap: lambda w: figures.features_heatmap(VIEW.x, LABELS, kind="embedding", words=w),
    figures.head_outputs_grid: lambda w: figures.head_outputs_grid(VIEW.head_outputs, LABELS, words=w),
    figures.mask_heatmap: lambda w: figures.mask_heatmap(A[0], LABELS, LABELS, words=w),
    figures.masked_scores_heatmap: lambda w: figures.masked_scores_heatmap(S[0], A[0], LABELS, LABELS, words=w),
    xf.matrix: lambda w: xf.matrix(W[1], LABELS, LABELS, allowed=A[1], head=1, clickable=True, words=w),
    xf.banded_features: lambda w: xf.banded_features(VIEW.concat, LABELS, H, words=w),
    xf.split_heads_figure: lambda w: xf.split_heads_figure(VIEW.x, VIEW.q, LABELS, words=w),
    xf.attention_bar: lambda w: xf.attention_bar(W[0, 2], A[0, 2], LABELS, highlight=1, words=w),
    xf.cell_vectors: lambda w: xf.cell_vectors(BREAKDOWN.q, BREAKDOWN.k, BREAKDOWN.products, words=w),
    xf.contributions_waterfall: lambda w: xf.contributions_waterfall(BREAKDOWN.contributions(), BREAKDOWN.raw,
                                                                     words=w),
    xf.weights_pair: lambda w: xf.weights_pair(W[0], W[1], LABELS, LABELS, allowed=A[0], words=w),
    xf.row_stats_figure: lambda w: xf.row_stats_figure(LABELS, ROWS, words=w),
    xf.sweep_figure: lambda w: xf.sweep_figure(SWEEP, 6, words=w),
    hf.stats_chart: lambda w: hf.stats_chart({"entropy": STATS.entropy_mean, "max_weight": STATS.max_weight},
                                             {"entropy": "α", "max_weight": "β"}, words=w),
    hf.entropy_heatmap: lambda w: hf.entropy_heatmap(STATS.entropy, STATS.valid, LABELS, 3.0, words=w),
    hf.similarity_heatmap: lambda w: hf.similarity_heatmap(heads.head_similarity(W, "js"), "js", (0, 1), words=w),
    hf.pair_figure: lambda w: hf.pair_figure(W[0], W[1], LABELS, LABELS, ["", "", ""], A[0], words=w),
    hf.change_chart: lambda w: hf.change_chart(np.ones(T), np.full(T, 2.0), LABELS, words=w),
    hf.contributions_heatmap: lambda w: hf.contributions_heatmap(np.ones((H, T)), LABELS, (1,), words=w),
    hf.qk_figure: lambda w: hf.qk_figure(PROJ.q2, PROJ.k2, LABELS, LABELS, 2, [0, 1], W[0, 2], words=w),
    nf.neuron_view: lambda w: nf.neuron_view(VIEW.q[1, 3], VIEW.k[1], S[1, 3], W[1, 3], LABELS, query_label=HOSTILE,
                                             allowed=A[1, 3], highlight=1, words=w),
    hf.matrices_row: lambda w: hf.matrices_row([W[0], W[1]], ["", ""], [LABELS] * 2, [LABELS] * 2, list(A),
                                               words=w),
}


def _public_builders():
    for mod in (figures, xf, hf, nf):
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ == mod.__name__ and not name.startswith("_") and \
                    inspect.signature(fn).return_annotation in ("go.Figure", "Figure"):
                yield fn


def test_every_figure_builder_takes_words_and_is_checked_here():
    found = set(_public_builders())
    assert found == set(BUILDERS), f"builders not checked here: {found - set(BUILDERS)}"
    for fn in found:
        param = inspect.signature(fn).parameters.get("words")
        assert param is not None and param.default == EN, f"{fn.__qualname__} has no words=ENGLISH"


@pytest.mark.parametrize("builder", list(BUILDERS), ids=lambda f: f.__qualname__)
def test_korean_words_leave_no_english_in_a_chart_and_tokens_stay_escaped(builder):
    en, ko = (json_spec(BUILDERS[builder](w)) for w in (EN, KO))
    assert english_in(en), "the English chart has no chart word: this check could not fail"
    assert not english_in(ko), f"English in the Korean chart: {sorted(english_in(ko))}"
    assert any(HANGUL.search(s) for s in shown_text(ko))
    for spec in (en, ko):  # the hostile token is shown as text, never as bold markup
        assert not any(HOSTILE in s for s in shown_text(spec))


def json_spec(fig) -> dict:
    import json

    return json.loads(fig.to_json())


def test_english_and_korean_figures_are_separate_cache_entries():
    compute.FIGURES.clear()
    try:
        en = compute.cached_figure(figures.heads_grid, W, LABELS, LABELS, kind="weights",
                                   words=widgets._chart_words("en"))
        ko = compute.cached_figure(figures.heads_grid, W, LABELS, LABELS, kind="weights",
                                   words=widgets._chart_words("ko"))
        assert ko is not en
        assert [a.text for a in en.layout.annotations] == [f"head {h}" for h in range(H)]
        assert [a.text for a in ko.layout.annotations] == [f"헤드 {h}" for h in range(H)]
        again = compute.cached_figure(figures.heads_grid, W.copy(), LABELS, LABELS, kind="weights",
                                 words=dataclasses.replace(KO))  # equal content, another object: the same entry
        assert again is ko
    finally:
        compute.FIGURES.clear()


# ------------------------------------------------------------------------------------------------ every page

KO_TEXT = "오렌지는 내가 좋아하는 과일이다"  # Korean tokens: any English in a Korean chart is the app's own
# extra URL parameters that bring out more charts: the word-order chart; a bug shown on the outputs (bug, correct,
# difference) besides the default one (the seed bug's head-by-head chart); every folded section open
EXTRA = {"pages/heads.py": {"heads_shuffle": "1"}, **{page: all_open(page) for page in FOLDED}}
OUTPUT_BUG = "combine_heads_no_permute"
CASES = [(page, EXTRA.get(page, {})) for page, _, _ in PAGES] + [("pages/bugs.py", {"bz_bug": OUTPUT_BUG})] + [
    (page, look) for page, looks in LOOKS.items() for look in looks[1:]] + [  # the Playground's outputs
    ("pages/heads.py", {"hd_section": section, **EXTRA["pages/heads.py"]})  # the Heads page draws its open section
    for section in ("compare", "ablate", "qk", "order", "seeds")]


@pytest.mark.parametrize("page,params", CASES, ids=lambda c: c if isinstance(c, str) else ",".join(c) or "-")
def test_korean_pages_show_no_english_chart_word(page, params):
    assert params.get("bz_bug", OUTPUT_BUG) in BUG_NAMES
    ko = open_page(page, lang="ko", text=KO_TEXT, **params)
    en = open_page(page, lang="en", text=KO_TEXT, **params)
    assert not ko.exception and not en.exception
    ko_charts, en_charts = charts_by_key(ko), charts_by_key(en)
    assert set(ko_charts) == set(en_charts)  # the same charts in both languages
    for key, spec in ko_charts.items():
        assert not english_in(spec), f"{page} chart {key!r} in Korean shows {sorted(english_in(spec))}"
    if en_charts:  # the check can fail: the English page shows English chart words
        assert set().union(*(english_in(s) for s in en_charts.values()))
