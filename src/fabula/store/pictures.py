"""Where a room's own pictures live: its deck (an unguessable name), each picture's card id,
caption and finished WebP bytes, read by whichever process deals or serves them.

`SqlitePictures` keeps them in their own SQLite file beside the rooms' (blobs would bloat the
rooms' log and slow its small writes); every call runs on a worker thread, since a picture is
hundreds of kilobytes. `PostgresPictures` (fabula.store.postgres_pictures) keeps them in the
deployment's PostgreSQL schema, so that every process of a ``--database`` deployment reaches
them. Both behave alike, down to the numbers they give.

A deck is created with its room's first upload; adding pictures is one transaction, so a killed
upload leaves none of its pictures behind. A deck numbers its pictures 1, 2, 3, … and never gives
a number twice, not even that of a removed picture: a card id is a picture's URL, which browsers
cache for a day, so a new picture must not answer to an old one's.

A deck may have a *link*: a secret (`new_link`, 192 random bits) that names it to whoever holds
it, so its pictures can be copied into another room's deck. A deck with a link outlives its room:
when the room is deleted the deck is detached from it (a room made again under that code gets a
deck of its own) and kept until the time the caller gives, then `expire` forgets it. A deck
without a link goes with its room, as before.

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

import secrets
import sqlite3
import string
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .threaded import OneAtATime

#: A deck's name: ``u`` and 26 base-32 characters (130 random bits), so that its card ids — and
#: so the pictures' URLs — cannot be guessed, and read as a deck name the library accepts.
DECK_PREFIX = "u"
_DECK_ALPHABET = string.ascii_lowercase[:22] + "2345"  # 26 letters and digits, no look-alikes needed
_DECK_LENGTH = 26


def new_deck_name() -> str:
    return DECK_PREFIX + "".join(secrets.choice(_DECK_ALPHABET) for _ in range(_DECK_LENGTH))


def new_link() -> str:
    """A deck link's secret: 192 random bits, URL-safe (32 characters)."""
    return secrets.token_urlsafe(24)


def is_room_deck(name: str) -> bool:
    """Whether ``name`` looks like a room's own deck (not that it exists)."""
    return len(name) == 1 + _DECK_LENGTH and name[0] == DECK_PREFIX and all(c in _DECK_ALPHABET for c in name[1:])


def deck_of_card(card: str) -> str | None:
    """The room deck a card id belongs to (``<deck>-<number>``), or None for another card."""
    deck, _, number = card.rpartition("-")
    return deck if is_room_deck(deck) and number.isdigit() else None


class NoDeck(LookupError):
    """The deck is gone (its room was deleted meanwhile); nothing was added."""


class DeckFull(Exception):
    """Adding the pictures would take the deck past its limit; nothing was added."""

    def __init__(self, has: int, most: int) -> None:
        super().__init__(f"the deck has {has} pictures of at most {most}")
        self.has, self.most = has, most


@dataclass(frozen=True, slots=True)
class NewPicture:
    """A finished picture to store: its ``name`` as uploaded, its WebP bytes, its likeness as text
    (`fabula.cards.likeness`: its pHash in hex, then its thumbnails; kept in the ``phash`` column,
    named when it was the pHash alone, which rows stored then still hold)."""

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
        """Store ``pictures`` in ``deck``, all or none, numbered after the highest number the deck
        ever gave (a removed picture's number is not given again); `DeckFull` if the deck would
        hold more than ``most``, `NoDeck` if there is no such deck. Safe against concurrent adds,
        from this process or another: together they never pass ``most`` nor share a number."""
        ...

    async def pictures(self, deck: str) -> list[StoredPicture]:
        """The deck's pictures in the order they were added."""
        ...

    async def image(self, card: str) -> bytes | None:
        """The WebP bytes of ``card``, or None if there is no such picture."""
        ...

    async def remove(self, deck: str, card: str) -> bool:
        """Take ``card`` out of ``deck``; False if the deck holds no such card."""
        ...

    async def set_caption(self, deck: str, card: str, caption: str) -> bool:
        """Caption ``card`` of ``deck``; False if the deck holds no such card."""
        ...

    async def copy(
        self, source: str, cards: Sequence[str], deck: str, at: float, most: int
    ) -> list[StoredPicture | None]:
        """Copy ``cards`` of deck ``source`` (bytes, name, caption, pHash) into ``deck``, all or
        none, numbered on as `add` numbers; one answer per card, None for a card ``source`` no
        longer holds. `DeckFull` and `NoDeck` as `add` (``deck``'s, not ``source``'s)."""
        ...

    async def link(self, deck: str) -> str | None:
        """``deck``'s link, made now if it has none (the same one every time after); None if
        there is no such deck."""
        ...

    async def unlink(self, deck: str) -> bool:
        """Revoke ``deck``'s link; False if it had none."""
        ...

    async def linked(self, link: str) -> str | None:
        """The deck ``link`` names, if any (its room may be gone)."""
        ...

    async def delete_room(self, room: str, keep_linked_until: float | None = None) -> None:
        """Forget ``room``'s deck and its pictures — unless the deck has a link and
        ``keep_linked_until`` is given: then the deck is detached from the room and kept until
        then (see `expire`)."""
        ...

    async def expire(self, now: float) -> int:
        """Forget the detached decks kept until ``now`` or before; how many."""
        ...

    async def usage(self) -> tuple[int, int]:
        """(decks, bytes of pictures) held, all rooms together."""
        ...

    async def close(self) -> None: ...


