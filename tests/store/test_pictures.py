"""The picture-store contract, run against every backend: SQLite and PostgreSQL (see conftest.py).

"Two processes" are two stores on the same database, each with its own connections.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from fabula.store.pictures import (
    SCHEMA_VERSION,
    DeckFull,
    NewPicture,
    NoDeck,
    PictureStore,
    SqlitePictures,
    deck_of_card,
    is_room_deck,
)

from .conftest import PictureBackend

pytestmark = pytest.mark.anyio


def picture(name: str, webp: bytes = b"RIFF....WEBP", caption: str = "") -> NewPicture:
    return NewPicture(name, webp, phash="0f" * 8, caption=caption)


def batch(*names: str) -> list[NewPicture]:
    return [picture(name, name.encode()) for name in names]


async def numbers(store: PictureStore, deck: str) -> list[int]:
    return [p.number for p in await store.pictures(deck)]


async def test_a_room_s_deck_is_made_once_and_is_its_own(pictures: PictureStore) -> None:
    assert await pictures.room_deck("AAAAA") is None
    deck = await pictures.deck_of("AAAAA", at=1.0)
    assert is_room_deck(deck)
    assert await pictures.deck_of("AAAAA", at=2.0) == deck
    assert await pictures.room_deck("AAAAA") == deck
    other = await pictures.deck_of("BBBBB", at=3.0)
    assert other != deck
    assert await pictures.room_deck("BBBBB") == other
    assert await pictures.pictures(deck) == [], "a new deck is empty"


async def test_pictures_are_numbered_in_order_and_come_back_as_stored(pictures: PictureStore) -> None:
    deck = await pictures.deck_of("AAAAA", at=1.0)
    added = await pictures.add(deck, [picture("cat.jpg", caption="a cat"), picture("dog.png")], at=5.0, most=10)
    assert [(p.card, p.number) for p in added] == [(f"{deck}-001", 1), (f"{deck}-002", 2)]
    assert [deck_of_card(p.card) for p in added] == [deck, deck]
    more = await pictures.add(deck, [picture("owl.webp")], at=6.0, most=10)
    assert [p.number for p in more] == [3]
    listed = await pictures.pictures(deck)
    assert listed == [*added, *more], "what add returned is what the deck lists"
    first = listed[0]
    assert (first.deck, first.name, first.caption, first.phash, first.added) == (
        deck,
        "cat.jpg",
        "a cat",
        "0f" * 8,
        5.0,
    )
    assert first.size == len(b"RIFF....WEBP")
    assert await pictures.add(deck, [], at=7.0, most=10) == []


async def test_a_removed_picture_s_number_is_never_given_again(pictures: PictureStore) -> None:
    """A card id is a picture's URL, cached by browsers: a new picture must not answer to it."""
    deck = await pictures.deck_of("AAAAA", at=1.0)
    first = await pictures.add(deck, batch("a", "b", "c"), at=1.0, most=10)
    assert await pictures.remove(deck, first[2].card), "the last one"
    assert await pictures.remove(deck, first[0].card)
    again = await pictures.add(deck, batch("d", "e"), at=2.0, most=10)
    assert [p.number for p in again] == [4, 5]
    assert await numbers(pictures, deck) == [2, 4, 5]
    assert await pictures.image(first[2].card) is None
    for card in [p.card for p in await pictures.pictures(deck)]:
        assert await pictures.remove(deck, card)
    assert [p.number for p in await pictures.add(deck, batch("f"), at=3.0, most=10)] == [6], "not even when empty"


async def test_a_full_deck_refuses_the_whole_batch(pictures: PictureStore) -> None:
    deck = await pictures.deck_of("AAAAA", at=1.0)
    await pictures.add(deck, batch("a", "b", "c"), at=1.0, most=5)
    with pytest.raises(DeckFull) as refused:
        await pictures.add(deck, batch("d", "e", "f"), at=2.0, most=5)
    assert (refused.value.has, refused.value.most) == (3, 5)
    assert await numbers(pictures, deck) == [1, 2, 3], "nothing of the batch was added"
    assert [p.number for p in await pictures.add(deck, batch("d", "e"), at=3.0, most=5)] == [4, 5], (
        "and it gave no numbers away"
    )
    with pytest.raises(DeckFull):
        await pictures.add(deck, batch("g"), at=4.0, most=5)


async def test_adding_to_a_deck_that_is_gone_is_refused(pictures: PictureStore) -> None:
    deck = await pictures.deck_of("AAAAA", at=1.0)
    await pictures.delete_room("AAAAA")
    with pytest.raises(NoDeck):
        await pictures.add(deck, batch("a"), at=2.0, most=5)
    with pytest.raises(NoDeck):
        await pictures.add("u" + "a" * 26, batch("a"), at=2.0, most=5)
    assert await pictures.usage() == (0, 0)


