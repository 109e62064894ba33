"""The research extra stays optional: nothing outside fabula.research imports its packages, and
pyproject.toml declares them as the ``research`` extra only. (These run without the extra.)"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXTRA = ("gymnasium", "pettingzoo", "pyspiel", "open_spiel", "supersuit", "torch", "sb3_contrib", "stable_baselines3")

IMPORT_ALL = """
import importlib, pkgutil, sys
import fabula
for module in pkgutil.walk_packages(fabula.__path__, "fabula."):
    if not module.name.startswith("fabula.research"):
        importlib.import_module(module.name)
print(" ".join(sorted(name for name in sys.modules if name.split(".")[0] in {extra!r})))
"""


def test_no_module_outside_fabula_research_imports_the_extra() -> None:
    found = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL.format(extra=set(EXTRA))],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert found.stdout.strip() == ""


def test_the_extra_is_declared_and_installed_by_the_test_setup() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    research = project["optional-dependencies"]["research"]
    assert {requirement.split(">")[0].split("=")[0] for requirement in research} == {
        "gymnasium",
        "pettingzoo",
        "open-spiel",
        "supersuit",
    }
    assert {requirement.split(">")[0] for requirement in project["optional-dependencies"]["train"]} == {
        "sb3-contrib",
        "stable-baselines3",
    }
    assert not any(
        name in requirement
        for requirement in project["dependencies"]
        for name in ("gymnasium", "pettingzoo", "spiel", "supersuit", "sb3", "stable-baselines3", "torch")
    )
    assert ".[dev,research]" in (ROOT / "dev.py").read_text()
