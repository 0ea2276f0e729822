"""Two replicas of the app behind nginx, on loopback, started by deploy/run_local.sh with deploy/nginx/mha.conf as
shipped (the harness: bench/replicas.py). Each visitor is a browser tab spoken for over Streamlit's websocket: the
page first (nginx's cookie), then the websocket with the cookie. Marked slow: three Streamlit processes start."""
from __future__ import annotations

import asyncio
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import load  # noqa: E402  bench/load.py
from replicas import Replicas, Tab, new_tab  # noqa: E402

pytestmark = pytest.mark.slow
LINK = {"text": "the cat sat on the mat", "num_heads": "2"}


@pytest.fixture(scope="module")
def group():
    try:
        g = Replicas.start(2)
    except RuntimeError as exc:
        if "not installed" in str(exc):
            pytest.skip(str(exc))
        raise
    yield g
    g.stop()


def placement(group: Replicas) -> dict[str, set]:
    """mha_replica cookie -> the replicas that served requests carrying it (nginx's access log)."""
    out: dict[str, set] = {}
    for replica, cookie, _method, _uri in group.served():
        if cookie != "-":
            out.setdefault(cookie, set()).add(replica)
    return out


def test_sessions_stick_and_a_killed_replica_loses_only_its_own(group):
    async def scenario():
        tabs: list[Tab] = []
        while len(tabs) < 30:  # until both replicas hold two sessions (the cookie's key is random)
            tab = await new_tab(group.url, "playground", LINK)
            assert tab.runs[-1].ok, tab.runs[-1].problem
            tabs.append(tab)
            where = placement(group)
            homes = [next(iter(where[t.cookies["mha_replica"]])) for t in tabs]
            if min(homes.count(0), homes.count(1)) >= 2:
                break
        where = placement(group)
        assert all(len(where[t.cookies["mha_replica"]]) == 1 for t in tabs)  # every request of a tab: one replica
        home = {id(t): next(iter(where[t.cookies["mha_replica"]])) for t in tabs}
        for t in tabs:  # sessions keep working where they are
            run = await t.change("num_heads", "string_value", "4", 60)
            assert run.ok, run.problem

        group.kill(0)  # kill -9 replica 0, its sessions with it
        lost, kept = [t for t in tabs if home[id(t)] == 0], [t for t in tabs if home[id(t)] == 1]
        for t in kept:  # the other replica's sessions do not notice
            run = await t.change("causal", "bool_value", True, 60)
            assert run.ok, run.problem
        for t in lost:  # the killed replica's sessions are gone ...
            try:
                run = await t.rerun(30)
            except websockets.ConnectionClosed:
                continue  # the send itself failed
            assert not run.ok and "connection closed" in run.problem
        reference = await new_tab(group.url, "playground", lost[0].query)  # a new visitor with that link
        for t in lost:  # ... and their tab, reconnecting with its link (and its cookie), gets a fresh view of it
            again = Tab(group.url, "playground", dict(t.query), cookies=dict(t.cookies))
            run = await again.open(60)
            assert run.ok, run.problem
            assert again.content == reference.content
            await again.close()
        for t in kept + [reference]:
            await t.close()
        for t in lost:
            try:
                await t.close()
            except websockets.ConnectionClosed:
                pass
        await asyncio.sleep(0.5)  # nginx logs a websocket when it closes
        streams = [(r, c) for r, c, _m, uri in group.served() if uri == "/_stcore/stream"]
        for t in kept:  # the websocket went where the page went
            assert {r for r, c in streams if c == t.cookies["mha_replica"]} == {1}
        return lost, kept

    lost, kept = load.run_async(scenario())
    assert lost and kept


def test_the_proxy_refuses_big_bodies_and_floods(group):
    big = urllib.request.Request(f"{group.url}/_stcore/upload_file/s/f", data=b"0" * (11 * 2**20), method="PUT")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(big, timeout=30)
    assert e.value.code == 413  # client_max_body_size: before any replica buffers it
    codes = []
    for _ in range(40):  # uploads: 2 a second, a burst of 5
        req = urllib.request.Request(f"{group.url}/_stcore/upload_file/s/f", data=b"0", method="PUT")
        try:
            codes.append(urllib.request.urlopen(req, timeout=10).status)
        except urllib.error.HTTPError as err:
            codes.append(err.code)
    assert 429 in codes
    with urllib.request.urlopen(f"{group.url}/_stcore/health", timeout=10) as r:
        assert r.read() == b"ok"  # the health check answers through the proxy
