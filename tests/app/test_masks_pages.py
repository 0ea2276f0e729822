"""AppTest for issue 5: the batch / padding / cross-attention controls in the sidebar, the Masks page and the Bug
zoo page — every control, the numbers in their charts, no NaN in any chart for any mask — and every page of the
app with a batch and with cross-attention (Tq != Tk)."""
import re

import numpy as np
import pytest
from harness.apptest import (
    all_numbers_finite,
    canvas_charts,
    canvas_values,
    chart_specs,
    decode,
    heatmaps,
    link_params,
    open_page,
    sidebar_texts,
    table,
)
from streamlit.testing.v1 import AppTest

from mha.app.pages import PAGES
from mha.app.state import CUSTOM_WEIGHTS_KEY
from mha.core import i18n
from mha.core.attention import MultiHeadAttention
from mha.core.inputs import init_weights
from mha.lessons import bugs
from mha.weights.batch import PAD, decode_mask, encode_mask, sentence_mask
from mha.weights.view import ViewSpec, run_view

MASKS, BUGS = "pages/masks.py", "pages/bugs.py"
BATCH = "a b c d\ne f"  # sentence 1 is "e f [PAD] [PAD]"


def direct_link(page: str, **params) -> AppTest:
    """Open ``page`` the way a shared link does: the first run is already on that page, with these parameters."""
    at = open_page(page, **params)
    assert not at.exception, at.exception
    return at


def charts(at) -> dict:
    """{chart key: parsed spec}."""
    specs = chart_specs(at)
    return {el.key: specs[n] for n, el in enumerate(at.get("plotly_chart"))}


def frame(at, key: str):
    """A read-only table by its key, as pandas."""
    return table(at, key)


def texts(at) -> str:
    return "\n".join(e.value for kind in ("markdown", "caption", "info", "warning", "error")
                     for e in getattr(at, kind))


# --- shared controls: sentence, padding, kv_text ---------------------------------------------------------------------


def test_sentence_control_appears_for_a_batch_and_picks_the_sentence():
    at = direct_link("pages/playground.py")
    assert "sentence" not in [w.key for w in at.segmented_control]  # one sentence: no control
    at.text_area(key="text").set_value("the cat sat\nhello").run()
    sentence = at.segmented_control(key="sentence")
    assert list(sentence.options) == ["0", "1"] and sentence.value == 0
    sentence.set_value(1).run()
    assert not at.exception and at.session_state["_settings"].sentence == 1
    grid = canvas_charts(at)["grid"]
    assert grid["q"] == grid["k"] == ["hello", PAD, PAD]
    assert "hello" in sidebar_texts(at) and "2 × [PAD]" in sidebar_texts(at)


def test_sentence_is_kept_valid_when_lines_are_removed():
    at = direct_link("pages/playground.py", text="a\nb c\nd e f", sentence="2")
    assert at.session_state["_settings"].sentence == 2
    at.text_area(key="text").set_value("a\nb c").run()
    assert not at.exception and at.session_state["_settings"].sentence == 1
    at.text_area(key="text").set_value("a").run()
    assert not at.exception and at.session_state["_settings"].sentence == 0


def test_padding_toggle_blocks_and_unblocks_the_pads():
    at = direct_link("pages/playground.py", text=BATCH, sentence="1")
    weights = canvas_values(canvas_charts(at)["grid"])  # (H, Tq, Tk)
    assert weights.shape == (4, 4, 4) and (weights[:, :, 2:] == 0).all()
    at.toggle(key="padding").set_value(False).run()
    assert not at.exception and not at.session_state["_settings"].padding
    weights = canvas_values(canvas_charts(at)["grid"])
    assert (weights[:, :, 2:].sum(-1) > 0.05).all()  # the pads soak up attention
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)


def test_kv_text_switches_to_cross_attention_and_disables_causal():
    at = direct_link("pages/playground.py", text="the cat sat", kv_text="a dog ran far away", causal="true",
                     look="head")
    assert at.toggle(key="causal").proto.disabled
    assert "not applied in cross-attention" in sidebar_texts(at)
    assert not at.session_state["_settings"].causal
    grid = canvas_charts(at)["grid"]
    assert grid["k"] == ["a", "dog", "ran", "far", "away"] and grid["q"] == ["the", "cat", "sat"]
    assert all(m.shape == (3, 5) for m in canvas_values(grid))
    at.selectbox(key="cell_key").set_value(4).run()  # a key position beyond Tq
    assert not at.exception and "away" in texts(at)
    at.text_area(key="kv_text").set_value("").run()
    assert not at.toggle(key="causal").proto.disabled and at.session_state["_settings"].causal


