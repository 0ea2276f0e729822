"""The Playground's canvas heatmaps can be saved as PNG (Plotly's camera button did it for the charts they replace):
the ⤓ PNG button downloads the picture the chart shows — at twice the page's pixels, under a title saying what it
shows, same cell colours (#27.4: 936 x 277 at 1x with no title was too small for a projector) — named after what it
shows, with its label in the page's language; the button sits under the picture and covers none of it (it hid the
colour bar's title)."""
from __future__ import annotations

import numpy as np
from harness.chromium import goto
from PIL import Image

from mha.core.i18n import text as i18n_text

from . import canvas as cv


def test_the_png_button_downloads_the_picture_shown(page, server):
    goto(page, "playground", num_heads=4, head=2, look="head")
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
        box = root.locator("canvas").first.bounding_box()
        band = float(root.evaluate("r => r.dataset.pngBand"))  # the title's band above the picture (CSS px)
        assert saved.size == (round(box["width"] * 2), round((box["height"] + band) * 2)), (saved.size, box, key)
        # the title is drawn: dark text in the band, which the page's picture does not have
        title = np.asarray(saved.crop((0, 0, saved.size[0], int(band * 2))).convert("L"))
        assert (title < 120).sum() > 200, key
        # a cell's colour in the file is the one on the page (the page's canvas is transparent around the cells;
        # the file has the page's background there)
        x, y = cv.cell_centre(page, key, 0, 1, 1)
        px = saved.getpixel((int((x - box["x"]) * 2), int((y - box["y"] + band) * 2)))
        assert np.abs(np.subtract(px, cv.pixel(page, key, x, y))).max() <= 2, (px, key)
        corner = saved.getpixel((saved.size[0] - 1, saved.size[1] - 1))
        assert min(corner) >= 240, corner  # the light page background, not a black or transparent void
        # the button is under the picture: it covers no pixel of it (nor the colour bar's title)
        b = button.bounding_box()
        assert b["y"] >= box["y"] + box["height"] - 0.5, (b, box, key)


def test_the_png_button_speaks_korean(page, server):
    goto(page, "playground", lang="ko")
    cv.wait_ready(page, "grid")
    assert cv.chart(page, "grid").locator(".hm-png").get_attribute("title") == i18n_text("ch_download_png", "ko")
