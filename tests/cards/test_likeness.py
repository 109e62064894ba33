"""When two pictures are the same picture (`fabula.cards.likeness`): a re-save, a re-compression or
a resize of one is; a different drawing on the same template — another shape, colour or label on a
white page — never is. Every picture is drawn here with Pillow."""

from __future__ import annotations

import io
import itertools
import math

import pytest
from PIL import Image, ImageDraw, ImageFont

from fabula.cards import importer
from fabula.cards.importer import ImportLimits
from fabula.cards.likeness import CHROMA_TOLERANCE, DUPLICATE_DISTANCE, LUMA_TOLERANCE, Likeness

from .test_importer import encoded, picture

#: The twelve drawings of the report (issue 34): one template — a white 600 × 900 page, one shape
#: in the middle, a label under it — each with a shape, a colour and a label of its own; three of
#: them circles. (shape, colour, label)
TEMPLATE = [
    ("circle", "#D7263D", "circle #1"),  # red
    ("square", "#2E86DE", "square #2"),  # blue
    ("triangle", "#1B7F3B", "triangle #3"),  # green
    ("star", "#F2C14E", "star #4"),  # yellow
    ("circle", "#7D3C98", "moon #5"),  # purple
    ("circle", "#9AA0A6", "cloud #6"),  # grey
    ("diamond", "#F28C28", "diamond #7"),  # orange
    ("hexagon", "#F49AC2", "hexagon #8"),  # pink
    ("pentagon", "#8B5A2B", "pentagon #9"),  # brown
    ("ring", "#222222", "ring #10"),  # black
    ("cross", "#138D90", "cross #11"),  # teal
    ("ellipse", "#8BD35B", "egg #12"),  # light green
]


def _corners(sides: int, radius: float, inner: float | None = None) -> list[tuple[float, float]]:
    """A regular polygon (a star, with ``inner``) centred on the template's shape, a corner up."""
    points = sides * (2 if inner else 1)
    return [
        (
            300 + (inner if inner and i % 2 else radius) * math.cos(-math.pi / 2 + 2 * math.pi * i / points),
            380 + (inner if inner and i % 2 else radius) * math.sin(-math.pi / 2 + 2 * math.pi * i / points),
        )
        for i in range(points)
    ]


def template_drawing(shape: str, colour: str, label: str) -> Image.Image:
    """One drawing on the template: ``shape`` filled with ``colour``, ``label`` under it."""
    image = Image.new("RGB", (600, 900), "white")
    draw = ImageDraw.Draw(image)
    box = (100, 180, 500, 580)
    if shape == "circle":
        draw.ellipse(box, fill=colour)
    elif shape == "ring":
        draw.ellipse(box, outline=colour, width=40)
    elif shape == "ellipse":
        draw.ellipse((100, 260, 500, 500), fill=colour)
    elif shape == "square":
        draw.rectangle((130, 210, 470, 550), fill=colour)
    elif shape == "cross":
        draw.rectangle((100, 340, 500, 420), fill=colour)
        draw.rectangle((260, 180, 340, 580), fill=colour)
    elif shape == "star":
        draw.polygon(_corners(5, 200, inner=90), fill=colour)
    else:
        sides = {"triangle": 3, "diamond": 4, "pentagon": 5, "hexagon": 6}[shape]
        draw.polygon(_corners(sides, 200), fill=colour)
    draw.text((300, 720), label, fill="black", font=ImageFont.load_default(size=56), anchor="mm")
    return image


def template_png(number: int) -> bytes:
    """The report's drawing ``number`` (0–11) as a PNG."""
    return encoded(template_drawing(*TEMPLATE[number]), "PNG")


def likeness(data: bytes) -> Likeness:
    """The likeness of ``data`` made a card, as an upload or an import makes it."""
    return Likeness.of(importer._card_picture(data, ImportLimits()))


