"""Fan-out: after every change to a room, each of its connections gets what its member may see.

A listener of `Rooms` (`fabula.server.rooms.Listener`): a chat line goes to those who may read it;
anything else sends every connection its member's new snapshot, computed and encoded once per
member — once for all the spectators and the audience, however many, who share the very same
bytes; a member no longer seated (removed, left, replaced) goes on watching, told why if it was
not their own doing.

The audience's numbers (how many watch, how many voted) change with every join, leave and
batch of votes: those changes send no state of their own at once, but one states' round at most
every `NUMBERS_SECONDS` (any other change takes the newest numbers along sooner).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fabula import protocol as p

from .connections import Connection
from .entries import AnyEntry, CrowdVoted, Joined, Left, Said
from .errors import RoomCode
from .live_room import LiveRoom

#: How long a change in the audience's numbers alone may wait to be shown.
NUMBERS_SECONDS = 1.0


def _to_watchers(
    watchers: list[Connection], state: bytes | None, standings: list[tuple[Connection, p.AudienceStanding]]
) -> None:
    """A state for the spectators and the audience, paced, then the standings that changed with it
    (each after its state: a connection's messages keep their order)."""
    if state is not None:
        for connection in watchers:
            connection.send_state(state, paced=True)
    for connection, standing in standings:
        connection.send(standing, paced=True)


class FanOut:
    def __init__(self, grace_seconds: Callable[[], float]) -> None:
        #: how long a gone person's seat waits before a bot plays it (shown as a countdown)
        self.grace_seconds = grace_seconds

    def entry(self, live: LiveRoom, entry: AnyEntry, *, here: bool) -> None:
        if isinstance(entry, Said):
            self.chat(live, entry)
            return
        if isinstance(entry, CrowdVoted) and here:  # (only the numbers change, or a result just shown)
            self.audience_changed(live)
            return
        self.let_go(live, entry)
        if here:  # (followed entries are sent once their batch is applied: `refreshed`)
            self.states(live)

    def refreshed(self, live: LiveRoom) -> None:
        self.states(live)

    async def loaded(self, live: LiveRoom) -> None:
        del live  # (nobody is connected to a room just loaded)

    def states(self, live: LiveRoom) -> None:
        """Every connection of the room gets its member's new snapshot, encoded once per member."""
        if live.numbers_due is not None:  # (these states carry the numbers)
            live.numbers_due.cancel()
            live.numbers_due = None
        presence = live.presence
        if not presence.connections:
            return
        room = live.room
        snapshots = room.snapshots(
            {c.member for c in presence.connections},
            presence.present(),
            presence.stand_in_at(room, self.grace_seconds()),
            presence.audience,
        )
        encoded = {member: p.encode(p.State(snapshot)) for member, snapshot in snapshots.items()}
        if None in encoded:
            live.spectator_state = (self._spectators_key(live), encoded[None])
        # The players' at once; the watchers' from the next turn of the event loop, and paced (a
        # slice of them a turn), so thousands of watchers queue behind the table, not the table
        # behind them: even queueing a state for 2,000 watchers took longer than a player's move.
        watchers = []
        for connection in presence.connections:
            if connection.member is not None:
                connection.send_state(encoded[connection.member])
            else:
                watchers.append(connection)
        standings = self.standings(live)
        if watchers or standings:
            asyncio.get_running_loop().call_soon(_to_watchers, watchers, encoded.get(None), standings)

    def state_for(self, live: LiveRoom, member: int | None) -> bytes:
        """The encoded state of one member (None: a spectator), for a connection that just said
        hello: a spectator's as last encoded if nothing it shows changed since (but the audience's
        numbers, which follow within `NUMBERS_SECONDS`), so that a crowd arriving costs no work."""
        if member is None and live.spectator_state is not None:
            made_of, encoded = live.spectator_state
            if made_of == self._spectators_key(live):
                return encoded
        presence, room = live.presence, live.room
        snapshot = room.snapshot(
            member, presence.present(), presence.stand_in_at(room, self.grace_seconds()), presence.audience
        )
        encoded = p.encode(p.State(snapshot))
        if member is None:
            live.spectator_state = (self._spectators_key(live), encoded)
        return encoded

    @staticmethod
    def _spectators_key(live: LiveRoom) -> object:
        """What a spectator's state is made of, but for the audience's numbers."""
        return (id(live.room), live.room.seq, live.presence.version)

    def audience_changed(self, live: LiveRoom) -> None:
        """The audience's numbers changed (a join, a leave, votes stored): everyone sees them within
        `NUMBERS_SECONDS`, in one states' round however many changes come meanwhile."""
        if live.numbers_due is None:
            live.numbers_due = asyncio.get_running_loop().call_later(NUMBERS_SECONDS, self._numbers, live)

    def _numbers(self, live: LiveRoom) -> None:
        live.numbers_due = None
        self.states(live)

    @staticmethod
    def standings(live: LiveRoom) -> list[tuple[Connection, p.AudienceStanding]]:
        """Each audience connection whose own standing changed (a reveal, a new round or game),
        with its new standing — looked at only when the room's crowd or round changed."""
        room = live.room
        round_number = 0 if room.game is None else room.game.round
        looked_at = (id(room.crowd), room.crowd.version, round_number)
        if live.standings_of == looked_at:
            return []
        live.standings_of = looked_at
        changed = []
        for connection in live.presence.connections:
            watcher = connection.watcher
            if watcher is None:
                continue
            standing = room.crowd.standing(watcher.id, watcher.name, round_number)
            if standing != connection.standing:
                connection.standing = standing
                changed.append((connection, p.AudienceStanding(standing)))
        return changed

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
