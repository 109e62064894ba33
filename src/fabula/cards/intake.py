"""The files of a deck's source — a folder or a .zip — listed and checked before any is read.

Nothing here decodes a picture: each file becomes an `Entry` whose bytes are read on demand (or
that is skipped unread, for a reason), and a source over the `ImportLimits` is refused whole with
`ImportFailed`. `fabula.cards.importer` is the way in.
"""

from __future__ import annotations

import os
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Literal, get_args

from fabula.text import has_controls


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


def shown(name: str, longest: int = 200) -> str:
    """``name`` fit for one report line: control characters escaped, long names cut."""
    text = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in name)
    return text if len(text) <= longest else text[: longest - 1] + "…"


def base_name(name: str) -> str:
    """The file name at the end of a path inside a source; zip files from Windows may use ``\\``."""
    return name.replace("\\", "/").rpartition("/")[2]


#: The captions a deck's source may carry beside its pictures (``file,description``).
CAPTIONS_FILE = "captions.csv"


def captions_entry(entries: Sequence[Entry]) -> Entry | None:
    """The source's own ``captions.csv``: at its root or — when all its files are in one folder,
    as when a folder is zipped — at the root of that folder. (Not deeper: a captions file in one
    sub-folder of many would caption pictures of the others by their base names.)"""
    paths = [entry.name.replace("\\", "/") for entry in entries]
    # macOS zips carry a __MACOSX folder beside the zipped one: no folder of the source's own
    tops = {path.partition("/")[0] if "/" in path else "" for path in paths if not _hidden(path.split("/"))}
    places = [CAPTIONS_FILE] + [f"{top}/{CAPTIONS_FILE}".lower() for top in tops if top and len(tops) == 1]
    return next((entry for entry, path in zip(entries, paths, strict=True) if path.lower() in places), None)


def too_large(size: int, limits: ImportLimits) -> str:
    return f"too large: {size:,} bytes (limit {limits.max_bytes:,})"


# ---------------------------------------------------------------- the files of a folder or zip


#: Why a file is passed over, for a machine: a browser says it in its reader's language.
SkipCode = Literal[
    "too_large", "too_many_pixels", "not_image", "unsupported_format", "damaged", "duplicate", "unreadable",
    "hidden", "link", "not_a_file", "unsafe_path", "encrypted", "unsupported_compression", "bad_zip",
    "bad_captions", "deck_full",
]  # fmt: skip
SKIP_CODES: tuple[SkipCode, ...] = get_args(SkipCode)


class Skip(Exception):
    """This file is passed over, for ``reason`` (``code``: the same, for a machine)."""

    def __init__(self, reason: str, code: SkipCode) -> None:
        super().__init__(reason)
        self.reason, self.code = reason, code


@dataclass(frozen=True, slots=True)
class Entry:
    """One file of the source: ``name`` is its '/'-separated path inside it. ``read`` returns its
    bytes (or raises `Skip`); it is None for a file skipped unread, for ``reason``."""

    name: str
    size: int
    read: Callable[[], bytes] | None
    reason: str = ""
    code: SkipCode | None = None


@contextmanager
def source_files(source: Path, limits: ImportLimits) -> Iterator[list[Entry]]:
    """The files of ``source`` in sorted order, checked against the limits before any is read."""
    if source.is_dir():
        try:
            entries = _folder_entries(source, limits)
        except OSError as error:
            raise ImportFailed(f"Cannot read the folder {shown(str(source))}: {error}.") from error
        _check_total(entries, source, limits)
        yield entries
    elif source.is_file():
        size = source.stat().st_size
        if size > limits.max_total_bytes:
            raise ImportFailed(f"{shown(str(source))} is {size:,} bytes; the limit is {limits.max_total_bytes:,}.")
        try:
            archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
            raise ImportFailed(f"{shown(str(source))} is neither a folder nor a readable .zip file.") from error
        with archive:
            entries = zip_entries(archive, source, limits)
            _check_total(entries, source, limits)
            yield entries
    else:
        raise ImportFailed(f"{shown(str(source))} does not exist.")


