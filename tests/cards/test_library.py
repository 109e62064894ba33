"""The deck library: built-in decks first, imported ones read from the data folder, combined into
the card list of one game — and a damaged or hand-edited ``deck.json`` refused, not trusted."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from fabula.cards.importer import import_deck
from fabula.cards.library import DECK_FORMAT, DeckError, DeckFile, DeckLibrary, StoredCard
from fabula.cards.model import Card, Deck
from fabula.rules import Game
from tests.cards.test_importer import encoded, make_folder, picture

BUILTIN = Deck(
    "fabula", "Fabula", tuple(Card(f"fabula-{n:02d}", f"Card {n}", "A picture.") for n in range(1, 81)), True
)


def write_deck(data: Path, folder_name: str, count: int, **changes: object) -> Path:
    """A deck folder with a hand-written ``deck.json`` (and no pictures): fast, and free to be wrong."""
    cards = tuple(
        StoredCard(f"{folder_name}-{n:03d}", f"{n:03d}.webp", f"{n}.png", f"{folder_name} {n}", "", (), "0" * 16)
        for n in range(1, count + 1)
    )
    stored = msgspec.structs.replace(DeckFile(DECK_FORMAT, folder_name, folder_name.title(), cards), **changes)
    folder = data / "decks" / folder_name
    folder.mkdir(parents=True)
    (folder / "deck.json").write_bytes(msgspec.json.encode(stored))
    return folder


def test_builtin_decks_come_first_then_imported_by_name(tmp_path: Path) -> None:
    write_deck(tmp_path, "zoo", 2)
    write_deck(tmp_path, "attic", 3)
    (tmp_path / "decks" / ".import-0123abcd").mkdir()  # an import under way
    (tmp_path / "decks" / "empty").mkdir()  # no deck.json: not a deck
    (tmp_path / "decks" / "notes.txt").write_text("hello")
    library = DeckLibrary(tmp_path, builtin=[BUILTIN])
    assert [(deck.name, len(deck.cards), deck.builtin) for deck in library.decks()] == [
        ("fabula", 80, True),
        ("attic", 3, False),
        ("zoo", 2, False),
    ]


def test_no_data_folder_means_only_builtin_decks(tmp_path: Path) -> None:
    assert DeckLibrary(tmp_path / "nowhere").decks() == ()
    assert DeckLibrary(tmp_path / "nowhere", [BUILTIN]).decks() == (BUILTIN,)


def test_a_builtin_deck_hides_an_imported_one_of_the_same_name(tmp_path: Path) -> None:
    write_deck(tmp_path, "fabula", 2)
    library = DeckLibrary(tmp_path, builtin=[BUILTIN])
    assert library.decks() == (BUILTIN,)
    assert library.deck("fabula") is BUILTIN


def test_decks_combine_into_one_game(tmp_path: Path) -> None:
    write_deck(tmp_path, "attic", 3)
    write_deck(tmp_path, "zoo", 2)
    library = DeckLibrary(tmp_path, builtin=[BUILTIN])
    cards = library.cards(["zoo", "fabula", "attic"])
    assert [card.id for card in cards[:3]] == ["zoo-001", "zoo-002", "fabula-01"]
    assert [card.id for card in cards[-3:]] == ["attic-001", "attic-002", "attic-003"]
    assert len(cards) == 85
    assert len({card.id for card in cards}) == 85
    game = Game.new("odyssey", 6, deck=[card.id for card in cards])
    assert len(game.deck) == 85


@pytest.mark.parametrize(
    ("names", "error"),
    [
        (["attic", "attic"], 'The deck "attic" is chosen twice.'),
        (["attic", "garden"], 'There is no deck named "garden"; the decks are: fabula, attic.'),
        (["../attic"], 'There is no deck named "../attic"'),
        ([], "Choose at least one deck."),
    ],
)
def test_unknown_or_repeated_decks_are_refused(tmp_path: Path, names: list[str], error: str) -> None:
    write_deck(tmp_path, "attic", 3)
    with pytest.raises(DeckError) as refused:
        DeckLibrary(tmp_path, builtin=[BUILTIN]).cards(names)
    assert refused.value.message.startswith(error)


def test_a_single_name_is_one_deck_not_letters(tmp_path: Path) -> None:
    write_deck(tmp_path, "attic", 3)
    assert len(DeckLibrary(tmp_path).cards("attic")) == 3


def test_image_path_of_an_imported_card(tmp_path: Path) -> None:
    files: dict[str, bytes | None] = {"a.png": encoded(picture(1), "PNG"), "b.png": encoded(picture(2), "PNG")}
    report = import_deck(make_folder(tmp_path / "src", files), "Attic", tmp_path / "data")
    library = DeckLibrary(tmp_path / "data", builtin=[BUILTIN])
    path = library.image_path("attic-002")
    assert path == tmp_path / "data" / "decks" / "attic" / "002.webp"
    assert path.is_file()
    assert library.deck("attic") == report.deck
    with pytest.raises(DeckError, match="built-in deck"):
        library.image_path("fabula-01")
    for unknown in ("attic-003", "attic", "garden-001", "../../etc/passwd", ""):
        with pytest.raises(DeckError, match="no imported card"):
            library.image_path(unknown)


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"format": 2}, "has format 2"),
        ({"name": "cellar"}, 'names the deck "cellar"'),
        ({"cards": (StoredCard("attic-001", "../../secret.webp", "a.png", "A", "", (), "0" * 16),)}, "not a card"),
        ({"cards": (StoredCard("zoo-001", "001.webp", "a.png", "A", "", (), "0" * 16),)}, "not a card"),
        ({"cards": (StoredCard("attic-001", "001.webp", "a", "A", "", (), "0"),) * 2}, "same card id twice"),
    ],
)
def test_a_hand_edited_deck_file_is_refused(tmp_path: Path, changes: dict[str, object], error: str) -> None:
    write_deck(tmp_path, "attic", 2, **changes)
    with pytest.raises(DeckError, match=error):
        DeckLibrary(tmp_path).deck("attic")


def test_a_damaged_deck_file_is_named(tmp_path: Path) -> None:
    folder = write_deck(tmp_path, "attic", 2)
    (folder / "deck.json").write_text('{"format": 1, "name": "attic"')
    with pytest.raises(DeckError, match=r"attic/deck\.json cannot be read"):
        DeckLibrary(tmp_path).decks()
