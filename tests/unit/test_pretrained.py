"""Real heads without a network: tiny random models of every supported family, saved with save_pretrained and
loaded through the same path a downloaded hub model takes. Our module must give the model's own attention weights
and output projection, on the hidden states the model gives the layer, with the model's tokens and masks."""
from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest
import tiny_models
import torch
from course_mha import MultiHeadAttention as CourseMHA

from mha.core.attention import MultiHeadAttention
from mha.weights import pretrained as P
from mha.weights import pretrained_files
from mha.weights.pretrained_files import PretrainedError

TOL = 1e-5  # float32, two code paths
SENTENCES = ["the cat sat on the mat", "the dog playing", "a cat"]  # three lengths: padding on two of them


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    out = {family: tiny_models.build(family, root / family, layers=3 if family == "distilbert" else 2)
           for family in tiny_models.FAMILIES}
    out["bert_decoder"] = tiny_models.build("bert", root / "bert_decoder", is_decoder=True, seed=1)
    out["electra_ko"] = tiny_models.build("electra", root / "electra_ko", korean=True, seed=2)
    return out


@pytest.fixture(autouse=True)
def fresh_cache():
    P.clear_cache()
    yield
    P.clear_cache()


def model_inputs(tokens: P.ModelTokens) -> dict:
    inputs = {"input_ids": tokens.ids, "attention_mask": tokens.attention_mask}
    if tokens.token_type_ids is not None:
        inputs["token_type_ids"] = tokens.token_type_ids
    return inputs


def additive(allowed: torch.Tensor) -> torch.Tensor:
    """The float mask transformers' eager attention adds to the scores: 0 where allowed, the dtype's minimum else."""
    return torch.zeros(allowed.shape).masked_fill(~allowed, torch.finfo(torch.float32).min)


def reference(loaded: P.LoadedModel, layer: int, tokens: P.ModelTokens):
    """The layer's input, attention weights and output projection from the model's public outputs and its own
    modules, without mha.weights.pretrained's hooks: output_hidden_states / output_attentions of a full run, then the
    model's attention module called directly on that input."""
    family = loaded.family
    with torch.no_grad():
        out = loaded.model(**model_inputs(tokens), output_attentions=True, output_hidden_states=True)
        block = P._sub(loaded.model, family.layers)[layer]
        x = out.hidden_states[layer]
        if family.key == "gpt2":
            x = block.ln_1(x)  # GPT-2 normalises before attention (pre-LN)
        attention = P._sub(block, family.attention)
        mask = additive(P.allowed_mask(tokens, loaded.info.causal))
        result = attention(x, attention_mask=mask)
        projected = result[0] if family.key in ("gpt2", "distilbert") else P._sub(block, family.projection)(result[0])
    return x, out.attentions[layer], projected


def rows_with_keys(run: P.LayerRun) -> torch.Tensor:
    return ~run.trace.fully_masked  # (B, H, Tq)


@pytest.mark.parametrize("name", list(tiny_models.FAMILIES) + ["bert_decoder", "electra_ko"])
def test_every_layer_equals_the_models_own_attention(folders, name):
    loaded = P.load_model(str(folders[name]))
    texts = ["안녕하세요 고양이가 앉았다", "고양이"] if name == "electra_ko" else SENTENCES
    assert loaded.info.num_layers >= 2
    for layer in range(loaded.info.num_layers):
        run = P.run_layer(loaded, layer, texts)
        x, attentions, projected = reference(loaded, layer, run.tokens)
        rows = rows_with_keys(run)
        assert run.trace.weights.shape == attentions.shape == (3 if texts is SENTENCES else 2, loaded.info.num_heads,
                                                               run.tokens.ids.size(1), run.tokens.ids.size(1))
        # the input our module got is the one the model gives this layer
        torch.testing.assert_close(run.x, x, rtol=0, atol=TOL)
        # the model's numbers captured on the short path are its output_attentions and its own projection
        torch.testing.assert_close(run.model_weights[rows], attentions[rows], rtol=0, atol=TOL)
        # ours against the model's public outputs, with the same tolerance as the badge
        assert (run.trace.weights - attentions).abs()[rows].max() <= TOL
        real = run.tokens.attention_mask.bool()
        assert (run.trace.output - projected).abs()[real].max() <= TOL
        assert run.weights_diff <= TOL and run.output_diff <= TOL
        # the weights are far from uniform, so equality means something
        assert run.trace.weights[rows].max() > 0.5


