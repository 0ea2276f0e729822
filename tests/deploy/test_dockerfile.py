"""The Dockerfile's defaults are a public server's (docs/security.md): read its ENV and USER as written."""
from __future__ import annotations

import re
from pathlib import Path

from mha.weights import pretrained_files

DOCKERFILE = Path(__file__).resolve().parents[2] / "Dockerfile"


def image_env() -> dict[str, str]:
    text = DOCKERFILE.read_text()
    block = re.search(r"^ENV (.*?)(?<!\\)\n(?!\s)", text, re.M | re.S).group(1)
    lines = [ln.strip().rstrip("\\").strip() for ln in block.splitlines()]
    return dict(ln.split("=", 1) for ln in lines if ln and not ln.startswith("#"))


def test_the_image_runs_a_public_server_as_its_own_user(monkeypatch):
    env = image_env()
    assert env["MHA_PUBLIC"] == "1" and float(env["MHA_HUB_TIMEOUT"]) > 0
    for name in ("MHA_MODELS_DIR", "MHA_ALLOW_DOWNLOADS", "MHA_ALLOWED_MODELS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    options = pretrained_files.server_options()
    assert options["public"] and not options["downloads"] and options["local_root"] is None
    assert set(options["allowed"]) == {c.id for c in pretrained_files.CHOICES}
    text = DOCKERFILE.read_text()
    user = text.index("\nUSER app")
    assert "useradd" in text and user < text.index("\nCMD ")  # the server runs as the image's own user, not root


def test_the_compose_file_and_the_proxy_name_the_same_replicas():
    """deploy/compose.yaml is not run here (no container engine): its replicas are the ones nginx proxies to, each
    public, limited and health-checked, and nginx gets the configuration tests/deploy runs."""
    import yaml

    deploy = DOCKERFILE.parent / "deploy"
    compose = yaml.safe_load((deploy / "compose.yaml").read_text())
    services = compose["services"]
    apps = sorted(name for name, svc in services.items() if "build" in svc)
    upstream = re.findall(r"^server (\S+):8501 ", (deploy / "nginx" / "mha-replicas.conf").read_text(), re.M)
    assert apps == sorted(upstream) and len(apps) >= 2
    for name in apps:
        svc = services[name]
        assert svc["environment"]["MHA_PUBLIC"] == "1" and svc["mem_limit"] and svc["healthcheck"]["test"]
        assert "/_stcore/health" in " ".join(svc["healthcheck"]["test"])
    mounts = " ".join(services["proxy"]["volumes"])
    assert "./nginx/mha.conf:" in mounts and "./nginx/mha-replicas.conf:/etc/nginx/mha-replicas.conf" in mounts
    assert set(services["proxy"]["depends_on"]) == set(apps)


def test_one_launcher_line_headless_by_itself(monkeypatch):
    """``python -m mha.app.serve`` is headless by itself, so the image's CMD and deploy/run_local.sh need not say it;
    the compose file runs the image's CMD rather than a copy of it."""
    import yaml

    from mha.app import internals, serve

    calls = []
    monkeypatch.setattr(internals, "limit_uploads_for_every_server", lambda: calls.append("limit"))
    monkeypatch.setattr(internals, "route_through_app_only", lambda: calls.append("route"))
    monkeypatch.setattr(internals, "run_streamlit", calls.append)
    serve.main(["--server.port=9", "--server.headless=false"])
    assert calls == ["limit", "route", ["run", str(serve.APP), "--server.headless=true", "--server.port=9",
                                        "--server.headless=false"]]  # the host's own options come last: they win
    cmd = re.search(r"^CMD (\[.*\])$", DOCKERFILE.read_text(), re.M).group(1)
    assert '"mha.app.serve"' in cmd and "headless" not in cmd
    compose = yaml.safe_load((DOCKERFILE.parent / "deploy" / "compose.yaml").read_text())
    assert all("command" not in svc for svc in compose["services"].values() if "build" in svc)
