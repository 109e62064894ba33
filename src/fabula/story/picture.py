"""The album as one PNG (a first cut: the renderer proper is on its way)."""

from __future__ import annotations

import io
from collections.abc import Mapping

from PIL import Image, ImageDraw

from .album import Album

WIDTH = 1080


def cards_needed(album: Album, round_number: int | None = None) -> list[str]:
    """The cards the picture shows: the tables of the rounds drawn, nothing else."""
    rounds = album.rounds if round_number is None else [album.rounds[round_number - 1]]
    return list(dict.fromkeys(card for result in rounds for card in result.table))


def render_album(
    album: Album,
    pictures: Mapping[str, bytes],  # noqa: ARG001 (the first cut draws no pictures, in one language)
    *,
    language: str = "en",  # noqa: ARG001
    round_number: int | None = None,
) -> bytes:
    rounds = album.rounds if round_number is None else [album.rounds[round_number - 1]]
    image = Image.new("RGB", (WIDTH, 80 + 120 * max(1, len(rounds))), "white")
    draw = ImageDraw.Draw(image)
    for index, result in enumerate(rounds):
        draw.text((20, 40 + 120 * index), f"{result.round}: {result.clue}", fill="black", font_size=28)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
