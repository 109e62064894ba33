"""Card files for browsers: fingerprinted, cacheable for ever, the same bytes every time."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from fabula.cards.files import CardFiles
from fabula.cards.importer import import_deck
from fabula.cards.library import DeckError, DeckLibrary
from fabula.cards.original import original_deck
from tests.cards.test_importer import encoded, make_folder, picture


def files(tmp_path: Path) -> CardFiles:
    return CardFiles(DeckLibrary(tmp_path, (original_deck(),)))


def test_original_cards_come_as_svg_webp_and_png_with_stable_fingerprints(tmp_path: Path) -> None:
    shelf = files(tmp_path)
    svg = shelf.get("fabula-05", "svg")
    assert svg.media_type == "image/svg+xml"
    assert svg.data.startswith(b"<svg")
    small = shelf.get("fabula-05", "webp", 200)
    assert small.media_type == "image/webp"
    assert Image.open(io.BytesIO(small.data)).size == (200, 300)
    assert Image.open(io.BytesIO(shelf.get("fabula-05", "png", 600).data)).size == (600, 900)
    again = files(tmp_path).get("fabula-05", "webp", 200)
    assert again.data == small.data
    assert again.fingerprint == small.fingerprint
    assert len({shelf.get(f"fabula-0{n}", "svg").fingerprint for n in range(1, 10)}) == 9


def test_imported_cards_are_their_stored_webp(tmp_path: Path) -> None:
    source = make_folder(tmp_path / "src", {"a.png": encoded(picture(1, size=(60, 90)), "PNG")})
    deck = import_deck(source, "Attic", tmp_path).deck
    found = files(tmp_path).get(deck.cards[0].id, "webp")
    assert found.data == (tmp_path / "decks" / "attic" / "001.webp").read_bytes()
    with pytest.raises(DeckError, match="WebP only"):
        files(tmp_path).get(deck.cards[0].id, "svg")


@pytest.mark.parametrize(("card_id", "width"), [("fabula-99", 400), ("nobody-001", 400), ("fabula-01", 333)])
def test_unknown_cards_and_odd_widths_are_refused(tmp_path: Path, card_id: str, width: int) -> None:
    with pytest.raises(DeckError):
        files(tmp_path).get(card_id, "webp", width)
