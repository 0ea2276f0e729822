"""Korean as a Korean writes it: particles chosen by the final sound of what is filled in (mha.core.i18n.particle),
and a scan of every Korean catalog string for pairs the helper would not resolve and for bare particles after a
placeholder."""
from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mha.core import i18n
from mha.core.i18n import fill, final_sound, particle

# Korean readings of whole numbers, written out the long way (independent of mha.core.i18n's place rule).
_DIGITS = "영일이삼사오육칠팔구"


def _read_korean(n: int) -> str:
    """How Korean reads ``n`` (n > 0): 20 이십, 105 백오, 30000 삼만, 100000000 일억."""
    out = []
    for unit in ["", "만", "억", "조", "경"]:
        group, n = n % 10000, n // 10000
        part = ""
        for place, name in ((3, "천"), (2, "백"), (1, "십"), (0, "")):
            d = group // 10 ** place % 10
            if d:
                part += ("" if d == 1 and place else _DIGITS[d]) + name
        if part:
            out.insert(0, part + unit)
        if not n:
            break
    return "".join(out)


def _jong(syllable: str) -> str | None:
    j = (ord(syllable) - 0xAC00) % 28
    return None if j == 0 else "ㄹ" if j == 8 else "C"


# ----------------------------------------------------------------------------------------------- final sounds


@given(st.integers(min_value=1, max_value=10 ** 20 - 1))
def test_a_whole_number_sounds_as_its_korean_reading_ends(n):
    assert final_sound(str(n)) == _jong(_read_korean(n)[-1])
    assert final_sound(f"{n:,}") == final_sound(str(n))  # thousands separators are not read


@given(st.integers(min_value=0, max_value=10 ** 6), st.integers(min_value=1, max_value=9999))
def test_a_decimal_sounds_as_its_last_digit(whole, frac):
    s = f"{whole}.{frac}"
    assert final_sound(s) == _jong(_DIGITS[int(s[-1])])


@pytest.mark.parametrize("word, sound", [
    ("헤드 0", "C"), ("헤드 2", None), ("0.57", "ㄹ"), ("id 46", "C"), ("10", "C"), ("100", "C"),
    ("1000", "C"), ("10000", "C"), ("20", "C"), ("7", "ㄹ"), ("1", "ㄹ"), ("8", "ㄹ"), ("9", None), ("4", None),
    ("모델", "ㄹ"), ("마스크", None), ("단어", None), ("값", "C"),
    ("**헤드 3**", "C"), ("'cat'", "C"), ("[CLS]", None), ("(1)", "ㄹ"), ("<b>점수</b>", None), ("“키”", None),
    ("d_model", "ㄹ"), ("num_heads", None), ("head_dim", "C"), ("PyTorch", None), ("MultiHeadAttention", "C"),
    ("token", "C"), ("step", "C"), ("mask", None), ("text", None), ("line", "C"), ("table", "ㄹ"), ("query", None),
    ("q", None), ("L", "ㄹ"), ("m", "C"), ("GPU", None), ("57%", None), ("−∞", None), ("λ", None), ("ε", "C"),
    ("\\(1\\, 4\\, 16\\)", "C"), ("\\(4\\, 4\\)", None),  # shapes as escape_markdown writes them
])
def test_final_sounds(word, sound):
    assert final_sound(word) == sound


@pytest.mark.parametrize("word", ["", "   ", "**", "😀", "猫"])
def test_unreadable_words_keep_the_written_pair(word):
    assert final_sound(word) is False
    assert particle(word, "을(를)") == "을(를)"


# ------------------------------------------------------------------------------------------------- particles


@pytest.mark.parametrize("word, pair, want", [
    ("헤드 0", "이(가)", "이"), ("헤드 2", "이(가)", "가"), ("0.57", "을(를)", "을"), ("id 46", "을(를)", "을"),
    ("모델", "(으)로", "로"), ("1", "(으)로", "로"), ("3", "(으)로", "으로"), ("2", "(으)로", "로"),
    ("헤드 3", "은(는)", "은"), ("헤드 4", "는", "는"), ("키", "과(와)", "와"), ("10", "(이)", "이"), ("9", "(이)", ""),
    ("값", "를", "을"), ("값", "으로", "으로"),
])
def test_particle(word, pair, want):
    assert particle(word, pair) == want


