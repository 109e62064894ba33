"""Bots against bots: many games at one table, and how each level did — `fabula arena`.

Every game has its own seed (drawn from the arena's seed), the original deck, and one new bot
per seat (its random generator derived from the game's seed). The levels of the ``bots`` list are
given to the seats in a fresh random order each game, so that no level always opens, and the
list is cycled when it is shorter than the table (``["hard", "random"]`` at 5 seats: three hard
bots, two random ones).

What is measured, per level (over every seat that level held):

- ``win_rate``: wins per seat-game. A shared victory counts as 1/k of a win for each of the k tied
  winners (in teams mode: for each of the k tied teams, and each member of a winning team holds
  that share), so in a game without teams the shares add up to exactly one win. The 95% interval
  is Wilson's score interval over the seat-games; the seats of one game are not independent (one
  player's win is the others' loss), so read it as a guide, not an exact bound;
- ``storyteller_scored_rate``: of the rounds that level told, how many the storyteller scored as
  storyteller (`RoundResult.storyteller_scored`);
- ``finder_accuracy``: of that level's votes, how many found the storyteller's card (not in party
  mode, where voting is not finding: ``None``);
- ``decoy_votes_per_round``: the tokens other players put on that level's cards in rounds where it
  played a card but was not the storyteller, per such round (votes on one's own card, allowed in
  party mode, do not count);
- ``score_mean``: the final score (in teams mode, the team's score).

Seats need not be built-in levels: ``agents`` maps further names to factories (`AgentFactory`), so
any `Bot` — a language model, a player of one's own — sits beside the built-in bots under its name.
``record`` is told one JSON object per round (`round_record`: seats and their names, storyteller,
clue, table, owners, votes, points, scores; the game's last round also its winners): the
``fabula arena --log`` format. ``trajectory`` (a `Trajectories`, such as
`fabula.research.trajectories.Trajectories`) records every move of every seat and is told one
JSON object per move — the ``fabula arena --trajectories`` format; the arena only hands it the
games (it knows nothing of the research env's observations).

Overall: the storyteller scored rate, and the share of rounds where every voter (all found) or
no voter (none found) found the storyteller's card — the two ways a storyteller scores nothing
outside party mode (``None`` in party mode).

``concurrency`` games are played at a time, in threads (for players that wait on a network: a
language model's endpoint). Each game depends on its own seed only, and the games are counted
(and recorded) in their order, so the figures are the same at any concurrency.

>>> report = run_arena("odyssey", 3, 2, ["random"], seed=1)
>>> report.games, report.levels["random"].seats
(2, 6)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from fabula.bots.base import Bot, make_bot
from fabula.cards.model import Card
from fabula.cards.original import original_deck
from fabula.rules import (
    Action,
    Game,
    Outcome,
    RoundResult,
    Ruleset,
)

from .playing import play_game


class MoveRecorder(Protocol):
    """The records of one game's moves: `move` before each move is applied, `scored` with each
    round's result, `finish` once the game is over."""

    def move(self, game: Game, seat: int, action: Action) -> None: ...

    def scored(self, result: RoundResult) -> None: ...

    def finish(self) -> list[dict[str, Any]]: ...


class Trajectories(Protocol):
    """Where the arena's per-move records come from and go: a recorder for each game, and the
    writer each record is told to (in the games' order)."""

    def recorder(
        self, number: int, game: Game, names: Sequence[str], options: Mapping[str, Any] | None, cards: Sequence[Card]
    ) -> MoveRecorder:
        """The recorder of game ``number`` (from 1), dealt as ``game`` with ``options`` from
        ``cards``; ``names[seat]``: who plays each seat."""
        ...

    def write(self, record: dict[str, Any]) -> object: ...


#: z for a two-sided 95% interval
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class SeatContext:
    """What an `AgentFactory` is told about the seat it makes a player for."""

    #: the game's number in the arena, from 1
    game: int
    seat: int
    #: derived from the game's seed: the player's own randomness, so a run replays
    rng: random.Random
    #: the table's cards by id (titles, descriptions, tags)
    cards: Mapping[str, Card]
    #: the language of the built-in bots' clues
    language: str


