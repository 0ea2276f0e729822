"""The custom mask of the Masks page in a real browser (headless Chromium): a link opens the exact mask — the table's
checkboxes as drawn, the text under it, the charts — a click on a checkbox changes the mask in the address bar and
the link box, a typed mask becomes the table, and a bad one is explained while the table keeps its mask.

The table (st.data_editor) is a canvas: its grid lines and checkboxes are found in its pixels. Fixtures and helpers:
conftest.py. The screenshots (test-artifacts/) show the table and the text in English and in Korean.
"""
from __future__ import annotations

import io
import time
import urllib.parse

import numpy as np
import pytest
from harness.apptest import decode
from harness.chromium import goto, wait_app_idle
from PIL import Image

from mha.core.i18n import text as i18n_text
from mha.weights.batch import decode_mask

from .conftest import LINK_BOX, plotly_data, save_screenshot

pytestmark = pytest.mark.browser

TABLE = "[class*='st-key-mk_custom_'] [data-testid='stDataFrame'] canvas[data-testid='data-grid-canvas']"
SCROLLER = "[class*='st-key-mk_custom_'] .dvn-scroller"  # the grid's layer over the canvas that takes the pointer
TEXT = ".st-key-mk_cells input"
LINE = (40, 100)  # a grid line (rgba(31, 41, 51, .1) on white or on the header): summed distance from white


def _pixels(page) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(page.locator(TABLE).screenshot())).convert("RGB")).astype(int)


def table_cells(page) -> tuple[np.ndarray, list[int], list[int]]:
    """The table's pixels and its cell edges: x of every column's left edge (the first is the index column's right
    edge) and y of every row's top edge (the first is the header's bottom), each list ending with the canvas edge."""
    im = _pixels(page)
    d = np.abs(im - 255).sum(2)
    line = (d > LINE[0]) & (d < LINE[1])
    # Lines through most rows / columns (a selected cell's blue frame hides a piece of the lines around it).
    xs = [x for x in range(1, im.shape[1] - 1) if line[40:, x].mean() > 0.5]
    ys = [y for y in range(1, im.shape[0] - 1) if line[y, xs[0] + 2:].mean() > 0.5]
    return im, xs + [im.shape[1]], ys + [im.shape[0]]


def table_mask(page) -> np.ndarray:
    """The mask as the checkboxes show it: a ticked box is filled (dark), an empty one is white inside its border."""
    im, xs, ys = table_cells(page)
    out = np.zeros((len(ys) - 1, len(xs) - 1), dtype=bool)
    for i in range(len(ys) - 1):
        for j in range(len(xs) - 1):
            cy, cx = (ys[i] + ys[i + 1]) // 2, (xs[j] + xs[j + 1]) // 2
            out[i, j] = im[cy - 5:cy + 6, cx - 5:cx + 6].mean() < 200  # 11 x 11 px inside the 16 px box
    return out


def click_cell(page, query: int, key: int) -> None:
    """Click one checkbox, as a visitor does (once)."""
    _, xs, ys = table_cells(page)
    page.locator(SCROLLER).click(position={"x": (xs[key] + xs[key + 1]) / 2, "y": (ys[query] + ys[query + 1]) / 2})


def address_cells(page) -> str | None:
    """mk_cells in the address bar, read in the page (Playwright's page.url only follows while it is called)."""
    values = urllib.parse.parse_qs(urllib.parse.urlsplit(page.evaluate("location.href")).query).get("mk_cells")
    return values[0] if values else None