@pytest.mark.parametrize("name", list(tiny_models.FAMILIES) + ["bert_decoder"])
def test_masks_are_the_models_masks(folders, name):
    loaded = P.load_model(str(folders[name]))
    run = P.run_layer(loaded, 0, SENTENCES)
    tokens, mask = run.tokens, run.mask
    T = tokens.ids.size(1)
    assert loaded.info.causal == (name in ("gpt2", "bert_decoder"))
    for b, length in enumerate(tokens.lengths):
        keys_real = tokens.attention_mask[b].bool()
        assert keys_real.sum() == length
        expected = keys_real.expand(T, T)
        if loaded.info.causal:
            expected = expected & torch.ones(T, T, dtype=torch.bool).tril()
        assert torch.equal(mask[b, 0], expected)
    # the model masked exactly what we masked, on every row that has a key to attend to
    assert run.model_allowed is not None
    rows = rows_with_keys(run)[:, :1]  # (B, 1, Tq)
    theirs = run.model_allowed.expand_as(mask)
    assert torch.equal(theirs[rows], mask[rows])
    # blocked keys get exactly zero weight
    assert (run.trace.weights.masked_select(~mask) == 0).all()
    # one sentence: an encoder blocks nothing (no mask is passed at all), a decoder still blocks the future
    one = P.run_layer(loaded, 0, SENTENCES[:1])
    assert (one.trace.mask is None) == (not loaded.info.causal) and one.mask.all() == (not loaded.info.causal)
    assert one.weights_diff <= TOL


def test_left_padding_follows_the_tokenizer(folders, tmp_path):
    folder = shutil.copytree(folders["gpt2"], tmp_path / "gpt2_left")
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["padding_side"] = "left"
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    loaded = P.load_model(str(folder))
    run = P.run_layer(loaded, 1, SENTENCES)
    tokens = run.tokens
    assert tokens.attention_mask[2, 0] == 0 and tokens.attention_mask[2, -1] == 1  # pads in front
    assert tokens.is_pad[2].sum() == tokens.ids.size(1) - tokens.lengths[2]
    assert run.weights_diff <= TOL and run.output_diff <= TOL
    # a padding query in front of a causal sentence has no key at all: weights 0, excluded from the difference
    assert run.trace.fully_masked[2, :, 0].all()


def test_a_folder_laid_out_like_the_default_models_hub_repo(folders, tmp_path):
    """google/bert_uncased_L-4_H-256_A-4 on the hub: config.json, vocab.txt (no tokenizer config) and a
    pytorch_model.bin of BertForPreTraining (keys under "bert.") - no safetensors."""
    from safetensors.torch import load_file

    folder = tmp_path / "bert_mini_layout"
    folder.mkdir()
    for name in ("config.json", "vocab.txt"):
        shutil.copy(folders["bert"] / name, folder / name)
    state = load_file(folders["bert"] / "model.safetensors")
    torch.save({"bert." + k: v for k, v in state.items()}, folder / "pytorch_model.bin")
    loaded = P.load_model(str(folder))
    assert loaded.info.size_bytes == (folder / "pytorch_model.bin").stat().st_size
    reference_run = P.run_layer(P.load_model(str(folders["bert"])), 1, SENTENCES)
    run = P.run_layer(loaded, 1, SENTENCES)
    assert run.tokens.pieces == reference_run.tokens.pieces
    torch.testing.assert_close(run.trace.weights, reference_run.trace.weights, rtol=0, atol=0)
    assert run.weights_diff <= TOL


def test_tokens_are_the_tokenizers_with_readable_labels(folders):
    bert = P.load_model(str(folders["bert"]))
    toks = P.model_tokens(bert, ["The cat playing!"])
    ids = bert.tokenizer("The cat playing!")["input_ids"]
    assert toks.ids[0].tolist() == ids
    assert toks.pieces[0] == tuple(bert.tokenizer.convert_ids_to_tokens(ids))
    assert toks.pieces[0] == ("[CLS]", "the", "cat", "play", "##ing", "!", "[SEP]")
    assert toks.labels[0] == ("[CLS]", "the", "cat", "play", P.CONTINUES + "ing", "!", "[SEP]")
    assert toks.special[0] == (True, False, False, False, False, False, True)
    assert toks.continues[0] == (False, False, False, False, True, False, False)
    assert toks.token_type_ids is not None and toks.token_type_ids.shape == toks.ids.shape

    gpt2 = P.load_model(str(folders["gpt2"]))
    text = "the cat playing\nthe dog"
    toks = P.model_tokens(gpt2, [text])
    ids = gpt2.tokenizer(text)["input_ids"]
    assert toks.ids[0].tolist() == ids and toks.token_type_ids is None
    assert toks.pieces[0] == tuple(gpt2.tokenizer.convert_ids_to_tokens(ids))
    assert "Ġcat" in toks.pieces[0] and "Ġcat" not in toks.labels[0] and "cat" in toks.labels[0]
    # the labels give the text back: a piece that continues a word joins it, any other starts a new word
    words = []
    for label, cont in zip(toks.labels[0], toks.continues[0]):
        if cont:
            words[-1] += label.removeprefix(P.CONTINUES)
        else:
            words.append(label)
    assert " ".join(words).replace(P.NEWLINE, "\n").split() == text.split()
    assert P.NEWLINE in toks.labels[0]
    after_break = toks.labels[0].index(P.NEWLINE) + 1
    assert not toks.continues[0][after_break]  # a new line starts a new word


