"""#27.4 "a slow page paints its first chart first": a direct link to Step by step with every step open, in a fresh
browser (no cache, as a student opening a teacher's link), before and after its matrices moved to the canvas.

    python bench/bench_explain.py --before /tmp/mha-explain-before       # ~5 minutes on 2 busy cores
    python bench/bench_explain.py --before DIR --rounds 3 --json /tmp/explain.json

``--before``: an older checkout (``git archive <commit> | tar -x -C DIR``: the commit before the canvas), run beside
this one in the same run: two servers on 127.0.0.1 (tests/harness's starter), one headless Chromium (Debian's
/usr/bin/chromium). Per size (the default sentence; 43 tokens) a warm-up link on each server (the script's caches),
then each round opens the link on both, in a new browser context each time (nothing cached: Plotly's 4.7 MB chunk
is fetched as on a first visit), alternating which goes first (the machine is shared: a busy moment hits both).
Times from the navigation's start (the page's own clock, ``performance.now()``, polled every frame) until:

- **first step drawn**: step 1's picture (x) is on screen: Plotly's heatmap image, or the canvas's ``data-ready``
  with its token names drawn;
- **every chart drawn**: every chart of the page (the steps' matrices, split_heads, the bars, the cell's breakdown).

Medians over the rounds; ratios = after / before (below 1: sooner). A benchmark: it prints a table (and JSON with
``--json``), never fails on a time.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from harness.apptest import all_open  # noqa: E402  (every folded step's URL parameter)
from harness.chromium import launch  # noqa: E402  (tests/harness: the browser and the server, as the tests)
from harness.server import start_server  # noqa: E402

VIEWPORT = {"width": 1400, "height": 1000}
TIMEOUT_MS = 180_000
SIZES = {"default (5 tokens)": {}, "43 tokens": {"text": " ".join(f"w{i}" for i in range(43))}}
CHARTS = ("ex_x", "ex_chart_query", "ex_split", "ex_qk", "ex_scores", "ex_masked", "ex_weights", "ex_bar",
          "ex_head_output", "ex_concat", "ex_output", "ex_cell_chart", "ex_cell_vectors", "ex_cell_sum", "ex_cell_row")

# A chart is drawn when its element holds Plotly's drawn traces or a canvas heatmap (in a component's shadow root)
# that has painted its picture and its labels.
DRAWN = """([keys]) => {
  const drawn = (key) => {
    const el = document.querySelector(`.st-key-${key}`);
    if (!el) return false;
    if (el.querySelector('.main-svg .trace .point, .main-svg .heatmaplayer image')) return true;
    for (const host of [el, ...el.querySelectorAll('*')]) {
      const r = host.shadowRoot && host.shadowRoot.querySelector('.hm');
      if (r && r.dataset.ready && r.__hm && r.__hm.labels.length) return true;
    }
    return false;
  };
  return keys.every(drawn) ? performance.now() : false;
}"""


def open_link(browser, url: str) -> dict[str, float]:
    """Seconds from the navigation's start until step 1's picture, then every chart, is drawn (a fresh context)."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    try:
        page = context.new_page()
        page.goto(url, wait_until="commit")
        first = page.wait_for_function(DRAWN, arg=[["ex_x"]], polling="raf", timeout=TIMEOUT_MS).json_value()
        every = page.wait_for_function(DRAWN, arg=[list(CHARTS)], polling="raf", timeout=TIMEOUT_MS).json_value()
        return {"first": first / 1000, "every": every / 1000}
    finally:
        context.close()


def run(before: Path, rounds: int) -> dict:
    from playwright.sync_api import sync_playwright

    servers = {}
    try:
        for name, root in (("before", before), ("after", ROOT)):
            servers[name] = start_server(root=root)
        with sync_playwright() as pw:
            browser = launch(pw)
            out = {}
            for size, extra in SIZES.items():
                query = urlencode({**all_open("pages/explain.py"), "causal": "true", **extra})
                urls = {name: f"{s.url}/explain?{query}" for name, s in servers.items()}
                for name in urls:  # warm-up: the servers' caches (the script's numbers and figures)
                    open_link(browser, urls[name])
                times = {name: {"first": [], "every": []} for name in urls}
                for r in range(rounds):
                    for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
                        t = open_link(browser, urls[name])
                        for k, v in t.items():
                            times[name][k].append(v)
                        print(f"{size} round {r + 1} {name}: first {t['first']:.2f} s, every {t['every']:.2f} s",
                              flush=True)
                med = {name: {k: statistics.median(v) for k, v in d.items()} for name, d in times.items()}
                out[size] = {"times": times, "median": med,
                             "ratio": {k: med["after"][k] / med["before"][k] for k in ("first", "every")}}
            browser.close()
        return out
    finally:
        for s in servers.values():
            s.stop()


def print_table(res: dict) -> None:
    print(f"\n{'size':<20} {'':<18} {'before s':>9} {'after s':>9} {'after/before':>13}")
    for size, r in res.items():
        for k, what in (("first", "first step drawn"), ("every", "every chart drawn")):
            print(f"{size:<20} {what:<18} {r['median']['before'][k]:>9.2f} {r['median']['after'][k]:>9.2f} "
                  f"{r['ratio'][k]:>13.2f}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", type=Path, required=True, help="the older checkout, run in the same run")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    res = run(a.before, a.rounds)
    print_table(res)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
