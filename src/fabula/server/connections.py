"""Connections: one WebSocket each, its outbox and its rate limits, and how many one address holds.

A connection never writes to its socket itself: whatever the server sends goes into its
`Outbox`, which the socket's sender task (`fabula.server.app`) empties, so that a slow client
holds up only itself.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from fabula import protocol as p
from fabula.protocol.audience import AudienceYou

from .metrics import Metrics

#: Seconds a new connection has to say hello.
HELLO_SECONDS = 15.0

#: Why the server closes a WebSocket: close code → reason (also sent as the close reason).
CLOSE_BAD_ORIGIN = 4403
CLOSE_NO_ROOM = 4404
CLOSE_NO_HELLO = 4408
CLOSE_TOO_MANY = 4429
#: (WebSocket's "service restart") the process that served the room is gone: connect again
CLOSE_RECONNECT = 1012
CLOSE_REASONS = {
    CLOSE_BAD_ORIGIN: "origin not allowed",
    CLOSE_NO_ROOM: "no such room",
    CLOSE_NO_HELLO: "no hello in time",
    CLOSE_TOO_MANY: "too many connections from this address",
    CLOSE_RECONNECT: "the room moved to another server process; connect again",
}


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


@dataclass(frozen=True, slots=True)
class Watcher:
    """A member of a room's audience, as their connection knows them."""

    #: from their audience token's hash (`fabula.server.ballots.audience_id`)
    id: str
    name: str


@dataclass(eq=False)
class Connection:
    """One WebSocket: a member's seat (``member`` set), or a spectator — a member of the
    audience if ``watcher`` is set."""

    address: str
    bucket: TokenBucket
    chat_bucket: TokenBucket
    outbox: Outbox = field(default_factory=Outbox)
    code: str | None = None
    member: int | None = None
    greeted: bool = False
    watcher: Watcher | None = None
    #: the audience standing last sent to this connection (sent again only when it changes)
    standing: AudienceYou | None = None

    def send(self, message: p.AnyServerMessage) -> None:
        self.outbox.put(p.encode(message), is_state=isinstance(message, p.State))

    def send_state(self, encoded: bytes) -> None:
        """A `State` encoded once for every connection that sees the same (the spectators')."""
        self.outbox.put(encoded, is_state=True)

    def close(self) -> None:
        """Send nothing more (the socket is gone)."""
        self.outbox.closed = True


class Admission:
    """How many connections each address holds, against ``limit``."""

    def __init__(self, limit: int, metrics: Metrics) -> None:
        self.limit, self.metrics = limit, metrics
        self.held: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False if it already holds too many."""
        held = self.held.get(address, 0)
        if held >= self.limit:
            return False
        self.held[address] = held + 1
        self.metrics.connections.inc()
        return True

    def release(self, address: str) -> None:
        """One connection from ``address`` closed."""
        self.held[address] -= 1
        if not self.held[address]:
            del self.held[address]
        self.metrics.connections.dec()
