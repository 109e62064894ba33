"""Every message the server sends is exactly its typed form: decoded as `fabula.protocol`'s
server messages and encoded again, it is the same bytes — so the types (and docs/protocol.md,
made from them) name every field, in every mode, for players and spectators alike."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from fabula import protocol
from fabula.rules import MODES

from .harness import Client, LiveServer, create_room, live_server
from .players import play_to_end

#: strict: a field the types do not know fails the round trip below, a wrong type fails here
DECODER = msgspec.json.Decoder(protocol.AnyServerMessage)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data") as live:
        yield live


@pytest.mark.anyio
@pytest.mark.parametrize("mode", list(MODES))
async def test_every_message_of_a_whole_game_is_its_typed_form(server: LiveServer, mode: str) -> None:
    seat = await create_room(server.url, mode=mode, options={"storyteller_cycles": 1})
    host = Client(server.url, seat["code"], seat["token"])
    watcher = Client(server.url, seat["code"], None)
    await host.connect()
    await watcher.connect()
    for _ in range(MODES[mode].seat_counts[0] - 1):
        assert (await host.request({"type": "add_bot", "level": "random"}))["type"] == "ack"
    await host.request({"type": "say", "text": "good luck"})
    assert (await host.request({"type": "start"}))["type"] == "ack"
    final = await play_to_end(host, random.Random(7))
    await watcher.wait_state(lambda room: room["status"] == "over")
    await host.close()
    await watcher.close()
    assert final["game"]["outcome"] is not None
    kinds = set()
    for raw in host.raw + watcher.raw:
        message = DECODER.decode(raw)
        kinds.add(type(message).__name__)
        assert protocol.encode(message) == raw.encode(), f"{type(message).__name__} is not its typed form"
    assert {"Welcome", "State", "Ack", "ChatLine"} <= kinds
