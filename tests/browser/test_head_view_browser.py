"""The head view in Chromium: pointing at a token draws exactly its row (or column), a hostile token is text, a head's
colour hides and shows its lines, cross-attention has two columns of different lengths.

The page is tests/browser/apps/head_view_app.py on a server of its own; what the view draws is read from the state it
exposes (``data-*`` of its root and ``root.__hvDrawn``, set by the same code that draws) and compared with
``mha.charts.head_view_data.drawn_lines`` on the same numbers.
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from harness.chromium import goto
from harness.server import ROOT, Server, start_server

from mha.charts import head_view_data as hvd

from .conftest import ARTIFACTS

APP_FILE = ROOT / "tests" / "browser" / "apps" / "head_view_app.py"
HV = ".hv"


def _app_module():
    spec = importlib.util.spec_from_file_location("head_view_app", APP_FILE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # not as __main__: only the numbers, no Streamlit
    return mod


app = _app_module()


@pytest.fixture(scope="module")
def hv_server():
    with start_server(APP_FILE.relative_to(ROOT), log=ARTIFACTS / "head-view.log") as s:
        yield s


def payload(H: int, T: int, Tk: int) -> dict:
    return hvd.prepare(app.known_weights(H, T, Tk), app.query_labels(T), app.key_labels(Tk))


def open_view(page, server: Server, H: int, T: int, Tk: int | None = None, lang: str = "en"):
    expected = payload(H, T, T if Tk is None else Tk)
    goto(page, f"{server.url}/", ready=f"{HV}[data-ready='{expected['sig']}']", H=H, T=T,
         **({"Tk": Tk} if Tk is not None else {}), lang=lang)
    return page.locator(HV), expected


def state(root) -> dict:
    return root.evaluate("r => ({hover: r.dataset.hover, visible: r.dataset.visible, lines: Number(r.dataset.lines),"
                         " drawn: r.__hvDrawn.map(x => x.join(','))})")


def drawn(st: dict) -> set[tuple[int, int, int]]:
    return {tuple(int(v) for v in s.split(",")) for s in st["drawn"]}


def test_hover_draws_exactly_the_row_then_the_column(page, hv_server):
    root, p = open_view(page, hv_server, H=4, T=10)
    st = state(root)
    assert st["hover"] == "" and st["visible"] == "0,1,2,3"
    assert st["lines"] == len(hvd.drawn_lines(p)) > 0  # masked weights (above the diagonal) draw nothing
    for q in (0, 5, 9):
        page.locator(f"{HV} .hv-q .hv-tok[data-i='{q}']").hover()
        st = state(root)
        assert st["hover"] == f"q{q}"
        assert drawn(st) == hvd.drawn_lines(p, query=q) and st["lines"] == len(st["drawn"])
        assert all(k <= q for _, _, k in drawn(st))  # causal: no line to a later key
    page.locator(f"{HV} .hv-k .hv-tok[data-i='3']").hover()
    st = state(root)
    assert st["hover"] == "k3" and drawn(st) == hvd.drawn_lines(p, key=3)
    page.locator("h1").hover()  # away from the tokens: every line again
    st = state(root)
    assert st["hover"] == "" and st["lines"] == len(hvd.drawn_lines(p))


def test_hostile_token_is_text(page, hv_server):
    root, _ = open_view(page, hv_server, H=2, T=6)
    tok = page.locator(f"{HV} .hv-q .hv-tok[data-i='2']")
    assert tok.locator(".hv-txt").evaluate("e => [e.textContent, e.childElementCount]") == [app.HOSTILE, 0]
    assert tok.get_attribute("title") == f"2: {app.HOSTILE}"
    assert root.evaluate("r => r.querySelectorAll('img, script').length") == 0
    tok.hover()  # and pointing at it draws its row like any other (no dialog: the page fixture fails on one)
    assert state(root)["hover"] == "q2"


def test_head_swatches_hide_show_and_solo(page, hv_server):
    root, p = open_view(page, hv_server, H=4, T=8)
    page.locator(f"{HV} .hv-sw[data-head='1']").click()
    st = state(root)
    assert st["visible"] == "0,2,3"
    assert page.locator(f"{HV} .hv-sw[data-head='1']").get_attribute("aria-pressed") == "false"
    assert st["lines"] == len(hvd.drawn_lines(p, heads=[0, 2, 3]))
    page.locator(f"{HV} .hv-q .hv-tok[data-i='6']").hover()
    st = state(root)
    assert drawn(st) == hvd.drawn_lines(p, query=6, heads=[0, 2, 3])
    assert all(h != 1 for h, _, _ in drawn(st))
    page.locator(f"{HV} .hv-sw[data-head='2']").dblclick()  # head 2 alone
    page.locator(f"{HV} .hv-q .hv-tok[data-i='7']").hover()
    st = state(root)
    assert st["visible"] == "2" and drawn(st) == hvd.drawn_lines(p, query=7, heads=[2])
    # One head shown: the keys show its weights as numbers, rounded as sent.
    nums = page.locator(f"{HV} .hv-k .hv-num").all_text_contents()
    assert nums == [f"{v / hvd.SCALE:.2f}" for v in hvd.thousandths(p)[2, 7]]
    page.locator(f"{HV} .hv-all").click()
    assert state(root)["visible"] == "0,1,2,3"
    page.locator("h1").hover()
    assert painted_pixels(root) > 0
    for h in range(4):  # every head hidden: the canvas keeps no line at all
        page.locator(f"{HV} .hv-sw[data-head='{h}']").click()
    page.locator("h1").hover()
    assert state(root)["visible"] == "" and state(root)["lines"] == 0 and painted_pixels(root) == 0


def test_heads_pictures_kept_while_idle_give_the_same_picture(page, hv_server):
    """A new view draws its lines in one picture; each head's own picture is made afterwards, while the page is idle
    (showing or hiding a head then only puts them together), and put together they give the same picture."""
    root, _ = open_view(page, hv_server, H=4, T=8)
    page.locator("h1").hover()
    first = canvas_rgba(root)
    page.wait_for_function("r => r.__hv.layers.filter(Boolean).length === 4", arg=root.element_handle(),
                           timeout=10_000)
    page.locator(f"{HV} .hv-sw[data-head='1']").click()
    page.locator(f"{HV} .hv-sw[data-head='1']").click()
    page.locator("h1").hover()
    assert state(root)["visible"] == "0,1,2,3"
    again = canvas_rgba(root)
    assert again.shape == first.shape and (first[:, 3] > 0).sum() > 0

    def premultiplied(px: np.ndarray) -> np.ndarray:  # as the canvas keeps its colours
        return np.concatenate([px[:, :3] * px[:, 3:] / 255, px[:, 3:]], axis=1)

    most = float(np.abs(premultiplied(again) - premultiplied(first)).max())
    # each head's picture put on the others rounds once more (8-bit channels): a few units where 4 heads overlap,
    # a missing or misplaced head's lines would be off by ~100
    assert most <= 6, f"put together from the heads' pictures, the view differs by {most:.1f} in a channel"


def canvas_rgba(root) -> np.ndarray:
    """The view's canvas as (pixels, 4) RGBA values."""
    data = root.evaluate("r => { const c = r.querySelector('canvas');"
                         " return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data); }")
    return np.asarray(data, dtype=float).reshape(-1, 4)


