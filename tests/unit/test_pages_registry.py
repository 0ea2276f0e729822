"""Every page is registered, reachable by a stable URL, is a thin file whose section draws it, and only the frame
knows that Streamlit may run a page file alone (its legacy routing)."""
import ast
from pathlib import Path

from mha.app.pages import PAGES, url_path
from mha.core import i18n

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


def _code(tree: ast.Module) -> list[ast.stmt]:
    """The statements of a module after its docstring."""
    body = tree.body
    return body[1:] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else body


def test_every_page_file_is_its_docstring_an_import_and_one_call():
    """pages/<name>.py is thin: a docstring, ``from mha.app.sections.<name> import page``, ``page()``."""
    for path, _, _ in PAGES:
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{path} says what the page is"
        code = _code(tree)
        assert len(code) == 2, f"{path}: an import and one call, nothing else"
        imp, call = code
        assert isinstance(imp, ast.ImportFrom) and imp.module == f"mha.app.sections.{Path(path).stem}", path
        assert [a.name for a in imp.names] == ["page"] and imp.names[0].asname is None, path
        assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call), path
        assert isinstance(call.value.func, ast.Name) and call.value.func.id == "page", path
        assert not call.value.args and not call.value.keywords, path


def test_every_page_function_is_decorated_by_the_frame():
    """Each section's ``page`` is wrapped by ``frame.page``: the one place that hands a legacy-routed run to app.py."""
    for path, _, _ in PAGES:
        section = ROOT / "mha" / "app" / "sections" / Path(path).name
        tree = ast.parse(section.read_text(encoding="utf-8"))
        pages = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "page"]
        assert len(pages) == 1, f"{section.relative_to(ROOT)} defines page() once, at the top level"
        decorators = [ast.unparse(d) for d in pages[0].decorator_list]
        assert decorators == ["frame.page"], f"{section.relative_to(ROOT)}: page() is decorated by @frame.page only"
        assert not pages[0].args.args, "page() takes nothing: the page reads the shared controls itself"


def test_only_the_frame_knows_about_legacy_routing():
    """The check (is app.py running this page?) is in mha/app/frame.py alone: nothing else reads its flag, reruns
    into the navigation (``st.navigation`` is the frame's) or calls the page_setup() every page used to start with;
    only internals.py (the hosted launcher's switch, set before the server starts) names Streamlit's legacy flag."""
    files = [p for d in ("mha", "pages") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
    frame = ROOT / "mha" / "app" / "frame.py"
    frame_names = {n.id for n in ast.walk(ast.parse(frame.read_text(encoding="utf-8"))) if isinstance(n, ast.Name)}
    assert {"_in_app", "_through_app"} <= frame_names  # the names looked for below are the frame's
    offenders = {}
    for p in files:
        if p == frame:
            continue
        rel = str(p.relative_to(ROOT))
        tree = ast.parse(p.read_text(encoding="utf-8"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        found = names & {"_in_app", "_through_app", "uses_pages_directory", "navigation", "page_setup"}
        if rel == "mha/app/internals.py":  # the hosted launcher's switch, before any session (mha.app.serve)
            found -= {"uses_pages_directory"}
        if found:
            offenders[rel] = sorted(found)
    assert not offenders, offenders
