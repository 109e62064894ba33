"""One lean WebSocket connection of the audience benchmark (a player's or an audience member's),
and opening many at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import msgspec

from fabula.client import websocket_url

from .stamped import StampedTransport, open_stamped
from .websocket import WebSocketClient

encode = msgspec.json.encode


def _nothing(*_: object) -> None:
    pass


class Link:
    """One lean WebSocket connection; ``on_message`` is given each message with the time it was
    read, and `arrival` tells when it reached the socket (with ``stamped``, the kernel's time:
    `fabula`'s delivery, not this generator's reading)."""

    def __init__(
        self, url: str, code: str, deflate: bool, inflated: dict[bytes, bytes] | None = None, *, stamped: bool = True
    ) -> None:
        self.url, self.code, self.deflate, self.stamped = url, code, deflate, stamped
        #: shared by a crowd's links (`WebSocketClient.inflated`)
        self.inflated = inflated
        #: given by the link's player or watcher
        self.on_message: Callable[[float, bytes], None] = _nothing
        self.socket: WebSocketClient | None = None
        self.ids = 0
        #: (seq, arrival at the socket, read here) of every state received while counting
        self.states: list[tuple[int, float, float]] = []
        self._stamps: StampedTransport | None = None

    async def open(self, hello: dict[str, Any], timeout: float = 60) -> None:
        parts = urlsplit(websocket_url(self.url, self.code))
        loop = asyncio.get_running_loop()

        def client() -> WebSocketClient:
            return WebSocketClient(
                parts.netloc, parts.path, self.deflate, self._frame, _nothing, inflated=self.inflated
            )

        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        if self.stamped:
            self._stamps, protocol = await open_stamped(client, host, port)
        else:
            _, protocol = await loop.create_connection(client, host, port)
        assert isinstance(protocol, WebSocketClient)
        self.socket = socket = protocol
        await asyncio.wait_for(socket.opened, timeout)
        self.send({"type": "hello", **hello})

    def _frame(self, data: bytes) -> None:
        self.on_message(time.monotonic(), data)

    def arrival(self, read: float) -> float:
        """When what was read at ``read`` reached the socket (the kernel's stamp of the read's
        last packet, with ``stamped``; else ``read`` itself)."""
        return read if self._stamps is None else min(read, self._stamps.arrived)

    def send(self, message: dict[str, Any]) -> str:
        self.ids += 1
        message_id = f"m{self.ids}"
        if self.socket is not None:
            self.socket.send_text(encode({**message, "id": message_id}))
        return message_id

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()


async def connect(links: list[tuple[Link, dict[str, Any]]], ready: Callable[[], int], concurrency: int = 200) -> float:
    """Open every link and say hello; seconds until all are welcomed."""
    started = time.monotonic()
    gate = asyncio.Semaphore(concurrency)

    async def one(link: Link, hello: dict[str, Any]) -> None:
        async with gate:
            await link.open(hello)

    await asyncio.gather(*(one(link, hello) for link, hello in links))
    deadline = time.monotonic() + 120
    while ready() < len(links) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if ready() < len(links):
        raise RuntimeError(f"only {ready()} of {len(links)} connections were welcomed")
    return time.monotonic() - started
