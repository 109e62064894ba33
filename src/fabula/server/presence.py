"""Presence: who of one room's members is here, now — one object per room (lila-ws's RoomCrowd).

None of it is in the room's log: a connection comes and goes without an entry (a member coming
back to a game they had left is an entry, `Returned`: that must survive a restart). What it decides
is who is shown connected, when a bot stands in for a person whose connection is gone (after the
grace period), and — with several processes — who is connected through another process, as that
process announces it (`fabula.server.cluster`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabula.store import SPECTATORS, Seen

from .connections import Connection
from .room import Room


@dataclass(eq=False)
class Presence:
    """The connections of one room in this process, and what follows from them and from the
    other processes' announcements."""

    #: this process's connections to the room (spectators' too)
    connections: set[Connection] = field(default_factory=set)
    #: those of ``connections`` that hold a seat (``member`` set): what a move's own path walks,
    #: a handful however large the crowd
    seated: set[Connection] = field(default_factory=set)
    #: since when each member has had no connection (members absent from the dict are connected),
    #: here or — with several processes — through any other
    gone_since: dict[int, float] = field(default_factory=dict)
    #: the members connected through other processes (always empty with one process)
    remote: frozenset[int] = frozenset()
    #: member → the language their client said hello in (kept by this process only)
    languages: dict[int, str] = field(default_factory=dict)
    #: since when nobody has been connected here
    idle_since: float = 0.0
    #: how many of ``connections`` are the audience's (`Connection.watcher`)
    audience: int = 0
    #: changes whenever who of the members is connected may have (what a spectator's state shows)
    version: int = 0
    #: `watchers`, kept until a connection comes, goes or loses its seat
    _watching: tuple[list[Connection], list[Connection]] | None = None

    # ------------------------------------------------------------------ reading

    def present(self) -> set[int]:
        """The members connected to this room, through this process or another."""
        here = self.members_here()
        return here | self.remote if self.remote else here

    def members_here(self) -> set[int]:
        """The members connected to this room through this process."""
        return {c.member for c in self.seated if c.member is not None}

    @property
    def watched(self) -> bool:
        """Whether a spectator or a member of the audience is connected here."""
        return len(self.seated) < len(self.connections)

    def watchers(self) -> tuple[list[Connection], list[Connection]]:
        """The connections here that watch (no seat): those relayed to this process, then its own.
        Kept between changes (never changed in place: a new pair is made) — a state for 10,000
        watchers walked and sorted all the room's connections each time, 7 % of the owner's time."""
        if self._watching is None:
            relayed = [c for c in self.connections if c.member is None and c.outbox.relayed]
            own = [c for c in self.connections if c.member is None and not c.outbox.relayed]
            self._watching = (relayed, own)
        return self._watching

    def connected_here(self, member: int) -> bool:
        return any(c.member == member for c in self.seated)

    def gone(self, member: int) -> bool:
        """Whether ``member`` has no connection anywhere."""
        return member in self.gone_since

    def at_the_table(self, room: Room, member: int) -> bool:
        """Whether ``member`` is a person who is here and has not left the game."""
        found = room.members[member]
        return found.bot is None and not found.away and member not in self.gone_since

    def stand_in_at(self, room: Room, grace: float) -> dict[int, float]:
        """When a bot starts playing for each person whose connection is gone (and who did not
        leave: for them it plays at once)."""
        members = room.members
        return {
            member: since + grace
            for member, since in self.gone_since.items()
            if member in members and members[member].bot is None and not members[member].away
        }

    def seen_here(self) -> list[Seen]:
        """What this process announces of this room to the others: who is connected through it.
        (A return to the table is in the log now, so the hello's seq, `Seen.since`, is not needed.)"""
        seen = [Seen(member, 0) for member in self.members_here()]
        return [*seen, Seen(SPECTATORS, 0)] if self.watched else seen

    # ------------------------------------------------------------------ changing

    def arrive(self, connection: Connection, language: str | None) -> bool:
        """``connection`` said hello; whether its member (if any) had no connection here, so that
        everyone should see their rabbit light up."""
        member = connection.member
        returning = member is not None and not self.connected_here(member)
        if connection.watcher is not None and connection not in self.connections:
            self.audience += 1
        self.connections.add(connection)
        self._watching = None
        if member is not None:
            self.seated.add(connection)
            self.version += 1
            if language is not None:
                self.languages[member] = language
            self.gone_since.pop(member, None)
        return returning

    def depart(self, connection: Connection, now: float) -> bool:
        """``connection`` closed; whether its member has no other connection here now."""
        if connection.watcher is not None and connection in self.connections:
            self.audience -= 1
        self.connections.discard(connection)
        self.seated.discard(connection)
        self._watching = None
        member = connection.member
        gone = member is not None and not self.connected_here(member)
        if member is not None:
            self.version += 1
        if gone and member not in self.remote:  # else still at the table, through another process
            assert member is not None
            self.gone_since[member] = now
        if not self.connections:
            self.idle_since = now
        return gone

    def joined(self, member: int, now: float) -> None:
        """A person took a seat over HTTP: gone until their connection says hello."""
        self.gone_since[member] = now
        self.version += 1

    def let_go(self, member: int) -> list[Connection]:
        """``member`` is no longer seated here (removed, left, replaced): their connections go on
        as spectators'; which they were."""
        unseated = [c for c in self.seated if c.member == member]
        for connection in unseated:
            connection.member = None
            self.seated.discard(connection)
        self._watching = None
        self.gone_since.pop(member, None)
        self.version += 1
        return unseated

    def elsewhere(self, room: Room, seen: list[Seen], now: float) -> bool:
        """What the other processes announce of this room now: who is connected through them;
        whether that changed. A member connected anywhere is not gone here."""
        remote = frozenset(s.member for s in seen if s.member != SPECTATORS)
        if remote == self.remote:
            return False
        here = self.members_here()
        for member_id in remote - self.remote:
            self.gone_since.pop(member_id, None)
        for member_id in self.remote - remote:
            if member_id not in here and member_id in room.members:
                self.gone_since[member_id] = now
        self.remote = remote
        self.version += 1
        return True
