"""Hebrew and Arabic in an album's picture (issue 34): every letter has a glyph in the face that
draws it (no boxes), a line is in the order a browser shows it on a left-to-right page (a
right-to-left run reversed, numbers in it not, brackets mirrored, marks on their letters), Arabic
letters are joined, and wrapping measures the text as it is drawn."""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import unicodedata
from functools import cache

import msgspec
import numpy as np
import pytest
from arabic_reshaper import reshape
from bidi import get_display
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageDraw, ImageFont, ImageOps

from fabula.story import Album
from fabula.story import fonts as fonts_module
from fabula.story.fonts import Font, font, ink_box, runs, visual, width_of, wrap, write
from fabula.story.items import Dot, Layout, Text, draw
from fabula.story.picture import CLUE_LINES, WIDTH, layout, render_album

from .test_picture import album_of, check_layout, decoded, plain_pictures

MIXED = "שלום עולם مرحبا fox"
NAMES = ["سارا שרה", "דוד", "محمد علي", "Ann", "שָׁלוֹם", "ليلى"]


def right_to_left_album() -> Album:
    """An album whose players are named in Hebrew, Arabic and both, and whose clues are mixed,
    pointed, bracketed and long enough to wrap."""
    album = album_of("odyssey", 4, 1, target_score=12)
    players = [msgspec.structs.replace(p, name=NAMES[p.seat % len(NAMES)], bot=None) for p in album.players]
    clues = [MIXED, "لا إله (ثلاثة) 123 كتاب", "שָׁלוֹם וּבְרָכָה", "the fox שלום עולם مرحبا بالعالم " * 8]
    rounds = [dataclasses.replace(r, clue=clues[k % len(clues)].strip()) for k, r in enumerate(album.rounds)]
    assert len(rounds) >= len(clues)
    return msgspec.structs.replace(album, players=players, rounds=rounds)


def face_of(page: Layout, item: Text) -> Font:
    return font(page.language, item.size, bold=item.bold)


# ---------------------------------------------------------------- (a) no boxes


@cache
def notdef(face: Font) -> bytes:
    """What ``face`` draws for a character it has no glyph for (a private-use one no font has)."""
    return ink(face, "\U0010fffd")


def ink(face: Font, text: str) -> bytes:
    """What ``face`` draws for ``text``: its ink's box and pixels."""
    image = Image.new("L", (200, 200))
    ImageDraw.Draw(image).text((50, 100), text, fill=255, font=face, anchor="ls")
    box = image.getbbox()
    return b"" if box is None else repr(box).encode() + image.crop(box).tobytes()


def has_glyph(face: Font, char: str) -> bool:
    return char.isspace() or unicodedata.category(char) in {"Cf", "Mn"} or ink(face, char) != notdef(face)


def test_the_cjk_face_has_no_hebrew_or_arabic_and_the_shipped_faces_have_them() -> None:
    """The cause of the boxes: the face every picture is drawn in has no Hebrew or Arabic letter."""
    for path in (path for pair in fonts_module.SCRIPT_FACES.values() for path in pair):
        assert path.exists(), path
    assert (fonts_module.SHIPPED / "OFL.txt").read_text(encoding="utf-8").count("SIL OPEN FONT LICENSE") == 1
    primary = font("en", 40)
    if isinstance(primary, ImageFont.FreeTypeFont) and str(primary.getname()[0]).startswith("Noto Sans CJK"):
        assert not has_glyph(primary, "ש")
        assert not has_glyph(primary, "م")
    for bold in (False, True):
        face = font("en", 40, bold=bold)
        hebrew, arabic = (fonts_module.script_font(script, face) for script in ("hebrew", "arabic"))
        assert isinstance(hebrew, ImageFont.FreeTypeFont)
        assert isinstance(arabic, ImageFont.FreeTypeFont)
        assert hebrew.getname() == ("Noto Sans Hebrew", "Bold" if bold else "Regular")
        assert arabic.getname() == ("Noto Sans Arabic", "Bold" if bold else "Regular")
        assert all(has_glyph(hebrew, chr(code)) for code in range(0x05D0, 0x05EB))
        assert all(has_glyph(arabic, chr(code)) for code in range(0x0621, 0x064B))


