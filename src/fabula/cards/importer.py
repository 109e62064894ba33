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

import csv
import io
import json
import os
import re
import secrets
import shutil
import unicodedata
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, fields
from pathlib import Path

import imagehash
import msgspec
from PIL import Image, ImageOps, UnidentifiedImageError

from fabula.cards.library import DECK_FILE, DECK_FORMAT, DECKS_FOLDER, NAME_PATTERN, DeckFile, StoredCard
from fabula.cards.model import CARD_HEIGHT, CARD_WIDTH, Deck

#: Imported pictures are stored at 1.5 × the model's card size, 600 × 900: sharp on a TV board that
#: shows a card 900 px high, and far smaller than the photos they come from.
PICTURE_SIZE = (CARD_WIDTH * 3 // 2, CARD_HEIGHT * 3 // 2)
#: WebP quality: 85, the usual choice for photographs shown on a screen.
WEBP_QUALITY = 85
#: What a transparent part of a picture becomes: mid grey keeps the outline of a light picture as
#: well as of a dark one.
BACKGROUND = (128, 128, 128, 255)
#: The formats read; an animated GIF or WebP gives its first frame.
FORMATS = ("PNG", "JPEG", "WEBP", "GIF")
#: Two pictures whose 64-bit pHashes (taken on the finished card) differ in at most this many bits
#: are the same picture. A copy re-saved smaller, as JPEG or as WebP differs in 0–2 bits (measured
#: on the tests' pictures); different pictures differ in about 32 (16 at the least among 60 of
#: them), and two random hashes come within 6 bits once in 2 × 10¹¹ pairs. 6 leaves room for
#: harsher copies and stays far from different pictures: a false match would drop a card.
DUPLICATE_DISTANCE = 6
#: Built-in deck names an imported deck may not take.
RESERVED_NAMES = frozenset({"fabula"})
#: The longest deck name (folder name and card-id prefix) and the longest deck title.
NAME_MAX, TITLE_MAX = 40, 80


@dataclass(frozen=True, slots=True)
class ImportLimits:
    """How much an import may read. A file over a limit is skipped; a source over one is refused
    before a single picture is read.

    - ``max_bytes`` — 32 MiB: one file as stored (in a zip: its declared uncompressed size,
      checked before reading), and the captions file. A 48-megapixel phone JPEG is 10–20 MB.
    - ``max_pixels`` — 50 million (a 48-megapixel photo fits): one picture, checked on the size
      its header declares, before decoding. One picture that size takes 150 MB of memory as RGB,
      a few hundred while it is turned upright and flattened.
    - ``max_files`` — 1,000 files in the folder or archive, a dozen Dixit decks' worth; this also
      bounds the number of report lines.
    - ``max_total_bytes`` — 1 GiB: the files to be read, together (for a zip, their declared
      uncompressed sizes, summed before any is read: a zip bomb is refused unopened), and the
      .zip file itself.
    - ``max_caption_chars`` — 500: one description, which is meant to be a sentence.
    """

    max_bytes: int = 32 * 2**20
    max_pixels: int = 50_000_000
    max_files: int = 1_000
    max_total_bytes: int = 2**30
    max_caption_chars: int = 500

    def __post_init__(self) -> None:
        for limit in fields(self):
            value = getattr(self, limit.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"ImportLimits.{limit.name} must be a positive integer; got {value!r}.")


class ImportFailed(Exception):
    """The import was refused or stopped, and nothing was left behind.

    ``skipped`` holds the report lines of the files skipped before it gave up — when no picture
    was usable, they say why.
    """

    def __init__(self, message: str, skipped: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.skipped = tuple(skipped)


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
    limits: ImportLimits = ImportLimits(),
) -> ImportReport:
    """Import the pictures of ``source`` (a folder, walked in sorted order, or a .zip read in
    memory) as the deck ``name`` under ``data_dir``, with descriptions from ``captions`` (a CSV
    ``file,description`` or a JSON object, keyed by the pictures' base names).

    Raises `ImportFailed` — having changed nothing — when the import cannot be done.
    """
    slug, title = _names(name)
    decks = Path(data_dir) / DECKS_FOLDER
    target = decks / slug
    if target.exists() or target.is_symlink():
        raise ImportFailed(f'A deck named "{slug}" exists already; choose another name.')
    described = _read_captions(captions, limits) if captions is not None else {}
    skipped: list[str] = []
    with _entries(Path(source), limits) as entries:
        created = _make_folders(decks)
        building = decks / f".import-{secrets.token_hex(8)}"
        finished = False
        try:
            building.mkdir()
            stored = _import_pictures(
                entries, slug=slug, title=title, folder=building, described=described, limits=limits, skipped=skipped
            )
            if not stored.cards:
                raise ImportFailed(f"No picture could be imported from {_shown(str(source))}.", skipped)
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
    used = {_base_name(card.source) for card in stored.cards}
    notes = tuple(f'The caption for "{file}" matched no imported picture.' for file in described if file not in used)
    return ImportReport(stored.to_deck(), target, tuple(skipped), notes)


# ---------------------------------------------------------------- names


def _names(name: str) -> tuple[str, str]:
    """(slug, title) for the deck called ``name``, or `ImportFailed`."""
    slug = deck_slug(name)
    title = " ".join(name.split())
    if not slug:
        raise ImportFailed(f"The deck name {title!r} has no letter a–z or digit to name its folder by.")
    if len(slug) > NAME_MAX or len(title) > TITLE_MAX:
        raise ImportFailed(f"The deck name {title!r} is too long (at most {TITLE_MAX} characters).")
    if _has_control(title):
        raise ImportFailed(f"The deck name {title!r} holds control characters.")
    if slug in RESERVED_NAMES:
        raise ImportFailed(f'The name "{slug}" belongs to the built-in deck; choose another name.')
    assert NAME_PATTERN.match(slug), slug  # deck_slug only makes names the library reads
    return slug, title


def _shown(name: str, longest: int = 200) -> str:
    """``name`` fit for one report line: control characters escaped, long names cut."""
    text = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in name)
    return text if len(text) <= longest else text[: longest - 1] + "…"


