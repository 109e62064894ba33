"""What a real group hit in its first games (issue 14), at the protocol: each test failed on the
server as it was before the fix."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fabula.server import invite as invite_module
from fabula.server.live_room import replay
from fabula.server.seats import IN_USE_SECONDS

from .harness import Client, LiveServer, create_room, join_room, live_server
from .players import awaited, move_once
from .test_fuzz import internal_errors

COLOURS = ["red", "pink", "yellow", "blue", "dark green", "light green"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data") as running:
        yield running


async def connected(server: LiveServer, code: str, token: str | None) -> Client:
    client = Client(server.url, code, token)
    assert (await client.connect())["type"] == "welcome"
    return client


async def game_with_bots(server: LiveServer, bots: int = 2, **settings: Any) -> tuple[dict[str, Any], Client]:
    """A started game: the host (connected) and ``bots`` bots."""
    seat = await create_room(server.url, "Host", "red", **settings)
    host = await connected(server, seat["code"], seat["token"])
    for _ in range(bots):
        assert (await host.request({"type": "add_bot"}))["type"] == "ack"
    assert (await host.request({"type": "start"}))["type"] == "ack"
    await host.wait_state(lambda room: room["status"] == "playing")
    return seat, host


async def game_with_fay(server: LiveServer) -> tuple[str, dict[str, Any], Client, dict[str, Any], Client]:
    """A started three-seat game: the host (storyteller first), Fay, a bot; both people connected.
    The room code, each person's seat and connection."""
    seat = await create_room(server.url, "Host", "red", options={"first_storyteller": 0})
    code = seat["code"]
    fay_seat = (await join_room(server.url, code, "Fay", "blue")).json()
    host = await connected(server, code, seat["token"])
    fay = await connected(server, code, fay_seat["token"])
    await host.request({"type": "add_bot"})
    await host.request({"type": "start"})
    await fay.wait_state(lambda room: room["status"] == "playing")
    return code, seat, host, fay_seat, fay


# ---------------------------------------------------------------- bugs 8 and 9: what a client sends


SURROGATE_IDS = ['"\\ud800"', '"a\\ud83d"', '"\\udfff"']


@pytest.mark.anyio
async def test_a_lone_surrogate_escape_in_an_id_gets_an_error_and_the_connection_goes_on(server: LiveServer) -> None:
    seat = await create_room(server.url)
    client = Client(server.url, seat["code"], seat["token"])
    with internal_errors() as errors:
        # before hello
        await client.connect_only()
        for escaped in SURROGATE_IDS:
            start = len(client.received)
            await client.send_raw(f'{{"type":"ping","id":{escaped}}}')
            reply = await client.wait_for(lambda m: m["type"] == "error", start=start)
            assert reply["id"] is None
        welcome = await client.request({"type": "hello", "token": seat["token"]}, reply_types=("welcome",))
        assert welcome["member"] == 0
        # after hello, of any type
        for kind in ("ping", "act", "legal", "say"):
            for escaped in SURROGATE_IDS:
                start = len(client.received)
                await client.send_raw(f'{{"type":"{kind}","id":{escaped},"text":"x"}}')
                reply = await client.wait_for(lambda m: m["type"] == "error", start=start)
                assert reply["id"] is None
        assert (await client.request({"type": "ping"}))["type"] == "pong"
    assert not errors, [record.getMessage() for record in errors]


@pytest.mark.anyio
async def test_a_rate_limited_message_is_refused_naming_its_id_and_a_lone_surrogate_id_as_null(tmp_path: Path) -> None:
    with (
        live_server(tmp_path / "data", messages_per_second=0.01, message_burst=3) as server,
        internal_errors() as errors,
    ):
        seat = await create_room(server.url)
        client = await connected(server, seat["code"], seat["token"])  # hello: the first of three
        assert (await client.request({"type": "ping"}))["type"] == "pong"
        assert (await client.request({"type": "ping"}))["type"] == "pong"
        refused = await client.request({"type": "ping", "id": "mine-1"})
        # docs/protocol.md: a rate-limited message is refused with its id, so it can be sent again
        assert (refused["type"], refused["code"], refused["id"]) == ("error", "rate_limited", "mine-1")
        start = len(client.received)
        await client.send_raw('{"type":"ping","id":"\\ud800"}')
        refused = await client.wait_for(lambda m: m["type"] == "error", start=start)
        assert (refused["code"], refused["id"]) == ("rate_limited", None)
        assert client.socket is not None
        assert client.socket.state.name == "OPEN"
    assert not errors, [record.getMessage() for record in errors]