def test_byte_pieces_of_a_character_show_their_bytes(folders):
    gpt2 = P.load_model(str(folders["gpt2"]))
    toks = P.model_tokens(gpt2, ["안"])  # one Hangul syllable: three UTF-8 bytes, no merges in the tiny vocabulary
    assert len(toks.pieces[0]) == 3
    # each piece: the character its bytes are part of (#26.5), then its bytes
    assert all(label.removeprefix(P.CONTINUES).startswith("안⟨") for label in toks.labels[0])
    byte_part = [label[label.index("⟨"):] for label in toks.labels[0]]
    assert [b.strip("⟨⟩") for b in byte_part[:1]] == ["EC"]
    assert all("\ufffd" not in label for label in toks.labels[0])
    assert bytes(int(b.strip("⟨⟩"), 16) for b in byte_part) == "안".encode()


def test_the_byte_table_is_transformers_own():
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    assert P._byte_decoder() == {ch: b for b, ch in bytes_to_unicode().items()}


def test_switching_to_a_layer_already_passed_does_not_run_the_model(folders):
    loaded = P.load_model(str(folders["bert"]))
    texts = ["the cat sat", "a dog"]
    calls = []
    hook = P._sub(loaded.model, "embeddings").register_forward_hook(lambda *a: calls.append(1))
    try:
        top = P.run_layer(loaded, 1, texts)
        assert len(calls) == 1
        below = P.run_layer(loaded, 0, texts)  # layer 0 was passed on the way to layer 1: kept
        assert len(calls) == 1
        P.run_layer(loaded, 1, ["the cat"])  # other tokens: run
        assert len(calls) == 2
    finally:
        hook.remove()
    P.clear_cache()  # a fresh model, nothing kept: the same numbers
    fresh = P.load_model(str(folders["bert"]))
    for layer, run in ((0, below), (1, top)):
        again = P.run_layer(fresh, layer, texts)
        for name in ("x", "model_weights", "model_output"):
            assert torch.equal(getattr(run, name), getattr(again, name)), (layer, name)
        assert torch.equal(run.trace.weights, again.trace.weights)


def test_korean_wordpiece_labels(folders):
    ko = P.load_model(str(folders["electra_ko"]))
    toks = P.model_tokens(ko, ["안녕하세요"])
    assert toks.labels[0] == ("[CLS]", "안녕", P.CONTINUES + "하세요", "[SEP]")
    assert toks.pieces[0][2] == "##하세요"


def test_long_text_is_cut_to_the_limit_with_its_special_tokens(folders):
    bert = P.load_model(str(folders["bert"]))
    toks = P.model_tokens(bert, ["the cat " * 50, "a cat"], max_tokens=10)
    assert toks.truncated == (True, False)
    assert toks.full_lengths == (102, 4)  # [CLS] + 100 words + [SEP]; the note can say how many were cut
    assert toks.ids.size(1) == 10 and toks.lengths == (10, 4)
    assert toks.pieces[0][0] == "[CLS]" and toks.pieces[0][-1] == "[SEP]"
    # the model's own positions bound it too (40 here)
    assert P.model_tokens(bert, ["the cat " * 50], max_tokens=500).ids.size(1) == bert.info.max_tokens == 40


def test_empty_text_and_bad_layers_have_clear_messages(folders):
    loaded = P.load_model(str(folders["gpt2"]))
    with pytest.raises(PretrainedError, match="Type a sentence") as e:
        P.model_tokens(loaded, ["  "])
    assert e.value.key == "err_empty_text"
    for bad in (-1, 2, True, 1.0, "1"):
        with pytest.raises(PretrainedError, match="from 0 to 1") as e:
            P.run_layer(loaded, bad, ["the cat"])
        assert e.value.key == "err_layer"


