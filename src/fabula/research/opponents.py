"""Opponents inside the research environments: ``env(..., opponents={...})`` and
``parallel_env(..., opponents={...})`` (`fabula.research.pettingzoo`) play the seats named here
themselves, whenever the table waits for them, so that a learner sees only its own turns.

An opponent is, for its seat (``"seat_1"`` …):

- **a built-in level by name** — ``"random"``, ``"easy"``, ``"normal"``, ``"hard"``
  (`fabula.bots.base.BOT_LEVELS`): a new bot every game, made as the arena makes it
  (`fabula.bots.base.make_bot`, the env's deck), its ``random.Random`` derived from the game's
  seed (``f"{seed}/bot/{seat}"``, as ``fabula arena`` derives it);
- **a bot object** — anything with the `fabula.bots.base.Bot` protocol's
  ``choose(view, legal) -> Action`` (a `RandomBot`, a `SemanticBot`, an `LLMAgent`, a player of
  one's own), or a `fabula.bots.playing.SearchingBot` (``search``: it is handed a resampled game,
  never the real one). It is used as it is, game after game; its randomness is its own;
- **an arena agent factory** — a callable of *one* argument, the arena's
  `fabula.bots.arena.AgentFactory` (``SeatContext -> Bot``: what
  `fabula.research.search.search_player` and `fabula.research.agents.agent_from_spec` make),
  called for a new player every game with a `SeatContext` whose ``rng`` is derived from the
  game's seed as a level's is (``game`` counts the env's games from 1);
- **a policy** — a callable of *two* arguments, ``policy(observation, agent) -> action``: the
  seat's observation exactly as the env gives a learner (text or vector, with its
  ``action_mask``) and the seat's name; it answers with a move of the env's action space (an id,
  or ``(id, clue)`` with free-text clues) — a frozen copy of a learner, say. Its randomness is
  its own.

A callable that takes both one and two arguments is a policy. A built-in level or a factory
replays with the env's seed; a bot object or a policy replays if its own randomness does.

An opponent's move is checked as the arena checks a bot's (bots) or as a learner's (policies);
an illegal one is a bug in that opponent, never the learner's doing: `OpponentError` names the
seat, whatever the env's ``illegal`` says, and so does a round the opponents never finish (over
`MOVES_PER_SEAT_PER_ROUND` moves a seat: bots that keep changing their offers); the env then
wants a `reset`.

>>> from fabula.research.pettingzoo import env
>>> aec = env("odyssey", 3, seed=1, clues=["Dream"], opponents={"seat_1": "random", "seat_2": "easy"})
>>> aec.possible_agents
['seat_0']
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

from fabula.bots.arena import AgentFactory, SeatContext
from fabula.bots.base import BOT_LEVELS, Bot, make_bot
from fabula.bots.playing import MOVES_PER_SEAT_PER_ROUND, ArenaError, checked_move
from fabula.cards.model import Card
from fabula.rules import IllegalAction
from fabula.rules.state import GAME_OVER

from .actions import ActionNotAvailable, next_seat
from .table import Table

__all__ = ["Opponent", "OpponentError", "Opponents", "Policy"]

#: A policy: the seat's observation (as the env gives a learner) and its name → a move of the env.
Policy = Callable[[Any, str], Any]
#: What may sit at an opponent's seat (module docstring).
Opponent = Union[str, Bot, AgentFactory, Policy]  # noqa: UP007 - Bot is a Protocol: no `|` at run time


class OpponentError(RuntimeError):
    """An opponent made a move that is not legal (a bug in that opponent, not the learner's)."""

    def __init__(self, agent: str, label: str, move: object, reason: str) -> None:
        self.agent, self.label, self.move, self.reason = agent, label, move, reason
        super().__init__(f"opponent {agent} ({label}) made an illegal move: {move!r} ({reason})")


def _arguments(call: Callable[..., Any]) -> set[int]:
    """How many positional arguments (of 1 and 2) ``call`` takes; both if it cannot be told."""
    try:
        signature = inspect.signature(call)
    except (TypeError, ValueError):  # (a builtin without a signature)
        return {1, 2}
    taken = set()
    for count in (1, 2):
        try:
            signature.bind(*[None] * count)
        except TypeError:
            continue
        taken.add(count)
    return taken


class _Seat:
    """One opponent seat: what sits there, and the player of the current game (a bot), if any."""

    def __init__(self, agent: str, seat: int, spec: object) -> None:
        self.agent, self.seat = agent, seat
        self.level: str | None = None
        self.factory: AgentFactory | None = None
        self.policy: Policy | None = None
        self.bot: Bot | None = None
        if isinstance(spec, str):
            if spec not in BOT_LEVELS:
                raise ValueError(
                    f"opponents[{agent!r}]: unknown bot level {spec!r}; the levels are {', '.join(BOT_LEVELS)}."
                )
            self.level, self.label = spec, spec
        elif isinstance(spec, type):
            raise ValueError(
                f"opponents[{agent!r}] is the class {spec.__name__}: give a bot object (an instance), a level,"
                " a factory (SeatContext -> Bot) or a policy (observation, agent) -> action."
            )
        elif hasattr(spec, "choose") or hasattr(spec, "search"):
            self.bot, self.label = spec, type(spec).__name__  # type: ignore[assignment]
        elif callable(spec):
            taken = _arguments(spec)
            self.label = getattr(spec, "__name__", type(spec).__name__)
            if 2 in taken:
                self.policy = spec
            elif 1 in taken:
                self.factory = spec
            else:
                raise ValueError(
                    f"opponents[{agent!r}]: {spec!r} takes neither one argument (a factory: SeatContext -> Bot)"
                    " nor two (a policy: observation, agent -> action)."
                )
        else:
            raise ValueError(
                f"opponents[{agent!r}]: {spec!r} is not a bot level, a bot (with choose), a factory or a policy."
            )

    def deal(self, game_seed: int, number: int, cards: Mapping[str, Card]) -> None:
        """A new player for a new game (a level's or a factory's), its rng derived from the game's seed."""
        if self.level is None and self.factory is None:
            return
        rng = random.Random(f"{game_seed}/bot/{self.seat}")
        if self.level is not None:
            self.bot = make_bot(self.level, rng, cards=cards)
        else:
            assert self.factory is not None
            self.bot = self.factory(SeatContext(number, self.seat, rng, cards, "en"))


class Opponents:
    """The opponents of one env (module docstring): who they are, and playing their moves."""

    def __init__(self, table: Table, opponents: Mapping[str, Opponent], cards: Sequence[Card]) -> None:
        unknown = [agent for agent in opponents if agent not in table.seat_of]
        if unknown:
            raise ValueError(f"opponents names no such seat: {unknown}; the seats are {table.agents}.")
        if len(opponents) == table.players:
            raise ValueError("opponents names every seat: leave at least one seat to the learner(s).")
        self.table = table
        self.by_seat = {
            table.seat_of[agent]: _Seat(agent, table.seat_of[agent], spec) for agent, spec in opponents.items()
        }
        #: the opponents' seats
        self.seats = frozenset(self.by_seat)
        #: the seats that are not opponents' (the env's agents), in seat order
        self.learners = [agent for agent in table.agents if agent not in opponents]
        self.cards = {card.id: card for card in cards}
        self.games = 0
        self._round, self._moves = 0, 0

    def deal(self) -> None:
        """A new game was dealt: new players for the levels and factories."""
        self.games += 1
        self._round, self._moves = 0, 0
        game_seed = self.table.game.seed
        for seat in self.by_seat.values():
            seat.deal(game_seed, self.games, self.cards)

    def move(self, seat: int) -> list[int] | None:
        """The opponent at ``seat`` moves (the table must wait for it); the points of the round it
        scored, by seat, if it scored one. `OpponentError` for an illegal move."""
        table, found = self.table, self.by_seat[seat]
        game = table.game
        self._count(found)
        if found.policy is not None:
            move = found.policy(table.observe(seat), found.agent)
            try:
                events = game.apply(table.check(seat, move))
            except (ActionNotAvailable, IllegalAction) as refusal:
                raise OpponentError(found.agent, found.label, move, str(refusal)) from refusal
        else:
            assert found.bot is not None
            try:
                action = checked_move(found.bot, found.label, game, seat)
                events = game.apply(action)
            except ArenaError as refusal:
                raise OpponentError(found.agent, found.label, getattr(refusal, "move", None), str(refusal)) from refusal
            except IllegalAction as refusal:  # (checked_move lets nothing through that apply refuses)
                raise OpponentError(found.agent, found.label, action, str(refusal)) from refusal
        return table.points(events)

    def _count(self, found: _Seat) -> None:
        """A round whose opponents' moves never end (a bot that keeps changing its mind) is an error."""
        game = self.table.game
        if game.round != self._round:
            self._round, self._moves = game.round, 0
        self._moves += 1
        if self._moves > MOVES_PER_SEAT_PER_ROUND * game.seats:
            raise OpponentError(
                found.agent, found.label, None, f"the opponents made over {self._moves - 1} moves in round {game.round}"
            )

    def play_turns(self, seat: int) -> tuple[int | None, list[int] | None]:
        """From ``seat`` on, one seat at a time as the AEC env asks them (`next_seat`), the
        opponents move until a learner's turn: that learner's seat (``None``: the game is over) and
        the points scored meanwhile, by seat (``None``: none)."""
        game, total = self.table.game, None
        while seat in self.seats:
            total = add_points(total, self.move(seat))
            if game.phase is GAME_OVER:
                return None, total
            seat = next_seat(game, seat)
        return seat, total

    def settle(self) -> list[int] | None:
        """After the learners' moves of a parallel step (or at reset): each opponent the table
        waits for moves once, in seat order, then the opponents move one at a time (`next_seat`)
        for as long as the table waits for no learner. The points scored meanwhile, by seat."""
        game, total, last = self.table.game, None, -1
        phase = (game.round, game.phase)
        for seat in [seat for seat in game.awaiting if seat in self.seats]:
            if (game.round, game.phase) != phase:
                break
            if seat in game.awaiting:
                total, last = add_points(total, self.move(seat)), seat
        while game.phase is not GAME_OVER and self.seats.issuperset(game.awaiting):
            last = next_seat(game, last)
            total = add_points(total, self.move(last))
        return total


def add_points(total: list[int] | None, more: list[int] | None) -> list[int] | None:
    """Points by seat, added (``None``: none)."""
    if more is None:
        return total
    if total is None:
        return more
    return [a + b for a, b in zip(total, more, strict=True)]
