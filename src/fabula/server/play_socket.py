"""The WebSocket of the play protocol (`fabula.protocol`), one per seat: its origin checked, its
connection counted, then its whole conversation with the room service — or, with several
processes, passed on whole to the process that owns its room (relayed).

    /ws/{code}
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .cluster.relay import Relaying, relay_socket
from .config import Config
from .connections import CLOSE_BAD_ORIGIN, CLOSE_REASONS, CLOSE_TOO_MANY, Connection, TokenBucket
from .metrics import Metrics
from .service import RoomService
from .shared_deflate import WRITE_NOW


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
        conversation, cluster = self.service.conversation, self.service.cluster
        if not conversation.admit(address):
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
        connection.outbox.write_now = _writer_of(websocket)
        receive = functools.partial(_receive, websocket)
        relaying = Relaying(connection)
        line = await cluster.relay(connection, relaying)
        if line is not None:
            await relay_socket(
                websocket,
                receive,
                relaying,
                line,
                serving=conversation,
                unrelay=cluster.unrelay,
                max_message_bytes=self.config.max_message_bytes,
            )
            return
        sender = asyncio.create_task(_send_forever(websocket, connection))
        closing: int | None = None
        try:
            closing = await conversation.converse(connection, receive)
        except WebSocketDisconnect:
            pass
        finally:
            conversation.release(connection)
            sender.cancel()
            # What is left, then the close, before anything else runs: the error that explains the
            # close is often written already (at once, `Outbox.write_now`), and a client that
            # read it could otherwise close first, never to learn the close's code
            with contextlib.suppress(Exception):  # the client may be gone already
                for data in connection.outbox.drain():
                    await websocket.send_text(data.decode())
                if closing is not None:
                    await websocket.close(code=closing, reason=CLOSE_REASONS[closing])
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _writer_of(websocket: WebSocket) -> Callable[[bytes], bool] | None:
    """How ``websocket`` is written at once, if its server can (`shared_deflate.WRITE_NOW`)."""
    extension = websocket.scope.get("extensions", {}).get(WRITE_NOW)
    return None if extension is None else extension["write"]


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