@pytest.mark.anyio
async def test_every_number_a_client_sends_is_bounded(server: LiveServer) -> None:
    huge = 10**500
    async with httpx.AsyncClient(base_url=server.url) as http:
        for options in ({"target_score": huge}, {"target_score": 5000}, {"storyteller_cycles": huge}):
            body = json.dumps({"name": "A", "colour": "red", "settings": {"options": options}})
            response = await http.post("/api/rooms", content=body)
            assert response.status_code == 400, options
            assert response.json()["error"]["code"] == "bad_option"
            assert len(response.json()["error"]["message"]) < 200
    _, host = await game_with_bots(server)
    for message in (
        f'{{"type":"kick","id":"k1","member":{huge}}}',
        f'{{"type":"pass_host","id":"k2","member":{huge}}}',
        f'{{"type":"act","id":"k3","action":{{"type":"vote","slots":[{huge}]}}}}',
        f'{{"type":"act","id":"k4","action":{{"type":"red","slot":{"9" * 5000}}}}}',
    ):
        start = len(host.received)
        await host.send_raw(message)
        reply = await host.wait_for(lambda m: m["type"] == "error", start=start)
        assert reply["code"] == "malformed", reply
        assert len(reply["message"]) < 300
    assert (await host.request({"type": "ping"}))["type"] == "pong"


def _text_frame(payload: bytes) -> bytes:
    mask = os.urandom(4)
    assert len(payload) < 126
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


@pytest.mark.anyio
async def test_invalid_utf8_closes_with_1007_and_is_not_logged_as_a_server_error(server: LiveServer) -> None:
    seat = await create_room(server.url)
    with internal_errors() as errors:

        def send_invalid() -> bytes:
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
                key = base64.b64encode(os.urandom(16)).decode()
                raw.sendall(
                    f"GET /ws/{seat['code']} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
                )
                assert raw.recv(4096).startswith(b"HTTP/1.1 101")
                raw.sendall(_text_frame(b'{"type":"ping","id":"\xff\xfe"}'))
                return raw.recv(64)

        closing = await asyncio.to_thread(send_invalid)
        await asyncio.sleep(0.2)
    assert closing[:1] == b"\x88"  # a close frame
    assert int.from_bytes(closing[2:4], "big") == 1007
    assert not errors, [record.getMessage() for record in errors]


# ---------------------------------------------------------------- bug 7: removed means removed


@pytest.mark.anyio
async def test_a_player_removed_mid_game_is_told_at_once_and_only_watches(server: LiveServer) -> None:
    code, _, host, guest_seat, fay = await game_with_fay(server)
    await fay.wait_state(lambda room: room["status"] == "playing" and room["game"]["hand"])
    start = len(fay.received)
    assert (await host.request({"type": "kick", "member": guest_seat["member"]}))["type"] == "ack"
    told = await fay.wait_for(lambda m: m["type"] == "error" and m["code"] == "removed", start=start)
    assert told["id"] is None
    room = await fay.wait_state(lambda room: room["you"] is None)
    assert room["game"]["hand"] is None
    for message in (
        {"type": "act", "action": {"type": "vote", "slots": [1]}},
        {"type": "say", "text": "still here?"},
        {"type": "leave"},
        {"type": "legal"},
    ):
        reply = await fay.request(message)
        assert (reply["type"], reply["code"]) == ("error", "spectator"), message
    # and no later state shows the removed player a hand
    assert all(m["room"]["game"]["hand"] is None for m in fay.received[start:] if m["type"] == "state")
    again = Client(server.url, code, guest_seat["token"])
    assert (await again.connect())["code"] == "removed"  # (a page closed then is told why, not "bad token")
    # nor does the join link seat again a browser that still holds the removed seat's token
    refused = await asyncio.to_thread(
        httpx.post,
        f"{server.url}/api/rooms/{code}/join",
        json={"name": "Fay", "colour": "pink", "former_token": guest_seat["token"]},
    )
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "removed_here")


@pytest.mark.anyio
async def test_a_player_removed_in_the_lobby_is_told_too(server: LiveServer) -> None:
    seat = await create_room(server.url, "Host", "red")
    guest_seat = (await join_room(server.url, seat["code"], "Fay", "blue")).json()
    host = await connected(server, seat["code"], seat["token"])
    fay = await connected(server, seat["code"], guest_seat["token"])
    start = len(fay.received)
    await host.request({"type": "kick", "member": guest_seat["member"]})
    await fay.wait_for(lambda m: m["type"] == "error" and m["code"] == "removed", start=start)
    room = await fay.wait_state(lambda room: room["you"] is None)
    assert [m["name"] for m in room["members"]] == ["Host"]


