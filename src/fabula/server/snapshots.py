"""Snapshots: what one member (or a spectator) may know of a room — the room's public part, and
their own seat's view of the game. Every state a client receives is one of these."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from msgspec import Meta

from fabula.rules.views import SeatView

from .entries import RoomSettings, StandIn

if TYPE_CHECKING:
    from .room import Room


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
    deadline: Annotated[
        float | None,
        Meta(description="Unix time at which the current phase's timer runs out; null without a timer or a game"),
    ]
    game: Annotated[SeatView | None, Meta(description="your seat's game view; null before the first start")]

    def to_json(self) -> dict[str, Any]:
        """The snapshot as the JSON object a client receives."""
        # through the encoder, not to_builtins (which keeps tuples): exactly what is sent
        found: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(self))
        return found


def of(
    room: Room, members: Iterable[int | None], present: Collection[int], stand_in_at: Mapping[int, float]
) -> dict[int | None, RoomSnapshot]:
    """The snapshot of each of ``members`` (None: a spectator): the part they share is built
    once. ``present``: the members connected now (bots always are); ``stand_in_at``: when a bot
    starts playing for each person who is gone."""
    playing = room.status == "playing"
    wanted = list(dict.fromkeys(members))
    seats = {m: s for s, m in enumerate(room.seating)}
    game = room.game
    views = None if game is None else game.views({seats.get(m) for m in wanted if m is not None} | {None})
    shared = RoomSnapshot(
        code=room.code,
        seq=room.seq,
        status=room.status,
        settings=room.settings,
        host=room.host,
        members=[
            MemberView(
                member=m.id,
                name=m.name,
                colour=m.colour,
                bot=m.bot,
                away=m.away,
                connected=m.bot is not None or m.id in present,
                seat=seats.get(m.id),
                stand_in_at=stand_in_at.get(m.id),
                open=playing and (m.bot is not None or m.gone_for_good),
            )
            for m in room.members.values()
        ],
        pairs=room.full_pairs() if room.settings.mode == "teams" else None,
        you=None,
        games_started=room.games_started,
        deadline=room.deadline(),
        game=None if views is None else views[None],
    )
    result: dict[int | None, RoomSnapshot] = {}
    for member in wanted:
        if member is None:
            result[member] = shared
            continue
        seat = seats.get(member)
        found = room.members.get(member)
        you = You(member, seat, member == room.host, [] if found is None else list(found.stood_in))
        result[member] = msgspec.structs.replace(shared, you=you, game=None if views is None else views[seat])
    return result
