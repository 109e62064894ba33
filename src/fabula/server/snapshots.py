"""Snapshots: what one member (or a spectator) may know of a room — the room's public part, and
their own seat's view of the game. Every state a client receives is one of these."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .room import Room


def of(
    room: Room, members: Iterable[int | None], present: Collection[int], stand_in_at: Mapping[int, float]
) -> dict[int | None, dict[str, Any]]:
    """The snapshot of each of ``members`` (None: a spectator): the part they share is built
    once. ``present``: the members connected now (bots always are); ``stand_in_at``: when a bot
    starts playing for each person who is gone."""
    playing = room.status == "playing"
    wanted = list(dict.fromkeys(members))
    seats = {m: s for s, m in enumerate(room.seating)}
    game = room.game
    views = None if game is None else game.views({seats.get(m) for m in wanted if m is not None} | {None})
    shared = {
        "code": room.code,
        "seq": room.seq,
        "status": room.status,
        "settings": {
            "mode": room.settings.mode,
            "options": room.settings.options,
            "decks": room.settings.decks,
            "clue_seconds": room.settings.clue_seconds,
            "play_seconds": room.settings.play_seconds,
            "vote_seconds": room.settings.vote_seconds,
        },
        "host": room.host,
        "members": [
            {
                "member": m.id,
                "name": m.name,
                "colour": m.colour,
                "bot": m.bot,
                "away": m.away,
                "connected": m.bot is not None or m.id in present,
                "seat": seats.get(m.id),
                "stand_in_at": stand_in_at.get(m.id),
                "open": playing and (m.bot is not None or m.gone_for_good),
            }
            for m in room.members.values()
        ],
        "pairs": room.full_pairs() if room.settings.mode == "teams" else None,
        "you": None,
        "games_started": room.games_started,
        "deadline": room.deadline(),
        "game": None,
    }
    result: dict[int | None, dict[str, Any]] = {}
    for member in wanted:
        seat = None if member is None else seats.get(member)
        snapshot = dict(shared)
        if member is not None:
            found = room.members.get(member)
            snapshot["you"] = {
                "member": member,
                "seat": seat,
                "host": member == room.host,
                "stood_in": [] if found is None else list(found.stood_in),
            }
        snapshot["game"] = None if views is None else views[seat]
        result[member] = snapshot
    return result
