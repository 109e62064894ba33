"""What anyone may read of a game in progress: the `state.GameState` API of `Game`.

`GameReading` holds the reading side of the state machine, so that `game` is left with what
changes a game (dealing, the moves, the end) and what keeps one (its state as JSON). The views
(`views`) are built from it, and the bots, the server and the tests read it; a client only ever
gets `Game.view`. What it marks hidden is for the engine, the tests and the seat itself.

>>> from fabula.rules import Game
>>> game = Game.new("odyssey", seats=4, seed=3)
>>> game.awaiting == (game.storyteller,), game.acted, game.table
(True, (), ())
"""

from __future__ import annotations

from .hands import Cards
from .modes import Ruleset
from .state import CLUE_PHASE, GAME_OVER, PLAY_PHASE, VOTE_PHASE, Phase, SeatSecrets
from .table import Turn


class GameReading:
    """The reading side of `Game` (a mixin: `Game` holds the state it reads)."""

    # (no slots of its own: a `Game`'s attributes are the slots `Game` declares)
    __slots__ = ()

    rules: Ruleset
    phase: Phase
    storyteller: int
    _cards: Cards
    _turn: Turn

    @property
    def mode(self) -> str:
        return self.rules.mode.name

    @property
    def seats(self) -> int:
        return self.rules.seats

    @property
    def is_over(self) -> bool:
        return self.phase is GAME_OVER

    @property
    def clue(self) -> str | None:
        """This turn's clue, once given."""
        return self._turn.clue

    @property
    def aloud(self) -> bool:
        """Whether this turn's clue was said aloud (`clue` is then its typed words, maybe none)."""
        return self._turn.aloud

    @property
    def sound(self) -> str | None:
        """The id of the sound recorded for this turn's clue, if any."""
        return self._turn.sound

    def hand(self, seat: int) -> tuple[str, ...]:
        """``seat``'s hand (for the engine and tests; clients get `view`)."""
        return tuple(self._cards.hands[seat])

    def hand_size(self, seat: int) -> int:
        """How many cards ``seat`` holds (like `hand`: for the engine and tests, not clients)."""
        return len(self._cards.hands[seat])

    def played(self, seat: int) -> tuple[str, ...] | None:
        """The cards ``seat`` put down this turn, if it did (hidden: only for that seat)."""
        return self._turn.plays[seat]

    def vote(self, seat: int) -> tuple[int, ...] | None:
        """The slots ``seat``'s tokens are on this turn, if it voted (hidden until the reveal)."""
        return self._turn.votes[seat]

    def proposal(self, seat: int) -> str | None:
        """The card ``seat`` proposed to its teammate this turn (team mode), if it did. Hidden:
        the teammate's view only says that a proposal was made."""
        return self._turn.proposals[seat]

    def secrets(self, seat: int) -> SeatSecrets:
        """What ``seat`` knows that others may not, as values that stay as they are (hidden: only
        for that seat's view). ``seat`` must be a seat of the game."""
        rules, turn, phase = self.rules, self._turn, self.phase
        storyteller = seat == self.storyteller
        owners = turn.owners
        if seat not in owners:
            slots: tuple[int, ...] = ()
        elif rules.cards_per_player == 1:  # (one card a seat: the common case, without a loop)
            slots = (owners.index(seat),)
        else:
            slots = tuple([slot for slot, owner in enumerate(owners) if owner == seat])
        proposals = turn.proposals
        return SeatSecrets(
            None
            if storyteller and phase is CLUE_PHASE and rules.mode.clue_before_hand
            else tuple(self._cards.hands[seat]),
            rules.cards_per_player if phase is PLAY_PHASE and seat in turn.players else 0,
            turn.plays[seat],
            turn.votes[seat],
            turn.red if storyteller else None,
            proposals[seat],
            rules.team_of is not None and proposals[rules.teammate(seat)] is not None,
            slots,
        )

    def cards_to_play(self, seat: int) -> int:
        """How many cards ``seat`` puts down this turn (0 for a seat that does not play)."""
        return self.rules.cards_per_player if seat in self._turn.players else 0

    @property
    def table(self) -> tuple[str, ...]:
        """The cards in slot order once laid out (empty before the vote)."""
        return self._turn.table

    @property
    def owners(self) -> tuple[int, ...]:
        """The owner of each slot's card (hidden until the reveal: never for a client)."""
        return self._turn.owners

    @property
    def red(self) -> int | None:
        """The slot under the red token this turn, once placed (party; hidden until the reveal)."""
        return self._turn.red

    @property
    def draw_pile(self) -> tuple[str, ...]:
        """The draw pile, top card last (hidden information: never for a client)."""
        return tuple(self._cards.pile)

    @property
    def discard_pile(self) -> tuple[str, ...]:
        return tuple(self._cards.discard)

    @property
    def draw_pile_size(self) -> int:
        return len(self._cards.pile)

    @property
    def discard_size(self) -> int:
        return len(self._cards.discard)

    @property
    def voters(self) -> tuple[int, ...]:
        """Who votes this turn (known once the table is laid)."""
        return self._turn.voters

    @property
    def awaiting(self) -> tuple[int, ...]:
        """The seats whose move the table is waiting for, in seat order.

        In a simultaneous phase a seat that has acted may still change its move, but is no longer
        awaited. In `teams`, both members of a team that has not played yet are awaited; the party
        storyteller is awaited until both the vote and the red token are down.
        """
        return tuple(self._turn.waiting)

    @property
    def acted(self) -> tuple[int, ...]:
        """The seats that have made this phase's move (public: never what the move was)."""
        # (a play and a vote are non-empty tuples, None until made: `filter` on them is the test,
        # without a Python loop — a view asks for this at every move)
        phase, turn = self.phase, self._turn
        if phase is PLAY_PHASE:
            return tuple(filter(turn.plays.__getitem__, turn.players))
        if phase is VOTE_PHASE:
            return tuple(filter(turn.votes.__getitem__, turn.voters))
        return ()
