"""Follow the course (#27 point 1): every step renders in English and Korean with its chart, the step is in the link,
Back / Next move it, each step asks first and reveals the module's answer, and the mask step's "cheating" numbers
are the module's own (worked out again here from the views, never written in)."""
from __future__ import annotations

import urllib.parse

import numpy as np
import pytest
import torch
from harness.apptest import canvas_charts, canvas_values, charts_by_key, decode, open_page, table

from mha.app.pages import PAGES
from mha.core import i18n
from mha.lessons import course
from mha.weights.view import run_view

PAGE = "pages/course.py"
KOREAN = "나는 오늘 학교에서 친구와 맛있는 점심을 먹었다"

# what each step shows once revealed: (Plotly chart keys, canvas heatmap keys)
CHARTS = {
    "qkv": ({"co_cell_vectors", "co_cell_sum", "co_cell_row"}, {"co_qkv_scores"}),
    "softmax": ({"co_course_row", "co_your_row"}, set()),
    "scale": ({"co_scale_pair", "co_scale_sweep"}, set()),
    "mask": (set(), {"co_mask_free", "co_mask_masked"}),
    "heads": ({"co_head_outputs", "co_concat"}, set()),
    "several": (set(), {"co_several_one", "co_several_two"}),
    "trained": (set(), {"co_trained_grid"}),
}


