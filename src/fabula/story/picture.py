"""An album drawn as one PNG to share in a group chat: the ranking, the score chart, then every round.

Drawing is two steps. `layout` places everything — texts, card pictures, dots, lines — as a list
of plain items on a page 1080 pixels wide (a phone's screen at full width; no text smaller than
28 pixels), without touching a picture; `draw` paints those items with Pillow. So the tests can
read a layout (is every round's clue there? every player's points?) without decoding a PNG, and
the pictures asked for are exactly the cards the layout placed (`cards_needed`): only cards laid
on a table of a drawn round, never one from a hand or the deck.

The parts: the items and their painting are `items`; the page they are placed on (margins, type
sizes, each seat's name and token) is `page`; the whole album's compact rows are `rows`; the head
(the ranking and the score chart) and one round in detail are placed here.

A seat taken over during the game (`Album.takeovers`) is named in each round by who played it then
(`Seatings` names the page's seats round by round), a line says who took it over from which round
(above that round's row), and the final ranking says it beside the seat's last player's name.

The whole album tells the game as a story, a compact row per round under the head: the
storyteller's card (one thumbnail: the other cards would be unreadable smudges at the size a row
allows, and the round's own picture shows them), the round's number and storyteller, the clue (at
most `CLUE_LINES` lines), who found the card (party: who chose it, and whose card the red token
was on) and each side's points as chips. A row is about 220 pixels at 6 seats and 270 at 12 (two
lines of chips), so 30 rounds of 6 make 1080 × 8 000 pixels (~0.35 s, ~55 MiB at the peak; 1.6 MB)
and a party of 12 seats' two cycles 8 000 too (benchmarks/album_png.py); 60 rounds of 12 seats,
every clue as long as a clue can be, 29 700. One round (``round_number``) is drawn in detail: every
card with its number, owner and the tokens on it, and every side's points and total. A picture
taller than `MAX_HEIGHT` is refused with `TooTall` once the layout shows it, before any pixel is
drawn: a guard for games longer than any real one (hundreds of rounds), whose caller can still
offer the rounds one by one.

>>> from fabula.story import Album
>>> album = Album(number=1, mode="odyssey", options={}, players=[], teams=None, started_at=0.0)
>>> cards_needed(album), render_album(album, {})[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
([], True)
"""

from __future__ import annotations

import io
import math
import time
from collections.abc import Mapping, Sequence

import msgspec

from fabula.rules.results import RoundResult

from .album import Album, Player, TakeOver
from .fonts import ellipsis, font, width_of
from .items import GOLD, INK, MUTED, RED, RULE, WIDTH, Box, Card, Dot, Layout, Line, Text, draw
from .page import BODY, CARD_GAP, CLUE, HEADING, INNER, MARGIN, SMALL, STAR, TITLE, TOKEN, Page, shown_names, sides_of
from .rabbits import LIGHT, hex_of
from .rows import CLUE_LINES, ROW_CLUE, THUMB_W, chip_width, clue_words, compact_round

# (the layout's measures, items and names are read from here too, where they were defined before
# the picture was split into its parts: the tests read a layout with them)
__all__ = [
    "CLUE_LINES",
    "MARGIN",
    "MAX_HEIGHT",
    "ROW_CLUE",
    "THUMB_W",
    "WIDTH",
    "Card",
    "Layout",
    "Text",
    "TooTall",
    "cards_needed",
    "draw",
    "layout",
    "render_album",
    "shown_names",
]

#: the tallest picture drawn (1080 × 32 000 × 3 bytes: 104 MB while it is painted, ~170 MiB at
#: the peak); a guard: 60 compact rounds of 12 seats with the longest clues make 29 700
MAX_HEIGHT = 32_000


class TooTall(ValueError):
    """The picture would be taller than `MAX_HEIGHT`: draw it a round at a time."""


# ---------------------------------------------------------------- what the caller fetches


