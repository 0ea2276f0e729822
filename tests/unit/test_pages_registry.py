"""Every page is registered, reachable by a stable URL, and draws the shared frame even when run alone."""
import ast
from pathlib import Path

from mha.core import i18n
from mha.app.pages import PAGES, url_path

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_file_is_registered_and_every_entry_exists():
    files = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    registered = [path for path, _, _ in PAGES]
    assert sorted(registered) == sorted(files)
    assert len(set(registered)) == len(registered)


def test_url_paths_are_the_file_names_streamlit_legacy_mode_would_use():
    assert url_path(PAGES[0][0]) == ""
    for path, _, _ in PAGES[1:]:
        stem = Path(path).stem
        assert url_path(path) == stem and stem.isidentifier() and not stem[0].isdigit()


def test_every_page_title_is_translated():
    for _, title_key, _ in PAGES:
        assert title_key in i18n.CATALOG
        assert all(i18n.CATALOG[title_key].get(lang) for lang in i18n.LANGS)


def test_every_page_calls_page_setup_before_anything_else_streamlit():
    for path, _, _ in PAGES:
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        body = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))
                and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        first = body[0]
        assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Call), path
        assert getattr(first.value.func, "id", None) == "page_setup", f"{path} must start with page_setup()"
