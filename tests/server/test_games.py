"""Whole games of every mode through real WebSocket connections to a live server."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fabula.server.room_clock import REVEAL_SECONDS

from .harness import Client, LiveServer, create_room, join_room, live_server
from .players import awaited, move_once, play_to_end

COLOURS = ["red", "pink", "yellow", "blue", "dark green", "light green", "orange", "brown", "purple", "black"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data") as running:
        yield running


async def seat_people(server: LiveServer, people: int, bots: int, **settings: Any) -> tuple[list[Client], str]:
    """A room with ``people`` connected persons (the first is host) and ``bots`` bots, not started."""
    seat = await create_room(server.url, "P0", COLOURS[0], **settings)
    code = seat["code"]
    tokens = [seat["token"]]
    for n in range(1, people):
        joined = await join_room(server.url, code, f"P{n}", COLOURS[n])
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    clients = [Client(server.url, code, token) for token in tokens]
    for client in clients:
        welcome = await client.connect()
        assert welcome["type"] == "welcome"
    for _ in range(bots):
        reply = await clients[0].request({"type": "add_bot"})
        assert reply["type"] == "ack", reply
    return clients, code


GAMES = [
    pytest.param("odyssey", 3, 0, {"target_score": 8}, id="odyssey-3-people"),
    pytest.param("odyssey", 2, 5, {"target_score": 8}, id="odyssey-7-two-tokens"),
    pytest.param("classic", 2, 2, {"target_score": 8}, id="classic-4"),
    pytest.param("party", 2, 4, {"storyteller_cycles": 1}, id="party-6"),
    pytest.param("teams", 2, 4, {"storyteller_cycles": 1}, id="teams-6"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "people", "bots", "options"), GAMES)
async def test_a_whole_game_through_websockets(
    server: LiveServer, mode: str, people: int, bots: int, options: dict[str, Any]
) -> None:
    clients, code = await seat_people(server, people, bots, mode=mode, options=options)
    if mode == "teams":  # the two people play together
        assert (await clients[0].request({"type": "teams", "pairs": [[0, 1]]}))["type"] == "ack"
    assert (await clients[0].request({"type": "start"}))["type"] == "ack"
    if mode == "teams":
        rooms = [await client.wait_state(lambda r: r["status"] == "playing") for client in clients]
        seats = [room["you"]["seat"] for room in rooms]
        assert sorted(seats) in ([0, 3], [1, 4], [2, 5])
        assert sorted(seats) in [sorted(pair) for pair in rooms[0]["game"]["teams"]]
    rng = random.Random(7)
    finals = await asyncio.gather(*(play_to_end(client, random.Random(rng.random())) for client in clients))
    scores = {tuple(room["game"]["scores"]) for room in finals}
    assert len(scores) == 1, "every seat sees the same final scores"
    outcome = finals[0]["game"]["outcome"]
    assert outcome is not None
    assert outcome["winners"]
    async with httpx.AsyncClient(base_url=server.url) as http:
        log = (await http.get(f"/api/rooms/{code}/log")).json()
    assert log["scores"] == list(finals[0]["game"]["scores"])
    assert len(log["seats"]) == people + bots
    for client in clients:
        await client.close()


@pytest.mark.anyio
async def test_reconnecting_mid_phase_gets_the_seat_and_a_full_snapshot_back(server: LiveServer) -> None:
    clients, code = await seat_people(server, 3, 1, mode="odyssey", options={"target_score": 6})
    await clients[0].request({"type": "start"})
    rng = random.Random(3)
    # play until the vote, then drop the connection of a voter that has not voted yet
    while True:
        mover = next((c for c in clients if awaited(c.room)), None)
        room = clients[0].room
        assert room is not None
        if room["game"]["phase"] == "vote" and mover is not None:
            break
        if mover is None:
            await asyncio.sleep(0.02)
            continue
        await move_once(mover, rng)
    before = mover.room
    assert before is not None
    await mover.close()
    again = Client(server.url, code, mover.token)
    welcome = await again.connect()
    assert welcome["member"] == before["you"]["member"]
    snapshot = await again.wait_state(lambda _room: True)
    assert snapshot["you"]["seat"] == before["you"]["seat"]
    assert snapshot["game"]["hand"] == before["game"]["hand"]
    assert snapshot["game"]["phase"] == "vote"
    assert snapshot["you"]["seat"] in snapshot["game"]["awaiting"]
    clients[clients.index(mover)] = again
    finals = await asyncio.gather(*(play_to_end(c, random.Random(i)) for i, c in enumerate(clients)))
    assert finals[0]["status"] == "over"


@pytest.mark.anyio
async def test_rematch_keeps_the_seats_and_deals_a_new_game(server: LiveServer) -> None:
    clients, _ = await seat_people(server, 3, 0, mode="odyssey", options={"storyteller_cycles": 1})
    await clients[0].request({"type": "start"})
    first = await asyncio.gather(*(play_to_end(c, random.Random(i)) for i, c in enumerate(clients)))
    seats = [room["you"]["seat"] for room in first]
    refused = await clients[1].request({"type": "rematch"})
    assert refused["type"] == "error"
    assert refused["code"] == "not_host"
    assert (await clients[0].request({"type": "rematch"}))["type"] == "ack"
    second = [await c.wait_state(lambda r: r["games_started"] == 2) for c in clients]
    assert [room["you"]["seat"] for room in second] == seats
    assert all(room["status"] == "playing" and room["game"]["round"] == 1 for room in second)
    assert all(room["game"]["scores"] == [0, 0, 0] for room in second)
    finals = await asyncio.gather(*(play_to_end(c, random.Random(9 + i)) for i, c in enumerate(clients)))
    assert finals[0]["games_started"] == 2
    assert finals[0]["status"] == "over"


@pytest.mark.anyio
async def test_host_actions_are_refused_to_everyone_else(server: LiveServer) -> None:
    clients, _ = await seat_people(server, 3, 0, mode="odyssey")
    guest = clients[1]
    host_member = clients[0].room["you"]["member"]  # type: ignore[index]
    for message in [
        {"type": "start"},
        {"type": "add_bot"},
        {"type": "kick", "member": host_member},
        {"type": "pass_host", "member": 1},
        {"type": "settings", "settings": {"mode": "party"}},
        {"type": "teams", "pairs": [[0, 1]]},
        {"type": "rematch"},
    ]:
        reply = await guest.request(message)
        assert (reply["type"], reply["code"]) == ("error", "not_host"), message
    room = guest.room
    assert room is not None
    assert room["status"] == "lobby"
    assert len(room["members"]) == 3
    assert room["host"] == host_member
    spectator = Client(guest.server_url, guest.code, None)
    await spectator.connect()
    assert (await spectator.request({"type": "start"}))["code"] == "spectator"


@pytest.mark.anyio
async def test_hosting_passes_on_when_the_host_leaves(server: LiveServer) -> None:
    clients, _ = await seat_people(server, 3, 0)
    assert (await clients[0].request({"type": "leave"}))["type"] == "ack"
    room = await clients[1].wait_state(lambda r: len(r["members"]) == 2)
    assert room["host"] == 1
    assert (await clients[1].request({"type": "add_bot"}))["type"] == "ack"


@pytest.mark.anyio
async def test_joining_is_refused_for_taken_colours_names_full_rooms_and_started_games(server: LiveServer) -> None:
    seat = await create_room(server.url, "Mara", "blue", mode="odyssey")
    code = seat["code"]
    taken_colour = await join_room(server.url, code, "Ana", "blue")
    assert taken_colour.status_code == 400
    assert taken_colour.json()["error"]["code"] == "colour_taken"
    taken_name = await join_room(server.url, code, " mara ", "red")
    assert taken_name.json()["error"]["code"] == "name_taken"
    bad_colour = await join_room(server.url, code, "Ana", "turquoise")
    assert bad_colour.json()["error"]["code"] == "unknown_colour"
    for n, colour in enumerate([*COLOURS[:10], "white", "grey"]):
        if colour != "blue":
            await join_room(server.url, code, f"N{n}", colour)
    full = await join_room(server.url, code, "Late", "blue")
    assert full.json()["error"]["code"] == "room_full"
    unknown = await join_room(server.url, "ZZZZZ", "Ana", "red")
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "no_room"

    small = await create_room(server.url, "A", "red", mode="odyssey")
    host = Client(server.url, small["code"], small["token"])
    await host.connect()
    await host.request({"type": "add_bot"})
    await host.request({"type": "add_bot"})
    assert (await host.request({"type": "start"}))["type"] == "ack"
    late = await join_room(server.url, small["code"], "Late", "pink")
    assert late.json()["error"]["code"] == "game_started"
    watcher = Client(server.url, small["code"], None)
    assert (await watcher.connect())["member"] is None
    assert (await watcher.wait_state(lambda _room: True))["game"]["hand"] is None


@pytest.mark.anyio
async def test_a_resent_message_id_changes_nothing_twice(server: LiveServer) -> None:
    clients, _ = await seat_people(server, 1, 0)
    host = clients[0]
    first = await host.request({"id": "same", "type": "add_bot"})
    again = await host.request({"id": "same", "type": "add_bot"})
    assert first == again
    assert first["type"] == "ack"
    assert (await host.request({"type": "ping"}))["type"] == "pong"
    assert host.room is not None
    assert len(host.room["members"]) == 2


@pytest.mark.anyio
async def test_a_timer_or_an_absent_player_never_stalls_the_game(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", disconnect_grace_seconds=0.3) as server:
        seat = await create_room(server.url, "Host", "red", mode="odyssey", options={"storyteller_cycles": 1})
        host = Client(server.url, seat["code"], seat["token"])
        await host.connect()
        for _ in range(2):
            await host.request({"type": "add_bot"})
        await host.request({"type": "start"})
        await host.close()  # the host's phone sleeps: after the grace period a bot moves for it
        watcher = Client(server.url, seat["code"], None)
        await watcher.connect()
        room = await watcher.wait_state(lambda r: r["status"] == "over", timeout=30)
        assert room["game"]["outcome"] is not None
        service = server.service
        live = service.rooms.held[seat["code"]]
        from fabula.server.entries import Acted, decode

        entries = [decode(stored.data) for stored in await service.rooms.store.load(seat["code"])]
        host_moves = [e for e in entries if isinstance(e, Acted) and e.member == 0]
        assert host_moves
        assert all(e.auto for e in host_moves), "the absent host's moves are marked automatic"
        assert live.room.status == "over"


@pytest.mark.anyio
async def test_when_a_phase_timer_runs_out_a_bot_moves_for_the_seat(server: LiveServer) -> None:
    seconds = {"clue_seconds": 60, "play_seconds": 45, "vote_seconds": 30}
    seat = await create_room(server.url, "Host", "red", mode="odyssey", options={"storyteller_cycles": 1}, **seconds)
    host = Client(server.url, seat["code"], seat["token"])
    await host.connect()  # stays connected, and never moves
    for _ in range(2):
        await host.request({"type": "add_bot"})
    await host.request({"type": "start"})
    live = server.service.rooms.held[seat["code"]]
    timed_out = 0
    await host.wait_state(lambda r: r["status"] == "playing")
    while (room := host.room) is not None and room["status"] != "over":
        if not awaited(room):
            await host.wait_for(lambda m: m["type"] == "state", start=len(host.received))
            continue
        phase = room["game"]["phase"]
        # a round's first timer also gives the table the time of the last round's reveal
        allowed = seconds[f"{phase}_seconds"] + (
            REVEAL_SECONDS if phase == "clue" and room["game"]["last_round"] else 0
        )
        assert room["deadline"] == pytest.approx(live.room.phase_since + allowed)
        seen = len(host.received)
        server.shift_clock(allowed + 1)
        await host.wait_for(lambda m: m["type"] == "state", start=seen)
        timed_out += 1
    assert timed_out >= 3
    from fabula.server.entries import Acted, decode

    entries = [decode(stored.data) for stored in await server.service.rooms.store.load(seat["code"])]
    assert all(e.auto for e in entries if isinstance(e, Acted) and e.member == 0)


@pytest.mark.anyio
async def test_table_chat_reaches_everyone_as_plain_text_and_is_rate_limited(server: LiveServer) -> None:
    clients, code = await seat_people(server, 3, 0)
    watcher = Client(server.url, code, None)
    await watcher.connect()
    reply = await clients[1].request({"type": "say", "text": " <b>hi</b>\u202e\x00 all "})
    assert reply["type"] == "ack"
    for reader in [*clients, watcher]:
        line = await reader.wait_for(lambda m: m["type"] == "chat")
        assert (line["member"], line["name"], line["text"]) == (1, "P1", "<b>hi</b> all")
    codes = [(await clients[2].request({"type": "say", "text": f"spam {n}"})).get("code") for n in range(8)]
    assert codes[:5] == [None] * 5
    assert set(codes[5:]) == {"chat_rate_limited"}
    late = Client(server.url, code, clients[0].token)
    welcome = await late.connect()
    assert [line["text"] for line in welcome["chat"]][:2] == ["<b>hi</b> all", "spam 0"], "recent chat on (re)connect"


@pytest.mark.anyio
async def test_everyone_sees_who_is_connected(server: LiveServer) -> None:
    clients, _ = await seat_people(server, 2, 1)

    def connected(room: dict[str, Any]) -> dict[int, bool]:
        return {m["member"]: m["connected"] for m in room["members"]}

    await clients[0].wait_state(lambda r: connected(r) == {0: True, 1: True, 2: True})
    seen = len(clients[0].received)
    await clients[1].close()
    gone = await clients[0].wait_for(lambda m: m["type"] == "state" and not connected(m["room"])[1], start=seen)
    assert connected(gone["room"]) == {0: True, 1: False, 2: True}, "a bot is always there"
    seen = len(clients[0].received)
    back = Client(server.url, clients[1].code, clients[1].token)
    await back.connect()
    await clients[0].wait_for(lambda m: m["type"] == "state" and connected(m["room"])[1], start=seen)