def _drawn_rounds(album: Album, round_number: int | None) -> list[RoundResult]:
    if round_number is None:
        return list(album.rounds)
    found = [result for result in album.rounds if result.round == round_number]
    if not found:
        raise ValueError(f"The album has no round {round_number}; it has {len(album.rounds)}.")
    return found


def cards_needed(album: Album, round_number: int | None = None) -> list[str]:
    """The cards whose pictures `render_album` will ask for: those laid on the tables of the rounds
    drawn, each once, in the order they appear: a round's whole table for ``round_number``, the
    storyteller's card of every round for the whole album (its compact rows show no other)."""
    drawn = _drawn_rounds(album, round_number)
    if round_number is None:
        return list(dict.fromkeys(result.storyteller_card for result in drawn))
    return list(dict.fromkeys(card for result in drawn for card in result.table))


# ---------------------------------------------------------------- who sat where, round by round


class Seatings:
    """Each seat's name, mark and colour on ``page`` as they were in a round: a seat taken over
    keeps, for the rounds before, the name of who played it then. Everyone who sat at the table gets
    their own mark once (those at the start first, then each newcomer), so a person keeps one mark
    through the whole picture."""

    def __init__(self, page: Page) -> None:
        self.page, album = page, page.album
        #: everyone who sat at the table: those at the start, then each newcomer in turn
        self.people: list[Player] = [*album.players_in(0), *(change.player for change in album.takeovers)]
        everyone = Page(msgspec.structs.replace(album, players=self.people, takeovers=[]), page.layout.language)
        self._names, self._marks, self._colours = everyone.names, everyone.marks, everyone.colours
        self.show(None)

    def shown(self, player: Player) -> str:
        """``player``'s name as the page shows it."""
        return self._names[self.people.index(player)]

    def show(self, round_number: int | None) -> None:
        """Name the page's seats as in round ``round_number`` (None: the last to sit in each)."""
        album = self.page.album
        players = album.players if round_number is None else album.players_in(round_number)
        at = [self.people.index(player) for player in players]
        self.page.names = [self._names[k] for k in at]
        self.page.marks = [self._marks[k] for k in at]
        self.page.colours = [self._colours[k] for k in at]

    def took_over(self, change: TakeOver) -> str:
        """The line that says it: "Leo took over Hal's seat from round 4"."""
        return self.page.say(
            "album.took_over", name=self.shown(change.player), former=self.shown(change.former), round=change.round
        )

    def ranked(self, seat: int) -> str:
        """A seat's name in the final ranking: its last player's, and — taken over — from whom, when."""
        name = self.page.name(seat)
        changes = [change for change in self.page.album.takeovers if change.seat == seat]
        if not changes:
            return name
        last = changes[-1]
        return self.page.say("album.took_over_ranked", name=name, former=self.shown(last.former), round=last.round)


def _took_over_lines(page: Page, seatings: Seatings, changes: Sequence[TakeOver], round_number: int | None) -> None:
    """A line for each of ``changes`` (above the round it starts in)."""
    for change in changes:
        page.y += 10
        page.text(seatings.took_over(change), SMALL, bold=True, fill=GOLD, what="took_over", round_number=round_number)


# ---------------------------------------------------------------- the head: the ranking and the chart


def _final_scores(album: Album) -> list[int]:
    if album.outcome is not None:
        return list(album.outcome.scores)
    if album.rounds:
        return list(album.rounds[-1].scores)
    return [0] * len(album.players)


