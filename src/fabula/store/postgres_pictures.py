"""The rooms' own pictures in PostgreSQL, beside the rooms, so that every process of a
``--database`` deployment reaches them: a picture uploaded through one process is listed, dealt
and served by any other. No file system is shared between processes; the database is.

`PostgresPictures` behaves as `SqlitePictures` does (see fabula.store.pictures), on the tables of
migrations 3 and 4 in the deployment's schema (fabula.store.postgres)::

    decks    (deck text PRIMARY KEY, room text UNIQUE, created float8, last_number int,
              link text UNIQUE, kept_until float8)
    pictures (card text PRIMARY KEY, deck text REFERENCES decks ON DELETE CASCADE, number int,
              name text, caption text, phash text, added float8, webp bytea, UNIQUE (deck, number))

It uses the `PostgresStore`'s pool (`PostgresStore.pictures`): one set of connections per process,
one schema and one migration history per deployment. Two processes racing are settled by the
database: a room's first deck by ``ON CONFLICT (room)``, adds to one deck by a lock on its row.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from .pictures import DeckFull, NewPicture, NoDeck, StoredPicture, card_id, new_deck_name, new_link, numbered

_COLUMNS = "card, deck, number, name, caption, phash, octet_length(webp), added"


class PostgresPictures:
    """`PictureStore` on PostgreSQL; made by `PostgresStore.pictures` on the store's own pool."""

    def __init__(self, pool: asyncpg.Pool, schema: str) -> None:
        """``schema`` must be migrated (`PostgresStore.connect` does it); the pool stays the store's."""
        self._pool = pool
        s = f'"{schema}"'
        self._make_deck = (
            f"INSERT INTO {s}.decks (deck, room, created) VALUES ($1, $2, $3) ON CONFLICT (room) DO NOTHING"
        )
        self._room_deck = f"SELECT deck FROM {s}.decks WHERE room = $1"
        # FOR UPDATE: a second add to this deck waits here until the first commits, then counts
        # and numbers after it (so together they never pass the limit nor share a number)
        self._lock_deck = f"SELECT last_number FROM {s}.decks WHERE deck = $1 FOR UPDATE"
        self._count = f"SELECT count(*) FROM {s}.pictures WHERE deck = $1"
        self._insert = (
            f"INSERT INTO {s}.pictures (card, deck, number, name, caption, phash, added, webp)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        )
        self._advance = f"UPDATE {s}.decks SET last_number = $2 WHERE deck = $1"
        self._pictures = f"SELECT {_COLUMNS} FROM {s}.pictures WHERE deck = $1 ORDER BY number"
        self._image = f"SELECT webp FROM {s}.pictures WHERE card = $1"
        self._remove = f"DELETE FROM {s}.pictures WHERE deck = $1 AND card = $2"
        self._caption = f"UPDATE {s}.pictures SET caption = $3 WHERE deck = $1 AND card = $2"
        self._copy = (
            f"INSERT INTO {s}.pictures (card, deck, number, name, caption, phash, added, webp)"
            f" SELECT $1, $2, $3, name, caption, phash, $4, webp FROM {s}.pictures WHERE deck = $5 AND card = $6"
        )
        self._copied = f"SELECT {_COLUMNS} FROM {s}.pictures WHERE deck = $1 AND number > $2 ORDER BY number"
        # coalesce under the row's lock: of two processes making a deck's link at once, one wins
        self._link = f"UPDATE {s}.decks SET link = coalesce(link, $2) WHERE deck = $1 RETURNING link"
        self._unlink = f"UPDATE {s}.decks SET link = NULL WHERE deck = $1 AND link IS NOT NULL"
        self._linked = f"SELECT deck FROM {s}.decks WHERE link = $1"
        self._keep_linked = f"UPDATE {s}.decks SET room = NULL, kept_until = $2 WHERE room = $1 AND link IS NOT NULL"
        self._delete_room = f"DELETE FROM {s}.decks WHERE room = $1"
        self._expire = f"DELETE FROM {s}.decks WHERE kept_until <= $1"
        self._usage = (
            f"SELECT (SELECT count(*) FROM {s}.decks), (SELECT coalesce(sum(octet_length(webp)), 0) FROM {s}.pictures)"
        )

    async def deck_of(self, room: str, at: float) -> str:
        while True:
            deck = await self._pool.fetchval(self._room_deck, room)
            if deck is not None:
                return str(deck)
            # Two processes' first uploads at once: one insert wins, the other does nothing
            # (having waited for the winner's commit), and both then read the winner's deck.
            await self._pool.execute(self._make_deck, new_deck_name(), room, at)
            # (and should the room be deleted between the two statements, make it again)

    async def room_deck(self, room: str) -> str | None:
        deck = await self._pool.fetchval(self._room_deck, room)
        return None if deck is None else str(deck)

    async def add(self, deck: str, pictures: Sequence[NewPicture], at: float, most: int) -> list[StoredPicture]:
        async with self._pool.acquire() as connection, connection.transaction():
            last = await connection.fetchval(self._lock_deck, deck)
            if last is None:
                raise NoDeck(deck)
            has = await connection.fetchval(self._count, deck)
            if has + len(pictures) > most:
                raise DeckFull(has, most)
            stored = numbered(deck, last, pictures, at)
            if stored:
                await connection.executemany(
                    self._insert,
                    [
                        (p.card, deck, p.number, p.name, p.caption, p.phash, at, new.webp)
                        for p, new in zip(stored, pictures, strict=True)
                    ],
                )
                await connection.execute(self._advance, deck, last + len(stored))
            return stored

    async def pictures(self, deck: str) -> list[StoredPicture]:
        return [StoredPicture(*row) for row in await self._pool.fetch(self._pictures, deck)]

    async def image(self, card: str) -> bytes | None:
        data = await self._pool.fetchval(self._image, card)
        return None if data is None else bytes(data)

    async def remove(self, deck: str, card: str) -> bool:
        return bool(await self._pool.execute(self._remove, deck, card) == "DELETE 1")

    async def set_caption(self, deck: str, card: str, caption: str) -> bool:
        return bool(await self._pool.execute(self._caption, deck, card, caption) == "UPDATE 1")

    async def copy(
        self, source: str, cards: Sequence[str], deck: str, at: float, most: int
    ) -> list[StoredPicture | None]:
        async with self._pool.acquire() as connection, connection.transaction():
            first = await connection.fetchval(self._lock_deck, deck)
            if first is None:
                raise NoDeck(deck)
            has = await connection.fetchval(self._count, deck)
            if has + len(cards) > most:
                raise DeckFull(has, most)
            last = first
            copied: list[int | None] = []
            for card in cards:  # the bytes go from row to row: none pass through Python
                status = await connection.execute(self._copy, card_id(deck, last + 1), deck, last + 1, at, source, card)
                inserted = status == "INSERT 0 1"
                copied.append(last + 1 if inserted else None)
                last += inserted
            await connection.execute(self._advance, deck, last)
            rows = await connection.fetch(self._copied, deck, first)
            stored = {picture.number: picture for picture in (StoredPicture(*row) for row in rows)}
        return [None if number is None else stored[number] for number in copied]

    async def link(self, deck: str) -> str | None:
        link = await self._pool.fetchval(self._link, deck, new_link())
        return None if link is None else str(link)

    async def unlink(self, deck: str) -> bool:
        return bool(await self._pool.execute(self._unlink, deck) == "UPDATE 1")

    async def linked(self, link: str) -> str | None:
        deck = await self._pool.fetchval(self._linked, link)
        return None if deck is None else str(deck)

    async def delete_room(self, room: str, keep_linked_until: float | None = None) -> None:
        async with self._pool.acquire() as connection, connection.transaction():
            if keep_linked_until is not None:
                await connection.execute(self._keep_linked, room, keep_linked_until)
            await connection.execute(self._delete_room, room)

    async def expire(self, now: float) -> int:
        status = await self._pool.execute(self._expire, now)
        return int(status.rpartition(" ")[2])

    async def usage(self) -> tuple[int, int]:
        row = await self._pool.fetchrow(self._usage)
        assert row is not None  # one row, always
        return int(row[0]), int(row[1])

    async def close(self) -> None:
        """Nothing to close: the pool is the `PostgresStore`'s, closed with it."""