@pytest.mark.parametrize("language", ["en", "zh-Hant"])
def test_every_letter_of_a_right_to_left_album_has_a_glyph(language: str) -> None:
    album = right_to_left_album()
    for round_number in (None, 1, 4):
        page = layout(album, language=language, round_number=round_number)
        check_layout(album, page, language, round_number)  # every clue and name there, in logical order
        texts = [item for item in page.items if isinstance(item, Text) and fonts_module.right_to_left(item.text)]
        assert len(texts) > 5
        for item in texts:
            for piece, face in runs(item.text, face_of(page, item)):
                missing = [char for char in piece if not has_glyph(face, char)]
                assert not missing, (item.text, piece, face.getname() if hasattr(face, "getname") else face)
    image = decoded(render_album(album, plain_pictures(), language=language))
    assert image.width == WIDTH


# ---------------------------------------------------------------- (b) the order a browser shows


def test_a_mixed_line_is_in_the_browsers_order() -> None:
    """As python-bidi orders it on a left-to-right page: the right-to-left run reversed (its first
    word rightmost), "fox" after it; as Chromium draws the clue (checked by eye)."""
    assert visual("שלום") == "םולש"
    assert visual(MIXED) == get_display(reshape(MIXED), base_dir="L")
    assert visual(MIXED).endswith("םולש fox")
    assert visual("Ann & سارا שרה") == "Ann & הרש " + get_display(reshape("سارا"), base_dir="L")
    assert visual("a clue") == "a clue"


def located(line: Image.Image, word: Image.Image) -> int:
    """Where ``word`` (drawn alone on the same baseline) is in ``line``: the x of its best match."""
    have = np.asarray(line, dtype=np.int32)
    want = np.asarray(word, dtype=np.int32)
    box = word.getbbox()
    assert box is not None
    left, right = box[0], box[2]
    piece = want[:, left:right]
    scores = [np.abs(have[:, x : x + piece.shape[1]] - piece).sum() for x in range(have.shape[1] - piece.shape[1])]
    return int(np.argmin(scores))


def drawn(text: str, size: int = 40) -> Image.Image:
    """``text`` as the picture draws a line of it (`draw` of one item): its ink, on black."""
    page = Layout("en", width=900, height=80, items=[Text(10, 10, text, size, bold=True)])
    return ImageOps.invert(draw(page, {}).convert("L")).point(lambda level: level if level > 16 else 0)


def test_the_first_word_of_a_right_to_left_run_is_drawn_rightmost() -> None:
    line = drawn(MIXED)
    at = {word: located(line, drawn(word)) for word in MIXED.split()}
    assert at["مرحبا"] < at["עולם"] < at["שלום"] < at["fox"], at


def test_brackets_are_mirrored_and_marks_stay_on_their_letters() -> None:
    assert visual("(שלום) 123 אב") == "(םולש) בא 123"  # the brackets take the page's direction
    assert visual("אב (גד)") == "(דג) בא"  # reversed with their run: mirrored
    assert visual("אב < גד") == "דג > בא"
    assert visual("שָׁל") == "לשָׁ"  # qamats and shin dot after the shin, in their order
    arabic = visual("بِك")
    assert arabic.index("\u0650") == arabic.index(reshape("بِك")[0]) + 1  # the kasra after its beh


@cache
def fribidi() -> ctypes.CDLL | None:
    found = ctypes.util.find_library("fribidi")
    try:
        return ctypes.CDLL(found) if found else None
    except OSError:
        return None


def fribidi_display(text: str) -> str:
    """GNU FriBidi's order of ``text`` on a left-to-right line (rules L1-L4, Arabic joined)."""
    library = fribidi()
    assert library is not None
    size = len(text)
    logical = (ctypes.c_uint32 * size)(*map(ord, text))
    shown = (ctypes.c_uint32 * size)()
    direction = ctypes.c_uint32(0x110)  # FRIBIDI_PAR_LTR
    library.fribidi_log2vis(logical, size, ctypes.byref(direction), shown, None, None, None)
    return "".join(map(chr, shown)).replace("\ufeff", "")  # (the space a ligature leaves)


LETTERS = list("אבגדשלוםab xyz12.,!?()[]{}<>«»-+%:“”'\"مرحبالكت٣٤")
WORDS = ["שָׁלוֹם", "مَرْحَبًا", "(x)", "[אב]", "123", "fox", "لا", "«زه»", " ", "!"]


@pytest.mark.skipif(fribidi() is None, reason="no libfribidi here to compare with")
@given(st.lists(st.sampled_from(LETTERS), min_size=1, max_size=14) | st.lists(st.sampled_from(WORDS), max_size=6))
def test_the_order_is_fribidis(pieces: list[str]) -> None:
    """The same order, mirroring and marks as the reference implementation of the algorithm."""
    text = "".join(pieces)
    ours = unicodedata.normalize("NFKC", visual(text))
    assert ours == unicodedata.normalize("NFKC", fribidi_display(text)), text


