"""The load generator's stamped sockets (benchmarks/load/stamped.py): a message read late still
says when it reached the socket, and what the client writes reaches the server."""

from __future__ import annotations

import asyncio
import time
from types import ModuleType

import pytest

pytestmark = pytest.mark.anyio


class _Reader(asyncio.Protocol):
    def __init__(self) -> None:
        self.chunks: list[tuple[float, bytes]] = []
        self.got = asyncio.Event()
        self.lost = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        self.chunks.append((time.monotonic(), data))
        self.got.set()

    def connection_lost(self, exc: Exception | None) -> None:
        del exc
        self.lost.set()


async def test_a_message_read_late_keeps_the_time_it_arrived(stamped: ModuleType) -> None:
    heard: asyncio.Queue[bytes] = asyncio.Queue()
    writers: list[asyncio.StreamWriter] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        heard.put_nowait(await reader.readexactly(5))

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        transport, reader = await stamped.open_stamped(_Reader, "127.0.0.1", port)
        transport.write(b"hello")
        assert await asyncio.wait_for(heard.get(), 5) == b"hello"

        before = time.monotonic()
        writers[0].write(b"a state")
        await writers[0].drain()
        time.sleep(0.3)  # this process busy: the bytes wait in the socket, unread
        await asyncio.wait_for(reader.got.wait(), 5)
        read_at, data = reader.chunks[-1]
        assert data == b"a state"
        assert before <= transport.arrived <= before + 0.1
        assert read_at - transport.arrived >= 0.25

        writers[0].close()
        await asyncio.wait_for(reader.lost.wait(), 5)
        assert transport.is_closing()
    finally:
        server.close()
        await server.wait_closed()
