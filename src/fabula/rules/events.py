"""What `Game.apply` reports. Events are public: none names a hidden card, owner or vote, so a
server may send them to every seat and spectator as they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .results import Outcome, RoundResult


@dataclass(slots=True, unsafe_hash=True)
class ClueGiven:
    """The clue, as shown; ``aloud``: said at the table (``clue`` is then the words typed for the
    album and the bots, maybe none); ``sound``: the id of the sound recorded for it, if any."""

    storyteller: int
    clue: str
    aloud: bool = False
    sound: str | None = None


@dataclass(slots=True, unsafe_hash=True)
class Played:
    """A seat put its card(s) face down; ``changed`` if it replaced an earlier play."""

    seat: int
    changed: bool


@dataclass(slots=True, unsafe_hash=True)
class Proposed:
    """Teams: a seat offered to play for its team."""

    seat: int


@dataclass(slots=True, unsafe_hash=True)
class Voted:
    seat: int
    changed: bool


@dataclass(slots=True, unsafe_hash=True)
class RedPlaced:
    seat: int
    changed: bool


@dataclass(slots=True, unsafe_hash=True)
class TableLaid:
    """Every card is in: the cards, shuffled, in slot order."""

    table: tuple[str, ...]


@dataclass(slots=True, unsafe_hash=True)
class RoundScored:
    result: RoundResult


@dataclass(slots=True, unsafe_hash=True)
class DeckReshuffled:
    """The discard pile became the new draw pile (under what was left of the old one)."""

    cards: int


@dataclass(slots=True, unsafe_hash=True)
class HandsPassed:
    """Party: every hand moved to the left neighbour."""


@dataclass(slots=True, unsafe_hash=True)
class RoundStarted:
    round: int
    storyteller: int


@dataclass(slots=True, unsafe_hash=True)
class GameEnded:
    outcome: Outcome


Event = (
    ClueGiven
    | Played
    | Proposed
    | Voted
    | RedPlaced
    | TableLaid
    | RoundScored
    | DeckReshuffled
    | HandsPassed
    | RoundStarted
    | GameEnded
)

_NAMES: dict[type, str] = {
    ClueGiven: "clue_given",
    Played: "played",
    Proposed: "proposed",
    Voted: "voted",
    RedPlaced: "red_placed",
    TableLaid: "table_laid",
    RoundScored: "round_scored",
    DeckReshuffled: "deck_reshuffled",
    HandsPassed: "hands_passed",
    RoundStarted: "round_started",
    GameEnded: "game_ended",
}


def event_to_json(event: Event) -> dict[str, Any]:
    """``{"type": name, ...fields}``, ready for a client."""
    out: dict[str, Any] = {"type": _NAMES[type(event)]}
    for name in event.__slots__:
        value = getattr(event, name)
        out[name] = value.to_json() if isinstance(value, RoundResult | Outcome) else value
    return out
