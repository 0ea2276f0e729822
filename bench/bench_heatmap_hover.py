"""How fast the Playground's canvas heatmaps answer the mouse, in headless Chromium.

    python bench/bench_heatmap_hover.py [repeats]     # default 40 hovers per chart and size; about two minutes

Serves the app on a free loopback port and opens /playground at several sizes. The grid (key "grid") and the
enlarged head ("one_head_chart") are drawn by ``mha.app.components.heatmap_view``. One hover is timed inside the page:
from dispatching a ``mousemove`` at a cell's centre on the chart's overlay canvas until the chart says it points at that
cell (``data-hover``: the outline drawn, the tooltip filled and placed) and the next frame has been painted
(requestAnimationFrame, then a task). Each hover goes to another cell (a new tooltip, not the same one moved). The
baseline is the same measurement on an element without listeners (the page's title): the wait for the next frame
alone. A benchmark, not a test: it prints a table of medians and ratios to the baseline and never fails; the machine
may be shared, so the baseline is measured in the same run, alternating.
"""
from __future__ import annotations

import os
import statistics
import sys
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests")]

from harness.chromium import launch  # noqa: E402  (tests/harness: the browser and the server, as the tests)
from harness.server import start_server  # noqa: E402


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


# (label, URL parameters); look=head: the enlarged head is shown below the grid (#24.4: one closer look at a time)
SIZES = [
    ("5 tokens, 4 heads (default)", {"look": "head"}),
    ("16 tokens, 16 heads", {"text": words(16), "d_model": "256", "num_heads": "16", "look": "head"}),
    ("43 tokens, 4 heads", {"text": words(43), "look": "head"}),
    ("64 tokens, 16 heads", {"text": words(64), "d_model": "256", "num_heads": "16", "look": "head"}),
    ("128 tokens, 16 heads", {"text": words(128), "d_model": "256", "num_heads": "16", "look": "head"}),
]
CHARTS = ("grid", "one_head_chart")

_NEXT_PAINT = "() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))"
_TIME_HOVER = """async (root, [p, i, j, baseline]) => {
  const nextPaint = %s;
  const over = root.querySelector('canvas.hm-over');
  await nextPaint();
  const b = root.__hm.box(p, i, j);
  const target = baseline ? document.querySelector('h1') : over;
  const t0 = performance.now();
  target.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: b.x + b.w / 2, clientY: b.y + b.h / 2}));
  if (!baseline && root.dataset.hover !== `${p},${i},${j}`) throw new Error('no hover: ' + root.dataset.hover);
  await nextPaint();
  return performance.now() - t0;
}""" % _NEXT_PAINT


def q(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))]


def main(repeats: int = 40) -> None:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT))
    from mha.core.tokens import tokenize
    from mha.weights.view import DEFAULT_TEXT

    server = start_server()
    url = server.url
    rows = []
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            version = browser.version
            for label, params in SIZES:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{url}/playground?{urllib.parse.urlencode(params)}")
                for key in CHARTS:
                    page.wait_for_selector(f".st-key-{key} .hm[data-ready]", timeout=180_000)
                for key in CHARTS:
                    root = page.locator(f".st-key-{key} .hm")
                    H = len(root.evaluate("r => r.__hm.panels()"))
                    T = len(tokenize(params.get("text", DEFAULT_TEXT)).tokens)
                    hover, base = [], []
                    for n in range(repeats + 1):  # the first of each is a warm-up
                        cell = [(n * 5) % H, (n * 7 + 1) % T, (n * 3 + 2) % T]
                        h = root.evaluate(_TIME_HOVER, cell + [False])
                        b = root.evaluate(_TIME_HOVER, cell + [True])
                        if n:
                            hover.append(h)
                            base.append(b)
                    rows.append((label, key, statistics.median(hover), q(hover, 0.9), statistics.median(base)))
                page.close()
            browser.close()
    finally:
        server.stop()

    avg = os.getloadavg()
    print(f"Playground canvas heatmaps, headless Chromium {version}; {repeats} hovers per chart and size; load "
          f"average {avg[0]:.1f} / {avg[1]:.1f} / {avg[2]:.1f}")
    print("Hover = mousemove at a new cell -> outline and tooltip drawn and painted; baseline = the same on an "
          "element without listeners (the wait for the next frame alone).\n")
    print("| size | chart | hover median | hover p90 | baseline median | hover / baseline |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for label, key, hm, h90, bm in rows:
        print(f"| {label} | {key} | {hm:.1f} ms | {h90:.1f} ms | {bm:.1f} ms | {hm / bm:.2f} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