def _head(page: Page, seatings: Seatings) -> None:
    """The title, the winners and the ranking, and the score chart."""
    album, say = page.album, page.say
    page.text(say(f"mode.{album.mode}"), TITLE, bold=True, what="title")
    when = album.ended_at if album.ended_at is not None else album.started_at
    date = time.strftime("%Y-%m-%d", time.gmtime(when))  # UTC: the server knows no reader's zone
    page.text(say("png.game", number=album.number, date=date), BODY, fill=MUTED, what="title")
    if album.outcome is None:
        page.text(say("png.unfinished"), BODY, fill=MUTED, what="status")
    elif album.ended_by_host:
        page.text(say("png.ended_by_host"), BODY, fill=MUTED, what="status")
    page.y += 16
    sides = sides_of(album)
    scores = _final_scores(album)
    if not sides:
        return
    if album.outcome is not None:
        winners = [side for side in sides if side[0] in album.outcome.winners]
        names = [" & ".join(page.name(seat) for seat in side) for side in winners]
        one = len(names) == 1
        listed = say("app.list_separator").join(names[:-1]) + say("app.list_and") + names[-1] if not one else ""
        headline = say("over.winner", name=names[0]) if one else say("over.shared", names=listed)
        page.text(headline, HEADING, bold=True, fill=GOLD, what="winner")
        page.y += 8
    page.text(say("png.ranking"), HEADING, bold=True, what="heading")
    ranked = sorted(sides, key=lambda side: -scores[side[0]])
    row = 56
    for side in ranked:
        score = scores[side[0]]
        rank = 1 + sum(1 for other in sides if scores[other[0]] > score)  # ties share a rank
        top = page.y
        page.add(Text(MARGIN, top + row / 2, f"{rank}.", BODY, True, INK, "lm", what="rank"))
        x = MARGIN + 70
        for seat in side:
            page.token(x + TOKEN / 2, top + row / 2, seat)
            x += TOKEN + 8
        label = " & ".join(seatings.ranked(seat) for seat in side)
        face = font(page.layout.language, BODY)
        shown = ellipsis(label, face, WIDTH - MARGIN - 140 - (x + 8))
        page.add(Text(x + 8, top + row / 2, shown, BODY, False, INK, "lm", what="ranked"))
        page.add(Text(WIDTH - MARGIN, top + row / 2, str(score), BODY, True, INK, "rm", what="final"))
        page.y += row
    page.y += 24
    page.text(say("track.scores"), HEADING, bold=True, what="heading")
    _chart(page, sides)


def _ticks(top: int, count: int) -> list[int]:
    """Round numbers from 0 to at least ``top``, at most about ``count`` of them."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000):
        if top / step <= count:
            return list(range(0, top + step, step))
    return [0, top]


def _chart(page: Page, sides: list[list[int]]) -> None:
    """A line per side of `Album.score_lines`, each ending at its side's tokens."""
    lines = page.album.score_lines()
    if not lines:
        return
    height = 520
    left, right = MARGIN + 64, WIDTH - MARGIN - 130
    top, bottom = page.y + 20, page.y + height - 50
    rounds = len(lines[0]) - 1
    y_ticks = _ticks(max(1, *(max(line) for line in lines)), 6)
    high = y_ticks[-1]

    def at(round_index: int, score: int) -> tuple[float, float]:
        return (
            left + (right - left) * round_index / max(1, rounds),
            bottom - (bottom - top) * score / high,
        )

    for score in y_ticks:
        _, y = at(0, score)
        page.add(Line(((left, y), (right, y)), RULE, 2))
        page.add(Text(left - 12, y, str(score), SMALL, False, MUTED, "rm", what="axis"))
    for round_index in _ticks(rounds, 10):
        if round_index <= rounds:
            x, _ = at(round_index, 0)
            page.add(Text(x, bottom + 12, str(round_index), SMALL, False, MUTED, "ma", what="axis"))
    ends: list[tuple[float, list[int]]] = []
    for side in sides:
        line = lines[side[0]]
        points = tuple(at(k, score) for k, score in enumerate(line))
        colour = page.colours[side[0]] if side[0] < len(page.colours) else ""
        if colour in LIGHT:  # a pale line on a pale page needs an edge
            page.add(Line(points, "#777777", 9))
        page.add(Line(points, hex_of(colour), 5))
        ends.append((points[-1][1], side))
    # the tokens at the right edge, in the order of the lines' ends, pushed apart so none overlap
    ends.sort(key=lambda end: end[0])
    placed: list[float] = []
    for wanted, _ in ends:
        placed.append(max(wanted, placed[-1] + TOKEN + 4) if placed else wanted)
    overflow = placed[-1] - (bottom + TOKEN / 2) if placed else 0
    if overflow > 0:
        placed = [y - overflow for y in placed]
    for (end_y, side), y in zip(ends, placed, strict=True):
        page.add(Line(((right, end_y), (right + 22, y)), MUTED, 2))
        x = right + 22 + TOKEN / 2
        for seat in side:
            page.token(x, y, seat)
            x += TOKEN + 4
    page.y += height + 10


