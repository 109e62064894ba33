"""Many random games in a row, and what they say about a mode: `fabula simulate`."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from statistics import fmean
from typing import Any

from fabula.bots.random_player import play_random_game
from fabula.rules import Game, RoundResult


@dataclass(frozen=True)
class SimulationStats:
    """Figures over ``games`` random games. In teams mode winners and scores are per team."""

    mode: str
    players: int
    games: int
    seconds: float
    games_per_second: float
    rounds_mean: float
    #: share of rounds in which the storyteller scored as storyteller
    storyteller_scored_rate: float
    #: winners per game (more than one: a shared victory)
    winners_mean: float
    #: share of games won by more than one player (or team)
    tie_rate: float
    #: final score of a player (or team), averaged over everyone
    score_mean: float
    #: the winners' final score
    winning_score_mean: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def simulate(
    mode: str,
    players: int,
    games: int,
    *,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    progress: Callable[[int], object] | None = None,
) -> SimulationStats:
    """Play ``games`` games with random legal players; ``progress`` is told after each game."""
    rng = random.Random(seed)
    rounds: list[int] = []
    storyteller_scored: list[bool] = []
    winners: list[int] = []
    scores: list[float] = []
    winning: list[int] = []

    def count(result: RoundResult) -> None:
        storyteller_scored.append(result.storyteller_scored)

    start = time.perf_counter()
    for _ in range(games):
        game = play_random_game(Game.new(mode, players, options=options, seed=rng.getrandbits(63)), rng, count)
        outcome = game.outcome
        assert outcome is not None
        rounds.append(game.round)
        if outcome.winning_teams is not None and game.rules.teams is not None:
            winners.append(len(outcome.winning_teams))
            scores.extend(outcome.scores[first] for first, _ in game.rules.teams)
        else:
            winners.append(len(outcome.winners))
            scores.extend(outcome.scores)
        winning.append(outcome.winning_score)
        if progress is not None:
            progress(1)
    seconds = time.perf_counter() - start
    return SimulationStats(
        mode=mode,
        players=players,
        games=games,
        seconds=round(seconds, 3),
        games_per_second=round(games / seconds, 1) if seconds else 0.0,
        rounds_mean=round(fmean(rounds), 3),
        storyteller_scored_rate=round(fmean(storyteller_scored), 4),
        winners_mean=round(fmean(winners), 4),
        tie_rate=round(sum(w > 1 for w in winners) / games, 4),
        score_mean=round(fmean(scores), 3),
        winning_score_mean=round(fmean(winning), 3),
    )
