"""The sound-store contract, run against both backends (SQLite, and PostgreSQL — skipped with the
reason when it cannot be reached, unless CI): a recorded clue comes back as stored, only under its
own room; a room's sounds go with it; a second connection (another process) finds them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fabula.store import PostgresStore
from fabula.store.sounds import NewSound, SoundStore, SqliteSounds, new_sound_id

from ..services import drop_schema, unique_name

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["sqlite", "postgres"])
async def opened(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[list[SoundStore]]:
    """Two stores on the same data, as two processes would have them."""
    if request.param == "sqlite":
        stores: list[SoundStore] = [SqliteSounds(tmp_path / "sounds.sqlite3") for _ in range(2)]
        yield stores
        for store in stores:
            await store.close()
        return
    url = request.getfixturevalue("postgres_url")
    schema = unique_name("fabula_test")
    rooms = [await PostgresStore.connect(url, schema=schema, min_size=1, max_size=2) for _ in range(2)]
    yield [room.sounds() for room in rooms]
    for room in rooms:
        await room.close()
    await drop_schema(url, schema)


async def test_a_sound_comes_back_as_stored_under_its_room_only(opened: list[SoundStore]) -> None:
    here, there = opened
    sound = NewSound("ABCDE", new_sound_id(), 3, b"ID3\x04" + bytes(range(256)) * 40, 7.25)
    await here.add(sound, at=10.0)
    assert await there.sound("ABCDE", sound.id) == sound
    assert await there.sound("VWXYZ", sound.id) is None, "another room cannot name it"
    assert await there.sound("ABCDE", new_sound_id()) is None
    later = NewSound("ABCDE", new_sound_id(), 1, b"ID3", 1.0)
    await there.add(later, at=11.0)
    assert await here.room_sounds("ABCDE") == [sound.id, later.id]


async def test_a_room_s_sounds_go_with_it(opened: list[SoundStore]) -> None:
    store = opened[0]
    kept = NewSound("KEEPS", new_sound_id(), 0, b"ID3", 2.0)
    gone = NewSound("GOING", new_sound_id(), 0, b"ID3", 2.0)
    for sound in (kept, gone):
        await store.add(sound, at=1.0)
    await store.delete_room("GOING")
    assert await store.room_sounds("GOING") == []
    assert await store.sound("KEEPS", kept.id) == kept


def test_sound_ids_are_unguessable_and_url_safe() -> None:
    ids = {new_sound_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 22 and i.replace("-", "").replace("_", "").isalnum() for i in ids)
