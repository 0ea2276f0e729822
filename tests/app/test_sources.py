"""Weight sources (random / trained / pretrained) through the View, every page, links and exports. No network: the
pretrained models are tiny random ones saved locally (tests/tiny_models.py), loaded by the path a hub id takes
after its download; MHA_ALLOW_DOWNLOADS=0 keeps every hub id on this machine."""
from __future__ import annotations

import dataclasses
import io
import shutil

import numpy as np
import pytest
import tiny_models
import torch
from course_mha import MultiHeadAttention as CourseMHA
from harness.apptest import all_open, open_page, sidebar_texts
from silent_hub import TIMEOUT_S, silent_hub  # noqa: F401  (the fixture)

from mha.core.attention import MultiHeadAttention
from mha.core.i18n import text as i18n_text
from mha.lessons import heads
from mha.lessons.explain import extras
from mha.weights import pretrained, pretrained_files
from mha.weights import torch_check as tc
from mha.weights.train import layout_inputs, trained_module
from mha.weights.view import (
    ViewSpec,
    model_for,
    pretrained_options,
    pretrained_run,
    run_view,
    spec_inputs,
    validate_spec,
)

PAGES = ("pages/playground.py", "pages/explain.py", "pages/heads.py", "pages/masks.py", "pages/bugs.py",
         "pages/lab.py", "pages/share.py")
TEXT = "the cat sat on the mat\nthe dog"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("source_models")
    return {"bert": tiny_models.build("bert", root / "bert"), "gpt2": tiny_models.build("gpt2", root / "gpt2", seed=3)}


pytestmark = pytest.mark.usefixtures("offline")  # tests/app/conftest.py: a hub id never reaches the network here


def pre_spec(folder, layer=0, **kw) -> ViewSpec:
    info = pretrained.load_model(str(folder)).info
    return ViewSpec(text=TEXT, d_model=info.d_model, num_heads=info.num_heads, causal=info.causal,
                    source="pretrained", model=str(folder), layer=layer, **kw)


# ------------------------------------------------------------------------------------------------- pure
@pytest.mark.parametrize("family", ["bert", "gpt2"])
@pytest.mark.parametrize("layer", [0, 1])
def test_a_pretrained_view_is_the_models_own_attention(models, family, layer):
    spec = pre_spec(models[family], layer)
    run = pretrained_run(spec)
    for b in range(2):
        view = run_view(dataclasses.replace(spec, sentence=b))
        n = run.tokens.lengths[b]
        real = ~view.query_is_pad
        assert real.sum() == n
        # our weights equal the model's output_attentions on every query with a key to attend to
        mine, theirs = view.weights[:, real], run.model_weights[b].numpy()[:, real]
        assert np.abs(mine - theirs).max() <= 1e-5
        assert view.note_args["weights_diff"] <= 1e-5 and view.note_args["output_diff"] <= 1e-4
        assert view.tokens == run.tokens.pieces[b] and view.labels == list(run.tokens.labels[b])
        np.testing.assert_array_equal(view.x, run.x[b].numpy())
        assert view.allowed[:, :, ~real].sum() == 0  # padding keys are never attended to
        if run.info.causal:
            assert not np.triu(view.allowed[0], 1).any()
    assert spec.causal == (family == "gpt2")


def test_pretrained_modules_keep_their_biases_everywhere(models):
    spec = pre_spec(models["bert"])
    model = model_for(spec)
    assert model.query_linear.bias is not None and model is model_for(spec)  # the shared layer module
    one = model_for(spec, num_heads=1)
    assert one.num_heads == 1 and torch.equal(one.query_linear.bias, model.query_linear.bias)
    with pytest.raises(ValueError, match="hidden states"):
        spec_inputs(("the",), spec)
    view = run_view(spec)
    assert tc.check_spec(spec).passed and tc.check_sentence(view, view.allowed[0]).passed  # against torch
    ab = heads.ablate_view(view, (1,))
    assert np.abs(ab.bias + ab.results.sum(axis=0) - ab.output).max() < 1e-4  # biases stay inside the heads


