"""The Dockerfile's HEALTHCHECK and CMD, run as written against a real server (no container engine is needed)."""
from __future__ import annotations

import re
import subprocess
import sys
import urllib.parse

from harness.server import ROOT, Server, free_port


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
    down = subprocess.run([sys.executable, "-c", healthcheck_command(free_port())], capture_output=True, timeout=30)
    assert down.returncode != 0


def test_the_images_command_serves_the_app_and_passes_its_healthcheck():
    """The Dockerfile's CMD, as written (only the port moved off 8501), from a checkout: the server it starts
    answers the HEALTHCHECK. The image itself is not built here (no container engine on these machines)."""
    import json
    import time

    text = (ROOT / "Dockerfile").read_text()
    cmd = json.loads(re.search(r"^CMD (\[.*\])\s*$", text, re.M).group(1))
    assert cmd[:3] == ["python", "-m", "mha.app.serve"] and "--server.port=8501" in cmd  # the hosted launcher
    port = free_port()
    argv = [sys.executable, *[a.replace("8501", str(port)) for a in cmd[1:]]]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with Server(url=f"http://127.0.0.1:{port}", proc=proc, script="the Dockerfile's CMD"):  # stopped on the way out
        deadline = time.monotonic() + 60
        while True:
            check = subprocess.run([sys.executable, "-c", healthcheck_command(port)], capture_output=True, timeout=30)
            if check.returncode == 0:
                break
            assert proc.poll() is None, f"the image's command exited with {proc.returncode}"
            assert time.monotonic() < deadline, "no healthy server within 60 s"
            time.sleep(0.5)
