"""When two pictures are the same picture: a copy of one already in the deck is skipped, and a
different picture never is.

A picture's *likeness* is what is kept of its finished card (600 × 900, `fabula.cards.pictures`)
to tell: its 64-bit pHash (imagehash's, on grey levels) and two small thumbnails, each cell the
mean of its pixels — its brightness (Y) at `LUMA_SIZE` (a cell is 15 px square) and its colour
(Cb, Cr) at `CHROMA_SIZE` (37.5 px). Two pictures are the same when no cell of either thumbnail
differs by more than `LUMA_TOLERANCE` or `CHROMA_TOLERANCE` levels (of 255).

A re-save, a re-compression or a resize of the same picture moves a cell's mean by a few levels
(measured on the tests' pictures: JPEG at quality 30, at most 6 levels of brightness and 3 of
colour; JPEG at 95 or WebP instead of PNG, 3 and 2; half the size, 8; a quarter of it, upscaled
again, 16, as a drawing's sharp edges blur over the cells beside them). A different drawing
changes whole cells: on one template (a white page, one shape, a label under it) another colour
of the same circle moves the colour cells by 45 to 61 levels, another label — or one digit of
it — moves brightness cells by 51 to 129, a 20-px pen stroke by 50; of twelve such drawings, the
nearest two differ by 64. The pHash alone saw none of that: it keeps only the signs of the 64
coarsest cosine components of the grey picture against their median, so a red and a purple
circle on white differed by 2 bits, within the 6 it allowed, and 4 of the 12 drawings were
refused as copies — while a picture of fine noise re-saved as JPEG moved 10 bits and was
taken twice.

A likeness is stored as text: ``<pHash, 16 hex digits>:<the cells, base64>`` (4,241 characters).
One stored before the thumbnails (its pHash alone) is still read; against it only the pHash
can be compared, as before (`DUPLICATE_DISTANCE`): the host may keep both pictures of a pair
refused that way.

>>> from PIL import Image, ImageDraw
>>> def circle(colour: str) -> Image.Image:
...     image = Image.new("RGB", (600, 900), "white")
...     ImageDraw.Draw(image).ellipse((100, 180, 500, 580), fill=colour)
...     return image
>>> red, purple = Likeness.of(circle("#D7263D")), Likeness.of(circle("#7D3C98"))
>>> red.phash_distance(purple) <= DUPLICATE_DISTANCE, red.same_as(purple)
(True, False)
>>> red.same_as(Likeness.parse(str(red))), red.same_as(Likeness.parse(red.phash_hex))
(True, True)
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import imagehash
import numpy as np
import numpy.typing as npt
from PIL import Image

#: The brightness thumbnail (width, height): 15-px cells of a 600 × 900 card.
LUMA_SIZE = (40, 60)
#: The colour thumbnail, Cb and Cr each: colour varies more slowly than brightness, and JPEG keeps
#: it at half the resolution anyway.
CHROMA_SIZE = (16, 24)
#: The most a cell may differ, in levels of 255, for two pictures to be the same: above what a
#: copy moves (16 and 3 at worst, measured as the module says), well below what a different
#: drawing does (50 and 45 at the least).
LUMA_TOLERANCE = 24
CHROMA_TOLERANCE = 12
#: Against a likeness stored before the thumbnails, its pHash alone, as then: two pictures whose
#: pHashes differ in at most this many bits are the same picture (a copy differs in 0–4 bits).
DUPLICATE_DISTANCE = 6

_LUMA_CELLS = LUMA_SIZE[0] * LUMA_SIZE[1]
_CELLS = _LUMA_CELLS + 2 * CHROMA_SIZE[0] * CHROMA_SIZE[1]
_Cells = npt.NDArray[np.int16]


@dataclass(frozen=True, slots=True, eq=False)
class Likeness:
    """What tells a picture from another (see the module): its pHash and, unless it was stored
    before them, its brightness and colour thumbnails."""

    phash: int
    #: the brightness cells, then the colour cells (Cb's, then Cr's); None when stored before them
    cells: _Cells | None

    @classmethod
    def of(cls, picture: Image.Image) -> Likeness:
        """The likeness of a finished card's ``picture``."""
        phash = int(str(imagehash.phash(picture)), 16)
        luma, cb, cr = picture.convert("YCbCr").split()
        box = Image.Resampling.BOX
        thumbnails = [luma.resize(LUMA_SIZE, box), cb.resize(CHROMA_SIZE, box), cr.resize(CHROMA_SIZE, box)]
        cells = np.concatenate([np.asarray(t, dtype=np.uint8).ravel() for t in thumbnails])
        return cls(phash, cells.astype(np.int16))

    @classmethod
    def parse(cls, text: str) -> Likeness:
        """The likeness ``str(likeness)`` wrote, or a pHash alone (16 hex digits) as stored before;
        ValueError for anything else."""
        head, colon, tail = text.partition(":")
        phash = int(head, 16)
        if not colon:
            return cls(phash, None)
        try:
            cells = np.frombuffer(base64.b64decode(tail, validate=True), dtype=np.uint8)
        except binascii.Error as error:
            raise ValueError(f"not a likeness: {error}") from error
        if cells.size != _CELLS:
            raise ValueError(f"not a likeness: {cells.size} cells, not {_CELLS}")
        return cls(phash, cells.astype(np.int16))

    def __str__(self) -> str:
        if self.cells is None:
            return self.phash_hex
        return f"{self.phash_hex}:{base64.b64encode(self.cells.astype(np.uint8).tobytes()).decode('ascii')}"

    @property
    def phash_hex(self) -> str:
        """The pHash as imagehash writes it: 16 hex digits."""
        return f"{self.phash:016x}"

    def phash_distance(self, other: Likeness) -> int:
        """How many of the pHashes' 64 bits differ."""
        return (self.phash ^ other.phash).bit_count()

    def differences(self, other: Likeness) -> tuple[int, int] | None:
        """The most a brightness cell and a colour cell differ between the two; None if either
        likeness has no cells."""
        if self.cells is None or other.cells is None:
            return None
        apart = np.abs(self.cells - other.cells)
        return int(apart[:_LUMA_CELLS].max()), int(apart[_LUMA_CELLS:].max())

    def same_as(self, other: Likeness) -> bool:
        """Whether the two are the same picture (a copy of one another), as the module says."""
        differences = self.differences(other)
        if differences is None:
            return self.phash_distance(other) <= DUPLICATE_DISTANCE
        luma, chroma = differences
        return luma <= LUMA_TOLERANCE and chroma <= CHROMA_TOLERANCE