async def test_image_bytes_round_trip_exactly(pictures: PictureStore) -> None:
    deck = await pictures.deck_of("AAAAA", at=1.0)
    odd = bytes(range(256)) * 1200  # NULs, high bytes, 300 kB: a real picture's size
    added = await pictures.add(deck, [picture("big", odd), picture("tiny", b"\x00")], at=1.0, most=5)
    assert await pictures.image(added[0].card) == odd
    assert await pictures.image(added[1].card) == b"\x00"
    assert [p.size for p in await pictures.pictures(deck)] == [len(odd), 1]
    assert await pictures.image(f"{deck}-999") is None
    assert await pictures.image("original-001") is None


async def test_captions_and_removals_touch_only_the_deck_s_own_cards(pictures: PictureStore) -> None:
    mine = await pictures.deck_of("AAAAA", at=1.0)
    theirs = await pictures.deck_of("BBBBB", at=1.0)
    [card] = [p.card for p in await pictures.add(theirs, batch("theirs"), at=1.0, most=5)]
    assert not await pictures.set_caption(mine, card, "mine now")
    assert not await pictures.remove(mine, card)
    assert not await pictures.set_caption(mine, f"{mine}-001", "no such card")
    assert not await pictures.remove(mine, f"{mine}-001")
    [kept] = await pictures.pictures(theirs)
    assert (kept.card, kept.caption) == (card, "")
    assert await pictures.set_caption(theirs, card, "a lighthouse")
    assert [p.caption for p in await pictures.pictures(theirs)] == ["a lighthouse"]
    assert await pictures.remove(theirs, card)
    assert not await pictures.remove(theirs, card), "removed once"


async def test_deleting_a_room_forgets_its_deck_and_pictures(pictures: PictureStore) -> None:
    deck = await pictures.deck_of("AAAAA", at=1.0)
    other = await pictures.deck_of("BBBBB", at=1.0)
    [gone] = await pictures.add(deck, batch("a"), at=1.0, most=5)
    await pictures.add(other, batch("b"), at=1.0, most=5)
    await pictures.delete_room("AAAAA")
    assert await pictures.room_deck("AAAAA") is None
    assert await pictures.pictures(deck) == []
    assert await pictures.image(gone.card) is None
    assert [p.name for p in await pictures.pictures(other)] == ["b"], "the other room keeps its own"
    await pictures.delete_room("AAAAA")  # twice is harmless
    assert await pictures.deck_of("AAAAA", at=2.0) != deck, "a room made again gets a new deck"


async def test_usage_counts_decks_and_picture_bytes(pictures: PictureStore) -> None:
    assert await pictures.usage() == (0, 0)
    deck = await pictures.deck_of("AAAAA", at=1.0)
    assert await pictures.usage() == (1, 0), "an empty deck counts"
    added = await pictures.add(deck, [picture("a", b"x" * 100), picture("b", b"y" * 50)], at=1.0, most=5)
    other = await pictures.deck_of("BBBBB", at=1.0)
    await pictures.add(other, [picture("c", b"z" * 7)], at=1.0, most=5)
    assert await pictures.usage() == (2, 157)
    await pictures.remove(deck, added[0].card)
    assert await pictures.usage() == (2, 57)
    await pictures.delete_room("BBBBB")
    assert await pictures.usage() == (1, 50)


# ---------------------------------------------------------------------- links and copies


async def test_a_deck_s_link_is_made_once_and_names_it(pictures: PictureStore) -> None:
    deck = await pictures.deck_of("AAAAA", at=1.0)
    other = await pictures.deck_of("BBBBB", at=1.0)
    link = await pictures.link(deck)
    assert link is not None
    assert len(link) >= 32, "192 random bits, URL-safe"
    assert await pictures.link(deck) == link, "the same link every time"
    assert await pictures.linked(link) == deck
    assert await pictures.link(other) not in (None, link)
    assert await pictures.linked("no-such-link") is None
    assert await pictures.link("u" + "a" * 26) is None, "no such deck"
    assert await pictures.unlink(deck)
    assert not await pictures.unlink(deck), "revoked once"
    assert await pictures.linked(link) is None, "a revoked link names nothing"
    assert await pictures.link(deck) not in (None, link), "a new link after a revoked one"


