"""Playing a game with bots, each move checked: what the arena (`fabula.bots.arena`) and the
simulations play with. A searching player (`SearchingBot`) is given a game its seat cannot tell
from the real one (`fabula.rules.resampling`), never the real game."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from fabula.bots.base import Bot
from fabula.rules import (
    Action,
    BlindClue,
    Game,
    IllegalAction,
    Phase,
    PlaceRed,
    Play,
    Propose,
    RoundResult,
    Tell,
    Vote,
    clean_clue,
)
from fabula.rules.events import RoundScored
from fabula.rules.resampling import resample

__all__ = [
    "MOVES_PER_SEAT_PER_ROUND",
    "ArenaError",
    "IllegalBotMove",
    "SearchingBot",
    "blank_clue",
    "checked_move",
    "play_game",
]

#: a round that takes more moves than this (per seat) is a bot that keeps changing its mind
MOVES_PER_SEAT_PER_ROUND = 50


class ArenaError(RuntimeError):
    """A bot broke the game: an illegal move, or a round that never ends."""


class IllegalBotMove(ArenaError):
    """A bot returned a move that is not among its seat's legal moves (a bug in that bot)."""

    def __init__(self, level: str, seat: int, move: object, reason: str, game: Game) -> None:
        self.level, self.seat, self.move, self.reason = level, seat, move, reason
        super().__init__(
            f"bot level {level!r} at seat {seat} made an illegal move: {move!r} "
            f"({reason}; {game.mode} with {game.seats} seats, seed {game.seed}, round {game.round}, "
            f"{game.phase.value} phase)"
        )


def blank_clue(action: Action) -> Action:
    """``action`` as `Game.legal_actions` lists it: a `Tell` or `BlindClue` with ``clue=None``."""
    if type(action) is Tell:
        return Tell(action.seat, action.card, None)
    if type(action) is BlindClue:
        return BlindClue(action.seat, None)
    return action


_ACTION_TYPES = (Tell, BlindClue, Play, Propose, Vote, PlaceRed)


class SearchingBot(Bot, Protocol):
    """A player that searches games (MCTS and the like): besides its seat's view it is given a
    game its seat cannot tell from the real one, its hidden part drawn anew
    (`fabula.rules.resampling`) — never the real game, whose hidden cards it would read."""

    rng: random.Random

    def search(self, sample: Game, seat: int, legal: Sequence[Action]) -> Action:
        """One of ``legal``, chosen by searching ``sample``."""
        ...


def checked_move(bot: Bot, level: str, game: Game, seat: int) -> Action:
    """Ask ``bot`` (of ``level``) for ``seat``'s move; `IllegalBotMove` unless it is legal now."""
    legal = game.legal_actions(seat)
    move: object
    if hasattr(bot, "search"):  # (not isinstance: a runtime protocol check costs more than a random bot's move)
        searcher: SearchingBot = bot  # type: ignore[assignment]
        move = searcher.search(resample(game, seat, searcher.rng), seat, legal)
    else:
        move = bot.choose(game.view(seat).to_json(), legal)
    if not isinstance(move, _ACTION_TYPES):
        raise IllegalBotMove(level, seat, move, "not an action", game)
    if move.seat != seat:
        raise IllegalBotMove(level, seat, move, f"a move for seat {move.seat}", game)
    if blank_clue(move) not in legal:
        raise IllegalBotMove(level, seat, move, f"not one of the {len(legal)} legal moves", game)
    if isinstance(move, Tell | BlindClue):
        try:
            clean_clue(move.clue)
        except IllegalAction as error:
            raise IllegalBotMove(level, seat, move, f"{error.code}: {error.message}", game) from error
    return move


def play_game(
    game: Game,
    bots: Sequence[Bot],
    levels: Sequence[str],
    rng: random.Random,
    on_round: Callable[[RoundResult], object] | None = None,
    *,
    on_move: Callable[[Game, int, Action], object] | None = None,
) -> Game:
    """Play ``game`` to its end, seat s moving with ``bots[s]`` (of level ``levels[s]``); when several
    seats are awaited, ``rng`` picks which moves next. ``on_round`` is told each round's result;
    ``on_move`` each move, checked, before it is applied (the game, the seat, the move)."""
    limit = MOVES_PER_SEAT_PER_ROUND * game.seats
    moves, round_ = 0, game.round
    while game.phase is not Phase.OVER:
        awaiting = game.awaiting
        seat = awaiting[0] if len(awaiting) == 1 else awaiting[rng.randrange(len(awaiting))]
        move = checked_move(bots[seat], levels[seat], game, seat)
        if on_move is not None:
            on_move(game, seat, move)
        try:
            events = game.apply(move)
        except IllegalAction as error:  # checked_move lets nothing through that apply refuses
            raise IllegalBotMove(levels[seat], seat, move, f"{error.code}: {error.message}", game) from error
        if game.round != round_:
            moves, round_ = 0, game.round
        else:
            moves += 1
            if moves > limit:
                raise ArenaError(
                    f"round {round_} of a {game.mode} game with {game.seats} seats (seed {game.seed}) took over "
                    f"{limit} moves: the bots keep changing their moves; the last was {move!r} by level "
                    f"{levels[seat]!r} at seat {seat}"
                )
        if on_round is not None:
            for event in events:
                if type(event) is RoundScored:
                    on_round(event.result)
    return game
