"""The research examples run: a masked PPO trains on the vector observation and its policy plays in
the arena and the baselines; the baselines' table is made of what the games gave."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import importlib.util  # noqa: E402 - after the check that the extra is there
import os  # noqa: E402
import sys  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _training_libraries() -> None:
    """Skip without PyTorch and sb3-contrib (dev.py installs them: requirements-torch.txt pins
    PyTorch's CPU build for Python 3.11), except in CI, where their absence is a broken set-up."""
    missing = [name for name in ("torch", "sb3_contrib") if importlib.util.find_spec(name) is None]
    if not missing:
        return
    if os.environ.get("CI"):
        raise ImportError(f"CI installs the training example's libraries, yet {', '.join(missing)} cannot be imported")
    pytest.skip(
        f"{', '.join(missing)} not installed: `python3 dev.py test` installs them (PyTorch's CPU build"
        " is pinned for Python 3.11 only, requirements-torch.txt)"
    )


@pytest.fixture
def examples() -> Iterator[None]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        yield
    finally:
        sys.path.remove(str(EXAMPLES))


def _module(name: str) -> ModuleType:
    return importlib.import_module(name)


@pytest.mark.usefixtures("examples")
def test_the_baselines_table_is_made_of_the_games_played() -> None:
    baselines = _module("baselines")
    rows: list[dict[str, Any]] = baselines.main(["--games", "4", "--players", "random", "hard", "--json"])
    assert [row["player"] for row in rows] == ["random", "hard"]
    for row in rows:
        assert row["games"] == 4
        assert row["score_low"] <= row["score_mean"] <= row["score_high"]
        assert 0 <= row["win_low"] <= row["win_rate"] <= row["win_high"] <= 1
        assert row["storyteller_rounds"] == 4 * 2  # two storyteller turns each, four games
    assert "| random | 4 |" in baselines.table(rows)


@pytest.mark.usefixtures("examples")
def test_a_masked_ppo_trains_on_the_vector_observation_and_plays_in_the_arena(tmp_path: Path) -> None:
    _training_libraries()
    train_ppo = _module("train_ppo")
    table = train_ppo.LearnerSeat("random", seed=3)
    observation, _ = table.reset(seed=3)
    assert observation.shape == table.observation_space.shape
    assert table.action_masks().dtype == np.bool_
    assert table.action_masks().any()

    model = train_ppo.new_model("random", seed=3)
    before = [p.detach().numpy().copy() for p in model.policy.parameters()]
    model.learn(total_timesteps=model.n_steps)  # (one rollout, then the update)
    assert model.num_timesteps == model.n_steps
    assert any(  # the update moved the weights: PPO learned from the games it played
        not np.allclose(a, b.detach().numpy()) for a, b in zip(before, model.policy.parameters(), strict=True)
    )
    path = tmp_path / "ppo.zip"
    model.save(path)

    # every move the saved policy makes through the arena is legal there (the arena checks each)
    baselines = _module("baselines")
    row = baselines.evaluate("policy", 2, seed=5, agents={"policy": train_ppo.policy_player(path)})
    assert row["games"] == 2
    assert row["storyteller_rounds"] == 2 * 2
