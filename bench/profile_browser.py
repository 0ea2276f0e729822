"""Where a new sentence's time goes in Chromium: the page's main-thread CPU from the key press to the new word drawn.

    python bench/profile_browser.py                                   # the app and the one-heatmap baseline
    python bench/profile_browser.py --tree before=/tmp/before --tree floor=/tmp/floor --rounds 3

Wall-clock times on a shared 2-core machine swing with the other processes' load (bench_browser.py pairs rounds to
cope); the renderer's main thread is where the Playground's extra time goes, and its CPU time (a Chrome trace's
``tdur`` of every task between the key press and the moment the page showed the new word, bench_browser's
``window.__shownAt``, marked ``mha-shown``) hardly depends on the load. Each tree (``--tree name=DIR``: a checkout,
e.g. ``git archive <commit> | tar -x -C DIR``) runs its own server; per round each app types ``--sentences`` new
sentences after two warm-up ones, traced. Prints per app the medians of the wall time and of the CPU time to the
new word. A diagnosis tool (bench/REPORT.md "Speed in the browser"), not a test: it never fails on a time.

    python bench/profile_browser.py --functions 25                    # and where that CPU time goes, by function

``--functions N`` adds V8's sampling profiler to the trace (on the trace's clock, so its samples are kept only from
each key press to its ``mha-shown`` mark) and prints per app, in ms a sentence: the time by kind ("(program)" is
the browser's own work: style, layout, paint, commit), by script (Streamlit's bundles by name, the components'
scripts as "component") and the N functions with the most time of their own.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import bench_browser as bb  # noqa: E402
import load  # noqa: E402, F401  (puts tests/ on sys.path)
from harness.chromium import launch  # noqa: E402
from harness.server import start_server  # noqa: E402

# Marks the moment bench_browser's watcher sees the new word drawn (window.__shownAt) in the trace.
MARK = """() => { const note = window.__noteShown; window.__noteShown = () => { const had = window.__shownAt; note();
  if (!had && window.__shownAt) performance.mark('mha-shown'); }; }"""
CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel", "blink.user_timing"]
SAMPLES = "disabled-by-default-v8.cpu_profiler"  # --functions: V8's samples in the trace


def windows(ev: list[dict]) -> list[tuple[float, float]]:
    """(key press, the next ``mha-shown`` mark) of each sentence in a trace's events, on the trace's clock (us)."""
    keys = sorted(e["ts"] for e in ev if e.get("name") == "EventDispatch"
                  and (e.get("args", {}).get("data") or {}).get("type") == "keydown")
    presses = [k for i, k in enumerate(keys) if i + 1 == len(keys) or keys[i + 1] - k > 100_000]  # Ctrl+Enter: Enter
    marks = sorted(e["ts"] for e in ev if e.get("name") == "mha-shown")
    out = []
    for k in presses:
        m = next((x for x in marks if x > k), None)
        if m is not None:
            out.append((k, m))
    return out


def script_of(url: str) -> str:
    """A sample's script, by name: a Streamlit bundle without its hash ("react-dom"), "component" for the in-page
    components' scripts (blob URLs), "" for the browser's own entries."""
    name = url.rsplit("/", 1)[-1]
    if url.startswith("blob:"):
        return "component"
    return name.split(".", 1)[0] if name else ""


def functions(ev: list[dict]) -> tuple[collections.Counter, int]:
    """The renderer main thread's V8 samples between each key press and its new word (``windows``), as us of time
    of their own per (kind or script, function): (counter, number of windows)."""
    main = main_thread(ev)
    spans = windows(ev)
    nodes: dict = {}
    time_of: dict = {}
    samples: list[tuple[float, tuple]] = []  # (time, (profile id, node id))
    for e in ev:
        if e.get("name") == "Profile" and (e["pid"], e["tid"]) == main:
            time_of[e["id"]] = e["args"]["data"]["startTime"]
    chunks = [e for e in ev if e.get("name") == "ProfileChunk" and e.get("id") in time_of]
    for e in sorted(chunks, key=lambda e: e["ts"]):
        prof = e["args"]["data"].get("cpuProfile", {})
        for n in prof.get("nodes", []):
            nodes[(e["id"], n["id"])] = n["callFrame"]
        t = time_of[e["id"]]
        for sid, dt in zip(prof.get("samples", []), e["args"]["data"].get("timeDeltas", [])):
            t += dt
            samples.append((t, (e["id"], sid)))
        time_of[e["id"]] = t
    out: collections.Counter = collections.Counter()
    for (t, node), (t_next, _) in zip(samples, samples[1:]):
        if any(a <= t < b for a, b in spans):
            frame = nodes.get(node, {})
            fn, url = frame.get("functionName") or "(anonymous)", frame.get("url", "")
            where = script_of(url)
            out[(where, fn if not where else f"{fn} ({where}:{frame.get('lineNumber', 0) + 1})")] += t_next - t
    return out, len(spans)


def main_thread(ev: list[dict]) -> tuple[int, int]:
    """(pid, tid) of the page's renderer main thread in a trace's events: the busiest ``CrRendererMain``."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    mains = collections.Counter((e["pid"], e["tid"]) for e in ev
                                if e.get("ph") == "X" and names.get((e["pid"], e["tid"])) == "CrRendererMain")
    return mains.most_common(1)[0][0]


