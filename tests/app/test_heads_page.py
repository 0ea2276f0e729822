"""The Heads page through AppTest: every section and control, URL parameters (the open section among them), edge
cases. Expected numbers are computed here from the view or the module directly, not read back from the page's own
code path. Only the open section is drawn, so a test of a section opens its link (``hd_section=...``)."""
import json
import math

import numpy as np
import pytest
from harness.apptest import all_numbers_finite, charts_by_key, decode, heatmaps, link_params, open_page
from streamlit.testing.v1 import AppTest

from mha.core.i18n import text as tr
from mha.weights.view import ViewSpec, build_model, run_view

PAGE = "pages/heads.py"
TEXT = "Orange is my favorite fruit"
SECTIONS = ("measure", "compare", "ablate", "qk", "order", "seeds")  # the URL values of hd_section, in order
# The charts each section draws (the word-order one once the tokens are shuffled), and what brings them out.
SECTION_CHARTS = {"measure": {"heads_stats_chart", "heads_entropy_chart"},
                  "compare": {"heads_sim_chart", "heads_pair_chart"},
                  "ablate": {"heads_change_chart", "heads_results_chart"}, "qk": {"heads_qk_chart"},
                  "order": {"heads_shuffle_chart"}, "seeds": {"heads_seeds_chart"}}
EXTRA = {"order": {"heads_shuffle": "1"}}


def open_heads(**params) -> AppTest:
    """A fresh session opening a link to the Heads page with these parameters (harness.apptest.open_page)."""
    return open_page(PAGE, **params)


def chart(at, key):
    """The parsed spec of the chart drawn with ``key``."""
    found = [el for el in at.get("plotly_chart") if el.proto.id.endswith(key)]
    assert len(found) == 1, f"chart {key!r}: found {len(found)}"
    return json.loads(found[0].proto.spec)


def has_chart(at, key):
    return any(el.proto.id.endswith(key) for el in at.get("plotly_chart"))


def pick(at, section: str) -> AppTest:
    """The learner clicks a section."""
    return at.segmented_control(key="hd_section_pick").set_value(section).run()


def shown_titles(picker) -> list[str]:
    """A segmented control's options as the learner reads them (a leading emoji travels as the option's icon)."""
    return [f"{o.content_icon} {o.content}".strip() for o in picker.proto.options]


def drawn_charts(at) -> set[str]:
    return {el.proto.id.split("-", 2)[-1] for el in at.get("plotly_chart")}


def texts(at):
    return " ".join(str(e.value) for kind in ("markdown", "caption", "info", "warning", "error")
                    for e in getattr(at, kind))


@pytest.mark.parametrize("section", SECTIONS)
def test_a_link_opens_its_section_and_draws_only_that_one(section):
    at = open_heads(hd_section=section, **EXTRA.get(section, {}))
    assert not at.exception
    assert at.title[0].value == "Heads explorer"
    picker = at.segmented_control(key="hd_section_pick")
    assert picker.value == section and at.session_state["hd_section"] == section
    assert shown_titles(picker) == [tr(f"hd_sec_{k}", "en") for k in SECTIONS]
    assert tr(f"hd_about_{section}", "en") in texts(at)
    assert drawn_charts(at) == SECTION_CHARTS[section]  # this section's charts, no other section's
    for key in SECTION_CHARTS[section]:
        assert all_numbers_finite(chart(at, key)), key


def test_without_a_section_in_the_link_the_first_one_opens():
    at = open_heads()
    assert at.session_state["hd_section"] == "measure" and drawn_charts(at) == SECTION_CHARTS["measure"]
    assert not has_chart(at, "heads_shuffle_chart")


def test_the_link_carries_the_section_id_in_either_language():
    at = pick(open_heads(), "ablate")
    assert not at.exception and drawn_charts(at) == SECTION_CHARTS["ablate"]
    assert link_params(at, lists=True)["hd_section"] == ["ablate"]
    pick(at, "order")
    assert link_params(at, lists=True)["hd_section"] == ["order"] and tr("hd_about_order", "en") in texts(at)
    at.segmented_control(key="lang").set_value("ko").run()  # the language changes, the section stays
    assert at.segmented_control(key="hd_section_pick").value == "order"
    assert shown_titles(at.segmented_control(key="hd_section_pick")) == [tr(f"hd_sec_{k}", "ko") for k in SECTIONS]
    assert tr("hd_about_order", "ko") in texts(at)
    ko_link = link_params(at, lists=True)
    assert ko_link["hd_section"] == ["order"] and ko_link["lang"] == ["ko"]  # the id, not "🔀 단어 순서"
    # the Korean link opened in English: the same section, in English
    en = open_heads(**{**ko_link, "lang": "en"})
    assert en.session_state["hd_section"] == "order" and tr("hd_about_order", "en") in texts(en)
    assert not [c.value for c in en.caption if "hd_section" in c.value]  # a good value: no note
    pick(at, "measure")  # back to the first section: the default is left out of the link
    assert "hd_section" not in link_params(at, lists=True) and drawn_charts(at) == SECTION_CHARTS["measure"]


