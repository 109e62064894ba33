"""A room's cards described in the reader's language (issue 34): `/api/rooms/{code}/cards?lang=`
gives the original deck's descriptions in English, 繁體中文 or 简体中文; a host's own picture keeps
the caption the host wrote, whatever the language."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .harness import Client, LiveServer, create_room, live_server
from .test_pictures import bearer, png, upload

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data", uploads_per_minute=50) as live:
        yield live


async def test_the_cards_are_described_in_the_asked_language_and_a_caption_as_written(server: LiveServer) -> None:
    host = await create_room(server.url)
    code, token = host["code"], host["token"]
    ours = (await upload(server, code, token, [("kite.png", png(5))])).json()[0]["card"]
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        await http.put(
            f"/api/rooms/{code}/pictures/{ours}/caption", headers=bearer(token), json={"caption": "我的風箏 — my kite"}
        )
    seat = Client(server.url, code, token)
    await seat.connect()
    assert (await seat.request({"type": "settings", "settings": {"decks": ["fabula", "pictures"]}}))["type"] == "ack"
    await seat.close()
    said: dict[str, dict[str, str]] = {}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        for language in ("", "en", "zh-Hant", "zh-Hans", "fr"):
            query = {"lang": language} if language else {}
            response = await http.get(f"/api/rooms/{code}/cards", params=query)
            assert response.status_code == 200, response.text
            said[language] = {card["id"]: card["description"] for card in response.json()["cards"]}
    assert said[""] == said["en"] == said["fr"], "English unless a language of the client is asked"
    assert said["en"]["fabula-71"].startswith("Seashells rain down")
    assert said["zh-Hant"]["fabula-71"].startswith("暴風雨的天空下")
    assert said["zh-Hans"]["fabula-71"].startswith("暴风雨的天空下")
    for cards in said.values():
        assert cards[ours] == "我的風箏 — my kite", "the host's own words, in every language"
        assert len(cards) == 85
