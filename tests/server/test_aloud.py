"""A clue said aloud, on a live server (issue 36): the storyteller's ``tell`` with ``aloud`` and no
words is taken; an empty clue without ``aloud`` and a malformed ``aloud`` are refused with their
codes while the room goes on; every seat, the spectator and the album get ``aloud`` and the words
(none here), nothing else; a bot plays on; the room's log replays to the same state."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from fabula.server.room_settings import COLOURS

from .harness import Client, create_room, join_room, live_server
from .players import play_to_end


def telling(room: dict[str, Any] | None) -> bool:
    return room is not None and room["game"] is not None and room["game"]["phase"] == "clue"


@pytest.mark.anyio
async def test_a_clue_said_aloud_reaches_everyone_and_replays_from_the_log(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with live_server(data) as server:
        host = await create_room(
            server.url, "Mara", COLOURS[0], options={"first_storyteller": 0, "storyteller_cycles": 1}
        )
        joined = await join_room(server.url, host["code"], "Ben", COLOURS[1])
        mara, ben, watcher = (
            Client(server.url, host["code"], token) for token in (host["token"], joined.json()["token"], None)
        )
        for client in (mara, ben, watcher):
            assert (await client.connect())["type"] == "welcome"
        assert (await mara.request({"type": "add_bot", "level": "normal"}))["type"] == "ack"
        assert (await mara.request({"type": "start"}))["type"] == "ack"
        room = await mara.wait_state(telling)
        card = room["game"]["hand"][0]
        refusals = {
            "clue_empty": {"type": "tell", "card": card, "clue": "  "},
            "clue_required": {"type": "tell", "card": card},
            "malformed": {"type": "tell", "card": card, "aloud": "yes"},
        }
        for code, action in refusals.items():
            reply = await mara.request({"type": "act", "action": action})
            assert (reply["type"], reply["code"]) == ("error", code), reply
        reply = await mara.request({"type": "act", "action": {"type": "blind_clue", "aloud": True}})
        assert (reply["type"], reply["code"]) == ("error", "wrong_action")
        assert (await mara.request({"type": "act", "action": {"type": "tell", "card": card, "aloud": True}}))[
            "type"
        ] == "ack"
        for client in (mara, ben, watcher):
            state = await client.wait_state(lambda room: room["game"] is not None and room["game"]["phase"] != "clue")
            assert (state["game"]["clue"], state["game"]["aloud"]) == ("", True)
        # the people and the bot play on to the end of the game (one round a storyteller)
        final = await asyncio.gather(play_to_end(mara, random.Random(1)), play_to_end(ben, random.Random(2)))
        assert final[0]["status"] == "over"
        album = await watcher.request({"type": "album"})
        first = album["album"]["rounds"][0]
        assert (first["clue"], first["aloud"]) == ("", True)
        assert all(not r["aloud"] for r in album["album"]["rounds"][1:])
        code = host["code"]
        for client in (mara, ben, watcher):
            await client.close()
    with live_server(data) as server:  # the room's log, read again
        again = Client(server.url, code, None)
        await again.connect()
        album = await again.request({"type": "album"})
        assert album["album"]["rounds"][0]["aloud"] is True
        await again.close()
