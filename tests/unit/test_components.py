"""In-page components keep their JavaScript and CSS in real files (mha/app/components/component.py), where ESLint sees
them."""
import pathlib
import re

from mha.app.components import component, head_view, heatmap_view, link_box

ROOT = pathlib.Path(__file__).resolve().parents[2]


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


def test_head_view_sends_its_alphabet_instead_of_templating_it():
    js = component.asset(head_view.__file__, ".js")
    assert "__ALPHABET__" not in js and "data.alphabet" in js
