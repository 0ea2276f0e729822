"""Issue #13: no upload or link can take the server down or put words in its mouth.

Every test builds its attack itself: a zip bomb, Markdown payloads in file names, state_dict key names and link
parameters, sparse / nested / quantized / meta tensors, a pickle nested 5,000 deep, a pickle that calls a blocked
function, random and mutated files, a link with a thousand long unknown parameters. The pure loader is tested
directly; then the same files go through the uploader and the same link through the app, as a visitor's do.
"""
from __future__ import annotations

import io
import os
import pickle
import random
import re
import struct
import zipfile

import pytest
import torch
from course_mha import MultiHeadAttention as CourseMHA
from harness.uploads import course_sd, nested, refused, saved, saved_deep, share_page, upload, zip_bomb
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from mha.core.markup import escape_markdown
from mha.weights import export

WJ = "\u2060"

# ------------------------------------------------------------------------------------------ rendering Markdown

# The payloads of issue #13, and the other constructs Streamlit's Markdown knows.
PAYLOADS = [
    "[Click here to verify your account](https://evil.example/login)",
    "![x](http://evil.example/pixel.png)",
    ":red[you have been hacked]",
    "$x^2$ and $$y$$",
    "**bold** __also__ *it* _it_",
    "`code` and ``more``",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script><a href='https://evil.example'>a</a>",
    "https://evil.example/path?a=1",
    "www.evil.example",
    "support@evil.example",
    ":smile: :material/home: :streamlit:",
    "a -> b <= c --> d",
    "# heading",
    "1. first",
    "- item",
    "> quote",
    "| a | b |",
    "~~strike~~",
    "&amp; &lt;b&gt; &#x41;",
    "two\n\n# lines\r\n- list",
    "\u202eexe.txt",
    "back\\slash\\*",
    "[ref]: https://evil.example",
    "<https://evil.example>",
]

# Streamlit 1.67's Markdown rewrites these in *text* nodes, after backslash escapes are resolved
# (static/js/StreamlitMarkdown*.js: GFM auto-link literals, remark-emoji, :material_x: icons, :streamlit:, arrows).
STREAMLIT_TEXT_REWRITES = [
    re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.I),
    re.compile(r"(?<![^\s\W_])([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)"),  # e-mail (roughly: any start)
    re.compile(r":\+1:|:-1:|:[\w-]+:"),
    re.compile(r":material_(\w+):"),
    re.compile(r"(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)"),
]
_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def rendered(source: str) -> tuple[set[str], str]:
    """(the kinds of inline pieces CommonMark makes of ``source``, the text a reader sees)."""
    kinds, shown = set(), []
    for block in _MD.parse(source):
        if block.type == "inline":
            for child in block.children or []:
                kinds.add(child.type)
                shown.append(child.content)
        elif block.type not in ("paragraph_open", "paragraph_close"):
            kinds.add(block.type)
    return kinds, "".join(shown)


