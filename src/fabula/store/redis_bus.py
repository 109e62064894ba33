"""`RedisBus`: the fan-out bus (`fabula.store.bus`) across processes, through Redis pub/sub.

A `RedisBus` does not deliver the notices it published itself: they would be stale on arrival
(its room's seq is past them). Better, it does not send a room's notices at all while no other
process hears the room — the usual case, each room held by its owner alone — for Redis would
hand them back to their publisher only, which reads them to drop them.

Its notices go on a channel per room, ``"{namespace}:room:{CODE}"``, subscribed to by the processes
that hold the room (`Bus.hear`); on the namespace's channel, ``"{namespace}:rooms"``, each process
says which rooms it hears (`_Listens`: when that changes, and all of them every
`RedisBus.announce_every` seconds), so that a publisher knows whether anyone else hears a room. A
process that begins to hear a room checks it against the store once Redis confirms (`HEARD`), and
its publishers send it the newest seq they left unsent once they learn it hears; one that stops
saying what it hears (it died) lapses after three periods. For the first 1.5 periods after
subscribing, a bus sends every notice (it has not heard what the others hear yet). A message
holds a publisher's notices of one room (`_Batch`, `parse_message`). ``every_room`` puts every
notice on the namespace's channel for every process (presence, whose readers hold no rooms). It
reconnects by itself after Redis restarts or the connection drops; pub/sub keeps nothing for an
absent subscriber, so after every reconnection each subscription receives `RESYNC`
(``Notice(None, -1)``): "notices may have been lost — check every room you hold against the
store".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from .bus import (
    _LISTENS,
    CARRIED_BYTES,
    HEARD,
    RESYNC,
    Notice,
    _Batch,
    _decode_listens,
    _encode_batch,
    _encode_listens,
    _Fanout,
    _Listens,
    channel_name,
    parse_message,
    room_channel,
)
from .redis_client import redis_client

if TYPE_CHECKING:
    from .lease import RedisLease

# (the bus's logger, as it was named before RedisBus had a module of its own)
log = logging.getLogger("fabula.store.bus")

#: Publishes message ARGV[i + 1] on channel ARGV[i] for each pair: one command for the notices of
#: many rooms (a pipeline of a PUBLISH a room cost the client 4–5× as much CPU at 834 rooms,
#: `benchmarks/bus.py`).
_PUBLISH_EACH = """
for i = 1, #ARGV, 2 do
    redis.call('PUBLISH', ARGV[i], ARGV[i + 1])
end
return 0
"""


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
