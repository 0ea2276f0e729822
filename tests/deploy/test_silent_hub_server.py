"""A real server (``streamlit run app.py``) with HF_ENDPOINT pointed at a hub on loopback that accepts and never
answers (tests/silent_hub.py): the page shows the timeout message next to the model control, bounded by the
session's run timeout (a hang fails the test, a slow machine does not), and a second visitor gets the remembered
message without a new request to the hub. Marked slow: a server starts."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import load  # noqa: E402
from harness.server import start_server  # noqa: E402
from silent_hub import TIMEOUT_S, SilentHub  # noqa: E402

pytestmark = pytest.mark.slow
LINK = {"source": "pretrained", "model": "google/bert_uncased_L-4_H-256_A-4", "lang": "en"}


def test_a_silent_hub_behind_a_real_server(monkeypatch, tmp_path):
    hub = SilentHub()
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("MHA_PUBLIC", "1")
    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "1")  # the short list may download: the default model is on it
    monkeypatch.setenv("MHA_HUB_TIMEOUT", str(TIMEOUT_S))
    server = start_server(log=tmp_path / "server.log")
    base = server.url
    try:
        async def visit() -> load.Run:
            tab = load.Session(base, "playground", dict(LINK))
            run = await tab.open(60 + 20 * TIMEOUT_S)
            await tab.close()
            return run

        first = load.run_async(visit())
        assert not first.ok and f"did not answer within {TIMEOUT_S} s" in first.problem.replace("\\", "")
        asked = len(hub.connections)
        assert asked >= 1
        second = load.run_async(visit())
        assert f"did not answer within {TIMEOUT_S} s" in second.problem.replace("\\", "")
        assert len(hub.connections) == asked  # remembered for every visitor of the server
    finally:
        server.stop()
        hub.close()
