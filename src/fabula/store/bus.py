"""Fan-out between Fabula processes: "room CODE now has entry SEQ" — and the entries themselves.

A notice says that the store has entries of a room up to SEQ, and usually carries them: the
publisher's newest entries of that room, as stored, ending at SEQ (`Notice.entries`). A process
that holds room CODE in memory applies them if they follow on from what it has, and otherwise
(it missed some: a notice lost, an entry of a third process) loads what it lacks from the store
(``store.load(code, since=room.seq)``); then it sends its connections the new state.

A notice means "room CODE has entries up to *at least* SEQ". That makes every notice safe to
receive twice, late, or after a newer one, and lets a publisher merge notices it could not send
yet: of several pending for one room only the newest goes out. Per room, notices from one
publisher arrive in increasing order and the newest is always delivered while the bus is up.

A `RedisBus` does not deliver the notices it published itself: they would be stale on arrival
(its room's seq is past them). Better, it does not send a room's notices at all while no other
process hears the room — the usual case, each room held by its owner alone — for Redis would
hand them back to their publisher only, which reads them to drop them.

Two buses:

- `LocalBus`: in-process, the zero-setup default. With one process there is nobody to tell, so
  it only matters to code that subscribes in the same process (tests, tools).
- `RedisBus`: Redis pub/sub on a channel per room, ``"{namespace}:room:{CODE}"``, subscribed to
  by the processes that hold the room (`Bus.hear`); on the namespace's channel,
  ``"{namespace}:rooms"``, each process says which rooms it hears (`_Listens`: when that
  changes, and all of them every `RedisBus.announce_every` seconds), so that a publisher knows
  whether anyone else hears a room. A process that begins to hear a room checks it against the
  store once Redis confirms (`HEARD`), and its publishers send it the newest seq they left
  unsent once they learn it hears; one that stops saying what it hears (it died) lapses after
  three periods. For the first 1.5 periods after subscribing, a bus sends every notice (it has
  not heard what the others hear yet). A message holds a publisher's notices of one room,
  msgpack-encoded (`_Batch`: its origin, so that it can drop its own, and per room the seq and
  the entries); the text ``b"CODE:SEQ@ORIGIN"`` and ``b"CODE:SEQ"`` of earlier versions are
  understood too. ``every_room`` puts every notice on the namespace's channel for every process
  (presence, whose readers hold no rooms). It reconnects by itself after Redis restarts or the
  connection drops; pub/sub keeps nothing for an absent subscriber, so after every reconnection
  each subscription receives `RESYNC` (``Notice(None, -1)``): "notices may have been lost —
  check every room you hold against the store".

>>> import asyncio
>>> async def demo() -> list[Notice]:
...     bus = LocalBus()
...     with bus.subscribe() as notices:
...         bus.publish("ABCDE", 1, [b"entry 0", b"entry 1"])
...         bus.publish("ABCDE", 2)
...         return [await anext(notices), await anext(notices)]
>>> first, second = asyncio.run(demo())
>>> first.first, first.seq, first.entries
(0, 1, (b'entry 0', b'entry 1'))
>>> second
Notice(room='ABCDE', seq=2, entries=())
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, Self

import msgspec
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import EqualJitterBackoff
from redis.driver_info import DriverInfo
from redis.exceptions import RedisError

if TYPE_CHECKING:
    from .lease import RedisLease

log = logging.getLogger("fabula.store.bus")

#: Connections a process's Redis client opens at most. A burst of commands waits for a free one
#: rather than failing: redis-py's plain pool refused past 100 connections ("Too many
#: connections"), and 834 rooms starting their games at once, each asking who owns it, got 735
#: refusals in one burst of the 5,004-player benchmark (each logged, together a 0.3–0.6 s stall).
REDIS_CONNECTIONS = 64


def redis_client(url: str, *, timeout: float, **options: Any) -> Redis:
    """A Redis client for ``url`` whose commands wait up to ``timeout`` seconds for a free
    connection of its pool (`REDIS_CONNECTIONS`), time out after as long, and are retried twice
    with a short backoff when a connection breaks; ``options`` go to each connection."""
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=timeout,
        socket_connect_timeout=timeout,
        socket_timeout=timeout,
        retry=Retry(EqualJitterBackoff(cap=0.25, base=0.01), retries=2),
        # read once: else every new connection looks redis-py's version up in the installed
        # packages' metadata (0.5 ms), which doubled the cost of a burst opening the pool's 64
        driver_info=DriverInfo(),
        **options,
    )
    return Redis.from_pool(pool)


@dataclass(frozen=True, slots=True)
class Notice:
    """Room ``room`` has entries up to at least ``seq``, the newest of them ``entries`` (their
    data as stored, the last one at ``seq``; none: load them from the store); ``room is None``:
    see `RESYNC`."""

    room: str | None
    seq: int
    entries: tuple[bytes, ...] = ()

    @property
    def first(self) -> int:
        """The seq of the first entry carried."""
        return self.seq - len(self.entries) + 1


#: The bus was disconnected and notices may have been lost: re-check every room held.
RESYNC = Notice(None, -1)
#: ``Notice(room, HEARD)``: the room's notices reach this process from now on (`Bus.hear`) —
#: any entry stored before may have been announced unheard: check the room against the store.
HEARD = -1


class Subscription:
    """The notices published after it was made, as an async iterator, until `close` (or the
    bus closes), after which the iteration ends. Also a context manager that closes it."""

    def __init__(self, on_close: Callable[[Subscription], None]) -> None:
        self._queue: deque[Notice] = deque()
        self._ready = asyncio.Event()
        self._on_close = on_close
        self.closed = False

    def deliver(self, notice: Notice) -> None:
        if self.closed:
            return
        self._queue.append(notice)
        self._ready.set()

    def close(self) -> None:
        """Stop receiving; notices not read yet are dropped and the iteration ends."""
        if self.closed:
            return
        self.closed = True
        self._queue.clear()
        self._ready.set()
        self._on_close(self)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Notice:
        while not self._queue:
            if self.closed:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        return self._queue.popleft()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


class Bus(Protocol):
    """What the room service needs from a fan-out bus."""

    def publish(self, room: str, seq: int, entries: Sequence[bytes] = ()) -> None:
        """Tell every subscriber (of every process) that ``room`` has entry ``seq`` — and give
        them ``entries``, the data of the newest entries stored, the last at ``seq``. Never
        blocks and never raises: a bus that cannot send now sends later (or its subscribers
        get `RESYNC`)."""
        ...

    def subscribe(self) -> Subscription:
        """A new subscription to every notice published from now on of the rooms this process
        hears (on `RedisBus`, by the other processes: its own are not delivered back)."""
        ...

    def hear(self, room: str) -> None:
        """Deliver ``room``'s notices from now on — once that holds, a `HEARD` notice of it
        (on `LocalBus` every room is heard, and no such notice comes)."""
        ...

    def unhear(self, room: str) -> None:
        """Stop delivering ``room``'s notices (the process let go of it)."""
        ...

    async def flush(self) -> None:
        """Return once every notice published so far has been handed to the transport."""
        ...

    async def close(self) -> None:
        """Send what is pending (briefly), end every subscription and let go of connections."""
        ...


