"""mha.core.tokens, markup and inputs: tokenizer, display-safe labels, deterministic embeddings, positions and weight
init."""
import html
import json
import math
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import mha
from mha.core.markup import escape_for_plotly
from mha.core.tokens import MAX_LABEL_CHARS

ROOT = Path(__file__).resolve().parents[2]
BIDI = set("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
JOINERS = set("\u200d\ufe0e\ufe0f")  # ZWJ and variation selectors: legitimately inside emoji
FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"  # man ZWJ woman ZWJ girl ZWJ boy
THUMBS_MEDIUM = "\U0001F44D\U0001F3FD"  # thumbs up + skin tone modifier
FLAG_KR = "\U0001F1F0\U0001F1F7"  # regional indicators K R
FLAG_JP = "\U0001F1EF\U0001F1F5"
FLAG_SCOTLAND = "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"  # black flag + tags


def is_tag(ch):
    return 0xE0020 <= ord(ch) <= 0xE007F


def is_invisible(ch):
    """What the tokenizer promises to remove: C0/C1 controls (not tab/newline), bidi controls, other format chars."""
    cat = unicodedata.category(ch)
    return ch in BIDI or (cat == "Cc" and ch not in "\t\n\r") or (cat == "Cf" and ch not in JOINERS and not is_tag(ch))


# --- tokenize ------------------------------------------------------------------------------------------------------


def test_korean():
    assert (mha.tokenize("안녕하세요, 세계! 나는 학생이다.").tokens
            == ("안녕하세요", ",", "세계", "!", "나는", "학생이다", "."))


def test_korean_nfd_jamo_are_composed():
    text = "한국어 문장"
    nfd = unicodedata.normalize("NFD", text)
    assert nfd != text
    assert mha.tokenize(nfd).tokens == mha.tokenize(text).tokens == ("한국어", "문장")


@pytest.mark.parametrize("mode", ["word", "char"])
def test_accented_latin_nfc_and_nfd_give_the_same_tokens(mode):
    text = "Crème brûlée à Noël, señor"
    nfc, nfd = unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)
    assert nfc != nfd
    tokens = mha.tokenize(nfd, mode).tokens
    assert tokens == mha.tokenize(nfc, mode).tokens
    assert all(unicodedata.is_normalized("NFC", t) for t in tokens)
    if mode == "word":
        assert tokens == ("Crème", "brûlée", "à", "Noël", ",", "señor")
    else:
        assert len(tokens) == len(nfc.replace(" ", ""))


@pytest.mark.parametrize("mode", ["word", "char"])
@pytest.mark.parametrize("emoji", [FAMILY, THUMBS_MEDIUM, FLAG_KR, FLAG_SCOTLAND, "1\ufe0f\u20e3", "\u2764\ufe0f"],
                         ids=["zwj-family", "skin-tone", "flag", "subdivision-flag", "keycap", "heart-vs16"])
def test_emoji_stay_one_token(emoji, mode):
    expected = ("I", emoji, "it") if mode == "word" else ("I", emoji, "i", "t")
    assert mha.tokenize(f"I {emoji} it", mode).tokens == expected
    assert mha.tokenize(emoji, mode).tokens == (emoji,)
    assert mha.tokenize(emoji, mode).removed == 0


def test_adjacent_emoji_are_separate_tokens():
    assert mha.tokenize(FLAG_KR + FLAG_JP + THUMBS_MEDIUM + FAMILY).tokens == (FLAG_KR, FLAG_JP, THUMBS_MEDIUM, FAMILY)
    assert mha.tokenize("good👍🏽day").tokens == ("good", THUMBS_MEDIUM, "day")


def test_punctuation_is_split_off_but_apostrophes_stay_in_words():
    assert mha.tokenize("Hello, world! (Really?)").tokens == ("Hello", ",", "world", "!", "(", "Really", "?", ")")
    assert mha.tokenize("don't l’homme").tokens == ("don't", "l’homme")


def test_repeated_tokens_stay_separate_positions():
    toks = mha.tokenize("the cat saw the other cat")
    assert toks.tokens == ("the", "cat", "saw", "the", "other", "cat")
    assert toks.labels == list(toks.tokens)  # duplicates kept in labels too


def test_char_mode():
    assert mha.tokenize("ab c!", mode="char").tokens == ("a", "b", "c", "!")
    assert mha.tokenize("나는 사과", mode="char").tokens == ("나", "는", "사", "과")


