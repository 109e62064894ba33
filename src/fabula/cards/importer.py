"""A custom deck from a host's own pictures: a folder or a .zip in, a deck in the data folder out.

Every picture is decoded in full, turned upright, flattened to RGB, cover-cropped to the card's
2:3 frame at `PICTURE_SIZE` and re-encoded as WebP with no metadata at all, so nothing of the
original file — EXIF, a GPS position, a colour profile, a payload hidden after the image — reaches
the players. A file that cannot be used is skipped with one line saying why. The import fails with
`ImportFailed`, leaving nothing behind, when the name, the source or the captions are unusable or
when no picture is left; the deck appears in ``<data>/decks/<name>/`` all at once or not at all.

>>> deck_slug("Summer 2024 — Crète!")
'summer-2024-crete'
"""

from __future__ import annotations

import re
import secrets
import shutil
import unicodedata
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import msgspec
from PIL import Image

from fabula.cards import pictures
from fabula.cards.captions import entry_captions, read_captions
from fabula.cards.intake import (
    Entry,
    ImportFailed,
    ImportLimits,
    Skip,
    base_name,
    captions_entry,
    shown,
    source_files,
    too_large,
)
from fabula.cards.library import DECK_FILE, DECK_FORMAT, DECKS_FOLDER, NAME_PATTERN, DeckFile, StoredCard
from fabula.cards.likeness import DUPLICATE_DISTANCE, Likeness
from fabula.cards.model import Deck
from fabula.cards.pictures import BACKGROUND, FORMATS, PICTURE_SIZE, WEBP_QUALITY
from fabula.text import collapse_spaces, has_controls

__all__ = [
    "BACKGROUND",
    "DUPLICATE_DISTANCE",
    "FORMATS",
    "NAME_MAX",
    "PICTURE_SIZE",
    "RESERVED_NAMES",
    "TITLE_MAX",
    "WEBP_QUALITY",
    "ImportFailed",
    "ImportLimits",
    "ImportReport",
    "deck_slug",
    "import_deck",
]

#: Built-in deck names an imported deck may not take.
RESERVED_NAMES = frozenset({"fabula"})
#: The longest deck name (folder name and card-id prefix) and the longest deck title.
NAME_MAX, TITLE_MAX = 40, 80

_DEFAULT_LIMITS = ImportLimits()
# Looked up here when a deck is imported, so that a test can make the encoding fail halfway.
_card_picture = pictures.card_picture
_webp = pictures.webp


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import made: the ``deck``, stored in ``folder``; one line per skipped file
    (``skipped notes.jpg: not an image``); and ``warnings`` such as captions that matched no
    imported picture."""

    deck: Deck
    folder: Path
    skipped: tuple[str, ...]
    warnings: tuple[str, ...]


def deck_slug(name: str) -> str:
    """The folder name and card-id prefix for a deck called ``name``: lowercase ASCII letters and
    digits in runs joined by hyphens (empty when ``name`` has none)."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return "-".join(re.findall(r"[a-z0-9]+", plain.lower()))


def import_deck(
    source: Path,
    name: str,
    data_dir: Path,
    *,
    captions: Path | None = None,
    limits: ImportLimits = _DEFAULT_LIMITS,
) -> ImportReport:
    """Import the pictures of ``source`` (a folder, walked in sorted order, or a .zip read in
    memory) as the deck ``name`` under ``data_dir``, with descriptions from ``captions`` (a CSV
    ``file,description`` or a JSON object, keyed by the pictures' base names) — or, when none is
    given, from the source's own ``captions.csv`` (`fabula.cards.intake.captions_entry`), as in
    the zip of a room's pictures.

    Raises `ImportFailed` — having changed nothing — when the import cannot be done.
    """
    slug, title = _names(name)
    decks = Path(data_dir) / DECKS_FOLDER
    target = decks / slug
    if target.exists() or target.is_symlink():
        raise ImportFailed(f'A deck named "{slug}" exists already; choose another name.')
    described = read_captions(captions, limits) if captions is not None else {}
    skipped: list[str] = []
    with source_files(Path(source), limits) as listed:
        entries = listed
        own = captions_entry(listed)
        if own is not None:  # the source's own captions.csv: read unless others were given
            entries = [entry for entry in listed if entry is not own]
            if captions is None:
                described = entry_captions(own, limits)
            else:
                skipped.append(_skip_line(own.name, "not read: the captions file given is used instead"))
        created = _make_folders(decks)
        building = decks / f".import-{secrets.token_hex(8)}"
        finished = False
        try:
            building.mkdir()
            stored = _import_pictures(
                entries, slug=slug, title=title, folder=building, described=described, limits=limits, skipped=skipped
            )
            if not stored.cards:
                raise ImportFailed(f"No picture could be imported from {shown(str(source))}.", skipped)
            (building / DECK_FILE).write_bytes(msgspec.json.format(msgspec.json.encode(stored)) + b"\n")
            if target.exists() or target.is_symlink():  # imported meanwhile, by another process
                raise ImportFailed(f'A deck named "{slug}" exists already; choose another name.', skipped)
            building.rename(target)
            finished = True
        except ImportFailed:
            raise
        except Exception as error:
            raise ImportFailed(f"The import stopped and was undone: {error}", skipped) from error
        finally:
            if not finished:
                shutil.rmtree(building, ignore_errors=True)
                for folder in reversed(created):
                    _remove_if_empty(folder)
    used = {base_name(card.source) for card in stored.cards}
    notes = tuple(f'The caption for "{file}" matched no imported picture.' for file in described if file not in used)
    return ImportReport(stored.to_deck(), target, tuple(skipped), notes)