@pytest.mark.parametrize("given", [
    "zzz", "x" * 5000, "<b>ablate</b>", "ABLATE", " ablate", "2",
    "✂️ Switch off", "✂️ 헤드 끄기",  # a section's title (en, ko) is not its id
    ["zzz", "ablate"],  # repeated: the first value counts (see below)
])
def test_a_section_that_does_not_exist_opens_the_first_with_a_note(given):
    at = open_heads(hd_section=given)
    assert not at.exception
    assert at.session_state["hd_section"] == "measure" and drawn_charts(at) == SECTION_CHARTS["measure"]
    first = given[0] if isinstance(given, list) else given
    notes = [c.value.replace("\u2060", "") for c in at.caption if "hd_section=" in c.value]  # (word joiners: escaping)
    assert len(notes) == 1 and first[:39] in notes[0] and "📊 Measure" in notes[0], notes  # cut at 40 with "…"
    at.run()
    assert "hd_section" not in link_params(at, lists=True)
    pick(at, "seeds")  # the learner moves on: the note is done, the page works
    assert not at.exception and not [c.value for c in at.caption if "hd_section=" in c.value]
    assert drawn_charts(at) == SECTION_CHARTS["seeds"] and link_params(at, lists=True)["hd_section"] == ["seeds"]


def test_a_repeated_section_uses_the_first_value_like_every_segmented_control():
    at = open_heads(hd_section=["ablate", "order"])  # as lang=ko&lang=en gives Korean
    assert not at.exception and at.session_state["hd_section"] == "ablate"
    assert drawn_charts(at) == SECTION_CHARTS["ablate"]


@pytest.mark.parametrize("section", [k for k in SECTIONS if k != "measure"])
def test_each_sections_controls_come_back_from_its_link(section):
    """What tests/app/test_links.py does for the page, section by section (it sees only the first section)."""
    from test_links import change, state, widgets

    at = open_page(PAGE, {"hd_section": section, **EXTRA.get(section, {})})
    moved = [w.key for w in widgets(at.main) if not w.key.startswith("hd_section") and change(w)]
    assert moved, "no control to move"
    at.run()
    assert not at.exception
    before, params = state(at), link_params(at, lists=True)
    assert params["hd_section"] == [section]
    again = open_page(PAGE, params)
    assert not again.exception
    assert {k: v for k, v in state(again).items() if k in before} == before
    assert ({k: c["data"] for k, c in charts_by_key(again).items()}
            == {k: c["data"] for k, c in charts_by_key(at).items()})


def test_stats_table_agrees_with_a_direct_computation():
    at = open_heads(text="the cat saw the dog", num_heads="2", d_model="8")
    w = run_view(ViewSpec(text="the cat saw the dog", d_model=8, num_heads=2)).weights.astype(float)
    table = at.dataframe[0].value
    assert len(table) == 2
    entropy = [np.mean([-sum(p * math.log2(p) for p in row if p > 0) for row in head]) for head in w]
    np.testing.assert_allclose(table["entropy (bits)"], entropy, rtol=1e-5)
    diag = [np.mean([head[i, i] for i in range(5)]) for head in w]
    np.testing.assert_allclose(table["self share"], diag, rtol=1e-5)
    sink = [int(np.argmax(head.mean(axis=0))) for head in w]
    assert table["sink key"].tolist() == [f"{j}: {'the cat saw the dog'.split()[j]}" for j in sink]
    bars = [decode(tr["y"]).astype(float) for tr in chart(at, "heads_stats_chart")["data"]]
    np.testing.assert_allclose(bars[0], entropy, rtol=1e-5)
    [csv] = [b for b in at.get("download_button") if b.proto.id.endswith("heads_stats_csv")]


