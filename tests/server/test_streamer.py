"""Streamer mode (issue 36): a lobby setting of the host's; with it on, a join over HTTP is a
request that waits (202, an ``ask``) until the host lets them in (seated, the token they hold takes
the seat) or turns them away (nobody seated; their page is told). Requests are entries: they
survive a restart, and the game's start turns away those still waiting for a lobby seat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from .harness import Client, LiveServer, create_room, join_room, live_server


async def streamer_room(server: LiveServer, **settings: Any) -> tuple[Client, str]:
    """A room in streamer mode with its host connected."""
    seat = await create_room(server.url, streamer=True, **settings)
    host = Client(server.url, seat["code"], seat["token"])
    await host.connect()
    return host, seat["code"]


async def status(server: LiveServer, code: str, token: str | None) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=server.url) as http:
        return await http.get(f"/api/rooms/{code}/ask", headers=headers)


@pytest.mark.anyio
async def test_streamer_mode_is_the_hosts_setting_and_only_in_the_lobby(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        seat = await create_room(server.url)
        host = Client(server.url, seat["code"], seat["token"])
        await host.connect()
        other_seat = (await join_room(server.url, seat["code"], "Ann", "blue")).json()
        other = Client(server.url, seat["code"], other_seat["token"])
        await other.connect()
        reply = await other.request({"type": "settings", "settings": {"streamer": True}})
        assert (reply["type"], reply["code"]) == ("error", "not_host")
        assert other.room is not None
        assert other.room["settings"]["streamer"] is False
        assert (await host.request({"type": "settings", "settings": {"streamer": True}}))["type"] == "ack"
        await other.wait_state(lambda r: r["settings"]["streamer"])
        await host.request({"type": "add_bot"})
        assert (await host.request({"type": "start"}))["type"] == "ack"
        reply = await host.request({"type": "settings", "settings": {"streamer": False}})
        assert (reply["type"], reply["code"]) == ("error", "game_started")


@pytest.mark.anyio
async def test_a_join_waits_for_the_host_who_lets_them_in(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host, code = await streamer_room(server)
        watcher = Client(server.url, code, None)
        await watcher.connect()
        response = await join_room(server.url, code, "Mara", "blue")
        assert response.status_code == 202, response.text
        asked = response.json()
        assert set(asked) == {"code", "ask", "token"}
        assert asked["ask"] == 0
        assert (await status(server, code, asked["token"])).json()["status"] == "waiting"
        room = await host.wait_state(lambda r: r["asks"])
        assert room["asks"] == [{"ask": 0, "name": "Mara", "colour": "blue", "replaces": None}]
        assert [m["name"] for m in room["members"]] == ["Host"], "nobody seated yet"
        assert watcher.room is not None
        assert watcher.room["asks"] == [], "only the host sees who asks"
        refused = Client(server.url, code, asked["token"])
        assert (await refused.connect())["code"] == "bad_token", "a waiting token takes no seat"
        assert (await host.request({"type": "answer_ask", "ask": 0, "approve": True}))["type"] == "ack"
        room = await host.wait_state(lambda r: len(r["members"]) == 2)
        assert (room["members"][1]["name"], room["members"][1]["colour"], room["asks"]) == ("Mara", "blue", [])
        answer = (await status(server, code, asked["token"])).json()
        assert (answer["status"], answer["member"]) == ("approved", 1)
        mara = Client(server.url, code, asked["token"])
        await mara.connect()
        assert mara.room is not None
        assert mara.room["you"]["member"] == 1


@pytest.mark.anyio
async def test_a_refused_request_seats_nobody_and_its_page_is_told(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host, code = await streamer_room(server)
        asked = (await join_room(server.url, code, "Troll", "blue")).json()
        await host.wait_state(lambda r: r["asks"])
        assert (await host.request({"type": "answer_ask", "ask": 0, "approve": False}))["type"] == "ack"
        room = await host.wait_state(lambda r: not r["asks"])
        assert len(room["members"]) == 1
        assert (await status(server, code, asked["token"])).json()["status"] == "refused"
        again = await host.request({"type": "answer_ask", "ask": 0, "approve": True})
        assert (again["type"], again["code"]) == ("error", "no_ask"), "answered once"
        assert len((await host.wait_state(lambda _: True))["members"]) == 1
        unknown = await status(server, code, "not-a-token")
        assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "no_ask")
        assert (await status(server, code, None)).json()["error"]["code"] == "no_ask"


@pytest.mark.anyio
async def test_only_the_host_answers_and_bad_answers_are_refused(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host, code = await streamer_room(server)
        ann_token = (await join_room(server.url, code, "Ann", "blue")).json()["token"]
        await host.wait_state(lambda r: r["asks"])
        await host.request({"type": "answer_ask", "ask": 0, "approve": True})
        ann = Client(server.url, code, ann_token)
        await ann.connect()
        await join_room(server.url, code, "Bo", "yellow")
        room = await host.wait_state(lambda r: len(r["asks"]) == 1 and r["asks"][0]["name"] == "Bo")
        reply = await ann.request({"type": "answer_ask", "ask": 1, "approve": True})
        assert (reply["type"], reply["code"]) == ("error", "not_host")
        for bad in (
            {"type": "answer_ask", "ask": "1", "approve": True},
            {"type": "answer_ask", "ask": 1},
            {"type": "answer_ask", "ask": 1, "approve": "yes"},
            {"type": "answer_ask", "ask": 10**9, "approve": True},
        ):
            reply = await host.request(bad)
            assert (reply["type"], reply["code"]) == ("error", "malformed"), bad
        reply = await host.request({"type": "answer_ask", "ask": 7, "approve": True})
        assert (reply["type"], reply["code"]) == ("error", "no_ask")
        assert host.room is not None
        assert host.room["seq"] == room["seq"], "nothing changed"
        assert host.room["asks"] == room["asks"]


@pytest.mark.anyio
async def test_a_request_is_refused_for_a_name_or_rabbit_taken_a_full_room_and_too_many_asks(
    tmp_path: Path,
) -> None:
    with live_server(tmp_path / "data") as server:
        host, code = await streamer_room(server, mode="odyssey")
        taken = await join_room(server.url, code, "host", "blue")
        assert (taken.status_code, taken.json()["error"]["code"]) == (400, "name_taken")
        assert (await join_room(server.url, code, "Ann", "red")).json()["error"]["code"] == "colour_taken"
        assert (await join_room(server.url, code, "Ann", "blue")).status_code == 202
        assert (await join_room(server.url, code, "ANN", "pink")).json()["error"]["code"] == "name_taken", "Ann waits"
        blue = await join_room(server.url, code, "Bo", "blue")
        assert blue.json()["error"]["code"] == "colour_taken", "Ann asked for the blue rabbit"
        # the same network: three requests in ten minutes (the two refused above counted none)
        assert (await join_room(server.url, code, "Bo", "pink")).status_code == 202
        assert (await join_room(server.url, code, "Cy", "yellow")).status_code == 202
        limited = await join_room(server.url, code, "Di", "orange")
        assert (limited.status_code, limited.json()["error"]["code"]) == (429, "too_many_asks")
        room = await host.wait_state(lambda r: len(r["asks"]) == 3)
        assert [a["name"] for a in room["asks"]] == ["Ann", "Bo", "Cy"]
        # the rabbits of those waiting are not a bot's: a bot takes the first rabbit nobody asked for
        await host.request({"type": "add_bot"})
        room = await host.wait_state(lambda r: len(r["members"]) == 2)
        assert room["members"][1]["colour"] == "dark green"


@pytest.mark.anyio
async def test_a_request_for_a_full_room_is_refused(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host, code = await streamer_room(server)
        for _ in range(11):
            assert (await host.request({"type": "add_bot"}))["type"] == "ack"
        full = await join_room(server.url, code, "Ed", "orange")
        assert (full.status_code, full.json()["error"]["code"]) == (400, "room_full")
        assert host.room is not None
        assert host.room["asks"] == []


@pytest.mark.anyio
async def test_requests_survive_a_restart_and_the_start_turns_away_who_still_waits(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host, code = await streamer_room(server)
        host_token = host.token
        ann = (await join_room(server.url, code, "Ann", "blue")).json()
        bo = (await join_room(server.url, code, "Bo", "pink")).json()
        await host.wait_state(lambda r: len(r["asks"]) == 2)
        await host.close()
    with live_server(tmp_path / "data") as again:
        host = Client(again.url, code, host_token)
        await host.connect()
        assert host.room is not None
        assert [a["name"] for a in host.room["asks"]] == ["Ann", "Bo"]
        await host.request({"type": "answer_ask", "ask": 0, "approve": True})
        await host.request({"type": "add_bot"})
        assert (await host.request({"type": "start"}))["type"] == "ack"
        room = await host.wait_state(lambda r: r["status"] == "playing")
        assert room["asks"] == []
        assert (await status(again, code, bo["token"])).json()["status"] == "dropped"
        assert (await status(again, code, ann["token"])).json()["status"] == "approved"
        # during the game a request is to take over a seat, and waits the same way
        bot = next(m for m in room["members"] if m["bot"])
        async with httpx.AsyncClient(base_url=again.url) as http:
            response = await http.post(
                f"/api/rooms/{code}/join", json={"name": "Cy", "colour": bot["colour"], "replaces": bot["member"]}
            )
        assert response.status_code == 202, response.text
        room = await host.wait_state(lambda r: [a["name"] for a in r["asks"]] == ["Cy"])
        assert room["asks"][0]["replaces"] == bot["member"]
        await host.request({"type": "answer_ask", "ask": 2, "approve": True})
        room = await host.wait_state(lambda r: any(m["name"] == "Cy" for m in r["members"]))
        cy = next(m for m in room["members"] if m["name"] == "Cy")
        assert (cy["seat"], cy["bot"]) == (bot["seat"], None)