class _Fanout:
    """The subscriptions of one bus in one process."""

    def __init__(self) -> None:
        self._subscriptions: set[Subscription] = set()
        self._closed = False

    def subscribe(self) -> Subscription:
        if self._closed:
            raise RuntimeError("the bus is closed")
        subscription = Subscription(self._subscriptions.discard)
        self._subscriptions.add(subscription)
        return subscription

    def _deliver(self, notice: Notice) -> None:
        for subscription in tuple(self._subscriptions):
            subscription.deliver(notice)

    def _close_subscriptions(self) -> None:
        self._closed = True
        for subscription in tuple(self._subscriptions):
            subscription.close()


class LocalBus(_Fanout):
    """In-process fan-out: every notice goes to every subscription, in order, at once."""

    def publish(self, room: str, seq: int, entries: Sequence[bytes] = ()) -> None:
        self._deliver(Notice(room, seq, tuple(entries)))

    def hear(self, room: str) -> None:
        del room  # (every room is)

    def unhear(self, room: str) -> None:
        del room

    async def flush(self) -> None:
        return

    async def close(self) -> None:
        self._close_subscriptions()


def channel_name(namespace: str) -> str:
    """The Redis channel of a server namespace: every process of one deployment uses the same."""
    return f"{namespace}:rooms"


