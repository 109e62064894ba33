"""`fabula.client` against a live server: typed requests and replies, waiting, and reconnecting
with the unanswered messages sent again under their ids."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from fabula.client import Client, HttpError, Refused, create_room, decode, encode, join_room
from fabula.protocol import Ack, Error, Hello, Legal, LegalMoves, Ping, Pong, Say, Start, State, Welcome
from tests.server.harness import LiveServer, live_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data") as running:
        yield running


def test_a_message_is_sent_without_its_defaults() -> None:
    assert encode(Say(id="s1", text="hi")) == b'{"type":"say","id":"s1","text":"hi"}'
    assert encode(Say(id="s1", text="hi", team_only=True)) == b'{"type":"say","id":"s1","text":"hi","team_only":true}'
    assert encode(Hello(id="h", token=None)) == b'{"type":"hello","id":"h"}'


def test_a_server_message_is_both_json_and_typed() -> None:
    received = decode('{"type":"ack","id":"m1","seq":4}')
    assert received.data == {"type": "ack", "id": "m1", "seq": 4}
    assert received.message == Ack(id="m1", seq=4)
    assert received.answers("m1")
    unknown = decode('{"type":"news","id":"m1"}')
    assert unknown.message is None
    assert unknown.type == "news"
    with pytest.raises(msgspec.DecodeError):
        decode("[1]")


@pytest.mark.anyio
async def test_requests_are_answered_by_id_with_typed_replies(server: LiveServer) -> None:
    host = await create_room(server.url, "Ana", "red")
    for name, colour in (("Ben", "blue"), ("Cleo", "yellow")):
        await join_room(server.url, host["code"], name, colour)
    with pytest.raises(HttpError) as refused:
        await join_room(server.url, host["code"], "Dan", "blue")
    assert refused.value.code == "colour_taken"
    async with Client(server.url, host["code"], host["token"]) as ana:
        assert ana.welcome is not None
        assert ana.welcome.member == 0
        assert ana.room is not None
        assert ana.room["status"] == "lobby"
        assert await ana.request(Ping(id="p1")) == Pong(id="p1")
        started = await ana.request(Start(id=ana.next_id()))
        assert isinstance(started, Ack)
        room = await ana.wait_state(lambda room: room["status"] == "playing")
        assert room["seq"] > started.seq
        legal = await ana.request(Legal(id=ana.next_id()))
        assert isinstance(legal, LegalMoves)
        states = [r for r in ana.received if isinstance(r.message, State)]
        assert states[-1].data["room"] == ana.room


@pytest.mark.anyio
async def test_a_dropped_connection_is_reopened_and_what_was_unanswered_is_sent_again(server: LiveServer) -> None:
    seat = await create_room(server.url, "Ana", "red")
    client = Client(server.url, seat["code"], seat["token"], reconnects=3)
    assert isinstance(await client.connect(), Welcome)
    say = Say(id=client.next_id(), text="still here?")
    await client.send(say)
    first = client.socket
    assert first is not None
    first.transport.abort()  # the network goes away, with the message in flight or not
    reply = await client.wait_for(lambda r: r.answers(say.id))
    await client.wait_for(lambda r: r.type == "welcome", start=1)
    assert client.socket is not first
    assert isinstance(reply.message, Ack)
    assert not client.unanswered
    # sent once more, as after a lost ack: the first answer again, nothing made twice
    assert await client.request(say) == reply.message
    await client.close()
    async with Client(server.url, seat["code"], seat["token"]) as again:
        assert again.welcome is not None
        assert [line.text for line in again.welcome.chat] == ["still here?"]


@pytest.mark.anyio
async def test_a_refused_seat_is_said(server: LiveServer) -> None:
    seat = await create_room(server.url, "Ana", "red")
    refused = await Client(server.url, seat["code"], "not the token").connect()
    assert isinstance(refused, Error)
    assert refused.code == "bad_token"
    with pytest.raises(Refused) as raised:
        async with Client(server.url, "ZZZZZ", seat["token"], reconnects=2):
            pass
    assert raised.value.error.code == "no_room"
