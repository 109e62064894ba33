"""Snapshots: what one member (or a spectator) may know of a room — the room's public part, and
their own seat's view of the game. Every state a client receives is one of these."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from fabula.rules.views import SeatView
from fabula.story import CrowdRound, TakeOver

from .audience import AudienceCount
from .settings import RoomSettings, StandIn


class MemberView(msgspec.Struct):
    """One member of the room, as everyone sees them."""

    member: Annotated[int, Meta(description="member number: joining order, never reused")]
    name: Annotated[str, Meta(description="display name")]
    colour: Annotated[str, Meta(description="the rabbit's colour")]
    bot: Annotated[
        str | None, Meta(description="the bot's level for a seat the host filled with a bot; null for a person")
    ]
    away: Annotated[
        bool,
        Meta(
            description="a person who left (or was kicked) during a game: a bot plays the seat until they say "
            "hello again"
        ),
    ]
    connected: Annotated[bool, Meta(description="whether the member has a connection open now (a bot always has)")]
    seat: Annotated[int | None, Meta(description="game seat (null before the first start)")]
    stand_in_at: Annotated[
        float | None,
        Meta(
            description="a person whose connection is gone: Unix time at which a bot starts playing for them "
            "when their move is awaited; null otherwise"
        ),
    ]
    open: Annotated[
        bool,
        Meta(
            description="during a game: this seat may be taken over by a newcomer (a bot's, or one left for "
            "good; `POST /api/rooms/{code}/join` with `replaces`)"
        ),
    ]
    fallback_moves: Annotated[
        int,
        Meta(
            description="a model bot (`bot` is `model:NAME`): its moves in this game that the server's fallback "
            "level made because its model gave no legal move in time; 0 for anyone else"
        ),
    ] = 0
    not_answering: Annotated[
        bool,
        Meta(
            description="a model bot whose model did not answer its last move (unreachable, or out of time): its "
            "seat plays as the fallback level until it answers again"
        ),
    ] = False


class AskView(msgspec.Struct):
    """Streamer mode: someone waiting for the host to let them in."""

    ask: Annotated[int, Meta(description="the request's number (`answer_ask`'s `ask`)")]
    name: Annotated[str, Meta(description="the name they asked to play as")]
    colour: Annotated[str, Meta(description="the rabbit they asked for (taking over a seat: the seat's)")]
    replaces: Annotated[
        int | None, Meta(description="during a game: the member whose seat they ask to take over; null: a new seat")
    ] = None


class StoodIn(msgspec.Struct, frozen=True):
    """A move a bot made for a person's seat."""

    round: Annotated[int, Meta(description="the round it was made in")]
    action: Annotated[dict[str, Any], Meta(description="the move, as `act` takes it")]
    because: Annotated[StandIn, Meta(description='`"away"` (the person was gone) or `"time"` (out of time)')]


class You(msgspec.Struct):
    """Who you are in the room."""

    member: Annotated[int, Meta(description="your member number")]
    seat: Annotated[int | None, Meta(description="your game seat (null before the start)")]
    host: Annotated[bool, Meta(description="whether you host")]
    stood_in: Annotated[
        list[StoodIn],
        Meta(description="the moves a bot made for your seat since your own last move (you were away, or out of time)"),
    ]
    legal: Annotated[
        list[dict[str, Any]],
        Meta(
            description="every move your seat may make now, as `act` takes it (a play or vote already made may "
            "be changed until the phase ends; a clue's text is yours to write): what `legal` answers, sent with "
            "each state so that a client need not ask"
        ),
    ] = msgspec.field(default_factory=list)


class RoomSnapshot(msgspec.Struct):
    """The room as one member (or a spectator) may see it: its public part, and their own seat's
    view of the game. Seats are numbered from 0 in the game's clockwise order; members in joining
    order; slots from 1."""

    code: Annotated[str, Meta(description="the room code")]
    seq: Annotated[
        int,
        Meta(
            description="how many entries the room's log holds; every change adds one. The `ack` of a change "
            "names its entry's number, so the first state showing it has `seq` = that number + 1"
        ),
    ]
    status: Annotated[str, Meta(description='`"lobby"`, `"playing"` or `"over"`')]
    settings: Annotated[
        RoomSettings,
        Meta(
            description="the room's settings as the host chose them (see `settings`); the options are as "
            "given — `game.options` has every option resolved"
        ),
    ]
    host: Annotated[int | None, Meta(description="the member who hosts; null when no person is left to host")]
    members: Annotated[list[MemberView], Meta(description="everyone in the room, in joining order")]
    pairs: Annotated[
        list[list[int]] | None,
        Meta(
            description="mode `teams`: who will sit together (the host's pairs, then the rest in joining "
            "order); null in other modes"
        ),
    ]
    you: Annotated[You | None, Meta(description="null for a spectator")]
    games_started: Annotated[int, Meta(description="games started in this room (a rematch counts)")]
    takeovers: Annotated[
        list[TakeOver],
        Meta(
            description="the seats of the current (or last) game taken over during it, in order (its album's "
            "`takeovers`): a round before a take-over names who played the seat then"
        ),
    ]
    deadline: Annotated[
        float | None,
        Meta(
            description="Unix time at which the current phase's timer runs out; null without a timer or a game, "
            "and while the game is paused"
        ),
    ]
    game: Annotated[SeatView | None, Meta(description="your seat's game view; null before the first start")]
    table_chat: Annotated[
        bool,
        Meta(
            description="whether a chat line to the whole table is taken now: false from the storyteller's clue "
            "until the round is scored, unless `settings.table_talk` (a `say` to the table is refused with "
            "`chat_closed` then); team chat is always open"
        ),
    ]

    paused: Annotated[
        bool,
        Meta(
            description="the host paused the game (`pause`): the timer stands still, no move is taken (an `act` "
            "is refused with `paused`, `you.legal` is empty) and no bot moves, until the host's `resume`"
        ),
    ] = False
    time_left: Annotated[
        float | None,
        Meta(
            description="while paused: the seconds the phase's timer has left, where it goes on from on `resume`; "
            "null otherwise"
        ),
    ] = None
    time_added: Annotated[
        int, Meta(description="the seconds the host added to the current phase's timer (`add_time`); 0 if none")
    ] = 0
    asks: Annotated[
        list[AskView],
        Meta(
            description="streamer mode, the host's state only: the requests to join waiting for their answer "
            "(`answer_ask`), oldest first; empty for everyone else"
        ),
    ] = msgspec.field(default_factory=list)
    audience: Annotated[
        AudienceCount,
        Meta(description="the room's audience (`hello` with `audience`): how many, and how many voted this round"),
    ] = msgspec.field(default_factory=AudienceCount)
    crowd: Annotated[
        CrowdRound | None,
        Meta(
            description="where the audience's votes went in the round `game.last_round` shows (its `round`); null "
            "before the first reveal or if no audience member voted in it. Never during the round's vote"
        ),
    ] = None

    def to_json(self) -> dict[str, Any]:
        """The snapshot as the JSON object a client receives."""
        # through the encoder, not to_builtins (which keeps tuples): exactly what is sent
        found: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(self))
        return found
