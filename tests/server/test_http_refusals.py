"""An HTTP refusal goes out with its code's status (`fabula.errors.ErrorCode.status`), and the one
route that sends a code with another (a room's cards, when its decks are gone) still does. Other
tests cover ``no_room`` (404), ``too_many_rooms`` (429), ``bad_option`` and ``colour_taken``
(400) and ``no_card`` (404); these are the rest of the sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest

from fabula.server.errors import RoomCode
from fabula.server.room_routes import BODY_MAX
from tests.cards.test_library import write_deck

from .harness import create_room, live_server

OK = {"name": "Ana", "colour": "red"}


def refusal(response: httpx.Response) -> tuple[int, str]:
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    return response.status_code, body["error"]["code"]


@pytest.mark.anyio
async def test_each_refusal_has_its_codes_status(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            too_large = await http.post("/api/rooms", content=json.dumps({**OK, "pad": "x" * BODY_MAX}))
            not_json = await http.post("/api/rooms", content=b"{")
            settings = await http.post("/api/rooms", json={**OK, "settings": "odyssey"})
            decks = await http.post("/api/rooms", json={**OK, "settings": {"decks": ["no-such-deck"]}})
            width = await http.get("/cards/fabula-07.svg?w=wide")
    assert refusal(too_large) == (400, "too_large")
    assert refusal(not_json) == (400, "malformed")
    assert refusal(settings) == (400, "bad_settings")
    assert refusal(decks) == (400, "bad_decks")
    assert refusal(width) == (400, "bad_width")


@pytest.mark.anyio
async def test_a_room_whose_decks_are_gone_has_no_cards_to_list(tmp_path: Path) -> None:
    data = tmp_path / "data"
    folder = write_deck(data, "holiday", 100)
    with live_server(data) as server:
        seat = await create_room(server.url, decks=["holiday"])
        shutil.rmtree(folder)
        async with httpx.AsyncClient(base_url=server.url) as http:
            listed = await http.get(f"/api/rooms/{seat['code']}/cards")
    assert refusal(listed) == (404, "bad_decks")
    assert RoomCode.BAD_DECKS.status == 400, "elsewhere, choosing decks this server lacks is refused"
