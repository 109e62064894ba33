"""The load generator's lean WebSocket client (benchmarks/load/websocket.py): frames as they
arrive, however the reads cut them, and a crowd's compressed states inflated once for all."""

from __future__ import annotations

import zlib
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.anyio


class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass


def _opened(websocket: ModuleType, extensions: str, inflated: dict[bytes, bytes] | None) -> tuple[Any, list[bytes]]:
    received: list[bytes] = []
    client = websocket.WebSocketClient("h", "/ws", True, received.append, lambda _: None, inflated=inflated)
    client.connection_made(_Transport())
    client.data_received(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + f"Sec-WebSocket-Extensions: {extensions}\r\n\r\n".encode()
    )
    assert client.open
    assert client.deflate
    return client, received


def _compressed(text: bytes, compressor: Any = None) -> bytes:
    """A permessage-deflate text frame (server to client: unmasked) holding ``text``."""
    compressor = compressor or zlib.compressobj(6, zlib.DEFLATED, -15)
    payload: bytes = compressor.compress(text) + compressor.flush(zlib.Z_SYNC_FLUSH)
    payload = payload.removesuffix(b"\x00\x00\xff\xff")
    assert len(payload) < 126
    return bytes((0xC1, len(payload))) + payload


async def test_frames_cut_anywhere_by_the_reads_arrive_whole_and_in_order(websocket: ModuleType) -> None:
    client, received = _opened(websocket, "permessage-deflate; server_no_context_takeover", {})
    texts = [b'{"type":"state","seq":%d}' % n for n in range(1, 6)]
    wire = b"".join(_compressed(text) for text in texts)

    client.data_received(wire[:5])  # (a frame's head alone)
    client.data_received(wire[5:40])  # (the rest of one frame and part of the next)
    client.data_received(wire[40:])  # (the rest, several frames at once)

    assert received == texts
    assert not client.buffer


async def test_a_crowds_connections_inflate_the_same_bytes_once(websocket: ModuleType) -> None:
    inflated: dict[bytes, bytes] = {}
    (first, got_first), (second, got_second) = (
        _opened(websocket, "permessage-deflate; server_no_context_takeover", inflated) for _ in range(2)
    )
    frame = _compressed(b'{"type":"state","seq":7}')
    first.data_received(frame)
    assert got_first == [b'{"type":"state","seq":7}']
    assert list(inflated.values()) == got_first

    # what the second connection is handed is what the first inflated, not inflated again
    (payload,) = inflated
    inflated[payload] = b"inflated once"
    second.data_received(frame)
    assert got_second == [b"inflated once"]


async def test_a_server_that_keeps_its_compression_context_is_inflated_per_connection(websocket: ModuleType) -> None:
    inflated: dict[bytes, bytes] = {}
    client, received = _opened(websocket, "permessage-deflate", inflated)
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    text = b'{"type":"state","seq":8,"room":"the same words again"}'

    # (the second frame refers back to the first: only this connection's inflater can read it)
    client.data_received(_compressed(text, compressor) + _compressed(text, compressor))

    assert received == [text, text]
    assert not inflated
