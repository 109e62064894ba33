"""Where the storytellers' recorded clues live: each sound's id (unguessable), its room, the member
who recorded it, its MP3 bytes and how long it lasts.

`SqliteSounds` keeps them in their own SQLite file beside the rooms' (as the pictures are: blobs
would bloat the rooms' log); `PostgresSounds` (fabula.store.postgres_sounds) in the deployment's
PostgreSQL schema, so that every process reaches them. A sound goes with its room (`delete_room`).
Both behave alike.

>>> import asyncio, tempfile, pathlib
>>> async def demo() -> tuple[int, float] | None:
...     store = SqliteSounds(pathlib.Path(tempfile.mkdtemp()) / "sounds.sqlite3")
...     await store.add(NewSound("ABCDE", new_sound_id(), 2, b"ID3...", 3.5), at=1.0)
...     found = [await store.sound("ABCDE", sound) for sound in await store.room_sounds("ABCDE")]
...     return None if found[0] is None else (found[0].member, found[0].seconds)
>>> asyncio.run(demo())
(2, 3.5)
"""

from __future__ import annotations

import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .threaded import OneAtATime


def new_sound_id() -> str:
    """A sound's id: 128 random bits, URL-safe (22 characters) — its URL cannot be guessed."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class NewSound:
    """A recorded clue to keep: its ``room``, its ``id``, the ``member`` who recorded it, the MP3
    bytes and the seconds they last."""

    room: str
    id: str
    member: int
    mp3: bytes
    seconds: float


class SoundStore(Protocol):
    async def add(self, sound: NewSound, at: float) -> None:
        """Keep ``sound``."""
        ...

    async def sound(self, room: str, sound: str) -> NewSound | None:
        """Room ``room``'s sound ``sound``, or None if the room has no such sound."""
        ...

    async def room_sounds(self, room: str) -> list[str]:
        """The ids of ``room``'s sounds, oldest first."""
        ...

    async def delete_room(self, room: str) -> None:
        """Forget ``room``'s sounds."""
        ...

    async def close(self) -> None: ...


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS sounds ("
    " id TEXT PRIMARY KEY, room TEXT NOT NULL, member INTEGER NOT NULL, seconds REAL NOT NULL,"
    " added REAL NOT NULL, mp3 BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS sounds_by_room ON sounds (room, added)",
)


class SqliteSounds:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        for statement in _SCHEMA:
            self._db.execute(statement)
        self._run = OneAtATime(self._db)

    async def add(self, sound: NewSound, at: float) -> None:
        await self._run(
            lambda db: db.execute(
                "INSERT INTO sounds (id, room, member, seconds, added, mp3) VALUES (?, ?, ?, ?, ?, ?)",
                (sound.id, sound.room, sound.member, sound.seconds, at, sound.mp3),
            )
        )

    async def sound(self, room: str, sound: str) -> NewSound | None:
        def work(db: sqlite3.Connection) -> NewSound | None:
            found = db.execute(
                "SELECT member, mp3, seconds FROM sounds WHERE room = ? AND id = ?", (room, sound)
            ).fetchone()
            return None if found is None else NewSound(room, sound, int(found[0]), bytes(found[1]), float(found[2]))

        return await self._run(work)

    async def room_sounds(self, room: str) -> list[str]:
        def work(db: sqlite3.Connection) -> list[str]:
            return [row[0] for row in db.execute("SELECT id FROM sounds WHERE room = ? ORDER BY added", (room,))]

        return await self._run(work)

    async def delete_room(self, room: str) -> None:
        await self._run(lambda db: db.execute("DELETE FROM sounds WHERE room = ?", (room,)))

    async def close(self) -> None:
        await self._run(lambda db: db.close())
