"""Pictures a host uploads from the browser, made cards by the same checks as `fabula deck import`.

Each uploaded file is a picture or a .zip of pictures. Every picture goes through
`fabula.cards.importer.finished_picture` — decoded in full, turned upright, cropped, re-encoded as
WebP with no metadata (so no EXIF position, no XMP, no colour profile), and compared with the
deck's pictures and the upload's own so a copy is skipped (`fabula.cards.likeness`; unless the
host keeps copies: then nothing is compared) — and each file (each zip member) gets one `Taken`
result: a card picture, or the reason it was passed over, in plain words; a copy names the
picture it copies, so the host can see both.

A zip may carry its pictures' captions, as `fabula deck import` reads them: a ``captions.csv``
at its root or in its one top folder (`fabula.cards.intake.captions_entry`), ``file,description``
by base name — the zip a room's pictures download as is such a zip. Its result says how many
captions it holds (or why it could not be read: then the pictures are taken uncaptioned).

This runs on a worker thread: it decodes megapixels and must not hold up the event loop.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import BinaryIO

from fabula.cards.captions import entry_captions
from fabula.cards.importer import SameAs, Seen, already_seen, finished_picture
from fabula.cards.intake import (
    Entry,
    ImportFailed,
    ImportLimits,
    Skip,
    SkipCode,
    base_name,
    captions_entry,
    shown,
    too_large,
    zip_entries,
)
from fabula.cards.pictures import webp


@dataclass(frozen=True, slots=True)
class Upload:
    """One uploaded file: its name as the browser gave it, its bytes (a spooled file) and size."""

    name: str
    file: BinaryIO
    size: int


@dataclass(frozen=True, slots=True)
class Taken:
    """What became of one file: a picture taken (``webp``, its ``likeness`` as stored and its
    ``caption`` from the zip's captions.csv), a zip's captions file read (``captions``: how many it
    holds), or neither, for ``reason``."""

    name: str
    webp: bytes | None = None
    likeness: str = ""
    reason: str = ""
    caption: str = ""
    captions: int | None = None
    #: the reason, for a machine (`SKIP_CODES`)
    code: SkipCode | None = None
    #: a copy's twin: the card id of a picture already in the deck…
    twin_card: str = ""
    #: …or the place among this upload's results of the picture taken that it copies
    twin_result: int | None = None


def take(
    uploads: Sequence[Upload], limits: ImportLimits, known: Sequence[tuple[str, str]] = (), *, keep_copies: bool = False
) -> list[Taken]:
    """Every picture of ``uploads`` made a card (or skipped), in order; ``known``: the deck's
    pictures, each ``(likeness as stored, card id)``, which a new one may not copy — unless
    ``keep_copies``: the host has seen the pair and keeps both."""
    seen = None if keep_copies else already_seen(known)
    results: list[Taken] = []
    for upload in uploads:
        if _is_zip(upload):
            results += _from_zip(upload, limits, seen, len(results))
            continue
        if upload.size > limits.max_bytes:
            entry = Entry(upload.name, upload.size, None, too_large(upload.size, limits), "too_large")
        else:
            entry = Entry(upload.name, upload.size, _reader(upload.file, limits))
        results.append(_finished(entry, limits, seen, len(results)))
    return results


def take_files(
    files: Sequence[tuple[str, str, int]],
    limits: ImportLimits,
    known: Sequence[tuple[str, str]] = (),
    keep_copies: bool = False,
) -> list[Taken]:
    """`take` for files on disk, each ``(name as uploaded, path, size)``: what a worker process
    is given (an open file does not cross to another process; a path does)."""
    with ExitStack() as stack:
        uploads = [Upload(name, stack.enter_context(open(path, "rb")), size) for name, path, size in files]
        return take(uploads, limits, known, keep_copies=keep_copies)


def _finished(entry: Entry, limits: ImportLimits, seen: list[Seen] | None, result: int, caption: str = "") -> Taken:
    """``entry`` made a card (or not), as the upload's result number ``result``; a picture taken
    joins ``seen`` (None: nothing is compared)."""
    try:
        picture, likeness = finished_picture(entry, limits, seen or ())
    except SameAs as copy:
        twin = copy.twin
        return Taken(entry.name, reason=copy.reason, code=copy.code, twin_card=twin.card, twin_result=twin.result)
    except Skip as skip:
        return Taken(entry.name, reason=skip.reason, code=skip.code)
    if seen is not None:
        seen.append(Seen(likeness, entry.name, result=result))
    return Taken(entry.name, webp(picture), str(likeness), caption=caption)


def _is_zip(upload: Upload) -> bool:
    upload.file.seek(0)
    head = upload.file.read(4)
    upload.file.seek(0)
    return head == b"PK\x03\x04"


def _from_zip(upload: Upload, limits: ImportLimits, seen: list[Seen] | None, start: int) -> list[Taken]:
    """The results of a zip's files, the first being the upload's result number ``start``."""
    try:
        archive = zipfile.ZipFile(upload.file)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return [Taken(upload.name, reason="not a readable .zip file", code="bad_zip")]
    with archive:
        try:
            entries = zip_entries(archive, upload.name, limits)
        except ImportFailed as refused:
            return [Taken(upload.name, reason=refused.message, code="bad_zip")]
        declared = sum(entry.size for entry in entries if entry.read is not None)
        if declared > limits.max_total_bytes:  # a zip bomb is refused unopened
            reason = f"its pictures come to {declared:,} bytes unpacked; too many"
            return [Taken(upload.name, reason=reason, code="too_large")]
        results: list[Taken] = []
        described: dict[str, str] = {}
        own = captions_entry(entries)
        if own is not None:
            entries = [entry for entry in entries if entry is not own]
            shown_name = f"{shown(upload.name)}/{own.name}"
            try:
                described = entry_captions(own, limits)
            except ImportFailed as refused:
                results.append(Taken(shown_name, reason=refused.message, code="bad_captions"))
            else:
                results.append(Taken(shown_name, captions=len(described)))
        for entry in entries:
            named = Entry(f"{shown(upload.name)}/{entry.name}", entry.size, entry.read, entry.reason, entry.code)
            caption = described.get(base_name(entry.name), "")
            results.append(_finished(named, limits, seen, start + len(results), caption))
        return results


def _reader(file: BinaryIO, limits: ImportLimits) -> Callable[[], bytes]:
    def read() -> bytes:
        file.seek(0)
        return file.read(limits.max_bytes + 1)

    return read