def _base_name(name: str) -> str:
    """The file name at the end of a path inside a source; zip files from Windows may use ``\\``."""
    return name.replace("\\", "/").rpartition("/")[2]


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in text)


def _skip_line(name: str, reason: str) -> str:
    return f"skipped {_shown(name)}: {reason}"


def _too_large(size: int, limits: ImportLimits) -> str:
    return f"too large: {size:,} bytes (limit {limits.max_bytes:,})"


# ---------------------------------------------------------------- the files of a folder or zip


class _Skip(Exception):
    """This file is passed over, for ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class _Entry:
    """One file of the source: ``name`` is its '/'-separated path inside it. ``read`` returns its
    bytes (or raises `_Skip`); it is None for a file skipped unread, for ``reason``."""

    name: str
    size: int
    read: Callable[[], bytes] | None
    reason: str = ""


@contextmanager
def _entries(source: Path, limits: ImportLimits) -> Iterator[list[_Entry]]:
    """The files of ``source`` in sorted order, checked against the limits before any is read."""
    if source.is_dir():
        try:
            entries = _folder_entries(source, limits)
        except OSError as error:
            raise ImportFailed(f"Cannot read the folder {_shown(str(source))}: {error}.") from error
        _check_total(entries, source, limits)
        yield entries
    elif source.is_file():
        size = source.stat().st_size
        if size > limits.max_total_bytes:
            raise ImportFailed(f"{_shown(str(source))} is {size:,} bytes; the limit is {limits.max_total_bytes:,}.")
        try:
            archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
            raise ImportFailed(f"{_shown(str(source))} is neither a folder nor a readable .zip file.") from error
        with archive:
            entries = _zip_entries(archive, source, limits)
            _check_total(entries, source, limits)
            yield entries
    else:
        raise ImportFailed(f"{_shown(str(source))} does not exist.")


def _check_total(entries: list[_Entry], source: Path, limits: ImportLimits) -> None:
    total = sum(entry.size for entry in entries if entry.read is not None)
    if total > limits.max_total_bytes:
        raise ImportFailed(
            f"The pictures in {_shown(str(source))} come to {total:,} bytes; the limit is {limits.max_total_bytes:,}."
        )


def _too_many(source: Path, limits: ImportLimits) -> ImportFailed:
    return ImportFailed(f"{_shown(str(source))} holds more than {limits.max_files:,} files, the limit.")


def _folder_entries(root: Path, limits: ImportLimits) -> list[_Entry]:
    """The files under ``root``, depth first in name order. Symbolic links are never followed (a
    link could lead anywhere, even into a loop) and hidden files and folders are left alone."""
    entries: list[_Entry] = []
    stack: list[tuple[str, Iterator[os.DirEntry[str]]]] = [("", _listing(root))]
    while stack:
        prefix, listing = stack[-1]
        child = next(listing, None)
        if child is None:
            stack.pop()
            continue
        name = prefix + child.name
        if len(entries) == limits.max_files:
            raise _too_many(root, limits)
        if child.is_symlink():
            entries.append(_Entry(name, 0, None, "symbolic link"))
        elif child.is_dir(follow_symlinks=False):
            if child.name.startswith("."):
                entries.append(_Entry(name + "/", 0, None, "hidden folder"))
            else:
                try:
                    stack.append((name + "/", _listing(Path(child.path))))
                except OSError as error:
                    entries.append(_Entry(name + "/", 0, None, f"unreadable folder ({error.strerror or error})"))
        elif child.name.startswith("."):
            entries.append(_Entry(name, 0, None, "hidden file"))
        elif not child.is_file(follow_symlinks=False):
            entries.append(_Entry(name, 0, None, "not a regular file"))
        else:
            size = child.stat(follow_symlinks=False).st_size
            if size > limits.max_bytes:
                entries.append(_Entry(name, size, None, _too_large(size, limits)))
            else:
                entries.append(_Entry(name, size, _file_reader(Path(child.path), limits)))
    return entries


def _listing(folder: Path) -> Iterator[os.DirEntry[str]]:
    with os.scandir(folder) as listing:
        return iter(sorted(listing, key=lambda child: child.name))


def _file_reader(path: Path, limits: ImportLimits) -> Callable[[], bytes]:
    def read() -> bytes:
        try:
            with path.open("rb") as handle:
                # One byte more than allowed tells a file that grew since it was listed.
                return handle.read(limits.max_bytes + 1)
        except OSError as error:
            raise _Skip(f"unreadable file ({error.strerror or error})") from error

    return read


def _zip_entries(archive: zipfile.ZipFile, source: Path, limits: ImportLimits) -> list[_Entry]:
    """The members of ``archive`` by path. Nothing is extracted and an unsafe name is only ever
    shown in its report line; the declared sizes are checked before any member is read."""
    members = sorted(archive.infolist(), key=lambda member: member.filename.replace("\\", "/").split("/"))
    if sum(1 for member in members if not member.is_dir()) > limits.max_files:
        raise _too_many(source, limits)
    entries: list[_Entry] = []
    for member in members:
        name = member.filename
        parts = name.replace("\\", "/").split("/")
        if _unsafe(name, parts):
            entries.append(_Entry(name, 0, None, "unsafe path in archive"))
        elif member.is_dir():
            continue
        elif any((part.startswith(".") and part != ".") or part == "__MACOSX" for part in parts):
            entries.append(_Entry(name, 0, None, "hidden file"))
        elif member.flag_bits & 0x1:
            entries.append(_Entry(name, 0, None, "encrypted"))
        elif member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            # zipfile caps what a stored or deflated member inflates to per read, but not what a
            # bzip2 or LZMA block does: one small block could fill the memory.
            entries.append(_Entry(name, 0, None, "unsupported zip compression (only stored and deflated are read)"))
        elif member.file_size > limits.max_bytes:
            entries.append(_Entry(name, member.file_size, None, _too_large(member.file_size, limits)))
        else:
            entries.append(_Entry(name, member.file_size, _member_reader(archive, member, limits)))
    return entries


def _unsafe(name: str, parts: list[str]) -> bool:
    """Whether a zip member's name could point outside a folder it were extracted to: absolute,
    with a drive letter, going up with ``..``, or holding control characters."""
    return (
        not name or name[0] in "/\\" or re.match(r"[A-Za-z]:", name) is not None or ".." in parts or _has_control(name)
    )


def _member_reader(archive: zipfile.ZipFile, member: zipfile.ZipInfo, limits: ImportLimits) -> Callable[[], bytes]:
    def read() -> bytes:
        try:
            with archive.open(member) as handle:
                # zipfile stops at the declared size and checks the CRC; the cap guards the rest.
                return handle.read(limits.max_bytes + 1)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError) as error:
            raise _Skip(f"unreadable archive member ({error})") from error

    return read


# ---------------------------------------------------------------- pictures


def _import_pictures(
    entries: list[_Entry],
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
    seen: list[tuple[int, str]] = []  # (pHash, source name) of every picture kept
    for entry in entries:
        if entry.read is None:
            skipped.append(_skip_line(entry.name, entry.reason))
            continue
        try:
            data = entry.read()
            if len(data) > limits.max_bytes:
                raise _Skip(_too_large(len(data), limits))
            picture = _card_picture(data, limits)
        except _Skip as skip:
            skipped.append(_skip_line(entry.name, skip.reason))
            continue
        fingerprint = imagehash.phash(picture)
        bits = int(str(fingerprint), 16)
        twin = next((other for known, other in seen if (known ^ bits).bit_count() <= DUPLICATE_DISTANCE), None)
        if twin is not None:
            skipped.append(_skip_line(entry.name, f"same picture as {_shown(twin)}"))
            continue
        seen.append((bits, entry.name))
        number = len(cards) + 1
        file = f"{number:03d}.webp"
        (folder / file).write_bytes(_webp(picture))
        cards.append(
            StoredCard(
                id=f"{slug}-{number:03d}",
                file=file,
                source=entry.name,
                title=f"{title} {number}",
                description=described.get(_base_name(entry.name), ""),
                tags=(),
                phash=str(fingerprint),
            )
        )
    return DeckFile(format=DECK_FORMAT, name=slug, title=title, cards=tuple(cards))


def _card_picture(data: bytes, limits: ImportLimits) -> Image.Image:
    """The picture in ``data`` as a card: decoded in full, upright, RGB, 2:3 at `PICTURE_SIZE`.

    Raises `_Skip` with the reason when ``data`` is not a usable picture.
    """
    try:
        # Pillow warns (and past twice its limit, raises) on a decompression bomb; the declared
        # size is checked first below, but Pillow already checks it while opening. (This filter
        # is process-wide while it lasts: harmless, as it only ever makes that warning an error.)
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=FORMATS) as image:
                width, height = image.size
                if width * height > limits.max_pixels:
                    raise _Skip(f"too many pixels: {width:,} × {height:,} (limit {limits.max_pixels:,})")
                image.load()
                return _framed(_flattened(ImageOps.exif_transpose(image)))
    except _Skip:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise _Skip(f"too many pixels (limit {limits.max_pixels:,})") from error
    except UnidentifiedImageError as error:
        found = _sniff(data)
        if found is None:
            raise _Skip("not an image") from error
        if found not in FORMATS:
            raise _Skip(f"unsupported image format ({found}; PNG, JPEG, WebP and GIF are read)") from error
        raise _Skip(f"damaged or truncated image (a broken {found} header)") from error
    except Exception as error:
        # Pillow's decoders report broken input as OSError, SyntaxError, ValueError, EOFError,
        # struct.error, IndexError…: whatever it is, the file is unusable, not the import.
        raise _Skip(f"damaged or truncated image ({_shown(str(error), 80)})") from error


def _flattened(image: Image.Image) -> Image.Image:
    """``image`` in RGB, its transparent parts laid on `BACKGROUND`."""
    if not image.has_transparency_data:
        return image.convert("RGB")
    flat = Image.new("RGBA", image.size, BACKGROUND)
    flat.alpha_composite(image.convert("RGBA"))
    return flat.convert("RGB")


def _framed(image: Image.Image) -> Image.Image:
    """The largest centred 2:3 part of ``image``, resized to `PICTURE_SIZE` (a "cover" crop)."""
    width, height = image.size
    goal_width, goal_height = PICTURE_SIZE
    if width * goal_height > height * goal_width:  # wider than 2:3: trim the sides
        kept = height * goal_width / goal_height
        box = ((width - kept) / 2, 0.0, (width + kept) / 2, float(height))
    else:  # taller: trim top and bottom
        kept = width * goal_height / goal_width
        box = (0.0, (height - kept) / 2, float(width), (height + kept) / 2)
    # reducing_gap=3: a fast integer reduction first, then Lanczos — indistinguishable from plain
    # Lanczos (Pillow's documentation) and several times faster on a large photo.
    return image.resize(PICTURE_SIZE, Image.Resampling.LANCZOS, box=box, reducing_gap=3.0)


def _webp(picture: Image.Image) -> bytes:
    """``picture`` as WebP with no metadata chunk: Pillow writes EXIF, XMP or an ICC profile into
    a WebP only when asked to, and the emptied ``info`` makes sure nothing asks by accident."""
    picture.info = {}
    buffer = io.BytesIO()
    picture.save(buffer, "WEBP", quality=WEBP_QUALITY)
    return buffer.getvalue()


#: Leading bytes of image formats, to tell "not an image" from "an image Fabula does not read".
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"\x00\x00\x01\x00", "ICO"),
    (b"8BPS", "PSD"),
    (b"\xff\x0a", "JPEG XL"),
    (b"\x00\x00\x00\x0cJXL ", "JPEG XL"),
)
_HEIF_BRANDS = {b"heic": "HEIC", b"heix": "HEIC", b"mif1": "HEIF", b"msf1": "HEIF", b"avif": "AVIF"}


def _sniff(data: bytes) -> str | None:
    """The image format ``data`` starts like, if any."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return _HEIF_BRANDS[data[8:12]]
    if data[:2] == b"BM" and data[6:10] == b"\0\0\0\0":  # "BM" alone starts too many texts
        return "BMP"
    for signature, found in _SIGNATURES:
        if data.startswith(signature):
            return found
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in head):
        return "SVG"
    return None