# ---------------------------------------------------------------- one round in detail


def _round(page: Page, result: RoundResult, stood_in: Sequence[int]) -> None:
    """One round: its number, the storyteller and the clue, the table, and the points."""
    say, number = page.say, result.round
    page.rule()
    page.y += 20
    page.text(say("reveal.title_round", round=number), HEADING, bold=True, what="round", round_number=number)
    teller = page.name(result.storyteller)
    page.text(say("table.storyteller", name=teller), BODY, what="storyteller", round_number=number)
    page.text(clue_words(say, result), CLUE, bold=True, what="clue", round_number=number)
    page.y += 16
    _table(page, result)
    _points(page, result, stood_in)


def _table(page: Page, result: RoundResult) -> None:
    """The cards laid, in slot order, each with its number, owner and the tokens on it."""
    count = len(result.table)
    columns = 6 if count > 5 else 5
    width = (INNER - CARD_GAP * (columns - 1)) // columns
    height = width * 3 // 2
    per_row = max(1, (width + 6) // (TOKEN + 6))
    on_slot: list[list[int]] = [[] for _ in range(count)]
    for seat, slots in enumerate(result.votes):
        for slot in slots:
            if 1 <= slot <= count:
                on_slot[slot - 1].append(seat)
    language, number = page.layout.language, result.round
    small = font(language, SMALL)
    for first in range(0, count, columns):
        top = page.y
        deepest = 0.0
        for index in range(first, min(first + columns, count)):
            x = MARGIN + (index - first) * (width + CARD_GAP)
            card, slot = result.table[index], index + 1
            told = card == result.storyteller_card
            page.add(Card(x, round(top), width, height, card, number))
            if told:  # the storyteller's card: a gold frame and a star (not colour alone)
                page.add(Box((x - 5, top - 5, x + width + 5, top + height + 5), outline=GOLD, width=6, radius=14))
                page.add(Dot(x + width - 22, top + 22, 22, GOLD))
                page.add(Text(x + width - 22, top + 22, STAR, SMALL, True, "#FFFFFF", "mm", number, "teller_card"))
            if result.red is not None and result.red == slot:
                strip = top + height - 44
                page.add(Box((x, strip, x + width, top + height), fill=RED))
                label = ellipsis(page.say("table.red_token"), small, width - 8)
                page.add(Text(x + width / 2, strip + 22, label, SMALL, True, "#FFFFFF", "mm", number, "red"))
            page.add(Dot(x + 22, top + 22, 22, "#FFFFFF", INK))
            page.add(Text(x + 22, top + 22, str(slot), SMALL, True, INK, "mm", number, "slot"))
            y = top + height + 10
            owner = result.owners[index] if index < len(result.owners) else -1
            colour = page.colours[owner] if 0 <= owner < len(page.colours) else ""
            page.add(Dot(x + 12, y + SMALL * 0.7, 12, hex_of(colour), "#777777" if colour in LIGHT else None))
            label = (STAR + " " if told else "") + page.name(owner)
            page.add(Text(x + 30, y, ellipsis(label, small, width - 30), SMALL, told, INK, round=number, what="owner"))
            y += SMALL * 1.5 + 6
            for k, seat in enumerate(on_slot[index]):
                row, column = divmod(k, per_row)
                page.token(x + column * (TOKEN + 6) + TOKEN / 2, y + row * (TOKEN + 6) + TOKEN / 2, seat, TOKEN, number)
            rows = math.ceil(len(on_slot[index]) / per_row)
            deepest = max(deepest, y + rows * (TOKEN + 6) - top)
        page.y = top + deepest + 24


def _points(page: Page, result: RoundResult, stood_in: Sequence[int]) -> None:
    """Each side's points this round and its total, in two columns."""
    number, say = result.round, page.say
    sides = sides_of(page.album)
    column = (INNER - 40) / 2
    row = 54
    face = font(page.layout.language, SMALL)
    bold = font(page.layout.language, SMALL, bold=True)
    for k, side in enumerate(sides):
        x = MARGIN + (k % 2) * (column + 40)
        y = page.y + (k // 2) * row + row / 2
        seat = side[0]
        gained = result.points[seat] if seat < len(result.points) else 0
        total = result.scores[seat] if seat < len(result.scores) else 0
        score = say("png.points", points=f"+{gained}", total=total)
        score_width = width_of(score, bold)
        page.add(Text(x + column, y, score, SMALL, True, INK, "rm", number, "points"))
        left = x
        for member in side:
            page.token(left + TOKEN / 2, y, member, TOKEN, number)
            left += TOKEN + 6
        label = " & ".join(page.name(member) for member in side)
        if any(member in stood_in for member in side):
            label += " " + say("png.stood_in")
        shown = ellipsis(label, face, x + column - score_width - 16 - (left + 4))
        page.add(Text(left + 4, y, shown, SMALL, False, INK, "lm", number, "scorer"))
    page.y += math.ceil(len(sides) / 2) * row + 30


def layout(album: Album, *, language: str = "en", round_number: int | None = None) -> Layout:
    """Where everything of the picture goes (`TooTall` if the page would pass `MAX_HEIGHT`)."""
    page = Page(album, language)
    seatings = Seatings(page)
    drawn = _drawn_rounds(album, round_number)
    if round_number is None:
        _head(page, seatings)
    else:  # one round: which game it is from, in one line
        say = page.say
        page.text(f"{say(f'mode.{album.mode}')} · {say('png.game_number', number=album.number)}", BODY, fill=MUTED)
        page.y += 16
    stand_ins = {k + 1: seats for k, seats in enumerate(album.stand_ins)}
    chip = chip_width(page, sides_of(album))
    untold = list(album.takeovers)  # the take-overs whose line is still to come
    for result in drawn:
        told = [change for change in untold if change.round <= result.round]
        untold = [change for change in untold if change.round > result.round]
        if round_number is not None:  # (one round: only its own take-overs)
            told = [change for change in told if change.round == round_number]
        _took_over_lines(page, seatings, told, result.round)
        seatings.show(result.round)
        if round_number is None:
            compact_round(page, result, chip)
        else:
            _round(page, result, stand_ins.get(result.round, []))
        if page.y > MAX_HEIGHT:
            raise TooTall(f"The album is taller than {MAX_HEIGHT} pixels by round {result.round}; draw it by rounds.")
    if round_number is None and untold:  # taken over in a round never revealed: at the foot
        page.rule()
        _took_over_lines(page, seatings, untold, None)
        page.y += 20
    page.layout.height = math.ceil(page.y + MARGIN - 30)
    return page.layout


def render_album(
    album: Album, pictures: Mapping[str, bytes], *, language: str = "en", round_number: int | None = None
) -> bytes:
    """The album (or its round ``round_number``) as PNG bytes, 1080 pixels wide.

    ``pictures`` holds the picture (PNG or WebP, 2:3) of every card `cards_needed` names; no other
    card is looked up. Raises `TooTall` past `MAX_HEIGHT` and `ValueError` for a round the album
    does not have. Pure CPU work: a server calls it in a thread.
    """
    image = draw(layout(album, language=language, round_number=round_number), pictures)
    out = io.BytesIO()
    # level 1: a 30-round album encodes in ~0.6 s instead of ~2 s at the default 6, for a file ~18 %
    # larger (the card pictures, not the flat colours, make most of it); see benchmarks/album_png.py
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()
