"""What a learner waits for in a real browser, against a one-heatmap Streamlit app measured in the same run (#16.3).

    python bench/bench_browser.py                 # ~10 minutes on 2 cores: both sizes, 5 rounds
    python bench/bench_browser.py --rounds 3 --sizes default --json /tmp/browser.json
    python bench/bench_browser.py --pages playground heads    # page switches among these pages only
    python bench/bench_browser.py --sizes default --actions change --rounds 9 --before /tmp/before
                                  # the changes only; an older tree (git archive <commit> | tar -x -C /tmp/before)
                                  # measured in the same rounds against the same baseline

Two servers on 127.0.0.1 (``streamlit run app.py`` and ``streamlit run bench/one_heatmap_app.py``: the same sidebar
controls, one heatmap, nothing cached) and one headless Chromium (Debian's /usr/bin/chromium, as tests/browser).
Per size (the default view; 128 tokens / 16 heads / d_model 256), after a warm-up round, each round times on both
apps (and ``--before``'s), each going first in turn (the machine is shared: a busy moment hits both):

- **change → repainted**: a new sentence typed into the text box (Ctrl+Enter), and ``num_heads`` picked from its
  list; from the key press / the click to the page repainted;
- **page switch → painted** (warm: each page was opened before): a click on a page in the sidebar's menu, every
  page of the app in menu order (the baseline: its two pages, back and forth);
- **link → painted**: a fresh browser context (no cache, no session) opening the view's link on the warm server.

"Repainted" / "painted" = what a person sees has changed: the script run that the action started has finished (its
``script_finished`` message on the websocket, or ``data-test-script-state`` back to ``notRunning``), no element is
stale, every Plotly chart has a plot, every in-page component (the canvas heatmaps ``.hm``, the head view ``.hv``,
in their shadow roots) has drawn (``data-ready``) and, after a change, drawn a new picture (its ``data-ready`` sig is
another); after a new sentence its first word is drawn: in every canvas's token labels (``root.__hm.labels``, as
tests/browser/canvas.py reads them; a canvas too dense for names counts by its new sig) and in the page (a Plotly
chart's ticks, for the baseline); and nothing in the page changed for QUIET_MS. The time is that of the page's last
DOM change (its own clock; the components' shadow roots are watched too, so a canvas drawn after Plotly counts)
plus one frame. Medians over the rounds; ratios = ours / baseline. ``--plotly-only`` waits as this bench did
before #24.4 (the script's end and Plotly's charts, the shadow roots not watched). A benchmark: it prints a table
(and JSON with ``--json``), never fails on a time.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from harness.chromium import launch  # noqa: E402  (tests/harness: the browser and the server, as the tests)
from harness.server import Server, start_server  # noqa: E402

VIEWPORT = {"width": 1400, "height": 1000}
TIMEOUT_MS = 120_000
FRAME_S = 1 / 60  # the frame that shows the last change


def words(n: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


# name: (URL parameters, the other num_heads the change picks)
SIZES = {
    "default": ({}, 2),
    "128 tokens, 16 heads": ({"text": words(128), "d_model": "256", "num_heads": "16"}, 8),
}

# The watcher every page gets before Streamlit's own code (bench_browser.js beside this file: the runs it has seen
# start and finish, the time of its last change, and what window.__painted(want) checks).
WATCH_JS = Path(__file__).with_name("bench_browser.js")

# A chart's old drawing satisfies every check while Plotly still draws the new one (asynchronously): the page counts
# as painted once nothing in it changed for this long, and the time reported is that of its last change.
QUIET_MS = 400

PAINTED = "(want) => window.__painted(want)"
REMEMBER = "() => window.__remember()"
STATE = "() => window.__state()"
TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


# ------------------------------------------------------------------------------------------------------- servers
def start(script: str) -> Server:
    """``streamlit run <script>`` on a free loopback port (tests/harness's starter); waits for /health."""
    return start_server(script)


# ------------------------------------------------------------------------------------------------------- one app
class App:
    """One app in one browser tab, at one size."""

    def __init__(self, name: str, browser, base: str, home: str, pages: list[str], params: dict,
                 plotly_only: bool = False):
        self.name, self.browser, self.base, self.home, self.pages, self.params = name, browser, base, home, pages, \
            params
        self.plotly_only = plotly_only
        self.context = self._context()
        self.page = self.context.new_page()
        self.open(self.page, home)
        self.sentence = 0
        self.shown: float | None = None  # see _timed

    def _context(self):
        context = self.browser.new_context(viewport=VIEWPORT, locale="en-US")
        context.add_init_script(f"window.__benchOptions = {{watchShadows: {'false' if self.plotly_only else 'true'}, "
                                f"quietMs: {QUIET_MS}}};")
        context.add_init_script(path=WATCH_JS)
        return context

    def url(self, path: str) -> str:
        return f"{self.base}/{path}" + (f"?{urlencode(self.params)}" if self.params else "")

    @staticmethod
    def _runs(page) -> list[int]:
        return page.evaluate("() => [window.__runs || 0, window.__finished || 0]")

    def _painted(self, page, runs, word: str | None = None, changed: bool = False) -> None:
        want = {"seen": runs, "word": word, "changed": changed, "components": not self.plotly_only}
        try:
            page.wait_for_function(PAINTED, arg=want, timeout=TIMEOUT_MS, polling="raf")
        except Exception as exc:  # noqa: BLE001 say what the page was waiting for
            state = page.evaluate(STATE)
            page.screenshot(path=str(Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_browser_{self.name}.png"))
            raise RuntimeError(f"{self.name} at {page.url}: not painted after {runs} runs: {state}") from exc
        page.evaluate(TWO_FRAMES)

    def open(self, page, path: str) -> float:
        """Seconds from the navigation's start to the last change of the painted page."""
        page.goto(self.url(path))
        self._painted(page, [0, 0])
        return page.evaluate("() => window.__lastChange") / 1000 + FRAME_S  # performance.now() counts from there

    def _timed(self, action, runs=None, word: str | None = None, changed: bool = False) -> float:
        """Seconds from the action to the last change of the repainted page (page clock), plus one frame; ``word``:
        the page shows it then (and ``self.shown``: seconds to the first drawing that showed it, plus one frame);
        ``changed``: every component drew a new picture."""
        runs = self._runs(self.page) if runs is None else runs
        self.page.evaluate(REMEMBER)
        want = {"word": word, "changed": changed, "components": True} if word and not self.plotly_only else None
        t0 = self.page.evaluate("(want) => { window.__want = want; window.__shownAt = 0; return performance.now(); }",
                                want)
        action()
        self._painted(self.page, runs, word, changed)
        last, shown = self.page.evaluate("() => { window.__want = null;"
                                         " return [window.__lastChange, window.__shownAt]; }")
        self.shown = (shown - t0) / 1000 + FRAME_S if word and shown else None
        return (last - t0) / 1000 + FRAME_S

    # -------------------------------------------------------------------------------------------- the actions
    def type_sentence(self) -> float:
        self.sentence += 1
        n = len(self.params.get("text", "").split()) or 5
        box = self.page.locator(".st-key-text textarea").first
        runs = self._runs(self.page)  # before typing: a run the typing itself started counts too
        box.fill(words(n, tag=f"s{self.sentence}x"))  # new words each time: no cache hit
        return self._timed(lambda: box.press("Control+Enter"), runs, word=f"s{self.sentence}x0", changed=True)

    def type_sentence_drawn(self) -> tuple[float, float | None]:
        """A new sentence: (seconds to the repainted page, seconds to the first drawing showing its word)."""
        return self.type_sentence(), self.shown

    def pick_heads(self, heads: int) -> float:
        option = self.page.get_by_role("option", name=str(heads), exact=True)
        for _ in range(10):  # the first click after typing may only take the focus from the text box
            self.page.locator(".st-key-num_heads [role='combobox']").first.click()
            try:
                option.wait_for(timeout=3000)
                break
            except Exception:  # noqa: BLE001 playwright's TimeoutError: click again
                continue
        return self._timed(option.click, changed=True)

    def switch_to(self, path: str) -> float:
        link = self.page.locator(f"[data-testid='stSidebarNav'] a[href$='/{path}']").first
        if not path:
            link = self.page.locator("[data-testid='stSidebarNav'] a").first
        return self._timed(link.click)

    def fresh_link(self, path: str) -> float:
        context = self._context()
        try:
            return self.open(context.new_page(), path)
        finally:
            context.close()

    def close(self) -> None:
        self.context.close()


# ---------------------------------------------------------------------------------------------------- the bench
ACTIONS = ("change", "switch", "link")  # --actions: the changes (sentence, num_heads), page switches, the link


def measure(size: str, rounds: int, ours_base: str, base_base: str, browser, pages: list[str],
            actions=ACTIONS, plotly_only: bool = False, before_base: str | None = None) -> dict:
    params, other_heads = SIZES[size]
    heads = (int(params.get("num_heads", 4)), other_heads)
    apps = [App("ours", browser, ours_base, "playground", pages, params, plotly_only),
            App("baseline", browser, base_base, "", ["", "scores"], params, plotly_only)]
    if before_base:  # --before: an older tree of the app, measured in the same rounds
        apps.insert(1, App("before", browser, before_base, "playground", pages, params, plotly_only))
    times: dict = {a.name: {} for a in apps}

    def note(app, what, seconds, warm):
        if not warm:
            times[app.name].setdefault(what, []).append(seconds)

    for r in range(rounds + 1):
        warm = r == 0  # the first round warms both up (figures cached, pages visited once); not counted
        order = apps[r % len(apps):] + apps[:r % len(apps)]  # each app goes first in turn
        for app in order if "change" in actions else ():
            settled, drawn = app.type_sentence_drawn()
            note(app, "type a sentence", settled, warm)
            if drawn is not None:
                note(app, "new word drawn", drawn, warm)
        for app in order if "change" in actions else ():
            note(app, "change num_heads", app.pick_heads(heads[1]), warm)
            app.pick_heads(heads[0])
        for app in order if "switch" in actions else ():  # page switches: from its home page through every page
            i = app.pages.index(app.home)
            for path in app.pages[i + 1:] + app.pages[:i] + [app.home]:
                note(app, f"switch to {path or 'home'}", app.switch_to(path), warm)
        for app in order if "link" in actions else ():
            note(app, "open the link", app.fresh_link(app.home), warm)
        print(f"  {size}: round {r} done", file=sys.stderr, flush=True)
    for app in apps:
        app.close()
    return {name: {what: {"median_s": statistics.median(v), "all_s": v} for what, v in rows.items()}
            for name, rows in times.items()}


def summary(res: dict, name: str = "ours") -> dict:
    """Per size: the three targets' figures (median of ``name``'s times, the baseline's, ratio)."""
    out = {}
    for size, r in res.items():
        ours, base = r[name], r["baseline"]
        switches = [v["median_s"] for k, v in ours.items() if k.startswith("switch to")]
        rows = {}
        for what in ("type a sentence", "new word drawn", "change num_heads", "open the link"):
            if what in ours and what in base:
                rows[what] = (ours[what]["median_s"], base[what]["median_s"])
        if switches:
            base_switch = statistics.median(v["median_s"] for k, v in base.items() if k.startswith("switch to"))
            rows["page switch (median over pages)"] = (statistics.median(switches), base_switch)
            rows["page switch (slowest page)"] = (max(switches), base_switch)
        out[size] = {k: {"ours_s": o, "baseline_s": b, "ratio": o / b} for k, (o, b) in rows.items()}
        # The same action on both apps in the same round, moments apart, as one ratio; their median (a busy moment
        # of the shared machine slows both of a pair, the medians of the times above may come from other rounds).
        for what, row in out[size].items():
            if what in ours and what in base and len(ours[what]["all_s"]) == len(base[what]["all_s"]):
                pairs = zip(ours[what]["all_s"], base[what]["all_s"], strict=True)
                row["paired_ratio"] = statistics.median(o / b for o, b in pairs)
    return out


def print_table(res: dict, name: str = "ours") -> None:
    for size, rows in summary(res, name).items():
        print(f"\n{size}" + ("" if name == "ours" else f" ({name})"))
        print(f"  {'':<34} {'ours':>8} {'baseline':>9} {'ratio':>6} {'paired':>7}")
        for what, v in rows.items():
            paired = f"{v['paired_ratio']:>7.2f}" if "paired_ratio" in v else ""
            times = f"{v['ours_s'] * 1e3:>6.0f}ms {v['baseline_s'] * 1e3:>7.0f}ms"
            print(f"  {what:<34} {times} {v['ratio']:>6.2f} {paired}")
        print("  per page (ours):", ", ".join(f"{k[10:]} {v['median_s'] * 1e3:.0f}"
                                             for k, v in res[size][name].items() if k.startswith("switch to")))


def run(rounds: int, sizes: list[str], pages: list[str] | None = None, partial: Path | None = None,
        actions=ACTIONS, plotly_only: bool = False, before: Path | None = None) -> dict:
    from playwright.sync_api import sync_playwright

    from mha.app.pages import PAGES, url_path

    all_pages = [url_path(p) for p, *_ in PAGES]
    pages = [p for p in all_pages if pages is None or p in pages or (p == "" and "home" in pages)]
    if "playground" not in pages:
        pages.insert(0, "playground")
    ours, base = start("app.py"), start("bench/one_heatmap_app.py")
    old = start_server("app.py", root=before) if before else None
    res = {"load_before": os.getloadavg()}
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            res["chromium"] = browser.version
            res["sizes"] = {}
            for size in sizes:
                res["sizes"][size] = measure(size, rounds, ours.url, base.url, browser, pages, actions, plotly_only,
                                             old.url if old else None)
                if partial:  # what is measured so far survives an interrupted run
                    partial.write_text(json.dumps(res, indent=1))
            browser.close()
    finally:
        ours.stop()
        base.stop()
        if old:
            old.stop()
    res["load_after"] = os.getloadavg()
    res["rounds"], res["actions"], res["plotly_only"] = rounds, list(actions), plotly_only
    res["summary"] = summary(res["sizes"])
    if before:
        res["before"], res["summary_before"] = str(before), summary(res["sizes"], "before")
    return res


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--sizes", nargs="*", default=list(SIZES), help="'default' and/or '128'")
    p.add_argument("--pages", nargs="*", help="URL paths of the pages to switch among (home = 'home')")
    p.add_argument("--actions", nargs="*", choices=ACTIONS, default=list(ACTIONS),
                   help="what to time: the two changes, the page switches, the link (default: all)")
    p.add_argument("--plotly-only", action="store_true",
                   help="wait as before #24.4: the script's end and Plotly's charts, not the canvases' labels")
    p.add_argument("--before", type=Path, help="an older checkout of the app (git archive <commit> | tar -x -C DIR)"
                   ": measured in the same rounds, against the same baseline")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    sizes = [s for s in SIZES if any(s.startswith(a) for a in args.sizes)]
    res = run(args.rounds, sizes, args.pages, args.json, args.actions, args.plotly_only, args.before)
    print(f"Chromium {res['chromium']}; load average before {res['load_before']}, after {res['load_after']}")
    if args.before:
        print_table(res["sizes"], "before")
    print_table(res["sizes"])
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