def painted_pixels(root) -> int:
    """How many pixels of the view's canvas are not fully transparent."""
    return root.evaluate("""r => { const c = r.querySelector('canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n; }""")


def test_cross_attention_two_lengths(page, hv_server):
    root, p = open_view(page, hv_server, H=3, T=5, Tk=9, lang="ko")
    assert page.locator(f"{HV} .hv-q .hv-tok").count() == 5
    assert page.locator(f"{HV} .hv-k .hv-tok").count() == 9
    assert page.locator(f"{HV} .hv-all").text_content() == hvd.words("ko")["all_heads"]
    page.locator(f"{HV} .hv-q .hv-tok[data-i='4']").hover()
    assert drawn(state(root)) == hvd.drawn_lines(p, query=4)
    page.locator(f"{HV} .hv-k .hv-tok[data-i='8']").hover()
    assert drawn(state(root)) == hvd.drawn_lines(p, key=8)


def test_largest_view_draws(page, hv_server):
    """128 tokens x 16 heads: the view is drawn and a row is answered like at 8 tokens."""
    root, p = open_view(page, hv_server, H=16, T=128)
    assert state(root)["lines"] == len(hvd.drawn_lines(p))
    tok = page.locator(f"{HV} .hv-q .hv-tok[data-i='100']")
    tok.scroll_into_view_if_needed()
    tok.hover()
    assert drawn(state(root)) == hvd.drawn_lines(p, query=100)


def test_playground_head_view(page, server):
    """In the Playground, below the all-heads grid: the sentence's tokens in both columns (a hostile one as text),
    every head's switch, and a hover answered in the page."""
    text = "the cat <b>sat</b> on"
    goto(page, "playground", text=text, num_heads=2, lang="ko")
    root = page.locator(HV)
    root.wait_for()
    page.wait_for_function("() => document.querySelector('.st-key-pg_head_view') !== null")
    labels = page.locator(f"{HV} .hv-q .hv-txt").all_text_contents()
    assert labels == page.locator(f"{HV} .hv-k .hv-txt").all_text_contents()
    assert "<" in labels and "b" in labels  # the tokenizer's pieces of the markup, shown as text
    assert root.evaluate("r => r.querySelectorAll('b, img, script').length") == 0
    assert page.locator(f"{HV} .hv-sw").count() == 2
    assert page.locator(f"{HV} .hv-all").text_content() == hvd.words("ko")["all_heads"]
    page.locator(f"{HV} .hv-q .hv-tok[data-i='1']").hover()
    st = state(root)
    assert st["hover"] == "q1" and st["drawn"] and all(s.split(",")[1] == "1" for s in st["drawn"])


def test_keyboard_moves_through_the_tokens(page, hv_server):
    """One tab stop per column; the arrow keys point at the next token, or the same position on the other side."""
    root, p = open_view(page, hv_server, H=2, T=6)
    assert page.locator(f"{HV} .hv-tok[tabindex='0']").count() == 2
    page.locator(f"{HV} .hv-q .hv-tok[data-i='0']").focus()
    assert state(root)["hover"] == "q0"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    st = state(root)
    assert st["hover"] == "q2" and drawn(st) == hvd.drawn_lines(p, query=2)
    page.keyboard.press("ArrowRight")
    st = state(root)
    assert st["hover"] == "k2" and drawn(st) == hvd.drawn_lines(p, key=2)