def _check_total(entries: list[Entry], source: Path, limits: ImportLimits) -> None:
    total = sum(entry.size for entry in entries if entry.read is not None)
    if total > limits.max_total_bytes:
        raise ImportFailed(
            f"The pictures in {shown(str(source))} come to {total:,} bytes; the limit is {limits.max_total_bytes:,}."
        )


def _too_many(source: Path | str, limits: ImportLimits) -> ImportFailed:
    return ImportFailed(f"{shown(str(source))} holds more than {limits.max_files:,} files, the limit.")


def _folder_entries(root: Path, limits: ImportLimits) -> list[Entry]:
    """The files under ``root``, depth first in name order. Symbolic links are never followed (a
    link could lead anywhere, even into a loop) and hidden files and folders are left alone."""
    entries: list[Entry] = []
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
            entries.append(Entry(name, 0, None, "symbolic link", "link"))
        elif child.is_dir(follow_symlinks=False):
            if child.name.startswith("."):
                entries.append(Entry(name + "/", 0, None, "hidden folder", "hidden"))
            else:
                try:
                    stack.append((name + "/", _listing(Path(child.path))))
                except OSError as error:
                    entries.append(
                        Entry(name + "/", 0, None, f"unreadable folder ({error.strerror or error})", "unreadable")
                    )
        elif child.name.startswith("."):
            entries.append(Entry(name, 0, None, "hidden file", "hidden"))
        elif not child.is_file(follow_symlinks=False):
            entries.append(Entry(name, 0, None, "not a regular file", "not_a_file"))
        else:
            size = child.stat(follow_symlinks=False).st_size
            if size > limits.max_bytes:
                entries.append(Entry(name, size, None, too_large(size, limits), "too_large"))
            else:
                entries.append(Entry(name, size, _file_reader(Path(child.path), limits)))
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
            raise Skip(f"unreadable file ({error.strerror or error})", "unreadable") from error

    return read


def zip_entries(archive: zipfile.ZipFile, source: Path | str, limits: ImportLimits) -> list[Entry]:
    """The members of ``archive`` by path. Nothing is extracted and an unsafe name is only ever
    shown in its report line; the declared sizes are checked before any member is read."""
    members = sorted(archive.infolist(), key=lambda member: member.filename.replace("\\", "/").split("/"))
    if sum(1 for member in members if not member.is_dir()) > limits.max_files:
        raise _too_many(source, limits)
    entries: list[Entry] = []
    for member in members:
        name = member.filename
        parts = name.replace("\\", "/").split("/")
        if _unsafe(name, parts):
            entries.append(Entry(name, 0, None, "unsafe path in archive", "unsafe_path"))
        elif member.is_dir():
            continue
        elif _hidden(parts):
            entries.append(Entry(name, 0, None, "hidden file", "hidden"))
        elif member.flag_bits & 0x1:
            entries.append(Entry(name, 0, None, "encrypted", "encrypted"))
        elif member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            # zipfile caps what a stored or deflated member inflates to per read, but not what a
            # bzip2 or LZMA block does: one small block could fill the memory.
            reason = "unsupported zip compression (only stored and deflated are read)"
            entries.append(Entry(name, 0, None, reason, "unsupported_compression"))
        elif member.file_size > limits.max_bytes:
            entries.append(Entry(name, member.file_size, None, too_large(member.file_size, limits), "too_large"))
        else:
            entries.append(Entry(name, member.file_size, _member_reader(archive, member, limits)))
    return entries


def _hidden(parts: list[str]) -> bool:
    return any((part.startswith(".") and part != ".") or part == "__MACOSX" for part in parts)


def _unsafe(name: str, parts: list[str]) -> bool:
    """Whether a zip member's name could point outside a folder it were extracted to: absolute,
    with a drive letter, going up with ``..``, or holding control characters."""
    return (
        not name or name[0] in "/\\" or re.match(r"[A-Za-z]:", name) is not None or ".." in parts or has_controls(name)
    )


def _member_reader(archive: zipfile.ZipFile, member: zipfile.ZipInfo, limits: ImportLimits) -> Callable[[], bytes]:
    def read() -> bytes:
        try:
            with archive.open(member) as handle:
                # zipfile stops at the declared size and checks the CRC; the cap guards the rest.
                return handle.read(limits.max_bytes + 1)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError) as error:
            raise Skip(f"unreadable archive member ({error})", "unreadable") from error

    return read
