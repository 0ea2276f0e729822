"""A Hugging Face hub on loopback that accepts every connection and never answers: what a hub behind a broken network
looks like to the hub client. ``silent_hub`` (a pytest fixture, imported by the tests that use it) points the hub
client at it (its endpoint, an empty cache, a short MHA_HUB_TIMEOUT) and counts the connections it got."""
from __future__ import annotations

import socket
import threading

import pytest

TIMEOUT_S = 1  # MHA_HUB_TIMEOUT in these tests


class SilentHub:
    def __init__(self):
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(128)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self.connections: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:  # closed
                return
            self.connections.append(conn)  # kept open, never read from nor written to

    def close(self) -> None:
        self._sock.close()
        for conn in self.connections:
            conn.close()


@pytest.fixture
def silent_hub(monkeypatch, tmp_path):
    from huggingface_hub import constants

    from mha.weights import pretrained_files

    hub = SilentHub()
    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", hub.url + "/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("MHA_HUB_TIMEOUT", str(TIMEOUT_S))
    pretrained_files.forget_failures()
    yield hub
    pretrained_files.forget_failures()
    hub.close()
