"""Fonts for pictures of albums: a CJK face when the machine has one, else DejaVu, else Pillow's own;
and Hebrew and Arabic, shaped and in the order a browser shows them, in the Noto faces Fabula ships.

Names and clues may be Chinese whatever the picture's language, so every language prefers Noto
Sans CJK (Debian's fonts-noto-cjk; its Latin letters are fine too), in the Traditional face for
``zh-Hant`` and the Simplified one otherwise. A missing font never fails a picture: the next
candidate is tried, and Pillow's built-in font (scalable since Pillow 10.1) is the last resort.
Loaded fonts are cached by file, face and size.

No CJK face has Hebrew or Arabic letters, and Pillow's layout without libraqm (which needs the
system's libfribidi) neither joins Arabic letters nor puts right-to-left text in its order. So a
line holding either is drawn in pieces (`runs`): Arabic letters joined by arabic-reshaper, the line
put in the order a browser shows it on Fabula's left-to-right pages by python-bidi (the Unicode
bidirectional algorithm, base direction left to right), and each piece drawn left to right in its
face: Hebrew and Arabic letters in Noto Sans Hebrew and Noto Sans Arabic (``faces/``, SIL OFL
1.1), everything else in the language's font, on one baseline. What python-bidi leaves out is
done here: brackets in a reversed run are mirrored, and vowel marks are placed on their letters.
The same pieces measure the line (`width_of`), so wrapping and cutting short measure the shaped
text. A line without either script is drawn and measured in one piece, as before.

>>> font("en", 28).size
28
>>> wrap("a clue of several words", font("en", 28), 200)
['a clue of', 'several words']
>>> visual("שלום fox") == "םולש fox"
True
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from arabic_reshaper import ArabicReshaper
from bidi import get_display
from bidi.mirror import MIRRORED
from PIL import ImageDraw, ImageFont

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

#: the faces shipped with Fabula for the scripts no CJK face has, (regular, bold) by script
SHIPPED = Path(__file__).with_name("faces")
SCRIPT_FACES = {
    "hebrew": (SHIPPED / "NotoSansHebrew-Regular.ttf", SHIPPED / "NotoSansHebrew-Bold.ttf"),
    "arabic": (SHIPPED / "NotoSansArabic-Regular.ttf", SHIPPED / "NotoSansArabic-Bold.ttf"),
}

# a line may break after any CJK character, and between words elsewhere
_WIDE = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_PIECES = re.compile(rf"\s+|[{_WIDE}]|[^\s{_WIDE}]+")

# Hebrew (and its presentation forms), and Arabic (its supplements, extensions and presentation forms)
_HEBREW = "\u0590-\u05ff\ufb1d-\ufb4f"
_ARABIC = "\u0600-\u06ff\u0750-\u077f\u0870-\u08ff\ufb50-\ufdff\ufe70-\ufeff"
#: what sends a line through `visual`: a letter of a right-to-left script (those two, and the
#: others no font here has: Syriac, Thaana, N'Ko… and those beyond the first plane)
_RIGHT_TO_LEFT = re.compile(f"[{_HEBREW}{_ARABIC}\u0700-\u07ff\u0800-\u086f\U00010800-\U00010fff\U0001e800-\U0001efff]")
_IS_HEBREW = re.compile(f"[{_HEBREW}]")
_IS_ARABIC = re.compile(f"[{_ARABIC}]")
#: invisible once the line is shaped and ordered (the joiners have joined, the marks have ordered)
_INVISIBLE = re.compile("[\u200c-\u200f\u061c\u202a-\u202e\u2060\u2066-\u2069]")

#: WORD JOINER: a boundary neutral (bidi class BN), which changes no character's level and is
#: ordered beside the character before it
_PROBE = "\u2060"

# harakat and other marks kept (the reshaper drops them by default); ligatures as it has them
_RESHAPER = ArabicReshaper(configuration={"delete_harakat": False})


@lru_cache(maxsize=64)
def _load(path: Path, index: int, size: int) -> ImageFont.FreeTypeFont | None:
    try:
        return ImageFont.truetype(str(path), size, index=index)
    except OSError:  # missing, unreadable, or no such face
        return None


@lru_cache(maxsize=32)
def _load_shaped(path: Path, size: int) -> ImageFont.FreeTypeFont | None:
    """A face for text already shaped and ordered: Pillow's basic layout, which draws the glyphs as
    they come (libraqm, where the machine has it, would order them a second time)."""
    try:
        return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)
    except OSError:
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


def script_font(script: str, face: Font) -> Font:
    """The shipped face for ``script`` ("hebrew", "arabic") at the size and weight of ``face``
    (``face`` itself if that file is missing)."""
    if not isinstance(face, ImageFont.FreeTypeFont):
        return face
    regular, heavy = SCRIPT_FACES[script]
    bold = "bold" in str(face.getname()[1] or "").lower()
    found = _load_shaped(heavy if bold else regular, face.size) or _load_shaped(regular, face.size)
    return face if found is None else found


@lru_cache(maxsize=4096)
def visual(text: str) -> str:
    """One line of ``text`` as it is drawn left to right: Arabic letters joined into the forms
    they take in a word (arabic-reshaper), and the line in the order a browser shows it on a
    left-to-right page (python-bidi: right-to-left runs reversed, numbers in them not), brackets in
    a reversed run mirrored and each letter's marks still after it. A line with no right-to-left
    letter is returned as it is.

    >>> visual("(שלום) 123 אב")
    '(םולש) בא 123'
    >>> visual("אב (גד)")
    '(דג) בא'
    >>> visual("لا") == "\ufefb"  # lam-alef: one glyph
    True
    """
    if not right_to_left(text):
        return text
    shaped = _RESHAPER.reshape(text)
    out: list[str] = []
    marks: list[str] = []  # a reversed letter's marks, met before it
    for char, turned in _ordered(shaped):
        if turned and _is_mark(char):
            marks.append(char)
            continue
        out.append(MIRRORED.get(char, char) if turned else char)
        out.extend(reversed(marks))  # (reversed with the run: back in their order)
        marks = []
    out.extend(reversed(marks))
    return _INVISIBLE.sub("", "".join(out))


def _ordered(text: str) -> list[tuple[str, bool]]:
    """``text`` in the order python-bidi shows it (rules L1-L2 of the bidi algorithm), each
    character with whether a right-to-left run reversed it, as far as a later rule needs it: for
    a mirrored character (L4: a bracket whose run was reversed is drawn mirrored) and for a mark
    (L3: it was reversed to before its letter). python-bidi applies neither rule (its issue #25),
    nor tells levels; so a `_PROBE` goes after each such character: where it comes out before
    it, the character was reversed. If the probes changed the order (they should not), nothing
    is known to be reversed."""
    text = text.replace(_PROBE, "")
    plain = get_display(text, base_dir="L")
    probed = "".join(char + _PROBE if _probed(char) else char for char in text)
    if probed == text:
        return [(char, False) for char in plain]
    # a left-to-right letter after the line, which changes no level before it (the line's end is
    # left to right already), so that a probe is never at the end, where rule L1 would move it
    probed += "x"
    found: list[tuple[str, bool]] = []
    owed = ahead = False  # the probe of the character before is still to come; one came for the next
    for char in get_display(probed, base_dir="L"):
        if char == _PROBE:
            if owed:
                owed = False  # after its character: that one was not reversed
            elif ahead:
                break
            else:
                ahead = True  # before its character: the next one was reversed
        elif owed or (ahead and not _probed(char)):
            break
        else:
            found.append((char, ahead))
            owed, ahead = _probed(char) and not ahead, False
    else:
        if not (owed or ahead) and found[-1:] == [("x", False)] and "".join(c for c, _ in found[:-1]) == plain:
            return found[:-1]
    return [(char, False) for char in plain]


def _probed(char: str) -> bool:
    return char in MIRRORED or _is_mark(char)


def _is_mark(char: str) -> bool:
    return unicodedata.category(char) in {"Mn", "Me"}


def _face_of(char: str, face: Font) -> Font:
    if _IS_ARABIC.match(char):
        return script_font("arabic", face)
    if _IS_HEBREW.match(char) or unicodedata.bidirectional(char) in {"R", "AL"}:
        return script_font("hebrew", face)  # (other right-to-left scripts: at least never reordered twice)
    return face


def runs(text: str, face: Font) -> list[tuple[str, Font]]:
    """One line of ``text`` as it is drawn: pieces in order from left to right, each with the face
    that draws it (``face``, or a shipped one for Hebrew and Arabic letters; a mark goes with its
    letter).

    >>> [piece for piece, _ in runs("Ann & שרה", font("en", 28))]
    ['Ann & ', 'הרש']
    """
    if not right_to_left(text):
        return [(text, face)] if text else []
    shown = visual(text)
    found: list[tuple[str, Font]] = []
    for char in shown:
        chosen = found[-1][1] if _is_mark(char) and found else _face_of(char, face)
        if found and found[-1][1] is chosen:
            found[-1] = (found[-1][0] + char, chosen)
        else:
            found.append((char, chosen))
    return found


def right_to_left(text: str) -> bool:
    """Whether ``text`` holds a letter of a right-to-left script (and so is drawn by `runs`)."""
    return _RIGHT_TO_LEFT.search(text) is not None


Box = tuple[float, float, float, float]
_VOWEL_THEN_SHADDA = re.compile("([\u064b-\u0650\u0652]+)(\u0651)")
#: marks drawn at their letter's right or left edge (Hebrew shin dot; sin dot and holam), not centred
_MARK_RIGHT, _MARK_LEFT = "\u05c1", "\u05c2\u05b9"


def _ink(face: Font, text: str) -> Box | None:
    """The box ``text`` inks when drawn at (0, 0) with the anchor "ls" (None: no ink)."""
    mask, (left, top) = (
        face.getmask2(text, anchor="ls")
        if isinstance(face, ImageFont.FreeTypeFont)
        else (
            face.getmask(text),
            (0, 0),
        )
    )
    box = mask.getbbox()
    return None if box is None else (left + box[0], top + box[1], left + box[2], top + box[3])


@lru_cache(maxsize=4096)
def _length(face: Font, text: str) -> float:
    return face.getlength(text)


def _placed(text: str, face: Font) -> tuple[list[tuple[float, float, str, Font]], float]:
    """What `write` draws for one line of ``text``: each piece of `runs` and each mark, with where
    it goes from the line's left end and its baseline (every one drawn with the anchor "ls"), and
    the line's width. Pillow's basic layout draws a mark where its letter ends, so a mark in a
    shipped face is placed by hand: its ink centred on its letter's (a few Hebrew points at an
    edge), and over or under a mark already there (an Arabic vowel over a shadda)."""
    placed: list[tuple[float, float, str, Font]] = []
    x = 0.0
    for piece, chosen in runs(text, face):
        if chosen is face or not any(_is_mark(char) for char in piece):
            placed.append((x, 0.0, piece, chosen))
            x += _length(chosen, piece)
            continue
        letters = "".join(char for char in piece if not _is_mark(char))
        placed.append((x, 0.0, letters, chosen))
        marked = _VOWEL_THEN_SHADDA.sub(r"\2\1", piece)  # (a shadda on its letter, a vowel on the shadda)
        count = 0  # letters so far
        taken: list[Box] = []  # the ink of the marks placed on the current letter
        for char in marked:
            if not _is_mark(char):
                count, taken = count + 1, []
                continue
            start = x + _length(chosen, letters[: count - 1]) if count else x
            letter = _ink(chosen, letters[count - 1]) if count else None
            mark = _ink(chosen, char)
            if letter is None or mark is None:
                placed.append((start, 0.0, char, chosen))
                continue
            if char == "\u05bc" and letters[count - 1] == "\u05d5":  # shuruk: the dot at the vav's left
                shift = letter[0] - mark[2] - 1
            elif char in _MARK_RIGHT:
                shift = letter[2] - mark[2]
            elif char in _MARK_LEFT:
                shift = letter[0] - mark[0]
            else:
                shift = (letter[0] + letter[2] - mark[0] - mark[2]) / 2
            lift = 0.0
            for other in taken:
                if mark[1] + lift < other[3] and other[1] < mark[3] + lift:  # overlapping: stack it
                    below = mark[1] >= letter[3] + (letter[1] - letter[3]) / 2
                    lift = other[3] - mark[1] + 2 if below else other[1] - mark[3] - 2
            taken.append((mark[0] + shift, mark[1] + lift, mark[2] + shift, mark[3] + lift))
            placed.append((start + shift, lift, char, chosen))
        x += _length(chosen, letters)
    return placed, x


def ink_box(text: str, face: Font) -> Box:
    """The box ``text`` inks when `write` draws it at (0, 0) with the anchor "ls" (left, baseline)."""
    if not right_to_left(text) or not isinstance(face, ImageFont.FreeTypeFont):
        return _ink(face, text) or (0.0, 0.0, 0.0, 0.0)
    boxes = []
    for x, y, piece, chosen in _placed(text, face)[0]:
        ink = _ink(chosen, piece)
        if ink is not None:
            boxes.append((x + ink[0], y + ink[1], x + ink[2], y + ink[3]))
    if not boxes:
        return (0.0, 0.0, 0.0, 0.0)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def width_of(text: str, face: Font) -> float:
    """How wide ``text`` is drawn in ``face`` (as shaped and ordered, in the faces that draw it)."""
    if not right_to_left(text):
        return face.getlength(text)
    return _placed(text, face)[1]


def write(
    pen: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, face: Font, *, fill: str, anchor: str = "la"
) -> None:
    """Draw one line of ``text`` at ``xy`` as ``pen.text`` would with this ``anchor`` (Pillow's: its
    first letter l, m or r; its second a, m, s, d, t or b), Hebrew and Arabic shaped and ordered
    (`runs`) and their marks placed on their letters."""
    if not right_to_left(text) or not isinstance(face, ImageFont.FreeTypeFont):
        pen.text(xy, text, fill=fill, font=face, anchor=anchor)
        return
    placed, width = _placed(text, face)
    left = xy[0] - {"m": 0.5, "r": 1.0}.get(anchor[:1], 0.0) * width
    # every piece on the baseline ``face`` would have (faces of other scripts have other ascents),
    # found as Pillow finds it for this anchor
    baseline = xy[1] + face.getbbox("H", anchor="l" + anchor[1:2])[1] - face.getbbox("H", anchor="ls")[1]
    for x, y, piece, chosen in placed:
        pen.text((left + x, baseline + y), piece, fill=fill, font=chosen, anchor="ls")


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
    while 1 < count < len(text) and _is_mark(text[count]):  # (a letter's marks stay with it)
        count -= 1
    return count


def ellipsis(text: str, face: Font, width: float) -> str:
    """``text`` on one line of ``width``, cut short with "…" if it does not fit."""
    if width_of(text, face) <= width:
        return text
    cut = _fit(text + "…", face, width - width_of("…", face))
    return text[: max(cut, 1)].rstrip() + "…"