def wait_for(page, check, what: str, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(200)


def assert_view_shows(page, cells: str, tq: int, tk: int) -> None:
    """The table, the text and the charts all show the mask ``cells``; blocked weights are exactly 0."""
    want = decode_mask(cells, tq, tk)
    wait_for(page, lambda: page.locator(TEXT).input_value() == cells, f"text {page.locator(TEXT).input_value()} != "
                                                                      f"{cells}")
    wait_for(page, lambda: table_mask(page).shape == want.shape and (table_mask(page) == want).all(),
             f"table shows {table_mask(page).astype(int).tolist()}, expected {want.astype(int).tolist()}")
    data = plotly_data(page)
    mask = decode(data["mk_mask_chart"][0]["z"]).reshape(tq, tk).astype(bool)
    np.testing.assert_array_equal(mask, want)
    weights = next(decode(tr["z"]).reshape(tq, tk) for tr in data["mk_weights_chart"]
                   if tr.get("type") == "heatmap" and tr.get("name") != "masked")
    assert np.isfinite(weights).all() and (weights[~want] == 0).all()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_custom_mask_from_a_link_a_click_and_a_typed_mask(page, server, lang):
    # The very first request to a server runs in another mode (see mha/app/frame.py; the last test covers it): not here.
    goto(page, f"{server.url}/")
    cells = "1000.0110.0000.1011"  # query 2 ("sat") may attend to nothing
    goto(page, f"{server.url}/masks?text=the+cat+sat+down&mk_kind=custom&mk_cells={cells}&lang={lang}")
    assert page.locator(".st-key-mk_cells label").inner_text().strip() == i18n_text("mk_cells", lang)
    assert_view_shows(page, cells, 4, 4)
    assert address_cells(page) == cells

    click_cell(page, 2, 1)  # tick: query 2 may attend to key 1 ("cat")
    wait_app_idle(page, rerun=True)
    clicked = "1000.0110.0100.1011"
    wait_for(page, lambda: address_cells(page) == clicked, f"address bar has mk_cells={address_cells(page)}")
    assert_view_shows(page, clicked, 4, 4)
    box = page.locator(f"{LINK_BOX} .mha-url")  # the link to copy is the new one too
    wait_for(page, lambda: f"mk_cells={clicked}&" in box.text_content() + "&", "the link box shows "
                                                                               f"{box.text_content()}")
    click_cell(page, 0, 0)  # untick: query 0 may attend to nothing now
    wait_app_idle(page, rerun=True)
    wait_for(page, lambda: address_cells(page) == "0000.0110.0100.1011", "address bar has "
                                                                         f"mk_cells={address_cells(page)}")
    assert_view_shows(page, "0000.0110.0100.1011", 4, 4)

    page.locator(TEXT).fill("1111 0001 0011 0111")  # typed with spaces between rows
    page.locator(TEXT).press("Enter")
    wait_app_idle(page, rerun=True)
    assert_view_shows(page, "1111.0001.0011.0111", 4, 4)  # tidied, and the table starts from it
    wait_for(page, lambda: address_cells(page) == "1111.0001.0011.0111", "address bar has "
                                                                         f"mk_cells={address_cells(page)}")

    page.locator(TEXT).fill("111.000")
    page.locator(TEXT).press("Enter")
    wait_app_idle(page, rerun=True)
    error = page.locator("[data-testid='stAlertContentError']").first
    assert i18n_text("mk_cells_err_rows", lang, rows=2, tq=4) in error.inner_text()
    assert (table_mask(page) == decode_mask("1111.0001.0011.0111", 4, 4)).all()  # the table keeps its mask
    save_screenshot(page, f"masks-custom-error-{lang}")
    page.locator(TEXT).fill("1000.0110.0000.1011")
    page.locator(TEXT).press("Enter")
    wait_app_idle(page, rerun=True)
    assert_view_shows(page, "1000.0110.0000.1011", 4, 4)
    assert page.locator("[data-testid='stAlertContentError']").count() == 0


def test_the_first_click_on_a_freshly_started_server_counts(fresh_server, open_page):
    """The first request to a fresh server runs the page file without app.py (mha/app/frame.py), and the run after it
    goes through app.py's navigation. The table's edit, sent by the browser for the widget of the first run, must
    still reach the second: the first visitor's first click is not undone."""
    srv = fresh_server()
    page = open_page(srv.url, "fresh")
    goto(page, f"{srv.url}/masks?text=the+cat+sat&mk_kind=custom&mk_cells=100.110.111&lang=en")
    assert_view_shows(page, "100.110.111", 3, 3)
    click_cell(page, 0, 2)  # tick: query 0 may attend to key 2
    wait_app_idle(page, rerun=True)
    wait_for(page, lambda: address_cells(page) == "101.110.111", f"address bar has mk_cells={address_cells(page)}")
    assert_view_shows(page, "101.110.111", 3, 3)