def test_unknown_mode():
    with pytest.raises(ValueError, match="mode must be 'word' or 'char', got 'bpe'"):
        mha.tokenize("hello", mode="bpe")


@pytest.mark.parametrize("text", ["", " ", "\t\n  \r", "\u3000\u2003", "\u202e\u200b\x07", "\u200d", " \ufe0f "])
@pytest.mark.parametrize("mode", ["word", "char"])
def test_nothing_visible_raises_text_error(text, mode):
    with pytest.raises(mha.TextError, match="empty or only whitespace: type a sentence"):
        mha.tokenize(text, mode)
    assert issubclass(mha.TextError, ValueError)  # callers catching ValueError also catch it


@pytest.mark.parametrize("mode", ["word", "char"])
def test_control_and_bidi_characters_are_removed_and_counted(mode):
    text = "abc\u202edef\x00 gh\u2066i\u2069\u200b"
    toks = mha.tokenize(text, mode)
    assert toks.removed == 5
    assert "".join(toks.tokens) == "abcdefghi"
    assert not any(is_invisible(ch) for t in toks.tokens for ch in t)


def test_whitespace_after_joiner_is_not_part_of_a_token():
    for mode in ("word", "char"):
        toks = mha.tokenize("a\u200d b\u200d\nc", mode)
        assert not any(ch.isspace() for t in toks.tokens for ch in t), toks
        assert [t.strip("\u200d") for t in toks.tokens] == ["a", "b", "c"]
    assert mha.tokenize("x \u0301").tokens == ("x", "\u0301")  # a mark after a space joins no word across it


def test_non_string_input_is_converted():
    assert mha.tokenize(12345).tokens == ("12345",)


# --- labels ----------------------------------------------------------------------------------------------------------


def test_safe_label_caps_length():
    long = "Pneumonoultramicroscopicsilicovolcanoconiosis"
    label = mha.safe_label(long)
    assert len(label) == MAX_LABEL_CHARS and label.endswith("…") and long.startswith(label[:-1])
    assert len(mha.safe_label(long, max_chars=5)) == 5
    assert mha.safe_label("short") == "short"
    exact = "x" * MAX_LABEL_CHARS
    assert mha.safe_label(exact) == exact


def test_safe_label_strips_controls_and_collapses_whitespace():
    assert mha.safe_label("a\u202eb\x07c") == "abc"
    assert mha.safe_label("two\n\tlines") == "two lines"
    assert mha.safe_label("   ") == "·"  # never an empty (invisible) label
    assert mha.safe_label("\u202e") == "·"
    assert mha.safe_label(unicodedata.normalize("NFD", "é")) == "é"
    assert mha.safe_label(FLAG_SCOTLAND) == FLAG_SCOTLAND


def test_display_labels_keep_one_label_per_position():
    assert mha.display_labels(["a", "a\u202e", "b"]) == ["a", "a", "b"]


@pytest.mark.parametrize("raw, must_not_contain", [
    ("<b>bold</b>", ["<", ">"]),
    ('<a href="javascript:alert(1)">x</a>', ["<", ">", '"']),
    ("it's \"quoted\"", ["'", '"']),
    ("<br>", ["<br>"]),
    ("a & b", [" & "]),
])
def test_escape_for_plotly(raw, must_not_contain):
    escaped = escape_for_plotly(raw)
    for bad in must_not_contain:
        assert bad not in escaped
    assert html.unescape(escaped) == raw  # shown, not lost


def test_escape_for_plotly_known_entities():
    assert escape_for_plotly("<b>") == "&lt;b&gt;"
    assert escape_for_plotly('"\'&') == "&#34;&#x27;&amp;"


# Plotly's text renderer (svg_text_utils convertEntities) decodes numeric entities and only these named ones; any
# other named entity (e.g. &quot;) would be shown to the learner as it is.
PLOTLY_NAMED_ENTITIES = {"mu", "amp", "lt", "gt", "nbsp", "times", "plusmn", "deg"}


@pytest.mark.parametrize("raw", ['"quoted"', "it's", "<a href='x'>&amp;</a>", "&quot;"])
def test_escape_for_plotly_uses_only_entities_plotly_decodes(raw):
    named = set(re.findall(r"&([a-zA-Z]+);", escape_for_plotly(raw)))
    assert named <= PLOTLY_NAMED_ENTITIES, named


