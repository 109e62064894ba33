"""Every move of a played game as the research environment would have shown it: the records of
``fabula arena --trajectories FILE``, for imitation learning and offline reinforcement learning.

One record (a JSON object) per move of every seat, in the order the moves were made:

- ``game``, ``seed``, ``mode``, ``players``, ``options``: the game (its number in the arena, its
  own seed: ``Game.new(mode, players, options=options, seed=seed)`` with the original deck deals
  it again);
- ``step`` (the move's number in the game, from 0), ``round``, ``seat``, ``agent`` (who played the
  seat), ``phase`` (``"clue"``, ``"play"`` or ``"vote"``);
- ``observation``: ``{"view": …, "cards": …}``, the texts the PettingZoo env gives the seat at that
  moment (`fabula.research.observations`, character for character);
- ``actions``: the size n of the action space (`ActionSpace` of the mode, seat count and
  options, clues as free text); ``legal``: the ids its ``action_mask`` allows, ascending;
- ``action``: the id of the move made; ``clue``: its clue for a tell or a blind clue (the id of a
  clue move names the card, the clue is free text beside it), else ``null``;
- ``reward``: the points the seat scored from this move to its next one — a round's points
  (`RoundResult.points`) go to each seat's last move before the round was scored, as the env's
  rewards reach an agent at its next turn (points before a seat's first move, if any, go to its
  first move). A seat's rewards add up to its final score;
- ``last``: the seat's last move of the game (its trajectory ends there); ``done``: the game is
  over after this move (the game's last record).

- ``replaces``: the move replaces one the seat made earlier in the phase — the party
  storyteller's vote or red token cast again, another offer to the teammate — which the engine
  allows and the env's mask never offers (`fabula.research.actions`); its ``action`` is then not
  among ``legal``. Only the ``random`` level makes such moves; to replay one, apply
  ``ActionSpace.decode(game, seat, action, clue)`` to the game directly.

>>> import random
>>> from fabula.bots.base import make_bot
>>> from fabula.bots.playing import play_game
>>> from fabula.rules import Game
>>> texts = CardTexts.of(None)
>>> game = Game.new("odyssey", 3, options={"storyteller_cycles": 1}, seed=4, deck=texts.ids)
>>> recorder = Trajectory(1, game, ["random"] * 3, texts)
>>> bots = [make_bot("random", random.Random(seat)) for seat in range(3)]
>>> _ = play_game(game, bots, ["random"] * 3, random.Random(0), recorder.scored, on_move=recorder.move)
>>> records = recorder.finish()
>>> len(records) == len(game.log)
True
>>> [sum(r["reward"] for r in records if r["seat"] == seat) for seat in range(3)] == game.scores
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fabula.cards.model import Card
from fabula.rules import Action, BlindClue, Game, RoundResult, Tell

from .actions import ActionSpace
from .observations import CardTexts, SeatObserver

__all__ = ["Trajectories", "Trajectory"]


class Trajectory:
    """The records of one game's moves (module docstring): `move` before each move is applied,
    `scored` with each round's result, `finish` once the game is over."""

    def __init__(
        self,
        number: int,
        game: Game,
        names: Sequence[str],
        texts: CardTexts,
        *,
        options: Mapping[str, Any] | None = None,
        space: ActionSpace | None = None,
    ) -> None:
        """Game ``number`` (from 1) of the arena, dealt as ``game``; ``names[seat]``: who plays each
        seat; ``texts``: the deck's card texts; ``options``: the options the game was dealt with;
        ``space``: the action space of the mode, seats and options with free-text clues (made
        when not given)."""
        self.space = space or ActionSpace.create(game.mode, game.seats, options, None)
        self.game = {
            "game": number,
            "seed": game.seed,
            "mode": game.mode,
            "players": game.seats,
            "options": dict(options or {}),
        }
        self.names = list(names)
        self.observer = SeatObserver(texts)
        self.records: list[dict[str, Any]] = []
        #: each seat's latest record (its index), and the points it scored before its first move
        self._latest: list[int | None] = [None] * game.seats
        self._early = [0] * game.seats

    def move(self, game: Game, seat: int, action: Action) -> None:
        """Record ``seat``'s ``action``, about to be applied to ``game``."""
        view, cards = self.observer(game, seat)
        space = self.space
        clue = action.clue if type(action) is Tell or type(action) is BlindClue else None
        legal, id = space.legal(game, seat), space.id_of(game, action)
        self._latest[seat] = len(self.records)
        self.records.append(
            {
                **self.game,
                "step": len(game.log),
                "round": game.round,
                "seat": seat,
                "agent": self.names[seat],
                "phase": game.phase.value,
                "observation": {"view": view, "cards": cards},
                "actions": space.n,
                "legal": list(legal),
                "action": id,
                "clue": clue,
                "replaces": id not in legal,
                "reward": self._early[seat],
                "last": False,
                "done": False,
            }
        )
        self._early[seat] = 0

    def scored(self, result: RoundResult) -> None:
        """A round was scored: each seat's points go to its latest move."""
        records = self.records
        for seat, points in enumerate(result.points):
            latest = self._latest[seat]
            if latest is None:
                self._early[seat] += points
            else:
                records[latest]["reward"] += points

    def finish(self) -> list[dict[str, Any]]:
        """The records, each seat's last move and the game's last marked."""
        records = self.records
        for latest in self._latest:
            if latest is not None:
                records[latest]["last"] = True
        if records:
            records[-1]["done"] = True
        return records


class Trajectories:
    """The arena's per-move records (`fabula.bots.arena.Trajectories`): a `Trajectory` for each
    game, each record told to ``write``. The card texts and the action space of a table are made
    once, at its first game.

    >>> from fabula.bots.arena import run_arena
    >>> records = []
    >>> _ = run_arena("odyssey", 3, 2, ["random"], seed=1, options={"storyteller_cycles": 1},
    ...               trajectory=Trajectories(records.append))
    >>> sorted({r["game"] for r in records}), sum(r["done"] for r in records)
    ([1, 2], 2)
    """

    def __init__(self, write: Callable[[dict[str, Any]], object]) -> None:
        self.write = write
        self._tables: dict[tuple[str, int, str, int], tuple[CardTexts, ActionSpace]] = {}

    def recorder(
        self, number: int, game: Game, names: Sequence[str], options: Mapping[str, Any] | None, cards: Sequence[Card]
    ) -> Trajectory:
        key = (game.mode, game.seats, repr(sorted((options or {}).items())), id(cards))
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = (CardTexts(cards), ActionSpace.create(game.mode, game.seats, options, None))
        texts, space = table
        return Trajectory(number, game, names, texts, options=options, space=space)
