"""The two ways a request to the rules can be refused, and the codes they carry.

Both carry a stable machine ``code`` (a `RuleCode`, or `fabula.errors.CommonCode.MALFORMED`: what
a client switches on) and a human ``message`` (what a person reads). Whatever raised them, the
game they were raised against is unchanged.
"""

from __future__ import annotations

import reprlib

from fabula.errors import CommonCode, ErrorCode, Reach

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


class RuleCode(ErrorCode):
    """What the rules refuse: a move against them, or a game they cannot set up.

    Every one is a 400 over HTTP. Most can only come over the WebSocket (a move, the start of a
    game); the options' also over HTTP, as creating a room checks its settings. Those that reach
    ``NOWHERE`` are met only outside a live game: `fabula score` checking a whole round
    (`fabula.rules.rounds`), or a stored game read back."""

    # ------------------------------------------------ setting a game up (InvalidSetup)
    BAD_DECK = "bad_deck", 400, "The deck given to the game is not a list of distinct card ids.", Reach.SOCKET
    BAD_OPTION = "bad_option", 400, "An option has a value it cannot take.", Reach.BOTH
    BAD_SEAT_COUNT = "bad_seat_count", 400, "The mode is not played with this many players.", Reach.SOCKET
    BAD_SEATS = "bad_seats", 400, "The seats are not a number of seats, or one is named twice.", Reach.SOCKET
    BAD_SEED = "bad_seed", 400, "The game's seed is not an integer.", Reach.SOCKET
    BAD_TEAMS = "bad_teams", 400, "The teams are not pairs of the table's players, each in one pair.", Reach.SOCKET
    BAD_STATE = "bad_state", 400, "A stored game is in a format this Fabula does not read.", Reach.NOWHERE
    DECK_TOO_SMALL = "deck_too_small", 400, "The decks hold too few cards for this table.", Reach.SOCKET
    NO_END_CONDITION = "no_end_condition", 400, "The options leave the game no way to end.", Reach.BOTH
    OPTION_NOT_FOR_MODE = "option_not_for_mode", 400, "The option does not apply to this mode.", Reach.BOTH
    UNKNOWN_MODE = "unknown_mode", 400, "There is no such mode.", Reach.BOTH
    UNKNOWN_OPTION = "unknown_option", 400, "There is no such option.", Reach.BOTH

    # ------------------------------------------------ a move (IllegalAction)
    BAD_SEAT = "bad_seat", 400, "The action names a seat that is not at the table.", Reach.SOCKET
    BAD_SLOT = "bad_slot", 400, "The action names a slot the table does not have.", Reach.SOCKET
    CARD_NOT_IN_HAND = "card_not_in_hand", 400, "The card is not in the player's hand.", Reach.SOCKET
    CLUE_EMPTY = "clue_empty", 400, "The clue is empty.", Reach.SOCKET
    CLUE_INVALID = (
        "clue_invalid",
        400,
        "The clue holds a control or invisible character, which could make it read differently for different players.",
        Reach.SOCKET,
    )
    CLUE_REQUIRED = "clue_required", 400, "The storyteller's card comes with a clue.", Reach.SOCKET
    CLUE_TOO_LONG = "clue_too_long", 400, "The clue is too long.", Reach.SOCKET
    DUPLICATE_CARD = "duplicate_card", 400, "The same card is played twice.", Reach.SOCKET
    GAME_OVER = "game_over", 400, "The game is over: no more moves, and no seat to take over.", Reach.BOTH
    MISSING_VOTE = "missing_vote", 400, "A voter of the round has not voted.", Reach.NOWHERE
    NO_RED_TOKEN = "no_red_token", 400, "A red token in a mode that has none.", Reach.NOWHERE
    NOT_A_VOTER = "not_a_voter", 400, "A vote from a player who played a card, and so does not vote.", Reach.NOWHERE
    NOT_YOUR_TURN = (
        "not_your_turn",
        400,
        "This move is not awaited of this seat now (it is another player's, or the storyteller's).",
        Reach.SOCKET,
    )
    OWN_CARD = "own_card", 400, "A vote, or the red token, on the player's own card.", Reach.SOCKET
    RED_REQUIRED = "red_required", 400, "In party mode the storyteller places the red token.", Reach.NOWHERE
    SAME_SLOT = "same_slot", 400, "Both voting tokens on the same card.", Reach.SOCKET
    STORYTELLER_VOTES = "storyteller_votes", 400, "A vote from the storyteller, who does not vote.", Reach.NOWHERE
    TEAMMATE_CARD = "teammate_card", 400, "A vote for the teammate's card.", Reach.SOCKET
    UNKNOWN_CARD = "unknown_card", 400, "A vote, or the red token, on a card that is not on the table.", Reach.NOWHERE
    UNKNOWN_SEAT = "unknown_seat", 400, "The round names a seat that is not at the table.", Reach.NOWHERE
    WRONG_ACTION = (
        "wrong_action",
        400,
        "The game's mode has no such move (blind clues and the red token are party's, proposals teams').",
        Reach.SOCKET,
    )
    WRONG_CARD_COUNT = "wrong_card_count", 400, "Too many or too few cards played.", Reach.SOCKET
    WRONG_PHASE = "wrong_phase", 400, "The move belongs to another phase of the turn.", Reach.BOTH
    WRONG_TOKEN_COUNT = "wrong_token_count", 400, "Too many or too few voting tokens.", Reach.SOCKET


class RulesError(Exception):
    """A request the rules refuse; ``code`` is stable, ``message`` is for people. (The server's
    refusals are `RulesError` too, with codes of their own layer: hence the base type here.)"""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code.value!r}, {self.message!r})"


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

    code: RuleCode | CommonCode

    def __init__(self, code: RuleCode | CommonCode, message: str) -> None:
        super().__init__(code, message)


class InvalidSetup(RulesError):
    """A game that cannot be created: wrong seat count, an unknown or ill-typed option, a deck
    too small for the table."""

    code: RuleCode

    def __init__(self, code: RuleCode, message: str) -> None:
        super().__init__(code, message)