def test_validate_spec_per_source():
    validate_spec(ViewSpec(source="pretrained", d_model=768, num_heads=12))  # bert-base's sizes are fine
    with pytest.raises(ValueError, match="up to 16 heads"):
        validate_spec(ViewSpec(source="pretrained", d_model=1024, num_heads=32))
    with pytest.raises(ValueError, match="d_model=1024"):
        validate_spec(ViewSpec(source="pretrained", d_model=2048, num_heads=16))
    with pytest.raises(ValueError, match="Unknown task"):
        validate_spec(ViewSpec(source="trained", task="nope"))
    with pytest.raises(ValueError, match="source must be"):
        validate_spec(ViewSpec(source="uploaded"))


def test_a_pretrained_spec_must_have_the_models_sizes(models):
    with pytest.raises(ValueError, match="keeps the model's sizes"):
        run_view(dataclasses.replace(pre_spec(models["bert"]), d_model=16, num_heads=4))


def test_server_options_from_the_environment(monkeypatch, models):
    monkeypatch.delenv("MHA_PUBLIC", raising=False)
    assert pretrained_options() == {"downloads": False, "local_root": None, "public": False, "allowed": None}
    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "yes")
    monkeypatch.setenv("MHA_MODELS_DIR", str(models["gpt2"].parent))
    options = pretrained_options()
    assert options["downloads"] and options["public"] and options["local_root"] == str(models["gpt2"].parent)
    with pytest.raises(pretrained_files.PretrainedError) as e:  # a folder outside MHA_MODELS_DIR is refused
        run_view(ViewSpec(source="pretrained", model="/proc/self/cwd", d_model=32, num_heads=4))
    assert e.value.key == "err_source_refused"


