"""The two ways a request to the rules can be refused.

Both carry a stable machine ``code`` (what a client switches on) and a human ``message`` (what a
person reads). Whatever raised them, the game they were raised against is unchanged.
"""

from __future__ import annotations


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
