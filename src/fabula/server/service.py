"""The room service: the parts of the table wired together, and the one door for a client's message.

    socket → `RoomService.handle` (validate, rate-limit) → `commands.entry_for` (authorise, make
    the entry; pure) → `Rooms.commit` (apply, store, publish) → listeners: `FanOut` (each
    connection its own view), `Scheduler` (plan what is due), `Chronicle` (logs, bots' memory)

The parts, one job each: `connections` (sockets, outboxes, rate limits), `presence` (who is
here), `rooms` (load, replay, commit, resync), `commands` (message → entry), `fanout`,
`scheduler` (bots, timers, hand-off), `seats` (create and join over HTTP), `sweep` and, with
several processes, `cluster`. `docs/architecture.md` follows one vote through them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import time
from collections.abc import Awaitable, Callable

import msgspec

from fabula import protocol as p
from fabula.cards.library import OWN_DECK, DeckLibrary
from fabula.cards.model import Card
from fabula.errors import CommonCode, ErrorCode
from fabula.rules import RulesError
from fabula.rules.errors import RuleCode
from fabula.store import StoredEntry
from fabula.store.owners import Answer, Ask, Line, Peer
from fabula.story import Album

from . import commands
from .autoplay import AutoPlayers
from .backends import Backends
from .cluster import Cluster
from .config import Config
from .connections import CLOSE_NO_HELLO, CLOSE_NO_ROOM, HELLO_SECONDS, Admission, Connection, Outbox, TokenBucket
from .entries import Acted, AnyEntry, Ended, Joined, Returned, Started
from .errors import RoomCode, RoomError
from .fanout import FanOut
from .metrics import Metrics
from .room import Room
from .rooms import LiveRoom, Rooms, no_room, replay
from .scheduler import Scheduler
from .seats import Seats, new_token, token_hash
from .sweep import Sweeper

log = logging.getLogger("fabula.server")

INTERNAL_TEXT = "The server failed on that message; it was not applied."
RATE_LIMITED_TEXT = "Too many messages; slow down."
#: a refusal's code as the owner of a room sends it back, to the code this process refuses with
ERROR_CODES: dict[str, ErrorCode] = {
    code.value: code for codes in (RuleCode, RoomCode, p.ProtocolCode, CommonCode) for code in codes
}


class Chronicle:
    """What the server notes of a game besides its log: the log lines, and — once a game is over —
    the bots' memory of it (a bot added is warmed up for the room's cards at once)."""

    def __init__(self, autoplay: AutoPlayers) -> None:
        self.autoplay = autoplay

    def entry(self, live: LiveRoom, entry: AnyEntry, *, here: bool) -> None:
        if not here:
            return  # (the process that made it notes it; the others recall finished games later)
        room = live.room
        if isinstance(entry, Joined) and entry.bot is not None:
            self.autoplay.warm(room, entry.bot, entry.bot_language or "en")
        elif isinstance(entry, Started):
            log.info("game started", extra={"room": room.code, "mode": room.settings.mode, "seats": len(room.seating)})
        elif isinstance(entry, Acted | Ended) and room.status == "over" and room.game is not None:
            log.info("game over", extra={"room": room.code, "rounds": room.game.round, "scores": room.game.scores})
            self.autoplay.learn(room)

    def refreshed(self, live: LiveRoom) -> None:
        pass


class RoomService:
    def __init__(
        self,
        config: Config,
        library: DeckLibrary,
        metrics: Metrics,
        *,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        tokens: Callable[[], str] = new_token,
    ) -> None:
        """The service for ``config``; `start` gives it its store and bus."""
        self.config, self.library, self.metrics, self.clock = config, library, metrics, clock
        self.tokens = tokens
        #: room codes, game seeds and bots' choices come from here (tests set a seeded one)
        self.rng = rng or random.SystemRandom()
        self.autoplay = AutoPlayers(
            library, memory=config.bot_memory, memory_rounds=config.bot_memory_rounds, clock=clock
        )
        self.admission = Admission(config.max_connections_per_address, metrics)
        self.fanout = FanOut(lambda: self.config.disconnect_grace_seconds)
        self.rooms: Rooms  # the parts below need the store: set by start
        self.scheduler: Scheduler
        self.seats: Seats
        self.sweeper: Sweeper
        #: the part that keeps step with other processes; None with one process
        self.cluster: Cluster | None = None
        self.backends: Backends | None = None
        self._sweeping: asyncio.Task[None] | None = None
        #: the tasks serving the connections other processes relay here
        self._hosted: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ life cycle

    async def start(self, backends: Backends) -> None:
        """Take ``backends`` (`stop` closes them) and start the idle sweeper.

        One process: every stored room is loaded now (its timers and bots resume). Several: a room
        is loaded when someone asks for it, and the cluster keeps it in step with the others."""
        self.backends = backends
        # the parts read the service's clock and random source when they use them: tests move
        # the clock forward and seed the source once the server runs
        clock, rng = self.now, lambda: self.rng
        self.rooms = Rooms(backends.store, backends.bus, self.metrics, clock)
        self.scheduler = Scheduler(self.rooms, self.autoplay, self.config, self.metrics, clock=clock, rng=rng)
        self.scheduler.lease = backends.lease
        self.rooms.listeners += [self.fanout, self.scheduler, Chronicle(self.autoplay)]
        self.seats = Seats(
            self.rooms, self.config, self.library, clock=clock, rng=rng, opened=self.scheduler.start, tokens=self.tokens
        )
        self.sweeper = Sweeper(self.rooms, self.autoplay, self.config, clock)
        self.sweeper.pictures = backends.pictures
        self.autoplay.store = backends.store
        self.autoplay.own_cards = self.own_cards
        await self.autoplay.recall()  # before the rooms: a finished game kept already is not learned twice
        if backends.owners is not None:
            backends.owners.holds = self.rooms.held.__contains__
            await backends.owners.start(self._asked, self._host if self.config.relay else None)
        if backends.presence is not None:
            self.cluster = Cluster(
                self.rooms, backends.presence, self.config, clock, backends.lease, hears=lambda: backends.bus_connected
            )
            self.rooms.load_missing = self._load
            self.sweeper.cluster_sweep = self.cluster.sweep
            self.cluster.start()
        else:
            await self._load_every_room()
        self.metrics.rooms.set(len(self.rooms.held))
        self._sweeping = asyncio.create_task(self.sweeper.forever())

    async def _load_every_room(self) -> None:
        now = self.clock()
        for code in await self.rooms.store.room_codes():
            try:
                replayed = replay(code, await self.rooms.store.load(code))
            except (RulesError, ValueError) as error:  # a damaged log must not stop the others
                log.error("room cannot be rebuilt", extra={"room": code, "error": str(error)})
                continue
            if replayed is None:  # created but its first entry never landed: never acknowledged
                await self.rooms.store.delete_room(code)
                continue
            room = replayed
            live = LiveRoom(room)
            live.presence.idle_since = now
            live.presence.gone_since = dict.fromkeys(room.members, now)
            self.rooms.held[code] = live
            self.scheduler.start(live)
            self.autoplay.learn(room)  # a game that ended before a restart still teaches

    async def _load(self, code: str) -> LiveRoom:
        """Room ``code`` from the store, held from now on (several processes)."""
        assert self.cluster is not None
        try:
            replayed = replay(code, await self.rooms.store.load(code))
        except ValueError as error:  # a damaged log: as if there were no such room
            log.error("room cannot be rebuilt", extra={"room": code, "error": str(error)})
            replayed = None
        if replayed is None:
            raise no_room(code)
        room = replayed
        now = self.clock()
        live = LiveRoom(room)
        live.presence.idle_since = now
        self.rooms.hold(live)
        await self.cluster.arrived(live)
        remote = live.presence.remote
        live.presence.gone_since = {m.id: now for m in room.members.values() if m.bot is None and m.id not in remote}
        self.scheduler.start(live)
        self.autoplay.learn(room)
        log.info("room loaded", extra={"room": code, "seq": room.seq})
        return live

    async def retire(self) -> None:
        """The server is stopping: with several processes, the others take this one's rooms (and
        its clients relayed here) now, while it finishes what is under way."""
        if self.backends is not None and self.backends.owners is not None:
            await self.backends.owners.retire()

    async def stop(self) -> None:
        if self.cluster is not None:
            await self.cluster.stop()
        tasks = [self._sweeping, *self._hosted]
        for live in self.rooms.held.values():
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

    def now(self) -> float:
        return self.clock()

    async def sweep(self) -> list[str]:
        return await self.sweeper.sweep()

    # ------------------------------------------------------------------ connections (WebSocket)

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False if it already holds too many."""
        return self.admission.admit(address)

    def release(self, connection: Connection, *, admitted: bool = True) -> None:
        """Forget a closed connection (``admitted``: counted against its address here)."""
        if admitted:
            self.admission.release(connection.address)
        connection.close()
        live = None if connection.code is None else self.rooms.held.get(connection.code)
        if live is None:
            return
        if live.presence.depart(connection, self.clock()):
            self.rooms.refreshed(live)  # the others see the rabbit go grey
        if self.cluster is not None and connection.greeted:
            self.cluster.changed_here(live.room.code)

    async def converse(
        self, connection: Connection, receive: Callable[[], Awaitable[bytes | str | None]]
    ) -> int | None:
        """Answer every message ``receive`` brings from ``connection``'s client until it leaves
        (None), or until the connection must be closed: its close code."""
        loop = asyncio.get_running_loop()
        hello_by = loop.time() + HELLO_SECONDS
        while True:
            if connection.greeted:
                data = await receive()
            else:
                try:
                    data = await asyncio.wait_for(receive(), hello_by - loop.time())
                except TimeoutError:
                    return CLOSE_NO_HELLO
            if data is None:
                return None
            await self.handle(connection, data)
            if not connection.greeted and connection.code not in self.rooms.held:
                return CLOSE_NO_ROOM

    # ------------------------------------------------------------------ relayed connections

    async def claim(self, code: str) -> None:
        """Own room ``code``, just created here (with other processes: `fabula.store.owners`).
        Its connections to other processes are then relayed to this one, which holds it already,
        and the rooms' owners are spread as their creations are (a round-robin balancer: evenly)
        instead of going to whichever process's first connection asked first."""
        owners = None if self.backends is None else self.backends.owners
        if owners is not None:
            await owners.owner(code)  # (a new code: nobody owns it, so this process takes it)

    async def relay(self, connection: Connection, end: Peer) -> Line | None:
        """Relay ``connection`` (not greeted yet) to its room's owner if another process owns
        the room (``end`` hears the owner): the line to send its client's messages on. None:
        serve it here (this process owns the room now, or the owner cannot take it)."""
        owners = None if self.backends is None else self.backends.owners
        code = connection.code
        if owners is None or not self.config.relay or code is None:
            return None
        owner = await owners.owner(code)
        if owner is None or owner == owners.me:
            return None
        line = await owners.relay(owner, code, connection.address, end)
        if line is None:
            return None
        self.metrics.relayed.set(owners.relayed)
        held = self.rooms.held.get(code)
        if held is not None and not held.presence.connections:
            # held for an HTTP request (a join) only: following it would apply every entry again
            self.rooms.unload(code)
        return line

    def paced(self, connection: Connection, data: bytes | str) -> bool:
        """Whether a relayed connection's client keeps to its message rate; if not, it is told
        so here and the message goes no further. (The owner checks the rate too, but it cannot
        slow down the reading of a socket on another process: this is where a flood stops.)"""
        if connection.bucket.take():
            return True
        self.metrics.messages.inc()
        self._refuse(connection, p.guess_id(data), p.ProtocolCode.RATE_LIMITED, RATE_LIMITED_TEXT)
        return False

    def unrelay(self, line: Line) -> None:
        """A relayed connection's client left."""
        owners = None if self.backends is None else self.backends.owners
        if owners is not None:
            owners.unrelay(line)
            self.metrics.relayed.set(owners.relayed)

    def _host(self, code: str, address: str, line: Line) -> Peer:
        """A connection to room ``code`` that another process relays to this one, the owner."""
        hosted = Hosted(self, code, address, line)
        self._hosted.add(hosted.serving)
        hosted.serving.add_done_callback(self._hosted.discard)
        return hosted

    async def handle(self, connection: Connection, data: bytes | str) -> None:
        """Answer one message; never raises for anything the client sent."""
        self.metrics.messages.inc()
        started = time.perf_counter()
        message_id: str | None = None
        try:
            limit = self.config.max_message_bytes
            # a str is measured in UTF-8 bytes (up to 4 per character) unless it is clearly small
            if len(data) > limit or (isinstance(data, str) and len(data) * 4 > limit and len(data.encode()) > limit):
                raise p.BadMessage(
                    p.ProtocolCode.TOO_LARGE, f"A message has at most {self.config.max_message_bytes} bytes."
                )
            if not connection.bucket.take():
                raise p.BadMessage(p.ProtocolCode.RATE_LIMITED, RATE_LIMITED_TEXT, p.guess_id(data))
            message = p.decode_client(data)
            message_id = message.id
            await self._dispatch(connection, message)
        except p.BadMessage as refused:
            self._refuse(connection, refused.message_id or message_id, refused.code, refused.message)
        except RulesError as refused:
            self._refuse(connection, message_id, refused.code, refused.message)
        except Exception:  # a bug of ours: answer, log it, and keep the connection and the room
            log.exception("message failed", extra={"room": connection.code, "member": connection.member})
            self._refuse(connection, message_id, p.ProtocolCode.INTERNAL, INTERNAL_TEXT)
        else:
            if isinstance(message, p.Act):
                self.metrics.actions.inc()
                self.metrics.action_seconds.observe(time.perf_counter() - started)

    def _refuse(self, connection: Connection, message_id: str | None, code: ErrorCode, text: str) -> None:
        self.metrics.errors.labels(code).inc()
        connection.send(p.Error(message_id, code, text))

    async def _dispatch(self, connection: Connection, message: p.AnyClientMessage) -> None:
        if isinstance(message, p.Hello):
            await self._hello(connection, message)
            return
        if not connection.greeted or connection.code is None:
            raise RoomError(RoomCode.HELLO_FIRST, "Say hello (with your seat token, or none to watch) first.")
        if isinstance(message, p.Ping):
            connection.send(p.Pong(message.id))
            return
        live = self.rooms.live(connection.code)
        room = live.room
        member = connection.member
        if isinstance(message, p.GetAlbum):
            connection.send(p.AlbumPage(message.id, album_for(room, member, message.game)))
            return
        if member is None:
            raise RoomError(RoomCode.SPECTATOR, "Spectators only watch.")
        if isinstance(message, p.Legal):
            seat = room.seat_of(member)
            game = room.game
            actions = [] if game is None or seat is None else game.legal_actions(seat)
            connection.send(p.LegalMoves(message.id, [action.to_json() for action in actions]))
            return
        done = await self.rooms.made_before(live, (member, message.id))
        if done is not None:  # a re-sent message: it was made once, it is not made again
            connection.send(p.Ack(message.id, done))
            return
        if isinstance(message, p.Say) and not connection.chat_bucket.take():
            raise RoomError(RoomCode.CHAT_RATE_LIMITED, "That is a lot of chat; wait a moment.")
        assert isinstance(message, (*commands.COMMANDS, p.Rematch))
        seq = await self._make(live, member, message)
        connection.send(p.Ack(message.id, seq))

    async def _make(self, live: LiveRoom, member: int, message: p.AnyClientMessage) -> int:
        """The entry ``message`` of ``member`` asks for, made and stored; its seq. By the room's
        owner if another process owns it (see `fabula.store.owners`), else here."""
        owners = None if self.backends is None else self.backends.owners
        if owners is not None:
            owner = await owners.owner(live.room.code)
            if owner is not None and owner != owners.me:
                answer = await owners.ask(owner, live.room.code, member, msgspec.json.encode(message), live.room.seq)
                if answer is None:
                    self.metrics.owner_unreachable.inc()
                else:
                    self.metrics.sent_to_owner.inc()
                    if answer.error is not None:
                        raise RulesError(ERROR_CODES.get(answer.error, p.ProtocolCode.INTERNAL), answer.text)
                    assert answer.seq is not None
                    # the client's next look at the room must show its own change
                    entries = StoredEntry.ending_at(answer.seq, answer.entries)
                    await self.rooms.caught_up_to(live, entries, answer.seq)
                    return answer.seq
                # the owner cannot be asked (gone, Redis away, no answer): made here, the store decides
        return await self._make_here(live, member, message)

    async def _make_here(self, live: LiveRoom, member: int, message: p.AnyClientMessage) -> int:
        assert isinstance(message, (*commands.COMMANDS, p.Rematch))
        room = live.room
        own: tuple[Card, ...] = ()
        if isinstance(message, p.ChangeSettings | p.Start | p.Rematch):  # (not on a move's path)
            dealt = message.settings.decks if isinstance(message, p.ChangeSettings) else room.settings.decks
            own = await self.own_cards(room.code) if OWN_DECK in dealt else ()
        context = commands.Context(member, self.clock(), self.library, lambda: self.rng.getrandbits(63), own)
        return await self.rooms.commit(live, functools.partial(commands.entry_for, message, context))

    async def _asked(self, ask: Ask) -> Answer:
        """A change another process's client asked for, in a room this process owns."""
        try:
            live = await self.rooms.find(ask.code)
            message = p.decode_client(ask.message)
            if not isinstance(message, (*commands.COMMANDS, p.Rematch)):
                raise p.BadMessage(CommonCode.MALFORMED, "That message does not change a room.")
            done = await self.rooms.made_before(live, (ask.member, message.id))
            seq = done if done is not None else await self._make_here(live, ask.member, message)
            self.metrics.made_for_others.inc()
        except (RulesError, p.BadMessage) as refused:
            return Answer(ask.request, error=refused.code, text=refused.message)
        except Exception:
            log.exception("asked change failed", extra={"room": ask.code, "member": ask.member})
            return Answer(ask.request, error=p.ProtocolCode.INTERNAL, text=INTERNAL_TEXT)
        return Answer(ask.request, seq=seq, entries=self.rooms.recent_entries(live, ask.since, seq))

    async def own_cards(self, code: str) -> tuple[Card, ...]:
        """Room ``code``'s own pictures as cards, their captions as descriptions (what bots read)."""
        store = None if self.backends is None else self.backends.pictures
        deck = None if store is None else await store.room_deck(code)
        if store is None or deck is None:
            return ()
        return tuple(Card(picture.card, picture.name, picture.caption) for picture in await store.pictures(deck))

    async def _hello(self, connection: Connection, message: p.Hello) -> None:
        if connection.greeted:
            raise RoomError(RoomCode.ALREADY_GREETED, "This connection has said hello already.")
        assert connection.code is not None
        live = await self.rooms.find(connection.code)
        if self.cluster is not None:
            # A process that died between storing an entry and announcing it leaves the others
            # behind without a notice: a client coming over from it must find its last move here.
            await self.rooms.catch_up(live)
        room = live.room
        member = None
        if message.token is not None:
            found = room.member_by_token_hash(token_hash(message.token))
            if found is None:
                raise RoomError(RoomCode.BAD_TOKEN, "That seat token is not valid in this room.")
            member = found.id
        connection.member, connection.greeted = member, True
        returning = live.presence.arrive(connection, message.language)
        if member is not None:
            live.wake.set()
        if self.cluster is not None:
            self.cluster.changed_here(room.code)
        connection.send(p.Welcome(message.id, member, self.fanout.chat_for(live, member)))
        if member is not None and room.members[member].away and await self._back_at_the_table(live, member):
            return  # (the entry's states went to everyone, this connection included)
        if returning:
            self.fanout.states(live)  # everyone sees the rabbit light up, this connection included
        else:
            connection.send(self.fanout.state_for(live, member))

    async def _back_at_the_table(self, live: LiveRoom, member: int) -> bool:
        """A member who had left the game said hello: they play their seat again (logged, so that
        a restart keeps it). Whether the entry was made."""
        try:
            await self.rooms.commit(live, Returned(at=self.clock(), by=member, member=member))
        except RulesError as error:  # back already (through another process), or the room is gone
            log.info("return not logged", extra={"room": live.room.code, "code": error.code})
            return False
        return True