def test_trained_views_use_the_layout_everywhere():
    spec = ViewSpec(text="the cat saw the dog", source="trained", task="previous")
    view = run_view(spec)
    np.testing.assert_allclose(view.x, layout_inputs(view.tokens, spec.d_model, spec.seed).numpy(), atol=1e-6)
    ex = extras(view)
    assert ex.layout == "split"
    np.testing.assert_allclose(ex.embedding + ex.positions, view.x, atol=1e-5)
    assert not ex.embedding[:, spec.d_model // 2:].any() and not ex.positions[:, : spec.d_model // 2].any()
    # the permutation check embeds with the same layout: without positions, a shuffle only moves the rows
    checks = heads.permutation_checks(spec, view.tokens, 3)
    assert checks[False].equivariant() and not checks[True].equivariant()
    model = model_for(spec)
    x = spec_inputs(view.tokens, dataclasses.replace(spec, positional=False))[None]
    w = model.trace(x, x, x).weights[0].double().numpy()
    np.testing.assert_allclose(checks[False].weights, w, atol=1e-6)


def test_head_patterns_name_trained_heads_and_random_ones():
    spec = ViewSpec(text="the cat saw the dog and the dog saw it", source="trained", task="prev_next", num_heads=2)
    found = heads.head_patterns(run_view(spec))
    assert sorted(found["pattern"]) == ["next", "previous"] and (found["score"] >= 0.9).all()
    rand = heads.head_patterns(run_view(ViewSpec(text="the cat saw the dog\nhi")))  # padded sentence
    assert list(rand["head"]) == [0, 1, 2, 3] and ((rand["score"] >= 0) & (rand["score"] <= 1)).all()
    assert (rand["runner_up"] != rand["pattern"]).all()
    assert heads.head_patterns(run_view(ViewSpec(text="a b", kv_text="c d e"))) is None  # cross-attention


def test_the_trained_export_loads_into_the_course_class():
    from mha.app.compute import SEEDED
    from mha.app.share import parameters_bytes_callable, parameters_name
    from mha.app.state import Settings

    s = Settings(text="a b c", d_model=16, num_heads=2, causal=False, seed=1, positional=True, lang="en",
                 source="trained", task="prev_next", train_steps=40)
    sd = torch.load(io.BytesIO(parameters_bytes_callable(s, SEEDED)()), weights_only=True)
    course = CourseMHA(16, 2)
    course.load_state_dict(sd, strict=True)
    trained = trained_module("prev_next", 16, 2, 40, 1)
    x = torch.randn(1, 5, 16)
    torch.testing.assert_close(course(x, x, x), trained(x, x, x))
    assert parameters_name(s, SEEDED)[0] == "trained task=prev_next train_steps=40 seed=1"


def test_the_pretrained_export_needs_qkv_bias(models):
    from mha.app.compute import SEEDED
    from mha.app.share import parameters_bytes_callable
    from mha.app.state import Settings

    spec = pre_spec(models["bert"], layer=1)
    s = Settings(text=TEXT, d_model=spec.d_model, num_heads=spec.num_heads, causal=False, seed=0, positional=True,
                 lang="en", source="pretrained", model=spec.model, layer=1)
    sd = torch.load(io.BytesIO(parameters_bytes_callable(s, SEEDED)()), weights_only=True)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        CourseMHA(spec.d_model, spec.num_heads).load_state_dict(sd, strict=True)
    ours = MultiHeadAttention(spec.d_model, spec.num_heads, qkv_bias=True)
    ours.load_state_dict(sd, strict=True)
    run = pretrained_run(spec)
    with torch.no_grad():
        out = ours(run.x, run.x, run.x, run.mask)
    real = run.tokens.attention_mask.bool()
    assert (out - run.model_output).abs()[real].max() < 1e-4


# ------------------------------------------------------------------------------------------------- app
def main_texts(at, kind) -> list[str]:
    return [str(e.value) for e in at.main.get(kind)]


def badge_text(at) -> str:
    found = [str(m.value) for m in at.get("markdown") if "badge[" in str(m.value)]
    return found[0] if found else ""


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_on_trained_weights(page, lang):
    at = open_page(page, all_open(page), source="trained", task="previous", lang=lang)  # folded charts too
    assert not at.exception, at.exception
    assert not at.main.get("error"), main_texts(at, "error")
    note = i18n_text("src_note_trained", lang, task=i18n_text("tr_task_name_previous", lang), steps=300, seed=0,
                     d_model=16, num_heads=4, half=8)
    assert note in main_texts(at, "info")


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_on_a_local_pretrained_model(models, page, lang):
    at = open_page(page, all_open(page), source="pretrained", model=str(models["gpt2"]), layer="1", lang=lang,
                   text=TEXT)
    assert not at.exception, at.exception
    assert not at.main.get("error"), main_texts(at, "error")
    assert any(i18n_text("src_note_pretrained", lang, model="X", layer=1, num_layers=2, d_model=32,
                         num_heads=4).split("X")[0].rstrip("`") in n for n in main_texts(at, "info"))
    badge = badge_text(at)
    diff = run_view(pre_spec(models["gpt2"], 1)).note_args["weights_diff"]
    assert "green-badge" in badge and f"{diff:.1e}" in badge, badge


def test_the_playground_shows_the_models_tokens(models):
    at = open_page("pages/playground.py", source="pretrained", model=str(models["bert"]), text="the cat playing")
    from harness.apptest import canvas_charts

    grid = canvas_charts(at)["grid"]  # drawn in the page: readable labels, raw pieces for the hover
    assert grid["q"] == grid["k"] == ["[CLS]", "the", "cat", "play", "…ing", "[SEP]"]
    assert grid["q_raw"][4] == "##ing"


def test_pretrained_controls_are_locked_and_say_why(models):
    at = open_page("pages/playground.py", source="pretrained", model=str(models["gpt2"]))
    sb = at.sidebar
    d_model, num_heads = sb.selectbox(key="src_d_model_locked"), sb.selectbox(key="src_num_heads_locked")
    assert (d_model.value, num_heads.value) == (32, 4) and d_model.disabled and num_heads.disabled
    causal = sb.toggle(key="src_causal_locked")
    assert causal.value is True and causal.disabled  # GPT-2 is a decoder
    assert sb.toggle(key="src_padding_locked").disabled and sb.toggle(key="positional").disabled
    assert sb.number_input(key="seed").disabled and sb.text_area(key="kv_text").disabled
    texts = sidebar_texts(at)
    for what in ("seed", "positional", "kv_text"):
        assert i18n_text("src_not_apply", "en", what=i18n_text(f"src_not_apply_{what}", "en")) in texts
    assert i18n_text("src_locked_sizes", "en") in texts


def test_a_missing_folder_and_an_unsupported_model_are_named_next_to_the_control(models, tmp_path):
    at = open_page("pages/playground.py", source="pretrained", model=str(tmp_path / "nowhere"))
    assert not at.exception
    errors = [str(e.value) for e in at.sidebar.get("error")]
    assert errors and "neither a folder on this server nor a Hugging Face model id" in errors[0]
    assert i18n_text("src_page_needs_model", "en") in main_texts(at, "info")
    assert not at.get("plotly_chart") and not [el for el in at.get("bidi_component")
                                               if el.proto.component_name == "mha_heatmaps"]

    from transformers import AlbertConfig

    folder = tmp_path / "albert"
    AlbertConfig(hidden_size=32, num_attention_heads=4, intermediate_size=37).save_pretrained(folder)
    (folder / "model.safetensors").write_bytes(b"0" * 10)
    shutil.copy(models["bert"] / "vocab.txt", folder / "vocab.txt")
    at = open_page("pages/heads.py", source="pretrained", model=str(folder), lang="ko")
    assert not at.exception
    errors = [str(e.value) for e in at.sidebar.get("error")]
    assert errors and i18n_text("err_unsupported", "ko", model_type="albert") in errors[0]


def test_a_hub_id_on_a_server_that_does_not_download(models):
    at = open_page("pages/playground.py", source="pretrained", model="someone/some-model")
    errors = [str(e.value) for e in at.sidebar.get("error")]
    assert errors and "does not download models" in errors[0].replace("\\", "")
    # the app keeps working: back to random weights
    at.sidebar.segmented_control(key="source").set_value("random").run()
    assert not at.exception and [el for el in at.get("bidi_component") if el.proto.component_name == "mha_heatmaps"]


def test_link_values_are_used_and_bad_ones_named(models):
    at = open_page("pages/heads.py", source="trained", task="prev_next", num_heads="2", train_steps="120")
    assert at.session_state["task"] == "prev_next" and at.sidebar.number_input(key="train_steps").value == 120
    assert at.sidebar.selectbox(key="task_shown").format_func("prev_next") == i18n_text("tr_task_name_prev_next", "en")
    ko = open_page("pages/playground.py", source="trained", task="prev_next", lang="ko")  # names, not ids (#16)
    shown = ko.sidebar.selectbox(key="task_shown")
    assert i18n_text("tr_task_name_prev_next", "ko") in shown.options and "prev_next" not in shown.options
    assert ko.session_state["task"] == "prev_next"
    assert any("“" + i18n_text("tr_task_name_prev_next", "en") + "” (120 steps" in n for n in main_texts(at, "info"))
    at = open_page("pages/playground.py", source="trained", task="bogus", d_model="256")
    assert not at.exception
    warnings = " ".join(str(w.value) for w in at.sidebar.get("warning"))
    assert "task" in warnings and "bogus" in warnings
    at = open_page("pages/playground.py", source="pretrained", model=str(models["bert"]), layer="9")
    warnings = " ".join(str(w.value) for w in at.sidebar.get("warning"))
    # past the model's last layer (2 layers: 0 and 1): the last, and the note says so (#26.6)
    assert "layer" in warnings and "9" in warnings and at.sidebar.number_input(key="layer").value == 1
    assert "has 2 layers" in warnings  # the layer count, not just the value used (test_a_layer_past_the_last_...)


@pytest.mark.parametrize("layers", [2, 6])
def test_a_layer_past_the_last_names_the_models_layer_count(tmp_path, layers):
    """layer=9 on a model of ``layers`` layers: the last one, and the note says how many the model has, in both
    languages (the Korean particle after the layer shown follows its final sound: 1을, 5를)."""
    from mha.core import i18n

    folder = tiny_models.build("bert", tmp_path / "bert", layers=layers)
    last = layers - 1
    for lang in ("en", "ko"):
        at = open_page("pages/playground.py", source="pretrained", model=str(folder), layer="9", lang=lang)
        assert not at.exception and at.sidebar.number_input(key="layer").value == last
        warnings = [str(w.value) for w in at.sidebar.get("warning")]
        note = [w for w in warnings if "layer=" in w]
        assert len(note) == 1, warnings
        if lang == "en":
            assert f"has {layers} layers (0 to {last})" in note[0] and f"layer {last}." in note[0], note
        else:
            assert f"층은 {layers}개(0~{last})" in note[0], note
            assert f"마지막 층 {last}{i18n.particle(str(last), '을(를)')} " in note[0], note
    at = open_page("pages/playground.py", source="pretrained", model=str(folder), layer=str(last))
    assert not [w for w in at.sidebar.get("warning") if "layer=" in str(w.value)]  # a layer in range: no note


def test_trained_weights_cap_d_model(models):
    at = open_page("pages/playground.py", state={"d_model": 256})
    at.sidebar.segmented_control(key="source").set_value("trained").run()
    assert not at.exception
    assert at.sidebar.selectbox(key="d_model").value == 128
    assert i18n_text("src_trained_dmodel", "en", max=128, old=256, new=128) in sidebar_texts(at)


def test_the_heads_page_names_what_each_head_does():
    at = open_page("pages/heads.py", source="trained", task="prev_next", num_heads="2",
                   text="the cat saw the dog and the dog saw it")
    assert not at.exception
    from harness.apptest import table

    df = table(at, "heads_names_table")
    pattern_col = i18n_text("src_col_pattern", "en")
    assert sorted(df[pattern_col]) == sorted([i18n_text("tr_pattern_previous", "en"),
                                              i18n_text("tr_pattern_next", "en")])
    at = open_page("pages/heads.py", source="random", hd_section="measure")
    assert len(table(at, "heads_names_table")) == 4


def test_the_heads_page_says_what_does_not_apply(models):
    for section, key in (("order", "src_heads_order_pretrained"), ("seeds", "src_heads_seeds_pretrained")):
        at = open_page("pages/heads.py", source="pretrained", model=str(models["bert"]), hd_section=section)
        assert not at.exception and i18n_text(key, "en") in main_texts(at, "info")


@pytest.mark.parametrize("source", ["trained", "pretrained"])
def test_the_link_carries_the_source_and_reopens_the_same_view(models, source):
    from harness.apptest import chart_specs, link_params

    given = (dict(source="trained", task="next", train_steps="150", num_heads="2", seed="3") if source == "trained"
             else dict(source="pretrained", model=str(models["bert"]), layer="1"))
    at = open_page("pages/playground.py", **given)
    params = link_params(at)
    assert {k: params.get(k) for k in given} == given
    again = open_page("pages/playground.py", **params)
    assert not again.exception
    assert [s["data"] for s in chart_specs(again).values()] == [s["data"] for s in chart_specs(at).values()]


def test_the_note_names_the_raw_pieces_behind_the_labels(models):
    at = open_page("pages/playground.py", source="pretrained", model=str(models["gpt2"]), text="the cat playing")
    captions = " ".join(str(c.value) for c in at.main.get("caption"))
    assert "`…ing` = `ing`" in captions and "`cat` = `Ġcat`" in captions


def test_an_unreachable_hub_is_asked_once_a_minute_and_outside_the_compute_limit(monkeypatch):
    import huggingface_hub
    from huggingface_hub.errors import DryRunError

    from mha.app import compute

    calls = []

    def offline(*args, **kwargs):
        calls.append(compute.HEAVY_WORK._value)  # compute slots free while the hub is asked
        raise DryRunError("Dry run cannot be performed as the repository cannot be accessed.")

    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "1")
    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    monkeypatch.setattr(pretrained_files, "_hub_cached_folder", lambda repo_id: None)
    pretrained_files.forget_failures()
    at = open_page("pages/playground.py", source="pretrained", model="someone/unreachable-model")
    errors = [str(e.value).replace("\\", "") for e in at.sidebar.get("error")]
    assert errors and "cannot be reached" in errors[0] and "save_pretrained" in errors[0]
    at.run()
    assert calls == [2] and "cannot be reached" in str(at.sidebar.get("error")[0].value)


