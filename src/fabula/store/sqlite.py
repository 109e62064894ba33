"""The zero-setup event store: one SQLite file in the data folder.

Writes happen on the event loop's thread: an append is one small WAL transaction (tens of
microseconds), cheaper than a hop to a worker thread. ``durability="process"`` (the default,
``synchronous=NORMAL``) survives any crash of the server process — a SIGKILL included — because
a committed transaction is in the WAL file; ``"power"`` (``synchronous=FULL``) also survives an
operating-system crash or power loss at the cost of an fsync per action.

>>> import asyncio, tempfile, pathlib
>>> async def demo() -> list[bytes]:
...     store = SqliteStore(pathlib.Path(tempfile.mkdtemp()) / "rooms.sqlite3")
...     await store.create_room("ABCD", at=0.0)
...     await store.append("ABCD", 0, b"first", at=0.0)
...     return [entry.data for entry in await store.load("ABCD")]
>>> asyncio.run(demo())
[b'first']
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from .base import KeptGame, SeqTaken, StoredEntry

Durability = Literal["process", "power"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, created REAL NOT NULL, touched REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS entries ("
    " code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (code, seq)) WITHOUT ROWID",
    # version 2: finished games, kept for the bots' memory after their rooms are gone
    "CREATE TABLE IF NOT EXISTS kept_games ("
    " number INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, kept REAL NOT NULL, data BLOB NOT NULL)",
    # version 3: albums shared by a link, kept after their rooms
    "CREATE TABLE IF NOT EXISTS shared_albums ("
    " secret_hash TEXT PRIMARY KEY, code TEXT NOT NULL, kept REAL NOT NULL, data BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS shared_albums_by_kept ON shared_albums (kept)",
)
SCHEMA_VERSION = 3


class SqliteStore:
    def __init__(self, path: Path, durability: Durability = "process") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # autocommit mode (isolation_level=None): each statement or explicit BEGIN…COMMIT is a transaction
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durability == 'power' else 'NORMAL'}")
        self._db.execute("PRAGMA foreign_keys=ON")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{path} was written by a newer Fabula (schema {version}; this one knows {SCHEMA_VERSION})"
            )
        for statement in _SCHEMA:
            self._db.execute(statement)
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    async def create_room(self, code: str, at: float) -> bool:
        try:
            self._db.execute("INSERT INTO rooms (code, created, touched) VALUES (?, ?, ?)", (code, at, at))
        except sqlite3.IntegrityError:
            return False
        return True

    async def append(self, code: str, seq: int, data: bytes, at: float) -> None:
        await self.append_many(code, seq, (data,), at)

    async def append_many(self, code: str, seq: int, data: Sequence[bytes], at: float) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT INTO entries (code, seq, data) VALUES (?, ?, ?)",
                [(code, seq + n, item) for n, item in enumerate(data)],
            )
            db.execute("UPDATE rooms SET touched = ? WHERE code = ?", (at, code))
        except sqlite3.IntegrityError as error:
            db.execute("ROLLBACK")
            raise SeqTaken(f"room {code} already has entry {seq}") from error
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    async def load(self, code: str, since: int = 0) -> list[StoredEntry]:
        rows = self._db.execute("SELECT seq, data FROM entries WHERE code = ? AND seq >= ? ORDER BY seq", (code, since))
        return [StoredEntry(seq, bytes(data)) for seq, data in rows]

    async def room_codes(self) -> list[str]:
        return [code for (code,) in self._db.execute("SELECT code FROM rooms ORDER BY created")]

    async def touched(self, code: str) -> float | None:
        row = self._db.execute("SELECT touched FROM rooms WHERE code = ?", (code,)).fetchone()
        return None if row is None else float(row[0])

    async def delete_room(self, code: str) -> None:
        self._db.execute("DELETE FROM rooms WHERE code = ?", (code,))

    async def keep_game(self, key: str, data: bytes, at: float) -> bool:
        cursor = self._db.execute(
            "INSERT INTO kept_games (key, kept, data) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING", (key, at, data)
        )
        return cursor.rowcount == 1

    async def kept_games(self, after: int = 0) -> list[KeptGame]:
        rows = self._db.execute("SELECT number, key, data FROM kept_games WHERE number > ? ORDER BY number", (after,))
        return [KeptGame(number, key, bytes(data)) for number, key, data in rows]

    async def share_album(self, secret_hash: str, code: str, data: bytes, at: float) -> None:
        row = (secret_hash, code, at, data)
        self._db.execute("INSERT INTO shared_albums (secret_hash, code, kept, data) VALUES (?, ?, ?, ?)", row)

    async def shared_album(self, secret_hash: str) -> tuple[str, bytes] | None:
        row = self._db.execute("SELECT code, data FROM shared_albums WHERE secret_hash = ?", (secret_hash,)).fetchone()
        return None if row is None else (str(row[0]), bytes(row[1]))

    async def forget_shared_albums(self, before: float) -> int:
        return self._db.execute("DELETE FROM shared_albums WHERE kept < ?", (before,)).rowcount

    async def close(self) -> None:
        self._db.close()