def _reveal(at, step: str, guess: int | None = None):
    if guess is not None:
        box = at.radio(key=f"co_guess_{step}")
        box.set_value(box.options[guess])
    at.button(key=f"co_reveal_{step}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _step_shown(at) -> int:
    return int(at.header[0].value.split("·")[0])


def test_the_course_is_registered_first_after_home():
    assert PAGES[1][0] == PAGE
    assert set(CHARTS) == set(course.STEPS) and 6 <= len(course.STEPS) <= 8


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("number", range(1, len(course.STEPS) + 1))
def test_every_step_renders_with_its_chart(number, lang):
    step = course.step_id(number)
    at = open_page(PAGE, {"step": str(number), "lang": lang})
    assert not at.exception, [e.value for e in at.exception]
    assert _step_shown(at) == number
    assert at.header[0].value.endswith(i18n.text(f"co_step_{step}", lang))
    assert at.radio(key=f"co_guess_{step}").options  # something to predict before the answer
    _reveal(at, step)
    plotly, canvas = CHARTS[step]
    assert plotly <= set(charts_by_key(at)), (step, sorted(charts_by_key(at)))
    assert canvas <= set(canvas_charts(at)), (step, sorted(canvas_charts(at)))
    for payload in canvas_charts(at).values():
        if payload.get("values") is not None:
            assert np.isfinite(canvas_values(payload)).all()


def test_the_step_is_in_the_link_and_back_next_move_it():
    at = open_page(PAGE, {"step": "3"})
    assert _step_shown(at) == 3
    at.button(key="co_next").click().run()
    assert _step_shown(at) == 4 and at.query_params.get("step") in ("4", ["4"])
    at.button(key="co_back").click().run()
    at.button(key="co_back").click().run()
    assert _step_shown(at) == 2 and at.query_params.get("step") in ("2", ["2"])
    at.button(key="co_back").click().run()
    assert _step_shown(at) == 1 and at.button(key="co_back").disabled  # no step before the first
    last = open_page(PAGE, {"step": str(len(course.STEPS))})
    assert _step_shown(last) == len(course.STEPS) and last.button(key="co_next").disabled


@pytest.mark.parametrize("given", ["0", "99", "two", ""])
def test_a_step_the_course_does_not_have_opens_the_first(given):
    at = open_page(PAGE, {"step": given})
    assert not at.exception and _step_shown(at) == 1


def test_predict_then_reveal_with_the_modules_answer():
    at = open_page(PAGE, {"text": KOREAN})
    assert "co_qkv_scores" not in canvas_charts(at)  # the answer is not shown before the learner asks
    view = run_view(course.step_specs("qkv", KOREAN)["main"])
    n = len(view.tokens)
    head = course.best_head(view.weights, "previous")
    right = int(np.argmax(view.scores[head, n - 1]))  # the last word's highest score: its previous word
    assert right == n - 2  # a head trained on "previous" does what it was trained for
    _reveal(at, "qkv", guess=right)
    assert len(at.success) == 1 and not at.warning
    shown = canvas_values(canvas_charts(at)["co_qkv_scores"])[0]
    np.testing.assert_allclose(shown, view.scores[head], rtol=0, atol=1e-5)

    wrong = open_page(PAGE, {"text": KOREAN})
    _reveal(wrong, "qkv", guess=0)
    assert not wrong.success and len(wrong.warning) == 1


def test_the_keys_are_numbered_from_0_as_the_token_pickers_and_pytorch():
    at = open_page(PAGE, {"text": KOREAN})
    options = at.radio(key="co_guess_qkv").options
    assert [o.split(": ", 1)[0] for o in options] == [str(j) for j in range(len(options))]
    at = _reveal(open_page(PAGE, {"step": "2", "text": KOREAN}), "softmax")
    keys = list(table(at, "co_softmax_table").iloc[:, 0])
    assert [k.split(": ", 1)[0] for k in keys] == [str(j) for j in range(len(keys))]


def _order(at) -> list[str]:
    """The keys of the predict boxes' radios and of the charts, in the order the page draws them."""
    out = []
    for node in at.main:
        if node.type == "radio":
            out.append(node.key)
        elif node.type == "plotly_chart" or (node.type == "bidi_component"
                                             and node.proto.component_name == "mha_heatmaps"):
            out.append(node.proto.id.split("-", 2)[-1])  # the key given to the chart (as charts_by_key reads it)
    return out


ANSWERS = {step: (plotly | canvas) - {"co_mask_free"} for step, (plotly, canvas) in CHARTS.items()}  # the mask
# step shows the head without the mask first: the question is what the mask does to it


@pytest.mark.parametrize("number", range(1, len(course.STEPS) + 1))
def test_every_step_asks_before_it_shows_the_answer(number):
    """Each step's question comes first; the charts that answer it are drawn only after **Show the answer**, below
    the question (step 7 drew its four trained heads, which say which head reads the first word, above it)."""
    step = course.step_id(number)
    at = open_page(PAGE, {"step": str(number), "text": KOREAN, "lang": "ko"})
    drawn = set(charts_by_key(at)) | set(canvas_charts(at))
    assert not ANSWERS[step] & drawn, (step, sorted(ANSWERS[step] & drawn))
    _reveal(at, step)
    order = _order(at)
    guess = order.index(f"co_guess_{step}")
    beside = {"co_mask_masked"}  # the mask step's answer joins the map above it, side by side, once revealed
    assert ANSWERS[step] - beside <= set(order[guess + 1:]), (step, order)
    assert ANSWERS[step] <= set(order), (step, order)


def test_the_mask_step_shows_the_cheating_in_the_modules_numbers():
    at = open_page(PAGE, {"step": "4", "text": KOREAN, "lang": "ko"})
    _reveal(at, "mask", guess=2)
    assert len(at.success) == 1  # "exactly 0" is the module's answer
    free = run_view(course.step_specs("mask", KOREAN)["free"])
    masked = run_view(course.step_specs("mask", KOREAN)["masked"])
    n = len(free.tokens)
    head = course.best_head(free.weights, "next")
    rows = np.arange(n - 1)
    # the page's two maps are that head's weights without and with the causal mask
    shown_free = canvas_values(canvas_charts(at)["co_mask_free"])[0]
    shown_masked = canvas_values(canvas_charts(at)["co_mask_masked"])[0]
    np.testing.assert_allclose(shown_free, free.weights[head], rtol=0, atol=1e-5)
    np.testing.assert_allclose(shown_masked, masked.weights[head], rtol=0, atol=1e-5)
    assert (shown_free[rows, rows + 1] > 0.5).all()  # without the mask it reads the answer ...
    assert (shown_masked[rows, rows + 1] == 0).all()  # ... with it, it cannot
    metrics = {m.label: m.value for m in at.metric}
    weight = metrics[i18n.text("co_mask_metric_weight", "ko")]
    assert float(weight) == 0.0
    # the share of the next word in the output, worked out here from the module's output and inputs
    w = free.spec.d_model // 2
    target = free.x[1:n, :w].astype(np.float64)
    share = lambda v: 1 - ((v.output[: n - 1, :w] - target) ** 2).sum() / (target ** 2).sum()  # noqa: E731
    assert share(free) > 0.8 > 0.2 > share(masked)
    assert metrics[i18n.text("co_mask_metric_copied", "ko")] == f"{max(share(masked), 0) * 100:.0f}%"


def test_the_several_heads_step_answers_from_the_trained_modules():
    at = open_page(PAGE, {"step": "6"})
    one = run_view(course.step_specs("several", "Orange is my favorite fruit")["one"])
    # one head cannot put most of a row on the previous and on the next word at once
    both = course.slot_weights(one)
    assert min(both.values()) < 0.5 < max(both.values())
    _reveal(at, "several", guess=1)  # "no"
    assert len(at.success) == 1


# ------------------------------------------------------------------------------------------- pure parts


def test_the_courses_softmax_row_comes_back_from_its_scores():
    row = course.course_row()
    np.testing.assert_allclose(row.weights, course.COURSE_WEIGHTS, rtol=0, atol=1e-12)
    again = torch.nn.functional.softmax(torch.tensor(row.scores) + 3.0, dim=-1).numpy()  # a constant cancels
    np.testing.assert_allclose(again, row.weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(row.exps / row.total, row.weights, rtol=0, atol=1e-12)


def test_cheating_is_read_from_the_views():
    specs = course.step_specs("mask", "the cat saw the dog")
    c = course.cheating(run_view(specs["free"]), run_view(specs["masked"]))
    assert c.weight_next_masked == 0.0 < 0.5 < c.weight_next_free
    assert c.copied_free > 0.8 and c.copied_masked < 0.2


def test_step_numbers_from_links():
    assert [course.step_number(v) for v in ("1", 7, "8", None, "x", -1)] == [1, 7, 1, 1, 1, 1]
    assert course.step_id(2) == "softmax"


def test_trained_steps_run_on_the_words_their_heads_were_trained_for():
    """Trained heads learned on sequences of TRAIN_LEN and look elsewhere beyond (#27.3): a long sentence's trained
    steps show its first TRAIN_LEN tokens, and say so; the random steps show it whole."""
    from mha.weights.train import TRAIN_LEN

    long = " ".join(f"w{i}" for i in range(30))
    at = open_page(PAGE, {"step": "4", "text": long})
    _reveal(at, "mask")
    assert canvas_charts(at)["co_mask_free"]["Tq"] == TRAIN_LEN
    assert i18n.text("co_long", "en", n=30, train_len=TRAIN_LEN) in [c.value for c in at.caption]
    c = course.cheating(*(run_view(s) for s in course.step_specs("mask", long).values()))
    assert c.weight_next_free > 0.9 and c.weight_next_masked == 0.0
    heads = open_page(PAGE, {"step": "5", "text": long})
    _reveal(heads, "heads")
    assert i18n.text("co_long", "en", n=30, train_len=TRAIN_LEN) not in [c.value for c in heads.caption]


def _playground_link(at) -> dict[str, str]:
    (button,) = [b for b in at.get("link_button")]
    url = button.proto.url
    assert url.startswith("playground?")
    return {k: v[0] for k, v in urllib.parse.parse_qs(url.split("?", 1)[1]).items()}


@pytest.mark.parametrize("step", ["trained", "mask"])
def test_open_this_in_the_playground_shows_the_steps_numbers(step):
    at = open_page(PAGE, {"step": str(course.STEPS.index(step) + 1), "text": KOREAN})
    specs = course.step_specs(step, KOREAN)
    spec = specs["masked"] if step == "mask" else specs["main"]
    params = _playground_link(at)
    focus = {"head": str(course.best_head(run_view(specs["free"]).weights, "next")), "look": "head"} \
        if step == "mask" else {}
    assert params == {"lang": "en", **course.playground_params(step, KOREAN), **focus}
    playground = open_page("pages/playground.py", params)
    assert not playground.exception
    np.testing.assert_allclose(canvas_values(canvas_charts(playground)["grid"]), run_view(spec).weights,
                               rtol=0, atol=1e-5)


def _enlarged(playground) -> tuple[int, int, int]:
    """The Playground's enlarged head and picked cell (query, key), as its one-head chart draws them."""
    payload = canvas_charts(playground)["one_head_chart"]
    return payload["heads"][0], *payload["selected"]


def test_step_1s_playground_link_opens_the_steps_head_and_cell():
    """Step 1 asks about one query of one head; its link opens the Playground on that head and query, and once the
    answer is shown on the cell it talks about (before: no key, the link does not tell the answer)."""
    view = run_view(course.step_specs("qkv", KOREAN)["main"])
    head = course.best_head(view.weights, "previous")
    qi = len(view.tokens) - 1
    kj = int(np.argmax(view.scores[head, qi]))
    at = open_page(PAGE, {"text": KOREAN, "lang": "ko"})
    before = _playground_link(at)
    assert (before["head"], before["cell_query"], before["matrix"]) == (str(head), str(qi), "scores")
    assert before["look"] == "head"  # the Playground's closer look: that head enlarged
    assert "cell_key" not in before
    _reveal(at, "qkv")
    params = _playground_link(at)
    assert (params["head"], params["cell_query"], params["cell_key"]) == (str(head), str(qi), str(kj))
    playground = open_page("pages/playground.py", params)
    assert not playground.exception
    assert _enlarged(playground) == (head, qi, kj)
    np.testing.assert_allclose(canvas_values(canvas_charts(playground)["one_head_chart"])[0], view.scores[head],
                               rtol=0, atol=1e-5)  # the step's scores, not another module's


def test_the_softmax_steps_link_opens_its_row():
    view = run_view(course.step_specs("softmax", KOREAN)["main"])
    head = course.best_head(view.weights, "previous")
    qi = len(view.tokens) - 1
    at = _reveal(open_page(PAGE, {"step": "2", "text": KOREAN}), "softmax")
    playground = open_page("pages/playground.py", _playground_link(at))
    assert _enlarged(playground) == (head, qi, int(np.argmax(view.weights[head, qi])))


def test_the_heads_steps_link_keeps_the_sidebars_module_and_sentence():
    """Step 5 runs random parameters of the sidebar's sizes and seed on the shown sentence: the Playground (a new
    tab, a new session) opens the same module on the same sentence."""
    text = "the cat saw the dog\n고양이가 개를 봤다"
    at = open_page(PAGE, {"step": "5", "text": text, "sentence": "1", "d_model": "32", "num_heads": "8",
                          "seed": "3"})
    params = _playground_link(at)
    assert {k: params[k] for k in ("d_model", "num_heads", "seed", "sentence")} == {
        "d_model": "32", "num_heads": "8", "seed": "3", "sentence": "1"}
    playground = open_page("pages/playground.py", params)
    assert not playground.exception
    spec = course.step_specs("heads", text, 1, d_model=32, num_heads=8, seed=3)["main"]
    # the step's link shows each head's output in the grid (matrix=head_outputs)
    grid = charts_by_key(playground)["pg_head_outputs_grid"]["data"]
    shown = np.stack([decode(tr["z"]).astype(float) for tr in grid if tr["type"] == "heatmap"])
    np.testing.assert_allclose(shown, run_view(spec).head_outputs, rtol=0, atol=1e-5)


@pytest.mark.parametrize("number", range(1, len(course.STEPS) + 1))
def test_a_hostile_sentence_stays_text_in_every_step(number):
    hostile = "**bold** [x](javascript:alert(1)) <b>b</b> $x^2$ :red[r]"
    at = open_page(PAGE, {"step": str(number), "text": hostile})
    step = course.step_id(number)
    _reveal(at, step)
    for option in at.radio(key=f"co_guess_{step}").options:
        assert "<b>" not in option and "](" not in option and "**b" not in option.replace("\\*", "")
    for md in at.markdown:
        assert "<b>b</b>" not in md.value and "[x](javascript" not in md.value


@pytest.mark.parametrize("text", ["", "   ", "\u200b"])
def test_no_sentence_gives_a_message_not_an_error(text):
    for number in range(1, len(course.STEPS) + 1):
        at = open_page(PAGE, {"step": str(number), "text": text})
        assert not at.exception, (number, [e.value for e in at.exception])
        assert [i.value for i in at.main.info] == [i18n.text("page_needs_text", "en")]


@pytest.mark.parametrize("params", [{"text": "hello"},
                                    {"text": "the cat saw the dog\n고양이가 개를 봤다", "sentence": "1"}])
def test_one_word_and_a_batch_open_every_step(params):
    for number in range(1, len(course.STEPS) + 1):
        at = open_page(PAGE, {"step": str(number), **params})
        step = course.step_id(number)
        if params["text"] == "hello" and step in ("mask", "several"):  # they need a next word
            assert [i.value for i in at.main.info] == [i18n.text("co_needs_two", "en")]
            continue
        _reveal(at, step)
        assert not at.exception, (number, [e.value for e in at.exception])


def test_a_new_sentence_asks_anew():
    at = open_page(PAGE, {"text": "the cat saw the dog"})
    _reveal(at, "qkv")
    assert "co_qkv_scores" in canvas_charts(at)
    at.text_area(key="text").set_value("나는 오늘 학교에서 점심을 먹었다").run()
    assert not at.exception and "co_qkv_scores" not in canvas_charts(at)  # hidden until asked again
    _reveal(at, "qkv")
    assert "co_qkv_scores" in canvas_charts(at)
