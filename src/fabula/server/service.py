"""The room service: the only writer of rooms. It turns requests into log entries, stores them
before anyone hears of them, and sends every connection of a room its own new snapshot.

    request → Room.apply(entry) (checks; refuses without a change) → store.append → every connection

Per room one asyncio lock makes that sequence atomic; a failed append rebuilds the room from the
store, so memory never runs ahead of what is durable.

Several processes (``--database`` and ``--redis``) may hold the same room. The store's unique
(room, seq) decides between them: an append that finds its seq taken rebuilds the room from the
store and tries the request again on the room as it now is. Every append is announced on the bus,
and `fabula.server.cluster` brings the other processes' copies up to date; scheduled entries
(timers, bots, absent players, host hand-off) are made by whichever process takes a lease first.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from fabula.bots.base import BOT_LEVELS
from fabula.cards.library import DeckError, DeckLibrary
from fabula.rules import Phase, Play, Propose, RulesError
from fabula.store import SPECTATORS, Bus, EventStore, Lease, LocalBus, Seen, SeqTaken, StoredEntry

from . import protocol as p
from .autoplay import STAND_IN_LEVEL, AutoPlayers, stand_in_language
from .backends import Backends
from .cluster import Cluster
from .config import Config
from .entries import (
    Acted,
    AnyEntry,
    Created,
    Ended,
    HostPassed,
    Joined,
    Left,
    RoomSettings,
    Said,
    SettingsChanged,
    StandIn,
    Started,
    TeamsSet,
    decode,
    encode,
)
from .metrics import Metrics
from .room import COLOURS, NAME_MAX, Room, RoomError

log = logging.getLogger("fabula.server")

#: Room codes avoid look-alikes: no 0/O, 1/I/L, no U/V.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ23456789"
CODE_LENGTH = 5
#: How often a request is tried on a room that other processes keep changing under it.
COMMIT_ATTEMPTS = 5
#: Seconds a process has, once it took the lease on a scheduled entry, to store it (a bot's
#: thinking included); if it dies first, another process makes the entry after this long.
LEASE_SECONDS = 5.0
#: A room counts toward its creator's address limit while someone is in it, and this long after.
IN_USE_SECONDS = 10 * 60
#: How long the answer to a create or join request is kept, to answer the same request again
#: (a double tap, a retry after a lost answer) with the same seat instead of a second one.
REQUEST_SECONDS = 10 * 60


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenBucket:
    """``rate`` events a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.stamp = float(burst), clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Outbox:
    """What a connection still has to send. A state snapshot replaces an unsent older one in its
    place (each is complete, and a state still comes before the ``ack`` sent after it), so a slow
    client gets the newest state, never a growing backlog."""

    def __init__(self) -> None:
        self._queue: deque[tuple[bool, bytes]] = deque()
        self._ready = asyncio.Event()
        self.closed = False

    def put(self, data: bytes, *, is_state: bool = False) -> None:
        if self.closed:
            return
        if is_state:
            for index, (queued_is_state, _) in enumerate(self._queue):
                if queued_is_state:
                    self._queue[index] = (True, data)
                    return
        self._queue.append((is_state, data))
        self._ready.set()

    def drain(self) -> list[bytes]:
        """Everything not sent yet (to flush it before closing)."""
        pending = [data for _, data in self._queue]
        self._queue.clear()
        return pending

    async def get(self) -> bytes:
        while not self._queue:
            self._ready.clear()
            await self._ready.wait()
        return self._queue.popleft()[1]


@dataclass(eq=False)
class Connection:
    """One WebSocket: a member's seat (``member`` set) or a spectator."""

    address: str
    bucket: TokenBucket
    chat_bucket: TokenBucket
    outbox: Outbox = field(default_factory=Outbox)
    code: str | None = None
    member: int | None = None
    greeted: bool = False

    def send(self, message: p.AnyServerMessage) -> None:
        self.outbox.put(p.encode(message), is_state=isinstance(message, p.State))


@dataclass(eq=False)
class LiveRoom:
    room: Room
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    #: since when each member has had no connection (members absent from the dict are connected),
    #: here or — with several processes — through any other
    gone_since: dict[int, float] = field(default_factory=dict)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    scheduler: asyncio.Task[None] | None = None
    created_by: str = ""
    idle_since: float = 0.0
    #: the members connected through other processes (always empty with one process)
    remote: frozenset[int] = frozenset()
    #: member → the room's seq when they last said hello (anywhere), and when they last left:
    #: a member who left the game is back at the table only if their hello came after
    back_at: dict[int, int] = field(default_factory=dict)
    #: member → the language their client said hello in (kept by this process only)
    languages: dict[int, str] = field(default_factory=dict)
    left_at: dict[int, int] = field(default_factory=dict)
    #: the newest seq another process announced; a task (`follower`) catches up to it
    behind: int = -1
    follower: asyncio.Task[None] | None = None

    def present(self) -> set[int]:
        """The members connected to this room, through this process or another."""
        here = {c.member for c in self.connections if c.member is not None}
        return here | self.remote if self.remote else here

    def seen_here(self) -> list[Seen]:
        """What this process announces of this room to the others."""
        members = {c.member for c in self.connections}
        return [
            Seen(SPECTATORS, 0) if member is None else Seen(member, self.back_at.get(member, 0)) for member in members
        ]


class RoomLimit(RoomError):
    """Too many rooms in use from one address; ``retry_after``: seconds until one frees, if known."""

    def __init__(self, code: str, message: str, retry_after: int | None) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class Seat:
    """What joining hands back: the member number and the secret that takes the seat."""

    code: str
    member: int
    token: str