def card_id(deck: str, number: int) -> str:
    return f"{deck}-{number:03d}"


def numbered(deck: str, last: int, pictures: Sequence[NewPicture], at: float) -> list[StoredPicture]:
    """``pictures`` as ``deck`` stores them, numbered on from ``last``."""
    return [
        StoredPicture(card_id(deck, number), deck, number, p.name, p.caption, p.phash, len(p.webp), at)
        for number, p in enumerate(pictures, last + 1)
    ]


# ``last_number``: the highest number the deck ever gave; numbers go on from it, not from the
# highest number left, so that a removed picture's card id is never given again.
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS decks ("
    " deck TEXT PRIMARY KEY, room TEXT UNIQUE, created REAL NOT NULL, last_number INTEGER NOT NULL DEFAULT 0,"
    " link TEXT, kept_until REAL)",
    "CREATE TABLE IF NOT EXISTS pictures ("
    " card TEXT PRIMARY KEY, deck TEXT NOT NULL REFERENCES decks(deck) ON DELETE CASCADE,"
    " number INTEGER NOT NULL, name TEXT NOT NULL, caption TEXT NOT NULL, phash TEXT NOT NULL,"
    " added REAL NOT NULL, webp BLOB NOT NULL, UNIQUE (deck, number))",
)
#: Made after the columns they index, which a file of an older version gains first.
_INDEXES = (
    "CREATE UNIQUE INDEX IF NOT EXISTS decks_by_link ON decks (link)",
    "CREATE INDEX IF NOT EXISTS decks_by_kept_until ON decks (kept_until) WHERE kept_until IS NOT NULL",
)
#: 1: ``decks.last_number`` (a file of version 0 had none: it numbered after the last picture left)
#: 2: ``decks.link`` and ``decks.kept_until``: deck links, and decks kept after their room
SCHEMA_VERSION = 2
_COLUMNS = "card, deck, number, name, caption, phash, length(webp), added"