MARKDOWN_ACTIVE = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # every ASCII punctuation character
WORD_JOINER = "\u2060"  # escape_markdown's invisible breaker of Streamlit's text rewrites (auto-links, :emoji:)


@pytest.mark.parametrize("raw", ["__init__", "**b**", "[a](javascript:alert(1))", ":smile:", "$x$", "`c`",
                                 "# h", "- item", "a\\b", "~~s~~", "|t|", "<b>", "오렌지 e\u0301"])
def test_escape_markdown_puts_a_backslash_before_every_active_character(raw):
    escaped, shown, n = mha.core.markup.escape_markdown(raw), [], 0
    while n < len(escaped):
        if escaped[n] == "\\":
            shown.append(escaped[n + 1])
            n += 2
        else:
            assert escaped[n] not in MARKDOWN_ACTIVE, escaped
            shown.append(escaped[n])
            n += 1
    assert "".join(shown).replace(WORD_JOINER, "") == raw  # nothing lost


@pytest.mark.parametrize("raw", ["[a](https://evil.example)", "a`b", "``", "`x`", "two\n\nlines", " "])
def test_escape_markdown_as_code_is_one_code_span_showing_the_text(raw):
    span = mha.core.markup.escape_markdown(raw, code=True).replace(WORD_JOINER, "")
    fence = span[:len(span) - len(span.lstrip("`"))]
    inner = span[len(fence):-len(fence)]
    assert span.endswith(fence) and fence not in inner and "\n" not in inner
    # CommonMark drops one space at each end when both ends have one and the span is not only spaces.
    shown = inner[1:-1] if inner[:1] == inner[-1:] == " " and inner.strip() else inner
    assert shown == raw.replace("\n\n", " ")


# --- embeddings and positions ----------------------------------------------------------------------------------------

EMBED_TOKENS = ["orange", "is", "my", "favorite", "fruit", "오렌지", FAMILY]
CHILD = (
    "import json, sys, torch, mha\n"
    "tokens = json.loads(sys.argv[1])\n"
    "print(json.dumps({'hash': hash(tokens[0]),\n"
    "                  'vectors': mha.embed_tokens(tokens, 16, seed=7, dtype=torch.float64).tolist()}))\n"
)


def embed_in_subprocess(hash_seed):
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(EMBED_TOKENS)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_embeddings_are_identical_across_processes_with_different_hash_seeds():
    children = [embed_in_subprocess(seed) for seed in (1, 2)]  # run in parallel
    results = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        results.append(json.loads(out))
    assert results[0]["hash"] != results[1]["hash"]  # the processes really do hash strings differently
    here = mha.embed_tokens(EMBED_TOKENS, 16, seed=7, dtype=torch.float64)
    for r in results:
        assert torch.equal(torch.tensor(r["vectors"], dtype=torch.float64), here)


def test_same_token_same_vector_and_different_tokens_differ():
    x = mha.embed_tokens(["cat", "dog", "cat"], 32, seed=1)
    assert x.shape == (3, 32) and x.dtype == torch.float32
    assert torch.equal(x[0], x[2])
    assert not torch.allclose(x[0], x[1])
    assert torch.equal(mha.embed_tokens(["cat"], 32, seed=1)[0], x[0])  # context does not matter


def test_embeddings_depend_on_seed_and_d_model():
    a = mha.embed_tokens(EMBED_TOKENS, 16, seed=0)
    assert not torch.isclose(a, mha.embed_tokens(EMBED_TOKENS, 16, seed=1)).any(-1).all()
    b = mha.embed_tokens(EMBED_TOKENS, 17, seed=0)
    assert b.shape == (len(EMBED_TOKENS), 17)
    assert not torch.isclose(a, b[:, :16]).all(-1).any()  # not a prefix of the other size's vectors


def test_embeddings_roughly_unit_variance():
    tokens = [f"token{i}" for i in range(400)]
    x = mha.embed_tokens(tokens, 64, seed=3, dtype=torch.float64)
    assert abs(x.mean().item()) < 0.05 and abs(x.std().item() - 1) < 0.05  # 25600 draws: ~8 and ~6 sigma