def as_shown(raw: str) -> str:
    """What a page must show for ``raw``: the same characters, on one line (whitespace runs and controls become one
    space; bidi overrides, which could reorder the text, are not shown)."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f\s\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]+", " ", raw)


def assert_literal(source: str, raw: str, code: bool) -> None:
    """``source`` (Markdown) shows ``raw`` exactly, as plain text or one code span, with nothing rendered."""
    kinds, shown = rendered(source)
    assert kinds <= ({"code_inline"} if code else {"text"}), (kinds, source)
    # the same characters (a paragraph, or a code span's padding, may lose or keep spaces at its ends)
    assert shown.replace(WJ, "").strip() == as_shown(raw).strip(), (source, shown)
    if not code:  # code spans are never rewritten; text is, after its escapes are resolved
        for pattern in STREAMLIT_TEXT_REWRITES:
            assert not pattern.search(shown), (pattern.pattern, shown)
    assert ":material/" not in source  # Streamlit replaces this in the whole source, code spans included


@pytest.mark.parametrize("code", [False, True], ids=["text", "code"])
@pytest.mark.parametrize("raw", PAYLOADS)
def test_the_one_escaping_helper_shows_every_payload_as_typed(raw, code):
    assert_literal(escape_markdown(raw, code=code), raw, code)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40), st.booleans())
def test_the_one_escaping_helper_shows_any_text_as_typed(raw, code):
    assert_literal(escape_markdown(raw, code=code), raw, code)


def test_the_helper_cuts_before_escaping():
    raw = "*" * 100
    out = escape_markdown(raw, 10)
    assert out == "\\*" * 9 + "…"  # never half an escape
    assert escape_markdown("`" * 100, 10, code=True).count("`") == 9 + 2 * 10  # the fence outgrows the 9 inside


def test_there_is_one_escaping_helper():
    """No other Markdown escaper, alias or code-span maker is left in the app (Plotly labels have their own)."""
    import mha.core.markup

    assert not hasattr(mha.core.markup, "markdown_code") and not hasattr(export, "escape_name")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    found = []
    for folder in ("mha", "pages"):
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if name.endswith(".py"):
                    text = open(os.path.join(dirpath, name), encoding="utf-8").read()
                    found += [f"{name}: {m}" for m in re.findall(r"markdown_code|escape_name|md_escape|md_literal",
                                                                  text)]
    assert not found, found


# ----------------------------------------------------------------------------------------------- crafted files


def overlapping_zip(copies: int = 4, mb: int = 5) -> bytes:
    """Stored entries only, but the directory lists one entry's bytes ``copies`` times under other names: unpacked,
    the file is ``copies`` times its size (the "overlapping" zip bomb)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data/0", b"\0" * (mb * 2**20))
    data = buf.getvalue()
    eocd = data.rindex(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack("<II", data[eocd + 12:eocd + 20])
    record = data[cd_offset:cd_offset + cd_size]
    records = [record.replace(b"archive/data/0", f"archive/data/{i}".encode()) for i in range(copies)]
    directory = b"".join(records)
    end = bytearray(data[eocd:])
    struct.pack_into("<HHII", end, 8, copies, copies, len(directory), cd_offset)
    return data[:cd_offset] + directory + bytes(end)


class RunsCode:
    """Unpickling this would call os.system: torch 2.13 blocks the module ("unsupported GLOBAL ... is blocked")."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_a_zip_bomb_is_refused_from_its_directory_before_torch_load(monkeypatch):
    bomb = zip_bomb(32)
    assert len(bomb) < 2**20  # ~150 KB on the wire ...
    assert sum(e.file_size for e in zipfile.ZipFile(io.BytesIO(bomb)).infolist()) > 32 * 2**20  # ... 32 MB unpacked

    def never(*a, **k):
        raise AssertionError("torch.load must never see a compressed archive")

    monkeypatch.setattr(torch, "load", never)
    err = refused(bomb, "share_err_compressed")
    assert "compressed" in str(err) and "torch.save" in str(err)


def test_an_archive_whose_directory_unpacks_beyond_the_limit_is_refused(monkeypatch):
    data = overlapping_zip(copies=4, mb=5)
    assert len(data) < export.MAX_WEIGHTS_BYTES < 4 * 5 * 2**20
    monkeypatch.setattr(torch, "load", lambda *a, **k: pytest.fail("torch.load must not see it"))
    err = refused(data, "share_err_unpacked_too_big")
    assert f"{4 * 5 * 2**20 / 10**6:.0f} MB" in str(err)  # 4 entries of 5 MiB, in the app's MB (10**6 bytes)


def test_too_many_entries_are_refused():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i in range(export.MAX_ZIP_ENTRIES + 1):
            z.writestr(f"archive/x{i}", b"")
    refused(buf.getvalue(), "share_err_zip_entries")


def test_a_real_file_passes_the_archive_checks_unchanged():
    """torch.save's own files (stored entries), legacy files and the largest state_dict still load."""
    sd = course_sd(512)
    loaded = export.load_state_dict_bytes(saved(sd))
    for k, v in sd.items():
        torch.testing.assert_close(loaded[k], v)
    buf = io.BytesIO()
    torch.save(course_sd(), buf, _use_new_zipfile_serialization=False)  # pre-1.6 format: not a zip
    assert set(export.load_state_dict_bytes(buf.getvalue())) == set(export.COURSE_KEYS)


@pytest.mark.parametrize("make,layout", [
    (lambda: torch.eye(16).to_sparse(), "sparse_coo"),
    (lambda: torch.eye(16).to_sparse_csr(), "sparse_csr"),
    (lambda: torch.eye(16).to_sparse_csc(), "sparse_csc"),
    (lambda: torch.eye(16).to_sparse_bsr((4, 4)), "sparse_bsr"),
    (lambda: torch.nested.nested_tensor([torch.zeros(16), torch.zeros(3)]), "nested"),
    (lambda: torch.quantize_per_tensor(torch.zeros(16, 16), 0.1, 0, torch.qint8), "quantized"),
], ids=["coo", "csr", "csc", "bsr", "nested", "quantized"])
def test_weights_that_are_not_dense_tensors_are_refused_by_name(make, layout):
    err = refused(saved({**course_sd(), "key_linear.weight": make()}), "share_err_layout")
    assert "key_linear.weight" in str(err) and layout in str(err)


@pytest.mark.parametrize("tensor,key", [
    (torch.zeros(16, 16, device="meta"), "share_err_device"),
    (torch.zeros(16, 16, dtype=torch.complex64), "share_err_dtype"),
    (torch.zeros(16, 16, dtype=torch.float8_e4m3fn), "share_err_dtype"),
    (torch.zeros(16, 16, dtype=torch.bool), "share_err_dtype"),
], ids=["meta", "complex", "float8", "bool"])
def test_odd_devices_and_dtypes_are_refused(tensor, key):
    err = refused(saved({**course_sd(), "value_linear.weight": tensor}), key)
    assert "value_linear.weight" in str(err)


def test_a_pickle_nested_5000_deep_is_refused_without_a_recursion_error():
    data = saved_deep(nested(5000, course_sd()))
    assert len(data) < 100_000
    err = refused(data, "share_err_nested")
    assert "4" in str(err)
    refused(saved_deep({**course_sd(), "output_linear.bias": nested(5000, [1])}), "share_err_not_tensor")
    refused(saved_deep(nested(3, course_sd())), ()) if False else export.load_state_dict_bytes(
        saved(nested(3, course_sd())))  # a checkpoint a few levels deep is still read


def test_a_pickle_that_asks_to_run_code_says_so_and_never_runs(tmp_path):
    target = tmp_path / "ran.txt"
    for data in (saved(RunsCode(target)), saved({**course_sd(), "output_linear.bias": RunsCode(target)}),
                 pickle.dumps(RunsCode(target), protocol=2)):  # torch's zip format, inside a state_dict, legacy
        err = refused(data, "share_err_runs_code")
        assert "asks to run code" in str(err) and "refused" in str(err)
        assert "system" in str(err)  # what it asked for
    assert not target.exists()


def test_the_blocked_global_is_recognised_in_any_case(monkeypatch):
    """torch's wording is matched case-insensitively: a capitalised 'Is Blocked' is still code, not 'not torch'."""
    real = torch.load

    def shouting(*a, **k):
        try:
            return real(*a, **k)
        except Exception as err:
            raise pickle.UnpicklingError(str(err).upper()) from None

    monkeypatch.setattr(torch, "load", shouting)
    refused(saved(RunsCode("/nonexistent/x")), "share_err_runs_code")


def test_a_whole_module_is_refused_as_objects_not_as_code():
    err = refused(saved(CourseMHA(16, 4)), "share_err_unsafe")
    assert "state_dict" in str(err)


def test_key_names_from_the_file_are_escaped_in_the_message():
    names = ["[Click here to verify your account](https://evil.example/login)", "![x](http://evil.example/p.png)",
             ":red[x]", "$x$", "**x**", "`x`", "<b>x</b>"]
    err = refused(saved({**course_sd(), **{n: torch.zeros(1) for n in names}}), "share_err_keys")
    for lang in ("en", "ko"):
        kinds, shown = rendered(err.message(lang))
        assert kinds == {"text"}, kinds
        assert "evil.example" in shown.replace(WJ, "") and "…" in shown  # named (six of them), the rest counted


def test_every_refusal_has_both_languages_and_the_same_placeholders():
    from mha.core.i18n import text

    for key in ("share_err_runs_code", "share_err_unsafe", "share_err_compressed", "share_err_unpacked_too_big",
                "share_err_zip_entries", "share_err_nested", "share_err_layout", "share_err_device",
                "share_err_unreadable", "share_err_memory", "share_param_more"):
        args = dict(what="x", entry="e", size_mb=20.0, max_mb=18.0, found=300, limit=256, levels=4, name="n",
                    layout="sparse_coo", device="meta", error="E", n=3)
        en, ko = text(key, "en", **args), text(key, "ko", **args)
        assert en != ko and key not in (en, ko)
        assert re.findall(r"\{(\w+)", en) == [] and re.findall(r"\{(\w+)", ko) == []


def test_fuzzed_files_only_ever_raise_weights_error():
    """Random bytes and mutated real files (zip and legacy): every outcome is a loaded state_dict or a
    WeightsError with a message in both languages, never another exception."""
    rng = random.Random(13)
    buf = io.BytesIO()
    torch.save(course_sd(), buf, _use_new_zipfile_serialization=False)
    seeds = [saved(course_sd()), buf.getvalue(), saved({"state_dict": course_sd()})]
    outcomes = {"ok": 0, "refused": 0}
    for n in range(300):
        if n % 5 == 0:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 2000)))
        else:
            data = bytearray(rng.choice(seeds))
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(data))
                op = rng.randrange(4)
                if op == 0:
                    data[i] = rng.getrandbits(8)
                elif op == 1:
                    del data[i:i + rng.randint(1, 64)]
                elif op == 2:
                    data[i:i] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 16)))
                else:
                    data = data[:i]
                if not data:
                    data = bytearray(b"\0")
            data = bytes(data)
        try:
            export.load_state_dict_bytes(data)
            outcomes["ok"] += 1
        except export.WeightsError as err:
            assert err.message("en") and err.message("ko"), err.key
            outcomes["refused"] += 1
    assert outcomes["refused"] > 100  # the mutations did reach the loader's checks


