"""The layers: Streamlit is imported only inside ``mha/app/``; the pure core imports nothing from it."""
from __future__ import annotations

import ast
from pathlib import Path

MHA = Path(__file__).resolve().parents[2] / "mha"
APP = MHA / "app"


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (inside functions too): ``import a.b`` and ``from a.b import c``
    give "a.b"; a relative import is resolved against the file's package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(MHA.parent).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # from . import x / from ..y import z
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            found.add(str(node.args[0].value))
    return found


def pure_files() -> list[Path]:
    return sorted(p for p in MHA.rglob("*.py") if APP not in p.parents)


def test_the_walk_finds_what_it_looks_for():
    """The check itself can fail: the Streamlit layer's own files do import streamlit, found by the same walk."""
    assert pure_files() and len(pure_files()) > 10
    assert any(m.split(".")[0] == "streamlit" for m in imported_modules(APP / "widgets.py"))
    assert "mha.app.widgets.t" in imported_modules(APP / "frame.py")


def test_no_streamlit_outside_mha_app():
    offenders = {str(p.relative_to(MHA.parent)): sorted(m for m in imported_modules(p)
                                                        if m.split(".")[0] == "streamlit")
                 for p in pure_files()}
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, (f"these modules import Streamlit: {offenders}. Streamlit code goes in mha/app/; "
                           "the rest of mha/ stays pure (arrays in, arrays or figures out)")


def test_the_pure_core_does_not_import_the_app_layer():
    offenders = {str(p.relative_to(MHA.parent)): sorted(m for m in imported_modules(p) if m.startswith("mha.app"))
                 for p in pure_files()}
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"the pure core must not depend on the Streamlit layer: {offenders}"
