"""What a clue may be: the one place a storyteller's text is checked and trimmed.

A clue is shown to every seat exactly as stored, so anything that could make it read differently
for different players (control characters, bidi overrides, invisible format characters) is
refused: the policy is `fabula.text.clue_text`, shared with the other kinds of player text.

A clue may also be *said aloud* at the table (the rule sheet allows a word, sound, phrase or
mime): then the typed words are optional, kept for the album and the bots, and a clue said aloud
without words is the empty string (`NO_WORDS`). An empty clue is never taken without ``aloud``.

>>> clean_clue("  Freedom ")
'Freedom'
>>> clean_clue(None, aloud=True), clean_clue("  ", aloud=True), clean_clue(" hum ", aloud=True)
('', '', 'hum')
"""

from __future__ import annotations

from fabula.errors import CommonCode
from fabula.text import Reason, TextRefused, clue_text

from .errors import IllegalAction, RuleCode, quoted

#: Clues are 1..200 characters once trimmed.
CLUE_MAX = 200
#: The words of a clue said aloud with none typed: the engine's clue string then.
NO_WORDS = ""
#: The code of each refusal of `fabula.text.clue_text`.
REFUSALS: dict[Reason, RuleCode] = {
    "empty": RuleCode.CLUE_EMPTY,
    "too_long": RuleCode.CLUE_TOO_LONG,
    "invalid": RuleCode.CLUE_INVALID,
}


def clean_clue(clue: object, *, aloud: object = False, sound: str | None = None) -> str:
    """The clue as it will be shown (trimmed), or `IllegalAction` saying what is wrong with it.

    ``aloud``: the storyteller said the clue at the table, and ``clue`` (optional, may be blank)
    is what they typed for the album and the bots; `NO_WORDS` when nothing was typed. A clue
    with a recorded ``sound`` takes optional words alike."""
    if type(aloud) is not bool:
        raise IllegalAction(CommonCode.MALFORMED, f"'aloud' is true or false; got {quoted(aloud)}.")
    aloud = aloud or sound is not None
    if clue is None:
        if aloud:
            return NO_WORDS
        raise IllegalAction(RuleCode.CLUE_REQUIRED, "Give a clue with the card, or say it aloud (aloud: true).")
    if not isinstance(clue, str):
        raise IllegalAction(CommonCode.MALFORMED, f"A clue is text; got {quoted(clue)}.")
    if aloud and not clue.strip():
        return NO_WORDS
    try:
        return clue_text(clue, limit=CLUE_MAX)
    except TextRefused as refused:
        raise IllegalAction(REFUSALS[refused.reason], refused.message) from None
