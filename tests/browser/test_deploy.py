"""The Dockerfile's HEALTHCHECK command, run as written against a real server (no container engine is needed)."""
from __future__ import annotations

import re
import subprocess
import sys
import urllib.parse

from .conftest import ROOT, _free_port


def healthcheck_command(port: int) -> str:
    """The Python one-liner of the Dockerfile's HEALTHCHECK, aimed at ``port`` instead of the image's 8501."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    cmd = re.search(r'^HEALTHCHECK .*?\bCMD python -c "(.+)"\s*$', text, re.M)
    assert cmd, "no HEALTHCHECK ... CMD python -c \"...\" in the Dockerfile"
    assert "127.0.0.1:8501/_stcore/health" in cmd.group(1)
    return cmd.group(1).replace("127.0.0.1:8501", f"127.0.0.1:{port}")


def test_the_healthcheck_passes_on_a_running_app_and_fails_without_one(server):
    port = urllib.parse.urlsplit(server.url).port
    up = subprocess.run([sys.executable, "-c", healthcheck_command(port)], capture_output=True, timeout=30)
    assert up.returncode == 0, up.stderr.decode()
    down = subprocess.run([sys.executable, "-c", healthcheck_command(_free_port())], capture_output=True, timeout=30)
    assert down.returncode != 0