# ------------------------------------------------------------------------------- through the uploader (AppTest)

def test_every_attack_through_the_uploader_gets_a_message_and_the_page_keeps_working(tmp_path):
    from mha.app.state import CUSTOM_WEIGHTS_KEY

    target = tmp_path / "ran.txt"
    rng = random.Random(7)
    attacks = {
        "zip bomb": (zip_bomb(32), "compressed"),
        "sparse COO": (saved({**course_sd(), "key_linear.weight": torch.eye(16).to_sparse()}), "sparse_coo"),
        "sparse CSR": (saved({**course_sd(), "key_linear.weight": torch.eye(16).to_sparse_csr()}), "sparse_csr"),
        "nested 5000 deep": (saved_deep(nested(5000, course_sd())), "levels deep"),
        "blocked global": (saved(RunsCode(target)), "asks to run code"),
        "random bytes": (bytes(rng.getrandbits(8) for _ in range(4000)), "not a PyTorch file"),
        "key names": (saved({**course_sd(), "[Click here](https://evil.example)": torch.zeros(1)}), "evil.example"),
    }
    at = share_page(lang="en")
    assert not at.exception
    for case, (data, says) in attacks.items():
        upload(at, f"{case}.pt", data)
        assert not at.exception, (case, at.exception)
        errors = [e.value for e in at.error]
        assert len(errors) == 1 and errors[0].startswith("This file was not used:"), (case, errors)
        kinds, shown = rendered(errors[0])
        assert kinds == {"text"}, (case, kinds)  # no link, image, HTML, code or maths from the file
        assert says in shown.replace(WJ, ""), (case, shown)
        assert CUSTOM_WEIGHTS_KEY not in at.session_state, case
        assert at.get("download_button"), case  # the rest of the page is still there
    assert not target.exists()


