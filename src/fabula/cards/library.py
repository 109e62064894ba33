"""Every deck a table can play with: the built-in ones, and those imported into the data folder.

An imported deck is a folder ``<data>/decks/<name>/`` holding its pictures (``001.webp`` …) and a
``deck.json`` in the `DeckFile` format, written by `fabula.cards.importer`. Only folders named
like a deck and holding a ``deck.json`` count, so an import still under way (a hidden
``.import-…`` folder) is never seen.

>>> from fabula.cards.model import Card, Deck
>>> tiny = Deck("tiny", "Tiny", (Card("tiny-1", "One", "A dot."), Card("tiny-2", "Two", "")), builtin=True)
>>> library = DeckLibrary(Path("no-such-folder"), builtin=[tiny])
>>> [deck.name for deck in library.decks()]
['tiny']
>>> [card.id for card in library.cards(["tiny"])]
['tiny-1', 'tiny-2']
>>> library.deck("holiday")
Traceback (most recent call last):
...
fabula.cards.library.DeckError: There is no deck named "holiday"; the decks are: tiny.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import msgspec

from fabula.cards.model import Card, Deck

#: The folder under the data folder that holds imported decks, one sub-folder each.
DECKS_FOLDER = "decks"
#: The description of an imported deck, inside its folder.
DECK_FILE = "deck.json"
#: The version of `DeckFile` written today; a reader refuses any other.
DECK_FORMAT = 1
#: The deck a room's settings name to deal from the room's own pictures (its group's, uploaded
#: from the browser); which pictures those are, the server says (`DeckLibrary.cards`'s ``own``).
OWN_DECK = "pictures"
#: What a deck name (its folder, and the prefix of its card ids) may look like.
NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
#: What a picture's file name inside a deck folder may look like — never a path.
PICTURE_PATTERN = re.compile(r"[0-9]{3,}\.webp\Z")


class DeckError(Exception):
    """A deck or card that cannot be used: unknown, chosen twice, or stored damaged."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StoredCard(msgspec.Struct):
    """One card of an imported deck as ``deck.json`` stores it."""

    id: str
    #: the picture, inside the deck's folder
    file: str
    #: where the picture came from: its path inside the imported folder or archive
    source: str
    title: str
    description: str
    tags: tuple[str, ...]
    #: perceptual hash (imagehash's 64-bit pHash, hexadecimal), to find the same picture again
    phash: str


class DeckFile(msgspec.Struct):
    """``deck.json``: an imported deck and everything known about its pictures."""

    format: int
    name: str
    title: str
    cards: tuple[StoredCard, ...]

    def to_deck(self) -> Deck:
        return Deck(
            name=self.name,
            title=self.title,
            cards=tuple(Card(card.id, card.title, card.description, card.tags) for card in self.cards),
        )


class DeckLibrary:
    """The decks in ``data_dir`` plus the ``builtin`` ones. It reads the disk on every call, so a
    deck imported by another process (or from the browser) shows up at once; a built-in deck
    hides an imported one of the same name."""

    def __init__(self, data_dir: Path, builtin: Sequence[Deck] = ()) -> None:
        self.folder = Path(data_dir) / DECKS_FOLDER
        self._builtin = {deck.name: deck for deck in builtin}

    def decks(self) -> tuple[Deck, ...]:
        """The built-in decks in the order given, then the imported ones by name."""
        imported = (self._load(name).to_deck() for name in self._imported_names() if name not in self._builtin)
        return (*self._builtin.values(), *imported)

    def deck(self, name: str) -> Deck:
        """The deck called ``name``; `DeckError` if there is none."""
        if name in self._builtin:
            return self._builtin[name]
        if NAME_PATTERN.match(name) and (self.folder / name / DECK_FILE).is_file():
            return self._load(name).to_deck()
        known = ", ".join(deck.name for deck in self.decks()) or "none yet"
        raise DeckError(f'There is no deck named "{name}"; the decks are: {known}.')

    def cards(self, names: Sequence[str], own: Sequence[Card] = ()) -> tuple[Card, ...]:
        """The cards of the decks ``names``, in that order: the deck of one game. `OWN_DECK`
        among them stands for ``own``, a room's own pictures.

        Card ids are unique across decks by construction (``"{deck}-{number}"``), so combining
        decks never mixes two cards up; choosing the same deck twice would, and is refused.
        """
        if isinstance(names, str):  # a str is a Sequence[str] too: "holiday" is not h, o, l, …
            names = [names]
        if not names:
            raise DeckError("Choose at least one deck.")
        cards: list[Card] = []
        for index, name in enumerate(names):
            if name in names[:index]:
                raise DeckError(f'The deck "{name}" is chosen twice.')
            if name == OWN_DECK:
                if not own:
                    raise DeckError("The group's own pictures are none yet: add some, or choose another deck.")
                cards.extend(own)
            else:
                cards.extend(self.deck(name).cards)
        return tuple(cards)

    def image_path(self, card_id: str) -> Path:
        """The stored picture of an imported card; `DeckError` for a built-in or unknown card."""
        name = card_id.rpartition("-")[0]
        if name in self._builtin:
            raise DeckError(f'The card "{card_id}" belongs to a built-in deck, which has no stored pictures.')
        if NAME_PATTERN.match(name) and (self.folder / name / DECK_FILE).is_file():
            for card in self._load(name).cards:
                if card.id == card_id:
                    return self.folder / name / card.file
        raise DeckError(f'There is no imported card "{card_id}".')

    def _imported_names(self) -> list[str]:
        try:
            children = list(self.folder.iterdir())
        except FileNotFoundError:
            return []
        return sorted(
            child.name for child in children if NAME_PATTERN.match(child.name) and (child / DECK_FILE).is_file()
        )

    def _load(self, name: str) -> DeckFile:
        """The ``deck.json`` of the deck ``name``, checked: it is read from disk, so it might have
        been edited by hand or damaged, and its file names end up in paths."""
        path = self.folder / name / DECK_FILE
        try:
            stored = msgspec.json.decode(path.read_bytes(), type=DeckFile)
        except (OSError, msgspec.DecodeError) as error:
            raise DeckError(f"{path} cannot be read: {error}") from error
        if stored.format != DECK_FORMAT:
            raise DeckError(f"{path} has format {stored.format}; this Fabula reads format {DECK_FORMAT}.")
        if stored.name != name:
            raise DeckError(f'{path} names the deck "{stored.name}", but its folder is "{name}".')
        for card in stored.cards:
            if card.id.rpartition("-")[0] != name or not PICTURE_PATTERN.match(card.file):
                raise DeckError(f'{path} has a card "{card.id}" with file "{card.file}": not a card of this deck.')
        if len({card.id for card in stored.cards}) != len(stored.cards):
            raise DeckError(f"{path} holds the same card id twice.")
        return stored
