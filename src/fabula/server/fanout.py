"""Fan-out: after every change to a room, each of its connections gets what its member may see.

A listener of `Rooms` (`fabula.server.rooms.Listener`): a chat line goes to those who may read it;
anything else sends every connection its member's new snapshot, computed and encoded once per
member — once for all the spectators and the audience, however many, who share the very same
bytes; a member no longer seated (removed, left, replaced) goes on watching, told why if it was
not their own doing.

The audience's numbers (how many watch, how many voted) change with every join, leave and
batch of votes: those changes send no state of their own at once, but one states' round at most
every `NUMBERS_SECONDS` (any other change takes the newest numbers along sooner). And a large
crowd gets the changes of a burst together: its states go out at most once every `crowd_gap`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fabula import protocol as p

from .connections import PACED_PER_TURN, Connection
from .entries import AnyEntry, CrowdVoted, Joined, Left, Said
from .errors import RoomCode
from .live_room import LiveRoom

#: How long a change in the audience's numbers alone may wait to be shown.
NUMBERS_SECONDS = 1.0

#: How many audience standings `CrowdDelivery` looks at in one turn of the event loop at most
#: (of which `PACED_PER_TURN` sent, those that changed).
LOOKED_PER_TURN = 8 * PACED_PER_TURN

#: A crowd's states go out at most once every this many seconds per watcher (`crowd_gap`).
GAP_PER_WATCHER = 30e-6
#: ... and never further apart than this.
MAX_GAP = 0.5


def crowd_gap(watchers: int) -> float:
    """How long after a state began going to a room's ``watchers`` the next may begin: the
    changes that come meanwhile go out together, as the newest state.

    A state costs each watcher a send, and a room's changes come in bursts (five players play
    within a second): at 10,000 watchers every change sent to all kept both cores of the machine
    busy, and the players' moves waited behind it (docs/deploy.md, *The audience*). A table
    watched by a TV and a few friends is not held back (a millisecond); 2,000 watchers get a
    state at most every 0.06 s, 10,000 every 0.3 s.

    >>> [round(crowd_gap(watchers), 3) for watchers in (3, 2_000, 10_000, 50_000)]
    [0.0, 0.06, 0.3, 0.5]
    """
    return min(MAX_GAP, watchers * GAP_PER_WATCHER)


class CrowdDelivery:
    """The newest state on its way to a room's spectators and audience: `PACED_PER_TURN`
    connections a turn of the event loop; then, after a change that may have moved them (a
    reveal, a new round), each audience member's standing where it changed, as many a turn.
    Between two turns the loop reads its sockets, so a move that arrives meanwhile waits for a
    slice, not for thousands of sends.

    A newer state that comes before this one has reached everyone takes its place (`newer`): the
    rest of the way gets the newer one, and those the older one reached get it on another way
    round, `crowd_gap` after this one began — the changes of a burst go out as one. A newer
    state that comes while the standings are looked at begins a delivery of its own (`supersede`),
    `crowd_gap` after this one began too.

    The state reaches the whole crowd before anyone's standing: the table is what everyone looks
    at, and at 10,000 watchers the standings looked at along with it held the last watchers'
    state back by their whole cost (docs/deploy.md, *The audience*)."""

    def __init__(self, live: LiveRoom, state: bytes | None, *, standings: bool, not_before: float = 0.0) -> None:
        self.live, self.state, self.standings = live, state, standings
        #: the connections to go to, taken at the first turn of each way round (relayed ones
        #: first: `_take`)
        self._watchers: list[Connection] | None = None
        self._at = 0
        #: when this way round began (the loop's clock), and whether a newer state came meanwhile
        self._began: float | None = None
        self._again = False
        #: the audience members whose standing an older delivery had not looked at yet
        self._owed: list[Connection] = []
        #: the audience members whose standing this one looks at, once the state has gone to all
        self._looking: list[Connection] | None = None
        self._looked = 0
        loop = asyncio.get_running_loop()
        self._handle: asyncio.Handle | None = (
            loop.call_at(not_before, self._step) if not_before > loop.time() else loop.call_soon(self._step)
        )

    @property
    def sending_state(self) -> bool:
        """Whether the state has not reached everyone yet (waiting to begin, or on its way)."""
        return self._handle is not None and self._looking is None

    @property
    def done(self) -> bool:
        """Whether nothing is left to do: the state everywhere, the standings looked at."""
        return self._handle is None

    def next_begins(self) -> float:
        """When a state after this one may begin (the loop's clock)."""
        if self._began is None or self._watchers is None:
            return 0.0
        return self._began + crowd_gap(len(self._watchers))

    def newer(self, state: bytes | None, *, standings: bool) -> None:
        """A newer ``state`` (None: the same) takes this one's place while it is `sending_state`."""
        if state is not None:
            self.state = state
            if self._watchers is not None:  # (some have the older one)
                self._again = True
        self.standings = self.standings or standings

    def supersede(self, newer: CrowdDelivery) -> None:
        """``newer`` goes to everyone: this one stops here (the standings it still owed, ``newer``
        looks at)."""
        if self._handle is None:
            return
        self._handle.cancel()
        self._handle = None
        # (only called once the state is everywhere: while it is on its way a newer one takes its place)
        assert self._looking is not None
        if not newer.standings:
            newer._owed = self._looking[self._looked :]

    def _take(self) -> list[Connection]:
        presence = self.live.presence
        if not presence.watched:
            return []
        # a relayed connection's message is a list entry here, and the same message to all of them
        # crosses the peer link as one frame if they are sent in one turn: they go first, together
        relayed, own = presence.watchers()
        return relayed + own

    def _step(self) -> None:
        loop = asyncio.get_running_loop()
        if self._looking is None:
            if self._watchers is None:
                self._watchers, self._at, self._began = self._take(), 0, loop.time()
            if self.state is None or not self._send_state():
                if self._again:  # (a newer state came on the way: to those who have an older one)
                    due = self.next_begins()
                    self._again, self._watchers = False, None
                    self._handle = loop.call_at(due, self._step)
                    return
                self._looking = [c for c in self._watchers if c.watcher is not None] if self.standings else self._owed
        else:
            self._look_at_standings()
        if self._looking is not None and self._looked >= len(self._looking):
            self._handle = None
        else:
            self._handle = loop.call_soon(self._step)

    def _send_state(self) -> bool:
        """The state to the next slice of watchers (but those who have it); whether some are left."""
        assert self._watchers is not None
        assert self.state is not None
        watchers, at, state = self._watchers, self._at, self.state
        sent = 0
        while at < len(watchers) and sent < PACED_PER_TURN:
            connection = watchers[at]
            at += 1
            if connection.outbox.closed or connection.shown is state:
                continue
            if not connection.outbox.relayed:
                sent += 1
            connection.send_state(state)
        self._at = at
        return at < len(watchers)

    def _look_at_standings(self) -> None:
        """The next slice of standings: `PACED_PER_TURN` sent at most, and a few times as many
        looked at (one that did not change costs no send)."""
        assert self._looking is not None
        looking, at = self._looking, self._looked
        room = self.live.room
        crowd, round_number = room.crowd, 0 if room.game is None else room.game.round
        sent = looked = 0
        while at < len(looking) and sent < PACED_PER_TURN and looked < LOOKED_PER_TURN:
            connection = looking[at]
            at += 1
            looked += 1
            watcher = connection.watcher
            if connection.outbox.closed or watcher is None:
                continue
            standing = crowd.standing(watcher.id, watcher.name, round_number)
            if standing != connection.standing:
                connection.standing = standing
                connection.send(p.AudienceStanding(standing))
                sent += 1
        self._looked = at


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
        # A move's own path walks the seated connections only, a handful: three walks over every
        # connection, all before the mover's ack, took this from 1.1 ms a change to 3 (p50; 10 at
        # most) with 2,000 watching.
        members: set[int | None] = {*presence.members_here(), None} if presence.watched else {*presence.members_here()}
        snapshots = room.snapshots(
            members, presence.present(), presence.stand_in_at(room, self.grace_seconds()), presence.audience
        )
        encoded = {member: p.encode(p.State(snapshot)) for member, snapshot in snapshots.items()}
        if None in encoded:
            live.spectator_state = (self._spectators_key(live), encoded[None])
        for connection in presence.seated:
            connection.send_state(encoded[connection.member])
        # the watchers' from the next turn of the event loop on, a slice a turn
        standings = self.standings_due(live)
        if None in encoded or standings:
            under_way = live.crowd_delivery
            if under_way is not None and under_way.sending_state:
                under_way.newer(encoded.get(None), standings=standings)
                return
            not_before = 0.0 if under_way is None else under_way.next_begins()
            delivery = CrowdDelivery(live, encoded.get(None), standings=standings, not_before=not_before)
            if under_way is not None:
                under_way.supersede(delivery)
            live.crowd_delivery = delivery

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
    def standings_due(live: LiveRoom) -> bool:
        """Whether the audience's standings may have changed since they were last looked at (a
        reveal, a new round or game): then `CrowdDelivery` looks at each watcher's."""
        room = live.room
        round_number = 0 if room.game is None else room.game.round
        looked_at = (id(room.crowd), room.crowd.version, round_number)
        if live.standings_of == looked_at:
            return False
        live.standings_of = looked_at
        return True

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
        for connection in live.presence.let_go(gone):
            if kicked:
                connection.send(p.Error(None, RoomCode.REMOVED, "The host removed you from this room; you can watch."))
