"""The WebSocket of the play protocol (`fabula.protocol`), one per seat: its origin checked, its
connection counted, then its whole conversation with the room service — or, with several
processes, passed on whole to the process that owns its room (relayed).

    /ws/{code}
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from urllib.parse import urlsplit

from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from fabula.store.owners import Line

from .config import Config
from .connections import CLOSE_BAD_ORIGIN, CLOSE_REASONS, CLOSE_RECONNECT, CLOSE_TOO_MANY, Connection, TokenBucket
from .metrics import Metrics
from .service import RoomService


class PlaySocket:
    def __init__(self, config: Config, metrics: Metrics, service: RoomService) -> None:
        self.config, self.metrics, self.service = config, metrics, service

    def routes(self) -> list[WebSocketRoute]:
        return [WebSocketRoute("/ws/{code}", self.endpoint)]

    def origin_allowed(self, websocket: WebSocket) -> bool:
        """A browser always sends Origin: it must be this server (or one configured); a client
        without Origin is not a browser, so no other site's page can be riding on it."""
        origin = websocket.headers.get("origin")
        if origin is None:
            return True
        origin = origin.rstrip("/")
        if origin in self.config.allow_origin:
            return True
        if self.config.public_url and origin == _origin_of(self.config.public_url):
            return True
        return urlsplit(origin).netloc == websocket.headers.get("host")

    async def endpoint(self, websocket: WebSocket) -> None:
        # Refusals accept first and then close with a code: a browser cannot read the status of
        # a refused handshake, but it can read a close code and reason.
        if not self.origin_allowed(websocket):
            self.metrics.errors.labels("bad_origin").inc()
            await websocket.accept()
            await websocket.close(code=CLOSE_BAD_ORIGIN, reason=CLOSE_REASONS[CLOSE_BAD_ORIGIN])
            return
        address = websocket.client.host if websocket.client else "unknown"
        if not self.service.admit(address):
            self.metrics.errors.labels("too_many_connections").inc()
            await websocket.accept()
            await websocket.close(code=CLOSE_TOO_MANY, reason=CLOSE_REASONS[CLOSE_TOO_MANY])
            return
        connection = Connection(
            address,
            TokenBucket(self.config.messages_per_second, self.config.message_burst),
            TokenBucket(self.config.chat_messages_per_second, self.config.chat_burst),
        )
        connection.code = websocket.path_params["code"].upper()
        await websocket.accept()
        relaying = Relaying(connection)
        line = await self.service.relay(connection, relaying)
        if line is not None:
            await _relay(websocket, connection, self.service, relaying, line)
            return
        sender = asyncio.create_task(_send_forever(websocket, connection))
        closing: int | None = None
        try:
            closing = await self.service.converse(connection, functools.partial(_receive, websocket))
        except WebSocketDisconnect:
            pass
        finally:
            self.service.release(connection)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender
            with contextlib.suppress(Exception):  # the client may be gone already
                for data in connection.outbox.drain():  # e.g. the error that explains the close
                    await websocket.send_text(data.decode())
                if closing is not None:
                    await websocket.close(code=closing, reason=CLOSE_REASONS[closing])


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def _send_forever(websocket: WebSocket, connection: Connection) -> None:
    while True:
        data = await connection.outbox.get()
        await websocket.send_text(data.decode())


async def _receive(websocket: WebSocket) -> bytes | str | None:
    """The client's next message; None once it has left."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    data: bytes | str | None = message.get("text")
    return data if data is not None else message.get("bytes") or b""


#: what a relayed connection's outbox holds last, once the owner closed it (`Relaying`)
_SHUT = b"(shut)"  # (compared by identity: a message that came in is never this object)


class Relaying:
    """This process's end of a connection it relays to its room's owner (`RoomService.relay`):
    what the owner sends goes into the connection's outbox, then, once the owner closes it (or
    is gone), the close."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.closing = CLOSE_RECONNECT

    def received(self, data: bytes, state: bool) -> None:
        self.connection.outbox.put(data, is_state=state)

    def ended(self, code: int | None) -> None:
        self.closing = CLOSE_RECONNECT if code is None else code
        self.connection.outbox.put(_SHUT)


async def _relay(
    websocket: WebSocket, connection: Connection, service: RoomService, relaying: Relaying, line: Line
) -> None:
    """Pass a client connection on to its room's owner until either side closes it."""
    sender = asyncio.create_task(_send_relayed(websocket, connection, relaying))
    # the owner refuses what is over its limit by the first bytes alone: a peer link never
    # carries more than that
    limit = service.config.max_message_bytes + 1
    try:
        while (message := await _receive(websocket)) is not None:
            data = (message.encode() if isinstance(message, str) else message)[:limit]
            if service.paced(connection, data):
                line.inbound(data)
    except WebSocketDisconnect:
        pass
    finally:
        service.unrelay(line)
        service.release(connection)
        if not sender.done():
            sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


async def _send_relayed(websocket: WebSocket, connection: Connection, relaying: Relaying) -> None:
    while (data := await connection.outbox.get()) is not _SHUT:
        await websocket.send_text(data.decode())
    code = relaying.closing
    await websocket.close(code=code, reason=CLOSE_REASONS.get(code, ""))