async def test_cards_are_copied_with_their_bytes_and_captions_numbered_on(pictures: PictureStore) -> None:
    source = await pictures.deck_of("AAAAA", at=1.0)
    deck = await pictures.deck_of("BBBBB", at=1.0)
    theirs = await pictures.add(source, [picture("a", b"A" * 10, "a kite"), picture("b", b"B" * 5)], at=1.0, most=9)
    [mine] = await pictures.add(deck, [picture("mine", b"M")], at=1.0, most=9)
    gone = f"{source}-009"
    copied = await pictures.copy(source, [theirs[1].card, gone, theirs[0].card], deck, at=4.0, most=9)
    assert copied[1] is None, "a card the source does not hold"
    first, second = copied[0], copied[2]
    assert first is not None
    assert second is not None
    assert [(first.card, first.name, first.caption, first.size), (second.card, second.name, second.caption)] == [
        (f"{deck}-002", "b", "", 5),
        (f"{deck}-003", "a", "a kite"),
    ]
    assert (first.deck, first.phash, first.added) == (deck, "0f" * 8, 4.0)
    assert await pictures.pictures(deck) == [mine, first, second]
    assert await pictures.image(second.card) == b"A" * 10
    assert await pictures.pictures(source) == theirs, "the source is as it was"
    assert [p.number for p in await pictures.add(deck, batch("c"), at=5.0, most=9)] == [4]


async def test_a_copy_past_the_limit_or_into_no_deck_is_refused_whole(pictures: PictureStore) -> None:
    source = await pictures.deck_of("AAAAA", at=1.0)
    deck = await pictures.deck_of("BBBBB", at=1.0)
    cards = [p.card for p in await pictures.add(source, batch("a", "b", "c"), at=1.0, most=9)]
    await pictures.add(deck, batch("x"), at=1.0, most=9)
    with pytest.raises(DeckFull):
        await pictures.copy(source, cards, deck, at=2.0, most=3)
    assert await numbers(pictures, deck) == [1]
    with pytest.raises(NoDeck):
        await pictures.copy(source, cards, "u" + "a" * 26, at=2.0, most=9)
    assert await pictures.copy(source, [], deck, at=2.0, most=1) == []


async def test_a_linked_deck_outlives_its_room_until_it_expires(pictures: PictureStore) -> None:
    kept = await pictures.deck_of("AAAAA", at=1.0)
    plain = await pictures.deck_of("BBBBB", at=1.0)
    [card] = [p.card for p in await pictures.add(kept, batch("a"), at=1.0, most=5)]
    await pictures.add(plain, batch("b"), at=1.0, most=5)
    link = await pictures.link(kept)
    assert link is not None
    await pictures.delete_room("AAAAA", keep_linked_until=100.0)
    await pictures.delete_room("BBBBB", keep_linked_until=100.0)
    assert await pictures.room_deck("AAAAA") is None, "detached from its room"
    assert await pictures.room_deck("BBBBB") is None
    assert await pictures.linked(link) == kept
    assert [p.card for p in await pictures.pictures(kept)] == [card]
    assert await pictures.pictures(plain) == [], "a deck without a link goes with its room"
    again = await pictures.deck_of("AAAAA", at=2.0)
    assert again != kept, "a room made again under the code gets a deck of its own"
    assert await pictures.usage() == (2, 1), "the kept deck still counts"
    assert await pictures.expire(99.0) == 0
    assert await pictures.expire(100.0) == 1
    assert await pictures.linked(link) is None
    assert await pictures.image(card) is None
    assert await pictures.room_deck("AAAAA") == again, "the new room's deck is not touched"
    await pictures.link(again)
    await pictures.delete_room("AAAAA")
    assert await pictures.usage() == (0, 0), "without a time to keep it, even a linked deck goes"


# ---------------------------------------------------------------------- several processes


async def test_two_processes_making_a_deck_s_link_at_once_make_one(picture_backend: PictureBackend) -> None:
    stores = [await picture_backend.open(), await picture_backend.open()]
    for round_ in range(5):
        deck = await stores[0].deck_of(f"R{round_:04d}", at=1.0)
        links = await asyncio.gather(*(stores[n % 2].link(deck) for n in range(6)))
        assert len(set(links)) == 1, links
        assert await stores[1].linked(str(links[0])) == deck


async def test_a_picture_added_through_one_process_is_seen_by_another(picture_backend: PictureBackend) -> None:
    first, second = await picture_backend.open(), await picture_backend.open()
    deck = await first.deck_of("AAAAA", at=1.0)
    [added] = await first.add(deck, [picture("cat", b"meow" * 1000)], at=1.0, most=5)
    assert await second.room_deck("AAAAA") == deck
    assert await second.pictures(deck) == [added]
    assert await second.image(added.card) == b"meow" * 1000
    assert await second.set_caption(deck, added.card, "a cat")
    assert [p.caption for p in await first.pictures(deck)] == ["a cat"]