def test_escaped_values_get_their_particle():
    """A shape written for the page (escape_markdown puts a backslash before each bracket and comma) is read by its
    last number: the Check page's crash messages said "(1, 4, 16)가(이)"."""
    from mha.core.markup import escape_markdown

    out = fill(i18n.CATALOG["check_crash_projections"]["ko"], theirs=escape_markdown("(1, 4, 16), (4, 4)"),
               x=escape_markdown("(1, 4, 16)"), d_model=16)
    assert "가(이)" not in out and "\\(4\\, 4\\)가 만났습니다" in out and "16\\)이 들어가고" in out, out


def test_an_unknown_pair_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"을\(를\)"):
        particle("헤드", "의")


@given(st.text(alphabet="가각갈나난날다닫달0123456789abcdefklmnprstxyz.,*'()[] ", min_size=1, max_size=12),
       st.sampled_from(sorted(i18n.PAIRS)))
def test_a_readable_word_gets_one_particle_of_its_pair(word, pair):
    got = particle(word, pair)
    if final_sound(word) is False:
        assert got == pair
    else:
        assert got in i18n.PAIRS[pair] and "(" not in got


@given(st.integers(min_value=0, max_value=10 ** 9))
def test_fill_resolves_pairs_after_a_placeholder_behind_markup(n):
    out = fill("헤드 **{n}**이(가) {x:.2f}을(를) {{n}}(으)로 {n}(이)다", n=n, x=n / 7)
    assert "(" not in out.replace("{n}(으)로", "")
    assert out.startswith(f"헤드 **{n}**{particle(str(n), '이')} ")
    assert "{n}(으)로" in out  # an escaped brace is text, not a placeholder: its pair is left as written


def test_the_first_is_written_as_korean_says_it():
    assert fill("{n}번째 줄, {m}번째 칸", n=1, m=2) == "첫 번째 줄, 2번째 칸"  # a line and column of code
    assert fill("{n}번째 줄", n=11) == "11번째 줄" and fill("{n}번째", n=1) == "첫 번째"


def test_text_resolves_the_catalog_pairs():
    key = next(k for k, e in i18n.CATALOG.items() if "{old}은(는)" in e["ko"] and "{new}(으)로" in e["ko"])
    out = i18n.text(key, "ko", old=3, new=2, d_model=12)
    assert "3은 " in out and "2로 " in out and "(" not in out.split("3은")[1].split("2로")[0]


# ------------------------------------------------------------------------------------ the catalog, scanned

_PLACEHOLDER = r"\{[^{}]*\}"
_MARKUP = r"[*_`'\"’”」』]*"  # not ")": a particle after "(e.g. {n})" follows the word before "("
_PAIR_RE = "|".join(re.escape(p) for p in i18n.PAIRS)
# A particle that depends on the final sound, written bare right after a placeholder: "{h}가" is wrong for h = 0.
_BARE = re.compile(rf"({_PLACEHOLDER}){_MARKUP}(으로|이|가|을|를|은|는|과|와|로)(?![가-힣(])")
_BARE_WORD_START = re.compile(rf"({_PLACEHOLDER}){_MARKUP}(가|와|로|과|를|는|을|은)(?=[가-힣])")
_WORDS_NOT_PARTICLES = ("가지", "가량", "이상", "이하", "이내", "과정", "로그", "이전", "이후", "은닉")


def _unresolved_pairs(ko: str) -> list[str]:
    """Pairs the helper will not resolve: any not right after a placeholder (behind closing markup)."""
    resolved = {m.end() for m in re.finditer(rf"{_PLACEHOLDER}{_MARKUP}(?:{_PAIR_RE})", ko)}
    return [m.group() for m in re.finditer(_PAIR_RE, ko) if m.end() not in resolved]


def _bare_particles(ko: str) -> list[str]:
    found = [m.group() for m in _BARE.finditer(ko)]
    for m in _BARE_WORD_START.finditer(ko):
        rest = ko[m.end(2) - len(m.group(2)):]
        if not rest.startswith(_WORDS_NOT_PARTICLES):
            found.append(ko[m.start():m.end() + 2])
    return found


