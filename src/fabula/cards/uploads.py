"""Pictures a host uploads from the browser, made cards by the same checks as `fabula deck import`.

Each uploaded file is a picture or a .zip of pictures. Every picture goes through
`fabula.cards.importer.finished_picture` — decoded in full, turned upright, cropped, re-encoded as
WebP with no metadata (so no EXIF position, no XMP, no colour profile), and compared with the
deck's pictures so a copy is skipped — and each file (each zip member) gets one `Taken` result:
a card picture, or the reason it was passed over, in plain words.

This runs on a worker thread: it decodes megapixels and must not hold up the event loop.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from fabula.cards.importer import finished_picture
from fabula.cards.intake import Entry, ImportFailed, ImportLimits, Skip, shown, too_large, zip_entries
from fabula.cards.pictures import webp


@dataclass(frozen=True, slots=True)
class Upload:
    """One uploaded file: its name as the browser gave it, its bytes (a spooled file) and size."""

    name: str
    file: BinaryIO
    size: int


@dataclass(frozen=True, slots=True)
class Taken:
    """What became of one picture: ``webp`` and ``phash`` if it was taken, else ``reason``."""

    name: str
    webp: bytes | None = None
    phash: str = ""
    reason: str = ""


def take(uploads: Sequence[Upload], limits: ImportLimits, known: Sequence[str] = ()) -> list[Taken]:
    """Every picture of ``uploads`` made a card (or skipped), in order; ``known``: the pHashes
    (hex) of the deck's pictures, which a new one may not copy."""
    seen = [(int(phash, 16), "a picture already in the deck") for phash in known]
    results: list[Taken] = []
    for upload in uploads:
        if _is_zip(upload):
            results += _from_zip(upload, limits, seen)
            continue
        if upload.size > limits.max_bytes:
            entry = Entry(upload.name, upload.size, None, too_large(upload.size, limits))
        else:
            entry = Entry(upload.name, upload.size, _reader(upload.file, limits))
        results.append(_finished(entry, limits, seen))
    return results


def _finished(entry: Entry, limits: ImportLimits, seen: list[tuple[int, str]]) -> Taken:
    try:
        picture, fingerprint = finished_picture(entry, limits, seen)
    except Skip as skip:
        return Taken(entry.name, reason=skip.reason)
    return Taken(entry.name, webp(picture), str(fingerprint))


def _is_zip(upload: Upload) -> bool:
    upload.file.seek(0)
    head = upload.file.read(4)
    upload.file.seek(0)
    return head == b"PK\x03\x04"


def _from_zip(upload: Upload, limits: ImportLimits, seen: list[tuple[int, str]]) -> list[Taken]:
    try:
        archive = zipfile.ZipFile(upload.file)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return [Taken(upload.name, reason="not a readable .zip file")]
    with archive:
        try:
            entries = zip_entries(archive, upload.name, limits)
        except ImportFailed as refused:
            return [Taken(upload.name, reason=refused.message)]
        declared = sum(entry.size for entry in entries if entry.read is not None)
        if declared > limits.max_total_bytes:  # a zip bomb is refused unopened
            return [Taken(upload.name, reason=f"its pictures come to {declared:,} bytes unpacked; too many")]
        return [
            _finished(Entry(f"{shown(upload.name)}/{entry.name}", entry.size, entry.read, entry.reason), limits, seen)
            for entry in entries
        ]


def _reader(file: BinaryIO, limits: ImportLimits) -> Callable[[], bytes]:
    def read() -> bytes:
        file.seek(0)
        return file.read(limits.max_bytes + 1)

    return read