def room_channel(namespace: str, room: str) -> str:
    """The Redis channel of room ``room``'s notices: only the processes holding it listen."""
    return f"{namespace}:room:{room}"


#: Entries a notice carries at most, in bytes (a room's newest entries are a few hundred bytes
#: each; a bigger batch goes without them, and its readers load them from the store).
CARRIED_BYTES = 1 << 16


#: Publishes message ARGV[i + 1] on channel ARGV[i] for each pair: one command for the notices of
#: many rooms (a pipeline of a PUBLISH a room cost the client 4–5× as much CPU at 834 rooms,
#: `benchmarks/bus.py`).
_PUBLISH_EACH = """
for i = 1, #ARGV, 2 do
    redis.call('PUBLISH', ARGV[i], ARGV[i + 1])
end
return 0
"""


#: The first byte of a `_Listens` message (neither a letter of the old text notices nor the start
#: of a msgpack array).
_LISTENS = b"!"


class _Listens(msgspec.Struct, array_like=True):
    """Which rooms a process hears, said on the namespace's channel: ``full``, every room it hears
    (said every `RedisBus.announce_every` seconds: also a sign of life), else the rooms it began
    to hear and those it stopped hearing (``gone``) since it last said."""

    origin: str
    rooms: list[str]
    full: bool
    gone: list[str] = []


_encode_listens = msgspec.msgpack.Encoder().encode
_decode_listens = msgspec.msgpack.Decoder(_Listens).decode


class _Batch(msgspec.Struct, array_like=True):
    """One bus message: the publisher (``origin``), and per room its newest seq and entries."""

    origin: str
    rooms: dict[str, tuple[int, list[bytes]]]


_encode_batch = msgspec.msgpack.Encoder().encode
_decode_batch = msgspec.msgpack.Decoder(_Batch).decode


def parse_message(data: bytes, own: str = "") -> list[Notice] | None:
    """The notices of one bus message (none if it is ``own``'s, this bus's origin); None if it
    cannot be read. Earlier versions' ``b"CODE:SEQ"`` and ``b"CODE:SEQ@ORIGIN"`` are read too."""
    if data[:1] != b"@" and data[:1].isalnum():  # (a msgpack array starts with 0x90-0x9f or 0xdc)
        notice, _, origin = data.decode("utf-8", "replace").partition("@")
        room, colon, seq = notice.rpartition(":")
        if not colon or not room or not seq.isdigit():
            return None
        return [] if origin and origin == own else [Notice(room, int(seq))]
    try:
        batch = _decode_batch(data)
    except msgspec.DecodeError:
        return None
    if batch.origin == own:
        return []
    return [Notice(room, seq, tuple(entries)) for room, (seq, entries) in batch.rooms.items()]


