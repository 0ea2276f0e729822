"""One new sentence, step by step in Chromium: what arrives when, what the main thread does, when each canvas draws.

    python bench/timeline_browser.py                      # the app's Playground, 3 sentences after 2 warm-up ones
    python bench/timeline_browser.py --tree /tmp/before   # another checkout (git archive <commit> | tar -x -C DIR)
    python bench/timeline_browser.py --baseline           # the one-heatmap app of bench_browser.py
    python bench/timeline_browser.py --messages           # every websocket message too, one per line

For each sentence typed (as bench_browser.py types it: new words, Ctrl+Enter), times in ms from the key press:

- the run's websocket messages (decoded as Streamlit's ``ForwardMsg``): how many, the first and the last, and the
  arrival of each in-page component's delta (``bidi_component``) with its size;
- the renderer's main-thread tasks over 3 ms (mostly React rendering the page: ``se`` is its scheduler's work loop)
  with their length, and the page's script state turning ``running`` / ``notRunning``;
- each component's drawing (``mha-draw-<layout>`` marks, which the components make only when ``window.__mhaMarks``
  is set: this tool sets it) and the moment bench_browser's watcher saw the new word drawn in every canvas
  (profile_browser.py's ``mha-shown`` mark).

A diagnosis tool (bench/REPORT.md, "Speed in the browser", round 5), not a test: it prints, it never fails on a
time. The trace and the websocket frames are matched by order (the trace has each receive, the frames their bytes).
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import bench_browser as bb  # noqa: E402
import load  # noqa: E402, F401  (puts tests/ on sys.path)
from harness.chromium import launch  # noqa: E402
from harness.server import start_server  # noqa: E402
from profile_browser import MARK as MARK_SHOWN  # noqa: E402  (performance.mark('mha-shown') when the word is drawn)
from profile_browser import main_thread  # noqa: E402

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel", "blink.user_timing"]
LONG_TASK_US = 3000
MARKS = "() => { window.__mhaMarks = true; performance.clearMarks(); }"


def describe(payload: dict) -> tuple[str, int]:
    """(what a websocket frame carries, its size in bytes), from CDP's frame payload."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    data = base64.b64decode(payload["payloadData"]) if payload.get("opcode") == 2 else payload["payloadData"].encode()
    msg = ForwardMsg()
    try:
        msg.ParseFromString(data)
    except Exception:  # noqa: BLE001 not a ForwardMsg (e.g. a ping): say so
        return "?", len(data)
    kind = msg.WhichOneof("type") or "?"
    if kind == "delta":
        delta = msg.delta
        sub = delta.WhichOneof("type") or ""
        inner = getattr(delta, sub).WhichOneof("type") if sub in ("new_element", "add_block") else None
        kind = f"{sub}:{inner}" if inner else sub
        kind += " @" + ",".join(map(str, msg.metadata.delta_path))
    return kind, len(data)


def timeline(trace: Path, frames: list[tuple[str, int]]) -> dict:
    """The sentence's events from the trace (one key press in it), with the websocket frames matched by order."""
    events = json.loads(trace.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = main_thread(events)
    ours = sorted((e for e in events if (e.get("pid"), e.get("tid")) == main), key=lambda e: e["ts"])
    press = max(e["ts"] for e in ours if e.get("name") == "EventDispatch"
                and ((e.get("args") or {}).get("data") or {}).get("type") == "keydown")
    ms = lambda ts: (ts - press) / 1000  # noqa: E731
    receives = [ms(e["ts"]) for e in ours if e.get("name") == "WebSocketReceive" and e["ts"] >= press]
    out = {"messages": [], "tasks": [], "marks": [], "shown": None}
    for at, (what, size) in zip(receives, frames):
        out["messages"].append((at, what, size))
    for e in ours:
        if e["ts"] < press:
            continue
        name = e.get("name", "")
        if e.get("ph") == "X" and name == "RunTask" and e.get("dur", 0) > LONG_TASK_US:
            kids = [k for k in ours if k.get("name") == "FunctionCall" and e["ts"] <= k["ts"] < e["ts"] + e["dur"]]
            label = ",".join(sorted({((k.get("args") or {}).get("data") or {}).get("functionName") or "?"
                                     for k in kids})) or "native"
            out["tasks"].append((ms(e["ts"]), e["dur"] / 1000, label))
        elif name in ("running", "notRunning") or name.startswith("mha-draw-"):
            out["marks"].append((ms(e["ts"]), name))
        elif name == "mha-shown" and out["shown"] is None:
            out["shown"] = ms(e["ts"])
    return out


def run(root: Path, script: str, home: str, sentences: int, warmup: int = 2) -> list[dict]:
    from playwright.sync_api import sync_playwright

    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    server = start_server(script, root=root)
    results = []
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            app = bb.App("timeline", browser, server.url, home, [home], {})
            for _ in range(warmup):
                app.type_sentence()
            app.page.evaluate(MARK_SHOWN)
            cdp = app.context.new_cdp_session(app.page)
            cdp.send("Network.enable")
            frames: list = []
            cdp.on("Network.webSocketFrameReceived", lambda e: frames.append(describe(e["response"])))
            for _ in range(sentences):
                app.page.evaluate(MARKS)
                frames.clear()
                trace = tmp / "timeline_browser.json"
                browser.start_tracing(page=app.page, path=str(trace), categories=CATEGORIES)
                app.type_sentence()
                browser.stop_tracing()
                results.append(timeline(trace, list(frames)))
            app.close()
            browser.close()
    finally:
        server.stop()
    return results


def report(results: list[dict], all_messages: bool) -> None:
    for n, r in enumerate(results, 1):
        msgs = r["messages"]
        print(f"--- sentence {n}: {len(msgs)} websocket messages, "
              + (f"first {msgs[0][0]:.0f} ms, last {msgs[-1][0]:.0f} ms" if msgs else "none matched"))
        for at, what, size in msgs:
            if all_messages or what.startswith("new_element:bidi_component") or not what.startswith(("new_", "add_")):
                print(f"  {at:7.1f} ms  message  {what} ({size:,} B)")
        for at, dur, label in r["tasks"]:
            print(f"  {at:7.1f} ms  task     {dur:5.1f} ms  {label}")
        for at, name in r["marks"]:
            print(f"  {at:7.1f} ms  mark     {name}")
        if r["shown"] is not None:
            print(f"  {r['shown']:7.1f} ms  the new word drawn in every canvas")
        busy = sum(d for _, d, _ in r["tasks"])
        print(f"  long tasks: {len(r['tasks'])}, {busy:.0f} ms in all")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tree", type=Path, default=ROOT, help="a checkout of the app (default: this one)")
    p.add_argument("--baseline", action="store_true", help="the one-heatmap app instead (bench/one_heatmap_app.py)")
    p.add_argument("--sentences", type=int, default=3)
    p.add_argument("--messages", action="store_true", help="list every websocket message")
    args = p.parse_args(argv)
    if args.baseline:
        results = run(ROOT, "bench/one_heatmap_app.py", "", args.sentences)
    else:
        results = run(args.tree, "app.py", "playground", args.sentences)
    report(results, args.messages)


if __name__ == "__main__":
    main()