def test_the_scan_catches_what_it_should():
    assert _unresolved_pairs("d_model을(를) 바꿨습니다") == ["을(를)"]
    assert _unresolved_pairs("{n}을(를) {name}**이(가)") == []
    assert _bare_particles("헤드 {h}가 보는 곳") and _bare_particles("{x}를 고르고") and _bare_particles("{d}로")
    assert _bare_particles("**{n}**은 ") and _bare_particles("{n}과 {m}")
    assert not _bare_particles("{n}개를 {n}가지 {n}단계 {n}의 {n}에서 {n}입니다 {n}이고 {n}(으)로 {n}이상")


@pytest.mark.parametrize("key", sorted(i18n.CATALOG))
def test_no_particle_is_left_to_chance(key):
    """Every particle after a placeholder is written as a pair (the helper picks it); no pair stays for the reader."""
    ko = i18n.CATALOG[key]["ko"]
    assert not _unresolved_pairs(ko), f"{key} ({i18n.OWNER[key]}): pair not after a placeholder in {ko!r}"
    assert not _bare_particles(ko), f"{key} ({i18n.OWNER[key]}): bare particle after a placeholder in {ko!r}"


# English left in Korean prose. Code is written as code (`x`, d_model, forward(...), model.state_dict); a term may be
# glossed once in brackets right after its Korean name (인과(causal)); a quote (“Orange is my favorite fruit”) is
# material, not prose. What remains must be a name the course or the field writes in English.
ALLOWED_ENGLISH = frozenset("""
    softmax Softmax PyTorch torch math import NaN True False GPU CPU CSV PNG JSON HTML MB KB id npz pt bin py UTF
    MultiHeadAttention transpose permute reshape view forward heads Q K V QK JS exp log sqrt nat Tq Tk
    BERT RoBERTa ELECTRA DistilBERT GPT Hugging Face TransformerLens Olsson Adam BLAKE2b float32 float64 Orange
    Tab Enter Esc Shift Ctrl
""".split())  # the last line: keys, named as the keyboard writes them
_NOT_PROSE = re.compile(r"`[^`]*`|\$[^$]*\$|\{[^{}]*\}|https?://\S+|</?[A-Za-z][^<>]*>|“[^”]*”|\"[^\"]*\""
                        r"|\[[A-Z]{2,5}\]")  # code, maths, placeholders, links, markup, quotes, [UNK]
_GLOSS = re.compile(r"(?<=[가-힣*])\([A-Za-z][A-Za-z ,\-]*\)")
_CALL = re.compile(r"[A-Za-z_][\w.]*\([^()]*\)")
_CODE_WORD = re.compile(r"[\w/-]*[_./=][\w./=-]*\w")  # d_model, model.state_dict, google/bert-…, .to_dense, bias=True
_LETTERS = re.compile(r"[A-Za-z][0-9]?")  # q, k, v, x, T, B, W, h, e: maths and shapes


def english_words(ko: str) -> list[str]:
    s = _GLOSS.sub(" ", _NOT_PROSE.sub(" ", ko))
    s = _CODE_WORD.sub(" ", _CALL.sub(" ", s))
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", s) if w not in ALLOWED_ENGLISH and not _LETTERS.fullmatch(w)]


def test_the_english_scan_catches_what_it_should():
    assert english_words("위에서 *added*를 고르고") == ["added"]
    assert english_words("*prev_next* 과제 (previous)") == ["previous"]
    assert english_words("배치를 split으로 바꾸면") == ["split"]
    assert not english_words("인과(causal) 마스크, `scores`, d_model {n}, forward(query, key), q·k, softmax, PyTorch")


@pytest.mark.parametrize("key", sorted(k for k in i18n.CATALOG if not k.startswith("code_")))
def test_no_english_words_in_korean_prose(key):
    ko = i18n.CATALOG[key]["ko"]
    assert not english_words(ko), f"{key} ({i18n.OWNER[key]}): English in Korean prose: {english_words(ko)} in {ko!r}"


# ------------------------------------------------------------------------------------- what a Korean page shows

_PAIR_SHOWN = re.compile(_PAIR_RE)


def _page_texts(at) -> list[str]:
    from harness.apptest import page_root
    from test_i18n import visible_texts  # the one walker over a page's prose
    return [text for _, text in visible_texts(page_root(at))]


