"""A view saved as one HTML file (#26.7, ``mha.charts.standalone``, ``mha.app.share.html_file``): self-contained (no URL
to fetch), every token data and never markup, the components' own scripts inside, offered on the Share page.
tests/browser/test_standalone_browser.py opens such a file from disk in Chromium."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from harness.apptest import open_page

from mha.app import share
from mha.app.widgets import _chart_words
from mha.charts import head_view_data, standalone
from mha.core import i18n
from mha.weights.view import ViewSpec, run_view

HOSTILE = "</script><img src=x onerror=alert(1)>"
LABELS = ["the", HOSTILE, "<b>cat</b> & </style>", "\u2028line", "mat"]
URL = re.compile(r"(?:https?:|wss?:|ftp:)?//[\w.-]+\.\w", re.I)  # any address a browser would fetch


def hostile_file(lang: str = "en") -> str:
    rng = np.random.default_rng(0)
    w = rng.random((3, 5, 5))
    w /= w.sum(-1, keepdims=True)
    return share.html_file(w, LABELS, LABELS, words=_chart_words(lang), head_view_words=head_view_data.words(lang),
                           headings=(HOSTILE, "head view"), title=HOSTILE, caption="a & b", lang=lang).decode()


def scripts(text: str) -> list[str]:
    return re.findall(r"<script[^>]*>(.*?)</script>", text, flags=re.S)


def test_the_file_fetches_nothing():
    text = hostile_file()
    assert not URL.findall(text), URL.findall(text)[:5]
    assert not re.search(r"<[a-z][^>]*\b(?:src|href)\s*=", text, re.I)  # no element loads anything
    assert not re.search(r"@import|url\(", text)  # nor a style
    for body in scripts(text):  # nor a script (the PNG button's link is a blob made in the page)
        assert not re.search(r"\bimport\s*\(|\bimport\s+[\w{*'\"]|fetch\(|XMLHttpRequest|WebSocket", body)
    assert text.count("<script") == text.count("</script>") == 2  # the two components, nothing else


def test_hostile_tokens_stay_text():
    text = hostile_file()
    assert "<img" not in text and "<b>" not in text and "</style>" not in text.split("</head>")[1]
    assert "\u2028" not in text  # a raw line separator would end a JavaScript string
    for body in scripts(text):  # each payload, parsed back, gives the labels exactly
        literal = re.search(r"const __mhaData = (.*);\n", body).group(1)
        data = json.loads(literal)
        assert HOSTILE in json.dumps(data, ensure_ascii=False)
    assert "<title>&lt;/script&gt;&lt;img" in text and "<h2>&lt;/script&gt;" in text  # headings escaped


def test_the_components_own_scripts_are_inside_with_their_default_export_called():
    from mha.app.components import head_view, heatmap_view
    from mha.app.components.component import asset

    text = hostile_file()
    for mod in (heatmap_view, head_view):
        js = asset(mod.__file__, ".js")
        assert standalone.module_script(js) in text
        assert asset(mod.__file__, ".css") in text
    assert text.count("__mhaRender({ parentElement: document.getElementById('mha-part-") == 2


def test_script_json_round_trips_and_refuses_nan():
    value = {"s": HOSTILE + "&\u2029", "n": [1.5, 2]}
    literal = standalone.script_json(value)
    assert not set("<>&\u2028\u2029") & set(literal)
    assert json.loads(literal) == value
    with pytest.raises(ValueError):
        standalone.script_json({"x": float("nan")})


def test_a_script_that_cannot_be_inlined_is_refused():
    with pytest.raises(ValueError, match="exactly once"):
        standalone.module_script("function f() {}")
    with pytest.raises(ValueError, match="</script"):
        standalone.module_script(standalone.EXPORT + " { '</script>'; }")
    with pytest.raises(ValueError, match="</style"):
        standalone.standalone_html([standalone.Part(standalone.EXPORT + " {}", "a{}</style>", "<div></div>", {})],
                                   title="x")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_views_file_has_its_numbers_title_and_language(lang):
    view = run_view(ViewSpec(text="the cat sat on the mat", causal=True))
    text = share.html_file(view.weights, view.labels, view.key_labels, allowed=view.allowed,
                           words=_chart_words(lang), head_view_words=head_view_data.words(lang),
                           headings=(i18n.text("pg_all_heads", lang), i18n.text("hv_section_title", lang)),
                           title="t", lang=lang).decode()
    assert f'<html lang="{lang}">' in text and i18n.text("pg_all_heads", lang) in text
    from mha.charts.heatmap_data import unpack

    grid = json.loads(re.search(r"const __mhaData = (.*);\n", scripts(text)[0]).group(1))
    np.testing.assert_allclose(unpack(grid)["values"], view.weights, atol=1e-6)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_share_page_offers_the_file(lang):
    at = open_page("pages/share.py", lang=lang, text="the cat sat")
    assert not at.exception
    [button] = [b for b in at.get("download_button") if b.proto.id.endswith("share_html")]
    assert button.proto.label == i18n.text("share_html", lang)
    assert i18n.text("share_html_title", lang) in [h.value for h in at.subheader]


@pytest.mark.usefixtures("offline")
def test_a_pretrained_views_file_has_the_model_view(tmp_path):
    import tiny_models

    from mha.charts.heatmap_data import unpack
    from mha.weights.pretrained import load_model
    from mha.weights.view import pretrained_every_layer

    folder = tiny_models.build("bert", tmp_path / "bert", layers=3)
    info = load_model(str(folder)).info
    view = run_view(ViewSpec(text="the cat sat on the mat", d_model=info.d_model, num_heads=info.num_heads,
                             source="pretrained", model=str(folder), layer=1))
    layers = pretrained_every_layer(view.spec)
    text = share.html_file(view.weights, view.labels, view.key_labels, allowed=view.allowed,
                           words=_chart_words("ko"), head_view_words=head_view_data.words("ko"),
                           headings=("a", "b", "모든 층"), title="t", lang="ko", layers=layers, layer=1).decode()
    bodies = scripts(text)
    assert len(bodies) == 3 and "<h2>모든 층</h2>" in text
    model = json.loads(re.search(r"const __mhaData = (.*);\n", bodies[2]).group(1))
    assert model["layout"] == "model" and model["marked"] == 1 * info.num_heads  # layer 1, head 0 framed
    L, H, T = layers[0].shape[:3]
    np.testing.assert_allclose(unpack(model)["values"], layers[0].reshape(L * H, T, T), atol=1e-6)
    np.testing.assert_allclose(layers[0][1], view.weights, atol=1e-5)  # the layer shown, the same numbers
