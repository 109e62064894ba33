"""A crowd's state is compressed once for every connection (permessage-deflate without the
server's context takeover), and every connection reads it whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import websockets
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from fabula.client.http import websocket_url
from fabula.server.room_settings import COLOURS
from fabula.server.shared_deflate import COMPRESSED, FRAMED, SHARED_FROM_BYTES, SharedDeflate

from .harness import Client, create_room, live_server


def _server_side() -> SharedDeflate:
    """One connection's extension as `SharedDeflateFactory` makes it for a browser's offer."""
    return SharedDeflate(False, True, 12, 12, {"memLevel": 5})


def _client_side() -> PerMessageDeflate:
    """The client's end of that negotiation: the server's messages each compressed alone."""
    return PerMessageDeflate(True, False, 12, 12)


def test_a_long_message_is_compressed_once_and_reads_back_whole_on_every_connection() -> None:
    states = [json.dumps({"type": "state", "n": n, "players": ["Mara", "Ben", "Lin"] * 40}).encode() for n in range(2)]
    assert all(len(state) >= SHARED_FROM_BYTES for state in states)
    connections = [(_server_side(), _client_side()) for _ in range(3)]
    made, reused = COMPRESSED.made, COMPRESSED.reused

    for state in states:
        sent = [server.encode(Frame(Opcode.TEXT, state)) for server, _ in connections]
        assert len({bytes(frame.data) for frame in sent}) == 1, "the same bytes on every connection"
        assert all(frame.rsv1 for frame in sent), "marked compressed"
        assert len(sent[0].data) < len(state)
        for frame, (_, client) in zip(sent, connections, strict=True):
            assert client.decode(frame).data == state

    assert (COMPRESSED.made - made, COMPRESSED.reused - reused) == (2, 4)


def test_a_short_message_goes_uncompressed_and_reads_back_whole() -> None:
    server, client = _server_side(), _client_side()
    made = COMPRESSED.made
    ack = b'{"type":"ack","id":"m1","seq":3}'
    frame = server.encode(Frame(Opcode.TEXT, ack))
    assert not frame.rsv1
    assert frame.data == ack
    assert client.decode(frame).data == ack
    assert COMPRESSED.made == made


@pytest.mark.anyio
async def test_the_server_negotiates_it_and_spectators_share_one_compressed_state(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host = await create_room(server.url, "Mara", COLOURS[0])
        mara = Client(server.url, host["code"], host["token"])
        watchers = [Client(server.url, host["code"], None) for _ in range(4)]
        for client in [mara, *watchers]:
            assert (await client.connect())["type"] == "welcome"
        socket = watchers[0].socket
        assert socket is not None
        assert socket.response is not None
        negotiated = socket.response.headers["Sec-WebSocket-Extensions"]
        assert "permessage-deflate" in negotiated
        assert "server_no_context_takeover" in negotiated
        framed = FRAMED.reused

        assert (await mara.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        states = [await watcher.wait_state(lambda room: len(room["members"]) == 2) for watcher in watchers]

        assert all(state == states[0] for state in states), "every spectator read the same state whole"
        assert FRAMED.reused - framed >= len(watchers) - 1, "framed once for the spectators"
        text = next(raw for raw in reversed(watchers[0].raw) if raw.startswith('{"type":"state"')).encode()
        frame = FRAMED.get(text, 12)
        assert frame is not None
        assert frame[0] == 0b1100_0001, "a whole text frame, compressed"
        for client in [mara, *watchers]:
            await client.close()


@pytest.mark.anyio
async def test_per_connection_compression_keeps_each_connections_window(tmp_path: Path) -> None:
    """``--compression per-connection``: permessage-deflate as websockets negotiates it, the
    server's context kept between messages (the fewest bytes)."""
    with live_server(tmp_path / "data", compression="per-connection") as server:
        host = await create_room(server.url, "Mara", COLOURS[0])
        mara = Client(server.url, host["code"], host["token"])
        assert (await mara.connect())["type"] == "welcome"
        socket = mara.socket
        assert socket is not None
        assert socket.response is not None
        negotiated = socket.response.headers["Sec-WebSocket-Extensions"]
        assert "permessage-deflate" in negotiated
        assert "server_no_context_takeover" not in negotiated
        assert (await mara.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        await mara.close()


@pytest.mark.anyio
async def test_a_connection_without_compression_shares_its_own_frames(tmp_path: Path) -> None:
    """A client that offers no permessage-deflate reads the same state whole from the frame kept for
    such connections, which is not the compressed connections' frame."""
    with live_server(tmp_path / "data") as server:
        host = await create_room(server.url, "Mara", COLOURS[0])
        mara = Client(server.url, host["code"], host["token"])
        assert (await mara.connect())["type"] == "welcome"
        plain = [await websockets.connect(websocket_url(server.url, host["code"]), compression=None) for _ in range(2)]
        for socket in plain:
            await socket.send(json.dumps({"type": "hello", "id": "h1", "token": None}))
            assert json.loads(await socket.recv())["type"] == "welcome"
            await socket.recv()  # (the state as it is)
        compressed = Client(server.url, host["code"], None)
        assert (await compressed.connect())["type"] == "welcome"

        assert (await mara.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        texts = []
        for socket in plain:
            while '"type":"state"' not in (text := str(await socket.recv())):
                pass
            texts.append(text)
        state = await compressed.wait_state(lambda room: len(room["members"]) == 2)

        assert texts[0] == texts[1]
        assert json.loads(texts[0])["room"] == state
        assert len(texts[0].encode()) >= SHARED_FROM_BYTES
        # a frame of its own for the plain connections (uncompressed), another for the compressed one
        plain_frame, compressed_frame = FRAMED.get(texts[0].encode(), 0), FRAMED.get(texts[0].encode(), 12)
        assert plain_frame is not None
        assert compressed_frame is not None
        assert (plain_frame[0], compressed_frame[0]) == (0b1000_0001, 0b1100_0001)
        assert plain_frame.endswith(texts[0].encode())
        for socket in plain:
            await socket.close()
        for client in (mara, compressed):
            await client.close()
