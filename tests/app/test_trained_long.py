"""Trained heads on a sentence longer than their training sequences (#27.3): they learned on ``TRAIN_LEN``-token
sequences and look in the wrong place past them. Every page that draws the view says so next to its charts, and
the Heads page's pattern table scores the first ``TRAIN_LEN`` queries beside the whole sentence."""
from __future__ import annotations

import numpy as np
import pytest
from harness.apptest import open_page

from mha.core.i18n import text as tr
from mha.lessons import heads
from mha.weights.train import TRAIN_LEN, pattern_matrix
from mha.weights.view import ViewSpec, run_view

LONG = " ".join(f"w{i}" for i in range(38))  # 38 distinct tokens
SHORT = " ".join(f"w{i}" for i in range(TRAIN_LEN))
TRAINED = dict(source="trained", task="previous", d_model="32", num_heads="4")


def _notes(at) -> str:
    return " ".join(str(e.value) for kind in ("warning", "caption", "info", "markdown") for e in getattr(at, kind))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_playground_says_the_sentence_is_longer_than_training(lang):
    at = open_page("pages/playground.py", text=LONG, lang=lang, **TRAINED)
    assert not at.exception
    assert tr("src_trained_long", lang, n=38, train_len=TRAIN_LEN) in [w.value for w in at.warning]


def test_no_such_note_for_a_short_sentence_or_random_weights():
    short = open_page("pages/playground.py", text=SHORT, **TRAINED)
    random = open_page("pages/playground.py", text=LONG)
    for at in (short, random):
        assert not at.exception
        assert not any("trained heads learned on sequences" in w.value for w in at.warning)


def test_heads_scores_the_first_tokens_beside_the_whole_sentence():
    at = open_page("pages/heads.py", text=LONG, hd_section="measure", **TRAINED)
    assert not at.exception
    assert tr("hd_names_long", "en", n=38, train_len=TRAIN_LEN) in _notes(at)
    table = [d.value for d in at.dataframe if tr("src_col_pattern", "en") in d.value.columns][0]
    first = tr("hd_col_score_first", "en", train_len=TRAIN_LEN)
    # independently: a one-key pattern's score on a row is the weight on that key
    view = run_view(ViewSpec(text=LONG, d_model=32, num_heads=4, source="trained", task="previous"))
    patterns = heads.head_patterns(view)["pattern"]  # which pattern each head matches (not what is tested here)
    checked = 0
    for head, (pattern, shown) in enumerate(zip(patterns, table[first])):
        if pattern == "spread":
            continue
        keys = pattern_matrix(pattern, 38).argmax(axis=-1)
        assert shown == pytest.approx(np.mean([view.weights[head, q, keys[q]] for q in range(TRAIN_LEN)]), abs=1e-6)
        checked += 1
    assert checked >= 1
    # trained "previous" heads do their job on the first tokens far better than over the whole sentence
    assert table[first].max() > table[tr("src_col_score", "en")].max()


def test_score_first_is_absent_unless_asked():
    view = run_view(ViewSpec(text=LONG, d_model=32, num_heads=4, source="trained", task="previous"))
    assert "score_first" not in heads.head_patterns(view).columns
    found = heads.head_patterns(view, TRAIN_LEN)
    assert found["score_first"].between(0, 1).all()


def test_row_scores_checks_shapes_and_leaves_masked_rows_out():
    eye = np.eye(3)
    np.testing.assert_allclose(heads.row_scores(eye, eye), [1, 1, 1])
    allowed = np.array([[True, False, False], [False, False, False], [True, True, True]])
    out = heads.row_scores(eye, np.roll(eye, 1, axis=1), allowed)
    assert out[0] == 0 and np.isnan(out[1]) and out[2] == 0
    with pytest.raises(ValueError, match="must be the same"):
        heads.row_scores(eye, np.eye(4))


def test_seeds_on_a_long_sentence_compare_what_the_heads_learned():
    """Past the training length each seed's head looks somewhere else: the seeds' verdict is measured on the first
    TRAIN_LEN queries (there the four trained 'previous' heads agree), and a line says so."""
    at = open_page("pages/heads.py", text=LONG, hd_section="seeds", heads_seed_head="0", **TRAINED)
    assert not at.exception
    shown = _notes(at)
    assert tr("hd_seeds_first_rows", "en", train_len=TRAIN_LEN) in shown
    maps = np.stack([run_view(ViewSpec(text=LONG, d_model=32, num_heads=4, seed=s, source="trained",
                                       task="previous")).weights[0] for s in range(4)])
    first = float(max(np.abs(m[:TRAIN_LEN] - maps[0][:TRAIN_LEN]).sum(axis=-1).mean() / 2 for m in maps[1:]))
    key = "hd_seeds_text_trained_same" if first <= 0.1 else "hd_seeds_text_trained_differ"
    assert tr(key, "en", head=0, task=tr("tr_task_name_previous", "en"), spread=f"{first:.2f}") in shown