def test_switching_every_head_off_leaves_the_bias():
    at = open_heads(hd_section="ablate")
    at.multiselect(key="heads_off").set_value([0, 1, 2, 3]).run()
    assert not at.exception
    assert "Every head is off" in texts(at)
    view = run_view(ViewSpec())
    bias = build_model(16, 4, 0).output_linear.bias.numpy()
    change = decode(chart(at, "heads_change_chart")["data"][0]["y"]).astype(float)
    np.testing.assert_allclose(change, np.linalg.norm(view.output - bias, axis=-1), rtol=1e-4)
    results = chart(at, "heads_results_chart")
    assert results["data"][0]["y"] == [f"head {h} · off" for h in range(4)]


def test_heads_off_comes_from_the_url_and_drops_heads_that_no_longer_exist():
    at = open_heads(hd_section="ablate", heads_off=["1", "3"])
    assert at.multiselect(key="heads_off").value == [1, 3]
    assert "With 2 heads off" in texts(at)
    at.selectbox(key="num_heads").set_value(2).run()
    assert not at.exception
    assert at.multiselect(key="heads_off").value == [1]


def test_metric_and_pair_selectors():
    at = open_heads(hd_section="compare")
    at.segmented_control(key="heads_metric").set_value("cosine").run()
    sim = heatmaps(chart(at, "heads_sim_chart"))[0]
    np.testing.assert_allclose(np.diag(sim), 1.0, rtol=1e-5)
    at.selectbox(key="heads_a").set_value(2).run()
    at.selectbox(key="heads_b").set_value(3).run()
    assert not at.exception
    w = run_view(ViewSpec()).weights
    a, b, diff = heatmaps(chart(at, "heads_pair_chart"))
    np.testing.assert_allclose(a, w[2], atol=1e-6)
    np.testing.assert_allclose(b, w[3], atol=1e-6)
    np.testing.assert_allclose(diff, w[2] - w[3], atol=1e-6)
    assert "Head 2 vs head 3: cosine" in texts(at)


def test_queries_and_keys_controls():
    # a selectbox keeps its shown label in the URL
    at = open_heads(hd_section="qk", heads_qk_head="1", heads_query="2: my")
    assert at.segmented_control(key="heads_qk_head").label == "Head"
    at.slider(key="heads_topk").set_value(2).run()
    assert not at.exception
    spec = chart(at, "heads_qk_chart")
    assert len([tr for tr in spec["data"] if tr.get("name") == "top"]) == 2
    w = run_view(ViewSpec()).weights[1, 2]
    top = np.argsort(-w)[:2]
    words = TEXT.split()
    assert f"Largest weights (true): **{words[top[0]]}**, **{words[top[1]]}**" in texts(at)


def test_shuffle_moves_outputs_only_without_positions():
    at = open_heads(hd_section="order", text="the cat saw the dog", positional="false")
    at.button(key="heads_shuffle_next").click().run()
    assert at.number_input(key="heads_shuffle").value == 1
    shown = texts(at)
    assert "Positional encoding **off**: ✅" in shown and "Positional encoding **on**: 🔄" in shown
    assert "❌" not in shown and "expected" in shown  # the change with positions on is the lesson, not a failure
    assert at.segmented_control(key="heads_order_head").label == "Head"  # capitalised, as on every other page
    original, shuffled, back = heatmaps(chart(at, "heads_shuffle_chart"))
    np.testing.assert_allclose(back, original, atol=1e-6)  # put back in order: the same map
    assert not np.allclose(shuffled, original)
    at.toggle(key="positional").set_value(True).run()
    original, _, back = heatmaps(chart(at, "heads_shuffle_chart"))
    assert np.abs(back - original).max() > 1e-3  # positions travel with the shuffle
    at.button(key="heads_shuffle_reset").click().run()
    assert at.number_input(key="heads_shuffle").value == 0 and not has_chart(at, "heads_shuffle_chart")


def test_the_shuffle_shows_the_chosen_head():
    at = open_heads(hd_section="order", heads_shuffle="1")
    at.segmented_control(key="heads_order_head").set_value(2).run()
    original = heatmaps(chart(at, "heads_shuffle_chart"))[0]
    np.testing.assert_allclose(original, run_view(ViewSpec()).weights[2], atol=1e-6)


