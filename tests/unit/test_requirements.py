"""The install files: one requirements.txt for a laptop, CI and a hosted service, with a CPU-only torch everywhere.

PyPI's Linux x86_64 torch wheel pulls several GB of CUDA libraries; requirements.txt must send that platform to
PyTorch's CPU index and pin the ``+cpu`` build, and leave every other platform on PyPI's (CPU-only) wheel.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import torch
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PLATFORMS = {  # the values of the markers that differ between the places the app is installed
    "linux-x86_64": {"sys_platform": "linux", "platform_machine": "x86_64"},
    "linux-aarch64": {"sys_platform": "linux", "platform_machine": "aarch64"},
    "macos-arm64": {"sys_platform": "darwin", "platform_machine": "arm64"},
    "windows-amd64": {"sys_platform": "win32", "platform_machine": "AMD64"},
}


def read_requirements(name: str) -> tuple[list[str], list[Requirement]]:
    """(option lines, requirements) of a requirements file, following ``-r`` includes."""
    options, reqs = [], []
    for raw in (ROOT / name).read_text().splitlines():
        line = raw.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-r "):
            more_options, more = read_requirements(line[3:].strip())
            options += more_options
            reqs += more
        elif line.startswith("-"):
            options.append(line)
        else:
            reqs.append(Requirement(line))
    return options, reqs


def torch_pins(platform: dict) -> list[str]:
    env = default_environment() | platform
    _, reqs = read_requirements("requirements.txt")
    return [str(r.specifier) for r in reqs if r.name == "torch" and (r.marker is None or r.marker.evaluate(env))]


def test_linux_x86_64_takes_the_cpu_build_from_pytorchs_cpu_index():
    options, _ = read_requirements("requirements.txt")
    assert f"--extra-index-url {CPU_INDEX}" in options, options
    assert torch_pins(PLATFORMS["linux-x86_64"]) == ["==2.13.0+cpu"]


@pytest.mark.parametrize("platform", ["linux-aarch64", "macos-arm64", "windows-amd64"])
def test_every_other_platform_takes_the_same_release_from_pypi(platform):
    assert torch_pins(PLATFORMS[platform]) == ["==2.13.0"]


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-test.txt"])
def test_every_package_is_pinned_to_one_version(name):
    _, reqs = read_requirements(name)
    assert reqs
    for r in reqs:
        specs = list(r.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{name}: {r} is not pinned with =="


def test_the_installed_torch_is_the_pinned_cpu_only_release():
    pins = torch_pins({})  # this machine's own markers
    assert len(pins) == 1
    assert Version(torch.__version__) in Requirement(f"torch{pins[0]}").specifier, (torch.__version__, pins)
    assert torch.version.cuda is None, f"torch {torch.__version__} is a CUDA build"


def test_the_dockerfile_installs_requirements_txt_and_checks_the_cpu_build():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\b", text, re.M)
    run = re.search(r"^RUN pip install -r (\S+)(.*?)(?:\n(?!\s)|\Z)", text, re.M | re.S)
    assert run and run.group(1) == "requirements.txt", "the image must install the same requirements.txt"
    assert "+cpu" in run.group(2), "the build must fail when torch is not the CPU build"
    assert re.search(r"^HEALTHCHECK\b.*?/_stcore/health", text, re.M | re.S)


def test_the_test_script_keeps_an_unreachable_cpu_index_cheap():
    """Where download.pytorch.org cannot be reached, pip's default five retries with growing pauses cost minutes
    per install; the test command limits them unless the caller chose otherwise."""
    script = (ROOT / "scripts" / "test.sh").read_text()
    assert re.search(r'^export PIP_RETRIES="\$\{PIP_RETRIES:-[01]\}"', script, re.M)
    install = next(line for line in script.splitlines() if "pip install" in line)
    assert "requirements-test.txt" in shlex.split(install)
