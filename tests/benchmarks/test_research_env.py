"""benchmarks/research_env.py plays random episodes through the PettingZoo env beside bare
engine games and reports both rates and their ratio."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from ..research.extra import require_extra

require_extra()

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_a_short_research_env_run() -> None:
    sys.path.insert(0, str(BENCHMARKS))
    research_env = importlib.import_module("research_env")
    figures = research_env.main(["--seconds=0.2", "--runs=1", "--players=4", '--options={"storyteller_cycles": 1}'])
    assert figures["engine_games_per_second"] > 0
    assert figures["env_episodes_per_second"] > 0
    assert figures["ratio"] == round(figures["engine_games_per_second"] / figures["env_episodes_per_second"], 2)
    # the same game either way: a round is a clue, three plays and three votes
    assert figures["engine_moves_per_game"] == figures["env_moves_per_episode"] == 28
    assert set(figures["microseconds_per_move"]) == {"engine", "capture", "texts", "mask"}
    # (which of the two is faster is the benchmark's to say, not a test's: one 0.2-s run each on a
    # shared machine once had the reading agent twice as fast)
    assert figures["env_reading_texts_episodes_per_second"] > 0
    assert all(spent > 0 for spent in figures["microseconds_per_move"].values())


def test_vector_mode_is_measured_beside_and_can_be_left_out() -> None:
    sys.path.insert(0, str(BENCHMARKS))
    research_env = importlib.import_module("research_env")
    short = ["--seconds=0.1", "--runs=1", "--players=4", '--options={"storyteller_cycles": 1}']
    figures = research_env.main(short)
    assert figures["vector_episodes_per_second"] > 0
    assert figures["ratio_vector"] == round(
        figures["engine_games_per_second"] / figures["vector_episodes_per_second"], 2
    )
    assert figures["vector_moves_per_episode"] == 28  # the same game as the engine's
    assert figures["vector_moves_per_second"] > 0
    assert figures["vector_microseconds_per_move"] > 0
    assert figures["vector_target"] == 3.0
    left_out = research_env.main([*short, "--no-vector"])
    assert not [name for name in left_out if "vector" in name]