#: Makes the player of one seat for one game.
AgentFactory = Callable[[SeatContext], Bot]


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion (``successes`` may be fractional).

    >>> low, high = wilson_interval(5, 10)
    >>> round(low, 3), round(high, 3)
    (0.237, 0.763)
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p) / trials + z2 / (4 * trials * trials))) / denominator
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def seat_levels(bots: Sequence[str], players: int) -> list[str]:
    """One level per seat: ``bots`` cycled to ``players`` entries (before the per-game shuffle).

    >>> seat_levels(["hard", "random"], 5)
    ['hard', 'random', 'hard', 'random', 'hard']
    """
    if not bots:
        raise ValueError("name at least one bot level")
    return [bots[i % len(bots)] for i in range(players)]


@dataclass
class _Tally:
    """Running counts for one level."""

    seats: int = 0
    wins: float = 0.0
    score_total: int = 0
    told: int = 0
    told_scored: int = 0
    votes: int = 0
    found: int = 0
    decoy_rounds: int = 0
    decoy_votes: int = 0

    def stats(self, party: bool) -> LevelStats:
        """The level's figures (``party``: no finding to measure)."""
        low, high = wilson_interval(self.wins, self.seats)
        return LevelStats(
            seats=self.seats,
            wins=round(self.wins, 4),
            win_rate=round(self.wins / self.seats, 4),
            win_rate_low=round(low, 4),
            win_rate_high=round(high, 4),
            storyteller_rounds=self.told,
            storyteller_scored_rate=_rate(self.told_scored, self.told),
            votes=self.votes,
            finder_accuracy=None if party else _rate(self.found, self.votes),
            decoy_rounds=self.decoy_rounds,
            decoy_votes_per_round=_rate(self.decoy_votes, self.decoy_rounds),
            score_mean=round(self.score_total / self.seats, 3),
        )


@dataclass
class _Overall:
    """Running counts over every round."""

    rounds: int = 0
    scored: int = 0
    all_found: int = 0
    none_found: int = 0

    def add(self, result: RoundResult) -> None:
        found, voters = len(result.finders), len(result.voters)
        self.rounds += 1
        self.scored += result.storyteller_scored
        self.all_found += found == voters
        self.none_found += found == 0


@dataclass(frozen=True)
class LevelStats:
    """One level's figures over the arena (``None``: nothing to measure, e.g. never told a story)."""

    seats: int
    wins: float
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    storyteller_rounds: int
    storyteller_scored_rate: float | None
    votes: int
    finder_accuracy: float | None
    decoy_rounds: int
    decoy_votes_per_round: float | None
    score_mean: float


@dataclass(frozen=True)
class ArenaReport:
    """The figures of `run_arena`; ``to_json`` is what ``fabula arena --json`` prints."""

    mode: str
    players: int
    bots: tuple[str, ...]
    seed: int
    games: int
    seconds: float
    rounds: int
    levels: dict[str, LevelStats]
    storyteller_scored_rate: float
    #: rounds where every voter found the storyteller's card (None in party mode)
    all_found_rate: float | None
    #: rounds where no voter found it (None in party mode)
    none_found_rate: float | None
    #: the two together: rounds the storyteller lost to a clue too plain or too obscure
    all_or_none_found_rate: float | None
    options: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "players": self.players,
            "bots": list(self.bots),
            "seed": self.seed,
            "options": self.options,
            "games": self.games,
            "seconds": self.seconds,
            "rounds": self.rounds,
            "levels": {level: vars(stats).copy() for level, stats in self.levels.items()},
            "storyteller_scored_rate": self.storyteller_scored_rate,
            "all_found_rate": self.all_found_rate,
            "none_found_rate": self.none_found_rate,
            "all_or_none_found_rate": self.all_or_none_found_rate,
        }