def test_layer_module_is_the_course_module_with_biases(folders):
    loaded = P.load_model(str(folders["gpt2"]))
    module = P.layer_module(loaded, 1)
    assert type(module) is MultiHeadAttention
    assert (module.d_model, module.num_heads) == (loaded.info.d_model, loaded.info.num_heads)
    # GPT-2's fused Conv1D (in, 3 * out) split into three nn.Linear (out, in) weights
    c_attn = loaded.model.h[1].attn.c_attn
    d = loaded.info.d_model
    torch.testing.assert_close(module.key_linear.weight, c_attn.weight[:, d:2 * d].t(), rtol=0, atol=0)
    torch.testing.assert_close(module.value_linear.bias, c_attn.bias[2 * d:], rtol=0, atol=0)
    assert P.layer_module(loaded, 1) is module  # built once, shared
    assert not any(p.requires_grad for p in module.parameters())


def test_the_course_module_and_its_state_dict_are_unchanged():
    ours, course = MultiHeadAttention(16, 4), CourseMHA(16, 4)
    assert list(ours.state_dict()) == list(course.state_dict())
    assert ours.query_linear.bias is None and ours.output_linear.bias is not None
    ours.load_state_dict(course.state_dict(), strict=True)
    biased = MultiHeadAttention(16, 4, qkv_bias=True)
    assert set(biased.state_dict()) - set(course.state_dict()) == {
        "query_linear.bias", "key_linear.bias", "value_linear.bias"}


def test_unsupported_architectures_get_a_clear_message(folders, tmp_path):
    from transformers import AlbertConfig

    folder = tmp_path / "albert"
    AlbertConfig(hidden_size=32, num_attention_heads=4, intermediate_size=37).save_pretrained(folder)
    (folder / "model.safetensors").write_bytes(b"0" * 10)
    shutil.copy(folders["bert"] / "vocab.txt", folder / "vocab.txt")
    with pytest.raises(PretrainedError, match=r"\(albert\) is not supported.*BERT, RoBERTa, ELECTRA") as e:
        P.load_model(str(folder))
    assert e.value.key == "err_unsupported"

    config = json.loads((folder / "config.json").read_text())
    config["model_type"] = "no-such-architecture"
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(PretrainedError, match="supported family") as e:
        P.load_model(str(folder))
    assert e.value.key == "err_unsupported"

    scaled = tiny_models.build("gpt2", tmp_path / "gpt2_scaled", scale_attn_by_inverse_layer_idx=True)
    with pytest.raises(PretrainedError, match="1/sqrt\\(head_dim\\)") as e:
        P.load_model(str(scaled))
    assert e.value.key == "err_unsupported_scaling"


def test_bad_sources_and_folders(folders, tmp_path):
    for bad in ("", "   ", "not an id!", "../no-such-folder", "a/b/c", "x" * 300, "a\x00b", "~nobody_here/x"):
        with pytest.raises(PretrainedError) as e:
            P.load_model(bad)
        assert e.value.key == "err_bad_source"
    (tmp_path / "empty").mkdir()
    with pytest.raises(PretrainedError, match="save_pretrained") as e:
        P.load_model(str(tmp_path / "empty"))
    assert e.value.key == "err_folder_incomplete"
    with pytest.raises(PretrainedError, match="must be inside") as e:
        P.load_model(str(folders["bert"]), local_root=str(tmp_path))
    assert e.value.key == "err_folder_outside"
    assert P.load_model(str(folders["bert"]), local_root=str(folders["bert"].parent)).info.family == "bert"


def test_the_size_cap_refuses_a_local_folder(folders, monkeypatch):
    size = pretrained_files.folder_size(folders["bert"])
    assert size == (folders["bert"] / "model.safetensors").stat().st_size
    with pytest.raises(PretrainedError, match="limit") as e:
        P.load_model(str(folders["bert"]), max_bytes=size - 1)
    assert e.value.key == "err_too_large" and e.value.args_["max_mb"] == 0
    assert P.load_model(str(folders["bert"]), max_bytes=size).info.size_bytes == size
    monkeypatch.setenv(pretrained_files.MAX_BYTES_ENV, "7")
    assert pretrained_files.max_bytes_from_env() == 7 * pretrained_files.MB
    monkeypatch.setenv(pretrained_files.MAX_BYTES_ENV, "lots")
    with pytest.raises(PretrainedError, match="whole number of MB"):
        pretrained_files.max_bytes_from_env()


