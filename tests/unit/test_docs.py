"""The README is read in a minute and points to docs/; every link between them leads somewhere."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_readme_is_short_and_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode()) <= 10 * 1024, "README.md over 10 KB: move the detail to docs/"
    run, test, picture = (text.index(s) for s in ("streamlit run app.py", "bash scripts/test.sh", "!["))
    assert run < picture and test < picture, "the two commands come before the picture"
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text(), "CI runs the README's test command"


def test_every_relative_link_resolves():
    broken = []
    for page in PAGES:
        prose = re.sub(r"`[^`]*`", "", page.read_text(encoding="utf-8"))  # links inside code are examples
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_every_docs_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in PAGES[1:] if f"docs/{p.name}" not in readme]
    assert not missing, f"docs pages the README does not link: {missing}"
