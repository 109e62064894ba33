"""A recorded clue on a live server (issue 36): the storyteller sends a recording (WebM/Opus or
MP4/AAC, as browsers do), gets a sound id, and tells with it; every seat and the spectator get the
id with the clue and fetch MP3. Too long, too big, not audio, not the storyteller, the wrong
phase, a room that does not allow sound clues: refused with a code, and nothing is stored. A tell
naming a sound that is not the storyteller's in this room is refused. The sound outlives a
restart, with the round that used it."""

from __future__ import annotations

import asyncio
import io
import os
import random
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from fabula.server import sounds
from fabula.server.pictures import PictureWorker
from fabula.server.room_settings import COLOURS
from fabula.store.sounds import SqliteSounds, new_sound_id

from ..services import drop_schema, postgres_url, unique_name
from .harness import Client, create_room, join_room, live_server
from .players import play_to_end
from .sound_samples import recording, seconds_of

__all__ = ["postgres_url"]  # a fixture, used by name


def telling(room: dict[str, Any] | None) -> bool:
    return room is not None and room["game"] is not None and room["game"]["phase"] == "clue"


def bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(out, "PNG")
    return out.getvalue()


async def stored(data: Path, code: str) -> list[str]:
    """The sounds the server's store holds for room ``code`` (read as another process would)."""
    store = SqliteSounds(data / "sounds.sqlite3")
    try:
        return await store.room_sounds(code)
    finally:
        await store.close()


async def send(http: httpx.AsyncClient, code: str, token: str | None, body: bytes, kind: str) -> httpx.Response:
    headers = {**bearer(token), "Content-Type": kind}
    return await http.post(f"/api/rooms/{code}/sounds", content=body, headers=headers)


