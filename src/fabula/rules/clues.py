"""What a clue may be: the one place a storyteller's text is checked and trimmed.

A clue is shown to every seat exactly as stored, so anything that could make it read differently
for different players (control characters, bidi overrides, invisible format characters) is
refused: the policy is `fabula.text.clue_text`, shared with the other kinds of player text.

>>> clean_clue("  Freedom ")
'Freedom'
"""

from __future__ import annotations

from fabula.errors import CommonCode
from fabula.text import Reason, TextRefused, clue_text

from .errors import IllegalAction, RuleCode, quoted

#: Clues are 1..200 characters once trimmed.
CLUE_MAX = 200
#: The code of each refusal of `fabula.text.clue_text`.
REFUSALS: dict[Reason, RuleCode] = {
    "empty": RuleCode.CLUE_EMPTY,
    "too_long": RuleCode.CLUE_TOO_LONG,
    "invalid": RuleCode.CLUE_INVALID,
}


def clean_clue(clue: object) -> str:
    """The clue as it will be shown (trimmed), or `IllegalAction` saying what is wrong with it."""
    if clue is None:
        raise IllegalAction(RuleCode.CLUE_REQUIRED, "Give a clue with the card.")
    if not isinstance(clue, str):
        raise IllegalAction(CommonCode.MALFORMED, f"A clue is text; got {quoted(clue)}.")
    try:
        return clue_text(clue, limit=CLUE_MAX)
    except TextRefused as refused:
        raise IllegalAction(REFUSALS[refused.reason], refused.message) from None
