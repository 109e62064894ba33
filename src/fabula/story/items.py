"""The picture's plain items — texts, card pictures, boxes, dots, lines — placed on a page, the
palette they are drawn in, and their painting with Pillow (`draw`).

A `Layout` is the whole page as such items, made without touching a picture (`picture.layout`):
so a reader of a layout (a test: is every round's clue there?) needs no PNG, and `draw` is the
one place pixels are made.

>>> page = Layout("en", height=60, items=[Text(0, 0, "Ann", 28), Dot(30, 30, 10, RED)])
>>> draw(page, {}).size
(1080, 60)
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw, ImageOps

from .fonts import font, write

#: the page's width: a phone's screen at full width (no text on it is smaller than 28 pixels)
WIDTH = 1080

PAGE = "#FBF8F1"
INK = "#222222"
MUTED = "#5F5F6B"
RULE = "#D9D3C7"
GOLD = "#C9971C"
RED = "#D7263D"
BLANK = "#C8C2B8"  # a card whose picture could not be read


@dataclass(frozen=True, slots=True)
class Text:
    """One line of text, its top-left corner at (x, y) unless ``anchor`` says otherwise (Pillow's)."""

    x: float
    y: float
    text: str
    size: int
    bold: bool = False
    fill: str = INK
    anchor: str = "la"
    #: the round it belongs to (None: the album's head) and what it says, for readers of a layout
    round: int | None = None
    what: str = ""


@dataclass(frozen=True, slots=True)
class Card:
    x: int
    y: int
    width: int
    height: int
    card: str
    round: int


@dataclass(frozen=True, slots=True)
class Box:
    box: tuple[float, float, float, float]
    fill: str | None = None
    outline: str | None = None
    width: int = 1
    radius: int = 0


@dataclass(frozen=True, slots=True)
class Dot:
    x: float
    y: float
    radius: float
    fill: str
    outline: str | None = None


@dataclass(frozen=True, slots=True)
class Line:
    points: tuple[tuple[float, float], ...]
    fill: str
    width: int


Item = Text | Card | Box | Dot | Line


@dataclass(slots=True)
class Layout:
    language: str
    width: int = WIDTH
    height: int = 0
    items: list[Item] = field(default_factory=list)

    def texts(self, what: str, round_number: int | None = None) -> list[str]:
        """The lines that say ``what`` (in ``round_number``, if given), in order.

        >>> page = Layout("en", items=[Text(0, 0, "Ann", 28, what="name", round=1)])
        >>> page.texts("name", 1), page.texts("name", 2)
        (['Ann'], [])
        """
        return [
            item.text
            for item in self.items
            if isinstance(item, Text) and item.what == what and (round_number is None or item.round == round_number)
        ]

    def cards(self) -> list[str]:
        return [item.card for item in self.items if isinstance(item, Card)]


# ---------------------------------------------------------------- painting


@lru_cache(maxsize=8)
def _corners(width: int, height: int) -> Image.Image:
    mask = Image.new("L", (width, height), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, width - 1, height - 1), radius=10, fill=255)
    return mask


def _thumbnail(data: bytes | None, width: int, height: int) -> Image.Image:
    """A card's picture cut to the 2:3 frame at ``width`` × ``height`` (a blank card if unreadable)."""
    if data is not None:
        try:
            with Image.open(io.BytesIO(data)) as opened:
                opened.draft("RGB", (width, height))  # (JPEG only: decodes at a fraction of the size)
                return ImageOps.fit(opened.convert("RGB"), (width, height), Image.Resampling.LANCZOS)
        except (OSError, ValueError, Image.DecompressionBombError):
            pass  # an unreadable picture is drawn as a blank card, not a failed album
    return Image.new("RGB", (width, height), BLANK)


def draw(page: Layout, pictures: Mapping[str, bytes]) -> Image.Image:
    """Paint ``page``; card pictures are looked up in ``pictures`` (a missing one is drawn blank)."""
    image = Image.new("RGB", (page.width, max(1, page.height)), PAGE)
    pen = ImageDraw.Draw(image)
    for item in page.items:
        if isinstance(item, Card):
            try:
                data: bytes | None = pictures[item.card]
            except KeyError:
                data = None
            image.paste(_thumbnail(data, item.width, item.height), (item.x, item.y), _corners(item.width, item.height))
        elif isinstance(item, Text):
            face = font(page.language, item.size, bold=item.bold)
            write(pen, (item.x, item.y), item.text, face, fill=item.fill, anchor=item.anchor)
        elif isinstance(item, Box):
            pen.rounded_rectangle(item.box, item.radius, item.fill, item.outline, item.width)
        elif isinstance(item, Dot):
            box = (item.x - item.radius, item.y - item.radius, item.x + item.radius, item.y + item.radius)
            pen.ellipse(box, item.fill, item.outline, 2 if item.outline else 0)
        else:
            pen.line(item.points, item.fill, item.width, joint="curve")
    return image
