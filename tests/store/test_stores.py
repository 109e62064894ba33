"""The event-store contract, run against every backend (SQLite today; PostgreSQL joins later)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fabula.store import EventStore, SeqTaken, SqliteStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[EventStore]:
    backend = SqliteStore(tmp_path / "rooms.sqlite3")
    yield backend
    await backend.close()


@pytest.mark.anyio
async def test_a_room_code_is_reserved_once(store: EventStore) -> None:
    assert await store.create_room("AAAAA", at=1.0)
    assert not await store.create_room("AAAAA", at=2.0)
    assert await store.room_codes() == ["AAAAA"]


@pytest.mark.anyio
async def test_entries_come_back_in_order_and_a_taken_seq_is_refused(store: EventStore) -> None:
    await store.create_room("AAAAA", at=1.0)
    await store.create_room("BBBBB", at=1.0)
    for seq in range(5):
        await store.append("AAAAA", seq, f"a{seq}".encode(), at=10.0 + seq)
    await store.append("BBBBB", 0, b"b0", at=3.0)
    with pytest.raises(SeqTaken):
        await store.append("AAAAA", 3, b"again", at=20.0)
    assert [(e.seq, e.data) for e in await store.load("AAAAA")] == [(n, f"a{n}".encode()) for n in range(5)]
    assert [e.data for e in await store.load("BBBBB")] == [b"b0"]
    assert await store.touched("AAAAA") == 14.0, "the refused append changed nothing"
    assert await store.load("ZZZZZ") == []


@pytest.mark.anyio
async def test_deleting_a_room_deletes_its_log(store: EventStore) -> None:
    await store.create_room("AAAAA", at=1.0)
    await store.append("AAAAA", 0, b"x", at=1.0)
    await store.delete_room("AAAAA")
    assert await store.load("AAAAA") == []
    assert await store.room_codes() == []
    assert await store.touched("AAAAA") is None


@pytest.mark.anyio
async def test_what_was_appended_is_there_for_a_new_process(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    first = SqliteStore(path)
    await first.create_room("AAAAA", at=1.0)
    await first.append("AAAAA", 0, b"kept", at=1.0)
    # no close(): a killed process never closes; a second connection must see the commit
    second = SqliteStore(path)
    assert [e.data for e in await second.load("AAAAA")] == [b"kept"]
    await second.close()
    await first.close()


@pytest.mark.parametrize(("durability", "synchronous"), [("process", 1), ("power", 2)])
def test_durability_chooses_the_sqlite_sync_level(tmp_path: Path, durability: str, synchronous: int) -> None:
    store = SqliteStore(tmp_path / "rooms.sqlite3", durability=durability)  # type: ignore[arg-type]
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == synchronous
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_database_from_a_newer_fabula_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(RuntimeError, match="newer Fabula"):
        SqliteStore(path)
