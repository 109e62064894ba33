"""What a clue may be: the one place a storyteller's text is checked and trimmed.

A clue is shown to every seat exactly as stored, so anything that could make it read differently
for different players (control characters, bidi overrides, invisible format characters) is
refused: the policy is `fabula.text.clue_text`, shared with the other kinds of player text.

>>> clean_clue("  Freedom ")
'Freedom'
"""

from __future__ import annotations

from fabula.text import TextRefused, clue_text

from .errors import IllegalAction, quoted

#: Clues are 1..200 characters once trimmed.
CLUE_MAX = 200


def clean_clue(clue: object) -> str:
    """The clue as it will be shown (trimmed), or `IllegalAction` saying what is wrong with it."""
    if clue is None:
        raise IllegalAction("clue_required", "Give a clue with the card.")
    if not isinstance(clue, str):
        raise IllegalAction("malformed", f"A clue is text; got {quoted(clue)}.")
    try:
        return clue_text(clue, limit=CLUE_MAX)
    except TextRefused as refused:
        raise IllegalAction(f"clue_{refused.reason}", refused.message) from None
