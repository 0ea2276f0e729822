"""The Playground's first screen shows structure (#27 point 2): on random weights one line says why the heads look
pale, with the numbers of this view, and one click gives trained heads; each head's output is one click beside the
weights and scores (``matrix=head_outputs``); Home offers the guided path first."""
from __future__ import annotations

import numpy as np
from harness.apptest import canvas_charts, canvas_values, charts_by_key, component_names, decode, open_page

from mha.core import i18n
from mha.weights.view import DEFAULT_TEXT, ViewSpec, run_view

PAGE = "pages/playground.py"


def _note(at) -> list[str]:
    start = "🎲 " + i18n.text("pg_random_note", "en", top="", even="").split("(")[0]
    return [c.value for c in at.caption if c.value.startswith(start)]


def test_random_heads_say_why_they_look_pale_with_this_views_numbers():
    at = open_page(PAGE)
    assert not at.exception
    view = run_view(ViewSpec(text=DEFAULT_TEXT))
    top = view.weights.max(axis=-1).mean()
    even = 1 / len(view.tokens)
    assert _note(at) == ["🎲 " + i18n.text("pg_random_note", "en", top=f"{top:.2f}", even=f"{even:.2f}")]
    assert top < 0.5  # pale: no head puts most of a row on one key


def test_one_click_switches_to_trained_heads():
    at = open_page(PAGE)
    at.button(key="pg_to_trained").click().run()
    assert not at.exception
    assert at.query_params.get("source") in ("trained", ["trained"])
    assert not _note(at) and not [b for b in at.button if b.key == "pg_to_trained"]
    grid = canvas_charts(at)["grid"]
    trained = run_view(ViewSpec(text=DEFAULT_TEXT, source="trained", task="previous"))
    assert trained.weights.max(axis=-1).mean() > 0.5  # now some head does something
    np.testing.assert_allclose(canvas_values(grid), trained.weights, rtol=0, atol=1e-5)


def test_trained_or_uploaded_weights_get_no_random_note():
    assert not _note(open_page(PAGE, source="trained"))


def test_each_heads_output_is_one_click_beside_weights_and_scores():
    at = open_page(PAGE)
    choice = at.segmented_control(key="matrix_shown")
    assert choice.options[2] == i18n.text("pg_matrix_outputs", "en")  # the third button, beside the two
    at = open_page(PAGE, matrix="head_outputs", d_model="32", num_heads="8")
    assert not at.exception
    charts = charts_by_key(at)
    assert "pg_head_outputs_grid" in charts and "grid" not in canvas_charts(at)
    view = run_view(ViewSpec(text=DEFAULT_TEXT, d_model=32, num_heads=8))
    shown = [decode(tr["z"]).astype(float) for tr in charts["pg_head_outputs_grid"]["data"] if tr["type"] == "heatmap"]
    np.testing.assert_allclose(np.stack(shown), view.head_outputs, rtol=0, atol=1e-5)
    assert "mha_head_view" in component_names(at)  # the head view below still shows the weights


def test_the_old_fold_link_still_opens_the_head_outputs():
    """Links made when the outputs were folds (``show_head_outputs``, ``show_output``) open the outputs, and the
    page names no unknown parameter: it still understands them."""
    for old in ("show_head_outputs", "show_output"):
        at = open_page(PAGE, {old: "true"})
        assert not at.exception and {"head_outputs", "output"} <= set(charts_by_key(at))
        assert at.session_state["look"] == "outputs"
        assert not any(old in c.value for c in at.sidebar.caption), [c.value for c in at.sidebar.caption]
    at = open_page(PAGE, show_output="false")  # a fold the link closed: the default closer look
    assert at.session_state["look"] == "lines" and "output" not in charts_by_key(at)


def test_home_offers_the_guided_path_first():
    for lang in ("en", "ko"):
        at = open_page(lang=lang)
        links = [link.proto.page for link in at.main.get("page_link")]
        assert links and "course" in links[0], links
        assert at.subheader[0].value == i18n.text("home_course_title", lang)
