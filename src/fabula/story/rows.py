"""The whole album's rounds, a compact row each, under its head: the storyteller's card (one
thumbnail: the other cards would be unreadable smudges at the size a row allows, and the round's own
picture shows them), the round's number and storyteller, the clue (at most `CLUE_LINES` lines), who
found the card (party: who chose it, and whose card the red token was on) and each side's points as
chips.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fabula.rules.results import RoundResult

from .fonts import ellipsis, font, width_of
from .items import GOLD, INK, MUTED, RED, WIDTH, Box, Card, Text
from .page import BODY, MARGIN, SMALL, Page, sides_of
from .words import Words

THUMB_W, THUMB_H = 120, 180  # the storyteller's card in a round's row
CHIP = 40  # the height of a side's chip of points, and the diameter of a token in a row
ROW_TOKEN = 36
ROW_CLUE = 34
#: a clue takes at most this many lines in a row (the round's own picture shows it whole): so a
#: row stays under ~450 pixels whatever its clue, and 60 rounds of 12 fit under `MAX_HEIGHT`
CLUE_LINES = 5
CHIP_FILL = "#EFE9DD"


def clue_words(say: Words, result: RoundResult) -> str:
    """The round's clue as the album shows it: quoted; said aloud, its typed words marked so, or
    "(said aloud)" alone when none were typed; a recorded sound alike, "(sound)"."""
    if result.sound:
        if not result.clue:
            return say("album.sound_clue")
        return say("album.clue_sound", clue=say("png.clue", clue=result.clue))
    if not result.aloud:
        return say("png.clue", clue=result.clue)
    if not result.clue:
        return say("album.said_aloud")
    return say("album.clue_aloud", clue=say("png.clue", clue=result.clue))


def chip_width(page: Page, sides: Sequence[Sequence[int]]) -> float:
    """One width for every chip of the album (the widest a side needs): chips line up in columns
    from round to round, so a reader follows a player down the page."""
    bold = font(page.layout.language, SMALL, bold=True)
    best = max((max(result.points, default=0) for result in page.album.rounds), default=0)
    text = max(width_of(f"+{points}", bold) for points in (best, 8))
    members = max((len(side) for side in sides), default=1)
    return 6 + members * (ROW_TOKEN + 4) + 4 + text + 12


def compact_round(page: Page, result: RoundResult, chip: float) -> None:
    """One round in a row: the storyteller's card at the left; at its right the round's number and
    storyteller, the clue, who found the card (party: who chose it, and the red token), and each
    side's points this round as a chip (its tokens and "+N")."""
    say, number = page.say, result.round
    language = page.layout.language
    page.rule()
    top = page.y + 18
    page.add(Box((MARGIN - 4, top - 4, MARGIN + THUMB_W + 4, top + THUMB_H + 4), outline=GOLD, width=4, radius=12))
    page.add(Card(MARGIN, round(top), THUMB_W, THUMB_H, result.storyteller_card, number))
    left = MARGIN + THUMB_W + 28
    width = WIDTH - MARGIN - left
    # the round and its storyteller, on one line
    middle = top + 20
    title = say("reveal.title_round", round=number)
    heading = font(language, BODY, bold=True)
    page.add(Text(left, middle, title, BODY, True, MUTED, "lm", number, "round"))
    x = left + width_of(title, heading) + 20
    page.token(x + ROW_TOKEN / 2, middle, result.storyteller, ROW_TOKEN, number)
    x += ROW_TOKEN + 10
    name = ellipsis(page.name(result.storyteller), font(language, BODY), WIDTH - MARGIN - x)
    page.add(Text(x, middle, name, BODY, False, INK, "lm", number, "storyteller"))
    page.y = top + 46
    page.text(
        clue_words(say, result),
        ROW_CLUE,
        bold=True,
        width=width,
        x=left,
        what="clue",
        round_number=number,
        lines=CLUE_LINES,
    )
    page.y += 4
    _finders(page, result, left)
    _chips(page, result, left, chip)
    page.y = max(page.y, top + THUMB_H + 4) + 18


def _finders(page: Page, result: RoundResult, left: float) -> None:
    """Who found the storyteller's card, as their tokens (party: who chose it; it scores as any other
    image there); and in party whose card the red token was on."""
    say, number = page.say, result.round
    small = font(page.layout.language, SMALL)
    middle = page.y + CHIP / 2
    party = result.red is not None or page.album.mode == "party"
    found = [seat for seat in dict.fromkeys(result.finders) if seat != result.storyteller or party]
    everyone = bool(found) and not party and set(found) >= set(result.voters) - {result.storyteller}
    if not found:
        label = say("png.chosen_nobody") if party else say("png.found_nobody")
    elif everyone:
        label = say("png.found_everyone")
    else:
        label = say("png.chosen") if party else say("png.found")
    page.add(Text(left, middle, label, SMALL, False, MUTED, "lm", number, "found"))
    x = left + width_of(label, small) + 12
    for seat in found:
        if x + ROW_TOKEN > WIDTH - MARGIN:  # (cannot happen with 12 seats; a guard for odd records)
            break
        page.token(x + ROW_TOKEN / 2, middle, seat, ROW_TOKEN, number)
        x += ROW_TOKEN + 4
    if result.red is not None and 1 <= result.red <= len(result.owners):
        # the red token on the same line if it fits there, else under it
        owner = result.owners[result.red - 1]
        bold = font(page.layout.language, SMALL, bold=True)
        text = ellipsis(say("png.red_on", name=page.name(owner)), bold, WIDTH - MARGIN - left - 32)
        wide = width_of(text, bold) + 32
        if x + 20 + wide > WIDTH - MARGIN:
            page.y += CHIP + 6
            x = left
        else:
            x += 20
        middle = page.y + CHIP / 2
        page.add(Box((x, page.y, x + wide, page.y + CHIP), fill=RED, radius=CHIP // 2))
        page.add(Text(x + 16, middle, text, SMALL, True, "#FFFFFF", "lm", number, "red"))
    page.y += CHIP + 6


def _chips(page: Page, result: RoundResult, left: float, chip: float) -> None:
    """Each side's points this round: a chip per side, in seat order, wrapping at the margin."""
    number = result.round
    columns = max(1, int((WIDTH - MARGIN - left + 8) // (chip + 8)))
    sides = sides_of(page.album)
    for k, side in enumerate(sides):
        row, column = divmod(k, columns)
        x = left + column * (chip + 8)
        y = page.y + row * (CHIP + 8)
        gained = result.points[side[0]] if side[0] < len(result.points) else 0
        page.add(Box((x, y, x + chip, y + CHIP), fill=CHIP_FILL, radius=CHIP // 2))
        tx = x + 6
        for member in side:
            page.token(tx + ROW_TOKEN / 2, y + CHIP / 2, member, ROW_TOKEN, number)
            tx += ROW_TOKEN + 4
        page.add(
            Text(
                tx + 4, y + CHIP / 2, f"+{gained}", SMALL, gained > 0, INK if gained else MUTED, "lm", number, "points"
            )
        )
    rows = math.ceil(len(sides) / columns)
    page.y += rows * (CHIP + 8) - 8
