"""What a room may be set to: its rabbits, the lengths of names and chat lines, the timers' range,
the seats of each mode — and the check that a room's settings could make a game."""

from __future__ import annotations

import msgspec

from fabula.cards.library import NAME_PATTERN
from fabula.protocol.settings import TIMER_RANGE, RoomSettings
from fabula.rules import MODES, Options
from fabula.rules.errors import RuleCode, quoted

from .errors import RoomCode, RoomError

#: The twelve rabbits, in the order of the box.
COLOURS = (
    "red",
    "pink",
    "yellow",
    "blue",
    "dark green",
    "light green",
    "orange",
    "brown",
    "purple",
    "black",
    "white",
    "grey",
)
NAME_MAX = 24
CHAT_MAX = 300


def seat_range(mode: str) -> tuple[int, int]:
    """The fewest and most seats of ``mode``."""
    counts = MODES[mode].seat_counts
    return counts[0], counts[-1]


def check_settings(settings: RoomSettings, members: int) -> None:
    """`RoomError` unless ``settings`` could make a game (with ``members`` seated, if that fits)."""
    if settings.mode not in MODES:
        raise RoomError(
            RuleCode.UNKNOWN_MODE, f"Unknown mode {quoted(settings.mode)}; the modes are {', '.join(MODES)}."
        )
    low, high = seat_range(settings.mode)
    Options.resolve(settings.mode, min(max(members, low), high), settings.options)
    if not settings.decks or len(settings.decks) > 8:
        raise RoomError(RoomCode.BAD_DECKS, "Choose between one and eight decks.")
    for name in settings.decks:
        if not NAME_PATTERN.match(name):
            raise RoomError(
                RoomCode.BAD_DECKS, f"{quoted(name)} is not a deck name (lower-case letters, digits and dashes)."
            )
    for name, seconds in (
        ("clue", settings.clue_seconds),
        ("play", settings.play_seconds),
        ("vote", settings.vote_seconds),
    ):
        if seconds is not None and not TIMER_RANGE[0] <= seconds <= TIMER_RANGE[1]:
            raise RoomError(
                RoomCode.BAD_TIMER, f"The {name} timer is {TIMER_RANGE[0]} to {TIMER_RANGE[1]} seconds; got {seconds}."
            )


def settings_from(given: object) -> RoomSettings:
    """Room settings from a request body's ``settings`` (the defaults when absent)."""
    if given is None:
        return RoomSettings()
    try:
        return msgspec.convert(given, RoomSettings)
    except msgspec.ValidationError as error:
        raise RoomError(RoomCode.BAD_SETTINGS, f"Room settings: {error}") from None