class FakeHub:
    """The two hub client calls mha.weights.pretrained makes, answered from a local folder (no network)."""

    def __init__(self, source: Path, cache: Path, sizes: dict | None = None):
        self.source, self.cache, self.sizes = source, cache, sizes or {}
        self.fetched: list[str] = []

    def snapshot_download(self, repo_id, *, allow_patterns=None, dry_run=False, **kwargs):
        from huggingface_hub.file_download import DryRunFileInfo

        assert dry_run, "only the dry run lists the files"
        return [DryRunFileInfo(commit_hash="c0ffee", file_size=self.sizes.get(p.name, p.stat().st_size),
                               filename=p.name, local_path="", is_cached=False, will_download=True)
                for p in sorted(self.source.iterdir())]

    def hf_hub_download(self, repo_id, filename, *, revision=None, tqdm_class=None, **kwargs):
        assert revision == "c0ffee"
        self.fetched.append(filename)
        target = self.cache / repo_id.replace("/", "--") / "snapshots" / revision / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.source / filename, target)
        if tqdm_class is not None:
            size = target.stat().st_size
            with tqdm_class(total=size, initial=0, unit="B") as bar:
                bar.update(size // 2)
                bar.update(size - size // 2)
                bar.set_postfix_str("fast")
        return str(target)


@pytest.fixture
def fake_hub(folders, tmp_path, monkeypatch):
    import huggingface_hub

    def install(name: str, **kw) -> FakeHub:
        hub = FakeHub(folders[name], tmp_path / "hub", **kw)
        monkeypatch.setattr(huggingface_hub, "snapshot_download", hub.snapshot_download)
        monkeypatch.setattr(huggingface_hub, "hf_hub_download", hub.hf_hub_download)
        monkeypatch.setattr(pretrained_files, "_hub_cached_folder", lambda repo_id: None)
        return hub

    return install


def test_a_hub_id_downloads_with_progress_then_loads_like_a_folder(folders, fake_hub):
    hub = fake_hub("gpt2")
    calls = []
    loaded = P.load_model("someone/tiny-gpt2", progress=lambda *a: calls.append(a))
    assert loaded.info.source == "someone/tiny-gpt2" and loaded.info.family == "gpt2"
    assert hub.fetched[0] == "config.json" and "model.safetensors" in hub.fetched
    downloads = [c for c in calls if c[0] == "download"]
    assert downloads[0][1] == 0 and downloads[-1][1] == downloads[-1][2] > pretrained_files.folder_size(folders["gpt2"])
    assert [d for _, d, _ in downloads] == sorted(d for _, d, _ in downloads)
    assert calls[-1][0] == "load"
    local = P.run_layer(P.load_model(str(folders["gpt2"])), 1, SENTENCES)
    remote = P.run_layer(loaded, 1, SENTENCES)
    torch.testing.assert_close(remote.trace.weights, local.trace.weights, rtol=0, atol=0)


def test_a_server_that_does_not_download(fake_hub, folders):
    hub = fake_hub("bert")
    with pytest.raises(PretrainedError, match="does not download") as e:
        P.load_model("someone/tiny-bert", downloads=False)
    assert e.value.key == "err_downloads_off" and hub.fetched == []
    assert P.load_model(str(folders["bert"]), downloads=False).info.family == "bert"  # folders still load


def test_the_size_cap_refuses_before_downloading(fake_hub):
    hub = fake_hub("bert", sizes={"model.safetensors": 2_000 * pretrained_files.MB})
    with pytest.raises(PretrainedError, match="2,000 MB") as e:
        P.load_model("someone/huge-bert")
    assert e.value.key == "err_too_large" and e.value.args_["size_mb"] == 2000
    assert hub.fetched == []


def test_an_unsupported_hub_model_stops_after_its_config(fake_hub, folders, tmp_path):
    from transformers import AlbertConfig

    hub = fake_hub("bert")
    hub.source = shutil.copytree(folders["bert"], tmp_path / "albert_like")
    AlbertConfig(hidden_size=32, num_attention_heads=4).save_pretrained(hub.source)
    with pytest.raises(PretrainedError) as e:
        P.load_model("someone/albert")
    assert e.value.key == "err_unsupported" and hub.fetched == ["config.json"]


def test_a_model_in_the_hub_cache_loads_without_the_network(folders, tmp_path, monkeypatch):
    """A link opened on a server that downloaded the model before (or was given the hub cache) needs no hub."""
    import huggingface_hub
    from huggingface_hub import constants

    cache = tmp_path / "hub-cache"
    repo = cache / "models--someone--tiny-roberta"
    shutil.copytree(folders["roberta"], repo / "snapshots" / "abc123")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))

    def no_network(*args, **kwargs):
        raise AssertionError("the hub was asked")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", no_network)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", no_network)
    loaded = P.load_model("someone/tiny-roberta")
    assert loaded.info.family == "roberta" and loaded.info.folder == str(repo / "snapshots" / "abc123")
    assert P.run_layer(loaded, 1, SENTENCES).weights_diff <= TOL
    # an incomplete snapshot (weights missing) is not used: the hub is asked for the rest
    (repo / "snapshots" / "abc123" / "model.safetensors").unlink()
    P.clear_cache()
    with pytest.raises(AssertionError, match="the hub was asked"):
        P.load_model("someone/tiny-roberta")


