"""The floods of issue #23 on loopback, against a real ``streamlit run app.py`` (tests/harness's server, bench/load.py's
websocket session): each bounded to a few seconds, asserting that a bystander still gets
its view, that the server's memory stays bounded and what the attacker is told. Marked ``slow`` (one server for the
file): ``pytest -m "not slow"`` skips them. The times are in bench/abuse.py and bench/REPORT.md, not here."""
from __future__ import annotations

import asyncio
import sys
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import abuse  # noqa: E402  bench/abuse.py
import load  # noqa: E402  bench/load.py
from harness.server import start_server  # noqa: E402

pytestmark = pytest.mark.slow
TIMEOUT = 120.0  # a run slower than this fails (a busy machine: never a timing assertion)
RSS_BOUND_MB = 800  # the target for every flood


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with start_server(log=tmp_path_factory.mktemp("abuse") / "server.log") as s:
        base = s.url
        load.run_async(_served(base))  # torch imported, the default view cached: what a classroom server looks like
        # One short training: its first optimizer step imports torch._dynamo (seconds on a busy machine, once per
        # process, and no step group can stop an import).
        load.run_async(_served(base, "playground", {"source": "trained", "task": "previous", "train_steps": "3"}))
        yield base, s.proc.pid


async def _served(base: str, page: str = "playground", query: dict | None = None) -> load.Session:
    s = load.Session(base, page, dict(query or {}))
    run = await s.open(TIMEOUT)
    await s.close()
    assert run.ok, run.problem
    return s


def _healthy(base: str) -> bool:
    with urllib.request.urlopen(f"{base}/_stcore/health", timeout=10) as r:
        return r.read().strip() == b"ok"


def test_long_trainings_left_after_a_second_are_stopped_and_a_bystander_is_served(server):
    base, pid = server
    told: list[str] = []

    async def scenario():
        async def leaver(n: int):
            s = load.Session(base, "playground", {**abuse.LONG, "seed": str(300 + n)})
            try:
                await s.open(1.5)  # the training has not finished: the visitor closes the tab
            finally:
                told.extend(s.texts)
                await s.close()

        leavers = [asyncio.create_task(leaver(n)) for n in range(3)]
        await asyncio.sleep(0.5)
        bystander = load.Session(base, "playground", {})
        first = await bystander.open(TIMEOUT)
        sentence = await bystander.change("text", "string_value", "the bystander's very own sentence", TIMEOUT)
        await bystander.close()
        await asyncio.gather(*leavers)
        await asyncio.sleep(3.0)  # HEARTBEAT and a step group: every left run is gone by now
        # A new long run starts at once: nothing the leavers asked for is still running or queued.
        late = load.Session(base, "playground", {**abuse.LONG, "seed": "399"})
        await late.open(2.0)
        await late.close()
        return first, sentence, late.texts

    first, sentence, late_texts = load.run_async(scenario())
    assert first.ok and sentence.ok, (first.problem, sentence.problem)
    assert any("ahead of yours" in t for t in told), told  # the second and third leaver were told their place
    assert any(t.startswith("Training the module") for t in late_texts), late_texts
    assert not any("ahead of yours" in t for t in late_texts), late_texts
    assert load.rss_mb(pid) <= RSS_BOUND_MB


def test_an_upload_flood_is_refused_past_the_session_limit(server):
    base, pid = server

    async def scenario():
        s = load.Session(base, "share", {})
        assert (await s.open(TIMEOUT)).ok
        token = abuse.xsrf_token()
        loop = asyncio.get_running_loop()
        statuses = [await loop.run_in_executor(None, abuse._put, base, s.session_id, 6 * 10 ** 6, token)
                    for _ in range(8)]
        bystander = await _served(base)
        await s.close()
        return statuses, bystander

    rss0 = load.rss_mb(pid)
    statuses, _ = load.run_async(scenario())
    assert statuses[:3] == [204, 204, 204], statuses  # three files of 6 MB: within 3 files and 20 MB
    assert statuses[3:] == [413] * 5, statuses  # then refused, and nothing kept
    assert load.rss_mb(pid) - rss0 < 150 and load.rss_mb(pid) <= RSS_BOUND_MB
    assert _healthy(base)


def test_the_refusal_says_why(server):
    base, _ = server
    async def scenario():
        s = load.Session(base, "share", {})
        assert (await s.open(TIMEOUT)).ok
        token = abuse.xsrf_token()
        answers = []
        for n in range(4):
            req = abuse.upload_request(base, s.session_id, f"file-{n}", 1000, token)
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    answers.append((r.status, ""))
            except urllib.error.HTTPError as err:
                answers.append((err.code, err.read().decode()))
        await s.close()
        return answers

    answers = load.run_async(scenario())
    assert [code for code, _ in answers] == [204, 204, 204, 413]
    assert "3 files" in answers[3][1] and "최대 3개" in answers[3][1]


def test_an_oversized_widget_state_message_closes_only_its_own_connection(server):
    import websockets

    base, pid = server
    blob = abuse._fake_widget_message(3.0)  # over the 2 MB of server.maxWidgetStateSize

    async def scenario():
        s = load.Session(base, "playground", {})
        assert (await s.open(TIMEOUT)).ok
        await s.ws.send(blob)
        code = None
        try:
            async with asyncio.timeout(30):
                while True:
                    await s.ws.recv()
        except websockets.ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else None
        await s.close()
        return code, await _served(base)

    rss0 = load.rss_mb(pid)
    code, _ = load.run_async(scenario())
    assert code == 1009  # "message too big": the server closed that websocket without parsing it
    assert load.rss_mb(pid) - rss0 < 100
    assert _healthy(base)


def test_concurrent_induction_links_wait_their_turn_and_memory_stays_bounded(server):
    base, pid = server
    told: list[str] = []

    async def scenario():
        async def link(n: int):
            s = load.Session(base, "induction", {"ind_steps": "2000", "ind_seed": str(500 + n), "ind_at": "2000"})
            try:
                await s.open(4.0)
            finally:
                told.extend(s.texts)
                await s.close()

        links = [asyncio.create_task(link(n)) for n in range(6)]
        await asyncio.sleep(1.5)
        bystander = await _served(base)
        await asyncio.gather(*links)
        return bystander

    load.run_async(scenario())
    assert any("runs ahead of yours" in t for t in told), sorted(set(told))[:5]  # "5 runs ahead of yours"
    assert load.rss_mb(pid) <= RSS_BOUND_MB
    assert _healthy(base)