class LineOutbox(Outbox):
    """A relayed connection's outbox at its room's owner: each message goes onto the peer link
    at once (the relaying process's outbox for the client keeps only the newest unsent state)."""

    def __init__(self, line: Line) -> None:
        super().__init__()
        self.line = line

    def put(self, data: bytes, *, is_state: bool = False) -> None:
        if not self.closed:
            self.line.outbound(data, is_state)


class Hosted:
    """The owner's end of a connection another process relays to it: served exactly as one of
    this process's own (`RoomService.converse`), its messages in the order they came."""

    def __init__(self, service: RoomService, code: str, address: str, line: Line) -> None:
        config = service.config
        self.connection = Connection(
            address,
            TokenBucket(config.messages_per_second, config.message_burst),
            TokenBucket(config.chat_messages_per_second, config.chat_burst),
            outbox=LineOutbox(line),
        )
        self.connection.code = code
        self.service, self.line = service, line
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.serving = asyncio.create_task(self._serve(), name=f"relayed connection {code}")
        service.metrics.hosted.inc()

    def received(self, data: bytes, state: bool) -> None:
        del state  # (only the owner sends states)
        self._inbox.put_nowait(data)

    def ended(self, code: int | None) -> None:
        del code
        self._inbox.put_nowait(None)

    async def _serve(self) -> None:
        closing = None
        try:
            closing = await self.service.converse(self.connection, self._inbox.get)
        finally:
            self.service.release(self.connection, admitted=False)
            self.service.metrics.hosted.dec()
            owners = self.service.backends.owners if self.service.backends is not None else None
            if owners is not None:
                owners.unhost(self.line, closing)


def album_for(room: Room, member: int | None, number: int | None) -> Album | None:
    """Game ``number``'s album (None: the latest) for ``member``; a spectator (None) sees only the
    latest game, the one they could watch."""
    latest = room.albums[-1] if room.albums else None
    if number is None or (latest is not None and number == latest.number):
        return latest
    album = room.album(number) if member is not None else None
    if album is None:
        why = "this room has no such game" if member is not None else "a spectator sees only the latest game"
        raise RoomError(RoomCode.NO_GAME, f"No album of game {number}: {why}.")
    return album
