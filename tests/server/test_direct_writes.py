"""An outbox writes to a socket that can take a message at once, without waking its sender task;
whatever the socket cannot take now, and everything after it, goes by the sender, in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast
from unittest.mock import MagicMock

import pytest
import websockets
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from fabula.protocol import Ack
from fabula.server.cluster.links import Line, Outbound, PeerLink
from fabula.server.cluster.owners import RoomOwners
from fabula.server.cluster.relay import _SHUT, LineOutbox, Relaying
from fabula.server.connections import CLOSE_NO_ROOM, Connection, Outbox, TokenBucket, Watcher
from fabula.server.local import serving
from fabula.server.shared_deflate import WRITE_NOW

from .harness import Client, live_server

pytestmark = pytest.mark.anyio


class Socket:
    """A socket's two ways in: written at once while ``open``, and by the sender task."""

    def __init__(self) -> None:
        self.open = True
        self.got: list[tuple[str, bytes]] = []

    def write_now(self, data: bytes) -> bool:
        if self.open:
            self.got.append(("at once", data))
        return self.open


async def _sender(outbox: Outbox, socket: Socket, sending: asyncio.Event | None = None) -> None:
    """As a socket's sender task; with ``sending``, each send waits for it (a slow socket)."""
    while True:
        data = await outbox.get()
        if sending is not None:
            await sending.wait()
        socket.got.append(("by the sender", data))


async def _turns(count: int = 5) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def _idle_outbox(sending: asyncio.Event | None = None) -> tuple[Socket, Outbox, asyncio.Task[None]]:
    """A socket, its outbox, and its sender task waiting with nothing in hand."""
    socket = Socket()
    outbox = Outbox(socket.write_now)
    task = asyncio.create_task(_sender(outbox, socket, sending))
    await _turns()
    return socket, outbox, task


async def test_an_idle_outbox_writes_at_once_and_a_paced_one_when_the_pacer_comes() -> None:
    socket, outbox, task = await _idle_outbox()

    outbox.put(b"an answer")
    assert socket.got == [("at once", b"an answer")], "written in the call that put it"
    outbox.put(b"the crowd's state", is_state=True, paced=True)
    assert socket.got == [("at once", b"an answer")], "a paced state waits for the pacer's turn"
    await _turns()
    assert socket.got == [("at once", b"an answer"), ("at once", b"the crowd's state")]
    task.cancel()


async def test_what_the_socket_cannot_take_waits_and_nothing_overtakes_it() -> None:
    socket, outbox, task = await _idle_outbox()

    outbox.put(b"one")
    socket.open = False  # (its buffer full)
    outbox.put(b"two")
    assert socket.got == [("at once", b"one")]
    socket.open = True
    outbox.put(b"three")  # (the sender has not run yet: "two" is still first in line)
    await _turns()

    assert [data for _, data in socket.got] == [b"one", b"two", b"three"]
    assert socket.got[0] == ("at once", b"one")
    task.cancel()


async def test_nothing_is_written_at_once_while_the_sender_holds_a_message() -> None:
    sending = asyncio.Event()
    socket, outbox, task = await _idle_outbox(sending)
    socket.open = False
    outbox.put(b"first")
    socket.open = True
    await _turns()  # (the sender took "first" and waits for its slow socket)

    outbox.put(b"second")
    assert socket.got == [], "'second' would have overtaken 'first'"
    sending.set()
    await _turns()
    assert socket.got == [("by the sender", b"first"), ("by the sender", b"second")]
    task.cancel()


async def test_a_relayed_connections_end_goes_to_its_sender_not_to_the_socket() -> None:
    socket = Socket()
    connection = Connection("127.0.0.1", TokenBucket(10, 10), TokenBucket(10, 10))
    connection.outbox.write_now = socket.write_now
    relaying = Relaying(connection)
    taken: list[bytes] = []

    async def sender() -> None:
        while (data := await connection.outbox.get()) is not _SHUT:
            taken.append(data)

    task = asyncio.create_task(sender())
    await _turns()
    relaying.received(b"a state", True)
    relaying.ended(None)
    await asyncio.wait_for(task, 1)
    assert socket.got == [("at once", b"a state")]
    assert taken == []


