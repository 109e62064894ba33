"""What Fabula does with text people type: one policy per kind, sharing their steps.

- `clue_text` — a storyteller's clue: trimmed at both ends and otherwise kept exactly as typed
  (inner spaces too); refused when empty, too long, or when it holds anything that would make
  it read differently for different players (`REFUSED_IN_CLUES`).
- `line_text` — a player's name and a chat line: invisible characters (`REMOVED_FROM_LINES`)
  dropped, every run of whitespace made one space, the ends trimmed; refused when nothing is
  left or it is too long.
- `caption_text` — a card's description in an imported deck: whitespace collapsed as for a line,
  then control characters dropped; never refused for being empty (a card may have none), only for
  being too long.

The steps they share: `collapse_spaces`, `has_controls` and the `JOINERS` every policy keeps.
Lengths are counted in code points (``len``), not in what a reader sees as characters: an emoji
joined with U+200D counts each of its parts, and a letter with a combining accent counts two.
The bounds themselves belong to the callers (`fabula.rules.CLUE_MAX`, the room's ``NAME_MAX``
and ``CHAT_MAX``, `fabula.cards.importer.ImportLimits`), who also turn `TextRefused` into their
own errors.

This module imports nothing of Fabula's, so every layer may use it — the rules too, which
otherwise import nothing outside `fabula.rules`.

>>> line_text("  Mara\\u202e \\t B ", limit=24, what="name")
'Mara B'
>>> clue_text("  Freedom  at last ", limit=200)
'Freedom  at last'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from typing import Literal

#: Zero-width non-joiner and joiner: invisible format characters, but emoji sequences
#: (👩‍👩‍👧) and some scripts (Persian, the Indic ones) need them, so every policy keeps them.
JOINERS = frozenset("\u200c\u200d")
#: What a clue may not hold: control characters (C0, C1: tabs, line breaks, escapes), lone
#: surrogates, line and paragraph separators, and the invisible format characters other than
#: the joiners (bidi overrides, zero-width space, byte-order mark), which could make one clue
#: read differently for different players.
REFUSED_IN_CLUES = frozenset({"Cc", "Cs", "Zl", "Zp", "Cf"})
#: What a name or a chat line loses: control characters, invisible format characters other than
#: the joiners, and lone surrogates (which cannot even be encoded as UTF-8).
REMOVED_FROM_LINES = frozenset({"Cc", "Cf", "Cs"})
#: What a caption loses once its whitespace is collapsed: the control characters left.
REMOVED_FROM_CAPTIONS = frozenset({"Cc"})

Reason = Literal["empty", "too_long", "invalid"]


class TextRefused(ValueError):
    """Text a policy refuses: ``reason`` for a machine (``empty``, ``too_long``, ``invalid``), a
    ``message`` for a person, and the ``length`` of the text as it was measured."""

    def __init__(self, reason: Reason, message: str, length: int) -> None:
        super().__init__(message)
        self.reason: Reason = reason
        self.message = message
        self.length = length


# ---------------------------------------------------------------- steps


def _hidden(ch: str, categories: Collection[str]) -> bool:
    return unicodedata.category(ch) in categories and ch not in JOINERS


def _without(text: str, categories: Collection[str]) -> str:
    """``text`` without its characters of the Unicode ``categories`` (the joiners stay)."""
    return "".join(ch for ch in text if not _hidden(ch, categories))


def collapse_spaces(text: str) -> str:
    """``text`` with each run of whitespace (anything `str.isspace`, line breaks included) made one
    space and none at the ends."""
    return " ".join(text.split())


def has_controls(text: str) -> bool:
    """Whether ``text`` holds a control character (category Cc: C0, DEL, C1)."""
    return any(unicodedata.category(ch) == "Cc" for ch in text)


# ---------------------------------------------------------------- policies


def clue_text(text: str, *, limit: int) -> str:
    """The clue as it will be shown: ``text`` trimmed at both ends, nothing else changed.

    `TextRefused`: ``empty`` once trimmed; ``too_long`` over ``limit`` code points (checked before
    the characters, so an over-long clue is told its length first); ``invalid`` when it holds a
    character of `REFUSED_IN_CLUES` — refused rather than removed, as the storyteller chose each
    word and should see what the others will.
    """
    trimmed = text.strip()
    if not trimmed:
        raise TextRefused("empty", "The clue is empty.", 0)
    if len(trimmed) > limit:
        raise TextRefused(
            "too_long", f"A clue has at most {limit} characters; this one has {len(trimmed)}.", len(trimmed)
        )
    # Every refused category is one `str.isprintable` calls unprintable (Other, Separator): a
    # printable clue needs no look at each character.
    if not trimmed.isprintable() and any(_hidden(ch, REFUSED_IN_CLUES) for ch in trimmed):
        raise TextRefused("invalid", "A clue is one line of text without control characters.", len(trimmed))
    return trimmed


def line_text(text: str, *, limit: int, what: str) -> str:
    """A name or a chat line as one line of plain text: the characters of `REMOVED_FROM_LINES`
    dropped (so a tab or a line break between two words joins them), then whitespace collapsed.

    `TextRefused` when nothing is left (``empty``) or more than ``limit`` code points are
    (``too_long``); ``what`` is the word its message uses ("name", "message").
    """
    cleaned = collapse_spaces(_without(text, REMOVED_FROM_LINES))
    if not cleaned:
        raise TextRefused("empty", f"The {what} is empty.", 0)
    if len(cleaned) > limit:
        raise TextRefused(
            "too_long", f"A {what} has at most {limit} characters; this one has {len(cleaned)}.", len(cleaned)
        )
    return cleaned


def caption_text(text: str, *, limit: int) -> str:
    """A card's description as one line of plain text — it is alt text, a bot's input and
    sometimes printed to a terminal: whitespace collapsed first (a line break or a tab becomes a
    space), then the remaining control characters dropped. May be empty.

    `TextRefused` (``too_long``) over ``limit`` code points.
    """
    cleaned = _without(collapse_spaces(text), REMOVED_FROM_CAPTIONS)
    if len(cleaned) > limit:
        raise TextRefused(
            "too_long", f"A caption has at most {limit} characters; this one has {len(cleaned)}.", len(cleaned)
        )
    return cleaned
