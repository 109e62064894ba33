"""Fonts for pictures of albums: a CJK face when the machine has one, else DejaVu, else Pillow's own.

Names and clues may be Chinese whatever the picture's language, so every language prefers Noto
Sans CJK (Debian's fonts-noto-cjk; its Latin letters are fine too), in the Traditional face for
``zh-Hant`` and the Simplified one otherwise. A missing font never fails a picture: the next
candidate is tried, and Pillow's built-in font (scalable since Pillow 10.1) is the last resort.
Loaded fonts are cached by file, face and size.

>>> font("en", 28).size
28
>>> wrap("a clue of several words", font("en", 28), 200)
['a clue of', 'several words']
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

NOTO = Path("/usr/share/fonts/opentype/noto")
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
#: the faces of NotoSansCJK-*.ttc, by index (JP 0, KR 1, SC 2, TC 3, HK 4)
FACES = {"zh-Hant": 3, "zh-Hans": 2, "en": 2}

#: (regular, bold) candidates in order: a file and the face in it (None: the language's CJK face)
CANDIDATES: list[tuple[Path, Path, int | None]] = [
    (NOTO / "NotoSansCJK-Regular.ttc", NOTO / "NotoSansCJK-Bold.ttc", None),
    (DEJAVU / "DejaVuSans.ttf", DEJAVU / "DejaVuSans-Bold.ttf", 0),
]

# a line may break after any CJK character, and between words elsewhere
_WIDE = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_PIECES = re.compile(rf"\s+|[{_WIDE}]|[^\s{_WIDE}]+")


@lru_cache(maxsize=64)
def _load(path: Path, index: int, size: int) -> ImageFont.FreeTypeFont | None:
    try:
        return ImageFont.truetype(str(path), size, index=index)
    except OSError:  # missing, unreadable, or no such face
        return None


@lru_cache(maxsize=16)
def _default(size: int) -> Font:
    return ImageFont.load_default(size=size)


def font(language: str, size: int, *, bold: bool = False) -> Font:
    """The best font this machine has for ``language`` at ``size`` pixels."""
    for regular, heavy, index in CANDIDATES:
        face = FACES.get(language, FACES["en"]) if index is None else index
        found = _load(heavy if bold else regular, face, size) or _load(regular, face, size)
        if found is not None:
            return found
    return _default(size)


def width_of(text: str, face: Font) -> float:
    return face.getlength(text)


def wrap(text: str, face: Font, width: float, *, lines: int | None = None) -> list[str]:
    """``text`` broken into lines no wider than ``width`` (a word wider than a line is cut); at
    most ``lines`` of them, the last ending in "…" if text was left out."""
    found: list[str] = []
    line = ""
    for piece in _PIECES.findall(" ".join(text.split())):
        candidate = line + piece
        if not line.strip() or width_of(candidate, face) <= width:
            line = candidate
            while width_of(line, face) > width and len(line) > 1:  # one piece too long for a line
                cut = _fit(line, face, width)
                found.append(line[:cut])
                line = line[cut:]
            continue
        found.append(line.rstrip())
        line = piece.lstrip()
    if line.strip():
        found.append(line.rstrip())
    if lines is not None and len(found) > lines:
        found = [*found[: lines - 1], ellipsis(" ".join(found[lines - 1 :]), face, width)]
    return found or [""]


def _fit(text: str, face: Font, width: float) -> int:
    """How many of ``text``'s first characters fit in ``width`` (at least one)."""
    count = 1
    while count < len(text) and width_of(text[: count + 1], face) <= width:
        count += 1
    return count


def ellipsis(text: str, face: Font, width: float) -> str:
    """``text`` on one line of ``width``, cut short with "…" if it does not fit."""
    if width_of(text, face) <= width:
        return text
    cut = _fit(text + "…", face, width - width_of("…", face))
    return text[: max(cut, 1)].rstrip() + "…"