class RoomService:
    def __init__(
        self,
        config: Config,
        library: DeckLibrary,
        metrics: Metrics,
        *,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        """The service for ``config``; `start` gives it its store and bus."""
        self.config, self.library, self.metrics, self.clock = config, library, metrics, clock
        self.rng = rng or random.SystemRandom()
        self.rooms: dict[str, LiveRoom] = {}
        self.connections_by_address: dict[str, int] = {}
        self.store: EventStore  # set by start
        self.bus: Bus = LocalBus()
        #: None with one process: every scheduled entry is this process's to make
        self.lease: Lease | None = None
        #: the part that keeps step with other processes; None with one process
        self.cluster: Cluster | None = None
        self.backends: Backends | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.autoplay = AutoPlayers(
            library, memory=config.bot_memory, memory_rounds=config.bot_memory_rounds, clock=clock
        )
        #: rooms being loaded from the store now (several processes), so that two requests share one load
        self._loading: dict[str, asyncio.Task[LiveRoom]] = {}
        #: (address, request id) → when, and the seat it made (see `once`)
        self._requests: dict[tuple[str, str], tuple[float, asyncio.Future[Seat]]] = {}

    # ------------------------------------------------------------------ life cycle

    async def start(self, backends: Backends) -> None:
        """Take ``backends`` (`stop` closes them) and start the idle sweeper.

        One process: every stored room is loaded now (its timers and bots resume). Several: a room
        is loaded when someone asks for it, and the cluster keeps it in step with the others."""
        self.backends = backends
        self.store, self.bus, self.lease = backends.store, backends.bus, backends.lease
        self.autoplay.store = backends.store
        await self.autoplay.recall()  # before the rooms: a finished game kept already is not learned twice
        if backends.presence is not None:
            self.cluster = Cluster(self, backends.bus, backends.presence)
            self.cluster.start()
        else:
            await self._load_every_room()
        self.metrics.rooms.set(len(self.rooms))
        self._sweeper = asyncio.create_task(self._sweep_forever())

    async def _load_every_room(self) -> None:
        now = self.clock()
        for code in await self.store.room_codes():
            try:
                replayed = self._replay(code, await self.store.load(code))
            except (RulesError, ValueError) as error:  # a damaged log must not stop the others
                log.error("room cannot be rebuilt", extra={"room": code, "error": str(error)})
                continue
            if replayed is None:  # created but its first entry never landed: never acknowledged
                await self.store.delete_room(code)
                continue
            room, left_at = replayed
            live = LiveRoom(room, idle_since=now, left_at=left_at)
            live.gone_since = dict.fromkeys(room.members, now)
            self.rooms[code] = live
            self._start_scheduler(live)
            self.autoplay.learn(room)  # a game that ended before a restart still teaches

    async def stop(self) -> None:
        if self.cluster is not None:
            await self.cluster.stop()
        tasks = [self._sweeper]
        for live in self.rooms.values():
            tasks += [live.scheduler, live.follower]
        for task in tasks:
            if task is not None:
                task.cancel()
        for task in tasks:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.autoplay.learned()  # a game that just ended reaches the store before it closes
        if self.backends is not None:
            await self.backends.close()

    async def _rebuild(self, code: str) -> Room | None:
        """Room ``code`` as its stored log makes it; None if nothing is stored."""
        replayed = self._replay(code, await self.store.load(code))
        return None if replayed is None else replayed[0]

    @staticmethod
    def _replay(code: str, stored: list[StoredEntry]) -> tuple[Room, dict[int, int]] | None:
        """The room its entries make, and the seq of each member's last leaving; None if none."""
        if not stored:
            return None
        room = Room(code)
        left_at: dict[int, int] = {}
        for item in stored:
            entry = decode(item.data)
            room.apply(entry)
            if isinstance(entry, Left):
                left_at[entry.member] = item.seq
        return room, left_at

    # ------------------------------------------------------------------ the one way a room changes

    async def commit(self, live: LiveRoom, make: AnyEntry | Callable[[Room], AnyEntry], *, retry: bool = True) -> int:
        """Apply the entry (or the entry ``make`` builds inside the room's lock, for one that
        depends on the room), store it, tell everyone; the entry's sequence number.
        `RulesError` (nothing changed) if the room refuses it.

        If another process stored an entry at that seq first, the room is rebuilt from the store
        and — with ``retry`` — the entry is made again on the room as it is now: checked again, so
        a move that is no longer legal gets its usual error; a client message id the other
        process has already stored gets that entry's seq, never a second entry. Scheduled entries
        are not made again (the host hand-off passes ``retry=False``; a bot's move refuses itself
        once the room changed): what is due is planned again from the new state instead."""
        async with live.lock:
            attempt = 0
            while True:
                room = live.room
                entry = make(room) if callable(make) else make
                if attempt and entry.client_id is not None:
                    done = room.client_ids.get((entry.by, entry.client_id))
                    if done is not None:  # made once already (through another process): not again
                        return done
                seq = room.seq
                room.apply(entry)
                try:
                    await self.store.append(room.code, seq, encode(entry), entry.at)
                except SeqTaken:
                    self.metrics.conflicts.inc()
                    await self._resync(live, seq)
                    attempt += 1
                    if retry and attempt < COMMIT_ATTEMPTS:
                        continue
                    raise RoomError(
                        "conflict", "Someone else changed the room at the same moment; try again."
                    ) from None
                except Exception:
                    # Memory ran ahead of the store: go back to what is durable.
                    rebuilt = await self._rebuild(room.code)
                    if rebuilt is not None:
                        live.room = rebuilt
                    log.exception("append failed", extra={"room": room.code})
                    raise RoomError("store_failed", "The server could not save that; try again.") from None
                break
            if isinstance(entry, Left):
                live.left_at[entry.member] = seq
            self.bus.publish(room.code, seq)
            self._publish(live, entry)
        return seq

    async def _resync(self, live: LiveRoom, since: int) -> None:
        """Rebuild ``live``'s room from the store after memory applied an entry the store refused
        at seq ``since``. The entries from ``since`` on are another process's: this process's
        connections hear of them as if they had been caught up."""
        code = live.room.code
        stored = await self.store.load(code)
        if not stored:  # deleted by another process (an idle sweep) in the meantime
            self.unload(code)
            raise RoomError("no_room", f"There is no room {code!r}; check the code.")
        replayed = self._replay(code, stored[:since])
        if replayed is None:  # pragma: no cover - an entry at `since` exists, so entry 0 does
            return
        live.room, live.left_at = replayed
        self._apply_stored(live, stored[since:])
        # Memory knew who came back to the table since they left; the log does not say it.
        for member, back in live.back_at.items():
            found = live.room.members.get(member)
            if found is not None and live.left_at.get(member, -1) < back:
                found.away = False
        self._send_states(live)
        live.wake.set()

    async def catch_up(self, live: LiveRoom) -> bool:
        """Apply what other processes appended to ``live``'s room since its seq and tell this
        process's connections; whether there was anything."""
        async with live.lock:
            code = live.room.code
            stored = await self.store.load(code, since=live.room.seq)
            if not stored:
                return False
            try:
                self._apply_stored(live, stored)
            except (RulesError, ValueError) as error:  # memory and the log disagree: the log wins
                log.error("catching up failed; rebuilding", extra={"room": code, "error": str(error)})
                await self._resync(live, live.room.seq)
            return True

    def _apply_stored(self, live: LiveRoom, stored: list[StoredEntry]) -> None:
        """Apply entries another process stored (from ``live.room.seq`` on) and send this
        process's connections what they would have got had the entries been made here."""
        room = live.room
        changed = False
        for item in stored:
            if item.seq < room.seq:  # had it already
                continue
            entry = decode(item.data)
            room.apply(entry)
            self.metrics.followed.inc()
            if isinstance(entry, Said):
                self._send_chat(live, entry)
                continue
            changed = True
            self._let_go(live, entry)
            if isinstance(entry, Left):
                live.left_at[entry.member] = item.seq
            elif isinstance(entry, Joined) and entry.bot is None and entry.member not in live.present():
                live.gone_since[entry.member] = self.clock()  # joined over HTTP; not connected yet
        if changed:
            self._send_states(live)
            live.wake.set()

    def seen_elsewhere(self, live: LiveRoom, seen: list[Seen]) -> None:
        """What the other processes announce of ``live``'s room now: who is connected through
        them, and since which hello. A member connected anywhere is not gone here; one who said
        hello after leaving the game is back at the table (as a hello here would make them)."""
        room = live.room
        remote = frozenset(s.member for s in seen if s.member != SPECTATORS)
        changed = remote != live.remote
        for s in seen:
            member = room.members.get(s.member)
            if member is None or s.since <= live.back_at.get(s.member, -1):
                continue
            live.back_at[s.member] = s.since
            if member.away and live.left_at.get(s.member, -1) < s.since:
                member.away = False
                changed = True
        if not changed:
            return
        here = {c.member for c in live.connections}
        now = self.clock()
        for member_id in remote - live.remote:
            live.gone_since.pop(member_id, None)
        for member_id in live.remote - remote:
            if member_id not in here and member_id in room.members:
                live.gone_since[member_id] = now
        live.remote = remote
        self._send_states(live)  # their rabbits light up or go grey here too
        live.wake.set()
        if self.cluster is not None:
            # someone went from another process — maybe with it, before it could announce its
            # last entry: ask the store
            self.cluster.follow(live, live.room.seq)

    def _publish(self, live: LiveRoom, entry: AnyEntry) -> None:
        room = live.room
        if isinstance(entry, Said):
            self._send_chat(live, entry)
            return
        self._let_go(live, entry)
        if isinstance(entry, Started):
            log.info("game started", extra={"room": room.code, "mode": room.settings.mode, "seats": len(room.seating)})
        elif isinstance(entry, Acted | Ended) and room.status == "over" and room.game is not None:
            log.info("game over", extra={"room": room.code, "rounds": room.game.round, "scores": room.game.scores})
            self.autoplay.learn(room)
        self._send_states(live)
        live.wake.set()  # the scheduler re-plans: a bot may be awaited now, or a timer started

    def _let_go(self, live: LiveRoom, entry: AnyEntry) -> None:
        """After ``entry``, the connections of a member who is no longer seated here (removed by
        the host, left the lobby, left for good, replaced) go on as spectators' — told why, if
        it was not their own doing."""
        if isinstance(entry, Left):
            gone, kicked = entry.member, entry.kicked
        elif isinstance(entry, Joined) and entry.replaces is not None:
            gone, kicked = entry.replaces, False
        else:
            return
        member = live.room.members.get(gone)
        if member is not None and member.token_hash:  # still theirs: a bot only stands in
            return
        for connection in live.connections:
            if connection.member == gone:
                connection.member = None
                if kicked:
                    connection.send(p.Error(None, "removed", "The host removed you from this room; you can watch."))
        live.gone_since.pop(gone, None)

    def _send_chat(self, live: LiveRoom, said: Said) -> None:
        """The line just applied (the room's newest) to every connection that may read it."""
        room = live.room
        line = p.ChatLine(said.member, room.name_of(said.member), said.text, said.team_only, said.at)
        readers = room.chat[-1][1]
        for connection in live.connections:
            if readers is None or connection.member in readers:
                connection.send(line)

    def _stand_in_at(self, live: LiveRoom) -> dict[int, float]:
        """When a bot starts playing for each person whose connection is gone (and who did not
        leave: for them it plays at once)."""
        grace = self.config.disconnect_grace_seconds
        members = live.room.members
        return {
            member: since + grace
            for member, since in live.gone_since.items()
            if member in members and members[member].bot is None and not members[member].away
        }

    def _send_states(self, live: LiveRoom) -> None:
        """Every connection of the room gets its member's new snapshot (computed once per member)."""
        if not live.connections:
            return
        snapshots = live.room.snapshots([c.member for c in live.connections], live.present(), self._stand_in_at(live))
        states = {member: p.State(snapshot) for member, snapshot in snapshots.items()}
        for connection in live.connections:
            connection.send(states[connection.member])

    # ------------------------------------------------------------------ rooms and seats (HTTP)

    async def once(self, address: str, request: object, make: Callable[[], Awaitable[Seat]]) -> Seat:
        """The seat ``make`` gives, made once per ``request`` (a client's id for one tap of a
        button): the same request again — a double tap, a retry — gets the same seat, even while
        the first is still being made. No request id: made every time."""
        if not isinstance(request, str) or not 0 < len(request) <= p.ID_MAX:
            return await make()
        now = self.clock()
        for key, (at, _) in list(self._requests.items()):
            if now - at > REQUEST_SECONDS:
                del self._requests[key]
        key = (address, request)
        known = self._requests.get(key)
        if known is None:
            known = (now, asyncio.ensure_future(make()))
            self._requests[key] = known
        task = known[1]
        try:
            return await asyncio.shield(task)
        except BaseException:
            if task.done():  # a refusal is not remembered: the client may fix the request and try again
                self._requests.pop(key, None)
            raise

    def rooms_in_use(self, address: str) -> list[LiveRoom]:
        """The rooms ``address`` created that are in use: someone is in them, or was lately."""
        now = self.clock()
        return [
            live
            for live in self.rooms.values()
            if live.created_by == address
            and (live.connections or live.remote or now - max(live.idle_since, live.room.last_at) < IN_USE_SECONDS)
        ]

    def _check_room_limit(self, address: str) -> None:
        in_use = self.rooms_in_use(address)
        limit = self.config.max_rooms_per_address
        if len(in_use) < limit:
            return
        now = self.clock()
        frees = [
            max(live.idle_since, live.room.last_at) + IN_USE_SECONDS
            for live in in_use
            if not live.connections and not live.remote
        ]
        if frees:
            minutes = max(1, round((min(frees) - now) / 60))
            when = f"the next one frees in about {minutes} minute{'s' if minutes != 1 else ''}"
        else:
            minutes = IN_USE_SECONDS // 60
            when = f"one frees {minutes} minutes after everyone has left it"
        raise RoomLimit(
            "too_many_rooms",
            f"This network already has {len(in_use)} rooms in use (at most {limit}); {when}.",
            round(min(frees) - now) if frees else None,
        )

    async def create_room(self, settings: RoomSettings, name: str, colour: str, address: str) -> Seat:
        """A new room with its creator seated as host."""
        self._check_room_limit(address)
        now = self.clock()
        try:
            self.library.cards(settings.decks)
        except DeckError as error:
            raise RoomError("bad_decks", error.message) from None
        probe = Room("PROBE")
        probe.apply(Created(at=now, settings=settings))
        token = new_token()
        probe.apply(Joined(at=now, member=0, name=name, colour=colour, token_hash=token_hash(token)))
        for _ in range(100):
            code = "".join(self.rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms and await self.store.create_room(code, now):
                break
        else:  # pragma: no cover - 20 million codes
            raise RoomError("no_code", "No free room code was found; try again.")
        live = LiveRoom(Room(code), created_by=address, idle_since=now)
        self.rooms[code] = live
        try:
            await self.commit(live, Created(at=now, settings=settings))
            await self.commit(live, Joined(at=now, member=0, name=name, colour=colour, token_hash=token_hash(token)))
        except BaseException:  # a room without its host is not a room: forget it entirely
            self.rooms.pop(code, None)
            await self.store.delete_room(code)
            raise
        self._start_scheduler(live)
        live.gone_since[0] = now
        self.metrics.rooms.set(len(self.rooms))
        log.info("room created", extra={"room": code, "mode": settings.mode, "address": address})
        return Seat(code, 0, token)

    def live(self, code: str) -> LiveRoom:
        """Room ``code`` if this process holds it (a greeted connection's room always is)."""
        live = self.rooms.get(code.upper())
        if live is None:
            raise RoomError("no_room", f"There is no room {code!r}; check the code.")
        return live

    async def find(self, code: str) -> LiveRoom:
        """Room ``code``; with several processes, loaded from the store if this process does not
        hold it yet (another one made it, or this one let it go). `RoomError` ``no_room`` if
        there is no such room."""
        live = self.rooms.get(code.upper())
        if live is not None or self.cluster is None:
            return self.live(code)
        key = code.upper()
        if len(key) != CODE_LENGTH or not set(key) <= set(CODE_ALPHABET):
            return self.live(code)  # no code was ever made like that: no need to ask the store
        loading = self._loading.get(key)
        if loading is None:
            loading = asyncio.create_task(self._load(key))
            self._loading[key] = loading
            loading.add_done_callback(self._loaded)
        # shielded: a client that goes away does not cancel a load another request waits for
        return await asyncio.shield(loading)

    def _loaded(self, task: asyncio.Task[LiveRoom]) -> None:
        for code, loading in list(self._loading.items()):
            if loading is task:
                del self._loading[code]
        if not task.cancelled():
            task.exception()  # retrieved here too: every client that waited for it may have gone

    async def _load(self, code: str) -> LiveRoom:
        assert self.cluster is not None
        try:
            replayed = self._replay(code, await self.store.load(code))
        except ValueError as error:  # a damaged log: as if there were no such room
            log.error("room cannot be rebuilt", extra={"room": code, "error": str(error)})
            replayed = None
        if replayed is None:
            raise RoomError("no_room", f"There is no room {code!r}; check the code.")
        room, left_at = replayed
        now = self.clock()
        live = LiveRoom(room, idle_since=now, left_at=left_at)
        self.rooms[code] = live
        await self.cluster.arrived(live)
        live.gone_since = {m.id: now for m in room.members.values() if m.bot is None and m.id not in live.remote}
        self._start_scheduler(live)
        self.autoplay.learn(room)
        self.metrics.rooms.set(len(self.rooms))
        log.info("room loaded", extra={"room": code, "seq": room.seq})
        return live

    def unload(self, code: str) -> None:
        """Let go of room ``code`` (it stays in the store): nobody here uses it any more."""
        live = self.rooms.pop(code, None)
        if live is None:
            return
        self.metrics.rooms.set(len(self.rooms))
        if live.lock.locked():
            # In the middle of storing an entry: cancelled now, it might be stored and never
            # announced. Its loops see that the room is let go, and end, once it is done.
            live.wake.set()
            return
        for task in (live.scheduler, live.follower):
            if task is not None:
                task.cancel()

    async def join(self, code: str, name: str, colour: str, replaces: int | None = None) -> Seat:
        """A seat in room ``code``: a new one before the game, or — ``replaces`` — the seat of a
        bot (or of someone who left for good) during it."""
        if replaces is not None and (type(replaces) is not int or not 0 <= replaces <= p.NUMBER_MAX):
            raise RoomError("malformed", "replaces is the number of the member whose seat you take over.")
        live = await self.find(code)
        token = new_token()
        now = self.clock()
        made: list[Joined] = []

        def joined(room: Room) -> Joined:
            made.append(
                Joined(
                    at=now,
                    member=room._next_member,
                    name=name,
                    colour=colour,
                    token_hash=token_hash(token),
                    replaces=replaces,
                )
            )
            return made[-1]

        await self.commit(live, joined)
        member = made[-1].member
        live.gone_since[member] = now
        log.info("joined", extra={"room": live.room.code, "member": member})
        return Seat(live.room.code, member, token)

    # ------------------------------------------------------------------ connections (WebSocket)

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False if it already holds too many."""
        held = self.connections_by_address.get(address, 0)
        if held >= self.config.max_connections_per_address:
            return False
        self.connections_by_address[address] = held + 1
        self.metrics.connections.inc()
        return True

    def release(self, connection: Connection) -> None:
        """Forget a closed connection."""
        address = connection.address
        self.connections_by_address[address] -= 1
        if not self.connections_by_address[address]:
            del self.connections_by_address[address]
        self.metrics.connections.dec()
        connection.outbox.closed = True
        if connection.code is None or connection.code not in self.rooms:
            return
        live = self.rooms[connection.code]
        live.connections.discard(connection)
        member = connection.member
        now = self.clock()
        if member is not None and not any(c.member == member for c in live.connections):
            if member not in live.remote:  # else still at the table, through another process
                live.gone_since[member] = now
            live.wake.set()
            self._send_states(live)  # the others see the rabbit go grey
        if not live.connections:
            live.idle_since = now
        if self.cluster is not None and connection.greeted:
            self.cluster.changed_here(live.room.code)

    async def handle(self, connection: Connection, data: bytes | str) -> None:
        """Answer one message; never raises for anything the client sent."""
        self.metrics.messages.inc()
        started = time.perf_counter()
        message_id: str | None = None
        try:
            limit = self.config.max_message_bytes
            # a str is measured in UTF-8 bytes (up to 4 per character) unless it is clearly small
            if len(data) > limit or (isinstance(data, str) and len(data) * 4 > limit and len(data.encode()) > limit):
                raise p.BadMessage("too_large", f"A message has at most {self.config.max_message_bytes} bytes.")
            if not connection.bucket.take():
                raise p.BadMessage("rate_limited", "Too many messages; slow down.", p.guess_id(data))
            message = p.decode_client(data)
            message_id = message.id
            await self._dispatch(connection, message)
        except p.BadMessage as refused:
            self._refuse(connection, refused.message_id or message_id, refused.code, refused.message)
        except RulesError as refused:
            self._refuse(connection, message_id, refused.code, refused.message)
        except Exception:  # a bug of ours: answer, log it, and keep the connection and the room
            log.exception("message failed", extra={"room": connection.code, "member": connection.member})
            self._refuse(connection, message_id, "internal", "The server failed on that message; it was not applied.")
        else:
            if isinstance(message, p.Act):
                self.metrics.actions.inc()
                self.metrics.action_seconds.observe(time.perf_counter() - started)

    def _refuse(self, connection: Connection, message_id: str | None, code: str, text: str) -> None:
        self.metrics.errors.labels(code).inc()
        connection.send(p.Error(message_id, code, text))

    async def _dispatch(self, connection: Connection, message: p.AnyClientMessage) -> None:
        if isinstance(message, p.Hello):
            await self._hello(connection, message)
            return
        if not connection.greeted or connection.code is None:
            raise RoomError("hello_first", "Say hello (with your seat token, or none to watch) first.")
        if isinstance(message, p.Ping):
            connection.send(p.Pong(message.id))
            return
        live = self.live(connection.code)
        room = live.room
        member = connection.member
        if member is None:
            raise RoomError("spectator", "Spectators only watch.")
        if isinstance(message, p.Legal):
            seat = room.seat_of(member)
            game = room.game
            actions = [] if game is None or seat is None else game.legal_actions(seat)
            connection.send(p.LegalMoves(message.id, [action.to_json() for action in actions]))
            return
        done = room.client_ids.get((member, message.id))
        if done is not None:  # a re-sent message: it was made once, it is not made again
            connection.send(p.Ack(message.id, done))
            return
        make = self._entry_maker(live, connection, member, message)
        seq = await self.commit(live, make)
        connection.send(p.Ack(message.id, seq))

    def _entry_maker(
        self, live: LiveRoom, connection: Connection, member: int, message: p.AnyClientMessage
    ) -> AnyEntry | Callable[[Room], AnyEntry]:
        now = self.clock()
        cid = message.id
        room = live.room

        def host_only(current: Room = room) -> None:
            if current.host != member:
                raise RoomError("not_host", "Only the host can do that.")

        def as_host(make: Callable[[Room], AnyEntry]) -> Callable[[Room], AnyEntry]:
            """Checked once more on the room the entry is made on: if another process changed the
            room first, the request is made again on the new room, where hosting may have passed."""

            def made(current: Room) -> AnyEntry:
                host_only(current)
                return make(current)

            return made

        match message:
            case p.Act():
                return Acted(at=now, client_id=cid, by=member, member=member, action=message.action)
            case p.Say():
                if not connection.chat_bucket.take():
                    raise RoomError("chat_rate_limited", "That is a lot of chat; wait a moment.")
                return Said(
                    at=now, client_id=cid, by=member, member=member, text=message.text, team_only=message.team_only
                )
            case p.Leave():
                return Left(at=now, client_id=cid, by=member, member=member, for_good=message.for_good)
            case p.End():
                host_only()
                return as_host(lambda _: Ended(at=now, client_id=cid, by=member))
            case p.ChangeSettings():
                host_only()
                try:
                    self.library.cards(message.settings.decks)
                except DeckError as error:
                    raise RoomError("bad_decks", error.message) from None
                settings = message.settings
                return as_host(lambda _: SettingsChanged(at=now, client_id=cid, by=member, settings=settings))
            case p.SetTeams():
                host_only()
                pairs = message.pairs
                return as_host(lambda _: TeamsSet(at=now, client_id=cid, by=member, pairs=pairs))
            case p.AddBot():
                host_only()
                if message.level not in BOT_LEVELS:
                    raise RoomError("unknown_bot", f"Unknown bot level {message.level!r}.")
                self.autoplay.warm(live.room, message.level, message.language)
                level, language = message.level, message.language
                return as_host(lambda r: self._bot_joins(r, now, cid, member, level=level, language=language))
            case p.Kick():
                host_only()
                if message.member == member:
                    raise RoomError("kick_self", "To give up your seat, leave.")
                kicked = message.member
                return as_host(lambda _: Left(at=now, client_id=cid, by=member, member=kicked, kicked=True))
            case p.PassHost():
                host_only()
                heir = message.member
                return as_host(lambda _: HostPassed(at=now, client_id=cid, by=member, member=heir))
            case p.Start() | p.Rematch():
                host_only()
                rematch = isinstance(message, p.Rematch)

                def started(current: Room) -> Started:
                    if rematch and current.status != "over":
                        raise RoomError("not_over", "A rematch is offered when the game is over.")
                    if not rematch and current.status != "lobby":
                        raise RoomError("game_started", "The game has started already.")
                    return self._start_entry(current, now, cid, member)

                return as_host(started)
        raise RoomError("unknown_type", f"Unknown message type {type(message).__name__}.")  # pragma: no cover

    def _bot_joins(self, room: Room, now: float, cid: str, by: int, *, level: str, language: str) -> Joined:
        free = room.free_colours()
        if not free:
            raise RoomError("room_full", "Every rabbit is taken.")
        colour = free[0]
        names = {m.name for m in room.members.values()}
        base = f"Bot {colour.title()}"
        name = next(n for n in (base, *(f"{base} {i}" for i in range(2, 99))) if n not in names)
        return Joined(
            at=now,
            client_id=cid,
            by=by,
            member=room._next_member,
            name=name,
            colour=colour,
            token_hash="",
            bot=level,
            bot_language=language,
        )

    def _start_entry(self, room: Room, now: float, cid: str, by: int) -> Started:
        room.check_start()
        try:
            deck = [card.id for card in self.library.cards(room.settings.decks)]
        except DeckError as error:
            raise RoomError("bad_decks", error.message) from None
        seating = list(room.seating) if room.status == "over" else room.default_seating()
        return Started(at=now, client_id=cid, by=by, seed=self.rng.getrandbits(63), seating=seating, deck=deck)

    async def _hello(self, connection: Connection, message: p.Hello) -> None:
        if connection.greeted:
            raise RoomError("already_greeted", "This connection has said hello already.")
        assert connection.code is not None
        live = await self.find(connection.code)
        if self.cluster is not None:
            # A process that died between storing an entry and announcing it leaves the others
            # behind without a notice: a client coming over from it must find its last move here.
            await self.catch_up(live)
        room = live.room
        member = None
        if message.token is not None:
            found = room.member_by_token_hash(token_hash(message.token))
            if found is None:
                raise RoomError("bad_token", "That seat token is not valid in this room.")
            member = found.id
        connection.member, connection.greeted = member, True
        if member is not None and message.language is not None:
            live.languages[member] = message.language
        returning = member is not None and not any(c.member == member for c in live.connections)
        returning = returning or (member is not None and room.members[member].away)
        live.connections.add(connection)
        if member is not None:
            live.gone_since.pop(member, None)
            # Back at the table: the bot stops playing for them. (After a restart the log marks
            # them away again until they reconnect, which is what happened in the meantime.)
            room.members[member].away = False
            live.back_at[member] = room.seq  # (other processes learn it from this process's presence)
            live.wake.set()
        if self.cluster is not None:
            self.cluster.changed_here(room.code)
        chat = [
            p.ChatLine(
                said.member,
                room.name_of(said.member),
                said.text,
                said.team_only,
                said.at,
            )
            for said, readers in room.chat
            if readers is None or member in readers
        ]
        connection.send(p.Welcome(message.id, member, chat))
        if returning:
            self._send_states(live)  # everyone sees the rabbit light up, this connection included
        else:
            connection.send(p.State(room.snapshot(member, live.present(), self._stand_in_at(live))))

    # ------------------------------------------------------------------ bots, timers, absent players

    def _start_scheduler(self, live: LiveRoom) -> None:
        live.scheduler = asyncio.create_task(self._schedule_forever(live))

    async def _schedule_forever(self, live: LiveRoom) -> None:
        while self.rooms.get(live.room.code) is live:
            handoff = self._host_handoff(live)
            if handoff is not None and handoff[0] <= self.clock():
                await self._scheduled(live, functools.partial(self._pass_host, live, handoff[1]))
                continue
            wait = self._due_moves(live)
            if wait == 0:
                await self._scheduled(live, functools.partial(self._auto_move, live))
                continue
            if handoff is not None:
                until_handoff = max(0.0, handoff[0] - self.clock())
                wait = until_handoff if wait is None else min(wait, until_handoff)
            live.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(live.wake.wait(), timeout=wait)

    async def _scheduled(self, live: LiveRoom, make: Callable[[], Awaitable[None]]) -> None:
        """Make the entry that is due now — with several processes, only if this one is first to
        take the lease on the room's current seq. The others wait for its entry to reach them
        through the bus; if the holder dies before storing it, the lease runs out and one of
        them makes it. (The store would refuse a second entry at that seq anyway: the lease
        spares the wasted work and the conflict.)"""
        lease = self.lease
        if lease is None:
            await make()
            return
        seq = live.room.seq
        key = f"due:{live.room.code}:{seq}"
        try:
            ours = await lease.try_acquire(key, LEASE_SECONDS)
        except Exception as error:  # Redis is away: the store alone still decides
            log.warning("lease unavailable", extra={"room": live.room.code, "error": str(error)})
            ours = True
        if not ours:
            self.metrics.scheduled_elsewhere.inc()
            if live.room.seq == seq:  # else the other's entry is here already: plan again at once
                live.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(live.wake.wait(), timeout=LEASE_SECONDS)
            return
        try:
            await make()
        finally:
            if live.room.seq == seq:  # nothing landed: free it for the next try, here or elsewhere
                with contextlib.suppress(Exception):
                    await lease.release(key)

    def _host_handoff(self, live: LiveRoom) -> tuple[float, int] | None:
        """(when, to whom) hosting passes on because the host has been away past the grace
        period while another person is here; None if it does not."""
        room = live.room
        host = room.host
        if host is None or host not in live.gone_since:
            return None
        here = [m for m in room.members.values() if m.bot is None and not m.away and m.id not in live.gone_since]
        if not here:
            return None
        return live.gone_since[host] + self.config.disconnect_grace_seconds, here[0].id

    async def _pass_host(self, live: LiveRoom, member: int) -> None:
        now = self.clock()
        try:
            await self.commit(live, HostPassed(at=now, member=member), retry=False)
        except RulesError as error:  # pragma: no cover - the member left in between; re-planned next round
            log.warning("host hand-off refused", extra={"room": live.room.code, "code": error.code})

    def _due_moves(self, live: LiveRoom) -> float | None:
        """0 if a bot should move now, else seconds until one should (None: nothing pending)."""
        due = self._next_due(live)
        if due is None:
            return None
        return max(0.0, due[0] - self.clock())

    def _next_due(self, live: LiveRoom) -> tuple[float, int, StandIn | None] | None:
        """(when, seat, why a bot stands in for a person — None for a bot's own move) of the
        earliest move a bot makes for someone."""
        room = live.room
        game = room.game
        if game is None or game.phase is Phase.OVER:
            return None
        deadline = room.deadline()
        earliest: tuple[float, int, StandIn | None] | None = None
        since_change = max(room.phase_since, room.last_at)
        for seat in game.awaiting:
            member = room.members[room.seating[seat]]
            because: StandIn | None = None
            if member.bot is not None and self._leaves_choice_to_teammate(live, seat):
                when = since_change + self.config.teammate_wait_seconds
                if deadline is not None:
                    when = min(when, deadline)
            elif member.bot is not None:
                when = since_change + self.config.bot_delay_seconds
            elif member.away:
                when, because = since_change + self.config.bot_delay_seconds, "away"
            elif member.id in live.gone_since:
                when, because = live.gone_since[member.id] + self.config.disconnect_grace_seconds, "away"
                if deadline is not None and deadline < when:
                    when, because = deadline, "time"
            elif deadline is not None:
                when, because = deadline, "time"
            else:
                continue
            # At the same moment a bot's own move comes before a stand-in's for a person.
            if earliest is None or (when, because is not None) < (earliest[0], earliest[2] is not None):
                earliest = (when, seat, because)
        return earliest

    def _mate_at_the_table(self, live: LiveRoom, seat: int) -> bool:
        """Teams, play phase: whether ``seat``'s teammate is a person who is here."""
        room = live.room
        game = room.game
        if game is None or game.phase is not Phase.PLAY or game.rules.team_of is None:
            return False
        mate = room.members[room.seating[game.rules.teammate(seat)]]
        return mate.bot is None and not mate.away and mate.id not in live.gone_since

    def _leaves_choice_to_teammate(self, live: LiveRoom, seat: int) -> bool:
        """Whether bot ``seat`` has proposed its card to a teammate who is a person at the table:
        then choosing who plays is theirs, and the bot plays only once the table has been quiet
        for ``teammate_wait_seconds`` (two bots settle it at once)."""
        game = live.room.game
        return game is not None and game.proposal(seat) is not None and self._mate_at_the_table(live, seat)

    async def _auto_move(self, live: LiveRoom) -> None:
        due = self._next_due(live)
        if due is None:
            return
        _, seat, because = due
        room = live.room
        game = room.game
        assert game is not None
        member = room.members[room.seating[seat]]
        planned = room.seq
        level = member.bot or STAND_IN_LEVEL
        if member.bot is not None:
            language = member.bot_language
        else:
            language = live.languages.get(member.id) or stand_in_language(room)
        rng = random.Random(self.rng.getrandbits(64))
        action = await self.autoplay.choose(room, seat, level, rng, language)
        # A person's teammate never decides alone: it offers its card, and plays it only if the
        # person lets the table go quiet (`teammate_wait_seconds`).
        if isinstance(action, Play) and member.bot is not None and self._mate_at_the_table(live, seat):
            offer = Propose(seat, action.cards[0])
            if game.proposal(seat) is None and offer in game.legal_actions(seat):
                action = offer

        def move(current: Room) -> Acted:
            # The bot thought in a worker thread: if anything happened meanwhile (the person came
            # back and played, say), its move is for a table that no longer exists.
            if current is not room or current.seq != planned:
                raise RoomError("stale", "The table changed while the bot was thinking.")
            return Acted(
                at=self.clock(), member=member.id, action=action.to_json(), auto=because is not None, because=because
            )

        try:
            await self.commit(live, move)
        except RulesError as error:  # the game moved on under us; the next round of the loop sees that
            log.info("bot move dropped", extra={"room": room.code, "code": error.code})
        else:
            self.metrics.auto_moves.inc()

    # ------------------------------------------------------------------ idle rooms

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_seconds)
            try:
                await self.sweep()
            except Exception:  # the store or Redis is away: the next sweep tries again
                log.exception("idle sweep failed")
            try:
                await self.autoplay.recall()  # games other processes finished
            except Exception:
                log.exception("kept games could not be read")

    async def sweep(self) -> list[str]:
        """Delete the rooms nobody has been connected to for ``room_idle_seconds``; their codes.
        (With several processes the cluster decides, from what every process knows.)"""
        if self.cluster is not None:
            return await self.cluster.sweep()
        now = self.clock()
        expired = [
            code
            for code, live in self.rooms.items()
            if not live.connections and now - max(live.idle_since, live.room.last_at) >= self.config.room_idle_seconds
        ]
        for code in expired:
            self.unload(code)
            await self.store.delete_room(code)
            log.info("room expired", extra={"room": code})
        return expired

    # ------------------------------------------------------------------ read-only

    async def summary(self, code: str) -> dict[str, Any]:
        """What anyone with the code may know before joining."""
        room = (await self.find(code)).room
        return {
            "code": room.code,
            "status": room.status,
            "mode": room.settings.mode,
            "members": [{"name": m.name, "colour": m.colour, "bot": m.bot} for m in room.members.values()],
            "free_colours": room.free_colours(),
            "colours": list(COLOURS),
            "name_max": NAME_MAX,
            "seats_max": room.seats_max,
            #: no seat for a newcomer now: every one is taken, or the game is on with no seat to take over
            "full": len(room.members) >= room.seats_max if room.status == "lobby" else not room.open_seats(),
            "open_seats": [
                {"member": m.id, "name": m.name, "colour": m.colour, "bot": m.bot} for m in room.open_seats()
            ],
        }

    async def finished_log(self, code: str) -> dict[str, Any]:
        """The public record of a room's last finished game: who sat where and every move."""
        live = await self.find(code)
        room = live.room
        if room.status != "over" or room.game is None:
            raise RoomError("not_over", "A game's log is readable once it is over.")
        return {
            "code": room.code,
            "mode": room.settings.mode,
            "options": room.game.rules.options.to_json(room.game.mode),
            "seats": [{"name": room.members[m].name, "colour": room.members[m].colour} for m in room.seating],
            "actions": [action.to_json() for action in room.game.log],
            "outcome": None if room.game.outcome is None else room.game.outcome.to_json(),
            "scores": list(room.game.scores),
        }


def settings_from(given: object) -> RoomSettings:
    """Room settings from a request body's ``settings`` (the defaults when absent)."""
    if given is None:
        return RoomSettings()
    try:
        return msgspec.convert(given, RoomSettings)
    except msgspec.ValidationError as error:
        raise RoomError("bad_settings", f"Room settings: {error}") from None
