"""MCTS and IS-MCTS in the arena, and what a searching player is shown."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from fabula.bots.arena import run_arena
from fabula.bots.playing import checked_move
from fabula.research.search import search_agents, search_player
from fabula.rules import Action, Game, Tell


class Peeker:
    """A searching player that keeps every sample it is shown."""

    def __init__(self) -> None:
        self.rng = random.Random(1)
        self.samples: list[Game] = []

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:  # noqa: ARG002
        raise AssertionError("a searching player is asked to search")

    def search(self, sample: Game, seat: int, legal: Sequence[Action]) -> Action:  # noqa: ARG002
        self.samples.append(sample)
        move = legal[0]
        return move.with_clue("Dream") if isinstance(move, Tell) else move


def test_a_searching_player_is_shown_a_sample_never_the_real_game() -> None:
    game = Game.new("odyssey", 5, seed=3)
    seat = game.awaiting[0]
    peeker = Peeker()
    for _ in range(6):
        checked_move(peeker, "peeker", game, seat)
    assert all(sample is not game for sample in peeker.samples)
    assert all(sample.view(seat) == game.view(seat) for sample in peeker.samples)
    assert any(sample.hand((seat + 1) % 5) != game.hand((seat + 1) % 5) for sample in peeker.samples)


@pytest.mark.parametrize("kind", ["mcts", "ismcts"])
def test_each_search_plays_whole_arena_games_in_every_kind_of_table(kind: str) -> None:
    for mode, seats in (("odyssey", 3), ("odyssey", 7), ("party", 6), ("teams", 6)):
        report = run_arena(
            mode, seats, 1, [kind, "random"], seed=2, options={"storyteller_cycles": 1}, agents=search_agents(6)
        )
        assert report.levels[kind].seats == (seats + 1) // 2
        assert report.rounds == seats


def test_an_unknown_search_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown search"):
        search_player("alphazero")