@pytest.mark.parametrize("name", PAYLOADS[:8])
def test_a_file_name_is_shown_as_typed(name):
    at = upload(share_page(lang="en"), f"{name}.pt", saved(course_sd(16)))
    assert not at.exception
    message = at.success[0].value
    kinds, shown = rendered(message)
    assert kinds <= {"text", "code_inline", "strong_open", "strong_close"}, kinds
    want = as_shown(f"{name}.pt")
    want = want if len(want) <= 60 else want[:59] + "…"  # long names are cut
    assert want in shown.replace(WJ, ""), shown
    note = next(i.value for i in at.info if "uploaded weights" in i.value)  # the same name on every page
    assert want in rendered(note)[1].replace(WJ, "")


# ------------------------------------------------------------------------------------------------- the long link

def test_990_long_unknown_link_parameters_go_in_one_message_and_the_note_names_five(monkeypatch):
    from harness.apptest import open_page
    from streamlit.runtime.state.query_params import QueryParams

    sent = []
    original = QueryParams._send_query_param_msg

    def counting(self):
        sent.append(len(self._query_params))
        return original(self)

    monkeypatch.setattr(QueryParams, "_send_query_param_msg", counting)  # counts, and still sends
    unknown = {f"p{i:03d}": "x" * 520 for i in range(990)}  # inside Streamlit's 512 KiB query limit
    payload = {"[Click here](https://evil.example)": "1"}
    at = open_page("pages/playground.py", lang="en", text="the cat sat", **unknown, **payload)
    assert not at.exception
    notes = [c.value for c in at.sidebar.caption if "not used by any control" in c.value]  # said once, on opening
    at.run()
    assert not at.exception
    assert len(sent) <= 2, f"{len(sent)} query-string messages"  # one removal, not one per parameter
    assert not any(k in at.query_params for k in unknown) and not any(k in at.query_params for k in payload)
    assert at.query_params["text"] == "the cat sat"  # the controls' own parameters stay
    assert len(notes) == 1
    kinds, shown = rendered(notes[0])
    assert kinds <= {"text", "code_inline"}, kinds
    named = re.findall(r"p\d{3}", shown)
    assert named == ["p000", "p001", "p002", "p003", "p004"] and "and 986 more" in shown, shown