# ---------------------------------------------------------------- leaving for good, taking over


@pytest.mark.anyio
async def test_leaving_for_good_frees_the_seat_for_a_newcomer_who_takes_it_over(server: LiveServer) -> None:
    code, seat, _, fay_seat, fay = await game_with_fay(server)
    assert (await fay.request({"type": "say", "text": "bye all"}))["type"] == "ack"
    assert (await fay.request({"type": "leave", "for_good": True}))["type"] == "ack"
    room = await fay.wait_state(lambda room: room["you"] is None)
    assert room["game"]["hand"] is None
    assert (await Client(server.url, code, fay_seat["token"]).connect())["code"] == "bad_token"
    async with httpx.AsyncClient(base_url=server.url) as http:
        summary = (await http.get(f"/api/rooms/{code}")).json()
        open_seats = {s["name"]: s for s in summary["open_seats"]}
        assert set(open_seats) == {"Fay", "Bot Pink"}
        assert summary["full"] is False
        # a seat someone plays cannot be taken; a taken-over seat keeps its rabbit
        taken = await http.post(
            f"/api/rooms/{code}/join", json={"name": "Gil", "colour": "red", "replaces": seat["member"]}
        )
        assert taken.json()["error"]["code"] == "seat_taken"
        wrong_colour = await http.post(
            f"/api/rooms/{code}/join", json={"name": "Gil", "colour": "pink", "replaces": fay_seat["member"]}
        )
        assert wrong_colour.json()["error"]["code"] == "colour_taken"
        joined = await http.post(
            f"/api/rooms/{code}/join", json={"name": "Gil", "colour": "blue", "replaces": fay_seat["member"]}
        )
    assert joined.status_code == 201, joined.text
    gil = await connected(server, code, joined.json()["token"])
    gil_room = gil.room
    assert gil_room is not None
    assert gil_room["you"]["seat"] == 1
    assert gil_room["game"]["hand"]
    assert [m["name"] for m in gil_room["members"] if m["seat"] == 1] == ["Gil"]
    assert any(line["name"] == "Fay" and line["text"] == "bye all" for line in gil.received[0]["chat"])


@pytest.mark.anyio
async def test_a_latecomer_takes_over_a_bots_seat_and_the_bot_stops(server: LiveServer) -> None:
    seat, host = await game_with_bots(server, bots=2, options={"first_storyteller": 0})
    code = seat["code"]
    bot = next(m for m in host.room["members"] if m["bot"]) if host.room else None
    assert bot is not None
    assert bot["open"] is True
    joined = await join_room(server.url, code, "Late", bot["colour"])
    assert joined.json()["error"]["code"] == "game_started"
    async with httpx.AsyncClient(base_url=server.url) as http:
        joined = await http.post(
            f"/api/rooms/{code}/join", json={"name": "Late", "colour": bot["colour"], "replaces": bot["member"]}
        )
    assert joined.status_code == 201, joined.text
    late = await connected(server, code, joined.json()["token"])
    assert late.room is not None
    assert late.room["you"]["seat"] == bot["seat"]
    # the host tells; the latecomer's seat waits for the latecomer, not for a bot
    rng = random.Random(3)
    await move_once(host, rng)
    room = await late.wait_state(lambda room: room["game"]["phase"] == "play")
    await asyncio.sleep(0.3)  # bots move after 0 s here: the other bot has played by now
    assert awaited(late.room)
    assert (await move_once(late, rng) or {}).get("type") == "ack"
    seated = {m["seat"]: m for m in room["members"]}
    assert (seated[bot["seat"]]["name"], seated[bot["seat"]]["bot"]) == ("Late", None)
    assert bot["member"] not in {m["member"] for m in room["members"]}


# ---------------------------------------------------------------- the host ends a game early


@pytest.mark.anyio
async def test_the_host_ends_a_game_early_and_the_scores_as_they_stand_decide(server: LiveServer) -> None:
    seat, host = await game_with_bots(server, bots=2)
    code = seat["code"]
    watcher = await connected(server, code, None)
    assert (await watcher.request({"type": "end"}))["code"] == "spectator"
    assert (await host.request({"type": "end"}))["type"] == "ack"
    room = await host.wait_state(lambda room: room["status"] == "over")
    assert room["game"]["outcome"]["winners"] == [0, 1, 2]  # nobody had scored yet
    assert (await host.request({"type": "end"}))["code"] == "not_started"
    # the room rebuilt from its log (a restart) is over too, with the same outcome
    replayed = replay(code, await server.service.rooms.store.load(code))
    assert replayed is not None
    assert replayed.status == "over"
    game = replayed.game
    assert game is not None
    assert game.outcome is not None
    assert game.outcome.to_json() == room["game"]["outcome"]


