"""The simplest legal player: a uniformly random choice among the legal actions."""

from __future__ import annotations

import random
from collections.abc import Callable

from fabula.rules import Action, BlindClue, Game, Phase, RoundResult, Tell
from fabula.rules.events import RoundScored

_NEEDS_CLUE = frozenset({Tell, BlindClue})


def random_action(game: Game, seat: int, rng: random.Random) -> Action:
    """A uniformly random legal action of ``seat``; a clue is a random number."""
    actions = game.legal_actions(seat)
    # int(random() * n) rather than rng.choice: as uniform for these sizes, and 3x cheaper.
    action = actions[int(rng.random() * len(actions))]
    if type(action) in _NEEDS_CLUE:
        return action.with_clue(f"clue {int(rng.random() * 1000)}")  # type: ignore[union-attr]
    return action


def play_random_game(game: Game, rng: random.Random, on_round: Callable[[RoundResult], object] | None = None) -> Game:
    """Play ``game`` to its end, each move by a random awaited seat choosing a random action;
    ``on_round`` is told each round's result."""
    over, random, apply = Phase.OVER, rng.random, game.apply
    while game.phase is not over:
        awaiting = game.awaiting
        seat = awaiting[0] if len(awaiting) == 1 else awaiting[int(random() * len(awaiting))]
        events = apply(random_action(game, seat, rng))
        if on_round is not None and len(events) > 1:
            for event in events:
                if type(event) is RoundScored:
                    on_round(event.result)
    return game
