"""Card pictures as files for a browser: bytes, a media type and a content fingerprint.

A card's picture never changes under its fingerprint, so a server can put the fingerprint in the
URL (``/cards/fabula-07.3f9c2a1b7d4e.webp``) and send `CACHE_CONTROL`: browsers and proxies keep
the file for a year and never ask again. A new drawing gets a new fingerprint, hence a new URL.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

from .library import DeckError, DeckLibrary
from .original import DEFAULT_SEED, NAME, card_svg
from .render import png, webp

#: For a fingerprinted URL: a year, and no revalidation.
CACHE_CONTROL = "public, max-age=31536000, immutable"
#: Raster widths a client may ask for: a thumbnail, a hand card, a full-screen card, a TV board.
WIDTHS = (200, 400, 600, 900)

Format = Literal["svg", "webp", "png"]
_MEDIA = {"svg": "image/svg+xml", "webp": "image/webp", "png": "image/png"}


@dataclass(frozen=True, slots=True)
class CardFile:
    data: bytes
    media_type: str
    #: the first 12 hex digits of the SHA-256 of ``data``: the URL part and the ETag
    fingerprint: str


class CardFiles:
    """The files of every card in ``library``; rendered rasters are kept in a small memory cache."""

    def __init__(self, library: DeckLibrary, seed: int = DEFAULT_SEED, cached: int = 512) -> None:
        self.library, self.seed, self._cached = library, seed, cached
        self._cache: OrderedDict[tuple[str, str, int], CardFile] = OrderedDict()

    def get(self, card_id: str, kind: Format = "webp", width: int = 400) -> CardFile:
        """The picture of ``card_id``. The original deck has SVG and rasters at any of `WIDTHS`;
        an imported card has its stored WebP only. `DeckError` otherwise."""
        if width not in WIDTHS:
            raise DeckError(f"Width {width} is not offered; ask for one of {', '.join(map(str, WIDTHS))}.")
        key = (card_id, kind, width)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        data = self._read(card_id, kind, width)
        found = CardFile(data, _MEDIA[kind], hashlib.sha256(data).hexdigest()[:12])
        self._cache[key] = found
        if len(self._cache) > self._cached:
            self._cache.popitem(last=False)
        return found

    def _read(self, card_id: str, kind: Format, width: int) -> bytes:
        if card_id.startswith(f"{NAME}-"):
            try:
                svg = card_svg(card_id, self.seed)
            except KeyError:
                raise DeckError(f'There is no card "{card_id}".') from None
            if kind == "svg":
                return svg.encode()
            return webp(svg, width) if kind == "webp" else png(svg, width)
        if kind != "webp":
            raise DeckError(f'An imported card is stored as WebP only; "{card_id}" has no {kind}.')
        return self.library.image_path(card_id).read_bytes()