def hub_answers(monkeypatch, dry_run) -> None:
    """The hub client's dry run is ``dry_run``, and nothing is in its cache."""
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "snapshot_download", dry_run)
    monkeypatch.setattr(pretrained_files, "_hub_cached_folder", lambda repo_id: None)


def test_an_unreachable_hub_points_to_a_local_folder(monkeypatch):
    from huggingface_hub.errors import DryRunError

    def offline(*args, **kwargs):
        raise DryRunError("Dry run cannot be performed as the repository cannot be accessed.")

    hub_answers(monkeypatch, offline)
    with pytest.raises(PretrainedError, match="cannot be reached.*save_pretrained") as e:
        P.load_model("google/bert_uncased_L-4_H-256_A-4")
    assert e.value.key == "err_hub_unreachable"


def test_a_model_the_hub_does_not_have(monkeypatch):
    import httpx2  # the hub client's HTTP library
    from huggingface_hub.errors import DryRunError, RepositoryNotFoundError

    def missing(*args, **kwargs):  # what the dry run raises when the hub answers 404: the answer is its cause
        request = httpx2.Request("GET", "https://hub.invalid/api/models/someone/typo")
        try:
            raise RepositoryNotFoundError("404 Repository Not Found", response=httpx2.Response(404, request=request))
        except RepositoryNotFoundError as e:
            raise DryRunError("Dry run cannot be performed as the repository cannot be accessed.") from e

    hub_answers(monkeypatch, missing)
    with pytest.raises(PretrainedError, match="No public model 'someone/typo'") as e:
        P.load_model("someone/typo")
    assert e.value.key == "err_not_found"


def test_loaded_models_are_cached_shared_and_never_changed(folders):
    a = P.load_model(str(folders["bert"]))
    b = P.load_model(str(folders["bert"]) + "/")  # another spelling of the same folder
    assert b.model is a.model and b.tokenizer is a.tokenizer
    before = {k: v.clone() for k, v in a.model.state_dict().items()}
    tokens = P.model_tokens(a, SENTENCES)
    with torch.no_grad():
        plain = a.model(**model_inputs(tokens)).last_hidden_state
    for layer in range(a.info.num_layers):
        P.run_layer(a, layer, SENTENCES)
    with torch.no_grad():
        again = a.model(**model_inputs(tokens)).last_hidden_state
    torch.testing.assert_close(again, plain, rtol=0, atol=0)  # our hooks stay inactive outside run_layer
    assert all(torch.equal(before[k], v) for k, v in a.model.state_dict().items())
    assert P._load_folder.cache_info().maxsize == P.MAX_LOADED_MODELS


def test_runs_in_parallel_threads_do_not_mix(folders):
    loaded = P.load_model(str(folders["distilbert"]))
    alone = {layer: P.run_layer(loaded, layer, SENTENCES) for layer in range(loaded.info.num_layers)}
    results, errors = {}, []

    def work(layer):
        try:
            for _ in range(5):
                results[layer] = P.run_layer(loaded, layer, SENTENCES)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(layer,)) for layer in alone]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for layer, run in results.items():
        torch.testing.assert_close(run.x, alone[layer].x, rtol=0, atol=0)
        torch.testing.assert_close(run.model_weights, alone[layer].model_weights, rtol=0, atol=0)


def test_the_short_list(monkeypatch):
    assert pretrained_files.DEFAULT_MODEL == pretrained_files.CHOICES[0].id
    assert len({c.id for c in pretrained_files.CHOICES}) == len(pretrained_files.CHOICES)
    for c in pretrained_files.CHOICES:
        assert c.family in pretrained_files.FAMILIES and c.d_model % c.heads == 0 and c.language in ("en", "ko")
    monkeypatch.delenv(pretrained_files.MAX_BYTES_ENV, raising=False)
    default_cap = pretrained_files.max_bytes_from_env()
    # the default loads under the default cap
    assert pretrained_files.CHOICES[0].size_mb * pretrained_files.MB < default_cap
    assert {c.language for c in pretrained_files.CHOICES} == {"en", "ko"}
    assert any(pretrained_files.FAMILIES[c.family].decoder for c in pretrained_files.CHOICES)


def test_importing_the_module_does_not_import_transformers():
    """The app imports mha.weights.pretrained on start; transformers (seconds to import) only comes with the first
    model."""
    import subprocess
    import sys

    code = "import sys, mha.weights.pretrained; print('transformers' in sys.modules, 'huggingface_hub' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.split() == ["False", "False"]


