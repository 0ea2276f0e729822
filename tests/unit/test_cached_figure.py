"""compute.cached_figure: a figure is built once per distinct input and is never another input's figure."""
import numpy as np
import pytest

from mha.app import compute
from mha.charts import figures

LABELS = ["the", "cat", "saw", "the"]


@pytest.fixture(autouse=True)
def empty_cache():
    compute.FIGURES.clear()
    yield
    compute.FIGURES.clear()


def weights(seed: int = 0) -> np.ndarray:
    w = np.random.default_rng(seed).random((2, 4, 4)).astype(np.float32)  # (H, Tq, Tk)
    return w / w.sum(-1, keepdims=True)


def test_equal_content_is_built_once_even_from_other_array_objects():
    first = compute.cached_figure(figures.heads_grid, weights(), LABELS, LABELS, kind="weights")
    again = compute.cached_figure(figures.heads_grid, weights().copy(), list(LABELS), list(LABELS), kind="weights")
    assert again is first


def test_one_changed_number_gives_a_new_figure_with_that_number():
    w = weights()
    first = compute.cached_figure(figures.heads_grid, w, LABELS, LABELS, kind="weights")
    changed = w.copy()
    changed[1, 3, 2] += 0.25
    second = compute.cached_figure(figures.heads_grid, changed, LABELS, LABELS, kind="weights")
    assert second is not first
    assert np.asarray(second.data[1].z)[3, 2] == pytest.approx(changed[1, 3, 2])
    assert np.asarray(first.data[1].z)[3, 2] == pytest.approx(w[1, 3, 2])


@pytest.mark.parametrize("change", [
    dict(labels=["the", "cat", "saw", "a"]),  # a label
    dict(kind="scores"),  # a keyword argument
    dict(allowed=np.tril(np.ones((2, 4, 4), dtype=bool))),  # a mask
])
def test_every_argument_is_part_of_the_key(change):
    base = dict(labels=LABELS, kind="weights", allowed=None)
    args = {**base, **change}
    first = compute.cached_figure(figures.heads_grid, weights(), LABELS, LABELS, kind="weights", allowed=None)
    other = compute.cached_figure(figures.heads_grid, weights(), args["labels"], args["labels"], kind=args["kind"],
                             allowed=args["allowed"])
    assert other is not first


def test_the_builder_is_part_of_the_key():
    m = weights()[0]
    heat = compute.cached_figure(figures.head_heatmap, m, LABELS, LABELS, clickable=False)
    feat = compute.cached_figure(figures.features_heatmap, m, LABELS)
    assert heat is not feat
    assert heat.layout.xaxis.title.text != feat.layout.xaxis.title.text


def test_words_are_keyed_by_their_content():
    english = figures.Words()
    other = figures.Words(head="헤드")
    assert compute.fingerprint(figures.Words()) == compute.fingerprint(english)
    assert compute.fingerprint(other) != compute.fingerprint(english)
    # swapped fields
    assert compute.fingerprint(figures.Words(query="key", key="query")) != compute.fingerprint(english)
    first = compute.cached_figure(figures.heads_grid, weights(), LABELS, LABELS, words=english)
    assert compute.cached_figure(figures.heads_grid, weights(), LABELS, LABELS, words=figures.Words()) is first
    translated = compute.cached_figure(figures.heads_grid, weights(), LABELS, LABELS, words=other)
    assert translated is not first
    assert translated.layout.annotations[0].text == "헤드 0"


def test_a_dataclass_is_not_the_same_key_as_a_tuple_of_its_fields():
    from mha.lessons.explain import Contributions
    c = Contributions((0, 1), (0.5, -0.25), 0.0, 0)
    assert compute.fingerprint(c) == compute.fingerprint(Contributions((0, 1), (0.5, -0.25), 0.0, 0))
    assert compute.fingerprint(c) != compute.fingerprint(Contributions((0, 1), (0.5, -0.5), 0.0, 0))
    assert compute.fingerprint(c) != compute.fingerprint(((0, 1), (0.5, -0.25), 0.0, 0))
