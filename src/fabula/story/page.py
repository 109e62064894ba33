"""The page an album is laid out on: its margins and type sizes, and `Page`, the column of content
that grows downwards as the layout places things (text wrapped to the width, a seat's token),
naming each seat as the picture's language does.

>>> from fabula.story import Album
>>> page = Page(Album(number=1, mode="odyssey", options={}, players=[], teams=None, started_at=0.0), "en")
>>> page.text("Once upon a time", BODY)
>>> page.layout.texts(""), page.y > MARGIN
(['Once upon a time'], True)
"""

from __future__ import annotations

from .album import Album
from .fonts import Font, font, ink_box, right_to_left, wrap
from .items import INK, RULE, WIDTH, Box, Dot, Item, Layout, Text
from .rabbits import LIGHT, hex_of, ink_on, marks
from .words import Words

MARGIN = 40
INNER = WIDTH - 2 * MARGIN

TITLE, HEADING, CLUE, BODY, SMALL = 52, 40, 40, 32, 28
TOKEN = 46  # a voter's token: a dot with their mark
CARD_GAP = 20
STAR = "★"
OPENING = "“‘「『"


def _capital(name: str) -> str:
    """A name at the start of a sentence too (as memberName does it in the client)."""
    return name[:1].upper() + name[1:]


def shown_names(album: Album, say: Words) -> list[str]:
    """Each seat's name as the page shows it: a person's own, a bot's by its colour in the
    picture's language ("Dark green bot", "深綠色機器人")."""
    return [
        _capital(say("lobby.bot_name", colour=say(f"colour.{player.colour}"))) if player.bot else player.name
        for player in album.players
    ]


class Page:
    """A column of content growing downwards; ``y`` is where the next thing goes."""

    def __init__(self, album: Album, language: str) -> None:
        self.album = album
        self.layout = Layout(language)
        self.say = Words(language)
        self.y = float(MARGIN)
        # a bot is named as the page names it, in the picture's language ("Dark green bot",
        # "深綠色機器人"), and its mark is its colour's first character (as rabbits.js marks it)
        bots = [player.bot is not None for player in album.players]
        colours = [self.say(f"colour.{player.colour}") for player in album.players]
        self.names = shown_names(album, self.say)
        self.marks = marks(
            [colour if bot else name for name, bot, colour in zip(self.names, bots, colours, strict=True)],
            by_first=bots,
        )
        self.colours = [player.colour for player in album.players]

    def add(self, item: Item) -> None:
        self.layout.items.append(item)

    def name(self, seat: int) -> str:
        return self.names[seat] if seat < len(self.names) else f"#{seat + 1}"

    def text(
        self,
        text: str,
        size: int,
        *,
        bold: bool = False,
        fill: str = INK,
        width: float = INNER,
        x: float = MARGIN,
        what: str = "",
        round_number: int | None = None,
        lines: int | None = None,
    ) -> None:
        """``text`` wrapped to ``width``, line under line, moving ``y`` below it."""
        face = font(self.layout.language, size, bold=bold)
        for line in wrap(text, face, width, lines=lines):
            # an opening quote is a full-width glyph in the CJK faces, inked at its right: drawn
            # from its ink, so a quoted clue lines up with the text around it instead of indenting
            shift = _ink_left(face, line[0], size) if line[:1] in OPENING else 0
            self.add(Text(x - shift, self.y, line, size, bold, fill, round=round_number, what=what))
            self.y += round(size * 1.35)

    def token(self, x: float, y: float, seat: int, diameter: int = TOKEN, round_number: int | None = None) -> None:
        """A seat's rabbit as a coloured dot with its mark (centred at x, y): never colour alone."""
        colour = self.colours[seat] if seat < len(self.colours) else ""
        outline = "#777777" if colour in LIGHT else None
        self.add(Dot(x, y, diameter / 2, hex_of(colour), outline))
        mark = self.marks[seat] if seat < len(self.marks) else "?"
        size = SMALL if len(mark) == 1 else SMALL - 4 if diameter >= TOKEN else SMALL - 8
        # (two-letter marks shrink a little to stay inside the dot; a mark is a label, not text to read)
        if right_to_left(mark):  # a Hebrew or Arabic letter: its ink centred in the dot, and inside it
            size, x, y = _centred(self.layout.language, mark, size, diameter=diameter, centre=(x, y))
            self.add(Text(x, y, mark, size, True, ink_on(colour), "ls", round_number, "mark"))
            return
        self.add(Text(x, y, mark, size, True, ink_on(colour), "mm", round_number, "mark"))

    def rule(self) -> None:
        self.add(Box((MARGIN, self.y, WIDTH - MARGIN, self.y + 3), fill=RULE))
        self.y += 3


def _centred(
    language: str, mark: str, size: int, *, diameter: float, centre: tuple[float, float]
) -> tuple[int, float, float]:
    """A size, ``size`` or less, at which ``mark``'s ink fits in 70 % of a dot's ``diameter``, and
    where to draw it (left, baseline) for its ink to be centred on ``centre``: an Arabic letter is
    wide and sits low, so centring its line as a Latin capital's would leave it half out of the dot."""
    while True:
        left, top, right, bottom = ink_box(mark, font(language, size, bold=True))
        if max(right - left, bottom - top) <= diameter * 0.7 or size <= 12:
            return size, centre[0] - (left + right) / 2, centre[1] - (top + bottom) / 2
        size -= 2


def _ink_left(face: Font, char: str, size: int) -> int:
    """How far right of its origin ``char`` starts to ink (at most half the size)."""
    ink = face.getmask(char).getbbox()
    return min(ink[0], size // 2) if ink else 0


def sides_of(album: Album) -> list[list[int]]:
    """Who scores together: each team's seats in teams, else each seat alone."""
    if album.teams:
        return [list(pair) for pair in album.teams]
    return [[player.seat] for player in album.players]
