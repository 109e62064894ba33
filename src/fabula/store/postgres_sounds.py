"""The storytellers' recorded clues in PostgreSQL, beside the rooms, so that every process of a
``--database`` deployment reaches them: a sound recorded through one process is played through
any other.

`PostgresSounds` behaves as `SqliteSounds` does (see fabula.store.sounds), on migration 6's table
in the deployment's schema (fabula.store.postgres)::

    sounds (id text PRIMARY KEY, room text, member int, seconds float8, added float8, mp3 bytea)

It uses the `PostgresStore`'s pool (`PostgresStore.sounds`).
"""

from __future__ import annotations

import asyncpg

from .sounds import NewSound


class PostgresSounds:
    """`SoundStore` on PostgreSQL; made by `PostgresStore.sounds` on the store's own pool."""

    def __init__(self, pool: asyncpg.Pool, schema: str) -> None:
        """``schema`` must be migrated (`PostgresStore.connect` does it); the pool stays the store's."""
        self._pool = pool
        s = f'"{schema}"'
        self._insert = f"INSERT INTO {s}.sounds (id, room, member, seconds, added, mp3) VALUES ($1, $2, $3, $4, $5, $6)"
        self._sound = f"SELECT member, mp3, seconds FROM {s}.sounds WHERE room = $1 AND id = $2"
        self._room_sounds = f"SELECT id FROM {s}.sounds WHERE room = $1 ORDER BY added"
        self._delete_room = f"DELETE FROM {s}.sounds WHERE room = $1"

    async def add(self, sound: NewSound, at: float) -> None:
        await self._pool.execute(self._insert, sound.id, sound.room, sound.member, sound.seconds, at, sound.mp3)

    async def sound(self, room: str, sound: str) -> NewSound | None:
        row = await self._pool.fetchrow(self._sound, room, sound)
        return None if row is None else NewSound(room, sound, int(row[0]), bytes(row[1]), float(row[2]))

    async def room_sounds(self, room: str) -> list[str]:
        return [row[0] for row in await self._pool.fetch(self._room_sounds, room)]

    async def delete_room(self, room: str) -> None:
        await self._pool.execute(self._delete_room, room)

    async def close(self) -> None:
        """Nothing of its own to close: the pool is the store's."""
