"""Reading bots in a room: the levels a host adds, their moves through the live server, and the
memory the server keeps of finished games only."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabula.cards.original import original_deck

from .harness import Client, LiveServer, create_room, live_server
from .players import move_once, play_to_end

TITLES = {card.id: card.title.lower() for card in original_deck().cards}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data") as running:
        yield running


async def host_room(server: LiveServer, **settings: object) -> tuple[Client, str]:
    seat = await create_room(server.url, "Host", "red", **settings)
    host = Client(server.url, seat["code"], seat["token"])
    assert (await host.connect())["type"] == "welcome"
    return host, seat["code"]


@pytest.mark.anyio
async def test_bots_of_every_reading_level_play_a_whole_game_and_learn_only_once_it_is_over(
    server: LiveServer,
) -> None:
    host, _ = await host_room(server, mode="odyssey", options={"target_score": 10})
    for level in ("easy", "normal", "hard"):
        assert (await host.request({"type": "add_bot", "level": level}))["type"] == "ack"
    room = await host.wait_state(lambda r: len(r["members"]) == 4)
    assert sorted(m["bot"] for m in room["members"] if m["bot"]) == ["easy", "hard", "normal"]
    memory = server.service.autoplay.memory()
    assert memory is not None
    assert len(memory) == 0
    assert (await host.request({"type": "start"}))["type"] == "ack"

    # While the game runs, finished rounds are public but the memory must not take them yet.
    rng = random.Random(3)
    while host.room is None or host.room["game"] is None or host.room["game"]["last_round"] is None:
        seen = len(host.received)
        if await move_once(host, rng) is None:
            await host.wait_for(lambda m: m["type"] == "state", start=seen, timeout=60)
    assert len(memory) == 0

    final = await play_to_end(host, rng, timeout=120)
    assert final["game"]["outcome"]["winners"]
    for _ in range(100):  # the memory learns in a worker thread just after the last round
        if len(memory) > 0:
            break
        await asyncio.sleep(0.05)
    assert len(memory) == final["game"]["last_round"]["round"]  # every round of the game, once
    await host.close()


@pytest.mark.anyio
async def test_an_unknown_bot_level_is_refused_and_changes_nothing(server: LiveServer) -> None:
    host, _ = await host_room(server)
    before = await host.wait_state(lambda r: r["status"] == "lobby")
    reply = await host.request({"type": "add_bot", "level": "genius"})
    assert reply["type"] == "error"
    assert "level" in reply["message"]
    reply = await host.request({"type": "add_bot", "level": "hard"})
    assert reply["type"] == "ack"
    after = await host.wait_state(lambda r: len(r["members"]) == len(before["members"]) + 1)
    assert [m["bot"] for m in after["members"]].count("hard") == 1
    await host.close()


@pytest.mark.anyio
async def test_a_bot_storyteller_never_tells_its_card_title(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host, _ = await host_room(server, mode="odyssey", options={"target_score": 6})
        for level in ("hard", "normal", "easy", "hard"):
            assert (await host.request({"type": "add_bot", "level": level}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        final = await play_to_end(host, random.Random(5), timeout=120)
        seen = [m["room"]["game"]["last_round"] for m in host.received if m["type"] == "state" and m["room"]["game"]]
        results = {r["round"]: r for r in seen if r is not None}
        host_seat = final["you"]["seat"]
        told = [r for r in results.values() if r["storyteller"] != host_seat]
        assert told, "the bots told stories"
        for result in told:
            assert result["clue"].strip()
            assert result["clue"].lower() != TITLES[result["storyteller_card"]]
        await host.close()


@pytest.mark.anyio
async def test_the_memory_can_be_switched_off(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", bot_memory=False) as server:
        assert server.service.autoplay.memory() is None
        host, _ = await host_room(server, mode="odyssey", options={"target_score": 3})
        for level in ("hard", "hard"):
            assert (await host.request({"type": "add_bot", "level": level}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        final = await play_to_end(host, random.Random(1), timeout=120)
        assert final["game"]["outcome"] is not None
        assert server.service.autoplay.memory() is None  # a finished game taught nothing
        await host.close()
