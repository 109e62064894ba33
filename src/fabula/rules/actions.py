"""What a seat can do: small values (treat them as immutable), one type per kind of move.

Slots are numbered 1..n as on the table; cards are the deck's card ids.

>>> Vote(seat=4, slots=(2, 5)).to_json()
{'type': 'vote', 'seat': 4, 'slots': [2, 5]}
>>> action_from_json({"type": "play", "seat": 1, "cards": ["c07"]})
Play(seat=1, cards=('c07',))
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fabula.errors import CommonCode

from .errors import IllegalAction, quoted

#: A recorded sound's id, as the server makes them: letters, digits, ``-`` and ``_``, 8 to 64.
SOUND_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")


@dataclass(slots=True, unsafe_hash=True)
class Tell:
    """The storyteller chooses a card from the hand and gives a clue.

    In `Game.legal_actions` the clue is ``None`` (any clue will do): fill it with `with_clue`.
    ``aloud``: the clue was said at the table; ``clue`` is then optional (words for the album and
    the bots). Written to JSON only when true, so a typed clue's JSON is as it always was.
    ``sound``: the id of a sound the storyteller recorded for the clue (the server checks it is
    theirs, in this room); ``clue`` is then optional too. Written to JSON only when set.
    """

    seat: int
    card: str
    clue: str | None
    aloud: bool = False
    sound: str | None = None

    def with_clue(self, clue: str | None, *, aloud: bool = False, sound: str | None = None) -> Tell:
        return Tell(self.seat, self.card, clue, aloud, sound)

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"type": "tell", "seat": self.seat, "card": self.card, "clue": self.clue}
        return _said(found, self.aloud, self.sound)


@dataclass(slots=True, unsafe_hash=True)
class BlindClue:
    """Party: the storyteller gives the clue before looking at the hand."""

    seat: int
    clue: str | None
    #: said at the table, as `Tell.aloud`
    aloud: bool = False
    #: a recorded sound, as `Tell.sound`
    sound: str | None = None

    def with_clue(self, clue: str | None, *, aloud: bool = False, sound: str | None = None) -> BlindClue:
        return BlindClue(self.seat, clue, aloud, sound)

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"type": "blind_clue", "seat": self.seat, "clue": self.clue}
        return _said(found, self.aloud, self.sound)


def _said(found: dict[str, Any], aloud: bool, sound: str | None) -> dict[str, Any]:
    """A clue's JSON with ``aloud`` and ``sound`` only when they say something (a typed clue's
    JSON is as it always was)."""
    if aloud:
        found["aloud"] = True
    if sound is not None:
        found["sound"] = sound
    return found


@dataclass(slots=True, unsafe_hash=True)
class Play:
    """Put one card (two in a 3-player game) face down for the clue; replaces an earlier play."""

    seat: int
    cards: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "play", "seat": self.seat, "cards": list(self.cards)}


@dataclass(slots=True, unsafe_hash=True)
class Propose:
    """Teams: offer to play this card for the team; the teammate sees an offer, never the card."""

    seat: int
    card: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "propose", "seat": self.seat, "card": self.card}


@dataclass(slots=True, unsafe_hash=True)
class Vote:
    """Put voting tokens on slots: one, or with two tokens (7+ players) one or two."""

    seat: int
    slots: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "vote", "seat": self.seat, "slots": list(self.slots)}


@dataclass(slots=True, unsafe_hash=True)
class PlaceRed:
    """Party: the storyteller puts the red token on a slot."""

    seat: int
    slot: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "red", "seat": self.seat, "slot": self.slot}


Action = Tell | BlindClue | Play | Propose | Vote | PlaceRed


def _integer(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise IllegalAction(CommonCode.MALFORMED, f"{key!r} must be an integer; got {quoted(value)}.")


def _text(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if isinstance(value, str):
        return value
    raise IllegalAction(CommonCode.MALFORMED, f"{key!r} must be a string; got {quoted(value)}.")


def _clue(obj: dict[str, Any]) -> str | None:
    """A clue, or None as `Game.legal_actions` writes it (any clue will do; `apply` wants one)."""
    return None if obj.get("clue") is None else _text(obj, "clue")


def _aloud(obj: dict[str, Any]) -> bool:
    """Whether the clue was said aloud (absent: it was typed)."""
    value = obj.get("aloud", False)
    if isinstance(value, bool):
        return value
    raise IllegalAction(CommonCode.MALFORMED, f"'aloud' must be true or false; got {quoted(value)}.")


def _sound(obj: dict[str, Any]) -> str | None:
    """The id of the clue's recorded sound, if it has one (its form is `SOUND_ID`)."""
    value = obj.get("sound")
    if value is None or (isinstance(value, str) and SOUND_ID.fullmatch(value)):
        return value
    raise IllegalAction(CommonCode.MALFORMED, f"'sound' must be a sound's id; got {quoted(value)}.")


def _list(obj: dict[str, Any], key: str, kind: type) -> tuple[Any, ...]:
    value = obj.get(key)
    if isinstance(value, list) and all(isinstance(v, kind) and not isinstance(v, bool) for v in value):
        return tuple(value)
    raise IllegalAction(CommonCode.MALFORMED, f"{key!r} must be a list of {kind.__name__}; got {quoted(value)}.")


def action_from_json(obj: Any) -> Action:
    """Decode an action written by ``to_json``; raise `IllegalAction` (``malformed``) otherwise."""
    if not isinstance(obj, dict):
        raise IllegalAction(CommonCode.MALFORMED, f"An action is a JSON object; got {quoted(obj)}.")
    kind = obj.get("type")
    seat = _integer(obj, "seat")
    if kind == "tell":
        return Tell(seat, _text(obj, "card"), _clue(obj), _aloud(obj), _sound(obj))
    if kind == "blind_clue":
        return BlindClue(seat, _clue(obj), _aloud(obj), _sound(obj))
    if kind == "play":
        return Play(seat, _list(obj, "cards", str))
    if kind == "propose":
        return Propose(seat, _text(obj, "card"))
    if kind == "vote":
        return Vote(seat, _list(obj, "slots", int))
    if kind == "red":
        return PlaceRed(seat, _integer(obj, "slot"))
    raise IllegalAction(CommonCode.MALFORMED, f"Unknown action type {kind!r}.")