def test_the_cell_breakdown_counts_rows_from_0_and_picks_particles():
    """Query 3 (친구와, "3: 친구와" in the picker) is row 3 in prose too, in Korean and English, as in PyTorch; the
    particles fit the numbers."""
    import json

    from harness.apptest import open_page

    text = "나는 오늘 학교에서 친구와 맛있는 점심을 먹었다"
    for lang, want, old in (("ko", "행 3", "4번째"), ("en", "row 3", "4th")):
        at = open_page("pages/playground.py", lang=lang, text=text, show_cell="true", cell_query="3", cell_key="0")
        assert not at.exception
        texts = _page_texts(at)
        assert any(want in t for t in texts), (lang, [t for t in texts if "행" in t or "row" in t][:5])
        assert not any(old in t for t in texts), [t for t in texts if old in t]  # no 1-based count beside it
        titles = [json.dumps(json.loads(c.proto.spec)["layout"].get("title"), ensure_ascii=False)
                  for c in at.get("plotly_chart")]
        assert any(want in t and "친구와" in t for t in titles), titles
        if lang == "ko":
            shown = [m.group() for t in texts for m in _PAIR_SHOWN.finditer(t)]
            assert not shown, shown


@pytest.mark.parametrize("page, params", [
    ("pages/train.py", {"tr_at": "300"}), ("pages/masks.py", {"mask": "padding"}), ("pages/heads.py", {}),
])
def test_a_korean_page_shows_no_particle_pair(page, params):
    from harness.apptest import open_page

    at = open_page(page, lang="ko", text="나는 오늘 학교에서 친구와 맛있는 점심을 먹었다", **params)
    assert not at.exception
    texts = _page_texts(at)
    assert any(re.search("[가-힣]", t) for t in texts)
    shown = [(m.group(), t[:80]) for t in texts for m in _PAIR_SHOWN.finditer(t)]
    assert not shown, shown


def test_every_uploader_is_the_one_uploader():
    """Streamlit's English in a drop zone is written over in Korean only by mha.app.widgets.file_uploader."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    direct = [str(p.relative_to(root)) for p in [*root.glob("mha/**/*.py"), *root.glob("pages/*.py"), root / "app.py"]
              if re.search(r"\bst\.file_uploader\(|\.file_uploader\(", p.read_text(encoding="utf-8"))
              and p.name != "widgets.py"]
    assert not direct, f"use mha.app.widgets.file_uploader in {direct}"


from test_i18n import PAGES, korean_pages  # noqa: E402,F401 (the fixture: every page opened once in Korean)

_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_VERSION = re.compile(r"\b\d+\.\d+[\w.+-]*")  # torch 2.13.0+cpu
_WIDGET_IDS = {"button_group"}  # a segmented control's proto keeps its option ids beside the names it shows


@pytest.mark.parametrize("page", [path for path, _, _ in PAGES])
def test_a_korean_page_shows_no_english_words(page, korean_pages):
    """What the catalog scan cannot see: text put together in code, option names, labels."""
    found = [(w, text[:80]) for kind, text in korean_pages[page] if kind not in _WIDGET_IDS
             and (kind, text) != ("text_input", "code")  # Check's hidden link holder (display: none, no label)
             for w in english_words(_VERSION.sub(" ", _LINK_TARGET.sub("]", text)))
             if w not in {"PAD", "English"}]  # the padding token; the language control names both languages
    assert not found, found


def test_chart_words_need_no_particle_choice():
    """Chart words (ch_*) are filled in by the figure builders with str.format, which does not choose particles:
    a pair there would be shown as written. Write the sentence so that no particle follows the placeholder."""
    pairs = {k: e["ko"] for k, e in i18n.CATALOG.items() if k.startswith("ch_") and _PAIR_SHOWN.search(e["ko"])}
    assert not pairs, pairs


def test_the_train_page_names_its_task_without_the_id():
    """'**이전 단어** (`previous`)' showed the link's id in prose: the task is named in the page's language only."""
    from harness.apptest import open_page, page_root
    from test_i18n import visible_texts

    at = open_page("pages/train.py", lang="ko", tr_task="prev_next")
    texts = [_LINK_TARGET.sub("]", t) for kind, t in visible_texts(page_root(at)) if kind not in _WIDGET_IDS]
    assert any("이전과 다음" in t for t in texts)
    assert not [t for t in texts if "prev_next" in t], [t[:80] for t in texts if "prev_next" in t]
