"""docs/architecture.md names every module of mha/: a new module without a row fails here, and so does a row naming
a module that is gone.

The rule: each module's path appears in the document, written out (``mha/check/sandbox.py``) or in a brace group of
one folder's modules (``mha/strings/{bugs,charts}.py``). Package ``__init__.py`` files need no row."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PATH = re.compile(r"mha/[\w/]*?(?:\w+|\{[\w,]+\})\.py")


def named_paths(text: str) -> set[str]:
    """Every ``mha/....py`` path the text names, brace groups expanded."""
    named = set()
    for path in PATH.findall(text):
        folder, _, stem = path.removesuffix(".py").rpartition("/")
        names = stem[1:-1].split(",") if stem.startswith("{") else [stem]
        named.update(f"{folder}/{name}.py" for name in names)
    return named


def modules() -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / "mha").rglob("*.py") if p.name != "__init__.py"}


def test_the_rule_reads_paths_and_brace_groups():
    assert named_paths("`mha/check/sandbox.py`, `mha/strings/{bugs,charts}.py`") == {
        "mha/check/sandbox.py", "mha/strings/bugs.py", "mha/strings/charts.py"}


def test_every_module_has_a_row():
    missing = sorted(modules() - named_paths(DOC.read_text(encoding="utf-8")))
    assert not missing, f"modules docs/architecture.md does not name (add a row, or the path to a row): {missing}"


def test_every_module_named_exists():
    gone = sorted(p for p in named_paths(DOC.read_text(encoding="utf-8")) if not (ROOT / p).is_file())
    assert not gone, f"docs/architecture.md names modules that do not exist: {gone}"