async def test_the_server_lets_a_websocket_be_written_at_once_until_it_closes() -> None:
    writers: list[Callable[[bytes], bool]] = []
    closed = asyncio.Event()

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        write = websocket.scope["extensions"][WRITE_NOW]["write"]
        writers.append(write)
        assert write(b"hello, at once")
        await websocket.receive()  # (the client's close)
        closed.set()

    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    async with serving(app) as base:
        async with websockets.connect(base.replace("http", "ws") + "/ws") as client:
            assert await asyncio.wait_for(client.recv(), 5) == "hello, at once"
            protocol: Any = writers[0].__self__  # type: ignore[attr-defined]
            protocol.pause_writing()  # (as the transport says when its buffer is full)
            assert not writers[0](b"not now")
            protocol.resume_writing()
            assert writers[0]("é, again".encode())
            assert await asyncio.wait_for(client.recv(), 5) == "é, again"
        await asyncio.wait_for(closed.wait(), 5)
        assert not writers[0](b"after the close")


async def test_the_close_follows_its_error_before_a_client_can_close_first(tmp_path: Path) -> None:
    """The error that explains a close is written at once; the close must follow before anything
    else runs, or a client that closes on reading the error never learns the close's code (11 of
    60 such clients got 1000 instead of 4404 when the close waited for the sender task's end)."""
    with live_server(tmp_path / "data") as server:
        codes = []
        for _ in range(40):
            client = Client(server.url, "ZZZZZ", "x" * 32)
            assert (await client.connect())["code"] == "no_room"
            await asyncio.wait_for(client.close(), 5)  # at once, as the error is read
            assert client.socket is not None
            codes.append(client.socket.close_code)
    assert codes == [CLOSE_NO_ROOM] * 40


async def test_an_audience_members_answers_are_paced_across_a_link_and_a_players_are_written_at_once() -> None:
    """The owner answers thousands of relayed voters at once; the process holding their sockets
    reads those answers in a few big pieces of its link. Written there and then, each a system
    call, they held a relayed player's state behind them all: an audience member's messages go
    paced (the `PACER`'s slices), a player's at once."""
    wire: list[bytes] = []

    class Transport:
        def write(self, data: bytes) -> None:
            wire.append(data)

        def is_closing(self) -> bool:
            return False

    owner_side = PeerLink(lambda _link, _frame: None, lambda _: None)
    owner_side.connection_made(cast(asyncio.Transport, Transport()))
    bucket = TokenBucket(9, 9)
    voter = Connection("10.0.0.2", bucket, bucket, outbox=LineOutbox(Line(owner_side, 7)), watcher=Watcher("a1", "Fan"))
    player = Connection("10.0.0.2", bucket, bucket, outbox=LineOutbox(Line(owner_side, 8)), member=0)
    voter.send(Ack("v1", 12))
    player.send(Ack("m1", 13))
    await _turns(1)  # (a link writes its frames at the end of the turn)

    frames: list[Outbound] = []
    relaying_side = PeerLink(lambda _, frame: frames.append(cast(Outbound, frame)), lambda _: None)
    relaying_side.data_received(b"".join(wire))
    assert [(frame.session, frame.paced) for frame in frames] == [(7, True), (8, False)]

    sockets = {}
    relayed = {}
    tasks = []
    for session in (7, 8):
        sockets[session], outbox, task = await _idle_outbox()
        relayed[session] = Relaying(Connection("10.0.0.9", bucket, bucket, outbox=outbox))
        tasks.append(task)
    owners = RoomOwners(MagicMock(), "test")  # (the link's frames only: no Redis asked)
    for session, end in relayed.items():
        owners._relaying[session] = (relaying_side, end)
    for frame in frames:
        owners._heard(relaying_side, frame)
    assert not sockets[7].got, "the voter's answer waits for the pacer"
    assert [how for how, _ in sockets[8].got] == ["at once"], "the player's is written in the same call"
    await _turns()
    assert [how for how, _ in sockets[7].got] == ["at once"]
    for task in tasks:
        task.cancel()
