"""The load generator's modules, imported by name as its processes import them (``benchmarks/`` on
the path)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def generator_module(name: str) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def websocket() -> ModuleType:
    return generator_module("load.websocket")


@pytest.fixture(scope="module")
def stamped() -> ModuleType:
    return generator_module("load.stamped")
