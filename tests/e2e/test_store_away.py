"""The server's PostgreSQL goes away in the middle of a game, seen from a phone.

The phone's move is refused with ``store_failed`` while the database is down; the page keeps it,
says "saving…" (in the page's language) and sends it again by itself, with the same id, until the
database is back — then the move is made, once, and the game goes on with nobody tapping again.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from fabula.server.entries import Acted, AnyEntry, decode
from fabula.store import PostgresStore

from ..server.harness import LiveServer, live_server
from ..services import PrivatePostgres, private_postgres, run_aside

__all__ = ["private_postgres"]  # a fixture, used by name
from .conftest import Players
from .ui import add_bots, create_room_by_api, enabled_hand_cards, open_seat, socket_of, start_game

SHOTS = Path(os.environ.get("FABULA_SHOTS", "/tmp/fabula-shots"))
PHONE_360 = (360, 740)
SAVING = re.compile(r"\bsaving\b")


@pytest.fixture
def on_postgres(private_postgres: PrivatePostgres, tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(
        tmp_path / "data", database=private_postgres.url, bot_delay_seconds=0.05, max_rooms_per_address=1000
    ) as running:
        yield running


@pytest.mark.parametrize(("language", "saving"), [("en", "saving…"), ("zh-Hant", "儲存中…"), ("zh-Hans", "保存中…")])
def test_a_clue_given_while_the_database_is_away_is_saved_by_itself_once_it_is_back(
    players: Players, private_postgres: PrivatePostgres, on_postgres: LiveServer, language: str, saving: str
) -> None:
    players.base = on_postgres.url
    seat = create_room_by_api(on_postgres.url, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    phone = players.open(*PHONE_360, mobile=True)
    open_seat(phone, on_postgres.url, seat["code"], seat)
    add_bots(phone, 2)
    start_game(phone)
    clue = phone.locator(".clue-input")
    expect(clue).to_be_visible(timeout=15_000)
    phone.select_option("select.language", language)
    refusals: list[dict[str, object]] = []
    acks: list[dict[str, object]] = []

    def note(payload: str | bytes) -> None:
        message = json.loads(payload)
        if message.get("type") == "error":
            refusals.append(message)
        elif message.get("type") == "ack":
            acks.append(message)

    socket_of(phone).on("framereceived", note)
    private_postgres.stop()
    enabled_hand_cards(phone).first.click()
    clue.fill("While the lights were out")
    phone.locator("form.action-bar button[type=submit]").click()
    connection = phone.locator(".connection")
    expect(connection).to_have_class(SAVING, timeout=10_000)
    expect(connection).to_contain_text(saving)
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SHOTS / f"store-away-{language}.png"))
    assert refusals, "the clue was refused while the database was down"
    assert {message["code"] for message in refusals} == {"store_failed"}
    assert not acks, "nothing is acknowledged while the database is down"
    double_tapped = phone.locator("form.action-bar button[type=submit]")
    if double_tapped.count() and double_tapped.is_enabled():
        double_tapped.click()  # a second tap while it waits: still one clue

    private_postgres.start()
    expect(connection).not_to_have_class(SAVING, timeout=20_000)
    expect(connection).to_have_class(re.compile(r"\bonline\b"))
    # the bots play on once the clue is in, and the round is revealed: nobody tapped again
    expect(phone.locator(".overlay")).to_be_visible(timeout=20_000)
    phone.screenshot(path=str(SHOTS / f"store-back-{language}.png"))
    told = [message for message in acks if message.get("id") == refusals[0]["id"]]
    assert len(told) == 1, "the clue went through with the id it was first sent with"
    expect(phone.locator(".overlay")).to_contain_text("While the lights were out")
    tells = [
        entry.action["clue"]
        for entry in stored(private_postgres.url, seat["code"])
        if isinstance(entry, Acted) and entry.member == seat["member"] and entry.action["type"] == "tell"
    ]
    assert tells == ["While the lights were out"], "told once"


def stored(url: str, code: str) -> list[AnyEntry]:
    """Room ``code``'s log as the database holds it."""

    async def load() -> list[AnyEntry]:
        store = await PostgresStore.connect(url, max_size=1)
        try:
            return [decode(item.data) for item in await store.load(code)]
        finally:
            await store.close()

    entries: list[AnyEntry] = run_aside(load)
    return entries
