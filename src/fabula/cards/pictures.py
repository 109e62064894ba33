"""One file's bytes made a card's picture: decoded in full, upright, RGB, cover-cropped to 2:3 and
re-encoded as WebP without metadata — or the reason it cannot be (`Skip`).
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from fabula.cards.intake import ImportLimits, Skip, shown
from fabula.cards.model import CARD_HEIGHT, CARD_WIDTH

#: Imported pictures are stored at 1.5 × the model's card size, 600 × 900: sharp on a TV board that
#: shows a card 900 px high, and far smaller than the photos they come from.
PICTURE_SIZE = (CARD_WIDTH * 3 // 2, CARD_HEIGHT * 3 // 2)
#: WebP quality: 85, the usual choice for photographs shown on a screen.
WEBP_QUALITY = 85
#: What a transparent part of a picture becomes: mid grey keeps the outline of a light picture as
#: well as of a dark one.
BACKGROUND = (128, 128, 128, 255)
#: The formats read; an animated GIF or WebP gives its first frame.
FORMATS = ("PNG", "JPEG", "WEBP", "GIF")


def card_picture(data: bytes, limits: ImportLimits) -> Image.Image:
    """The picture in ``data`` as a card: decoded in full, upright, RGB, 2:3 at `PICTURE_SIZE`.

    Raises `Skip` with the reason when ``data`` is not a usable picture.
    """
    try:
        # Pillow warns (and past twice its limit, raises) on a decompression bomb; the declared
        # size is checked first below, but Pillow already checks it while opening. (This filter
        # is process-wide while it lasts: harmless, as it only ever makes that warning an error.)
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=FORMATS) as image:
                width, height = image.size
                if width * height > limits.max_pixels:
                    raise Skip(
                        f"too many pixels: {width:,} × {height:,} (limit {limits.max_pixels:,})", "too_many_pixels"
                    )
                image.load()
                return _framed(_flattened(ImageOps.exif_transpose(image)))
    except Skip:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise Skip(f"too many pixels (limit {limits.max_pixels:,})", "too_many_pixels") from error
    except UnidentifiedImageError as error:
        found = _sniff(data)
        if found is None:
            raise Skip("not an image", "not_image") from error
        if found not in FORMATS:
            raise Skip(
                f"unsupported image format ({found}; PNG, JPEG, WebP and GIF are read)", "unsupported_format"
            ) from error
        raise Skip(f"damaged or truncated image (a broken {found} header)", "damaged") from error
    except Exception as error:
        # Pillow's decoders report broken input as OSError, SyntaxError, ValueError, EOFError,
        # struct.error, IndexError…: whatever it is, the file is unusable, not the import.
        raise Skip(f"damaged or truncated image ({shown(str(error), 80)})", "damaged") from error


def _flattened(image: Image.Image) -> Image.Image:
    """``image`` in RGB, its transparent parts laid on `BACKGROUND`."""
    if not image.has_transparency_data:
        return image.convert("RGB")
    flat = Image.new("RGBA", image.size, BACKGROUND)
    flat.alpha_composite(image.convert("RGBA"))
    return flat.convert("RGB")


def _framed(image: Image.Image) -> Image.Image:
    """The largest centred 2:3 part of ``image``, resized to `PICTURE_SIZE` (a "cover" crop)."""
    width, height = image.size
    goal_width, goal_height = PICTURE_SIZE
    if width * goal_height > height * goal_width:  # wider than 2:3: trim the sides
        kept = height * goal_width / goal_height
        box = ((width - kept) / 2, 0.0, (width + kept) / 2, float(height))
    else:  # taller: trim top and bottom
        kept = width * goal_height / goal_width
        box = (0.0, (height - kept) / 2, float(width), (height + kept) / 2)
    # reducing_gap=3: a fast integer reduction first, then Lanczos — indistinguishable from plain
    # Lanczos (Pillow's documentation) and several times faster on a large photo.
    return image.resize(PICTURE_SIZE, Image.Resampling.LANCZOS, box=box, reducing_gap=3.0)


def webp(picture: Image.Image) -> bytes:
    """``picture`` as WebP with no metadata chunk: Pillow writes EXIF, XMP or an ICC profile into
    a WebP only when asked to, and the emptied ``info`` makes sure nothing asks by accident."""
    picture.info = {}
    buffer = io.BytesIO()
    picture.save(buffer, "WEBP", quality=WEBP_QUALITY)
    return buffer.getvalue()


#: Leading bytes of image formats, to tell "not an image" from "an image Fabula does not read".
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"\x00\x00\x01\x00", "ICO"),
    (b"8BPS", "PSD"),
    (b"\xff\x0a", "JPEG XL"),
    (b"\x00\x00\x00\x0cJXL ", "JPEG XL"),
)
_HEIF_BRANDS = {b"heic": "HEIC", b"heix": "HEIC", b"mif1": "HEIF", b"msf1": "HEIF", b"avif": "AVIF"}


def _sniff(data: bytes) -> str | None:
    """The image format ``data`` starts like, if any."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return _HEIF_BRANDS[data[8:12]]
    if data[:2] == b"BM" and data[6:10] == b"\0\0\0\0":  # "BM" alone starts too many texts
        return "BMP"
    for signature, found in _SIGNATURES:
        if data.startswith(signature):
            return found
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in head):
        return "SVG"
    return None