# ---------------------------------------------------------------- (c) Arabic joined


def test_arabic_letters_are_joined() -> None:
    shown = visual("مرحبا")
    assert shown != "مرحبا"[::-1]
    assert all("\ufe70" <= char <= "\ufeff" for char in shown)  # each letter in the form it takes in the word
    assert unicodedata.normalize("NFKC", shown) == "ابحرم"
    assert visual("لا") == "\ufefb"  # lam-alef: one glyph
    face = font("en", 40)
    joined = width_of("مرحبا", face)
    alone = sum(width_of(letter, face) for letter in "مرحبا")
    assert joined < alone - 10  # joined forms are narrower than the isolated ones


# ---------------------------------------------------------------- measuring and placing


def test_wrapping_measures_the_shaped_text() -> None:
    face = font("en", 34, bold=True)
    text = "the fox שלום עולם مرحبا بالعالم " * 8
    lines = wrap(text, face, 600, lines=CLUE_LINES)
    assert len(lines) == CLUE_LINES
    assert lines[-1].endswith("…")
    for line in lines:
        assert width_of(line, face) <= 600
        image = Image.new("L", (900, 80))
        write(ImageDraw.Draw(image), (10, 10), line, face, fill="#FFFFFF")
        box = image.getbbox()
        assert box is not None
        assert box[2] - 10 <= 600 + 2  # its ink too
    # the CJK face's boxes are not what is measured
    assert width_of("مرحبا بالعالم", face) != face.getlength("مرحبا بالعالم")


@pytest.mark.parametrize("anchor", ["la", "lm", "ls", "mm", "rm", "ma"])
def test_a_right_to_left_line_is_anchored_as_pillow_anchors_one(anchor: str) -> None:
    """Centred ("mm") on the same point as Pillow would centre it, its letters on the baseline of
    the line's face, however tall the Arabic face is."""
    face = font("en", 40, bold=True)
    width = width_of("שרה fox", face)
    ours, pillows = Image.new("L", (600, 200)), Image.new("L", (600, 200))
    write(ImageDraw.Draw(ours), (300, 100), "שרה fox", face, fill="#FFFFFF", anchor=anchor)
    ImageDraw.Draw(pillows).text((300, 100), "x fox", fill=255, font=face, anchor="l" + anchor[1])
    box, fox = ours.getbbox(), pillows.getbbox()
    assert box is not None
    assert fox is not None
    left = 300 - {"l": 0, "m": width / 2, "r": width}[anchor[0]]
    assert abs(box[0] - left) <= 3
    assert abs(box[2] - (left + width)) <= 3
    assert box[3] == fox[3]  # "fox" sits on the baseline Pillow puts it on


def test_a_line_without_hebrew_or_arabic_is_drawn_as_before() -> None:
    for text, language in [("Ann & Bob: “a clue”", "en"), ("月亮下面的兔子「在跳舞」", "zh-Hant")]:
        face = font(language, 40, bold=True)
        assert runs(text, face) == [(text, face)]
        assert width_of(text, face) == face.getlength(text)
        for anchor in ("la", "lm", "mm", "rm"):
            ours, before = Image.new("L", (900, 120)), Image.new("L", (900, 120))
            write(ImageDraw.Draw(ours), (450, 60), text, face, fill="#FFFFFF", anchor=anchor)
            ImageDraw.Draw(before).text((450, 60), text, fill=255, font=face, anchor=anchor)
            assert ours.tobytes() == before.tobytes()


def test_a_hebrew_or_arabic_mark_is_inside_its_token() -> None:
    album = right_to_left_album()
    page = layout(album)
    dots = [item for item in page.items if isinstance(item, Dot)]
    marks = [item for item in page.items if isinstance(item, Text) and item.what == "mark"]
    checked = 0
    for mark in marks:
        if not fonts_module.right_to_left(mark.text):
            continue
        assert mark.anchor == "ls"
        left, top, right, bottom = ink_box(mark.text, face_of(page, mark))
        centre = ((left + right) / 2 + mark.x, (top + bottom) / 2 + mark.y)
        dot = min(dots, key=lambda d: (d.x - centre[0]) ** 2 + (d.y - centre[1]) ** 2)
        assert abs(centre[0] - dot.x) < 1
        assert abs(centre[1] - dot.y) < 1
        assert max(right - left, bottom - top) <= dot.radius * 2 * 0.7
        checked += 1
    assert checked > 5