@pytest.mark.parametrize("kv_text,message", [
    ("x\ny", "The keys/values text has 2 lines but the sentence box has 3"),
    ("\u200e\u202e", "The keys/values text has nothing visible"),
])
def test_bad_kv_text_gets_a_message_next_to_the_box(kv_text, message):
    at = direct_link(MASKS, text="a\nb\nc", kv_text=kv_text)
    assert any(message in e.value for e in at.sidebar.error)
    assert "Fix the keys/values text" in texts(at) and not at.get("plotly_chart")


def test_new_controls_in_korean():
    at = direct_link(MASKS, text=BATCH, lang="ko")
    assert at.toggle(key="padding").label == "패딩 마스크"
    assert at.segmented_control(key="sentence").label == "배치에서 볼 문장"
    assert at.title[0].value == "마스크: 누가 누구를 볼 수 있나"
    at = direct_link(BUGS, lang="ko")
    assert at.title[0].value.startswith("버그 동물원")


# --- Masks page -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["none", "causal", "padding", "causal_padding"])
def test_masks_page_charts_for_each_kind(kind):
    at = direct_link(MASKS, text=BATCH, sentence="1", mk_kind=kind, mk_head="2")
    view = run_view(ViewSpec(text=BATCH, sentence=1))
    allowed = sentence_mask(kind, 4, 4, view.key_is_pad)
    c = charts(at)
    assert set(c) == {"mk_mask_chart", "mk_scores_chart", "mk_weights_chart"}
    assert all(all_numbers_finite(spec) for spec in c.values())  # no NaN or ±inf, whatever the mask
    np.testing.assert_array_equal(decode(c["mk_mask_chart"]["data"][0]["z"]).reshape(4, 4), allowed.astype(np.int8))
    scores = heatmaps(c["mk_scores_chart"])[0]
    np.testing.assert_allclose(scores[allowed], view.scores[2][allowed], atol=1e-5)  # head 2, as chosen
    assert (scores[~allowed] == 0).all()  # blocked: a neutral 0 under the grey, never a huge negative colour
    if not allowed.all():
        overlay = [tr for tr in c["mk_scores_chart"]["data"] if tr.get("name") == "masked"][0]
        assert (np.array(overlay["text"]) == np.where(allowed, "", "−∞")).all()
    weights = heatmaps(c["mk_weights_chart"])[0]
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
    assert (weights[~allowed] == 0).all()
    # the sidebar's mask (padding, by default) is checked once; another one on this page and the sidebar's both
    assert texts(at).count("✅ Pass") == (1 if kind == "padding" else 2) and "❌" not in texts(at)


def test_mask_options_are_named_in_the_pages_language_but_links_keep_the_ids():
    at = direct_link(MASKS, text=BATCH, mk_kind="causal_padding", lang="ko")
    assert at.segmented_control(key="mk_kind").value == "causal_padding"  # the URL value: the id in every language
    shown = at.segmented_control(key="mk_kind_shown")  # the buttons a learner sees: Korean names (#16 item 10)
    assert shown.value == "causal_padding" and list(shown.options) == ["없음", "인과", "패딩", "인과 + 패딩", "직접"]
    legend = next(c.value for c in at.caption if "인과 + 패딩" in c.value)
    for name in ["마스크 없음", "인과: ", "패딩: ", "직접: "]:
        assert name in legend  # every option explained in Korean
    assert "**인과 + 패딩: 둘 다**" in legend and "`" not in legend  # the chosen one stands out; no ids
    shown.set_value("none").run()  # a click on the shown buttons moves the URL's id
    assert at.segmented_control(key="mk_kind").value == "none" and at.query_params["mk_kind"] == "none"
    assert not at.exception
    cross = direct_link(MASKS, text="the cat", kv_text="a dog ran", lang="ko")
    assert list(cross.segmented_control(key="mk_kind_shown").options) == ["없음", "패딩", "직접"]  # only those offered


def test_masks_page_padding_without_pads_says_so():
    at = direct_link(MASKS, text="a b c", mk_kind="padding")
    assert "has no [PAD]" in texts(at)


