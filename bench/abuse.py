"""The floods of issue #23 against a Streamlit server on loopback, each with a bystander who must still be served.

    python bench/abuse.py                              # every scenario against this checkout
    python bench/abuse.py --before /tmp/mha-before     # ... and first against an older checkout, same run
    python bench/abuse.py --scenario longruns --json /tmp/abuse.json

Scenarios (each on a server of its own, started by ``tests/harness/server.py``'s ``start_server``; figures are seconds
on the client, send -> ``script_finished``, and the server's RSS):

- ``longruns``: 6 visitors open distinct long trainings (``/playground?source=trained&task=mixed&train_steps=3000&
  d_model=128&num_heads=16&seed=200..205``) and close their tab after 1 s; 0.5 s after them a 7th visitor opens the
  default Playground (first run) and types a new sentence (its run). Target: <= 1.5 s and <= 2 s. Also the server's
  CPU in the 3 s after the bystander is done: a training nobody waits for any more would still burn a core.
- ``uploads``: one session, 120 PUTs of 10 MB to ``/_stcore/upload_file/<session>/<new id>`` (the XSRF cookie and
  header made up by the client, as an attacker can); RSS peak and after; how many were kept (HTTP 204); a bystander's
  first run after.
- ``widgetstate``: 10 sessions each send one 14.4 MB BackMsg of made-up widget states; RSS peak and 5 s after they
  closed; a bystander's first run. Also the sizes of the app's own largest messages (default view; a 2,000-character
  text, all the app reads; a 400 kB pasted text) for ``server.maxWidgetStateSize``.
- ``induction``: 24 concurrent ``/induction?ind_steps=2000&ind_seed=N&ind_at=2000`` links held open for
  ``--hold`` seconds; RSS peak and after; what they were told; a bystander's first run meanwhile.

Target for the three floods: the server <= 800 MB RSS and answering (the bystander's view comes).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # noqa: E402  bench/load.py: the websocket session of bench/
from harness.server import start_server  # noqa: E402  tests/harness (load.py puts tests/ on sys.path)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

LONG = {"source": "trained", "task": "mixed", "train_steps": "3000", "d_model": "128", "num_heads": "16"}
RSS_TARGET_MB = 800


def _rss_sampler(pid):
    peak, stop = [0.0], asyncio.Event()
    return peak, stop, load._sample_rss(pid, peak, stop)


async def _bystander(base: str, timeout: float, sentence: str | None = None) -> dict:
    s = load.Session(base, "playground", {})
    first = await s.open(timeout)
    out = {"first_run_s": first.seconds, "first_ok": first.ok, "first_problem": first.problem}
    if sentence is not None and first.ok:
        run = await s.change("text", "string_value", sentence, timeout)
        out.update(sentence_run_s=run.seconds, sentence_ok=run.ok, sentence_problem=run.problem)
    await s.close()
    return out


async def longruns(base: str, pid: int, args) -> dict:
    warm = await load._open(base, "playground", {}, args.rerun_timeout)  # torch imported, default view cached
    await warm.close()
    idle = await _bystander(base, args.rerun_timeout, "an idle visitor types a sentence of their own")
    told: list[str] = []

    async def leaver(n: int):
        s = load.Session(base, "playground", {**LONG, "seed": str(200 + n)})
        try:
            await s.open(1.0)  # no script_finished within 1 s: the visitor closes the tab
        finally:
            told.extend(s.texts)
            await s.close()

    cpu0 = load.cpu_seconds(pid)
    tasks = [asyncio.create_task(leaver(n)) for n in range(6)]
    await asyncio.sleep(0.5)
    busy = await _bystander(base, args.rerun_timeout, "a bystander types a sentence while six trainings start")
    await asyncio.gather(*tasks)
    cpu1 = load.cpu_seconds(pid)
    await asyncio.sleep(3.0)
    cpu2 = load.cpu_seconds(pid)
    return {"scenario": "longruns", "idle": idle, "busy": busy,
            "cpu_s_during": None if cpu0 is None else cpu1 - cpu0,
            "cpu_s_3s_after": None if cpu1 is None else cpu2 - cpu1,
            "told_ahead": sorted({t for t in told if "ahead" in t})[:3],
            "target_first_s": 1.5, "target_sentence_s": 2.0}


def upload_request(base: str, session_id: str, file_id: str, size: int, token: str) -> urllib.request.Request:
    """A PUT of one file of ``size`` zero bytes to the session's upload URL, as the browser's uploader sends it."""
    boundary = uuid.uuid4().hex
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"w.pt\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode()
    body = head + b"\0" * size + f"\r\n--{boundary}--\r\n".encode()
    return urllib.request.Request(f"{base}/_stcore/upload_file/{session_id}/{file_id}", data=body, method="PUT",
                                  headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                                           "X-Xsrftoken": token, "Cookie": f"_streamlit_xsrf={token}"})


def _put(base: str, session_id: str, size: int, token: str) -> int:
    req = upload_request(base, session_id, str(uuid.uuid4()), size, token)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as err:
        return err.code


def xsrf_token() -> str:
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    return generate_xsrf_token_string()  # made up by the client: the server compares header and cookie only


async def uploads(base: str, pid: int, args) -> dict:
    warm = await load._open(base, "playground", {}, args.rerun_timeout)
    await warm.close()
    s = await load._open(base, "share", {}, args.rerun_timeout)
    rss0 = load.rss_mb(pid)
    peak, stop, sampler = _rss_sampler(pid)
    token, statuses = xsrf_token(), []
    t0 = time.perf_counter()
    loop = asyncio.get_running_loop()
    for _ in range(args.puts):
        statuses.append(await loop.run_in_executor(None, _put, base, s.session_id, 10 * 10 ** 6, token))
    wall = time.perf_counter() - t0
    rss_held = load.rss_mb(pid)
    bystander = await _bystander(base, args.rerun_timeout)
    await s.close()
    await asyncio.sleep(args.settle)
    rss1 = load.rss_mb(pid)
    stop.set()
    await sampler
    return {"scenario": "uploads", "puts": args.puts, "kept": statuses.count(204),
            "refused_413": statuses.count(413), "other": len(statuses) - statuses.count(204) - statuses.count(413),
            "wall_s": wall, "rss_before_mb": rss0, "rss_peak_mb": peak[0], "rss_session_open_mb": rss_held,
            "rss_after_mb": rss1, "bystander": bystander, "target_rss_mb": RSS_TARGET_MB}


def _fake_widget_message(mb: float) -> bytes:
    msg = BackMsg()
    cs = msg.rerun_script
    per = 2 ** 16
    for i in range(int(mb * 10 ** 6) // per):
        cs.widget_states.widgets.append(WidgetState(id=f"$$ID-fake-{i}", string_value="x" * per))
    return msg.SerializeToString()


async def widgetstate(base: str, pid: int, args) -> dict:
    import websockets

    warm = await load._open(base, "playground", {}, args.rerun_timeout)
    for key, kind, value in load.CHANGES:  # a learner's own changes: the message grows with every widget state
        await warm.change(key, kind, value.format(n=0) if isinstance(value, str) else value, args.rerun_timeout)
    real = {"default view and 4 changes": warm.sent_bytes}
    await warm.change("text", "string_value", "w " * 1000, args.rerun_timeout)
    real["a 2,000-character text"] = warm.sent_bytes
    await warm.change("text", "string_value", "w " * 200_000, args.rerun_timeout)
    real["a 400 kB pasted text"] = warm.sent_bytes
    await warm.close()
    blob = _fake_widget_message(14.4)
    rss0 = load.rss_mb(pid)
    peak, stop, sampler = _rss_sampler(pid)
    closed = []

    async def flood():
        s = await load._open(base, "playground", {}, args.rerun_timeout)
        try:
            await s.ws.send(blob)
            try:
                async with asyncio.timeout(5):
                    while True:
                        await s.ws.recv()
            except websockets.ConnectionClosed as exc:
                closed.append(exc.rcvd.code if exc.rcvd else None)
            except TimeoutError:
                closed.append("still open")
        finally:
            await s.close()

    await asyncio.gather(*(flood() for _ in range(10)))
    bystander = await _bystander(base, args.rerun_timeout)
    await asyncio.sleep(args.settle)
    rss1 = load.rss_mb(pid)
    stop.set()
    await sampler
    return {"scenario": "widgetstate", "sessions": 10, "message_mb": len(blob) / 1e6, "closed_with": closed,
            "rss_before_mb": rss0, "rss_peak_mb": peak[0], "rss_after_mb": rss1, "bystander": bystander,
            "app_messages_bytes": real,
            "target_rss_mb": RSS_TARGET_MB}


async def induction(base: str, pid: int, args) -> dict:
    warm = await load._open(base, "playground", {}, args.rerun_timeout)
    await warm.close()
    rss0 = load.rss_mb(pid)
    peak, stop, sampler = _rss_sampler(pid)
    told: list[str] = []

    async def link(n: int):
        s = load.Session(base, "induction", {"ind_steps": "2000", "ind_seed": str(n), "ind_at": "2000"})
        try:
            await s.open(args.hold)
        finally:
            told.extend(s.texts)
            await s.close()

    tasks = [asyncio.create_task(link(1000 + n)) for n in range(24)]
    await asyncio.sleep(min(3.0, args.hold / 2))
    bystander = await _bystander(base, args.rerun_timeout, "a bystander's own sentence during the induction flood")
    await asyncio.gather(*tasks)
    await asyncio.sleep(args.settle)
    rss1 = load.rss_mb(pid)
    stop.set()
    await sampler
    return {"scenario": "induction", "links": 24, "hold_s": args.hold, "rss_before_mb": rss0, "rss_peak_mb": peak[0],
            "rss_after_mb": rss1, "bystander": bystander,
            "told_ahead": sorted({t for t in told if "ahead" in t}, key=len)[:2], "target_rss_mb": RSS_TARGET_MB}


SCENARIOS = {"longruns": longruns, "uploads": uploads, "widgetstate": widgetstate, "induction": induction}


def run_one(name: str, root: Path, args) -> dict:
    log = Path(tempfile.gettempdir()) / f"mha-abuse-{name}-{root.name}.log"
    with start_server(log=log, root=root) as server:
        result = asyncio.run(asyncio.wait_for(SCENARIOS[name](server.url, server.proc.pid, args), args.timeout))
    result["checkout"] = str(root)
    return result


def describe(r: dict) -> str:
    f = lambda v, unit="s", nd=2: "n/a" if v is None else f"{v:.{nd}f} {unit}"  # noqa: E731
    where = f"[{Path(r['checkout']).name}]"
    if r["scenario"] == "longruns":
        b, i = r["busy"], r["idle"]
        ok = b["first_run_s"] <= r["target_first_s"] and b.get("sentence_run_s", 1e9) <= r["target_sentence_s"]
        return (f"{where} longruns: bystander first run {f(b['first_run_s'])} (idle {f(i['first_run_s'])}), "
                f"new sentence {f(b.get('sentence_run_s'))} (idle {f(i.get('sentence_run_s'))}) "
                f"[{'ok' if ok and b['first_ok'] and b.get('sentence_ok') else 'MISSED'}: <= 1.5 s / 2 s]; server CPU "
                f"{f(r['cpu_s_during'])} during, {f(r['cpu_s_3s_after'])} in the 3 s after; told: "
                f"{r['told_ahead'][:1]}")
    ok = r["rss_after_mb"] is not None and r["rss_peak_mb"] <= r["target_rss_mb"] and r["bystander"]["first_ok"]
    head = (f"{where} {r['scenario']}: RSS before {f(r['rss_before_mb'], 'MB', 0)}, "
            f"peak {f(r['rss_peak_mb'], 'MB', 0)}, "
            f"after {f(r['rss_after_mb'], 'MB', 0)}; bystander first run {f(r['bystander']['first_run_s'])} "
            f"({'served' if r['bystander']['first_ok'] else r['bystander']['first_problem']}) "
            f"[{'ok' if ok else 'MISSED'}: <= {r['target_rss_mb']} MB and answering]")
    if r["scenario"] == "uploads":
        head += f"; {r['kept']} of {r['puts']} PUTs kept, {r['refused_413']} refused (413), in {f(r['wall_s'])}"
    if r["scenario"] == "widgetstate":
        codes = sorted(set(map(str, r["closed_with"])))
        head += (f"; {r['message_mb']:.1f} MB messages: connections closed with {codes}"
                 f"; the app's own messages: {r['app_messages_bytes']} bytes")
    if r["scenario"] == "induction":
        head += f"; told: {r['told_ahead'][:1]}"
    return head


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", choices=(*SCENARIOS, "all"), default="all")
    p.add_argument("--before", type=Path, help="an older checkout to run first, in the same run (git worktree)")
    p.add_argument("--puts", type=int, default=120, help="uploads: PUTs of 10 MB (default 120)")
    p.add_argument("--hold", type=float, default=10.0, help="induction: seconds the 24 links stay open (default 10)")
    p.add_argument("--settle", type=float, default=5.0, help="seconds after a flood before RSS is read (default 5)")
    p.add_argument("--rerun-timeout", type=float, default=180.0)
    p.add_argument("--timeout", type=float, default=600.0, help="hard limit per scenario and checkout (s)")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    roots = ([args.before.resolve()] if args.before else []) + [load.ROOT]
    results = []
    for name in names:
        for root in roots:
            r = run_one(name, root, args)
            results.append(r)
            print(describe(r), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