def test_view_fields_fill_a_view_of_one_sentence(folders):
    import dataclasses

    import numpy as np

    from mha.weights.view import View, ViewSpec

    loaded = P.load_model(str(folders["gpt2"]))
    run = P.run_layer(loaded, 1, SENTENCES)
    names = {f.name for f in dataclasses.fields(View)}
    for b in range(len(SENTENCES)):
        fields = P.view_fields(run, b)
        assert set(fields) <= names
        spec = ViewSpec(text="\n".join(SENTENCES), d_model=loaded.info.d_model, num_heads=loaded.info.num_heads)
        view = View(spec=spec, notes=(), **fields)
        T, H, D = run.tokens.ids.size(1), loaded.info.num_heads, loaded.info.d_model
        assert view.weights.shape == view.allowed.shape == (H, T, T) and view.x.shape == view.output.shape == (T, D)
        assert len(view.labels) == len(view.tokens) == T and view.head_dim == loaded.info.head_dim
        assert view.query_is_pad.sum() == T - run.tokens.lengths[b]
        np.testing.assert_array_equal(view.weights, run.trace.weights[b].numpy())
        assert np.isfinite(view.weights).all() and view.weights.dtype == np.float32
    with pytest.raises(PretrainedError):
        P.view_fields(run, len(SENTENCES))


# --- A public server: tells a visitor nothing about its disk, downloads only what its host allows ---------------

from silent_hub import TIMEOUT_S, silent_hub  # noqa: E402,F401  (the fixture)

PUBLIC_ENV = ("MHA_PUBLIC", "MHA_MODELS_DIR", "MHA_ALLOW_DOWNLOADS", "MHA_ALLOWED_MODELS")


def test_public_mode_and_its_defaults_from_the_environment(monkeypatch, tmp_path):
    for name in PUBLIC_ENV:
        monkeypatch.delenv(name, raising=False)
    laptop = pretrained_files.server_options()
    assert laptop == {"public": False, "local_root": None, "downloads": True, "allowed": None}
    monkeypatch.setenv("MHA_PUBLIC", "1")
    public = pretrained_files.server_options()
    assert public["public"] and public["local_root"] is None and not public["downloads"]
    assert set(public["allowed"]) == {c.id for c in pretrained_files.CHOICES}
    monkeypatch.delenv("MHA_PUBLIC")
    monkeypatch.setenv("MHA_MODELS_DIR", str(tmp_path))  # a models folder alone makes a server public
    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "1")
    monkeypatch.setenv("MHA_ALLOWED_MODELS", " someone/tiny-bert , other/model,")
    hosted = pretrained_files.server_options()
    assert hosted["public"] and hosted["downloads"] and hosted["local_root"] == str(tmp_path)
    assert hosted["allowed"][-2:] == ("someone/tiny-bert", "other/model")
    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "0")
    monkeypatch.delenv("MHA_MODELS_DIR")
    assert pretrained_files.server_options()["downloads"] is False  # a laptop can turn them off too


def _refusal(source: str, **options) -> PretrainedError:
    with pytest.raises(PretrainedError) as e:
        P.load_model(source, public=True, **options)
    return e.value


def test_a_public_server_refuses_every_other_source_with_the_same_words(folders, tmp_path, monkeypatch):
    root = tmp_path / "models"
    shutil.copytree(folders["bert"], root / "bert-mini")
    (root / "empty").mkdir()
    (root / "escape").symlink_to(folders["gpt2"], target_is_directory=True)  # a link out of the folder
    (root / "unreadable").mkdir()
    outside = folders["gpt2"]  # a complete model, outside the models folder
    real_scandir = os.scandir

    def scandir(path):  # the tests run as root, where chmod 000 reads anyway: a folder that cannot be listed
        if Path(path).name == "unreadable":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    options = {"local_root": str(root), "downloads": True, "allowed": [c.id for c in pretrained_files.CHOICES]}
    sources = [str(outside), str(tmp_path / "nowhere"), "/proc/self", "/proc/self/cwd", "~", "~/.ssh", "/root/.ssh",
               "/etc", "..", "../models/../" + outside.name, "empty", str(root / "empty"), "unreadable", "escape",
               "someone/tiny-bert", "not an id!", "a\x00b", "x" * 300]
    errors = [_refusal(s, **options) for s in sources]
    assert {e.key for e in errors} == {"err_source_refused"}
    assert len({str(e) for e in errors}) == 1 and len({e.message("ko") for e in errors}) == 1
    text = str(errors[0]) + errors[0].message("ko")
    assert "/" not in text and str(root) not in text and "Permission" not in text
    # what the host put in the models folder loads, by its name there or its full path
    assert P.load_model("bert-mini", public=True, **options).info.family == "bert"
    assert P.load_model(str(root / "bert-mini"), public=True, **options).info.family == "bert"
    assert pretrained_files.content_key("bert-mini", public=True, **options)[0] == str((root / "bert-mini").resolve())
    assert {pretrained_files.content_key(s, public=True, **options) for s in sources} == {("error",)}
    # no models folder at all: every folder is refused alike
    assert _refusal(str(root / "bert-mini"), downloads=True, allowed=options["allowed"]).key == "err_source_refused"


