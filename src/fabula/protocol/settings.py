"""A room's settings as the host chooses them, and the other small values a room's state and its
log share."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

#: Phase timers: from ten seconds to an hour.
TIMER_RANGE = (10, 3600)
Seconds = Annotated[int, Meta(ge=TIMER_RANGE[0], le=TIMER_RANGE[1])]
_TIMER = "seconds the {phase} phase may last before bots move for the seats still awaited; null: no timer"


class RoomSettings(msgspec.Struct, forbid_unknown_fields=True):
    """What the host chooses before the start."""

    mode: Annotated[str, Meta(description="the game's mode (docs/modes.md)")] = "odyssey"
    options: Annotated[
        dict[str, Any],
        Meta(description="rule options, as `fabula.rules.Options` takes them (target_score, storyteller_cycles, …)"),
    ] = msgspec.field(default_factory=dict)
    decks: Annotated[list[str], Meta(description="the decks the game's cards come from, in order")] = msgspec.field(
        default_factory=lambda: ["fabula"]
    )
    clue_seconds: Annotated[Seconds | None, Meta(description=_TIMER.format(phase="clue"))] = None
    play_seconds: Annotated[Seconds | None, Meta(description=_TIMER.format(phase="play"))] = None
    vote_seconds: Annotated[Seconds | None, Meta(description=_TIMER.format(phase="vote"))] = None
    table_talk: Annotated[
        bool,
        Meta(
            description="a house rule: the table may chat from the clue until the reveal too (the rules ask for "
            "no discussion before the votes are final, so by default a line to the table is refused with "
            "`chat_closed` then; team chat in `teams` is always open)"
        ),
    ] = False
    extended_timers: Annotated[
        bool,
        Meta(
            description="every timer twice as long (an accessibility option: more time to read and write): the "
            "phase timers, the time the reveal adds to the next clue's, and a bot teammate's wait for its person"
        ),
    ] = False
    streamer: Annotated[
        bool,
        Meta(
            description="streamer mode: the room's screens show its code and QR code masked (the host reveals "
            "them with a tap), and a join over HTTP is a request (`POST /api/rooms/{code}/join` answers 202 "
            "with an `ask`) that waits until the host lets them in or refuses (`answer_ask`)"
        ),
    ] = False
    sound_clues: Annotated[
        bool,
        Meta(
            description="the storyteller may record a sound as the clue (up to 10 s, `POST "
            "/api/rooms/{code}/sounds`, then `sound` in the `tell`); bots cannot hear it"
        ),
    ] = True


#: Why a bot made a move for a person's seat: they were away, or their time ran out.
StandIn = Literal["away", "time"]
