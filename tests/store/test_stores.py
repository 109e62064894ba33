"""The event-store contract, run against every backend: SQLite and PostgreSQL (see conftest.py).

"Two processes" are two store instances on the same database, each with its own connections.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from fabula.store import EventStore, SeqTaken, SqliteStore

from .conftest import StoreBackend

pytestmark = pytest.mark.anyio


async def test_a_room_code_is_reserved_once(store: EventStore) -> None:
    assert await store.create_room("AAAAA", at=1.0)
    assert not await store.create_room("AAAAA", at=2.0)
    assert await store.room_codes() == ["AAAAA"]


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


async def test_load_since_gives_only_the_entries_a_process_lacks(store: EventStore) -> None:
    await store.create_room("AAAAA", at=1.0)
    for seq in range(6):
        await store.append("AAAAA", seq, bytes([seq]), at=1.0)
    assert [e.seq for e in await store.load("AAAAA", since=4)] == [4, 5]
    assert await store.load("AAAAA", since=6) == []
    assert [e.seq for e in await store.load("AAAAA", since=0)] == list(range(6))


async def test_entries_are_any_bytes(store: EventStore) -> None:
    await store.create_room("AAAAA", at=1.0)
    odd = bytes(range(256)) * 400  # NULs, high bytes, 100 kB
    await store.append("AAAAA", 0, odd, at=1.0)
    await store.append("AAAAA", 1, b"", at=1.0)
    assert [e.data for e in await store.load("AAAAA")] == [odd, b""]


async def test_rooms_are_listed_oldest_first_and_touched_follows_appends(store: EventStore) -> None:
    assert await store.room_codes() == []
    assert await store.create_room("CCCCC", at=3.0)
    assert await store.create_room("AAAAA", at=1.0)
    assert await store.create_room("BBBBB", at=2.0)
    assert await store.room_codes() == ["AAAAA", "BBBBB", "CCCCC"]
    assert await store.touched("BBBBB") == 2.0, "a new room was touched when it was made"
    await store.append("BBBBB", 0, b"x", at=7.5)
    assert await store.touched("BBBBB") == 7.5
    assert await store.touched("NOPE0") is None


async def test_appending_to_a_room_that_is_gone_is_refused(store: EventStore) -> None:
    with pytest.raises(SeqTaken):
        await store.append("NEVER", 0, b"x", at=1.0)
    assert await store.load("NEVER") == []
    assert await store.room_codes() == []


async def test_deleting_a_room_deletes_its_log(store: EventStore) -> None:
    await store.create_room("AAAAA", at=1.0)
    await store.append("AAAAA", 0, b"x", at=1.0)
    await store.delete_room("AAAAA")
    assert await store.load("AAAAA") == []
    assert await store.room_codes() == []
    assert await store.touched("AAAAA") is None
    await store.delete_room("AAAAA")  # deleting twice is harmless
    assert await store.create_room("AAAAA", at=2.0), "a deleted room's code is free again"
    await store.append("AAAAA", 0, b"new", at=2.0)
    assert [e.data for e in await store.load("AAAAA")] == [b"new"]


async def test_a_finished_game_is_kept_once_and_outlives_its_room(store: EventStore) -> None:
    await store.create_room("AAAAA", at=1.0)
    assert await store.keep_game("AAAAA/1.0/1", b"rounds of game 1", at=5.0)
    assert not await store.keep_game("AAAAA/1.0/1", b"again", at=6.0), "one game is kept once"
    assert await store.keep_game("AAAAA/1.0/2", b"rounds of game 2", at=7.0)
    await store.delete_room("AAAAA")
    kept = await store.kept_games()
    assert [(g.key, g.data) for g in kept] == [
        ("AAAAA/1.0/1", b"rounds of game 1"),
        ("AAAAA/1.0/2", b"rounds of game 2"),
    ]
    assert kept[0].number < kept[1].number
    assert [g.key for g in await store.kept_games(after=kept[0].number)] == ["AAAAA/1.0/2"]
    assert await store.kept_games(after=kept[1].number) == []


async def test_a_shared_album_outlives_its_room_until_it_is_forgotten(store_backend: StoreBackend) -> None:
    first, second = await store_backend.open(), await store_backend.open()
    await first.create_room("AAAAA", at=1.0)
    await first.share_album("hash-one", "AAAAA", b'{"number": 1}', at=10.0)
    await first.share_album("hash-two", "AAAAA", b'{"number": 2}', at=20.0)
    await first.delete_room("AAAAA")
    assert await second.shared_album("hash-one") == ("AAAAA", b'{"number": 1}'), "read by another process"
    assert await second.shared_album("hash-nope") is None
    assert await second.forget_shared_albums(before=15.0) == 1
    assert await first.shared_album("hash-one") is None
    assert await first.shared_album("hash-two") == ("AAAAA", b'{"number": 2}')


async def test_a_game_kept_by_one_process_is_read_by_another(store_backend: StoreBackend) -> None:
    first, second = await store_backend.open(), await store_backend.open()
    assert await first.keep_game("BBBBB/2.0/1", b"x", at=1.0)
    assert not await second.keep_game("BBBBB/2.0/1", b"x", at=2.0)
    assert [g.data for g in await second.kept_games()] == [b"x"]


async def test_what_was_appended_is_there_for_a_new_process(store_backend: StoreBackend) -> None:
    first = await store_backend.open()
    await first.create_room("AAAAA", at=1.0)
    await first.append("AAAAA", 0, b"kept", at=1.0)
    # first is not closed: a killed process never closes; a second one must see the commit
    second = await store_backend.open()
    assert [e.data for e in await second.load("AAAAA")] == [b"kept"]
    assert not await second.create_room("AAAAA", at=2.0), "the code is taken for every process"


# ---------------------------------------------------------------------- several processes


async def test_two_processes_appending_the_same_seq_exactly_one_wins(store_backend: StoreBackend) -> None:
    first, second = await store_backend.open(), await store_backend.open()
    await first.create_room("AAAAA", at=1.0)
    winners = []
    for seq in range(20):
        results = await asyncio.gather(
            first.append("AAAAA", seq, b"first", at=float(seq)),
            second.append("AAAAA", seq, b"second", at=float(seq)),
            return_exceptions=True,
        )
        assert sorted(type(result).__name__ for result in results) == ["NoneType", "SeqTaken"], results
        winners.append(b"first" if results[0] is None else b"second")
    # both processes read the same log: the winners, each seq once
    for store in (first, second):
        entries = await store.load("AAAAA")
        assert [e.seq for e in entries] == list(range(20))
        assert [e.data for e in entries] == winners


async def test_many_rooms_appended_at_once_from_two_processes(store_backend: StoreBackend) -> None:
    stores = [await store_backend.open(), await store_backend.open()]
    codes = [f"R{n:04d}" for n in range(40)]
    for code in codes:
        assert await stores[0].create_room(code, at=1.0)

    async def play(index: int, code: str) -> None:
        for seq in range(15):  # the two processes take turns writing this room's log
            await stores[(index + seq) % 2].append(code, seq, f"{code}/{seq}".encode(), at=float(seq))

    await asyncio.gather(*(play(index, code) for index, code in enumerate(codes)))
    for code in codes:
        assert [e.data for e in await stores[1].load(code)] == [f"{code}/{seq}".encode() for seq in range(15)]
        assert await stores[0].touched(code) == 14.0
    assert sorted(await stores[1].room_codes()) == codes


async def test_racing_writers_that_reload_and_retry_lose_and_double_nothing(store_backend: StoreBackend) -> None:
    """The room service's pattern across processes: write at the next seq; on `SeqTaken`, catch
    up from the store and try again. Every write lands exactly once, with no gap."""
    stores = [await store_backend.open(), await store_backend.open()]
    await stores[0].create_room("AAAAA", at=1.0)
    conflicts = 0

    async def writer(name: str, store: EventStore, count: int) -> None:
        nonlocal conflicts
        known = len(await store.load("AAAAA"))
        for n in range(count):
            while True:
                try:
                    await store.append("AAAAA", known, f"{name}:{n}".encode(), at=1.0)
                except SeqTaken:
                    conflicts += 1
                    known += len(await store.load("AAAAA", since=known))
                    continue
                known += 1
                break
            await asyncio.sleep(0)

    await asyncio.gather(*(writer(f"w{i}", stores[i % 2], 25) for i in range(4)))
    entries = await stores[1].load("AAAAA")
    assert [e.seq for e in entries] == list(range(100))
    assert sorted(e.data for e in entries) == sorted(f"w{i}:{n}".encode() for i in range(4) for n in range(25))
    for i in range(4):  # each writer's own entries are in the order it wrote them
        mine = [e.data for e in entries if e.data.startswith(f"w{i}:".encode())]
        assert mine == [f"w{i}:{n}".encode() for n in range(25)]


# ---------------------------------------------------------------------- SQLite only


@pytest.mark.parametrize(("durability", "synchronous"), [("process", 1), ("power", 2)])
def test_durability_chooses_the_sqlite_sync_level(tmp_path: Path, durability: str, synchronous: int) -> None:
    store = SqliteStore(tmp_path / "rooms.sqlite3", durability=durability)  # type: ignore[arg-type]
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == synchronous
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_a_database_of_the_first_schema_is_upgraded_and_keeps_its_rooms(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    with sqlite3.connect(path) as db:  # what Fabula's schema 1 wrote
        db.execute("CREATE TABLE rooms (code TEXT PRIMARY KEY, created REAL NOT NULL, touched REAL NOT NULL)")
        db.execute(
            "CREATE TABLE entries (code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE,"
            " seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (code, seq)) WITHOUT ROWID"
        )
        db.execute("INSERT INTO rooms VALUES ('AAAAA', 1.0, 1.0)")
        db.execute("INSERT INTO entries VALUES ('AAAAA', 0, x'01')")
        db.execute("PRAGMA user_version=1")
    store = SqliteStore(path)
    assert [e.data for e in await store.load("AAAAA")] == [b"\x01"]
    assert await store.keep_game("AAAAA/1.0/1", b"rounds", at=2.0)
    await store.share_album("h", "AAAAA", b"album", at=2.0)
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == 3
    await store.close()


def test_a_database_from_a_newer_fabula_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(RuntimeError, match="newer Fabula"):
        SqliteStore(path)
