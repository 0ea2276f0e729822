"""A view saved as one HTML file (#26.7), opened from disk (file://) with no server and every network request
refused: the grid draws (its root's data-ready), pointing at a cell shows its tooltip with a hostile token as
text, the keyboard moves, the head view answers; and the Share page's own download is such a file.

``watched_page`` fails the test on any console error, uncaught error or dialog (an ``alert`` from a token)."""
from __future__ import annotations

import time

import numpy as np
from harness.chromium import goto

from .conftest import watched_page

HOSTILE = "</script><img src=x onerror=alert(1)>"


def refuse_network(page) -> list[str]:
    """Abort every request that is not the file itself; the list of what was asked for."""
    asked: list[str] = []

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            asked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return asked


def wait_drawn(page) -> None:
    page.wait_for_function("() => ['.hm', '.hv'].every(s => { const r = document.querySelector(s);"
                           " return r && r.dataset.ready; })", timeout=20_000)


def hover(page, panel: int, i: int, j: int, part: int = 0) -> str:
    """Point at a cell of the canvas in part ``part`` of the file; its tooltip's text."""
    root = f"#mha-part-{part} .hm"
    b = page.evaluate("([s, p, i, j]) => { const r = document.querySelector(s); r.scrollIntoView();"
                      " return r.__hm.box(p, i, j); }", [root, panel, i, j])
    page.mouse.move(b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)
    want, deadline = f"{panel},{i},{j}", time.monotonic() + 5
    while page.evaluate("s => document.querySelector(s).dataset.hover", root) != want:
        assert time.monotonic() < deadline, "the pointed-at cell is not hovered"
        page.wait_for_timeout(50)
    tip = page.locator(f"#mha-part-{part} .hm-tip")
    assert tip.is_visible()
    return tip.text_content()


def saved_file(tmp_path) -> str:
    from mha.app import share
    from mha.app.widgets import _chart_words
    from mha.charts import head_view_data

    rng = np.random.default_rng(1)
    w = rng.random((2, 4, 4))
    w /= w.sum(-1, keepdims=True)
    labels = ["the", HOSTILE, "cat", "sat"]
    path = tmp_path / "view.html"
    path.write_bytes(share.html_file(w, labels, labels, words=_chart_words("en"),
                                     head_view_words=head_view_data.words("en"), headings=("All heads", "Head view"),
                                     title=HOSTILE))
    return path.as_uri()


def test_the_saved_file_draws_and_answers_with_no_server(browser, tmp_path):
    url = saved_file(tmp_path)
    with watched_page(browser, "file://", "standalone_file") as page:
        asked = refuse_network(page)
        page.goto(url)  # a file, not the app: wait_drawn, not harness.chromium.goto (it waits for Streamlit's app)
        wait_drawn(page)
        tip = hover(page, 1, 1, 0)
        assert HOSTILE in tip and "head 1" in tip  # the token as text, in the tooltip
        assert page.evaluate("document.querySelectorAll('img').length") == 0
        assert page.title() == HOSTILE
        # the keyboard: focus the chart, the keys take up where the mouse left (1, 1, 0) and move one key right
        page.mouse.move(1, 1)
        page.locator(".hm canvas.hm-over").focus()
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.querySelector('.hm').dataset.hover") == "1,1,1"
        # the head view: pointing at a query shows its row; a click on a head's colour hides that head
        page.locator(".hv-q .hv-tok").nth(1).hover()
        assert page.evaluate("document.querySelector('.hv').dataset.hover") == "q1"
        visible = page.evaluate("document.querySelector('.hv').dataset.visible")
        page.locator(".hv-heads .hv-sw").nth(1).click()
        assert page.evaluate("document.querySelector('.hv').dataset.visible") != visible
        assert not asked, asked


def test_the_share_pages_download_opens_from_disk(browser, page, server, tmp_path):
    goto(page, "share", text="the cat sat on the mat", num_heads=2, lang="ko")
    with page.expect_download() as info:
        page.locator(".st-key-share_html button").click()
    path = tmp_path / "saved.html"
    info.value.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert '<html lang="ko">' in text and "어텐션 가중치" in text and "파라미터: 무작위." in text  # no English ids
    with watched_page(browser, "file://", "standalone_download") as disk:
        asked = refuse_network(disk)
        disk.goto(path.as_uri())  # the saved file, no app: wait_drawn (as above)
        wait_drawn(disk)
        assert "헤드 1" in hover(disk, 1, 2, 1)
        assert not asked, asked


def test_a_pretrained_views_file_has_a_model_view_that_answers(browser, tmp_path, monkeypatch):
    import tiny_models

    from mha.app import share
    from mha.app.widgets import _chart_words
    from mha.charts import head_view_data
    from mha.weights.pretrained import load_model
    from mha.weights.view import ViewSpec, pretrained_every_layer, run_view

    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "0")
    folder = tiny_models.build("bert", tmp_path / "bert", layers=3)
    info = load_model(str(folder)).info
    view = run_view(ViewSpec(text="the cat sat on the mat", d_model=info.d_model, num_heads=info.num_heads,
                             source="pretrained", model=str(folder), layer=1))
    path = tmp_path / "model.html"
    path.write_bytes(share.html_file(view.weights, view.labels, view.key_labels, allowed=view.allowed,
                                     words=_chart_words("ko"), head_view_words=head_view_data.words("ko"),
                                     headings=("a", "b", "c"), title="t", lang="ko",
                                     layers=pretrained_every_layer(view.spec), layer=1))
    with watched_page(browser, "file://", "standalone_model_view") as page:
        asked = refuse_network(page)
        page.goto(path.as_uri())  # the saved file, no app: wait_drawn (as above)
        wait_drawn(page)
        page.wait_for_function("() => document.querySelector('#mha-part-2 .hm').dataset.ready")
        tip = hover(page, 2 * info.num_heads + 1, 3, 2, part=2)  # layer 2, head 1
        assert "2층" in tip and "헤드 1" in tip, tip
        assert not asked, asked
