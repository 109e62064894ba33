"""A room's story over HTTP and the WebSocket: finished games newest first, each album as the log
made it, the album as a PNG, share links, and who may read what (401/403, nothing said)."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from .harness import Client, LiveServer, live_server
from .players import play_to_end
from .test_games import seat_people


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data", messages_per_second=500.0, message_burst=500) as running:
        yield running


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def finished_games(server: LiveServer, games: int, bots: int = 2, **settings: Any) -> tuple[list[Client], str]:
    """A room of two people and ``bots`` bots that played ``games`` short games."""
    clients, code = await seat_people(server, 2, bots, **settings)
    rng = random.Random(5)
    for number in range(games):
        message = {"type": "start"} if number == 0 else {"type": "rematch"}
        reply = await clients[0].request(message)
        assert reply["type"] == "ack", reply
        for client in clients:  # (each must see the new game before it plays: not the last one's end)
            await client.wait_state(lambda room, n=number: room["games_started"] == n + 1)
        await asyncio.gather(*(play_to_end(client, rng) for client in clients))
    return clients, code


@pytest.mark.anyio
async def test_a_rooms_games_albums_and_pictures_for_its_members(server: LiveServer) -> None:
    clients, code = await finished_games(server, 2, mode="odyssey", options={"storyteller_cycles": 1})
    token = clients[1].token
    assert token is not None
    room = server.service.rooms.held[code].room
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(token), timeout=60) as http:
        listed = await http.get(f"/api/rooms/{code}/games")
        assert listed.status_code == 200
        games = listed.json()
        assert [game["number"] for game in games] == [2, 1], "newest first"
        for game in games:
            album = room.album(game["number"])
            assert game["mode"] == "odyssey"
            assert game["rounds"] == len(album.rounds) == 4, "one cycle of four storytellers"
            assert game["winners"] == list(album.outcome.winners)
            assert [p["name"] for p in game["players"]] == [p.name for p in album.players]
            assert game["ended_at"] == album.ended_at
        found = (await http.get(f"/api/rooms/{code}/games/1")).json()
        assert found == room.album(1).to_json()
        last = clients[1].room
        assert last is not None
        assert found is not None
        assert (await http.get(f"/api/rooms/{code}/games/2")).json()["rounds"][-1] == last["game"]["last_round"]

        picture = await http.get(f"/api/rooms/{code}/games/1/album.png", params={"lang": "zh-Hant"})
        assert picture.status_code == 200
        assert picture.headers["content-type"] == "image/png"
        assert "attachment" in picture.headers["content-disposition"]
        whole = Image.open(io.BytesIO(picture.content))
        one = Image.open(io.BytesIO((await http.get(f"/api/rooms/{code}/games/1/album.png?round=2")).content))
        assert whole.format == one.format == "PNG"
        assert one.height < whole.height
        for wrong in ("0", "5", "x"):
            refused = await http.get(f"/api/rooms/{code}/games/1/album.png", params={"round": wrong})
            assert refused.status_code == 400
            assert refused.json()["error"]["code"] == "malformed"
        for missing in ("/games/3", "/games/3/album.png"):
            answer = await http.get(f"/api/rooms/{code}{missing}")
            assert (answer.status_code, answer.json()["error"]["code"]) == (404, "no_game")


@pytest.mark.anyio
async def test_without_a_token_or_with_another_rooms_the_story_is_closed(server: LiveServer) -> None:
    _clients, code = await finished_games(server, 1, mode="classic", options={"storyteller_cycles": 1})
    others, _other_code = await seat_people(server, 1, 2)
    stranger = others[0].token
    assert stranger is not None
    paths = [f"/api/rooms/{code}/games", f"/api/rooms/{code}/games/1", f"/api/rooms/{code}/games/1/album.png"]
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        for path in paths:
            for headers, status in (({}, 401), ({"Authorization": "Basic x"}, 401), (bearer(stranger), 403)):
                answer = await http.get(path, headers=headers)
                assert answer.status_code == status, (path, headers)
                assert answer.headers["content-type"] == "application/json"
                body = answer.json()
                assert set(body) == {"error"}
                assert "round" not in answer.text
                assert "clue" not in answer.text
        for headers, status in (({}, 401), (bearer(stranger), 403)):
            refused = await http.post(f"/api/rooms/{code}/games/1/share", headers=headers)
            assert refused.status_code == status


@pytest.mark.anyio
async def test_a_share_link_opens_one_album_for_anyone_who_has_it(server: LiveServer) -> None:
    clients, code = await finished_games(server, 2, 4, mode="party", options={"storyteller_cycles": 1})
    token = clients[0].token
    assert token is not None
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        made = await http.post(f"/api/rooms/{code}/games/1/share", headers=bearer(token))
        assert made.status_code == 201
        link = made.json()
        assert link["url"].endswith(link["path"])
        assert link["path"].startswith(f"/album/{code}/")
        secret = link["path"].rsplit("/", 1)[1]
        assert len(secret) >= 20
        again = (await http.post(f"/api/rooms/{code}/games/1/share", headers=bearer(token))).json()
        assert again["path"] != link["path"], "a fresh secret each time"

        shared = await http.get(f"/api/albums/{code}/{secret}")
        assert shared.status_code == 200
        assert shared.json() == server.service.rooms.held[code].room.album(1).to_json()
        picture = await http.get(f"/api/albums/{code}/{secret}/album.png")
        assert picture.headers["content-type"] == "image/png"
        page = await http.get(link["path"])
        assert page.status_code == 200
        assert "text/html" in page.headers["content-type"]

        for wrong in (f"/api/albums/{code}/{secret[:-1]}x", f"/api/albums/{code}/guess", f"/api/albums/ZZZZ/{secret}"):
            answer = await http.get(wrong)
            assert (answer.status_code, answer.json()["error"]["code"]) == (404, "no_game")
        refused = await http.post(f"/api/rooms/{code}/games/9/share", headers=bearer(token))
        assert (refused.status_code, refused.json()["error"]["code"]) == (404, "no_game")

    # the links are in the log: a server started again on the same data still opens them
    data = server.config.data
    server.stop()
    with live_server(data) as again_server, httpx.Client(base_url=again_server.url) as http:
        assert http.get(f"/api/albums/{code}/{secret}").json()["number"] == 1


@pytest.mark.anyio
async def test_over_the_websocket_a_spectator_reads_the_latest_album_and_a_member_any(server: LiveServer) -> None:
    clients, code = await finished_games(server, 2, 4, mode="teams", options={"storyteller_cycles": 1})
    room = server.service.rooms.held[code].room
    spectator = Client(server.url, code, None)
    await spectator.connect()
    latest = await spectator.request({"type": "album"})
    assert latest["type"] == "album"
    assert latest["album"] == room.album(2).to_json()
    assert latest["album"]["teams"] == [list(pair) for pair in room.game.rules.teams]
    assert (await spectator.request({"type": "album", "game": 2}))["album"]["number"] == 2
    refused = await spectator.request({"type": "album", "game": 1})
    assert (refused["type"], refused["code"]) == ("error", "no_game")
    member = await clients[1].request({"type": "album", "game": 1})
    assert member["album"] == room.album(1).to_json()
    assert (await clients[1].request({"type": "album", "game": 7}))["code"] == "no_game"
    malformed = await clients[1].request({"type": "album", "game": "one"})
    assert malformed["type"] == "error"
    await spectator.close()
