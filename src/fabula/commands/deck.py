"""`fabula deck import | list | sheet`: the decks, from the command line.

The work is in `fabula.cards.importer` and `fabula.cards.library`; this module only chooses the
data folder, finds the built-in deck and turns results into lines.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from fabula.cards.importer import ImportFailed, import_deck
from fabula.cards.library import DeckError, DeckLibrary
from fabula.cards.model import Deck

#: The data folder when neither ``--data`` nor ``FABULA_DATA`` names one.
DEFAULT_DATA = "data"


@dataclass(frozen=True, slots=True)
class Printed:
    """What a command says: its exit ``status``, the lines for stdout and those for stderr."""

    status: int
    out: tuple[str, ...] = ()
    err: tuple[str, ...] = ()

    def emit(self) -> int:
        """Print the lines; return the status."""
        for line in self.out:
            print(line)
        for line in self.err:
            print(line, file=sys.stderr)
        return self.status


def data_folder(given: str | None) -> Path:
    """``--data`` if given, else ``$FABULA_DATA``, else ``./data``."""
    return Path(given or os.environ.get("FABULA_DATA") or DEFAULT_DATA)


def builtin_decks() -> tuple[Deck, ...]:
    """The decks that ship with Fabula: the generated original deck."""
    # Imported here, not at the top: generating the deck is work only some commands need.
    from fabula.cards.original import original_deck

    return (original_deck(),)


def run_sheet(out: str, deck_name: str, data: str | None, columns: int, width: int) -> Printed:
    """`fabula deck sheet`: every card of a deck on one PNG (ids printed under the cards)."""
    from PIL import Image
    from tqdm import tqdm

    from fabula.cards.original import card_svg
    from fabula.cards.render import contact_sheet, image

    library = DeckLibrary(data_folder(data), builtin_decks())
    try:
        deck = library.deck(deck_name)
    except DeckError as error:
        return Printed(2, (), (f"error: {error.message}",))
    pictures = []
    for card in tqdm(deck.cards, unit="card", disable=None, leave=False):
        if deck.builtin:
            picture = image(card_svg(card.id), width)
        else:
            with Image.open(library.image_path(card.id)) as stored:
                picture = stored.convert("RGB")
        pictures.append((card.id, picture))
    try:
        contact_sheet(pictures, columns=columns, width=width).save(out, "PNG")
    except (OSError, ValueError) as error:
        return Printed(2, (), (f"error: cannot write {out}: {error}",))
    return Printed(0, (f'wrote {len(pictures)} cards of deck "{deck.name}" to {out}',))


def run_import(source: str, name: str, captions: str | None, data: str | None) -> Printed:
    """`fabula deck import`: one line per skipped file, warnings, then the summary."""
    try:
        report = import_deck(
            Path(source), name, data_folder(data), captions=Path(captions) if captions is not None else None
        )
    except ImportFailed as failed:
        return Printed(2, failed.skipped, (f"error: {failed.message}",))
    count = len(report.deck.cards)
    return Printed(
        0,
        (
            *report.skipped,
            *(f"warning: {warning}" for warning in report.warnings),
            f'imported {count} picture{"" if count == 1 else "s"} into deck "{report.deck.name}"',
        ),
    )


def run_list(data: str | None) -> Printed:
    """`fabula deck list`: one aligned line per deck, built-in decks first.

    ``holiday  17 cards  5 of 17 described  imported  Holiday 2024``
    """
    try:
        decks = DeckLibrary(data_folder(data), builtin_decks()).decks()
    except DeckError as error:
        return Printed(2, (), (f"error: {error.message}",))
    rows = [
        (deck.name, str(len(deck.cards)), _described(deck), "built-in" if deck.builtin else "imported", deck.title)
        for deck in decks
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    return Printed(
        0,
        tuple(
            f"{name:<{widths[0]}}  {count:>{widths[1]}} {'card ' if count == '1' else 'cards'}  "
            f"{described:<{widths[2]}}  {origin:<{widths[3]}}  {title}"
            for name, count, described, origin, title in rows
        ),
    )


def _described(deck: Deck) -> str:
    """How many cards have a description: bots and screen readers need them."""
    count = sum(1 for card in deck.cards if card.description)
    if count == len(deck.cards):
        return "all described"
    if count == 0:
        return "no descriptions"
    return f"{count} of {len(deck.cards)} described"