# ---------------------------------------------------------------- bug 3: a double tap


@pytest.mark.anyio
async def test_a_double_tap_on_create_or_join_makes_one_room_and_one_seat(server: LiveServer) -> None:
    body = {"name": "Mara", "colour": "blue", "request": "tap-1"}
    async with httpx.AsyncClient(base_url=server.url) as http:
        first, second = await asyncio.gather(http.post("/api/rooms", json=body), http.post("/api/rooms", json=body))
        assert first.status_code == second.status_code == 201
        assert first.json()["code"] == second.json()["code"]
        assert first.json()["token"] == second.json()["token"]
        assert len(server.service.rooms.held) == 1
        code = first.json()["code"]
        join = {"name": "Ben", "colour": "red", "request": "tap-2"}
        joins = await asyncio.gather(*(http.post(f"/api/rooms/{code}/join", json=join) for _ in range(3)))
        assert {response.json()["member"] for response in joins} == {1}
        summary = (await http.get(f"/api/rooms/{code}")).json()
        assert [m["name"] for m in summary["members"]] == ["Mara", "Ben"]
        # a refused request may be fixed and sent again under the same id
        bad = {"name": "Mara", "colour": "pink", "request": "tap-3"}
        assert (await http.post(f"/api/rooms/{code}/join", json=bad)).json()["error"]["code"] == "name_taken"
        fixed = await http.post(f"/api/rooms/{code}/join", json={**bad, "name": "Cleo"})
        assert fixed.status_code == 201


# ---------------------------------------------------------------- rooms per address: those in use


