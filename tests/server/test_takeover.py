"""Taking over a seat does not rewrite history (issue 34, bug 4): Hal plays rounds 1–3 and leaves
for good, Leo takes his seat over. The album names Hal for the rounds Hal played and Leo from round 4,
says who took the seat over from when, and says so again after a restart (it is folded from the log)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from fabula.server.live_room import replay

from .harness import Client, LiveServer, create_room, join_room, live_server
from .players import move_once

Room = dict[str, Any]


async def connected(server: LiveServer, code: str, token: str | None) -> Client:
    client = Client(server.url, code, token)
    assert (await client.connect())["type"] == "welcome"
    return client


async def play_until(clients: Sequence[Client], rng: random.Random, done: Callable[[Room], bool]) -> Room:
    """Random legal moves by ``clients`` (the bots move on their own) until ``done`` holds for the
    first client's room."""

    async def loop() -> Room:
        while True:
            room = clients[0].room
            if room is not None and done(room):
                return room
            moved = False
            for client in clients:
                reply = await move_once(client, rng)
                if reply is not None:
                    assert reply["type"] == "ack" or reply["code"] in {"wrong_phase", "not_your_turn"}, reply
                    moved = True
            if not moved:  # a bot's turn, or a state still on its way to one of the clients
                await asyncio.sleep(0.02)

    return await asyncio.wait_for(loop(), 60)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def person(seat: int, name: str, colour: str) -> dict[str, Any]:
    return {"seat": seat, "name": name, "colour": colour, "bot": None}


def check_album(album: dict[str, Any], seat: int) -> None:
    """Hal played ``seat`` in rounds 1–3, Leo from round 4 on."""
    assert [r["round"] for r in album["rounds"]] == [1, 2, 3, 4]
    assert album["players"][seat] == person(seat, "Leo", "blue")  # the seat's last player
    assert album["takeovers"] == [
        {"seat": seat, "round": 4, "former": person(seat, "Hal", "blue"), "player": person(seat, "Leo", "blue")}
    ]


@pytest.mark.anyio
async def test_a_taken_over_seat_keeps_who_played_its_past_rounds_also_after_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with live_server(data, messages_per_second=500.0, message_burst=500) as server:
        mara_seat = await create_room(server.url, "Mara", "red", options={"first_storyteller": 0})
        code = mara_seat["code"]
        hal_seat = (await join_room(server.url, code, "Hal", "blue")).json()
        mara = await connected(server, code, mara_seat["token"])
        hal = await connected(server, code, hal_seat["token"])
        assert (await mara.request({"type": "add_bot"}))["type"] == "ack"
        assert (await mara.request({"type": "start"}))["type"] == "ack"
        room = await hal.wait_state(lambda room: room["status"] == "playing")
        seat = room["you"]["seat"]
        rng = random.Random(4)
        room = await play_until([mara, hal], rng, lambda room: room["game"]["round"] == 4)
        hal_scored = room["game"]["scores"][seat]
        assert (await hal.request({"type": "leave", "for_good": True}))["type"] == "ack"
        async with httpx.AsyncClient(base_url=server.url) as http:
            joined = await http.post(
                f"/api/rooms/{code}/join", json={"name": "Leo", "colour": "blue", "replaces": hal_seat["member"]}
            )
        assert joined.status_code == 201, joined.text
        leo = await connected(server, code, joined.json()["token"])
        assert leo.room is not None
        assert leo.room["you"]["seat"] == seat
        # the seat's score goes on with the seat
        assert leo.room["game"]["scores"][seat] == hal_scored
        # the room's state says so too (a round shown again during the game names Hal), none before
        assert room["takeovers"] == []
        assert leo.room["takeovers"] == [
            {"seat": seat, "round": 4, "former": person(seat, "Hal", "blue"), "player": person(seat, "Leo", "blue")}
        ]
        await play_until([mara, leo], rng, lambda room: room["game"]["round"] == 5)
        assert (await mara.request({"type": "end"}))["type"] == "ack"
        await mara.wait_state(lambda room: room["status"] == "over")
        async with httpx.AsyncClient(base_url=server.url, headers=bearer(mara_seat["token"])) as http:
            album = (await http.get(f"/api/rooms/{code}/games/1")).json()
            games = (await http.get(f"/api/rooms/{code}/games")).json()
        check_album(album, seat)
        assert album["rounds"][2]["scores"][seat] == hal_scored
        assert games[0]["takeovers"] == album["takeovers"]
        # the room rebuilt from its log has the same album
        rebuilt = replay(code, await server.service.rooms.store.load(code))
        assert rebuilt is not None
        rebuilt_album = rebuilt.album(1)
        assert rebuilt_album is not None
        assert rebuilt_album.to_json() == album
        for client in (mara, leo):
            await client.close()
    # a restart: another server on the same data folder reads the same album
    with live_server(data) as again:
        async with httpx.AsyncClient(base_url=again.url, headers=bearer(mara_seat["token"]), timeout=60) as http:
            found = (await http.get(f"/api/rooms/{code}/games/1")).json()
            picture = await http.get(f"/api/rooms/{code}/games/1/album.png")
        assert found == album
        assert picture.status_code == 200
