"""Issue #26.4-5: on a pretrained model every count follows the model's tokenizer (the sidebar's "n tokens + m ×
[PAD]" is the charts' numbers), the equality badge compares real query rows only (padded ones left out, said in its
help), and text the vocabulary does not cover is said with numbers. Tiny local models (tests/tiny_models.py)."""
from __future__ import annotations

import pytest
import tiny_models
import torch
from harness.apptest import canvas_charts, open_page
from silent_hub import silent_hub  # noqa: F401  (the fixture)

from mha.core.i18n import text as i18n_text
from mha.core.markup import escape_markdown
from mha.weights import pretrained, pretrained_files

TEXT = "the cat playing\nthe dog"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("token_models")
    return {family: tiny_models.build(family, root / family, seed=2) for family in ("bert", "gpt2")}


pytestmark = pytest.mark.usefixtures("offline")  # tests/app/conftest.py


def _hf_attentions(folder, tokens: pretrained.ModelTokens, layer: int) -> torch.Tensor:
    """The model's own attention weights (B, H, T, T), by transformers alone (not through mha.weights.pretrained)."""
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
        tok = pretrained.model_tokens(loaded, TEXT.split("\n"))
        n, T = tok.lengths[sentence], tok.ids.size(1)
        assert len(grid["q"]) == T
        pad = loaded.tokenizer.pad_token or loaded.tokenizer.eos_token
        shown = i18n_text("ctl_sentence_shown", lang, preview="X", n=n, n_pad=T - n, pad=escape_markdown(pad, 24))
        captions = [str(c.value) for c in at.sidebar.get("caption")]
        tail = shown.split("X", 1)[1]
        assert any(c.endswith(tail) for c in captions), (tail, captions)
        # the course's tokenizer counts differently here: the caption is not its count
        from mha.weights.view import text_batch

        course = text_batch(TEXT)
        assert course.lengths[sentence] != n


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_badges_help_says_padded_rows_are_left_out(models, lang):
    at = open_page("pages/playground.py", source="pretrained", model=str(models["bert"]), text=TEXT, lang=lang)
    badges = [m for m in at.get("markdown") if "badge[" in str(m.value)]
    assert badges and badges[0].proto.help == i18n_text("src_badge_help", lang, tol=1e-5)
    assert ("padded queries" if lang == "en" else "패딩 쿼리") in badges[0].proto.help


# ------------------------------------------------------------------------------------------------ #26.5: coverage
JAMO = ("ᄂ", "##ᅡ", "##ᄂ", "##ᅳ", "##ᆫ")  # an uncased English WordPiece holds Hangul only as jamo pieces
KO_TEXT = "나는 학생 the cat"  # 나는: five jamo pieces; 학생: no pieces at all, one [UNK]


@pytest.fixture(scope="module")
def english_jamo(tmp_path_factory):
    return tiny_models.build("bert", tmp_path_factory.mktemp("jamo") / "bert", extra_words=JAMO, vocab_size=64)


def test_jamo_pieces_are_labelled_as_the_characters_they_spell(english_jamo):
    import unicodedata

    loaded = pretrained.load_model(str(english_jamo))
    tok = pretrained.model_tokens(loaded, [KO_TEXT])
    pieces, labels = tok.pieces[0], tok.labels[0]
    assert pieces[1:6] == ("ᄂ", "##ᅡ", "##ᄂ", "##ᅳ", "##ᆫ")  # the tokenizer's own split (accents stripped: NFD)
    word = unicodedata.normalize("NFC", "".join(p.removeprefix("##") for p in pieces[1:6]))
    assert word == "나는"
    spelled = [lab.removeprefix(pretrained.CONTINUES).split("(")[0] for lab in labels[1:6]]
    assert spelled == ["나", "나", "는", "는", "는"]  # each piece names the syllable it is part of
    letters = [lab.split("(")[1].rstrip(")") for lab in labels[1:6]]
    # its own letter, as the stand-alone jamo that NFKC maps back to the piece's conjoining one
    assert [unicodedata.normalize("NFKC", x) for x in letters][:4] == [p.removeprefix("##") for p in pieces[1:5]]
    assert all(not any("\u1100" <= ch <= "\u11ff" for ch in lab) for lab in labels)  # no fragments shown
    cov = pretrained.coverage(pieces, labels, tok.is_pad[0].tolist(), loaded.tokenizer.unk_token, tok.special[0],
                              KO_TEXT)
    assert (cov.pieces, cov.unknown, cov.below_letter, cov.script) == (len(pieces) - 2, pieces.count("[UNK]"), 5,
                                                                       "ko")