def test_a_silent_hub_shows_its_timeout_and_the_next_visitor_does_not_wait(silent_hub, monkeypatch):
    """A hub that accepts and never answers: the page shows the timeout message next to the model control (AppTest's
    run timeout, many times the hub timeout, is the bound: a hang fails the test), the app keeps working, and a second
    visitor gets the remembered message without a new request to the hub."""
    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "1")
    at = open_page("pages/playground.py", source="pretrained", model=pretrained_files.DEFAULT_MODEL, lang="ko")
    assert not at.exception
    errors = [str(e.value) for e in at.sidebar.get("error")]
    assert errors and f"{TIMEOUT_S}초 안에 응답하지 않았고" in errors[0]
    asked = len(silent_hub.connections)
    assert asked >= 1
    second = open_page("pages/playground.py", source="pretrained", model=pretrained_files.DEFAULT_MODEL)
    errors = [str(e.value).replace("\\", "") for e in second.sidebar.get("error")]
    assert errors and f"did not answer within {TIMEOUT_S} s" in errors[0]
    assert len(silent_hub.connections) == asked
    second.sidebar.segmented_control(key="source").set_value("random").run()
    assert not second.exception and [el for el in second.get("bidi_component")
                                      if el.proto.component_name == "mha_heatmaps"]


