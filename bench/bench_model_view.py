"""How fast the model view (#26.1: every layer x head as thumbnails, ``mha.app.components.heatmap_view`` layout "model")
paints and answers the mouse in headless Chromium, at 12 layers x 12 heads x 32 tokens (the target: paint <= 1 s, hover
<= 50 ms).

    python bench/bench_model_view.py [repeats]     # default 10 paints and 40 hovers; about two minutes

Two measurements, each next to a baseline in the same run:

1. In the app, end to end: a tiny local BERT of 12 layers x 12 heads (tests/tiny_models.py, d_model 96, random
   weights: the sizes are what cost) on the Playground, a 30-word sentence (32 tokens with [CLS] and [SEP]). From
   ``page.goto`` of the link until the model view says it has drawn (``data-ready``), against the same wait for the
   layer's grid (12 heads) on the same page: the model view runs the model through every layer and draws 144
   thumbnails. Then a change of the layer shown (a click on a thumbnail) until the new layer's grid is drawn.
2. The drawing alone: the component's script (heatmap_view.js) on a blank page, given the model view's payload
   (``heatmap_data.model_view``, 144 panels) and, as the baseline, today's 4-head grid payload of the default
   sentence; from the call until the next frame is painted. Hover as bench_heatmap_hover.py measures it.

A benchmark, not a test: it prints a table and never fails.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT), str(ROOT / "tests")]

from bench_heatmap_hover import _NEXT_PAINT, _TIME_HOVER  # noqa: E402
from harness.chromium import launch  # noqa: E402  (tests/harness: the browser and the server, as the tests)
from harness.server import start_server  # noqa: E402

TEXT = " ".join((["the", "cat", "sat", "on", "the", "mat", ",", "a", "dog", "saw"] * 3))  # 30 words -> 32 tokens
LAYERS, HEADS = 12, 12

_DRAW = """async ([data, css]) => {
  const nextPaint = %s;
  document.body.innerHTML = '<div id="host" style="width: 1100px"><div class="hm"></div></div>';
  const host = document.getElementById('host');
  await nextPaint();
  const t0 = performance.now();
  window.__hmDraw({ parentElement: host, data, setTriggerValue: () => {} });
  await nextPaint();
  return performance.now() - t0;
}""" % _NEXT_PAINT


def payloads():
    import numpy as np

    from mha.charts import heatmap_data as hm
    from mha.core.tokens import display_labels, tokenize
    from mha.weights.view import DEFAULT_TEXT

    rng = np.random.default_rng(0)
    T = 32
    w = rng.random((LAYERS, HEADS, T, T)) ** 4
    w /= w.sum(-1, keepdims=True)
    names = [f"w{i}" for i in range(T)]
    model = hm.model_view(w, names, names)
    labels = display_labels(tokenize(DEFAULT_TEXT).tokens)
    g = rng.random((4, len(labels), len(labels))) ** 3
    grid = hm.prepare(g / g.sum(-1, keepdims=True), labels, labels, pick="head")
    return model, grid


def in_page(browser, repeats: int) -> list[tuple]:
    js = (ROOT / "mha/app/components/heatmap_view.js").read_text().replace("export default function(component)",
                                                               "window.__hmDraw = function(component)")
    css = (ROOT / "mha/app/components/heatmap_view.css").read_text()
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_content("<html><body></body></html>")
    page.add_style_tag(content=css)
    page.add_script_tag(content=js)
    rows = []
    for name, payload in zip(("model view, 12 x 12 x 32", "grid, 4 heads x 5 (baseline)"), payloads(), strict=True):
        draws = [page.evaluate(_DRAW, [payload, css]) for _ in range(repeats + 1)][1:]
        root = page.locator(".hm")
        H, T = payload["H"], payload["Tq"]
        hover, base = [], []
        for n in range(41):
            cell = [(n * 5) % H, (n * 7 + 1) % T, (n * 3 + 2) % T]
            h, b = root.evaluate(_TIME_HOVER, cell + [False]), root.evaluate(_TIME_HOVER.replace("'h1'", "'body'"),
                                                                          cell + [True])
            if n:
                hover.append(h)
                base.append(b)
        rows.append((name, len(json.dumps(payload)), statistics.median(draws), max(draws), statistics.median(hover),
                     sorted(hover)[int(0.9 * len(hover))], statistics.median(base)))
    page.close()
    return rows


def in_app(browser, url: str, folder: str, repeats: int) -> list[tuple]:
    link = f"{url}/playground?" + urllib.parse.urlencode({"source": "pretrained", "model": folder, "text": TEXT})
    loads, flips = [], []
    for n in range(repeats + 1):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        t0 = time.perf_counter()
        page.goto(link)
        page.wait_for_selector(".st-key-grid .hm[data-ready]", timeout=180_000)
        t_grid = time.perf_counter() - t0
        page.wait_for_selector(".st-key-pg_model_view .hm[data-ready]", timeout=180_000)
        t_model = time.perf_counter() - t0
        # a click on layer (n % 11) + 1, head 0: until that layer's grid is drawn
        layer = n % (LAYERS - 1) + 1
        root = page.locator(".st-key-pg_model_view .hm")
        before = page.locator(".st-key-grid .hm").evaluate("r => r.dataset.ready")
        b = root.evaluate("(r, p) => { r.scrollIntoView(); return r.__hm.box(p, 1, 1); }", layer * HEADS)
        t1 = time.perf_counter()
        page.mouse.click(b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)
        grid = page.locator(".st-key-grid .hm")  # in the component's shadow root: the locator pierces it
        while (grid.evaluate("r => r.dataset.ready || ''") or before) == before:
            page.wait_for_timeout(10)
        t_flip = time.perf_counter() - t1
        page.close()
        if n:  # the first load warms the server (imports, the model)
            loads.append((t_grid, t_model))
            flips.append(t_flip)
    return [("open the link: grid drawn (baseline)", statistics.median([g for g, _ in loads])),
            ("open the link: model view drawn", statistics.median([m for _, m in loads])),
            ("click a thumbnail: that layer's grid drawn", statistics.median(flips))]


def main(repeats: int = 10) -> None:
    import tiny_models
    from playwright.sync_api import sync_playwright

    folder = str(tiny_models.build("bert", Path(tempfile.mkdtemp()) / "bert12x12", d_model=96, num_heads=HEADS,
                                   layers=LAYERS, max_positions=64))
    server = start_server(env={"MHA_ALLOW_DOWNLOADS": "0"})
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            version = browser.version
            drawn = in_page(browser, repeats)
            app = in_app(browser, server.url, folder, repeats)
            browser.close()
    finally:
        server.stop()
    avg = os.getloadavg()
    print(f"Model view, headless Chromium {version}, 1400 px; {repeats} paints / loads, 40 hovers; load average "
          f"{avg[0]:.1f} / {avg[1]:.1f} / {avg[2]:.1f}\n")
    print("| drawn alone | payload | paint median | paint max | hover median | hover p90 | frame alone |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, size, dm, dx, hm_, h90, bm in drawn:
        print(f"| {name} | {size / 1024:.0f} KB | {dm:.1f} ms | {dx:.1f} ms | {hm_:.1f} ms | {h90:.1f} ms "
              f"| {bm:.1f} ms |")
    base = drawn[1][2]
    print(f"\nmodel view paint / grid paint: {drawn[0][2] / base:.1f}\n")
    print("| in the app (12 layers x 12 heads, 32 tokens) | median |")
    print("| --- | ---: |")
    for name, t in app:
        print(f"| {name} | {t:.2f} s |")
    print(f"\nmodel view drawn / grid drawn after opening the link: {app[1][1] / app[0][1]:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