@contextmanager
def _immediate(db: sqlite3.Connection) -> Iterator[None]:
    """One transaction that takes the write lock first, so no other connection counts or numbers
    meanwhile; rolled back on any error."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _last_number(db: sqlite3.Connection, deck: str, adding: int, most: int) -> int:
    """The deck's last card number, if ``adding`` more pictures fit in it (`NoDeck`, `DeckFull`)."""
    found = db.execute("SELECT last_number FROM decks WHERE deck = ?", (deck,)).fetchone()
    if found is None:
        raise NoDeck(deck)
    has = db.execute("SELECT count(*) FROM pictures WHERE deck = ?", (deck,)).fetchone()[0]
    if has + adding > most:
        raise DeckFull(has, most)
    return int(found[0])


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Bring the file at ``path`` to `SCHEMA_VERSION`, in one transaction (another process may be
    opening it too); `RuntimeError` if a newer Fabula wrote it."""
    with _immediate(db):
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{path} was written by a newer Fabula (schema {version}; this one knows {SCHEMA_VERSION})"
            )
        for statement in _SCHEMA:
            db.execute(statement)
        columns = {row[1] for row in db.execute("PRAGMA table_info(decks)")}
        if "last_number" not in columns:  # a file of version 0: its decks go on from their last picture
            db.execute("ALTER TABLE decks ADD COLUMN last_number INTEGER NOT NULL DEFAULT 0")
            db.execute(
                "UPDATE decks SET last_number ="
                " (SELECT coalesce(max(number), 0) FROM pictures WHERE pictures.deck = decks.deck)"
            )
        if "link" not in columns:  # version 1: no deck had a link, every deck had its room
            db.execute("ALTER TABLE decks ADD COLUMN link TEXT")
            db.execute("ALTER TABLE decks ADD COLUMN kept_until REAL")
        for statement in _INDEXES:
            db.execute(statement)
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


class SqlitePictures:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        _migrate(self._db, path)
        self._run = OneAtATime(self._db)

    async def deck_of(self, room: str, at: float) -> str:
        def work(db: sqlite3.Connection) -> str:
            # DO NOTHING if the room has one: another connection to the file may have made it just now
            db.execute(
                "INSERT INTO decks (deck, room, created) VALUES (?, ?, ?) ON CONFLICT (room) DO NOTHING",
                (new_deck_name(), room, at),
            )
            return str(db.execute("SELECT deck FROM decks WHERE room = ?", (room,)).fetchone()[0])

        return await self._run(work)

    async def room_deck(self, room: str) -> str | None:
        def work(db: sqlite3.Connection) -> str | None:
            found = db.execute("SELECT deck FROM decks WHERE room = ?", (room,)).fetchone()
            return None if found is None else str(found[0])

        return await self._run(work)

    async def add(self, deck: str, pictures: Sequence[NewPicture], at: float, most: int) -> list[StoredPicture]:
        def work(db: sqlite3.Connection) -> list[StoredPicture]:
            with _immediate(db):
                last = _last_number(db, deck, len(pictures), most)
                stored = numbered(deck, last, pictures, at)
                db.executemany(
                    "INSERT INTO pictures (card, deck, number, name, caption, phash, added, webp)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (p.card, deck, p.number, p.name, p.caption, p.phash, at, new.webp)
                        for p, new in zip(stored, pictures, strict=True)
                    ],
                )
                db.execute("UPDATE decks SET last_number = ? WHERE deck = ?", (last + len(pictures), deck))
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

    async def copy(
        self, source: str, cards: Sequence[str], deck: str, at: float, most: int
    ) -> list[StoredPicture | None]:
        def work(db: sqlite3.Connection) -> list[StoredPicture | None]:
            with _immediate(db):
                last = first = _last_number(db, deck, len(cards), most)
                copied: list[int | None] = []
                for card in cards:  # the bytes go from row to row: none pass through Python
                    inserted = db.execute(
                        "INSERT INTO pictures (card, deck, number, name, caption, phash, added, webp)"
                        " SELECT ?, ?, ?, name, caption, phash, ?, webp FROM pictures WHERE deck = ? AND card = ?",
                        (card_id(deck, last + 1), deck, last + 1, at, source, card),
                    ).rowcount
                    copied.append(last + 1 if inserted else None)
                    last += inserted
                db.execute("UPDATE decks SET last_number = ? WHERE deck = ?", (last, deck))
                rows = db.execute(
                    f"SELECT {_COLUMNS} FROM pictures WHERE deck = ? AND number > ? ORDER BY number", (deck, first)
                )
                stored = {picture.number: picture for picture in (StoredPicture(*row) for row in rows)}
            return [None if number is None else stored[number] for number in copied]

        return await self._run(work)

    async def link(self, deck: str) -> str | None:
        def work(db: sqlite3.Connection) -> str | None:
            # only where there is none: of two processes making it at once, the first one wins
            db.execute("UPDATE decks SET link = ? WHERE deck = ? AND link IS NULL", (new_link(), deck))
            found = db.execute("SELECT link FROM decks WHERE deck = ?", (deck,)).fetchone()
            return None if found is None else str(found[0])

        return await self._run(work)

    async def unlink(self, deck: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute("UPDATE decks SET link = NULL WHERE deck = ? AND link IS NOT NULL", (deck,))
            return cursor.rowcount == 1

        return await self._run(work)

    async def linked(self, link: str) -> str | None:
        def work(db: sqlite3.Connection) -> str | None:
            found = db.execute("SELECT deck FROM decks WHERE link = ?", (link,)).fetchone()
            return None if found is None else str(found[0])

        return await self._run(work)

    async def delete_room(self, room: str, keep_linked_until: float | None = None) -> None:
        def work(db: sqlite3.Connection) -> None:
            if keep_linked_until is not None:
                db.execute(
                    "UPDATE decks SET room = NULL, kept_until = ? WHERE room = ? AND link IS NOT NULL",
                    (keep_linked_until, room),
                )
            db.execute("DELETE FROM decks WHERE room = ?", (room,))

        await self._run(work)

    async def expire(self, now: float) -> int:
        def work(db: sqlite3.Connection) -> int:
            return db.execute("DELETE FROM decks WHERE kept_until <= ?", (now,)).rowcount

        return await self._run(work)

    async def usage(self) -> tuple[int, int]:
        def work(db: sqlite3.Connection) -> tuple[int, int]:
            decks = db.execute("SELECT count(*) FROM decks").fetchone()[0]
            size = db.execute("SELECT coalesce(sum(length(webp)), 0) FROM pictures").fetchone()[0]
            return int(decks), int(size)

        return await self._run(work)

    async def close(self) -> None:
        await self._run(lambda db: db.close())
