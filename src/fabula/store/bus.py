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

Two buses:

- `LocalBus`: in-process, the zero-setup default. With one process there is nobody to tell, so
  it only matters to code that subscribes in the same process (tests, tools).
- `RedisBus` (`fabula.store.redis_bus`): Redis pub/sub on a channel per room, heard by the
  processes that hold the room; after every reconnection each subscription receives `RESYNC`
  (``Notice(None, -1)``): "notices may have been lost — check every room you hold against the
  store".

What the Redis bus says on its channels is written down here, beside the notices it carries: the
channels' names (`channel_name`, `room_channel`), a publisher's notices as one msgpack message
(`_Batch`: its origin, so that it can drop its own, and per room the seq and the entries, at most
`CARRIED_BYTES` of them; the text ``b"CODE:SEQ@ORIGIN"`` and ``b"CODE:SEQ"`` of earlier versions
are understood too: `parse_message`), and which rooms a process hears (`_Listens`).

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
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self

import msgspec


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


# ------------------------------------------------------------------ what the Redis bus says


def channel_name(namespace: str) -> str:
    """The Redis channel of a server namespace: every process of one deployment uses the same."""
    return f"{namespace}:rooms"


def room_channel(namespace: str, room: str) -> str:
    """The Redis channel of room ``room``'s notices: only the processes holding it listen."""
    return f"{namespace}:room:{room}"


#: Entries a notice carries at most, in bytes (a room's newest entries are a few hundred bytes
#: each; a bigger batch goes without them, and its readers load them from the store).
CARRIED_BYTES = 1 << 16

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
