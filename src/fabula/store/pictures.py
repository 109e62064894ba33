"""Where a room's own pictures live: its deck (an unguessable name), each picture's card id,
caption and finished WebP bytes, read by whichever process deals or serves them.

`SqlitePictures` keeps them in their own SQLite file beside the rooms' (blobs would bloat the
rooms' log and slow its small writes); every call runs on a worker thread, since a picture is
hundreds of kilobytes. A deck is created with its room's first upload; adding pictures is one
transaction, so a killed upload leaves none of its pictures behind.

>>> import asyncio, tempfile, pathlib
>>> async def demo() -> list[str]:
...     store = SqlitePictures(pathlib.Path(tempfile.mkdtemp()) / "pictures.sqlite3")
...     deck = await store.deck_of("ABCDE", at=0.0)
...     added = await store.add(deck, [NewPicture("cat.jpg", b"RIFF...", "0f0f", "")], at=1.0, most=10)
...     return [picture.card.removeprefix(deck) for picture in await store.pictures(deck)]
>>> asyncio.run(demo())
['-001']
"""

from __future__ import annotations

import asyncio
import secrets
import sqlite3
import string
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

_T = TypeVar("_T")

#: A deck's name: ``u`` and 26 base-32 characters (130 random bits), so that its card ids — and
#: so the pictures' URLs — cannot be guessed, and read as a deck name the library accepts.
DECK_PREFIX = "u"
_DECK_ALPHABET = string.ascii_lowercase[:22] + "2345"  # 26 letters and digits, no look-alikes needed
_DECK_LENGTH = 26


def new_deck_name() -> str:
    return DECK_PREFIX + "".join(secrets.choice(_DECK_ALPHABET) for _ in range(_DECK_LENGTH))


def is_room_deck(name: str) -> bool:
    """Whether ``name`` looks like a room's own deck (not that it exists)."""
    return len(name) == 1 + _DECK_LENGTH and name[0] == DECK_PREFIX and all(c in _DECK_ALPHABET for c in name[1:])


def deck_of_card(card: str) -> str | None:
    """The room deck a card id belongs to (``<deck>-<number>``), or None for another card."""
    deck, _, number = card.rpartition("-")
    return deck if is_room_deck(deck) and number.isdigit() else None


class DeckFull(Exception):
    """Adding the pictures would take the deck past its limit; nothing was added."""

    def __init__(self, has: int, most: int) -> None:
        super().__init__(f"the deck has {has} pictures of at most {most}")
        self.has, self.most = has, most


@dataclass(frozen=True, slots=True)
class NewPicture:
    """A finished picture to store: its ``name`` as uploaded, its WebP bytes, its pHash (hex)."""

    name: str
    webp: bytes
    phash: str
    caption: str


@dataclass(frozen=True, slots=True)
class StoredPicture:
    card: str
    deck: str
    number: int
    name: str
    caption: str
    phash: str
    size: int
    added: float


