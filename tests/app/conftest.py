"""Fixtures shared by tests/app/ files (helpers that open or read the app live in tests/harness/)."""
import pytest


@pytest.fixture
def offline(monkeypatch):
    """No pretrained model reaches the network, and no MHA_MODELS_DIR from the environment applies: a hub id stays
    on this machine. Files that need it for every test say ``pytestmark = pytest.mark.usefixtures("offline")``."""
    monkeypatch.setenv("MHA_ALLOW_DOWNLOADS", "0")
    monkeypatch.delenv("MHA_MODELS_DIR", raising=False)