def test_a_public_server_names_nothing_of_its_disk(models, monkeypatch, tmp_path):
    monkeypatch.setenv("MHA_PUBLIC", "1")
    shown = set()
    for source in ("/proc/self/cwd", str(tmp_path / "nowhere"), str(models["bert"]), "~/.ssh", "someone/any-model"):
        at = open_page("pages/playground.py", source="pretrained", model=source)
        assert not at.exception
        shown |= {str(e.value) for e in at.sidebar.get("error")}
    assert shown == {i18n_text("err_source_refused", "en")}
    monkeypatch.setenv("MHA_MODELS_DIR", str(models["bert"].parent))
    at = open_page("pages/playground.py", source="pretrained", model="bert")  # inside the models folder: loads
    assert not at.exception and not at.sidebar.get("error")


def test_step_by_step_explains_each_sources_input(models):
    at = open_page("pages/explain.py", source="trained", task="previous")
    infos = main_texts(at, "info")
    assert any(i18n_text("src_explain_split", "en", half=8, rest=8) in n for n in infos)
    at = open_page("pages/explain.py", source="pretrained", model=str(models["bert"]), lang="ko")
    infos = main_texts(at, "info")
    assert any(i18n_text("src_explain_model_x", "ko") in n for n in infos)
    assert i18n_text("src_explain_bias", "ko") in infos
    tabs = [t.label for t in at.tabs]
    assert i18n_text("ex_tab_embedding", "ko") not in tabs  # no embedding table of ours behind a model's x


