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

import msgspec

from .modes import Ruleset
from .results import Outcome, RoundResult


class Phase(StrEnum):
    CLUE = "clue"
    PLAY = "play"
    VOTE = "vote"
    OVER = "over"


# The phases as module constants, for code that reads them at every move: under CPython 3.11 a
# member read off its class (`Phase.PLAY`) costs ~95 ns, since `EnumType` defines `__getattr__` and
# that makes every attribute lookup on an enum class a Python-level call; a module global ~10 ns.
CLUE_PHASE, PLAY_PHASE, VOTE_PHASE, GAME_OVER = Phase.CLUE, Phase.PLAY, Phase.VOTE, Phase.OVER


class SeatSecrets(msgspec.Struct, frozen=True, gc=False):
    """What one seat knows of the game that the others may not, at one moment, as immutable
    values: the inputs of the seat's own part of its view (`views`), so that a reader may keep
    them and build the view later, whatever the game has done since.

    (A frozen `msgspec.Struct`, not a NamedTuple: one is made at every move of a research env, and
    its constructor, in C, costs 160 ns against 400 for a NamedTuple made with ``tuple.__new__``;
    ``gc=False``: it holds only values that cannot hold it, so the collector need not track it.)

    >>> from fabula.rules import Game
    >>> game = Game.new("odyssey", seats=4, seed=3)
    >>> secrets = game.secrets(game.storyteller)
    >>> secrets.hand == game.hand(game.storyteller), secrets.played, secrets.slots
    (True, None, ())
    """

    #: the seat's hand; ``None`` while it is kept from it (the party storyteller before the blind clue)
    hand: tuple[str, ...] | None
    #: how many cards it puts down this turn (0 outside the play phase)
    cards_to_play: int
    #: the cards it put down this turn, and the slots its tokens are on
    played: tuple[str, ...] | None
    vote: tuple[int, ...] | None
    #: party: the red token's slot if the seat is the storyteller, else ``None``
    red: int | None
    #: teams: the card it offered its teammate, and whether the teammate has offered one
    proposal: str | None
    teammate_proposed: bool
    #: the table slots (0-based) of its own cards, once the table is laid
    slots: tuple[int, ...]


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
    def aloud(self) -> bool: ...
    @property
    def sound(self) -> str | None: ...
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

    def secrets(self, seat: int) -> SeatSecrets:
        """Hidden: only for ``seat``'s own view."""