def test_a_shuffle_from_the_link_is_the_same_shuffle():
    a = open_heads(hd_section="order", text="one two three four five six", heads_shuffle="42")
    b = open_heads(hd_section="order", text="one two three four five six", heads_shuffle="42")
    ya = chart(a, "heads_shuffle_chart")["data"][1]["y"]
    assert ya == chart(b, "heads_shuffle_chart")["data"][1]["y"]
    assert sorted(ya) == sorted(chart(a, "heads_shuffle_chart")["data"][0]["y"]) and ya != chart(
        a, "heads_shuffle_chart")["data"][0]["y"]


def test_repeated_word_button_sets_the_example_without_positions():
    at = open_heads(hd_section="order")
    assert "No word appears twice" in texts(at)
    at.button(key="heads_try_repeat").click().run()
    assert not at.exception
    assert at.text_area(key="text").value == "the cat saw the dog" and at.toggle(key="positional").value is False
    [table] = [d.value for d in at.dataframe if "positions" in d.value.columns]
    assert table["token"].tolist() == ["the"] and table["positions"].tolist() == ["0, 3"]
    assert table["row difference, positions off"][0] < 1e-6 < table["row difference, positions on"][0]
    assert "Positional encoding is off now" in texts(at)


def test_top_keys_slider_follows_the_keys_a_query_may_see():
    at = open_heads(hd_section="qk", causal="true", heads_query="4: fruit")
    at.slider(key="heads_topk").set_value(5).run()
    at.selectbox(key="heads_query").set_value(1).run()  # with the causal mask, query 1 sees two keys
    assert not at.exception
    assert at.slider(key="heads_topk").value == 2
    assert len([tr for tr in chart(at, "heads_qk_chart")["data"] if tr.get("name") == "top"]) == 2


def test_seeds_tab_shows_the_chosen_head_for_four_seeds():
    at = open_heads(hd_section="seeds", seed="7", heads_seed_head="3")
    spec = chart(at, "heads_seeds_chart")
    assert [a["text"] for a in spec["layout"]["annotations"]] == ["seed 7", "seed 8", "seed 9", "seed 10"]
    for m, s in zip(heatmaps(spec), (7, 8, 9, 10)):
        np.testing.assert_allclose(m, run_view(ViewSpec(seed=s)).weights[3], atol=1e-6)
    assert "Trained models grow heads" in texts(at)
    table = [d.value for d in at.dataframe if "seed" in d.value.columns][0]
    assert table["seed"].tolist() == [7, 8, 9, 10]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_seeds_on_trained_weights_say_nothing_about_random_patterns(lang):
    """#27.3: with trained weights Seeds said 'the weights are random, so the patterns are too ... carry no meaning'
    above four identical trained diagonals. Now no text about random weights, and what it says about the four
    maps (the same pattern, or not) follows the maps themselves, measured here from each seed's trained view."""
    from mha.lessons import heads

    at = open_heads(lang=lang, hd_section="seeds", source="trained", task="previous", d_model="32", num_heads="4",
                   heads_seed_head="1")
    assert not at.exception
    shown = texts(at)
    for key in ("hd_about_seeds", "hd_seeds_text", "hd_trained"):  # the random weights' texts
        assert tr(key, lang, head=1)[:30] not in shown, key
    assert tr("hd_about_seeds_trained", lang) in shown
    maps = np.stack([run_view(ViewSpec(text=TEXT, d_model=32, num_heads=4, seed=s, source="trained",
                                       task="previous")).weights[1] for s in range(4)])
    np.testing.assert_allclose(heatmaps(chart(at, "heads_seeds_chart")), maps, atol=1e-6)
    spread = float(max(np.abs(m - maps[0]).sum(axis=-1).mean() / 2 for m in maps[1:]))
    same = spread <= 0.1
    verdict = tr("hd_seeds_text_trained_same" if same else "hd_seeds_text_trained_differ", lang, head=1,
                 task=tr("tr_task_name_previous", lang), spread=f"{heads.seed_spread(maps):.2f}")
    assert verdict in shown


def test_seeds_on_random_weights_keep_their_text():
    at = open_heads(hd_section="seeds")
    assert tr("hd_about_seeds", "en") in texts(at) and "Trained models grow heads" in texts(at)
    assert tr("hd_about_seeds_trained", "en") not in texts(at)


def test_korean():
    at = open_heads(lang="ko", hd_section="seeds")
    assert not at.exception
    assert at.title[0].value == "헤드 탐색기"
    assert at.segmented_control(key="hd_section_pick").value == "seeds"
    assert "학습된 모델" in texts(at) and has_chart(at, "heads_seeds_chart")