def test_a_public_server_downloads_only_when_allowed_and_only_its_list(fake_hub, folders):
    hub = fake_hub("bert")
    listed = pretrained_files.CHOICES[0].id
    assert _refusal(listed, downloads=False, allowed=[listed]).key == "err_downloads_off"
    assert _refusal("someone/tiny-bert", downloads=True, allowed=[listed]).key == "err_source_refused"
    assert hub.fetched == []
    loaded = P.load_model("someone/tiny-bert", public=True, downloads=True, allowed=[listed, "someone/tiny-bert"])
    assert loaded.info.family == "bert" and "model.safetensors" in hub.fetched


def test_a_silent_hub_times_out_with_a_message_naming_the_timeout(silent_hub):
    """The hub accepts and never answers: the request gives up after the hub timeout (a bound of many times the
    timeout below: the test fails on a hang, not on a slow machine), and says how long it waited."""
    result = {}

    def ask():
        try:
            P.load_model(pretrained_files.DEFAULT_MODEL, downloads=True)
        except PretrainedError as e:
            result["error"] = e

    worker = threading.Thread(target=ask, daemon=True)
    worker.start()
    worker.join(timeout=30 * TIMEOUT_S + 30)
    assert not worker.is_alive(), "the hub request did not time out"
    err = result["error"]
    assert err.key == "err_hub_timeout" and err.fmt["seconds"] == str(TIMEOUT_S)
    assert f"within {TIMEOUT_S} s" in err.message("en") and f"{TIMEOUT_S}초 안에" in err.message("ko")
    assert silent_hub.connections, "the hub was never asked"


def test_a_hub_failure_is_remembered_for_every_visitor_and_asked_once(silent_hub):
    """Eight visitors at once, then one more: the hub is asked by one request only (the others wait for its answer),
    and every one gets the same message."""
    errors, lock = [], threading.Lock()

    def visitor():
        try:
            P.load_model(pretrained_files.DEFAULT_MODEL, downloads=True)
        except PretrainedError as e:
            with lock:
                errors.append(e)

    crowd = [threading.Thread(target=visitor, daemon=True) for _ in range(8)]
    for t in crowd:
        t.start()
    for t in crowd:
        t.join(timeout=30 * TIMEOUT_S + 30)
    assert len(errors) == 8 and {e.key for e in errors} == {"err_hub_timeout"}
    asked = len(silent_hub.connections)
    assert asked >= 1
    visitor()  # the ninth, later: no new request
    assert len(errors) == 9 and len(silent_hub.connections) == asked
    pretrained_files.forget_failures()  # after FAILURE_TTL (or forgotten), the hub is asked again
    visitor()
    assert len(silent_hub.connections) > asked


def test_a_folder_of_100000_files_is_listed_once_not_on_every_run(folders, tmp_path, monkeypatch):
    """#23.7: content_key runs on every rerun of a pretrained view; a models folder with 100,000 other files was
    listed (and every file stat-ed) each time. Now: listed once per change of the folder, and only the files loading
    reads are looked at; a model saved again in place is still a new model."""
    folder = shutil.copytree(folders["bert"], tmp_path / "crowded")
    for i in range(100_000):
        os.close(os.open(folder / f"note-{i:06d}.txt", os.O_CREAT | os.O_WRONLY))
    real_scandir, listed = os.scandir, []

    def scandir(path):
        listed.append(str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    first = pretrained_files.content_key(str(folder))
    for _ in range(5):  # five reruns
        assert pretrained_files.content_key(str(folder)) == first
    assert listed.count(str(folder)) == 1
    assert len(first[1]) == len(pretrained_files._used_files(os.listdir(folder))) < 10
    weights = folder / "model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 10**9))  # saved again
    assert pretrained_files.content_key(str(folder)) != first and listed.count(str(folder)) == 1
    again = pretrained_files.content_key(str(folder))
    (folder / "note-new.txt").write_text("")  # a new file: the folder is listed again, the model is the same
    assert pretrained_files.content_key(str(folder)) == again and listed.count(str(folder)) == 2