def analyse(path: Path) -> list[tuple[float, float]]:
    """(wall ms, main-thread CPU ms) from each key press to the next ``mha-shown`` mark in a trace."""
    ev = json.loads(path.read_text())
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    main = main_thread(ev)
    tasks = [e for e in ev if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X"
             and e["name"] == "RunTask" and e.get("dur")]
    out = []
    for k, m in windows(ev):
        cpu = sum((min(e["ts"] + e["dur"], m) - max(e["ts"], k)) * e.get("tdur", e["dur"]) / e["dur"]
                  for e in tasks if e["ts"] + e["dur"] > k and e["ts"] < m)
        out.append(((m - k) / 1000, cpu / 1000))
    return out


def run(trees: dict[str, tuple[Path, str, str]], rounds: int, sentences: int,
        by_function: dict | None = None) -> dict:
    """Per tree, (wall ms, CPU ms) of each sentence; ``by_function`` (a dict) gets per tree the samples' time by
    function (``functions``) and the number of sentences they cover."""
    from playwright.sync_api import sync_playwright

    res: dict = collections.defaultdict(list)
    categories = CATEGORIES + ([SAMPLES] if by_function is not None else [])
    servers = {}
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    try:
        for name, (root, script, home) in trees.items():
            servers[name] = (start_server(script, root=root), home)
        with sync_playwright() as pw:
            browser = launch(pw)
            for _ in range(rounds):
                for name, (server, home) in servers.items():
                    url = server.url
                    app = bb.App(name, browser, url, home, [home], {})
                    app.type_sentence()
                    app.type_sentence()
                    app.page.evaluate(MARK)
                    trace = tmp / f"profile_browser_{name}.json"
                    browser.start_tracing(page=app.page, path=str(trace), categories=categories)
                    for _ in range(sentences):
                        app.type_sentence()
                    browser.stop_tracing()
                    res[name] += analyse(trace)
                    if by_function is not None:
                        ev = json.loads(trace.read_text())
                        counts, n = functions(ev["traceEvents"] if isinstance(ev, dict) else ev)
                        total, seen = by_function.get(name, (collections.Counter(), 0))
                        by_function[name] = (total + counts, seen + n)
                    app.close()
            browser.close()
    finally:
        for server, _home in servers.values():
            server.stop()
    return res


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                   help="another checkout of the app to profile beside this one")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sentences", type=int, default=4)
    p.add_argument("--json", type=Path)
    p.add_argument("--functions", type=int, default=0, metavar="N",
                   help="also where the CPU time goes: by kind, by script and the N functions with most self time")
    args = p.parse_args(argv)
    trees = {"ours": (ROOT, "app.py", "playground")}
    for spec in args.tree:
        name, _, path = spec.partition("=")
        trees[name] = (Path(path), "app.py", "playground")
    trees["baseline"] = (ROOT, "bench/one_heatmap_app.py", "")
    by_function: dict | None = {} if args.functions else None
    res = run(trees, args.rounds, args.sentences, by_function)
    print(f"{'':10} {'n':>3} {'wall to word':>13} {'main-thread CPU to word':>24}")
    for name, v in res.items():
        print(f"{name:10} {len(v):>3} {statistics.median(w for w, _ in v):>11.0f}ms "
              f"{statistics.median(c for _, c in v):>22.1f}ms")
    for name, (counts, n) in (by_function or {}).items():
        per = lambda us: us / 1000 / max(n, 1)  # noqa: E731  ms a sentence
        scripts: collections.Counter = collections.Counter()
        for (where, fn), us in counts.items():
            scripts[where or fn] += us
        print(f"\n{name}: {n} sentences, {per(sum(counts.values())):.1f} ms of samples a sentence, by kind or script:")
        print("  " + ", ".join(f"{w} {per(us):.1f}" for w, us in scripts.most_common(12)))
        for (_where, fn), us in counts.most_common(args.functions):
            print(f"  {per(us):6.2f} ms  {fn}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