async def test_two_first_uploads_of_one_room_at_once_make_one_deck(picture_backend: PictureBackend) -> None:
    stores = [await picture_backend.open(), await picture_backend.open()]
    for round_ in range(10):
        room = f"R{round_:04d}"
        decks = await asyncio.gather(*(stores[n % 2].deck_of(room, at=1.0) for n in range(6)))
        assert len(set(decks)) == 1, decks
        assert await stores[1].room_deck(room) == decks[0]
    assert (await stores[0].usage())[0] == 10


async def test_concurrent_adds_never_pass_the_limit_nor_share_a_number(picture_backend: PictureBackend) -> None:
    stores = [await picture_backend.open(), await picture_backend.open()]
    deck = await stores[0].deck_of("AAAAA", at=1.0)

    async def upload(n: int) -> int:
        try:
            added = await stores[n % 2].add(deck, batch(f"{n}a", f"{n}b", f"{n}c"), at=float(n), most=20)
        except DeckFull:
            return 0
        return len(added)

    taken = await asyncio.gather(*(upload(n) for n in range(12)))
    assert sorted(taken) == [0] * 6 + [3] * 6, "six batches of three fit in twenty, the rest are refused whole"
    listed = await stores[1].pictures(deck)
    assert [p.number for p in listed] == list(range(1, 19)), "no number twice, none skipped"
    assert len({p.card for p in listed}) == 18
    by_batch: dict[str, list[int]] = {}
    for p in listed:
        by_batch.setdefault(p.name[:-1], []).append(p.number)
    for got in by_batch.values():  # each batch in one piece: one transaction
        assert got == list(range(got[0], got[0] + 3))


# ---------------------------------------------------------------------- SQLite only


async def test_a_picture_file_of_the_first_schema_goes_on_from_its_last_picture(tmp_path: Path) -> None:
    path = tmp_path / "pictures.sqlite3"
    deck = "u" + "b" * 26
    with sqlite3.connect(path) as db:  # what the first picture store wrote: no last_number
        db.execute("CREATE TABLE decks (deck TEXT PRIMARY KEY, room TEXT UNIQUE, created REAL NOT NULL)")
        db.execute(
            "CREATE TABLE pictures ("
            " card TEXT PRIMARY KEY, deck TEXT NOT NULL REFERENCES decks(deck) ON DELETE CASCADE,"
            " number INTEGER NOT NULL, name TEXT NOT NULL, caption TEXT NOT NULL, phash TEXT NOT NULL,"
            " added REAL NOT NULL, webp BLOB NOT NULL, UNIQUE (deck, number))"
        )
        db.execute("INSERT INTO decks VALUES (?, 'AAAAA', 1.0)", (deck,))
        for number in (1, 4):
            db.execute(
                "INSERT INTO pictures VALUES (?, ?, ?, 'old', '', '00', 1.0, x'01')",
                (f"{deck}-00{number}", deck, number),
            )
    store = SqlitePictures(path)
    assert await store.room_deck("AAAAA") == deck
    assert [p.number for p in await store.add(deck, batch("new"), at=2.0, most=10)] == [5]
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    await store.close()
    reopened = SqlitePictures(path)
    assert await numbers(reopened, deck) == [1, 4, 5]
    await reopened.close()


async def test_a_picture_file_of_the_second_schema_gains_deck_links(tmp_path: Path) -> None:
    path = tmp_path / "pictures.sqlite3"
    deck = "u" + "c" * 26
    with sqlite3.connect(path) as db:  # what schema 1 wrote: no link, no kept_until
        db.execute(
            "CREATE TABLE decks (deck TEXT PRIMARY KEY, room TEXT UNIQUE, created REAL NOT NULL,"
            " last_number INTEGER NOT NULL DEFAULT 0)"
        )
        db.execute("INSERT INTO decks VALUES (?, 'AAAAA', 1.0, 3)", (deck,))
        db.execute("PRAGMA user_version=1")
    store = SqlitePictures(path)
    link = await store.link(deck)
    assert link is not None
    assert await store.linked(link) == deck
    assert [p.number for p in await store.add(deck, batch("new"), at=2.0, most=10)] == [4]
    await store.close()
    reopened = SqlitePictures(path)
    assert await reopened.linked(link) == deck
    assert reopened._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    await reopened.close()


def test_a_picture_file_from_a_newer_fabula_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pictures.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(RuntimeError, match="newer Fabula"):
        SqlitePictures(path)