def test_one_head_has_nothing_to_compare():
    at = open_heads(hd_section="compare", num_heads="1")
    assert not at.exception
    assert "There is only one head" in texts(at)
    assert not has_chart(at, "heads_sim_chart")


def test_cross_attention_leaves_out_the_positional_measures():
    at = open_heads(kv_text="a red round fruit grows on trees")
    assert not at.exception
    table = at.dataframe[0].value
    assert "mean distance" not in table.columns and "self share" not in table.columns
    assert "come from different texts" in texts(at)
    assert all(all_numbers_finite(json.loads(el.proto.spec)) for el in at.get("plotly_chart"))


def test_a_padded_batch_shuffles_only_the_real_tokens():
    at = open_heads(hd_section="order", text="a b\nc d e f", heads_shuffle="1", positional="false")
    assert not at.exception
    labels = chart(at, "heads_shuffle_chart")["data"][0]["y"]
    assert [lab.replace("\u200b", "") for lab in labels] == ["a", "b"]


@pytest.mark.parametrize("section", SECTIONS)
@pytest.mark.parametrize("params", [
    {"text": ""},
    {"heads_off": ["9", "x"], "heads_a": "7", "heads_b": "-1", "heads_qk_head": "12", "heads_query": "99",
     "heads_topk": "99", "heads_shuffle": "-5", "heads_metric": "kl", "heads_seed_head": "x", "heads_order_head": "-1"},
    {"text": "<b>x</b> [a](javascript:alert(1)) **y** `z`", "heads_shuffle": "2"},
], ids=["no text", "garbage controls", "markup"])
def test_odd_input_never_breaks_any_section(params, section):
    at = open_heads(hd_section=section, **params)
    assert not at.exception
    assert at.session_state["hd_section"] == section
    for el in at.get("plotly_chart"):
        assert all_numbers_finite(json.loads(el.proto.spec))


def test_uploaded_weights_are_what_the_page_switches_off():
    import torch

    from mha.app.state import CUSTOM_WEIGHTS_KEY
    from mha.core.attention import MultiHeadAttention
    from mha.core.inputs import init_weights

    sd = {k: v.clone() for k, v in init_weights(MultiHeadAttention(16, 4), 1234).state_dict().items()}
    at = open_page(PAGE, state={CUSTOM_WEIGHTS_KEY: {"sha": "f" * 64, "name": "mine.pt", "d_model": 16,
                                                     "state_dict": sd}},
                   heads_off=["0", "1", "2", "3"], hd_section="ablate")
    assert not at.exception
    mine = run_view(ViewSpec(), state_dict=sd)
    change = decode(chart(at, "heads_change_chart")["data"][0]["y"]).astype(float)
    np.testing.assert_allclose(change, np.linalg.norm(mine.output - sd["output_linear.bias"].numpy(), axis=-1),
                               rtol=1e-4)
    at.segmented_control(key="hd_section_pick").set_value("seeds").run()
    assert "Your uploaded weights are in use" in texts(at)
    seeded = build_model(16, 4, 0)
    assert torch.equal(seeded.output_linear.bias, init_weights(MultiHeadAttention(16, 4), 0).output_linear.bias)


@pytest.mark.parametrize("section,chart", [("compare", "heads_pair_chart"), ("order", "heads_shuffle_chart"),
                                           ("seeds", "heads_seeds_chart")])
def test_heads_weights_charts_follow_the_one_scale_rule(section, chart):
    """#16 item 5: Compare, Word order and Seeds use the Playground's rule (figures.weights_top over what they show
    together), with the same "fit to data" switch in the link; the colour bar says when the scale ends below 1."""
    extra = {"heads_shuffle": "1"} if section == "order" else {}  # the order section draws once shuffled
    at = open_heads(text="the cat sat on the mat", hd_section=section, **extra)
    assert not at.exception and charts_by_key(at)[chart]["layout"]["coloraxis"]["cmax"] == 1.0
    fitted = open_heads(text="the cat sat on the mat", hd_section=section, fit_scale="true", **extra)
    axis = charts_by_key(fitted)[chart]["layout"]["coloraxis"]
    assert not fitted.exception and axis["cmax"] < 1.0 and "(not 0 … 1)" in axis["colorbar"]["title"]["text"]
