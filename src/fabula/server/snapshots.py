"""Snapshots of a room for each of its members: the shared part built once, then each member's
own seat's view (the snapshot types are the protocol's: `fabula.protocol.snapshot`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING

import msgspec

from fabula.protocol.audience import AudienceCount
from fabula.protocol.snapshot import AskView, MemberView, RoomSnapshot, You
from fabula.rules import Phase

if TYPE_CHECKING:
    from .room import Room


def of(
    room: Room,
    members: Iterable[int | None],
    present: Collection[int],
    stand_in_at: Mapping[int, float],
    audience: int = 0,
) -> dict[int | None, RoomSnapshot]:
    """The snapshot of each of ``members`` (None: a spectator): the part they share is built
    once. ``present``: the members connected now (bots always are); ``stand_in_at``: when a bot
    starts playing for each person who is gone; ``audience``: how many audience connections."""
    playing = room.status == "playing"
    wanted = list(dict.fromkeys(members))
    seats = {m: s for s, m in enumerate(room.seating)}
    game = room.game
    views = None if game is None else game.views({seats.get(m) for m in wanted if m is not None} | {None})
    voting = game is not None and game.phase is Phase.VOTE
    last = None if game is None else game.last_result
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
                stand_in_at=None if room.paused else stand_in_at.get(m.id),
                open=playing and (m.bot is not None or m.gone_for_good),
                fallback_moves=m.fallback_moves,
                not_answering=m.not_answering,
            )
            for m in room.members.values()
        ],
        pairs=room.full_pairs() if room.settings.mode == "teams" else None,
        you=None,
        games_started=room.games_started,
        takeovers=list(room.albums[-1].takeovers) if room.albums else [],
        deadline=room.deadline(),
        game=None if views is None else views[None],
        table_chat=room.table_chat_open(),
        paused=room.paused,
        time_left=room.time_left(),
        time_added=room.time_added,
        # numbers only: who voted for what stays unknown until the reveal (it would be table talk)
        audience=AudienceCount(count=audience, voted=room.crowd.voted_in(game.round) if voting and game else 0),
        crowd=None if last is None else room.crowd.result(last.round),
    )
    result: dict[int | None, RoomSnapshot] = {}
    for member in wanted:
        if member is None:
            result[member] = shared
            continue
        seat = seats.get(member)
        found = room.members.get(member)
        legal = (
            []
            if game is None or seat is None or not playing or room.paused
            else [a.to_json() for a in game.legal_actions(seat)]
        )
        you = You(member, seat, member == room.host, [] if found is None else list(found.stood_in), legal)
        asks = [AskView(a.number, a.name, a.colour, a.replaces) for a in room.asks.waiting()] if you.host else []
        result[member] = msgspec.structs.replace(
            shared, you=you, game=None if views is None else views[seat], asks=asks
        )
    return result
