"""Connections: one WebSocket each, its outbox and its rate limits, and how many one address holds.

A connection never writes to its socket itself: whatever the server sends goes into its
`Outbox`, which writes it to the socket at once if the socket takes it without waiting, and else
leaves it to the socket's sender task (`fabula.server.play_socket`), so that a slow client holds up
only itself. What goes to a crowd (the spectators' and the audience's state) goes a slice per
turn of the event loop, so that a player's move read meanwhile waits for a few dozen sends, not
for thousands: from the room's owner by `fabula.server.fanout.CrowdDelivery`, and from a process
that relays a crowd's connections to it through their outboxes, paced (`Pacer`).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

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


#: How many of a crowd's connections are sent to in one turn of the event loop (paced outboxes
#: woken, watchers reached by a state, voters answered). Between two turns the loop reads its
#: sockets: a move that arrives while a state goes to 2,000 watchers waits for at most this many
#: sends (0.7 ms, the median of 8,143 slices timed with 2,000 watching), not for all of them.
PACED_PER_TURN = 32


class Pacer:
    """Outboxes to wake, `PACED_PER_TURN` a turn of the running event loop, first come first
    woken (one for the whole process, so that two rooms' crowds take turns too)."""

    def __init__(self) -> None:
        self._due: deque[Outbox] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stepping = False

    def wake(self, outbox: Outbox) -> None:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # (a loop gone, e.g. a test's, left nothing to wake here)
            self._loop, self._stepping = loop, False
            self._due.clear()
        self._due.append(outbox)
        if not self._stepping:
            self._stepping = True
            loop.call_soon(self._step)

    def _step(self) -> None:
        for _ in range(min(PACED_PER_TURN, len(self._due))):
            self._due.popleft().wake()
        if self._due and self._loop is not None:
            self._loop.call_soon(self._step)
        else:
            self._stepping = False


PACER = Pacer()


class Outbox:
    """What a connection still has to send. A state snapshot replaces an unsent older one in its
    place (each is complete, and a state still comes before the ``ack`` sent after it), so a slow
    client gets the newest state, never a growing backlog.

    With ``write_now`` (a socket that can be written at once, `fabula.server.shared_deflate`)
    what is put is written there and then while the sender task waits with nothing in hand; only
    what the socket cannot take now waits for the sender. Waking a task for each message made
    and kept, for each of 2,000 idle watchers and each state, a coroutine, a future and a waiting
    `get` — thousands of young objects that every collection of the young generations walked
    (docs/deploy.md, *The audience*).
    """

    def __init__(self, write_now: Callable[[bytes], bool] | None = None) -> None:
        self._queue: deque[tuple[bool, bytes]] = deque()
        self._ready = asyncio.Event()
        self._pacing = False
        #: the sender task waits in `get` with nothing in hand (so a message written now cannot
        #: overtake one it holds)
        self._idle = False
        self.write_now = write_now
        self.closed = False

    #: whether what is put here goes onto a peer link to the process that holds the socket (a
    #: list entry), not to a socket of this process (a system call)
    relayed: ClassVar[bool] = False

    def put(self, data: bytes, *, is_state: bool = False, paced: bool = False) -> None:
        """Queue ``data``; ``paced``: it is sent when the `PACER` comes to it (what goes to a
        crowd), else at once."""
        if self.closed:
            return
        if is_state:
            for index, (queued_is_state, _) in enumerate(self._queue):
                if queued_is_state:
                    self._queue[index] = (True, data)
                    return
        self._queue.append((is_state, data))
        if not paced:
            self._send()
        elif not self._pacing and not self._ready.is_set():
            self._pacing = True
            PACER.wake(self)

    def wake(self) -> None:
        """The `PACER` came to this outbox."""
        self._pacing = False
        self._send()

    def _send(self) -> None:
        """Write what is queued to the socket, if it takes it now; else wake the sender task."""
        if self._idle and self.write_now is not None and not self.closed:
            while self._queue and self.write_now(self._queue[0][1]):
                self._queue.popleft()
            if not self._queue:
                return
        self._ready.set()

    def drain(self) -> list[bytes]:
        """Everything not sent yet (to flush it before closing)."""
        pending = [data for _, data in self._queue]
        self._queue.clear()
        return pending

    async def get(self) -> bytes:
        while not self._queue:
            self._ready.clear()
            self._idle = True
            try:
                await self._ready.wait()
            finally:
                self._idle = False
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
    #: the state last put in the outbox (a crowd's state goes once to each: `CrowdDelivery`)
    shown: bytes | None = None

    def send(self, message: p.AnyServerMessage, *, paced: bool = False) -> None:
        """Send ``message``; to an audience member always paced (`Outbox.put`): thousands of them
        are answered at once (a batch of votes stored, a reveal's standings)."""
        paced = paced or self.watcher is not None
        self.outbox.put(p.encode(message), is_state=isinstance(message, p.State), paced=paced)

    def send_state(self, encoded: bytes, *, paced: bool = False) -> None:
        """A `State` encoded once for every connection that sees the same (the spectators',
        ``paced``: `Outbox.put`)."""
        self.shown = encoded
        self.outbox.put(encoded, is_state=True, paced=paced)

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
