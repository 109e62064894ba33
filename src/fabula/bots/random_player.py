"""The simplest legal player: a uniformly random choice among the legal actions."""

from __future__ import annotations

import random

from fabula.rules import Action, BlindClue, Game, Phase, Tell


def random_action(game: Game, seat: int, rng: random.Random) -> Action:
    """A uniformly random legal action of ``seat``; a clue is a random number."""
    action = rng.choice(game.legal_actions(seat))
    if type(action) is Tell or type(action) is BlindClue:
        return action.with_clue(f"clue {rng.randrange(1000)}")
    return action


def play_random_game(game: Game, rng: random.Random) -> Game:
    """Play ``game`` to its end, each move by a random awaited seat choosing a random action."""
    while game.phase is not Phase.OVER:
        awaiting = game.awaiting
        seat = awaiting[0] if len(awaiting) == 1 else rng.choice(awaiting)
        game.apply(random_action(game, seat, rng))
    return game
