"""The descriptions of an imported deck's cards, from a CSV or a JSON file, by picture base name.

A deck's source may carry its own: a ``captions.csv`` beside its pictures (`CAPTIONS_FILE`, see
`fabula.cards.intake.captions_entry`), as in the zip a room's pictures are downloaded as
(`captions_csv` writes it). The same file is read back by an upload and by `fabula deck import`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from pathlib import Path

from fabula.cards.intake import CAPTIONS_FILE, Entry, ImportFailed, ImportLimits, Skip, base_name, shown
from fabula.text import TextRefused, caption_text

__all__ = ["CAPTIONS_FILE", "captions_csv", "entry_captions", "read_captions"]


def read_captions(path: Path, limits: ImportLimits) -> dict[str, str]:
    """Descriptions by picture base name, in the file's order, from a CSV (``file,description``,
    with or without that header) or a JSON object (``{"file": "description"}``)."""
    where = shown(str(path))
    try:
        size = path.stat().st_size
        if size > limits.max_bytes:
            raise ImportFailed(f"The captions file {where} is {size:,} bytes; the limit is {limits.max_bytes:,}.")
        data = path.read_bytes()
    except OSError as error:
        raise ImportFailed(f"Cannot read the captions file {where}: {error.strerror}.") from error
    return _captions(data, where, path.suffix.lower(), limits)


def entry_captions(entry: Entry, limits: ImportLimits) -> dict[str, str]:
    """The descriptions in ``entry``, a source's own ``captions.csv``, as `read_captions` reads a
    file; `ImportFailed` saying why they cannot be read."""
    where = shown(entry.name)
    if entry.read is None:
        raise ImportFailed(f"The captions file {where} is not read: {entry.reason}.")
    try:
        data = entry.read()
    except Skip as skip:
        raise ImportFailed(f"Cannot read the captions file {where}: {skip.reason}.") from None
    if len(data) > limits.max_bytes:
        raise ImportFailed(f"The captions file {where} is larger than {limits.max_bytes:,} bytes, the limit.")
    return _captions(data, where, ".csv", limits)


def captions_csv(rows: Iterable[tuple[str, str]]) -> str:
    """A ``captions.csv`` (``file,description``, with that header) of ``rows``, as `read_captions`
    reads it back."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(("file", "description"))
    writer.writerows(rows)
    return out.getvalue()


def _captions(data: bytes, where: str, suffix: str, limits: ImportLimits) -> dict[str, str]:
    try:
        text = data.decode("utf-8-sig")  # -sig: a spreadsheet's CSV often starts with a BOM
    except UnicodeDecodeError as error:
        raise ImportFailed(f"The captions file {where} is not UTF-8 text.") from error
    if suffix == ".json":
        pairs = _json_captions(text, where)
    elif suffix == ".csv":
        pairs = _csv_captions(text, where)
    else:
        raise ImportFailed(f"The captions file {where} must be a .csv or a .json file.")
    captions: dict[str, str] = {}
    for place, file, description in pairs:
        key = base_name(file.strip())
        if not key:
            raise ImportFailed(f"{place}: no file name.")
        if key in captions:
            raise ImportFailed(f"{place}: {shown(key)} has a caption already.")
        try:
            captions[key] = caption_text(description, limit=limits.max_caption_chars)
        except TextRefused as refused:
            raise ImportFailed(
                f"{place}: the description of {shown(key)} is {refused.length:,} characters; "
                f"the limit is {limits.max_caption_chars:,}."
            ) from None
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
    return [(f"{where}, entry {shown(file)!r}", file, value) for file, value in pairs]


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