def copies(image: Image.Image) -> dict[str, bytes]:
    """The same picture again, as it comes back from a phone, a chat app or another export."""
    width, height = image.size

    def again(data: bytes) -> Image.Image:
        with Image.open(io.BytesIO(data)) as decoded:
            return decoded.convert("RGB")

    return {
        "PNG": encoded(image, "PNG"),
        "JPEG 95": encoded(image, "JPEG", quality=95),
        "JPEG 60": encoded(image, "JPEG", quality=60),
        "JPEG 30": encoded(image, "JPEG", quality=30),
        "WebP 80": encoded(image, "WEBP", quality=80),
        "half the size": encoded(image.resize((width // 2, height // 2)), "JPEG", quality=85),
        "a quarter, PNG": encoded(image.resize((width // 4, height // 4)), "PNG"),
        "one pixel wider": encoded(image.resize((width + 1, height)), "PNG"),
        "JPEG 70, then 3/4 the size at JPEG 60": encoded(
            again(encoded(image, "JPEG", quality=70)).resize((width * 3 // 4, height * 3 // 4)), "JPEG", quality=60
        ),
    }


ORIGINALS = {
    "a photo-like picture": picture(1, size=(640, 960)),
    "shapes on a dark ground": picture(2, size=(900, 1200), background=(20, 20, 40)),
    "the red circle": template_drawing(*TEMPLATE[0]),
    "the purple circle": template_drawing(*TEMPLATE[4]),
    "the ring": template_drawing(*TEMPLATE[9]),
}


def test_twelve_drawings_on_one_template_are_twelve_pictures() -> None:
    found = [likeness(template_png(n)) for n in range(12)]
    for (a, one), (b, other) in itertools.combinations(enumerate(found), 2):
        assert not one.same_as(other), (TEMPLATE[a], TEMPLATE[b], one.differences(other))
    red, purple = found[0], found[4]
    assert red.phash_distance(purple) <= DUPLICATE_DISTANCE, "the grey pHash alone took them for one picture"
    luma, chroma = red.differences(purple) or (0, 0)
    assert luma > 2 * LUMA_TOLERANCE, "another label"
    assert chroma > 4 * CHROMA_TOLERANCE, "another colour"


@pytest.mark.parametrize("original", ORIGINALS)
def test_a_copy_is_the_same_picture(original: str) -> None:
    image = ORIGINALS[original]
    first = likeness(encoded(image, "PNG"))
    for how, data in copies(image).items():
        again = likeness(data)
        assert first.same_as(again), (how, first.differences(again))
        luma, chroma = first.differences(again) or (999, 999)
        assert luma <= LUMA_TOLERANCE * 3 // 4, f"{how}: too near the limit"
        assert chroma <= CHROMA_TOLERANCE // 2, f"{how}: too near the limit"


@pytest.mark.parametrize(
    ("change", "other"),
    [
        ("the same circle in purple", ("circle", "#7D3C98", "circle #1")),
        ("the same circle in orange", ("circle", "#F28C28", "circle #1")),
        ("another label", ("circle", "#D7263D", "moon #5")),
        ("one digit of the label", ("circle", "#D7263D", "circle #2")),
        ("no label", ("circle", "#D7263D", "")),
    ],
)
def test_the_same_template_drawn_otherwise_is_another_picture(change: str, other: tuple[str, str, str]) -> None:
    red = likeness(template_png(0))
    assert not red.same_as(likeness(encoded(template_drawing(*other), "PNG"))), change


def test_a_pen_stroke_or_a_dot_more_is_another_picture() -> None:
    red = template_drawing(*TEMPLATE[0])
    stroke, dot = red.copy(), red.copy()
    ImageDraw.Draw(stroke).line((100, 100, 120, 110), fill="black", width=4)  # outside the circle
    ImageDraw.Draw(dot).ellipse((300, 380, 330, 410), fill="#2E86DE")  # a blue dot on the red
    first = likeness(encoded(red, "PNG"))
    assert not first.same_as(likeness(encoded(stroke, "PNG")))
    assert not first.same_as(likeness(encoded(dot, "PNG")))


def test_a_likeness_is_stored_as_text_and_one_stored_before_is_still_read() -> None:
    red, purple = likeness(template_png(0)), likeness(template_png(4))
    text = str(red)
    assert text.startswith(red.phash_hex + ":")
    assert len(red.phash_hex) == 16
    read = Likeness.parse(text)
    assert read.differences(red) == (0, 0)
    assert read.phash == red.phash
    # what a room's deck stored before: the pHash alone, compared as it was (the host may keep both)
    old = Likeness.parse(red.phash_hex)
    assert old.cells is None
    assert str(old) == red.phash_hex
    assert old.differences(purple) is None
    assert old.same_as(red)
    assert old.same_as(purple), "pHash alone: the same, as before; the browser shows the pair"
    assert not Likeness.parse("0" * 16).same_as(Likeness.parse("f" * 16))
    for bad in ("", "xyz", red.phash_hex + ":not base64!", red.phash_hex + ":AAAA"):
        with pytest.raises(ValueError, match=r"."):
            Likeness.parse(bad)