# ------------------------------------------------------------------------------------------------- the server

def test_the_server_watches_no_files_and_keeps_public_demo_settings():
    """A .venv inside the checkout must not cost one inotify watch per folder (Streamlit's watchdog observer watches
    the app's folder recursively; folderWatchBlacklist does not stop it): no file watcher at all."""
    import tomllib

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, ".streamlit", "config.toml"), "rb") as f:
        config = tomllib.load(f)
    server = config["server"]
    assert server["fileWatcherType"] == "none" and server["runOnSave"] is False
    assert server["enableXsrfProtection"] is True and server["enableStaticServing"] is False
    assert server["maxUploadSize"] * 2**20 > export.MAX_WEIGHTS_BYTES  # Streamlit's cap sits just above ours
    assert config["client"]["showErrorDetails"] == "none"


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_400_kb_text_link_is_cut_where_the_link_is_read(lang):
    """#23.7: a ``text=`` of 400 KB came back ~3 times (the box's value, the address bar, the link box). The link
    reader keeps the MAX_CHARS that are ever read, says so next to the text box, and nothing sent back is long."""
    from harness.apptest import open_page

    from mha.core.i18n import text as i18n_text
    from mha.weights.view import MAX_CHARS

    long = "the cat sat " * 36_000  # 432,000 characters
    at = open_page("pages/playground.py", text=long, lang=lang)
    assert not at.exception
    assert at.sidebar.text_area(key="text").value == long[:MAX_CHARS]
    assert at.query_params["text"] in (long[:MAX_CHARS], [long[:MAX_CHARS]])  # the address bar, cut
    note = i18n_text("ctl_text_link_cut", lang, n_chars=len(long), max_chars=MAX_CHARS)
    assert note in [c.value for c in at.sidebar.caption]
    link_box = [el for el in at.get("bidi_component") if el.proto.component_name == "mha_share_link"]
    assert link_box and len(link_box[0].proto.SerializeToString()) < 4 * MAX_CHARS + 10_000  # was ~1.3 MB