def _rate(part: float, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _round_of(tallies: Sequence[_Tally], result: RoundResult, party: bool) -> None:
    """Add one round's facts to the tallies of the levels at its seats (``tallies[seat]``)."""
    storyteller = result.storyteller
    teller = tallies[storyteller]
    teller.told += 1
    teller.told_scored += result.storyteller_scored
    owners = result.owners
    drawn = [0] * len(tallies)
    for voter, slots in enumerate(result.votes):
        for slot in slots:
            owner = owners[slot - 1]
            if owner != voter:
                drawn[owner] += 1
    for seat in set(owners):
        if seat != storyteller:
            tallies[seat].decoy_rounds += 1
            tallies[seat].decoy_votes += drawn[seat]
    if not party:
        finders = set(result.finders)
        for voter in result.voters:
            tallies[voter].votes += 1
            tallies[voter].found += voter in finders


def _game_of(tallies: Sequence[_Tally], outcome: Outcome) -> None:
    """Add one game's outcome to the tallies of the levels at its seats (``tallies[seat]``)."""
    # A shared victory: 1/k of a win for each of the k tied players (or teams, whose members
    # each hold their team's share).
    shares = len(outcome.winning_teams if outcome.winning_teams is not None else outcome.winners)
    winners = set(outcome.winners)
    for seat, tally in enumerate(tallies):
        tally.seats += 1
        tally.score_total += outcome.scores[seat]
        if seat in winners:
            tally.wins += 1 / shares


def round_record(number: int, game: Game, names: Sequence[str], result: RoundResult) -> dict[str, Any]:
    """One line of ``fabula arena --log``: game ``number`` (from 1) and its seed, the mode, each
    seat's player (``names[seat]``), and the round's `RoundResult` (storyteller, clue,
    storyteller_card, table, owners, votes, red, voters, finders, points, scores,
    storyteller_scored; not the points' reasons)."""
    found: dict[str, Any] = {
        "game": number,
        "seed": game.seed,
        "mode": game.mode,
        "players": game.seats,
        "seats": [{"seat": seat, "agent": name} for seat, name in enumerate(names)],
    }
    found.update(result.to_json())
    del found["reasons"]
    return found


@dataclass(frozen=True, slots=True)
class _Played:
    """One game played to its end, not yet counted: its number, the levels at its seats, its
    rounds' results in order."""

    number: int
    game: Game
    order: list[str]
    results: list[RoundResult]
    #: the records of its moves (`Trajectories`), when asked for
    moves: list[dict[str, Any]]


@dataclass
class _Arena:
    """One run of `run_arena`: what its games share (the table asked for, the deck, who plays),
    and the running counts of every level and of every round."""

    mode: str
    players: int
    options: Mapping[str, Any] | None
    #: each seat's level, before the per-game shuffle (`seat_levels`)
    levels: Sequence[str]
    deck: tuple[Card, ...]
    language: str
    agents: Mapping[str, AgentFactory]
    record: Callable[[dict[str, Any]], object] | None
    party: bool
    trajectory: Trajectories | None = None
    overall: _Overall = field(default_factory=_Overall)
    by_id: dict[str, Card] = field(init=False)
    deck_ids: list[str] = field(init=False)
    tallies: dict[str, _Tally] = field(init=False)

    def __post_init__(self) -> None:
        self.by_id = {card.id: card for card in self.deck}
        self.deck_ids = [card.id for card in self.deck]
        self.tallies = {level: _Tally() for level in dict.fromkeys(self.levels)}

    def player(self, level: str, context: SeatContext) -> Bot:
        """A new player of ``level`` for one seat: an agent's, or a built-in bot."""
        if level in self.agents:
            return self.agents[level](context)
        return make_bot(level, context.rng, cards=self.by_id, language=self.language)

    def play(self, number: int, game_seed: int) -> _Played:
        """Game ``number`` (from 1): the levels shuffled over the seats, a new player at each,
        played to its end (nothing counted: `count` does; so games may be played at once)."""
        game = Game.new(self.mode, self.players, options=self.options, seed=game_seed, deck=self.deck_ids)
        order = list(self.levels)
        random.Random(f"{game_seed}/seats").shuffle(order)
        seat_bots = [
            self.player(
                level, SeatContext(number, seat, random.Random(f"{game_seed}/bot/{seat}"), self.by_id, self.language)
            )
            for seat, level in enumerate(order)
        ]
        results: list[RoundResult] = []
        rng = random.Random(f"{game_seed}/moves")
        if self.trajectory is None:
            play_game(game, seat_bots, order, rng, results.append)
            return _Played(number, game, order, results, [])
        moves = self.trajectory.recorder(number, game, order, self.options, self.deck)

        def scored(result: RoundResult) -> None:
            results.append(result)
            moves.scored(result)

        play_game(game, seat_bots, order, rng, scored, on_move=moves.move)
        return _Played(number, game, order, results, moves.finish())

    def count(self, played: _Played) -> None:
        """A played game's rounds counted (and recorded), then its outcome."""
        number, game, order = played.number, played.game, played.order
        seat_tallies = [self.tallies[level] for level in order]
        for result in played.results:
            _round_of(seat_tallies, result, self.party)
            self.overall.add(result)
        outcome = game.outcome
        assert outcome is not None
        if self.record is not None:
            records = [round_record(number, game, order, result) for result in played.results]
            if records:
                records[-1]["winners"] = list(outcome.winners)
            for line in records:
                self.record(line)
        if self.trajectory is not None:
            for move in played.moves:
                self.trajectory.write(move)
        _game_of(seat_tallies, outcome)


def run_arena(
    mode: str,
    players: int,
    games: int,
    bots: Sequence[str],
    *,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    cards: Sequence[Card] | None = None,
    language: str = "en",
    progress: Callable[[int], object] | None = None,
    agents: Mapping[str, AgentFactory] | None = None,
    record: Callable[[dict[str, Any]], object] | None = None,
    concurrency: int = 1,
    trajectory: Trajectories | None = None,
) -> ArenaReport:
    """Play ``games`` games of ``mode`` at ``players`` seats, levels ``bots`` (cycled over the seats,
    shuffled each game); ``cards`` defaults to the original deck; ``language``: of the bots' clues;
    ``progress`` is told after each game; ``agents``: names in ``bots`` that are not built-in levels,
    and the factory of each; ``record``: told `round_record` of every round, a game's rounds once
    that game is over (its last round then carries ``winners``); ``concurrency``: games played at a
    time (the same figures); ``trajectory``: records each move and is told the records
    (`Trajectories`), a game's moves once that game is over, after its rounds. Raises
    `fabula.rules.InvalidSetup` for a table the mode does not allow, `ValueError` for an unknown
    level, `ArenaError` (`IllegalBotMove`) when a bot breaks the rules, and what a player raises
    (the games under way are finished, the rest not started)."""
    if games < 1:
        raise ValueError("play at least one game")
    if concurrency < 1:
        raise ValueError("play at least one game at a time")
    levels = seat_levels(list(bots), players)
    party = Ruleset.create(mode, players, options).mode.clue_before_hand  # InvalidSetup for a bad table
    deck = tuple(cards) if cards is not None else original_deck().cards
    arena = _Arena(mode, players, options, levels, deck, language, agents or {}, record, party, trajectory)
    rng = random.Random(seed)
    seeds = [rng.getrandbits(63) for _ in range(games)]
    start = time.perf_counter()
    if concurrency == 1:
        for number, game_seed in enumerate(seeds, 1):
            arena.count(arena.play(number, game_seed))
            if progress is not None:
                progress(1)
    else:
        with ThreadPoolExecutor(concurrency, thread_name_prefix="arena") as pool:
            played: list[Future[_Played]] = [
                pool.submit(arena.play, number, game_seed) for number, game_seed in enumerate(seeds, 1)
            ]
            try:
                for future in played:
                    arena.count(future.result())
                    if progress is not None:
                        progress(1)
            except BaseException:
                for future in played:
                    future.cancel()  # (the games under way finish; no other starts)
                raise
    seconds = time.perf_counter() - start
    overall = arena.overall
    rounds = overall.rounds
    return ArenaReport(
        mode=mode,
        players=players,
        bots=tuple(bots),
        seed=seed,
        options=dict(options or {}),
        games=games,
        seconds=round(seconds, 3),
        rounds=rounds,
        levels={level: tally.stats(party) for level, tally in arena.tallies.items()},
        storyteller_scored_rate=round(overall.scored / rounds, 4),
        all_found_rate=None if party else _rate(overall.all_found, rounds),
        none_found_rate=None if party else _rate(overall.none_found, rounds),
        all_or_none_found_rate=None if party else _rate(overall.all_found + overall.none_found, rounds),
    )