def test_custom_mask_edited_cell_by_cell_with_a_fully_masked_row():
    at = direct_link(MASKS, text="a b c", mk_kind="custom")
    editor = at.data_editor[0]
    assert editor.value.to_numpy().all() and list(editor.value.columns) == ["0 a", "1 b", "2 c"]
    at.session_state[editor.key] = {"edited_rows": {0: {"0 a": False, "1 b": False, "2 c": False},
                                                    2: {"1 b": False}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    c = charts(at)
    expected = np.array([[0, 0, 0], [1, 1, 1], [1, 0, 1]], dtype=np.int8)
    np.testing.assert_array_equal(decode(c["mk_mask_chart"]["data"][0]["z"]).reshape(3, 3), expected)
    weights = heatmaps(c["mk_weights_chart"])[0]
    assert (weights[0] == 0).all() and (weights[2, 1] == 0)
    np.testing.assert_allclose(weights[1:].sum(-1), 1.0, atol=1e-5)
    assert all(all_numbers_finite(spec) for spec in c.values())
    body = texts(at)
    assert "Every key of query 0 (a) is blocked" in body and "No row of this mask is fully blocked" not in body
    table = frame(at, "mk_full_table")
    assert (table.iloc[:, 1] == "0.0000").all() and (table.iloc[:, 2] == "NaN").all()  # ours 0, torch NaN
    assert "1 fully blocked query row left out" in body and body.count("✅ Pass") == 2


def test_custom_mask_start_row_blocks_query_zero():
    at = direct_link(MASKS, text="a b c d", mk_kind="custom")
    at.segmented_control(key="mk_custom_start").set_value("row").run()
    assert not at.exception
    mask = decode(charts(at)["mk_mask_chart"]["data"][0]["z"]).reshape(4, 4)
    assert not mask[0].any() and mask[1:].all()


def test_custom_mask_too_big_to_edit_gets_a_message():
    at = direct_link(MASKS, text=" ".join(f"w{i}" for i in range(30)), mk_kind="custom")
    assert "can be edited up to 24" in texts(at) and not at.data_editor
    assert all(all_numbers_finite(spec) for spec in charts(at).values())


# --- the custom mask in the link: the table, its text and the link agree ----------------------------------------------


def mask_and_weights(at) -> tuple[np.ndarray, np.ndarray]:
    """The mask chart's cells as bool (Tq, Tk) and the weights chart's (Tq, Tk) for the chosen head."""
    c = charts(at)
    weights = heatmaps(c["mk_weights_chart"])[0]
    mask = decode(c["mk_mask_chart"]["data"][0]["z"]).reshape(weights.shape).astype(bool)
    assert all(all_numbers_finite(spec) for spec in c.values())  # no NaN, whatever the mask
    return mask, weights


def assert_weights_follow(mask: np.ndarray, weights: np.ndarray) -> None:
    assert (weights[~mask] == 0).all()  # exactly 0 where blocked, and on a row with nothing allowed
    rows = mask.any(1)
    np.testing.assert_allclose(weights[rows].sum(-1), 1.0, atol=1e-5)


def test_a_custom_mask_comes_back_from_its_link():
    cells = "1000.0110.0000.1011"  # query 2 may attend to nothing
    at = direct_link(MASKS, text="a b c d", mk_kind="custom", mk_cells=cells, mk_head="1")
    mask, weights = mask_and_weights(at)
    np.testing.assert_array_equal(mask, decode_mask(cells, 4, 4))
    assert_weights_follow(mask, weights)
    assert not weights[2].any()
    assert at.text_input(key="mk_cells").value == cells
    np.testing.assert_array_equal(at.data_editor[0].value.to_numpy(), decode_mask(cells, 4, 4))  # the table too
    assert "Every key of query 2 (c) is blocked" in texts(at) and not at.error
    at.run()
    assert link_params(at)["mk_cells"] == cells and link_params(at)["mk_kind"] == "custom"


def test_an_untouched_custom_mask_shows_as_text_and_stays_out_of_the_link():
    at = direct_link(MASKS, text="a b c", mk_kind="custom")
    assert at.text_input(key="mk_cells").value == "111.111.111"  # the text shows the mask even when untouched
    at.run()
    assert "mk_cells" not in link_params(at)  # everything allowed: what a link without it opens
    at.segmented_control(key="mk_custom_start").set_value("causal").run()
    assert at.text_input(key="mk_cells").value == "100.110.111"  # a start is a mask like any other ...
    np.testing.assert_array_equal(mask_and_weights(at)[0], np.tri(3, dtype=bool))
    at.run()
    again = direct_link(MASKS, **link_params(at))  # ... and its link opens it, whatever the start shows there
    np.testing.assert_array_equal(mask_and_weights(again)[0], np.tri(3, dtype=bool))


def test_a_click_in_the_table_changes_the_text_and_the_link():
    at = direct_link(MASKS, text="a b c", mk_kind="custom", mk_cells="100.110.111")
    editor = at.data_editor[0]
    at.session_state[editor.key] = {"edited_rows": {0: {"2 c": True}, 2: {"0 a": False, "1 b": False, "2 c": False}},
                                    "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    expected = "101.110.000"
    assert at.text_input(key="mk_cells").value == expected and at.query_params["mk_cells"] == expected  # address bar
    assert at.data_editor[0].key == editor.key  # the same table: it is not redrawn from scratch on every click
    mask, weights = mask_and_weights(at)
    np.testing.assert_array_equal(mask, decode_mask(expected, 3, 3))
    assert_weights_follow(mask, weights)
    at.run()  # (the browser's click runs a callback first; AppTest's edit arrives with the run, so the link follows)
    params = link_params(at)
    assert params["mk_cells"] == expected
    again = direct_link(MASKS, **params)  # the copied link opens the same mask
    np.testing.assert_array_equal(mask_and_weights(again)[0], mask)


def test_a_typed_mask_becomes_the_table():
    at = direct_link(MASKS, text="a b c", mk_kind="custom")
    at.text_input(key="mk_cells").set_value(" 011 / 101 / 110 ").run()
    assert not at.exception and not at.error
    assert at.text_input(key="mk_cells").value == "011.101.110"  # written back the way the link writes it
    table = at.data_editor[0].value.to_numpy()
    np.testing.assert_array_equal(table, ~np.eye(3, dtype=bool))
    np.testing.assert_array_equal(mask_and_weights(at)[0], table)


@pytest.mark.parametrize("typed,reason", [
    ("11x.000.111", "Character 3, `x`, is not 0, 1 or a dot."),
    ("1.0.1.1", "The mask text has 4 rows, but this sentence has 3 queries."),
    ("100.110", "The mask text has 2 rows, but this sentence has 3 queries."),
    ("100.1101.111", "Row 2 has 4 digits, but this sentence has 3 keys."),  # rows counted from 1
    ("", "The mask text is empty."),
    ("<b>1</b>", "Character 1, `<`, is not 0, 1 or a dot."),
    ("1" * 5000, "The mask text has 5000 characters, more than 1200."),
])
def test_bad_mask_text_says_why_and_the_table_keeps_the_last_mask(typed, reason):
    at = direct_link(MASKS, text="a b c", mk_kind="custom", mk_cells="100.010.001")
    at.text_input(key="mk_cells").set_value(typed).run()
    assert not at.exception
    message = at.error[0].value
    assert reason in message and "Expected: 3 rows (queries) of 3 digits (keys)" in message, message
    assert message.endswith("The table keeps the last valid mask.")
    if typed.strip():
        assert message.startswith(f"`{typed[:60]}`"), message  # what was typed, quoted as text
    # the box, the address bar and the link go back to the mask the page shows: a shared link reproduces the view
    assert at.text_input(key="mk_cells").value == "100.010.001"
    assert link_params(at)["mk_cells"] == "100.010.001"
    mask, weights = mask_and_weights(at)
    np.testing.assert_array_equal(mask, np.eye(3, dtype=bool))  # the last valid mask, still in the table
    np.testing.assert_array_equal(at.data_editor[0].value.to_numpy(), np.eye(3, dtype=bool))
    assert_weights_follow(mask, weights)
    at.text_input(key="mk_cells").set_value("111.111.000").run()  # fixed: the table follows again
    assert not at.error and not mask_and_weights(at)[0][2].any()


@pytest.mark.parametrize("cells,reason", [("1x1.\u202e", "Character 2, `x`, is not 0, 1 or a dot."),
                                          ("1111.1111.1111", "Row 1 has 4 digits, but this sentence has 3 keys.")])
def test_a_bad_mask_in_a_link_says_why_and_allows_everything(cells, reason):
    at = direct_link(MASKS, text="a b c", mk_kind="custom", mk_cells=cells)
    assert at.error[0].value.startswith(reason) and at.error[0].value.endswith("The table shows the start pattern.")
    mask, weights = mask_and_weights(at)
    np.testing.assert_array_equal(mask, np.ones((3, 3), dtype=bool))
    assert_weights_follow(mask, weights)


def test_a_new_sentence_keeps_a_mask_that_fits_and_drops_one_that_does_not():
    at = direct_link(MASKS, text="a b c", mk_kind="custom", mk_cells="011.101.110")
    at.text_area(key="text").set_value("x y z").run()  # same shape, other words: the mask stays
    assert not at.exception and [i.icon for i in at.info] == ["🎭"]  # only "this page's own mask", nothing dropped
    assert list(at.data_editor[0].value.columns) == ["0 x", "1 y", "2 z"]
    np.testing.assert_array_equal(mask_and_weights(at)[0], ~np.eye(3, dtype=bool))
    at.text_area(key="text").set_value("x y z w").run()  # another shape: dropped, with a note
    assert not at.exception and not at.error
    assert "your mask no longer fits" in texts(at)
    assert at.text_input(key="mk_cells").value == encode_mask(np.ones((4, 4), dtype=bool))
    np.testing.assert_array_equal(mask_and_weights(at)[0], np.ones((4, 4), dtype=bool))
    at.segmented_control(key="mk_custom_start").set_value("causal").run()
    at.text_area(key="text").set_value("x y").run()  # the start pattern untouched: it follows, without a note
    assert not at.exception and "your mask no longer fits" not in texts(at)
    assert at.text_input(key="mk_cells").value == "10.11"


def test_a_mask_kept_while_the_sentence_was_too_long_is_dropped_if_it_no_longer_fits():
    at = direct_link(MASKS, text="a b c", mk_kind="custom", mk_cells="011.101.110")
    at.text_area(key="text").set_value(" ".join(f"w{i}" for i in range(30))).run()
    assert not at.exception and "can be edited up to 24" in texts(at)
    at.text_area(key="text").set_value("a b").run()
    assert not at.exception and not at.error and "your mask no longer fits" in texts(at)
    assert at.text_input(key="mk_cells").value == "11.11"


def test_the_mask_waits_while_another_kind_is_shown():
    at = direct_link(MASKS, text="a b c", mk_kind="custom", mk_cells="011.101.110")
    at.segmented_control(key="mk_kind").set_value("causal").run()
    at.run()
    assert "mk_cells" not in link_params(at)  # not part of a causal view's link ...
    at.segmented_control(key="mk_kind").set_value("custom").run()
    assert at.text_input(key="mk_cells").value == "011.101.110"  # ... but still the learner's mask when back
    np.testing.assert_array_equal(mask_and_weights(at)[0], ~np.eye(3, dtype=bool))


def test_the_custom_mask_in_korean():
    from test_i18n import HANGUL, _english_prose

    at = direct_link(MASKS, text="a b c", mk_kind="custom", mk_cells="1x", lang="ko")
    box = at.text_input(key="mk_cells")
    assert box.label == "텍스트로 쓴 마스크" and HANGUL.search(box.help)
    message = at.error[0].value
    assert HANGUL.search(message) and "`x`" in message and not _english_prose(message), message


def test_a_custom_mask_in_cross_attention():
    at = direct_link(MASKS, text="the cat", kv_text="a dog ran", mk_kind="custom", mk_cells="101.000")  # Tq 2, Tk 3
    mask, weights = mask_and_weights(at)
    np.testing.assert_array_equal(mask, [[1, 0, 1], [0, 0, 0]])
    assert_weights_follow(mask, weights)
    assert texts(at).count("✅ Pass") == 2


def test_fully_masked_demo_row_and_polarity_tables():
    at = direct_link(MASKS, text="a b c", mk_kind="causal")
    assert "No row of this mask is fully blocked" in texts(at)
    at.selectbox(key="mk_full_row").set_value(2).run()
    assert "Every key of query 2 (c) is blocked" in texts(at)
    ours, theirs = frame(at, "mk_pol_ours"), frame(at, "mk_pol_torch")
    np.testing.assert_array_equal(ours.to_numpy(), np.tri(3, dtype=bool))  # True = may attend
    np.testing.assert_array_equal(theirs.to_numpy(), ~np.tri(3, dtype=bool))  # nn.MultiheadAttention: True = blocked
    assert "without converting it, and its output is off by" in texts(at)


def test_masks_page_in_cross_attention_offers_no_causal_mask():
    at = direct_link(MASKS, text="the cat\nhi", kv_text="a dog ran", mk_kind="causal")
    kinds = at.segmented_control(key="mk_kind")
    assert list(kinds.options) == ["none", "padding", "custom"] and kinds.value == "padding"
    assert "causal masks need self-attention" in texts(at)
    c = charts(at)
    # the sidebar's mask (padding) is the page's: one check
    assert heatmaps(c["mk_weights_chart"])[0].shape == (2, 3) and texts(at).count("✅ Pass") == 1


def test_masks_page_head_is_kept_valid_when_heads_shrink():
    at = direct_link(MASKS, mk_head="3")
    at.selectbox(key="num_heads").set_value(2).run()
    assert not at.exception and at.segmented_control(key="mk_head").value == 0


# --- Bug zoo page -----------------------------------------------------------------------------------------------------


def test_bug_zoo_words_name_no_module_or_test_of_ours():
    """Its text and tooltips (the bug picker's help) say what a learner understands, in both languages."""
    for key, entry in i18n.CATALOG.items():
        if key.startswith("bz_"):
            for lang in i18n.LANGS:
                assert not re.search(r"\w\.py\b|mha/|tests/|test_\w|\{test\}", entry[lang]), (key, lang)


@pytest.mark.parametrize("bug", bugs.BUGS, ids=bugs.BUG_NAMES)
def test_bug_zoo_shows_each_bug_with_its_test(bug):
    at = direct_link(BUGS, text="the cat sat on the mat", bz_bug=bug.name, num_heads="4")
    body = texts(at)
    assert at.code[0].value == bug.wrong and at.code[1].value == bug.right
    # the check in words, said to be the app's own test; no internal id, test or module name in the page's text
    assert i18n.text(f"bz_{bug.name}_check", "en") in body and bug.name not in body
    assert bug.test not in body and not re.search(r"\w\.py\b|mha/|tests/|test_\w", body), body
    c = charts(at)
    assert all(all_numbers_finite(spec) for spec in c.values())
    if bug.name == bugs.SEED_TWO:
        assert set(c) == {"bz_seed_chart", "bz_ok_chart"}
        assert "mat1 and mat2 shapes cannot be multiplied" in at.code[2].value
        assert heatmaps(c["bz_seed_chart"])[0].shape == (4, 4)  # heads x heads, not tokens x tokens
        axes = c["bz_seed_chart"]["layout"]  # and its axes say so (they read "query (attending)", a token)
        assert (axes["yaxis"]["title"]["text"], axes["xaxis"]["title"]["text"]) == (
            i18n.text("bz_seed_query_axis", "en"), i18n.text("bz_seed_key_axis", "en"))
        return
    assert set(c) == {"bz_bug_chart", "bz_ok_chart", "bz_diff_chart"}
    bad, ok, diff = (heatmaps(c[k])[0] for k in ("bz_bug_chart", "bz_ok_chart", "bz_diff_chart"))
    np.testing.assert_allclose(diff, bad - ok, atol=1e-5)
    assert np.abs(diff).max() > 1e-3  # the bug shows on this sentence
    if bug.needs_mask:
        assert "Shown here with a lower-triangular mask" in body


def test_bug_zoo_summary_and_one_head():
    at = direct_link(BUGS, num_heads="4")
    table = frame(at, "bz_table")
    # rows named in words, not by id or pytest name (the ids stay in the link)
    assert list(table.index) == [i18n.text(f"bz_{b}_title", "en") for b in bugs.BUG_NAMES]
    assert list(table.iloc[:, 0]) == [i18n.text(f"bz_{b}_check", "en") for b in bugs.BUG_NAMES]
    one = frame(at, "bz_one_head_table")
    assert list(one.iloc[:, 0]) == [i18n.text(f"bz_{b}_title", "en")
                                    for b in ("split_heads_no_transpose", "combine_heads_no_permute")]
    assert (one.iloc[:, 2] == "0.0000").all() and (one.iloc[:, 1].astype(float) > 1e-3).all()
    at.segmented_control(key="bz_bug").set_value("softmax_over_queries").run()
    at.segmented_control(key="bz_head").set_value(2).run()
    correct = heatmaps(charts(at)["bz_ok_chart"])[0]
    np.testing.assert_allclose(correct, run_view(ViewSpec()).weights[2], atol=1e-6)  # head 2, as picked
    at.selectbox(key="num_heads").set_value(1).run()
    at.segmented_control(key="bz_bug").set_value("split_heads_no_transpose").run()
    assert not at.exception and "this bug is invisible here" in texts(at)
    diff = heatmaps(charts(at)["bz_diff_chart"])[0]
    assert (diff == 0).all()  # one head: exactly the real numbers


def test_bug_zoo_seed_two_token_and_one_head():
    at = direct_link(BUGS, bz_bug=bugs.SEED_TWO, num_heads="2")
    at.selectbox(key="bz_token").set_value(3).run()
    assert not at.exception and "token “favorite”" in texts(at)
    at.selectbox(key="num_heads").set_value(1).run()
    assert "With num_heads = 1 it runs" in texts(at)
    np.testing.assert_array_equal(heatmaps(charts(at)["bz_seed_chart"])[0], [[1.0]])  # always itself


def test_bug_zoo_with_a_batch_and_cross_attention():
    at = direct_link(BUGS, text="the cat sat\nhi", kv_text="a dog ran far", sentence="1",
                     bz_bug="softmax_over_queries")
    c = charts(at)
    assert heatmaps(c["bz_bug_chart"])[0].shape == (3, 4) and all(all_numbers_finite(s) for s in c.values())


def test_uploaded_weights_drive_the_torch_check_and_the_bug_zoo():
    sd = init_weights(MultiHeadAttention(16, 4), 99).state_dict()
    at = direct_link(MASKS, mk_kind="causal")
    at.session_state[CUSTOM_WEIGHTS_KEY] = {"sha": "test-sha", "name": "mine.pt", "d_model": 16, "state_dict": sd}
    at.run()
    assert not at.exception and texts(at).count("✅ Pass") == 2
    at.switch_page(BUGS)
    at.run()
    at.run()  # a switched-to page settles its shared controls on the next run
    assert not at.exception
    mine, seeded = run_view(ViewSpec(), state_dict=sd), run_view(ViewSpec())
    correct = heatmaps(charts(at)["bz_ok_chart"])[0]
    np.testing.assert_allclose(correct, mine.weights[0], atol=1e-6)  # the zoo's "correct" is the uploaded module
    assert np.abs(correct - seeded.weights[0]).max() > 1e-3


# --- every page with a batch, padding and cross-attention -------------------------------------------------------------


@pytest.mark.parametrize("page", [p for p, _, _ in PAGES if p not in (MASKS, BUGS)])  # those two: tested above
@pytest.mark.parametrize("params", [
    dict(text="the cat sat on the mat\nhello", sentence="1", causal="true"),
    dict(text="the cat sat on the mat\nhi", kv_text="a dog ran", sentence="0"),  # Tk < Tq (the page tests: Tk > Tq)
], ids=["batch+causal+padding", "cross"])
def test_every_page_runs_with_batches_and_cross_attention(page, params):
    at = direct_link(page, **params)
    assert not at.exception
    assert all(all_numbers_finite(spec) for spec in chart_specs(at).values())


def test_bug_zoo_draws_the_bug_and_the_correct_weights_on_one_colour_scale():
    """Long rows fit the weights scale below 1 (figures.weights_top): the two charts side by side must share it,
    or one colour would mean two weights."""
    text = " ".join(f"w{i}" for i in range(40))
    at = direct_link(BUGS, text=text, bz_bug="softmax_over_queries", num_heads="4")
    c = charts(at)
    tops = [c[k]["layout"]["coloraxis"]["cmax"] for k in ("bz_bug_chart", "bz_ok_chart")]
    bad, ok = (heatmaps(c[k])[0] for k in ("bz_bug_chart", "bz_ok_chart"))
    assert tops[0] == tops[1] >= max(bad.max(), ok.max())


def test_bug_zoo_in_korean_names_the_study_note_not_a_seed():
    """#16 item 8: "seed_two_as_written" / "the second seed's class" clashed with the random seed."""
    at = direct_link(BUGS, lang="ko", bz_bug=bugs.SEED_TWO)
    assert not at.exception
    table = frame(at, "bz_table")
    title = i18n.text(f"bz_{bugs.SEED_TWO}_title", "ko")
    assert table.index[0] == title and "seed" not in " ".join(table.index) and "학습 노트" in title
    assert title == i18n.text("ck_ex_seed_two", "ko")  # the name Check your code gives the same class
    assert at.segmented_control(key="bz_bug_shown").value == bugs.SEED_TWO  # the buttons show names, hold ids
    assert "seed" not in i18n.text(f"bz_{bugs.SEED_TWO}_title", "en").lower()


@pytest.mark.parametrize("causal,padding,kind", [("false", "true", "padding"), ("true", "true", "causal_padding"),
                                                 ("false", "false", "none"), ("true", "false", "causal")])
def test_the_masks_page_opens_on_the_sidebars_mask_and_checks_it_once(causal, padding, kind):
    """#16 item 6: one source of truth. The page opens on the mask the sidebar's switches give, says so, and the
    PyTorch check reports that one mask once; a mask picked on this page is said to be this page's only, and checked
    beside the sidebar's. When the sidebar changes, the page follows it (it was showing the sidebar's)."""
    at = direct_link(MASKS, text=BATCH, causal=causal, padding=padding)
    assert at.segmented_control(key="mk_kind").value == kind and "mk_kind" not in at.query_params
    body = texts(at)
    assert i18n.text("mk_kind_same", "en", mask=i18n.text(f"mk_mask_{kind}", "en"),
                        more=i18n.text("ctl_more", "en")) in body
    assert body.count("✅ Pass") == 1 and "sidebar's " + i18n.text(f"mk_mask_{kind}", "en") in body
    other = "none" if kind != "none" else "padding"
    at.segmented_control(key="mk_kind_shown").set_value(other).run()
    body = texts(at)
    assert i18n.text("mk_kind_own", "en", kind=i18n.text(f"mk_name_{other}", "en"),
                     mask=i18n.text(f"mk_mask_{kind}", "en")) in body
    assert body.count("✅ Pass") == 2 and f"This page's mask “{i18n.text(f'mk_name_{other}', 'en')}”" in body


def test_the_masks_page_follows_the_sidebar_switch():
    at = direct_link(MASKS, text=BATCH)
    assert at.segmented_control(key="mk_kind").value == "padding"
    at.toggle(key="causal").set_value(True).run()
    assert at.segmented_control(key="mk_kind").value == "causal_padding" and not at.exception
    assert texts(at).count("✅ Pass") == 1


@pytest.mark.parametrize("text", [" ".join(f"w{i}" for i in range(n)) for n in (3, 5, 12, 13, 43)]
                         + ["Orange is my favorite fruit"])
def test_the_three_charts_sit_side_by_side_only_while_cells_hold_their_text(text):
    """Side by side a 43-key map had 4 px wide cells in a third of the page, and the default sentence's scores 16 px
    cells with "−∞−∞−∞−∞" running together (#27.4): in thirds only while every cell of the charts with a colour bar
    keeps MIN_TEXT_CELL px (measured here on the charts' own layout), else one under another at the page's width."""
    from harness.apptest import charts_by_key

    from mha.app.sections.masks import MIN_TEXT_CELL, THIRD_PX

    at = open_page("pages/masks.py", text=text, mk_kind="causal")
    assert not at.exception
    c = charts_by_key(at)
    widths = [c[k]["layout"]["width"] for k in ("mk_mask_chart", "mk_scores_chart", "mk_weights_chart")]
    n = len(text.split())
    side = all(w <= THIRD_PX for w in widths)
    assert side or all(w > THIRD_PX for w in widths), widths  # all in thirds, or all at the page's width
    for key in ("mk_scores_chart", "mk_weights_chart"):
        lay = c[key]["layout"]
        cell = (lay["width"] - lay["margin"]["l"] - lay["margin"]["r"]) / n
        assert cell >= MIN_TEXT_CELL or not side, (key, cell)
    if text.startswith("Orange") or n >= 12:
        assert not side, widths  # too narrow in thirds: the −∞ marks would run together


@pytest.mark.parametrize("n", [5, 12, 13, 43])
@pytest.mark.parametrize("bug", [bugs.SEED_TWO, "softmax_over_queries"])
def test_bug_zoo_long_sentences_get_the_token_maps_at_full_width(n, bug):
    """At 43 tokens the correct map in half the page (the second handout's class) and the bug / correct / difference
    maps in thirds were strips of thin cells: past SIDE_BY_SIDE_TOKENS (as on Masks) they get the page's width. The
    heads x heads map (H x H) stays laid out for half the page."""
    from harness.apptest import charts_by_key

    from mha.app.sections.masks import SIDE_BY_SIDE_TOKENS

    at = open_page(BUGS, text=" ".join(f"w{i}" for i in range(n)), bz_bug=bug, num_heads="4")
    assert not at.exception, at.exception
    c = charts_by_key(at)
    keys = ("bz_ok_chart",) if bug == bugs.SEED_TWO else ("bz_bug_chart", "bz_ok_chart", "bz_diff_chart")
    narrow = 460 if bug == bugs.SEED_TWO else 300  # half, third of the page (pages/bugs.py)
    widths = [c[k]["layout"]["width"] for k in keys]
    side = n <= SIDE_BY_SIDE_TOKENS
    assert all(w <= narrow for w in widths) == side, widths
    if bug == bugs.SEED_TWO:
        assert c["bz_seed_chart"]["layout"]["width"] <= 460
