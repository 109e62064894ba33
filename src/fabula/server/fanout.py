"""Fan-out: after every change to a room, each of its connections gets what its member may see.

A listener of `Rooms` (`fabula.server.rooms.Listener`): a chat line goes to those who may read it;
anything else sends every connection its member's new snapshot, computed once per member; a
member no longer seated (removed, left, replaced) goes on watching, told why if it was not their
own doing.
"""

from __future__ import annotations

from collections.abc import Callable

from fabula import protocol as p

from .entries import AnyEntry, Joined, Left, Said
from .errors import RoomCode
from .live_room import LiveRoom


class FanOut:
    def __init__(self, grace_seconds: Callable[[], float]) -> None:
        #: how long a gone person's seat waits before a bot plays it (shown as a countdown)
        self.grace_seconds = grace_seconds

    def entry(self, live: LiveRoom, entry: AnyEntry, *, here: bool) -> None:
        if isinstance(entry, Said):
            self.chat(live, entry)
            return
        self.let_go(live, entry)
        if here:  # (followed entries are sent once their batch is applied: `refreshed`)
            self.states(live)

    def refreshed(self, live: LiveRoom) -> None:
        self.states(live)

    async def loaded(self, live: LiveRoom) -> None:
        del live  # (nobody is connected to a room just loaded)

    def states(self, live: LiveRoom) -> None:
        """Every connection of the room gets its member's new snapshot."""
        presence = live.presence
        if not presence.connections:
            return
        room = live.room
        snapshots = room.snapshots(
            [c.member for c in presence.connections],
            presence.present(),
            presence.stand_in_at(room, self.grace_seconds()),
        )
        states = {member: p.State(snapshot) for member, snapshot in snapshots.items()}
        for connection in presence.connections:
            connection.send(states[connection.member])

    def state_for(self, live: LiveRoom, member: int | None) -> p.State:
        """The snapshot of one member (None: a spectator), for a connection that just said hello."""
        presence, room = live.presence, live.room
        return p.State(room.snapshot(member, presence.present(), presence.stand_in_at(room, self.grace_seconds())))

    @staticmethod
    def chat(live: LiveRoom, said: Said) -> None:
        """A line just applied to every connection that may read it: those the room counted as
        its readers when it applied it (not necessarily the newest line: a commit may have
        applied several entries before announcing them). A team line the room no longer keeps
        goes to nobody."""
        room = live.room
        line = p.ChatLine(said.member, room.name_of(said.member), said.text, said.team_only, said.at)
        readers: frozenset[int] | None = frozenset() if said.team_only else None
        for kept, audience in reversed(room.chat):
            if kept is said:
                readers = audience
                break
        for connection in live.presence.connections:
            if readers is None or connection.member in readers:
                connection.send(line)

    @staticmethod
    def chat_for(live: LiveRoom, member: int | None) -> list[p.ChatLine]:
        """The recent chat ``member`` may read."""
        room = live.room
        return [
            p.ChatLine(said.member, room.name_of(said.member), said.text, said.team_only, said.at)
            for said, readers in room.chat
            if readers is None or member in readers
        ]

    @staticmethod
    def let_go(live: LiveRoom, entry: AnyEntry) -> None:
        """After ``entry``, the connections of a member who is no longer seated here go on as
        spectators' — told why, if it was not their own doing."""
        if isinstance(entry, Left):
            gone, kicked = entry.member, entry.kicked
        elif isinstance(entry, Joined) and entry.replaces is not None:
            gone, kicked = entry.replaces, False
        else:
            return
        member = live.room.members.get(gone)
        if member is not None and member.token_hash:  # still theirs: a bot only stands in
            return
        for connection in live.presence.connections:
            if connection.member == gone:
                connection.member = None
                if kicked:
                    connection.send(
                        p.Error(None, RoomCode.REMOVED, "The host removed you from this room; you can watch.")
                    )
        live.presence.let_go(gone)
