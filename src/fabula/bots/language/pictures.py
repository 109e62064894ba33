"""Cards as pictures for a model that sees: small JPEG data URLs, within a size per picture and
per request.

A picture is scaled to at most `SIDE` pixels on its longer side and written as a JPEG; if that is
over `PICTURE_MAX_BYTES` it is written again smaller, and left out (the card is then shown by its
words) if it still is. `within_request` keeps the pictures of one request under
`REQUEST_MAX_BYTES`, the hand's first: a card over the limit is shown by its words.

>>> from PIL import Image
>>> import io
>>> out = io.BytesIO()
>>> Image.new("RGB", (800, 1200), "teal").save(out, "PNG")
>>> url = jpeg_data_url(out.getvalue())
>>> url.startswith("data:image/jpeg;base64,"), len(url) < PICTURE_MAX_BYTES
(True, True)
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image, UnidentifiedImageError

#: The longer side of a picture sent to a model, in pixels (then smaller ones if it is too large).
SIDE = 384
_TRIES = ((SIDE, 75), (256, 60), (192, 45))
#: The most characters of one picture's data URL.
PICTURE_MAX_BYTES = 80_000
#: The most characters of all the pictures of one request together.
REQUEST_MAX_BYTES = 800_000


def jpeg_data_url(data: bytes) -> str | None:
    """``data`` (any picture Pillow reads) as a small JPEG data URL; None if it cannot be read or
    is over `PICTURE_MAX_BYTES` even at the smallest size."""
    try:
        with Image.open(io.BytesIO(data)) as opened:
            picture = opened.convert("RGB")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None
    for side, quality in _TRIES:
        small = picture.copy()
        small.thumbnail((side, side))
        out = io.BytesIO()
        small.save(out, "JPEG", quality=quality, optimize=True)
        url = "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")
        if len(url) <= PICTURE_MAX_BYTES:
            return url
    return None


def within_request(cards: Sequence[str], pictures: Mapping[str, str]) -> dict[str, str]:
    """The pictures of ``cards`` (in order) that one request carries: as many as fit in
    `REQUEST_MAX_BYTES`, each card once.

    >>> sorted(within_request(["a", "b", "c", "a"], {"a": "x" * 500_000, "b": "y" * 400_000, "c": "z"}))
    ['a', 'c']
    """
    kept: dict[str, str] = {}
    total = 0
    for card in cards:
        url = pictures.get(card)
        if url is None or card in kept or total + len(url) > REQUEST_MAX_BYTES:
            continue
        kept[card] = url
        total += len(url)
    return kept


def cards_in_view(view: Mapping[str, Any]) -> list[str]:
    """The cards a seat's view shows it: its hand, then the table (all a model may be shown).

    >>> cards_in_view({"hand": ["a", "b"], "table": [{"slot": 1, "card": "c"}]})
    ['a', 'b', 'c']
    """
    return [*(view.get("hand") or []), *(slot["card"] for slot in view.get("table") or [])]
