"""Both ends of a client connection relayed whole to its room's owner (`owners.RoomOwners.relay`):

- at the process the client reached, `Relaying` puts what the owner sends into the connection's
  outbox and `relay_socket` passes the client's messages on, until either side closes;
- at the owner, `Hosted` serves it exactly as one of its own connections (`Conversation.converse`),
  its outbox a `LineOutbox` onto the peer link.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..config import Config
from ..connections import CLOSE_REASONS, CLOSE_RECONNECT, Connection, Outbox, TokenBucket
from ..metrics import Metrics
from .links import Line

#: what a relayed connection's outbox holds last, once the owner closed it (`Relaying`)
_SHUT = b"(shut)"  # (compared by identity: a message that came in is never this object)


class Serving(Protocol):
    """What serves a connection's conversation (`fabula.server.conversation.Conversation`)."""

    async def converse(
        self, connection: Connection, receive: Callable[[], Awaitable[bytes | str | None]]
    ) -> int | None: ...

    def release(self, connection: Connection, *, admitted: bool = True) -> None: ...

    def paced(self, connection: Connection, data: bytes | str) -> bool: ...


class LineOutbox(Outbox):
    """A relayed connection's outbox at its room's owner: each message goes onto the peer link
    at once (the relaying process's outbox for the client keeps only the newest unsent state)."""

    relayed = True

    def __init__(self, line: Line) -> None:
        super().__init__()
        self.line = line

    def put(self, data: bytes, *, is_state: bool = False, paced: bool = False) -> None:
        if not self.closed:  # (the relaying process paces what is ``paced``, and a crowd's state)
            self.line.outbound(data, is_state, paced)


class Hosted:
    """The owner's end of a connection another process relays to it: served exactly as one of
    this process's own, its messages in the order they came; ``ended`` tells the relaying
    process how it closed."""

    def __init__(
        self,
        serving: Serving,
        code: str,
        address: str,
        line: Line,
        *,
        config: Config,
        metrics: Metrics,
        ended: Callable[[Line, int | None], None],
    ) -> None:
        self.connection = Connection(
            address,
            TokenBucket(config.messages_per_second, config.message_burst),
            TokenBucket(config.chat_messages_per_second, config.chat_burst),
            outbox=LineOutbox(line),
        )
        self.connection.code = code
        self.line, self.metrics, self._serving, self._ended = line, metrics, serving, ended
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.serving = asyncio.create_task(self._serve(), name=f"relayed connection {code}")
        metrics.hosted.inc()

    def received(self, data: bytes, state: bool, *, paced: bool = False) -> None:
        del state, paced  # (only the owner sends states, and to a crowd)
        self._inbox.put_nowait(data)

    def ended(self, code: int | None) -> None:
        del code
        self._inbox.put_nowait(None)

    async def _serve(self) -> None:
        closing = None
        try:
            closing = await self._serving.converse(self.connection, self._inbox.get)
        finally:
            self._serving.release(self.connection, admitted=False)
            self.metrics.hosted.dec()
            self._ended(self.line, closing)


class Relaying:
    """The relaying process's end: what the owner sends goes into the connection's outbox, then,
    once the owner closes it (or is gone), the close."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.closing = CLOSE_RECONNECT

    def received(self, data: bytes, state: bool, *, paced: bool = False) -> None:
        self.connection.outbox.put(data, is_state=state, paced=paced)

    def ended(self, code: int | None) -> None:
        self.closing = CLOSE_RECONNECT if code is None else code
        self.connection.outbox.write_now = None  # (the end is for the sender, not the socket)
        self.connection.outbox.put(_SHUT)


async def relay_socket(
    websocket: WebSocket,
    receive: Callable[[], Awaitable[bytes | str | None]],
    relaying: Relaying,
    line: Line,
    *,
    serving: Serving,
    unrelay: Callable[[Line], None],
    max_message_bytes: int,
) -> None:
    """Pass a client connection on to its room's owner until either side closes it."""
    connection = relaying.connection
    sender = asyncio.create_task(_send_relayed(websocket, relaying))
    # the owner refuses what is over its limit by the first bytes alone: a peer link never
    # carries more than that
    limit = max_message_bytes + 1
    try:
        while (message := await receive()) is not None:
            data = (message.encode() if isinstance(message, str) else message)[:limit]
            if serving.paced(connection, data):
                line.inbound(data)
    except WebSocketDisconnect:
        pass
    finally:
        unrelay(line)
        serving.release(connection)
        if not sender.done():
            sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


async def _send_relayed(websocket: WebSocket, relaying: Relaying) -> None:
    while (data := await relaying.connection.outbox.get()) is not _SHUT:
        await websocket.send_text(data.decode())
    code = relaying.closing
    await websocket.close(code=code, reason=CLOSE_REASONS.get(code, ""))