@pytest.mark.anyio
async def test_only_rooms_in_use_count_toward_an_address_and_the_refusal_says_when_one_frees(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", max_rooms_per_address=2) as server:
        first = await create_room(server.url, "A")
        await create_room(server.url, "B")
        host = await connected(server, first["code"], first["token"])
        async with httpx.AsyncClient(base_url=server.url) as http:
            refused = await http.post("/api/rooms", json={"name": "C", "colour": "red"})
            assert refused.status_code == 429
            error = refused.json()["error"]
            assert error["code"] == "too_many_rooms"
            assert "10 minutes" in error["message"]  # the room nobody is in frees 10 minutes after its last move
            assert 0 < error["retry_after"] <= IN_USE_SECONDS
            assert refused.headers["retry-after"] == str(error["retry_after"])
            server.shift_clock(IN_USE_SECONDS + 1)
            # the room nobody is in no longer counts; the one the host is in still does
            assert (await http.post("/api/rooms", json={"name": "C", "colour": "red"})).status_code == 201
            again = await http.post("/api/rooms", json={"name": "D", "colour": "red"})
            assert again.status_code == 429
        await host.close()


# ---------------------------------------------------------------- bug 4: a link phones can open


@pytest.mark.anyio
async def test_the_join_link_is_one_a_phone_can_open_or_says_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(invite_module, "lan_address", lambda: "192.168.1.23")
    with live_server(tmp_path / "a", host="0.0.0.0") as everywhere:
        seat = await create_room(everywhere.url)
        assert seat["join_url"] == f"http://192.168.1.23:{everywhere.port}/join/{seat['code']}"
        assert seat["invite"]["reachable"] is True
        async with httpx.AsyncClient(base_url=everywhere.url) as http:
            qr = await http.get(f"/api/rooms/{seat['code']}/qr.svg")
            # a page opened over the network keeps its own address
            summary = await http.get(f"/api/rooms/{seat['code']}", headers={"Host": "fabula.lan:8000"})
        assert qr.status_code == 200
        assert summary.json()["invite"]["url"] == f"http://fabula.lan:8000/join/{seat['code']}"
    with live_server(tmp_path / "b") as here_only:  # the default: 127.0.0.1
        seat = await create_room(here_only.url)
        assert seat["invite"] == {
            "url": f"{here_only.url}/join/{seat['code']}",
            "reachable": False,
            "problem": "loopback_only",
        }
    monkeypatch.setattr(invite_module, "lan_address", lambda: None)
    with live_server(tmp_path / "c", host="0.0.0.0") as offline:
        assert (await create_room(offline.url))["invite"]["problem"] == "no_network"


# ---------------------------------------------------------------- bug 5: a full room says so before


@pytest.mark.anyio
async def test_a_full_room_says_so_before_anyone_fills_in_a_name(server: LiveServer) -> None:
    seat = await create_room(server.url, "Host", "red", mode="classic")
    for n, colour in enumerate(COLOURS[1:6]):
        assert (await join_room(server.url, seat["code"], f"P{n}", colour)).status_code == 201
    async with httpx.AsyncClient(base_url=server.url) as http:
        summary = (await http.get(f"/api/rooms/{seat['code']}")).json()
    assert (summary["full"], summary["seats_max"], len(summary["members"])) == (True, 6, 6)
    assert summary["free_colours"], "colours are free: the seats are not"


# ---------------------------------------------------------------- away: the countdown, and the story


@pytest.mark.anyio
async def test_the_table_sees_when_a_bot_stands_in_and_the_player_learns_what_it_played(server: LiveServer) -> None:
    code, _, host, fay_seat, fay = await game_with_fay(server)
    await fay.close()
    grace = server.config.disconnect_grace_seconds
    room = await host.wait_state(lambda room: room["members"][1]["stand_in_at"] is not None)
    gone_at = room["members"][1]["stand_in_at"] - grace
    assert abs(gone_at - server.service.clock()) < 5
    assert room["members"][0]["stand_in_at"] is None
    await move_once(host, random.Random(1))  # the host tells: Fay's card is awaited
    server.shift_clock(grace + 1)
    await host.wait_state(lambda room: room["game"] is not None and room["game"]["phase"] == "vote")
    back = await connected(server, code, fay_seat["token"])
    assert back.room is not None
    stood_in = back.room["you"]["stood_in"]
    moves = [(move["round"], move["action"]["type"]) for move in stood_in]
    assert moves[0] == (1, "play")
    # still gone as the game went on, she may have had it vote, and tell the next round, for her too
    assert set(moves) <= {(1, "play"), (1, "vote"), (2, "tell")}
    played, game = stood_in[0]["action"]["cards"][0], back.room["game"]
    assert played in game["my_cards"] or played in game["last_round"]["table"]
    assert back.room["members"][1]["stand_in_at"] is None
    # the others never learn what the bot played for her
    assert all(m["room"]["you"]["stood_in"] == [] for m in host.received if m["type"] == "state")
    rng = random.Random(2)
    while not awaited(back.room):  # (the bot may have told for her: then the host plays on first)
        seen = len(back.received)
        if await move_once(host, rng) is None:
            await back.wait_for(lambda m: m["type"] == "state", start=seen)
    reply = await move_once(back, rng)  # her own move: the story is told, and cleared
    assert reply is not None
    assert reply["type"] == "ack"
    cleared = await back.wait_state(lambda room: room["you"]["stood_in"] == [])
    assert cleared["you"]["stood_in"] == []


# ---------------------------------------------------------------- teams: a bot partner asks first


@pytest.mark.anyio
async def test_a_bot_partner_offers_its_card_to_the_person_and_plays_only_after_the_quiet_wait(
    server: LiveServer,
) -> None:
    _, host = await game_with_bots(server, bots=5, mode="teams", options={"first_storyteller": 1})
    room = await host.wait_state(lambda room: room["game"] is not None and room["game"]["phase"] == "play")
    partner = (room["you"]["seat"] + 3) % 6
    assert partner != room["game"]["storyteller"]
    await host.wait_state(lambda room: room["game"] is not None and room["game"]["teammate_proposed"])
    await asyncio.sleep(0.3)  # bots move after 0 s here: it would have played by now
    assert host.room is not None
    assert partner not in host.room["game"]["acted"], "the bot played over its person teammate's head"
    assert awaited(host.room)
    server.shift_clock(server.config.teammate_wait_seconds + 1)
    # the host never moves: after the wait its partner plays, and the host is the team's voter
    await host.wait_state(lambda room: room["game"] is not None and room["game"]["phase"] == "vote")


@pytest.mark.anyio
async def test_the_storytellers_bot_partner_plays_at_once_it_has_no_choice_to_offer(server: LiveServer) -> None:
    _, host = await game_with_bots(server, bots=5, mode="teams", options={"first_storyteller": 0})
    await host.wait_state(lambda room: room["game"] is not None and awaited(room))
    assert (await move_once(host, random.Random(5)) or {}).get("type") == "ack"  # the host tells
    # the storyteller's teammate must play: its bot does, with no wait for anyone
    await host.wait_state(lambda room: room["game"] is not None and room["game"]["phase"] == "vote", timeout=5)