# ---------------------------------------------------------------- captions


def _read_captions(path: Path, limits: ImportLimits) -> dict[str, str]:
    """Descriptions by picture base name, in the file's order, from a CSV (``file,description``,
    with or without that header) or a JSON object (``{"file": "description"}``)."""
    where = _shown(str(path))
    try:
        size = path.stat().st_size
        if size > limits.max_bytes:
            raise ImportFailed(f"The captions file {where} is {size:,} bytes; the limit is {limits.max_bytes:,}.")
        text = path.read_bytes().decode("utf-8-sig")  # -sig: a spreadsheet's CSV often starts with a BOM
    except OSError as error:
        raise ImportFailed(f"Cannot read the captions file {where}: {error.strerror}.") from error
    except UnicodeDecodeError as error:
        raise ImportFailed(f"The captions file {where} is not UTF-8 text.") from error
    suffix = path.suffix.lower()
    if suffix == ".json":
        pairs = _json_captions(text, where)
    elif suffix == ".csv":
        pairs = _csv_captions(text, where)
    else:
        raise ImportFailed(f"The captions file {where} must be a .csv or a .json file.")
    captions: dict[str, str] = {}
    for place, file, description in pairs:
        key = _base_name(file.strip())
        if not key:
            raise ImportFailed(f"{place}: no file name.")
        if key in captions:
            raise ImportFailed(f"{place}: {_shown(key)} has a caption already.")
        # One line of plain text: it is alt text, AI input and sometimes printed to a terminal.
        sentence = "".join(ch for ch in " ".join(description.split()) if unicodedata.category(ch) != "Cc")
        if len(sentence) > limits.max_caption_chars:
            raise ImportFailed(
                f"{place}: the description of {_shown(key)} is {len(sentence):,} characters; "
                f"the limit is {limits.max_caption_chars:,}."
            )
        captions[key] = sentence
    return captions


