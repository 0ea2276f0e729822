"""Issue #26.4-5: on a pretrained model every count follows the model's tokenizer (the sidebar's "n tokens + m ×
[PAD]" is the charts' numbers), the equality badge compares real query rows only (padded ones left out, said in its
help), and text the vocabulary does not cover is said with numbers. Tiny local models (tests/tiny_models.py)."""
from __future__ import annotations

import pytest
import torch

import tiny_models
from apptest_utils import canvas_charts, open_page
from silent_hub import silent_hub  # noqa: F401  (the fixture)
from mha import pretrained
from mha.i18n import text as i18n_text
from mha.text import escape_markdown

TEXT = "the cat playing\nthe dog"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("token_models")
    return {family: tiny_models.build(family, root / family, seed=2) for family in ("bert", "gpt2")}


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "0")
    monkeypatch.delenv("MHA_MODELS_DIR", raising=False)


def _hf_attentions(folder, tokens: pretrained.ModelTokens, layer: int) -> torch.Tensor:
    """The model's own attention weights (B, H, T, T), by transformers alone (not through mha.pretrained)."""
    from transformers import AutoModel

    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    kw = {"token_type_ids": tokens.token_type_ids} if tokens.token_type_ids is not None else {}
    with torch.no_grad():
        out = model(input_ids=tokens.ids, attention_mask=tokens.attention_mask, output_attentions=True, **kw)
    return out.attentions[layer]


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_the_badge_compares_real_query_rows_only(models, family):
    loaded = pretrained.load_model(str(models[family]))
    run = pretrained.run_layer(loaded, 1, TEXT.split("\n"))
    theirs = _hf_attentions(models[family], run.tokens, 1)
    real = run.tokens.attention_mask.bool()  # (B, T)
    assert (~real).any()  # the second sentence is padded: there are rows to leave out
    diff = (run.trace.weights - theirs).abs()  # (B, H, T, T)
    expected = diff[real[:, None, :].expand(-1, diff.size(1), -1)].max().item()
    assert run.weights_diff == pytest.approx(expected, abs=1e-9)
    assert run.weights_diff <= 1e-5


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_the_sidebar_counts_with_the_models_tokenizer(models, family, lang):
    for sentence in (0, 1):
        at = open_page("pages/playground.py", source="pretrained", model=str(models[family]), text=TEXT,
                       sentence=str(sentence), lang=lang)
        assert not at.exception, at.exception
        grid = canvas_charts(at)["grid"]  # what the chart shows: the model's tokens, padded to the longest
        loaded = pretrained.load_model(str(models[family]))
        tok = pretrained.tokenize(loaded, TEXT.split("\n"))
        n, T = tok.lengths[sentence], tok.ids.size(1)
        assert len(grid["q"]) == T
        pad = loaded.tokenizer.pad_token or loaded.tokenizer.eos_token
        shown = i18n_text("ctl_sentence_shown", lang, preview="X", n=n, n_pad=T - n, pad=escape_markdown(pad, 24))
        captions = [str(c.value) for c in at.sidebar.get("caption")]
        tail = shown.split("X", 1)[1]
        assert any(c.endswith(tail) for c in captions), (tail, captions)
        # the course's tokenizer counts differently here: the caption is not its count
        from mha.view import text_batch

        course = text_batch(TEXT)
        assert course.lengths[sentence] != n


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_badges_help_says_padded_rows_are_left_out(models, lang):
    at = open_page("pages/playground.py", source="pretrained", model=str(models["bert"]), text=TEXT, lang=lang)
    badges = [m for m in at.get("markdown") if "badge[" in str(m.value)]
    assert badges and badges[0].proto.help == i18n_text("src_badge_help", lang, tol=1e-5)
    assert ("padded queries" if lang == "en" else "패딩 쿼리") in badges[0].proto.help
