"""benchmarks/load.py drives a real `fabula serve`, and the bare transport, over real sockets."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def load() -> ModuleType:
    # the generator processes import the module by name, so it must be importable as `load`
    sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("load")


def test_short_load_on_fabula(load: ModuleType) -> None:
    args = load.parse_args(
        [
            "--rooms=2",
            "--players=3",
            "--think=1",
            "--duration=2",
            "--warmup=1",
            "--no-pin",
            "--server-log-level=warning",
        ]
    )
    run = load.measure(args, "fabula", ["idle", "paced", "max"])
    figures = run.figures
    assert figures["connected"] == 6
    assert figures["games_started"] == 2
    assert figures["kib_per_idle_player"] > 0
    for phase in ("paced", "max"):
        found = figures[phase]
        assert found["errors"] == {}, phase
        assert found["actions"] > 0, phase
        # every acknowledged act in the window reached all three players of its room
        assert found["latency_samples"] > 0
        assert 0 < found["p50_ms"] <= found["p99_ms"] <= found["max_ms"] < 5000
        assert found["server_cpu_percent"] > 0
    assert figures["max"]["actions_per_second"] > figures["paced"]["actions_per_second"]


def test_transport_relays_to_the_room(load: ModuleType) -> None:
    args = load.parse_args(["--rooms=2", "--players=3", "--duration=1", "--warmup=0.5", "--no-pin"])
    found = load.measure(args, "transport", ["max"]).figures["max"]
    assert found["errors"] == {}
    assert found["actions"] > 0
    # each act: one state on each of the room's three connections
    assert found["states_per_second"] >= 2.5 * found["actions_per_second"]


def test_websocket_mask_matches_the_pure_python_one(load: ModuleType) -> None:
    data, mask = bytes(range(200)), b"\x01\x80\xfe\x7f"
    assert load._apply_mask(data, mask) == load._python_mask(data, mask)
    assert load._python_mask(load._python_mask(data, mask), mask) == data