class RedisBus(_Fanout):
    """Fan-out across processes through Redis pub/sub. Open it with ``await RedisBus.connect(url)``.

    Each bus keeps one subscriber connection (one reader task delivering to every local
    subscription) and publishes through one writer task that pipelines whatever accumulated
    while the previous batch was in flight, so a publish never waits for Redis."""

    def __init__(
        self,
        redis: Redis,
        namespace: str,
        *,
        every_room: bool = False,
        min_delay: float = 0.05,
        max_delay: float = 2.0,
        poll: float = 0.25,
        announce_every: float = 5.0,
    ) -> None:
        """Use ``redis`` (closed with the bus); `connect` makes it and starts the bus."""
        super().__init__()
        self.redis = redis
        self.namespace = namespace
        #: every notice to every process, on the namespace's channel (for rare notices, whose
        #: readers hold no particular rooms: presence)
        self.every_room = every_room
        self.channel = channel_name(namespace)
        self.connected = False  # the subscriber connection is subscribed right now
        self.reconnections = 0
        self._min_delay, self._max_delay, self._poll = min_delay, max_delay, poll
        #: per room, the newest seq to announce and the entries up to it (contiguous, carried)
        self._pending: dict[str, tuple[int, list[bytes]]] = {}
        #: names every message this bus publishes, and so tells its own apart
        self.origin = secrets.token_hex(6)
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._subscribed = asyncio.Event()
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        #: the rooms whose notices this process hears, and the subscriber connection (once subscribed)
        self._rooms: set[str] = set()
        self._pubsub: PubSub | None = None
        #: rooms heard or unheard since the subscriber connection last said so to Redis
        self._changed: set[str] = set()
        self._change = asyncio.Event()
        self._room_prefix = room_channel(namespace, "").encode()
        self._channel_bytes = self.channel.encode()
        self._publish_each = redis.register_script(_PUBLISH_EACH)
        # Who hears what (not with every_room). A room's notices go out only while another
        # process hears it: a message nobody else reads would be read back by this one alone.
        #: seconds between two full `_Listens` of this bus; another's lapses after three
        self.announce_every = announce_every
        #: every notice goes out until then: the namespace's channel was just subscribed to, and
        #: what the others hear is known once each has said it in full
        self._loud_until = math.inf
        #: per room, the other processes (their origins) that hear it — only rooms with some
        self._heard_by: dict[str, set[str]] = {}
        #: per other process, the rooms it hears and when that lapses unless it says it again
        self._hears: dict[str, tuple[set[str], float]] = {}
        #: per room, the newest seq this bus did not send (sent when another begins to hear it)
        self._unsent: dict[str, int] = {}
        #: rooms whose channel Redis confirmed this process subscribed to (while still heard)
        self._confirmed: set[str] = set()
        #: rooms heard or let go since this bus last said what it hears
        self._untold: set[str] = set()
        self._tell = asyncio.Event()

    @classmethod
    async def connect(
        cls,
        url: str,
        namespace: str = "fabula",
        *,
        every_room: bool = False,
        timeout: float = 5.0,
        health_check_interval: int = 5,
        announce_every: float = 5.0,
    ) -> RedisBus:
        """Connect to ``url`` (``redis://host:port/db``), subscribe to the namespace's channel
        and start publishing (``every_room``: every notice to every process, see `RedisBus`).
        Raises `redis.exceptions.RedisError` (or `TimeoutError`) if Redis cannot be reached
        within ``timeout`` seconds."""
        redis = redis_client(
            url,
            timeout=timeout,
            socket_keepalive=True,
            health_check_interval=health_check_interval,
            client_name=f"fabula-bus-{secrets.token_hex(4)}",
        )
        bus = cls(redis, namespace, every_room=every_room, announce_every=announce_every)
        try:
            await asyncio.wait_for(redis.ping(), timeout)
            bus._start()
            await asyncio.wait_for(bus._subscribed.wait(), timeout)
        except BaseException:
            await bus.close()
            raise
        return bus

    def _start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._listen_forever(), name=f"redis bus listener {self.channel}"),
            asyncio.create_task(self._publish_forever(), name=f"redis bus publisher {self.channel}"),
            asyncio.create_task(self._subscribe_forever(), name=f"redis bus rooms heard {self.channel}"),
        ]
        if not self.every_room:
            self._tasks.append(
                asyncio.create_task(self._announce_forever(), name=f"redis bus announcer {self.channel}")
            )

    def lease(self) -> RedisLease:
        """A lease holder on this bus's Redis connection pool and namespace (see `lease`)."""
        from .lease import RedisLease

        return RedisLease(self.redis, self.namespace)

    # ------------------------------------------------------------------ publishing

    def heard_elsewhere(self, room: str) -> bool:
        """Whether another process said it hears ``room`` (and has not lapsed): only then do the
        room's notices go out (with ``every_room``, always)."""
        return self.every_room or room in self._heard_by

    def publish(self, room: str, seq: int, entries: Sequence[bytes] = ()) -> None:
        if self._closed:
            return
        if not self.every_room:
            if room not in self._heard_by and time.monotonic() >= self._loud_until:
                if seq > self._unsent.get(room, -1):  # no other process hears the room: nobody to tell
                    self._unsent[room] = seq
                return
            self._unsent.pop(room, None)
        pending = self._pending.get(room)
        if pending is None or seq > pending[0]:
            carried = list(entries)
            if pending is not None and pending[1] and carried and seq - len(carried) == pending[0]:
                carried = pending[1] + carried  # the same room's entries since the last message
            if sum(map(len, carried)) > CARRIED_BYTES:
                carried = []
            self._pending[room] = (seq, carried)
        self._idle.clear()
        self._wake.set()

    async def flush(self) -> None:
        await self._idle.wait()

    async def _publish_forever(self) -> None:
        delay = self._min_delay
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, {}
            if batch:
                try:
                    await self._send(batch)
                except (RedisError, OSError) as error:
                    log.warning("redis bus: publish failed, retrying", extra={"error": str(error)})
                    for room, (seq, _) in batch.items():  # kept (without the entries: loaded instead)
                        if room not in self._pending or seq > self._pending[room][0]:
                            self._pending[room] = (seq, [])
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, self._max_delay)
                    self._wake.set()
                    continue
                delay = self._min_delay
            if not self._pending:
                self._idle.set()

    async def _send(self, batch: dict[str, tuple[int, list[bytes]]]) -> None:
        """One message on the namespace's channel (`every_room`), else one on each room's, all
        in one round trip."""
        if self.every_room:
            await self.redis.publish(self.channel, _encode_batch(_Batch(self.origin, batch)))
            return
        pairs: list[str | bytes] = []
        for room, notice in batch.items():
            pairs += (room_channel(self.namespace, room), _encode_batch(_Batch(self.origin, {room: notice})))
        await self._publish_each(args=pairs)

    # ------------------------------------------------------------------ receiving

    def hear(self, room: str) -> None:
        if self.every_room:
            self._deliver(Notice(room, HEARD))  # (as heard as it will ever be)
            return
        if room not in self._rooms:
            self._rooms.add(room)
            self._changed.add(room)
            self._change.set()

    def unhear(self, room: str) -> None:
        if room in self._rooms:  # (never, with every_room)
            self._rooms.discard(room)
            self._changed.add(room)
            self._change.set()
            self._confirmed.discard(room)
            self._unsent.pop(room, None)
            self._untold.add(room)
            self._tell.set()

    async def _announce_forever(self) -> None:
        """Say on the namespace's channel which rooms this process hears: at once the rooms it
        began or stopped hearing, and every `announce_every` seconds all of them."""
        next_full = time.monotonic()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._tell.wait(), max(0.0, next_full - time.monotonic()))
            self._tell.clear()
            now = time.monotonic()
            if self._stop.is_set():
                # the last saying: the others stop sending to this one now, not once it lapses.
                # Said by this task, after its own sayings: one still under way on another pooled
                # connection could otherwise reach Redis after it and say the rooms are heard again.
                with contextlib.suppress(RedisError, OSError):
                    await self.redis.publish(self.channel, _LISTENS + _encode_listens(_Listens(self.origin, [], True)))
                return
            if now >= next_full:
                next_full = now + self.announce_every
                self._untold.clear()
                listens = _Listens(self.origin, sorted(self._confirmed), True)
                self._forget_lapsed(now)
            else:
                untold, self._untold = self._untold, set()
                began = sorted(room for room in untold if room in self._confirmed)
                gone = sorted(room for room in untold if room not in self._rooms)
                if not began and not gone:
                    continue
                listens = _Listens(self.origin, began, False, gone)
            try:
                await self.redis.publish(self.channel, _LISTENS + _encode_listens(listens))
            except (RedisError, OSError) as error:  # (the next full one says it all again)
                log.info("redis bus: could not say which rooms are heard", extra={"error": str(error)})

    def _forget_lapsed(self, now: float) -> None:
        """Stop counting the processes that have not said what they hear for a while (gone)."""
        for origin, (rooms, lapses) in list(self._hears.items()):
            if lapses < now:
                del self._hears[origin]
                for room in rooms:
                    self._not_heard_by(room, origin)

    def _not_heard_by(self, room: str, origin: str) -> None:
        others = self._heard_by.get(room)
        if others is not None:
            others.discard(origin)
            if not others:
                del self._heard_by[room]

    def _listened(self, data: bytes) -> None:
        """Another process said which rooms it hears (`_Listens`, after its first byte)."""
        try:
            listens = _decode_listens(data)
        except msgspec.DecodeError:
            log.warning("redis bus: malformed message", extra={"data": repr(data[:80])})
            return
        origin = listens.origin
        if origin == self.origin or self.every_room:
            return
        before = self._hears[origin][0] if origin in self._hears else set()
        if listens.full:
            rooms, gone = set(listens.rooms), before - set(listens.rooms)
        else:
            rooms, gone = (before - set(listens.gone)) | set(listens.rooms), set(listens.gone) - set(listens.rooms)
        for room in gone:
            self._not_heard_by(room, origin)
        self._hears[origin] = (rooms, time.monotonic() + 3 * self.announce_every)
        for room in rooms - before:
            self._heard_by.setdefault(room, set()).add(origin)
            unsent = self._unsent.get(room)
            if unsent is not None:  # what it may have missed while nobody was told
                self.publish(room, unsent)

    async def _subscribe_forever(self) -> None:
        """Tell Redis which rooms this process hears now, whenever that changed (one command for
        all the changes since the last; in one task, so that they reach Redis in order)."""
        while True:
            await self._change.wait()
            self._change.clear()
            pubsub = self._pubsub
            if pubsub is None:  # (the listener subscribes to every room heard once it is back)
                continue
            changed, self._changed = self._changed, set()
            heard = [room_channel(self.namespace, room) for room in changed if room in self._rooms]
            unheard = [room_channel(self.namespace, room) for room in changed if room not in self._rooms]
            try:
                if heard:
                    await pubsub.subscribe(*heard)
                if unheard:
                    await pubsub.unsubscribe(*unheard)
            except (RedisError, OSError) as error:  # the listener reconnects, and subscribes again
                log.info("redis bus: rooms not heard yet", extra={"error": str(error)})

    async def _listen_forever(self) -> None:
        delay = self._min_delay
        subscribed_before = False
        while not self._closed:
            pubsub = self.redis.pubsub()
            try:
                self._changed.clear()  # (every room heard now is subscribed to now; later changes follow)
                await pubsub.subscribe(self.channel, *(room_channel(self.namespace, room) for room in self._rooms))
                self._pubsub = pubsub
                self._change.set()
                while not self._closed:  # a read returns within `poll` seconds: close() needs no cancel
                    message = await pubsub.get_message(timeout=self._poll)
                    if message is None:
                        continue
                    kind = message["type"]
                    if (
                        kind == "message"
                        and message["data"][:1] == _LISTENS
                        and message["channel"] == self._channel_bytes
                    ):
                        self._listened(message["data"][1:])
                    elif kind == "message":
                        # (its own are dropped: nothing this process does not know)
                        notices = parse_message(message["data"], self.origin)
                        if notices is None:
                            log.warning("redis bus: malformed message", extra={"data": repr(message["data"][:80])})
                        for notice in notices or ():
                            self._deliver(notice)
                    elif kind == "subscribe" and message["channel"].startswith(self._room_prefix):
                        room = message["channel"][len(self._room_prefix) :].decode()
                        if room in self._rooms:
                            self._deliver(Notice(room, HEARD))
                            self._confirmed.add(room)
                            self._untold.add(room)
                            self._tell.set()
                    elif kind == "subscribe" and message["channel"] == self.channel.encode():
                        # (also after redis-py reconnected by itself)
                        self.connected = True
                        delay = self._min_delay
                        # (what the others said while this was away is not known: each says it again)
                        self._loud_until = time.monotonic() + 1.5 * self.announce_every
                        if subscribed_before:
                            self.reconnections += 1
                            log.info("redis bus: subscribed again; resync", extra={"channel": self.channel})
                            self._deliver(RESYNC)
                        subscribed_before = True
                        self._subscribed.set()
            except (RedisError, OSError) as error:
                if self.connected:
                    log.warning("redis bus: disconnected, reconnecting", extra={"error": str(error)})
                self.connected = False
            finally:
                self._pubsub = None
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)
            delay = min(delay * 2, self._max_delay)

    # ------------------------------------------------------------------ the end

    async def close(self, timeout: float = 2.0) -> None:
        """Send what is pending (for up to ``timeout`` seconds), end the subscriptions, stop."""
        if self._tasks and not self._closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.flush(), timeout)
        self._close_subscriptions()  # also tells the listener to stop after its current read
        self._stop.set()
        listener, publisher, subscriber, *announcer = self._tasks or (None, None, None)
        self._tasks = []
        if announcer:  # (it says "nothing heard" and ends)
            self._tell.set()
            await asyncio.wait(announcer, timeout=1.0)
        for task in (publisher, subscriber, *announcer):
            if task is not None:
                task.cancel()
                await asyncio.wait([task], timeout=1.0)
        if listener is not None:
            await asyncio.wait([listener], timeout=self._poll + 1.0)
            if not listener.done():  # pragma: no cover - a read that outlived its own timeout
                listener.cancel()
                await asyncio.wait([listener], timeout=1.0)
        self.connected = False
        await self.redis.aclose()
