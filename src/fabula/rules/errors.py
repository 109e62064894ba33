"""The two ways a request to the rules can be refused.

Both carry a stable machine ``code`` (what a client switches on) and a human ``message`` (what a
person reads). Whatever raised them, the game they were raised against is unchanged.
"""

from __future__ import annotations

import reprlib

_QUOTE = reprlib.Repr()
_QUOTE.maxstring, _QUOTE.maxlong, _QUOTE.maxlist, _QUOTE.maxdict, _QUOTE.maxlevel = 40, 24, 6, 4, 2


def quoted(value: object) -> str:
    """``value`` as a refusal quotes what a client sent: short, whatever its size (a 500-digit
    number, a 16 KB string).

    >>> quoted(10**500)
    'a number of about 501 digits'
    >>> quoted("x" * 100)
    "'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx'"
    """
    if isinstance(value, int) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        return _QUOTE.repr(value)
    except ValueError:  # a number too long to write out, deeper inside
        return "a value too large to show"


class RulesError(Exception):
    """A request the rules refuse; ``code`` is stable, ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalAction(RulesError):
    """An action that breaks a rule, names an unknown card or slot, or comes at the wrong time.

    >>> from fabula.rules import Game, Vote
    >>> game = Game.new("odyssey", seats=4, seed=1)
    >>> try:
    ...     game.apply(Vote(seat=1, slots=(1,)))
    ... except IllegalAction as refused:
    ...     print(refused.code)
    wrong_phase
    """


class InvalidSetup(RulesError):
    """A game that cannot be created: wrong seat count, an unknown or ill-typed option, a deck
    too small for the table."""
