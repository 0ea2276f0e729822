"""In-page components keep their JavaScript and CSS in real files (mha/app/components/component.py), where ESLint and
Stylelint see them; so do the pages' own stylesheets (mha/app/frame.css, mha/app/sections/check.css, ...)."""
import ast
import pathlib
import re

from mha.app.components import component, head_view, heatmap_view, link_box
from mha.app.sections import check

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A CSS rule in a Python string: a selector, then "{ property: value; }". The app's CSS always has a space after
# "{", which a str.format field ("{score:.2f}") never has.
CSS_RULE = re.compile(r"([^{};]*)\{\s+[a-z-]+\s*:[^{}]*;\s*\}")
RUN_TIME = "\0"  # an f-string's replacement field ({key}), in the string as this test reads it
# The one module that may still write CSS in Python, and only generated rules: each rule's selector holds a value
# known at run time (one widget's key, ".st-key-{key}", hide() and file_uploader; a helper's selector parameter,
# css_text/css_content, whose content is the string catalog's words). A selector written out in full is a static
# stylesheet: it belongs in a .css file beside its module.
GENERATED_CSS_IN = {"mha/app/widgets.py"}


def _python_strings(tree: ast.AST):
    """Every string literal of ``tree``, an f-string as one string with RUN_TIME for each replacement field."""
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield "".join(v.value if isinstance(v, ast.Constant) else RUN_TIME for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
            yield node.value


def css_rules_in_python(path: pathlib.Path) -> tuple[list[str], list[str]]:
    """(static, generated) CSS rules in ``path``'s strings: generated ones have a run-time value in their selector."""
    static, generated = [], []
    for text in _python_strings(ast.parse(path.read_text(encoding="utf-8"))):
        for rule in CSS_RULE.finditer(text):
            (generated if RUN_TIME in rule.group(1) else static).append(rule.group(0).strip())
    return static, generated


def test_every_component_reads_its_own_files():
    stems = {
        "mha_head_view": pathlib.Path(head_view.__file__),
        "mha_heatmaps": pathlib.Path(heatmap_view.__file__),
        "mha_share_link": pathlib.Path(link_box.__file__),
    }
    for name, stem in stems.items():
        js, css = component.asset(stem, ".js"), component.asset(stem, ".css")
        assert "export default function" in js, name
        assert "{" in css and "}" in css, name


def test_no_javascript_or_css_left_in_python_strings():
    offenders = []
    for path in (ROOT / "mha").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        # a component's body (listeners, DOM queries, arrow functions); a one-line bootstrap that calls a
        # component's own script (mha/charts/standalone.py, the saved HTML file) is a template, not a component
        if re.search(r"addEventListener\(|querySelector(All)?\(|=> \{", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, (f"JavaScript inside Python strings: {offenders}; put it in a .js file "
                           "(mha.app.components.component)")
    static_css, generated_css = {}, {}
    for path in (ROOT / "mha").rglob("*.py"):
        static, generated = css_rules_in_python(path)
        name = str(path.relative_to(ROOT))
        if static:
            static_css[name] = static
        if generated and name not in GENERATED_CSS_IN:
            generated_css[name] = generated
    assert not static_css, (f"CSS inside Python strings: {static_css}; put it in a .css file beside its module "
                            "(read by mha.app.components.component.asset), where Stylelint checks it")
    assert not generated_css, (f"CSS written in Python outside {GENERATED_CSS_IN}: {generated_css}; a rule "
                               "generated per key belongs with mha.app.widgets' helpers (hide, css_text, ...)")


def test_the_css_check_tells_generated_rules_from_static_ones(tmp_path):
    source = tmp_path / "example.py"
    source.write_text('''KEY = "x"
STATIC = "<style>.stApp { word-break: keep-all; }</style>"
ALSO_STATIC = f"<style>.st-key-box textarea {{ font-size: 14px; }}</style>"
PER_KEY = f"<style>.st-key-{KEY} {{ display: none; }}</style>"
NOT_CSS = "head {head}: closest {role}, {score:.2f}"
''', encoding="utf-8")
    static, generated = css_rules_in_python(source)
    assert static == ["<style>.stApp { word-break: keep-all; }", "<style>.st-key-box textarea { font-size: 14px; }"]
    assert generated == ["<style>.st-key-\0 { display: none; }"]


def test_the_pages_stylesheets_are_files():
    # the Check page's editor: its rule names the editor's key
    assert check.EDITOR_CSS.startswith("<style>") and f".st-key-{check.EDITOR} textarea" in check.EDITOR_CSS
    files = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in (ROOT / "mha").rglob("*.css")}
    assert {"mha/app/frame.css", "mha/app/frame_streamlit_ko.css", "mha/app/sections/check.css",
            "mha/charts/standalone.css"} <= set(files)
    for name, text in files.items():
        # no "<" even in a comment: the page's HTML sanitizer drops a whole <style> whose text looks like a tag
        assert "{" in text and "<" not in text, name


def test_head_view_sends_its_alphabet_instead_of_templating_it():
    js = component.asset(head_view.__file__, ".js")
    assert "__ALPHABET__" not in js and "data.alphabet" in js
