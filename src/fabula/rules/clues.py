"""What a clue may be: the one place a storyteller's text is checked and trimmed.

A clue is shown to every seat exactly as stored, so anything that could make it read differently
for different players (control characters, bidi overrides, invisible format characters) is
refused here, before it reaches the game's state.

>>> clean_clue("  Freedom ")
'Freedom'
"""

from __future__ import annotations

import unicodedata

from .errors import IllegalAction, quoted

#: Clues are 1..200 characters once trimmed.
CLUE_MAX = 200

#: C0 and C1 control characters (line breaks, tabs, escapes…)
# Zero-width (non-)joiners are part of emoji and of some scripts; every other invisible format
# character (bidi overrides, zero-width space, byte-order mark) could make a clue read differently
# for different players.
_JOINERS = frozenset("\u200c\u200d")


def _unprintable(text: str) -> bool:
    """True if ``text`` holds a control character, a lone surrogate, a line or paragraph
    separator, or an invisible format character other than the joiners."""
    for ch in text:
        kind = unicodedata.category(ch)
        if kind in ("Cc", "Cs", "Zl", "Zp") or (kind == "Cf" and ch not in _JOINERS):
            return True
    return False


def clean_clue(clue: object) -> str:
    """The clue as it will be shown (trimmed), or `IllegalAction` saying what is wrong with it."""
    if clue is None:
        raise IllegalAction("clue_required", "Give a clue with the card.")
    if not isinstance(clue, str):
        raise IllegalAction("malformed", f"A clue is text; got {quoted(clue)}.")
    text = clue.strip()
    if not text:
        raise IllegalAction("clue_empty", "The clue is empty.")
    if len(text) > CLUE_MAX:
        raise IllegalAction("clue_too_long", f"A clue has at most {CLUE_MAX} characters; this one has {len(text)}.")
    if _unprintable(text):
        raise IllegalAction("clue_invalid", "A clue is one line of text without control characters.")
    return text
