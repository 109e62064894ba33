"""How a player's messages travel: the lean client (the default) or `fabula.client.Client`
(``--client fabula``, to measure what that client costs the generator).

Both send the typed messages of `fabula.protocol`, encoded by `fabula.client.encode`: the same
bytes on the wire. They differ in what they read. `fabula.client` decodes every message in full
on every connection; the lean link reads the whole state on the room's observer only, just the
``seq`` on the others, and decodes the other messages straight into the protocol's types (one
decoder, where `fabula.client.decode` goes through a JSON object first: 10 µs an ack here
against 0.2).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import msgspec
import websockets

from fabula.client import Client, Received, encode, websocket_url
from fabula.protocol import AnyServerMessage, ClientMessage, Hello, Welcome

from .players import Player
from .websocket import WebSocketClient

#: The room's ``seq`` is the second key of every state (``{"type":"state","room":{"code":…,"seq":…``):
#: players other than the room's observer read only that, not the whole state.
SEQ = re.compile(rb'"seq":(\d+)')
STATE_PREFIX = b'{"type":"state"'
#: What a connection fails with when it cannot be opened (counted by name).
OPEN_FAILURES = (OSError, TimeoutError, ConnectionError, websockets.WebSocketException)

decode_json: Callable[[bytes], Any] = msgspec.json.decode
decode_reply = msgspec.json.Decoder(AnyServerMessage).decode

#: sends of ``--client fabula`` under way: a task is kept until it is done
SENDING: set[asyncio.Task[None]] = set()


class LeanLink:
    """A player's connection over the lean WebSocket client."""

    def __init__(self, player: Player, deflate: bool) -> None:
        self.player, self.offer_deflate = player, deflate
        self.socket: WebSocketClient | None = None

    async def open(self, timeout: float = 30) -> bool:
        """Connect and say hello: whether the welcome and the first state came within ``timeout``."""
        player = self.player
        loop = asyncio.get_running_loop()
        parts = urlsplit(websocket_url(player.url, player.table.code))
        _, socket = await loop.create_connection(
            lambda: WebSocketClient(parts.netloc, parts.path, self.offer_deflate, self.on_frame, player.on_close),
            parts.hostname or "127.0.0.1",
            parts.port or 80,
        )
        self.socket = socket
        try:
            await asyncio.wait_for(socket.opened, timeout)
        except BaseException:
            socket.abort()  # a handshake that never ended must not hold a descriptor for the run
            raise
        player.link, player.connected = self, True
        player.send(Hello, token=player.token)
        deadline = loop.time() + timeout
        while not (player.greeted and player.history) and loop.time() < deadline and player.connected:
            await asyncio.sleep(0.01)
        return player.greeted

    def on_frame(self, data: bytes) -> None:
        now = time.monotonic()
        player = self.player
        if data.startswith(STATE_PREFIX):
            if player is player.table.observer:
                room = decode_json(data)["room"]
                player.on_state(now, int(room["seq"]), room, len(data))
                return
            found = SEQ.search(data, 0, 200)
            if found is None:
                player.counted(now)
                player.table.figures.errors["unreadable_state"] += 1
                return
            player.on_state(now, int(found.group(1)), None, len(data))
            return
        try:
            message = decode_reply(data)
        except msgspec.ValidationError:  # a message this protocol does not know (a newer server's)
            player.counted(now)
            return
        except msgspec.DecodeError:
            player.counted(now)
            player.table.figures.errors["unreadable_message"] += 1
            return
        player.on_reply(now, message)

    @property
    def deflate(self) -> bool:
        return self.socket is not None and self.socket.deflate

    def send(self, message: ClientMessage) -> None:
        if self.socket is not None:
            self.socket.send_text(encode(message))

    async def close(self) -> None:
        if self.socket is not None:
            self.socket.close()

    def abort(self) -> None:
        if self.socket is not None:
            self.socket.abort()


class FabulaLink:
    """A player's connection over `fabula.client.Client` (its own hello, ids and history)."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.client = Client(
            player.url, player.table.code, player.token, ids=player.ids, history=16, on_message=self.on_received
        )

    async def open(self, timeout: float = 30) -> bool:
        try:
            reply = await self.client.connect(timeout=timeout)
        except BaseException:
            with contextlib.suppress(Exception):  # its reading task, if the socket opened
                await self.client.close()
            raise
        self.player.link, self.player.connected = self, True
        return isinstance(reply, Welcome)

    def on_received(self, received: Received) -> None:
        now = time.monotonic()
        player = self.player
        if received.type == "state":
            room = received.data["room"]
            whole = room if player is player.table.observer else None
            player.on_state(now, int(room["seq"]), whole, len(received.text))
        elif received.message is not None:
            player.on_reply(now, received.message)
        else:
            player.counted(now)

    @property
    def deflate(self) -> bool:
        socket = self.client.socket
        return socket is not None and bool(socket.protocol.extensions)

    def send(self, message: ClientMessage) -> None:
        # a player acts from a callback: the client's send is awaited in a task of its own
        task = asyncio.create_task(self.client.send(message))
        SENDING.add(task)
        task.add_done_callback(SENDING.discard)

    async def close(self) -> None:
        await self.client.close()
        self.player.connected = False

    def abort(self) -> None:
        pass  # closed by `close`, which waits for it


async def open_link(player: Player, client: str, deflate: bool) -> bool:
    """Connect ``player`` with ``client`` (``lean`` or ``fabula``): whether it was welcomed.
    `OPEN_FAILURES` if the connection could not be opened."""
    link = LeanLink(player, deflate) if client == "lean" else FabulaLink(player)
    return await link.open()