def test_an_uploaded_file_replaces_trained_parameters_not_a_pretrained_layer(models):
    from harness.apptest import canvas_charts, canvas_values

    from mha.app.state import CUSTOM_WEIGHTS_KEY
    from mha.weights.view import build_model

    sd = {k: v.clone() for k, v in build_model(16, 4, 7).state_dict().items()}
    upload = {"sha": "f" * 64, "name": "`mine.pt`", "d_model": 16, "state_dict": sd}
    at = open_page("pages/playground.py", source="trained", task="previous", state={CUSTOM_WEIGHTS_KEY: upload})
    assert not at.exception
    assert i18n_text("share_custom_note", "en", name="`mine.pt`", d_model=16) in main_texts(at, "info")
    grid = canvas_values(canvas_charts(at)["grid"])
    spec = ViewSpec(source="trained", task="previous")
    expected = run_view(spec, state_dict=sd).weights  # the uploaded parameters on the trained layout
    np.testing.assert_allclose(np.stack(grid), expected, atol=1e-4)
    assert not np.allclose(expected, run_view(spec).weights, atol=1e-3)
    at = open_page("pages/playground.py", source="pretrained", model=str(models["bert"]),
                   state={CUSTOM_WEIGHTS_KEY: dict(upload, d_model=32)})
    assert not at.exception and "green-badge" in badge_text(at)
    assert i18n_text("src_upload_not_used", "en") in " ".join(main_texts(at, "caption"))


def test_loading_reports_progress_then_clears_it(models, monkeypatch):
    from mha.app import sources

    class Box:
        def __init__(self):
            self.calls = []

        def empty(self):
            return self

        def progress(self, frac, text=None):
            self.calls.append((frac, text))
            return self

    monkeypatch.setattr(sources, "_LOADED", set())
    pretrained.clear_cache()
    box = Box()
    info, error = sources.load_info(str(models["gpt2"]), box)
    assert error is None and info.family == "gpt2" and info.causal
    assert box.calls and box.calls[0][1].startswith("Loading") and all(0 <= f <= 1 for f, _ in box.calls)
    box2 = Box()
    assert sources.load_info(str(models["gpt2"]), box2)[0] == info and not box2.calls  # loaded: no bar again


@pytest.mark.parametrize("page", ["pages/train.py", "pages/induction.py"])
def test_pages_that_train_their_own_modules_do_not_name_the_sidebar_weights(page):
    """Train and Induction show modules they train themselves: the sidebar's 'weights in use' note would mislead."""
    at = open_page(page, source="trained", task="previous", lang="en")
    assert not at.exception, at.exception
    note = i18n_text("src_note_trained", "en", task=i18n_text("tr_task_name_previous", "en"), steps=300, seed=0,
                     d_model=16, num_heads=4, half=8)
    assert note not in main_texts(at, "info")
    at = open_page("pages/playground.py", source="trained", task="previous", lang="en")  # the note is still there
    assert note in main_texts(at, "info")
