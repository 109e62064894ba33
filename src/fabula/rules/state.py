"""A game as the rest of Fabula may read it: the phases, and the read-only state API.

`GameState` names everything outside the engine reads of a game, `views` first: the public facts,
and each seat's own secrets through methods that take the seat, so a reader never reaches into the
engine's bookkeeping. `Game` is one (mypy checks it where a view is built); nothing here imports
the game, so the game can import its readers without an import cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol

from .modes import Ruleset
from .results import Outcome, RoundResult


class Phase(StrEnum):
    CLUE = "clue"
    PLAY = "play"
    VOTE = "vote"
    OVER = "over"


class GameState(Protocol):
    """A game at one moment, read-only. Properties are public once they exist; the methods and
    properties marked hidden are for the engine, tests and the seat itself, never for another
    client (a client gets `Game.view`)."""

    @property
    def rules(self) -> Ruleset: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def round(self) -> int: ...
    @property
    def storyteller(self) -> int: ...
    @property
    def clue(self) -> str | None: ...
    @property
    def scores(self) -> Sequence[int]: ...
    @property
    def last_result(self) -> RoundResult | None: ...
    @property
    def outcome(self) -> Outcome | None: ...
    @property
    def awaiting(self) -> tuple[int, ...]: ...
    @property
    def acted(self) -> tuple[int, ...]: ...
    @property
    def voters(self) -> tuple[int, ...]: ...
    @property
    def table(self) -> tuple[str, ...]: ...
    @property
    def owners(self) -> tuple[int, ...]:
        """Hidden until the reveal."""

    @property
    def red(self) -> int | None:
        """Hidden until the reveal."""

    @property
    def draw_pile_size(self) -> int: ...
    @property
    def discard_size(self) -> int: ...
    def hand(self, seat: int) -> tuple[str, ...]:
        """Hidden."""

    def cards_to_play(self, seat: int) -> int: ...
    def played(self, seat: int) -> tuple[str, ...] | None:
        """Hidden."""

    def vote(self, seat: int) -> tuple[int, ...] | None:
        """Hidden until the reveal."""

    def proposal(self, seat: int) -> str | None:
        """Hidden."""
