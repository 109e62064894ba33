"""After a reveal a bot storyteller lets the table look and talk before its clue (the table chat
is open only until the clue), as long as a person sits at the table; a table of bots alone, or
whose people are gone, goes on at the bots' own pace."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from fabula.server.entries import Acted, decode

from .harness import Client, LiveServer, create_room, live_server

PAUSE = 30.0


async def round_two_with_a_bot_telling(server: LiveServer) -> tuple[Client, str, dict[str, Any]]:
    """A person and two bots; the person tells in round 1, the bots play and vote; in round 2
    the first bot is the storyteller. The person's client and the round-2 state."""
    seat = await create_room(
        server.url, "Host", "red", options={"first_storyteller": 0, "storyteller_cycles": 2}, table_talk=False
    )
    host = Client(server.url, seat["code"], seat["token"])
    await host.connect()
    for _ in range(2):
        assert (await host.request({"type": "add_bot"}))["type"] == "ack"
    assert (await host.request({"type": "start"}))["type"] == "ack"
    clue = await host.wait_state(lambda r: r["game"] is not None and r["you"]["legal"])
    card = clue["game"]["hand"][0]
    told = await host.request({"type": "act", "action": {"type": "tell", "card": card, "clue": "Moon"}})
    assert told["type"] == "ack", told
    revealed = await host.wait_state(lambda r: r["game"] is not None and r["game"]["round"] == 2, timeout=30)
    assert (revealed["game"]["phase"], revealed["game"]["storyteller"]) == ("clue", 1)
    return host, seat["code"], revealed


async def clues_told(server: LiveServer, code: str) -> int:
    stored = asyncio.run_coroutine_threadsafe(server.service.rooms.store.load(code), server.loop)
    entries = [decode(e.data) for e in await asyncio.wrap_future(stored)]
    return len([e for e in entries if isinstance(e, Acted) and e.action["type"] == "tell"])


def due(server: LiveServer, code: str) -> tuple[float, float]:
    """(when the next bot move is due, since when the phase has run) — read on the server's loop."""

    async def read() -> tuple[float, float]:
        live = server.service.rooms.held[code]
        found = server.service.parts.scheduler.next_due(live)
        assert found is not None
        return found[0], max(live.room.phase_since, live.room.last_at)

    return asyncio.run_coroutine_threadsafe(read(), server.loop).result(timeout=10)


@pytest.mark.anyio
async def test_a_bot_storyteller_waits_after_a_reveal_while_a_person_is_at_the_table(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", bot_reveal_seconds=PAUSE) as server:
        host, code, revealed = await round_two_with_a_bot_telling(server)
        when, since = due(server, code)
        assert when == pytest.approx(since + PAUSE)
        assert revealed["table_chat"] is True
        assert (await host.request({"type": "say", "text": "mine was the moon!"}))["type"] == "ack"
        assert await clues_told(server, code) == 1, "the bot has not told yet"
        server.shift_clock(PAUSE + 1)
        await host.wait_state(
            lambda r: r["game"] is not None and (r["game"]["round"], r["game"]["phase"]) == (2, "play")
        )
        assert await clues_told(server, code) == 2


@pytest.mark.anyio
async def test_with_nobody_at_the_table_the_bot_storyteller_goes_on_at_its_own_pace(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", bot_reveal_seconds=PAUSE, disconnect_grace_seconds=3600) as server:
        host, code, _ = await round_two_with_a_bot_telling(server)
        assert (await host.request({"type": "leave"}))["type"] == "ack"  # a bot plays the seat from now on
        # Half the pause: had the bot waited it out, no second clue would be told by then. The bots
        # play on by themselves, so later rounds' clues may be told too.
        for _ in range(int(PAUSE / 2 / 0.1)):
            if await clues_told(server, code) >= 2:
                break
            await asyncio.sleep(0.1)
        assert await clues_told(server, code) >= 2, "the bot waited out the pause with nobody at the table"
        await host.close()


@pytest.mark.anyio
async def test_the_first_round_has_no_reveal_to_look_at(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", bot_reveal_seconds=PAUSE) as server:
        seat = await create_room(server.url, "Host", "red", options={"first_storyteller": 1})
        host = Client(server.url, seat["code"], seat["token"])
        await host.connect()
        for _ in range(2):
            await host.request({"type": "add_bot"})
        await host.request({"type": "start"})
        await host.wait_state(lambda r: r["game"] is not None and r["game"]["phase"] == "play", timeout=10)
        await host.close()
