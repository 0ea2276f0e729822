"""The Playground's canvas heatmaps can be saved as PNG (Plotly's camera button did it for the charts they replace):
the ⤓ PNG button downloads the picture the chart shows — same size, same cell colours — named after what it shows,
with its label in the page's language."""
from __future__ import annotations

import base64
import io
import urllib.parse

import numpy as np
from PIL import Image

from mha.i18n import text as i18n_text

from . import canvas as cv
from .conftest import wait_app_idle


def test_the_png_button_downloads_the_picture_shown(page, server):
    page.goto(f"{server.url}/playground?" + urllib.parse.urlencode({"num_heads": 4, "head": 2}))
    wait_app_idle(page)
    for key, name in (("grid", "weights_all_heads.png"), ("one_head_chart", "weights_head_2.png")):
        cv.wait_ready(page, key)
        root = cv.chart(page, key)
        root.hover()
        button = root.locator(".hm-png")
        assert button.get_attribute("aria-label") == i18n_text("ch_download_png", "en")
        with page.expect_download() as info:
            button.click()
        download = info.value
        assert download.suggested_filename == name
        saved = Image.open(download.path()).convert("RGB")
        shown = Image.open(io.BytesIO(base64.b64decode(cv.picture(page, key).split(",", 1)[1])))
        assert saved.size == shown.size
        # a cell's colour in the file is the one on the page (the page's canvas is transparent around the cells;
        # the file has the page's background there)
        x, y = cv.cell_centre(page, key, 0, 1, 1)
        box = root.locator("canvas").first.bounding_box()
        scale = saved.size[0] / box["width"]
        px = saved.getpixel((int((x - box["x"]) * scale), int((y - box["y"]) * scale)))
        assert np.abs(np.subtract(px, cv.pixel(page, key, x, y))).max() <= 2, (px, key)
        corner = saved.getpixel((saved.size[0] - 1, saved.size[1] - 1))
        assert min(corner) >= 240, corner  # the light page background, not a black or transparent void


def test_the_png_button_speaks_korean(page, server):
    page.goto(f"{server.url}/playground?lang=ko")
    wait_app_idle(page)
    cv.wait_ready(page, "grid")
    assert cv.chart(page, "grid").locator(".hm-png").get_attribute("title") == i18n_text("ch_download_png", "ko")