# ---------------------------------------------------------------- names


def _names(name: str) -> tuple[str, str]:
    """(slug, title) for the deck called ``name``, or `ImportFailed`."""
    slug = deck_slug(name)
    title = collapse_spaces(name)
    if not slug:
        raise ImportFailed(f"The deck name {title!r} has no letter a–z or digit to name its folder by.")
    if len(slug) > NAME_MAX or len(title) > TITLE_MAX:
        raise ImportFailed(f"The deck name {title!r} is too long (at most {TITLE_MAX} characters).")
    if has_controls(title):
        raise ImportFailed(f"The deck name {title!r} holds control characters.")
    if slug in RESERVED_NAMES:
        raise ImportFailed(f'The name "{slug}" belongs to the built-in deck; choose another name.')
    assert NAME_PATTERN.match(slug), slug  # deck_slug only makes names the library reads
    return slug, title


def _skip_line(name: str, reason: str) -> str:
    return f"skipped {shown(name)}: {reason}"


# ---------------------------------------------------------------- the cards


def _import_pictures(
    entries: list[Entry],
    *,
    slug: str,
    title: str,
    folder: Path,
    described: dict[str, str],
    limits: ImportLimits,
    skipped: list[str],
) -> DeckFile:
    """Decode, check and store each usable picture in ``folder``; append a line to ``skipped``
    for each of the others."""
    cards: list[StoredCard] = []
    seen: list[Seen] = []  # every picture kept
    for entry in entries:
        try:
            picture, likeness = finished_picture(entry, limits, seen)
        except Skip as skip:
            skipped.append(_skip_line(entry.name, skip.reason))
            continue
        seen.append(Seen(likeness, entry.name))
        number = len(cards) + 1
        file = f"{number:03d}.webp"
        (folder / file).write_bytes(_webp(picture))
        cards.append(
            StoredCard(
                id=f"{slug}-{number:03d}",
                file=file,
                source=entry.name,
                title=f"{title} {number}",
                description=described.get(base_name(entry.name), ""),
                tags=(),
                phash=likeness.phash_hex,
            )
        )
    return DeckFile(format=DECK_FORMAT, name=slug, title=title, cards=tuple(cards))


@dataclass(frozen=True, slots=True)
class Seen:
    """A picture a new one may not copy: its likeness, its name as a refusal says it, and where it
    is — its card id in a room's deck (``card``), or its place among an upload's results
    (``result``) while it is not stored yet."""

    likeness: Likeness
    name: str
    card: str = ""
    result: int | None = None


class SameAs(Skip):
    """A picture skipped as the same picture as ``twin`` (`fabula.cards.likeness`)."""

    def __init__(self, twin: Seen) -> None:
        super().__init__(f"same picture as {shown(twin.name)}", "duplicate")
        self.twin = twin


#: What a refusal calls a picture already in a room's deck.
IN_THE_DECK = "a picture already in the deck"


def already_seen(pictures: Iterable[tuple[str, str]]) -> list[Seen]:
    """The ``seen`` of `finished_picture` for a deck's pictures, each ``(likeness as stored, card
    id)``."""
    return [Seen(Likeness.parse(likeness), IN_THE_DECK, card) for likeness, card in pictures]


def twin_of(likeness: Likeness, seen: Iterable[Seen]) -> Seen | None:
    """The picture in ``seen`` that ``likeness`` is a copy of, if one is."""
    return next((known for known in seen if likeness.same_as(known.likeness)), None)


def copies(pictures: Sequence[tuple[str, str]], known: Sequence[tuple[str, str]]) -> list[tuple[str, str] | None]:
    """For each of ``pictures`` (``(likeness as stored, name)``), in order, the picture it is a
    copy of — one of ``known`` (a deck's, as `already_seen` reads them) or one of ``pictures``
    before it that is no copy — as ``(name as a refusal says it, card id or "")``; None for the
    others. (Comparing hundreds of likenesses with hundreds takes a while: a picture worker's job.)"""
    seen = already_seen(known)
    found: list[tuple[str, str] | None] = []
    for text, name in pictures:
        likeness = Likeness.parse(text)
        twin = twin_of(likeness, seen)
        if twin is None:
            seen.append(Seen(likeness, name))
        found.append(None if twin is None else (twin.name, twin.card))
    return found


def finished_picture(entry: Entry, limits: ImportLimits, seen: Sequence[Seen]) -> tuple[Image.Image, Likeness]:
    """``entry`` read, checked and made a card's picture, with its likeness; `Skip` saying why not
    (unreadable, too large, not a picture) — `SameAs` when it is the same picture as one in
    ``seen`` (the caller adds those it keeps). Every picture from a folder, a zip or a browser's
    upload comes through here."""
    if entry.read is None:
        raise Skip(entry.reason, entry.code or "unreadable")
    data = entry.read()
    if len(data) > limits.max_bytes:
        raise Skip(too_large(len(data), limits), "too_large")
    picture = _card_picture(data, limits)
    likeness = Likeness.of(picture)
    twin = twin_of(likeness, seen)
    if twin is not None:
        raise SameAs(twin)
    return picture, likeness


# ---------------------------------------------------------------- folders


def _make_folders(folder: Path) -> list[Path]:
    """Make ``folder`` and any missing parent; return those made, outermost first."""
    missing = [folder, *folder.parents]
    missing = [path for path in missing if not path.exists()]
    missing.reverse()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ImportFailed(f"Cannot create {shown(str(folder))}: {error.strerror}.") from error
    return missing


def _remove_if_empty(folder: Path) -> None:
    with suppress(OSError):  # not empty — another deck or import is there — or already gone
        folder.rmdir()