def test_byte_pieces_of_a_character_count_as_below_a_letter(models):
    loaded = pretrained.load_model(str(models["gpt2"]))
    tok = pretrained.model_tokens(loaded, ["나는 the cat"])
    by_char = {ch: b for b, ch in enumerate(tiny_models.byte_alphabet())}
    partial = 0
    for piece in tok.pieces[0]:
        try:
            bytes(by_char[ch] for ch in piece).decode("utf-8")
        except UnicodeDecodeError:
            partial += 1
    assert partial > 0
    cov = pretrained.coverage(tok.pieces[0], tok.labels[0], tok.is_pad[0].tolist(), loaded.tokenizer.unk_token,
                              tok.special[0], "나는 the cat")
    assert cov.below_letter == partial and cov.unknown == 0 and cov.script == "ko"


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_page_says_the_vocabulary_does_not_cover_the_text(english_jamo, lang):
    at = open_page("pages/playground.py", source="pretrained", model=str(english_jamo), text=KO_TEXT, lang=lang)
    assert not at.exception, at.exception
    loaded = pretrained.load_model(str(english_jamo))
    tok = pretrained.model_tokens(loaded, [KO_TEXT])
    n = len(tok.pieces[0]) - 2  # [CLS] and [SEP] left out
    expected = i18n_text("src_coverage", lang, pieces=n, unknown=1, below=5)
    ko_models = [c.label.split(" (")[0] for c in pretrained_files.CHOICES if c.language == "ko"]
    assert "KLUE BERT base" in ko_models and any("KoELECTRA" in m for m in ko_models)
    expected += " " + i18n_text("src_coverage_models_ko", lang, models=", ".join(ko_models))
    warnings = [str(w.value) for w in at.main.get("warning")]
    assert expected in warnings, warnings
    grid = canvas_charts(at)["grid"]
    assert grid["q"][1:3] == ["나(ㄴ)", "…나(ㅏ)"] and grid["q_raw"][1:3] == ["ᄂ", "##ᅡ"]  # raw piece in the hover


def test_no_coverage_note_when_the_vocabulary_covers_the_text(tmp_path):
    folder = tiny_models.build("bert", tmp_path / "ko", korean=True)  # keeps Hangul (KoELECTRA-like)
    at = open_page("pages/playground.py", source="pretrained", model=str(folder), text="안녕하세요 고양이가 앉았다")
    assert not at.exception
    assert not [w for w in at.main.get("warning") if "vocabulary" in str(w.value)]
    assert any("badge[" in str(m.value) for m in at.get("markdown"))  # the pretrained note was drawn


def test_byte_pieces_are_labelled_with_the_character_they_are_part_of(models):
    loaded = pretrained.load_model(str(models["gpt2"]))
    tok = pretrained.model_tokens(loaded, ["나는 the cat"])
    by_char = {ch: b for b, ch in enumerate(tiny_models.byte_alphabet())}
    chunks = [bytes(by_char[ch] for ch in piece) for piece in tok.pieces[0]]
    word = b"".join(chunks).decode("utf-8").split()[0]
    assert word == "나는"
    labels = tok.labels[0]
    partial = [i for i, c in enumerate(chunks) if not _decodes(c)]
    assert partial  # the tiny vocabulary splits Hangul syllables over pieces
    at = 0
    for i, chunk in enumerate(chunks):  # each partial piece names the syllable its bytes fall in, then its bytes
        if i in partial:
            syllable = _syllable_at(b"".join(chunks), at)
            assert labels[i].startswith(syllable) and labels[i].endswith("⟩"), (labels[i], syllable)
        at += len(chunk)


def _decodes(chunk: bytes) -> bool:
    try:
        chunk.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _syllable_at(data: bytes, offset: int) -> str:
    """The character whose UTF-8 bytes hold ``offset``."""
    start = offset
    while start > 0 and data[start] & 0xC0 == 0x80:  # a continuation byte: the character began earlier
        start -= 1
    for n in (1, 2, 3, 4):
        try:
            return data[start:start + n].decode("utf-8")
        except UnicodeDecodeError:
            continue
    raise AssertionError(f"no character at byte {offset}")