def _json_captions(text: str, where: str) -> list[tuple[str, str, str]]:
    try:
        # Objects as tuples of pairs, not dicts: a file named twice must be an error, not the last
        # one silently winning. (A JSON array still decodes to a list, so it cannot pass for one.)
        pairs = json.loads(text, object_pairs_hook=tuple)
    except json.JSONDecodeError as error:
        raise ImportFailed(f"The captions file {where} is not JSON: {error}.") from error
    if not isinstance(pairs, tuple) or not all(isinstance(value, str) for _, value in pairs):
        raise ImportFailed(f'The captions file {where} must be one JSON object {{"file": "description", …}}.')
    return [(f"{where}, entry {_shown(file)!r}", file, value) for file, value in pairs]


def _csv_captions(text: str, where: str) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if not rows and [cell.strip().lower() for cell in row] == ["file", "description"]:
                continue
            place = f"{where} line {reader.line_num}"
            if len(row) < 2:
                raise ImportFailed(f"{place}: expected file,description.")
            # An unquoted description with commas reads as several cells: joined, it is whole again.
            rows.append((place, row[0], ",".join(row[1:])))
    except csv.Error as error:
        raise ImportFailed(f"{where} line {reader.line_num}: {error}.") from error
    return rows


# ---------------------------------------------------------------- folders


def _make_folders(folder: Path) -> list[Path]:
    """Make ``folder`` and any missing parent; return those made, outermost first."""
    missing = [folder, *folder.parents]
    missing = [path for path in missing if not path.exists()]
    missing.reverse()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ImportFailed(f"Cannot create {_shown(str(folder))}: {error.strerror}.") from error
    return missing


def _remove_if_empty(folder: Path) -> None:
    with suppress(OSError):  # not empty — another deck or import is there — or already gone
        folder.rmdir()
