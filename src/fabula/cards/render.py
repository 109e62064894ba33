"""Rasters of SVG cards, and the contact sheet of a whole deck."""

from __future__ import annotations

import io
from collections.abc import Sequence

import resvg_py
from PIL import Image, ImageDraw

from .model import CARD_HEIGHT, CARD_WIDTH


def png(svg: str, width: int = CARD_WIDTH) -> bytes:
    """The picture rendered at ``width`` pixels wide (height follows the 2:3 frame)."""
    height = round(width * CARD_HEIGHT / CARD_WIDTH)
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width, height=height))


def image(svg: str, width: int = CARD_WIDTH) -> Image.Image:
    return Image.open(io.BytesIO(png(svg, width))).convert("RGB")


def webp(svg: str, width: int = CARD_WIDTH, quality: int = 82) -> bytes:
    out = io.BytesIO()
    image(svg, width).save(out, "WEBP", quality=quality, method=6)
    return out.getvalue()


def contact_sheet(pictures: Sequence[tuple[str, Image.Image]], columns: int = 12, width: int = 160) -> Image.Image:
    """Every picture on one image, labelled with its id underneath (the label is off the card)."""
    height = round(width * CARD_HEIGHT / CARD_WIDTH)
    label, gap = 16, 6
    rows = (len(pictures) + columns - 1) // columns
    sheet = Image.new("RGB", (columns * (width + gap) + gap, rows * (height + label + gap) + gap), "#1c1c22")
    draw = ImageDraw.Draw(sheet)
    for k, (name, picture) in enumerate(pictures):
        x = gap + (k % columns) * (width + gap)
        y = gap + (k // columns) * (height + label + gap)
        sheet.paste(picture.resize((width, height), Image.Resampling.LANCZOS), (x, y))
        draw.text((x + 2, y + height + 2), name, fill="#d8d8e0")
    return sheet