def refusal(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


async def telling_with_two_bots(url: str, **settings: Any) -> tuple[dict[str, Any], Client, dict[str, Any]]:
    """A room Mara made (``settings`` as `create_room` takes them), two easy bots, the game started
    and Mara telling: her seat, her connection and the room's state."""
    host = await create_room(url, "Mara", COLOURS[0], options={"first_storyteller": 0}, **settings)
    mara = Client(url, host["code"], host["token"])
    await mara.connect()
    for _ in range(2):
        assert (await mara.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
    assert (await mara.request({"type": "start"}))["type"] == "ack"
    room = await mara.wait_state(telling)
    assert room is not None
    return host, mara, room


@pytest.mark.anyio
async def test_a_recorded_clue_is_checked_kept_told_and_heard_by_everyone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    options = {"first_storyteller": 0, "storyteller_cycles": 1}
    with live_server(data) as server:
        host = await create_room(server.url, "Mara", COLOURS[0], options=options)
        code = host["code"]
        ben_token = (await join_room(server.url, code, "Ben", COLOURS[1])).json()["token"]
        mara, ben, watcher = (Client(server.url, code, token) for token in (host["token"], ben_token, None))
        for client in (mara, ben, watcher):
            assert (await client.connect())["type"] == "welcome"
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            # before the game: nobody is the storyteller yet
            early = await send(http, code, host["token"], recording("webm", 2), "audio/webm")
            assert refusal(early) == (400, "wrong_phase")
            assert (await mara.request({"type": "add_bot", "level": "normal"}))["type"] == "ack"
            assert (await mara.request({"type": "start"}))["type"] == "ack"
            room = await mara.wait_state(telling)
            await ben.wait_state(telling)
            assert room["game"]["sound"] is None
            refused = {
                "not a member": (await send(http, code, None, recording("webm", 2), "audio/webm"), (401, "no_token")),
                "not the storyteller": (
                    await send(http, code, ben_token, recording("webm", 2), "audio/webm"),
                    (403, "not_storyteller"),
                ),
                "a picture": (await send(http, code, host["token"], png(), "audio/webm"), (400, "not_audio")),
                "random bytes": (
                    await send(http, code, host["token"], os.urandom(40_000), "audio/mp4"),
                    (400, "not_audio"),
                ),
                "11 seconds": (
                    await send(http, code, host["token"], recording("webm", 11), "audio/webm"),
                    (400, "sound_too_long"),
                ),
                "over 1 MB": (
                    await send(http, code, host["token"], os.urandom(1_100_000), "audio/webm"),
                    (413, "sound_too_big"),
                ),
            }
            for why, (response, expected) in refused.items():
                assert refusal(response) == expected, why
            assert await stored(data, code) == [], "a refused recording is not kept"

            # Chromium/Firefox's WebM and Safari's MP4 are both taken, as MP3
            webm = await send(http, code, host["token"], recording("webm", 3), "audio/webm;codecs=opus")
            mp4 = await send(http, code, host["token"], recording("mp4", 2, rate=44100), "audio/mp4")
            assert (webm.status_code, mp4.status_code) == (201, 201), (webm.text, mp4.text)
            sound = webm.json()["sound"]
            assert abs(webm.json()["seconds"] - 3) < 0.1
            assert abs(mp4.json()["seconds"] - 2) < 0.1
            assert sorted(await stored(data, code)) == sorted([sound, mp4.json()["sound"]])

            # before the clue, only its recorder may listen
            url = f"/api/rooms/{code}/sounds/{sound}"
            assert refusal(await http.get(url)) == (401, "no_token")
            assert refusal(await http.get(url, headers=bearer(ben_token))) == (404, "no_sound")
            own = await http.get(url, headers=bearer(host["token"]))
            assert own.headers["content-type"] == "audio/mpeg"
            assert "no-store" in own.headers["cache-control"]

            # a tell naming a sound that is not hers here is refused; hers is taken, without words
            card = room["game"]["hand"][0]
            for stranger in (new_sound_id(), "not a sound id!"):
                act = {"type": "tell", "card": card, "sound": stranger}
                reply = await mara.request({"type": "act", "action": act})
                assert (reply["type"], reply["code"]) == ("error", "unknown_sound"), reply
            told = await mara.request({"type": "act", "action": {"type": "tell", "card": card, "sound": sound}})
            assert told["type"] == "ack", told
            for client in (mara, ben, watcher):
                state = await client.wait_state(lambda r: r["game"] is not None and r["game"]["sound"] is not None)
                assert (state["game"]["clue"], state["game"]["sound"]) == ("", sound)
            after = await send(http, code, host["token"], recording("webm", 2), "audio/webm")
            assert refusal(after) == (400, "wrong_phase")

            # now anyone shown the clue fetches it, with no token: MP3, three seconds, cached long
            heard = await http.get(url)
            assert heard.status_code == 200
            assert heard.headers["content-type"] == "audio/mpeg"
            assert "immutable" in heard.headers["cache-control"]
            assert abs(seconds_of(heard.content) - 3) < 0.15
            assert refusal(await http.get(f"/api/rooms/{code}/sounds/{new_sound_id()}")) == (404, "no_sound")

        final = await asyncio.gather(play_to_end(mara, random.Random(1)), play_to_end(ben, random.Random(2)))
        assert final[0]["status"] == "over"
        album = await watcher.request({"type": "album"})
        assert album["album"]["rounds"][0]["sound"] == sound
        assert all(r["sound"] is None for r in album["album"]["rounds"][1:])
        for client in (mara, ben, watcher):
            await client.close()
    with live_server(data) as server:  # durable: the store and the room's log, read again
        async with httpx.AsyncClient(base_url=server.url) as http:
            again = await http.get(f"/api/rooms/{code}/sounds/{sound}")
        assert again.status_code == 200
        assert again.headers["content-type"] == "audio/mpeg"
        watcher = Client(server.url, code, None)
        await watcher.connect()
        album = await watcher.request({"type": "album"})
        assert album["album"]["rounds"][0]["sound"] == sound
        await watcher.close()


@pytest.mark.anyio
async def test_a_room_keeps_a_limited_number_of_recordings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sounds, "MOST_PER_ROOM", 2)
    data = tmp_path / "data"
    with live_server(data) as server:
        host, mara, _ = await telling_with_two_bots(server.url)
        body = recording("mp4", 1)
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            answers = [await send(http, host["code"], host["token"], body, "audio/mp4") for _ in range(3)]
        assert [answer.status_code for answer in answers[:2]] == [201, 201]
        assert refusal(answers[2]) == (507, "store_full")
        assert len(await stored(data, host["code"])) == 2
        await mara.close()


@pytest.mark.anyio
async def test_a_room_without_sound_clues_takes_no_recording(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with live_server(data) as server:
        host, mara, _ = await telling_with_two_bots(server.url, sound_clues=False)
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            response = await send(http, host["code"], host["token"], recording("webm", 2), "audio/webm")
        assert refusal(response) == (400, "sound_clues_off")
        assert await stored(data, host["code"]) == []
        await mara.close()


@pytest.mark.anyio
async def test_on_postgresql_a_told_sound_outlives_a_restart(tmp_path: Path, postgres_url: str) -> None:
    """The same on a ``--database`` server: the recording is kept in PostgreSQL, told, and served
    again by a server started anew (skipped, with the reason, when PostgreSQL is unreachable)."""
    schema = unique_name("fabula_test")
    settings = {"database": postgres_url, "namespace": schema}
    try:
        with live_server(tmp_path / "data", **settings) as server:
            host, mara, room = await telling_with_two_bots(server.url)
            code = host["code"]
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
                sent = await send(http, code, host["token"], recording("mp4", 2, rate=44100), "audio/mp4")
            assert sent.status_code == 201, sent.text
            sound = sent.json()["sound"]
            act = {"type": "tell", "card": room["game"]["hand"][0], "clue": "a hum", "sound": sound}
            assert (await mara.request({"type": "act", "action": act}))["type"] == "ack"
            await mara.close()
        assert not (tmp_path / "data" / "sounds.sqlite3").exists(), "kept in PostgreSQL, not beside it"
        with live_server(tmp_path / "data", **settings) as server:
            watcher = Client(server.url, code, None)
            await watcher.connect()
            # (the bots have played on: the round told with the sound is revealed, or being played)
            state = await watcher.wait_state(lambda r: r["game"] is not None)
            rounds = (await watcher.request({"type": "album"}))["album"]["rounds"]
            told = rounds[0] if rounds else state["game"]
            assert (told["clue"], told["sound"]) == ("a hum", sound)
            async with httpx.AsyncClient(base_url=server.url) as http:
                again = await http.get(f"/api/rooms/{code}/sounds/{sound}")
            assert again.headers["content-type"] == "audio/mpeg"
            assert abs(seconds_of(again.content) - 2) < 0.15
            await watcher.close()
    finally:
        await drop_schema(postgres_url, schema)


@pytest.mark.anyio
@pytest.mark.parametrize("fails", ["dies", "hangs"])
async def test_a_worker_that_dies_or_hangs_decoding_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    """Decoding runs in a worker process, so that FFmpeg dying (or stuck) on a crafted file takes
    no server with it: that recording is refused (``not_audio``), nothing is kept, and the next
    one is taken."""
    real_run = PictureWorker.run
    calls = 0

    async def dies_once(worker: PictureWorker, function: Any, *args: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1 and fails == "dies":
            raise BrokenProcessPool("killed")
        if calls == 1:
            await asyncio.sleep(60)
        return await real_run(worker, function, *args)

    monkeypatch.setattr(sounds, "DECODE_SECONDS", 1.0)

    monkeypatch.setattr(PictureWorker, "run", dies_once)
    data = tmp_path / "data"
    with live_server(data) as server:
        host, mara, _ = await telling_with_two_bots(server.url)
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            first = await send(http, host["code"], host["token"], recording("webm", 1), "audio/webm")
            assert refusal(first) == (400, "not_audio")
            assert await stored(data, host["code"]) == []
            monkeypatch.setattr(sounds, "DECODE_SECONDS", 20.0)  # (the next starts a worker: seconds)
            second = await send(http, host["code"], host["token"], recording("webm", 1), "audio/webm")
            assert second.status_code == 201, second.text
        await mara.close()
