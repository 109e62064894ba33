"""What an operator relies on: health, metrics, QR codes, card files, idle expiry, configuration."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import msgspec
import pytest
from PIL import Image

from fabula.bots.base import BOT_LANGUAGES, BOT_LEVELS, MODEL_LEVEL, MODEL_NAME
from fabula.cli import build_parser
from fabula.protocol import BOT_LEVEL_PATTERN, AddBot
from fabula.protocol.settings import RoomSettings
from fabula.rules import MODES, IllegalAction
from fabula.rules.clues import clean_clue
from fabula.server.backends import describe
from fabula.server.config import Config, add_arguments, from_arguments
from fabula.server.entries import Acted, decode
from fabula.server.holding import CODE_ALPHABET
from fabula.server.room_settings import COLOURS

from .harness import Client, LiveServer, create_room, live_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data", public_url="https://fabula.example") as running:
        yield running


@pytest.mark.anyio
async def test_health_and_prometheus_metrics(server: LiveServer) -> None:
    seat = await create_room(server.url)
    host = Client(server.url, seat["code"], seat["token"])
    await host.connect()
    await host.request({"type": "add_bot"})
    await host.request({"type": "add_bot"})
    assert (await host.request({"type": "start"}))["type"] == "ack"
    refused = await host.request({"type": "act", "action": {"type": "vote", "slots": [1]}})
    assert refused["code"] == "wrong_phase"
    async with httpx.AsyncClient(base_url=server.url) as http:
        health = await http.get("/healthz")
        metrics = (await http.get("/metrics")).text
    assert health.json() == {"status": "ok", "rooms": 1}
    values = {line.split(" ")[0]: float(line.split(" ")[1]) for line in metrics.splitlines() if line and line[0] != "#"}
    assert values["fabula_rooms"] == 1
    assert values["fabula_connections"] == 1
    assert values["fabula_messages_total"] >= 5
    assert values['fabula_errors_total{code="wrong_phase"}'] == 1
    assert "fabula_action_seconds_bucket" in metrics


@pytest.mark.anyio
async def test_room_codes_are_short_and_unambiguous_and_the_join_link_has_a_qr_code(server: LiveServer) -> None:
    codes = [(await create_room(server.url, mode="odyssey"))["code"] for _ in range(5)]
    for code in codes:
        assert len(code) == 5
        assert set(code) <= set(CODE_ALPHABET)
        assert not set(code) & set("0O1IL")
    async with httpx.AsyncClient(base_url=server.url) as http:
        summary = (await http.get(f"/api/rooms/{codes[0].lower()}")).json()
        svg = await http.get(f"/api/rooms/{codes[0]}/qr.svg")
        png = await http.get(f"/api/rooms/{codes[0]}/qr.png")
        missing = await http.get("/api/rooms/ZZZZZ/qr.svg")
    assert summary["join_url"] == f"https://fabula.example/join/{codes[0]}"
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.startswith("<svg")
    image = Image.open(io.BytesIO(png.content))
    assert image.format == "PNG"
    assert image.width == image.height >= 8 * 25, "version 2+ QR at 8 px a module"
    assert missing.status_code == 404


@pytest.mark.anyio
async def test_card_pictures_are_served_with_validators(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        svg = await http.get("/cards/fabula-07.svg")
        again = await http.get("/cards/fabula-07.svg", headers={"If-None-Match": svg.headers["etag"]})
        unknown = await http.get("/cards/fabula-99.svg")
        bad_width = await http.get("/cards/fabula-07.webp?w=123")
    assert svg.status_code == 200
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert again.status_code == 304
    assert unknown.status_code == 404
    assert bad_width.status_code == 404


@pytest.mark.anyio
async def test_the_client_page_carries_what_api_modes_answers(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        modes = (await http.get("/api/modes")).json()
        pages = [(await http.get(path)).text for path in ("/", "/room/ABCDE", "/rules")]
    assert [mode["name"] for mode in modes["modes"]] == list(MODES)
    assert modes["colours"] == list(COLOURS)
    assert modes["bot_levels"] == ["easy", "normal", "hard", "random"], "the lobby's order: the blind one last"
    assert sorted(modes["bot_levels"]) == sorted(BOT_LEVELS)
    assert modes["languages"] == [
        {"code": "en", "name": "English"},
        {"code": "zh-Hant", "name": "繁體中文"},
        {"code": "zh-Hans", "name": "简体中文"},
    ]
    assert tuple(language["code"] for language in modes["languages"]) == BOT_LANGUAGES
    low, high = modes["timer_seconds"]
    for seconds, accepted in ((low - 1, False), (low, True), (high, True), (high + 1, False)):
        body = json.dumps({"clue_seconds": seconds}).encode()
        try:
            msgspec.json.decode(body, type=RoomSettings)
        except msgspec.ValidationError:
            assert not accepted, seconds
        else:
            assert accepted, seconds
    for page in pages:
        carried = re.search(r'<script type="application/json" id="choices">(.*?)</script>', page, flags=re.DOTALL)
        assert carried, page
        assert json.loads(carried[1]) == modes


@pytest.mark.anyio
async def test_api_modes_gives_the_seats_limits_and_default_the_server_holds_to(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        choices = (await http.get("/api/modes")).json()
        for mode in choices["modes"]:
            counts = mode["seat_counts"]
            assert counts == list(MODES[mode["name"]].seat_counts)
            assert mode["seats"] == [counts[0], counts[-1]]
        limits = choices["text_max"]
        longest = await http.post("/api/rooms", json={"name": "n" * limits["name"], "colour": "red"})
        too_long = await http.post("/api/rooms", json={"name": "n" * (limits["name"] + 1), "colour": "red"})
    assert longest.status_code == 201, longest.text
    assert too_long.status_code == 400
    assert too_long.json()["error"]["code"] == "name_too_long"
    assert clean_clue("c" * limits["clue"]) == "c" * limits["clue"]
    with pytest.raises(IllegalAction) as refused:
        clean_clue("c" * (limits["clue"] + 1))
    assert refused.value.code == "clue_too_long"
    host = Client(server.url, longest.json()["code"], longest.json()["token"])
    await host.connect()
    said = await host.request({"type": "say", "text": "s" * limits["chat"]})
    refused_chat = await host.request({"type": "say", "text": "s" * (limits["chat"] + 1)})
    await host.close()
    assert said["type"] == "ack"
    assert (refused_chat["type"], refused_chat["code"]) == ("error", "message_too_long")
    # the lobby's first offer is the level a bot gets when none is named, one of the levels
    assert AddBot(id="b").level == choices["default_bot_level"] in choices["bot_levels"]
    # add_bot's level is a built-in level or model:NAME, as the bots name them (a pattern on the wire)
    accepted = re.compile(BOT_LEVEL_PATTERN)
    assert all(accepted.fullmatch(level) for level in BOT_LEVELS)
    assert accepted.pattern == rf"^({'|'.join(BOT_LEVELS)}|{MODEL_LEVEL}{MODEL_NAME.pattern})$"


@pytest.mark.anyio
async def test_rooms_nobody_is_connected_to_expire_and_finished_logs_stay_until_then(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", room_idle_seconds=600) as server:
        seat = await create_room(server.url)
        host = Client(server.url, seat["code"], seat["token"])
        await host.connect()
        service = server.service
        server.shift_clock(3600)
        assert await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(service.sweep(), server.loop)) == []
        await host.close()
        await asyncio.sleep(0.1)
        server.shift_clock(599)
        assert await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(service.sweep(), server.loop)) == []
        server.shift_clock(2)
        expired = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(service.sweep(), server.loop))
        assert expired == [seat["code"]]
        async with httpx.AsyncClient(base_url=server.url) as http:
            assert (await http.get(f"/api/rooms/{seat['code']}")).status_code == 404
        assert (
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(service.rooms.store.room_codes(), server.loop))
            == []
        )


@pytest.mark.anyio
async def test_hosting_passes_on_when_the_host_is_away_past_the_grace_period(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", disconnect_grace_seconds=30) as server:
        seat = await create_room(server.url)
        async with httpx.AsyncClient(base_url=server.url) as http:
            guest = (await http.post(f"/api/rooms/{seat['code']}/join", json={"name": "G", "colour": "blue"})).json()
        host = Client(server.url, seat["code"], seat["token"])
        other = Client(server.url, seat["code"], guest["token"])
        await host.connect()
        await other.connect()
        await host.close()
        await asyncio.sleep(0.1)
        assert other.room is not None
        assert other.room["host"] == 0
        server.shift_clock(31)
        room = await other.wait_state(lambda r: r["host"] == guest["member"])
        assert room["you"]["host"] is True


def test_every_setting_is_an_option_and_an_environment_variable(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--port", "9001", "--allow-origin", "https://a.example/"])
    config = from_arguments(
        args, {"FABULA_PORT": "9999", "FABULA_DATA": str(tmp_path), "FABULA_BOT_DELAY_SECONDS": "0.5"}
    )
    assert config.port == 9001, "the command line wins"
    assert config.data == tmp_path
    assert config.bot_delay_seconds == 0.5
    assert config.allow_origin == ("https://a.example",)
    with pytest.raises(ValueError, match="--port"):
        from_arguments(parser.parse_args([]), {"FABULA_PORT": "eighty"})
    with pytest.raises(ValueError, match="durability"):
        from_arguments(parser.parse_args([]), {"FABULA_DURABILITY": "sometimes"})
    assert from_arguments(parser.parse_args([]), {}).bot_memory is True
    assert from_arguments(parser.parse_args([]), {"FABULA_BOT_MEMORY": "no"}).bot_memory is False
    assert from_arguments(parser.parse_args(["--bot-memory", "yes"]), {"FABULA_BOT_MEMORY": "off"}).bot_memory is True
    with pytest.raises(ValueError, match="--bot-memory"):
        from_arguments(parser.parse_args([]), {"FABULA_BOT_MEMORY": "maybe"})
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    serve_help = commands.choices["serve"].format_help()
    for name in Config.__dataclass_fields__:
        assert f"--{name.replace('_', '-')}" in serve_help
        assert f"FABULA_{name.upper()}" in serve_help


def test_the_scale_out_backends_are_settings_too(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    default = from_arguments(parser.parse_args([]), {"FABULA_DATA": str(tmp_path)})
    assert (default.database, default.redis, default.scaled_out) == ("", "", False)
    assert describe(default) == f"rooms in SQLite at {(tmp_path / 'rooms.sqlite3').resolve()}"
    env = {
        "FABULA_DATABASE": "postgresql://fabula:secret@db:5432/fabula",
        "FABULA_REDIS": "redis://cache:6379/0",
        "FABULA_NAMESPACE": "staging",
    }
    config = from_arguments(parser.parse_args([]), env)
    assert config.scaled_out
    assert config.namespace == "staging"
    shown = describe(config)
    assert "secret" not in shown, "no password in the start-up line"
    assert "postgresql://fabula:***@db:5432/fabula (schema staging)" in shown
    assert "through Redis at redis://cache:6379/0" in shown
    alone = from_arguments(parser.parse_args(["--database", "postgresql://db/fabula"]), {})
    assert not alone.scaled_out
    assert "this process alone" in describe(alone)
    for given, refused in [
        ({"FABULA_REDIS": "redis://cache"}, "--redis needs --database"),
        ({"FABULA_DATABASE": "mysql://db/fabula"}, "--database is a postgresql"),
        ({"FABULA_DATABASE": "postgresql://db/f", "FABULA_REDIS": "http://cache"}, "--redis is a redis"),
        ({"FABULA_NAMESPACE": "Fabula-Prod"}, "--namespace"),
    ]:
        with pytest.raises(ValueError, match=refused):
            from_arguments(parser.parse_args([]), given)


@pytest.mark.anyio
async def test_a_phase_deadline_survives_a_restart(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        seat = await create_room(
            server.url,
            mode="odyssey",
            options={"storyteller_cycles": 1},
            clue_seconds=60,
            play_seconds=60,
            vote_seconds=60,
        )
        host = Client(server.url, seat["code"], seat["token"])
        await host.connect()
        for _ in range(2):
            await host.request({"type": "add_bot"})
        await host.request({"type": "start"})
        room = await host.wait_state(lambda r: r["status"] == "playing")
        host_seat = room["you"]["seat"]
        # let the bots move until the host is awaited (it never moves itself)
        room = await host.wait_state(lambda r: r["game"] is not None and host_seat in r["game"]["awaiting"])
        deadline = room["deadline"]
        assert deadline is not None
        await host.close()
    with live_server(tmp_path / "data", disconnect_grace_seconds=3600) as again:
        watcher = Client(again.url, seat["code"], None)
        await watcher.connect()
        assert watcher.room is not None
        assert watcher.room["deadline"] == deadline, "the same absolute deadline after the restart"
        assert host_seat in watcher.room["game"]["awaiting"]
        seen = len(watcher.received)
        again.shift_clock(deadline - time.time() + 1)
        before = watcher.room["seq"]
        await watcher.wait_for(lambda m: m["type"] == "state" and m["room"]["seq"] > before, start=seen)
        stored = asyncio.run_coroutine_threadsafe(again.service.rooms.store.load(seat["code"]), again.loop)
        entries = [decode(e.data) for e in await asyncio.wrap_future(stored)]
        assert any(isinstance(e, Acted) and e.member == 0 and e.auto for e in entries), "a bot moved for the host"