class PictureStore(Protocol):
    async def deck_of(self, room: str, at: float) -> str:
        """The name of ``room``'s deck, made now if it has none."""
        ...

    async def room_deck(self, room: str) -> str | None:
        """The name of ``room``'s deck, if it has one."""
        ...

    async def add(self, deck: str, pictures: Sequence[NewPicture], at: float, most: int) -> list[StoredPicture]:
        """Store ``pictures`` in ``deck``, numbered after its last one, all or none; `DeckFull`
        if the deck would hold more than ``most``."""
        ...

    async def pictures(self, deck: str) -> list[StoredPicture]:
        """The deck's pictures in the order they were added."""
        ...

    async def image(self, card: str) -> bytes | None:
        """The WebP bytes of ``card``, or None if there is no such picture."""
        ...

    async def remove(self, deck: str, card: str) -> bool: ...

    async def set_caption(self, deck: str, card: str, caption: str) -> bool: ...

    async def delete_room(self, room: str) -> None:
        """Forget ``room``'s deck and its pictures."""
        ...

    async def usage(self) -> tuple[int, int]:
        """(decks, bytes of pictures) held, all rooms together."""
        ...

    async def close(self) -> None: ...


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS decks (deck TEXT PRIMARY KEY, room TEXT UNIQUE, created REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pictures ("
    " card TEXT PRIMARY KEY, deck TEXT NOT NULL REFERENCES decks(deck) ON DELETE CASCADE,"
    " number INTEGER NOT NULL, name TEXT NOT NULL, caption TEXT NOT NULL, phash TEXT NOT NULL,"
    " added REAL NOT NULL, webp BLOB NOT NULL, UNIQUE (deck, number))",
)
_COLUMNS = "card, deck, number, name, caption, phash, length(webp), added"


class SqlitePictures:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        for statement in _SCHEMA:
            self._db.execute(statement)
        # one connection, used from worker threads one call at a time
        self._lock = threading.Lock()

    async def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        def locked() -> _T:
            with self._lock:
                return work(self._db)

        return await asyncio.to_thread(locked)

    async def deck_of(self, room: str, at: float) -> str:
        def work(db: sqlite3.Connection) -> str:
            found = db.execute("SELECT deck FROM decks WHERE room = ?", (room,)).fetchone()
            if found is not None:
                return str(found[0])
            deck = new_deck_name()
            db.execute("INSERT INTO decks (deck, room, created) VALUES (?, ?, ?)", (deck, room, at))
            return deck

        return await self._run(work)

    async def room_deck(self, room: str) -> str | None:
        def work(db: sqlite3.Connection) -> str | None:
            found = db.execute("SELECT deck FROM decks WHERE room = ?", (room,)).fetchone()
            return None if found is None else str(found[0])

        return await self._run(work)

    async def add(self, deck: str, pictures: Sequence[NewPicture], at: float, most: int) -> list[StoredPicture]:
        def work(db: sqlite3.Connection) -> list[StoredPicture]:
            db.execute("BEGIN IMMEDIATE")
            try:
                has, last = db.execute(
                    "SELECT count(*), coalesce(max(number), 0) FROM pictures WHERE deck = ?", (deck,)
                ).fetchone()
                if has + len(pictures) > most:
                    raise DeckFull(has, most)
                stored = []
                for offset, picture in enumerate(pictures, 1):
                    number = last + offset
                    card = f"{deck}-{number:03d}"
                    db.execute(
                        "INSERT INTO pictures (card, deck, number, name, caption, phash, added, webp)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (card, deck, number, picture.name, picture.caption, picture.phash, at, picture.webp),
                    )
                    size = len(picture.webp)
                    stored.append(
                        StoredPicture(card, deck, number, picture.name, picture.caption, picture.phash, size, at)
                    )
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return stored

        return await self._run(work)

    async def pictures(self, deck: str) -> list[StoredPicture]:
        def work(db: sqlite3.Connection) -> list[StoredPicture]:
            rows = db.execute(f"SELECT {_COLUMNS} FROM pictures WHERE deck = ? ORDER BY number", (deck,))
            return [StoredPicture(*row) for row in rows]

        return await self._run(work)

    async def image(self, card: str) -> bytes | None:
        def work(db: sqlite3.Connection) -> bytes | None:
            found = db.execute("SELECT webp FROM pictures WHERE card = ?", (card,)).fetchone()
            return None if found is None else bytes(found[0])

        return await self._run(work)

    async def remove(self, deck: str, card: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            return db.execute("DELETE FROM pictures WHERE deck = ? AND card = ?", (deck, card)).rowcount == 1

        return await self._run(work)

    async def set_caption(self, deck: str, card: str, caption: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute("UPDATE pictures SET caption = ? WHERE deck = ? AND card = ?", (caption, deck, card))
            return cursor.rowcount == 1

        return await self._run(work)

    async def delete_room(self, room: str) -> None:
        await self._run(lambda db: db.execute("DELETE FROM decks WHERE room = ?", (room,)))

    async def usage(self) -> tuple[int, int]:
        def work(db: sqlite3.Connection) -> tuple[int, int]:
            decks = db.execute("SELECT count(*) FROM decks").fetchone()[0]
            size = db.execute("SELECT coalesce(sum(length(webp)), 0) FROM pictures").fetchone()[0]
            return int(decks), int(size)

        return await self._run(work)

    async def close(self) -> None:
        await self._run(lambda db: db.close())