def test_embeddings_dtype_and_empty():
    assert mha.embed_tokens(["a"], 4, dtype=torch.float64).dtype == torch.float64
    empty = mha.embed_tokens([], 8)
    assert empty.shape == (0, 8)


@pytest.mark.parametrize("d_model", [1, 2, 7, 8, 33])
def test_sinusoidal_positions_match_the_formula(d_model):
    seq_len = 11
    pe = mha.sinusoidal_positions(seq_len, d_model, dtype=torch.float64)
    assert pe.shape == (seq_len, d_model)
    for pos in range(seq_len):
        for j in range(d_model):
            angle = pos / 10000 ** ((j - j % 2) / d_model)  # PE(pos, 2i) = sin, PE(pos, 2i+1) = cos, same angle
            expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert pe[pos, j].item() == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert mha.sinusoidal_positions(seq_len, d_model).dtype == torch.float32


def test_token_inputs():
    tokens = ["a", "b", "a"]
    no_pos = mha.token_inputs(tokens, 8, seed=2, positional=False, dtype=torch.float64)
    assert torch.equal(no_pos, mha.embed_tokens(tokens, 8, seed=2, dtype=torch.float64))
    with_pos = mha.token_inputs(tokens, 8, seed=2, dtype=torch.float64)
    torch.testing.assert_close(with_pos, no_pos + mha.sinusoidal_positions(3, 8, dtype=torch.float64))
    assert not torch.equal(with_pos[0], with_pos[2])  # same word, different positions
    assert mha.token_inputs(tokens, 8).dtype == torch.float32


# --- init_weights ----------------------------------------------------------------------------------------------------


def state(module):
    return {k: v.clone() for k, v in module.state_dict().items()}


def test_init_weights_deterministic_per_seed_and_different_across_seeds():
    a = state(mha.init_weights(mha.MultiHeadAttention(8, 2), 5))
    b = state(mha.init_weights(mha.MultiHeadAttention(8, 2), 5))
    c = state(mha.init_weights(mha.MultiHeadAttention(8, 2), 6))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert all(not torch.isclose(a[k], c[k]).all() for k in a)


def test_init_weights_does_not_touch_global_rng():
    torch.manual_seed(123)
    before = torch.get_rng_state()
    expected_next = torch.rand(3)
    torch.set_rng_state(before)
    module = mha.MultiHeadAttention(8, 2)  # its constructor draws from the global RNG: build it first
    before = torch.get_rng_state()
    assert mha.init_weights(module, 1) is module
    assert torch.equal(torch.get_rng_state(), before)
    torch.manual_seed(123)
    assert torch.equal(torch.rand(3), expected_next)


def test_init_weights_bounds_like_pytorch_default():
    m = mha.init_weights(mha.MultiHeadAttention(16, 4), 0)
    bound = 1 / math.sqrt(16)
    for name, p in m.named_parameters():
        assert p.abs().max() <= bound, name
        assert p.abs().max() > bound / 2, name  # spread over the range, not all tiny


# --- property tests --------------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.text(), st.sampled_from(["word", "char"]))
def test_property_tokenize_any_text(text, mode):
    try:
        toks = mha.tokenize(text, mode)
    except mha.TextError:
        assert not any(not ch.isspace() and not is_invisible(ch) and ch not in JOINERS and not is_tag(ch)
                       for ch in unicodedata.normalize("NFC", text))
        return
    assert toks.tokens
    for t in toks.tokens:
        assert t and not any(ch.isspace() for ch in t), toks
        assert not any(is_invisible(ch) for ch in t), toks
        assert any(ch not in JOINERS and not is_tag(ch) for ch in t), toks  # something to see
    # Nothing is lost silently: every character is in a token, is whitespace, or is counted as removed.
    nfc = unicodedata.normalize("NFC", text)
    spaces = sum(1 for ch in nfc if ch.isspace() and not is_invisible(ch))
    assert sum(len(t) for t in toks.tokens) + spaces + toks.removed == len(nfc)
    assert len(toks.labels) == len(toks.tokens)


@settings(max_examples=100, deadline=None)
@given(st.text(), st.integers(1, 40))
def test_property_safe_label(text, max_chars):
    label = mha.safe_label(text, max_chars=max_chars)
    assert 1 <= len(label) <= max_chars
    assert not any(is_invisible(ch) for ch in label)
    assert label == label.strip() and "\n" not in label
