"""The game: one table of Dixit Odyssey in any mode, as a deterministic state machine.

>>> game = Game.new("odyssey", seats=4, seed=7)
>>> game.phase, game.awaiting == (game.storyteller,)
(<Phase.CLUE: 'clue'>, True)
>>> tell = game.legal_actions(game.storyteller)[0].with_clue("Freedom")
>>> [type(e).__name__ for e in game.apply(tell)]
['ClueGiven']
>>> game.phase
<Phase.PLAY: 'play'>

Everything random comes from ``seed``: the same (mode, seats, options, seed, deck) and the same
actions give the same game, which is how a server stores a room (`Game.replay`).

`Game` is the state machine only: whether an action is allowed now, and what it changes. What the
mode decides (who plays, who votes, for what) it asks its `Ruleset`; the cards off the table are
`hands.Cards`, the turn's table and votes `table.Turn`, what a seat sees `views`, and what anyone
may read of a game `state.GameState` (`reading.GameReading` answers it for `Game`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from fabula.errors import CommonCode

from .actions import Action, BlindClue, PlaceRed, Play, Propose, Tell, Vote, action_from_json
from .clues import CLUE_MAX, clean_clue
from .errors import IllegalAction, InvalidSetup, RuleCode, quoted
from .events import ClueGiven, Event, GameEnded, Played, Proposed, RedPlaced, RoundScored, RoundStarted, Voted
from .hands import Cards, checked_deck, numbered_deck
from .modes import Ruleset
from .randomness import below, checked_seed
from .reading import GameReading
from .results import Outcome, RoundResult
from .state import CLUE_PHASE, GAME_OVER, PLAY_PHASE, VOTE_PHASE, Phase
from .table import Turn
from .views import SeatView, seat_view, seat_views

__all__ = ["CLUE_MAX", "STATE_FORMAT", "Game", "Phase", "clean_clue", "numbered_deck"]

STATE_FORMAT = 1


class Game(GameReading):
    """One game in progress; create it with `Game.new`, advance it with `apply`; what it says of
    itself (its phase, table, hands, who is awaited) is `GameReading`'s."""

    __slots__ = (
        "_cards",
        "_play_actions",
        "_turn",
        "_vote_actions",
        "deck",
        "last_result",
        "log",
        "outcome",
        "phase",
        "round",
        "rules",
        "scores",
        "seed",
        "storyteller",
    )

    rules: Ruleset
    seed: int
    deck: tuple[str, ...]
    round: int
    storyteller: int
    phase: Phase
    scores: list[int]
    last_result: RoundResult | None
    outcome: Outcome | None
    log: list[Action]
    _cards: Cards
    _turn: Turn
    # Actions are values, so legal_actions hands out the same ones again: per seat, by card/slot.
    _play_actions: list[dict[str, Play]]
    _vote_actions: list[list[Vote]]

    # ---------------------------------------------------------------- creating

    @classmethod
    def new(
        cls,
        mode: str,
        seats: int,
        *,
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        deck: Sequence[str] | None = None,
    ) -> Game:
        """Deal a new game; raise `InvalidSetup` when the mode, seats, options or deck don't fit."""
        rules, seed = Ruleset.create(mode, seats, options), checked_seed(seed)
        cards = checked_deck(rules, deck)
        game = cls.__new__(cls)
        game.rules, game.seed, game.deck = rules, seed, cards
        game._cards = Cards.deal(rules, cards, seed)
        first = rules.options.first_storyteller
        game.storyteller = below(seats, seed, "first storyteller") if first is None else first
        game.round = 1
        game.scores = [0] * seats
        game.last_result = game.outcome = None
        game.log = []
        game._clear_caches()
        game._start_turn()
        return game

    @classmethod
    def replay(
        cls,
        mode: str,
        seats: int,
        actions: Iterable[Action],
        *,
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        deck: Sequence[str] | None = None,
    ) -> Game:
        """The game after ``actions``, rebuilt from scratch."""
        game = cls.new(mode, seats, options=options, seed=seed, deck=deck)
        for action in actions:
            game.apply(action)
        return game

    def _clear_caches(self) -> None:
        seats = self.rules.seats
        self._play_actions = [{} for _ in range(seats)]
        self._vote_actions = [[] for _ in range(seats)]

    def _start_turn(self) -> None:
        self.phase = CLUE_PHASE
        self._turn = Turn(self.rules, self.storyteller)

    # ---------------------------------------------------------------- legal actions

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, including changing a play or vote already made.

        A `Tell` or `BlindClue` comes with ``clue=None``: any clue will do, fill it with
        ``with_clue``.
        """
        phase, turn = self.phase, self._turn
        if phase is PLAY_PHASE:
            if seat not in turn.players:
                return []
            hand = self._cards.hands[seat]
            actions: list[Action]
            if self.rules.cards_per_player == 1:
                plays = self._play_actions[seat]
                actions = [plays.get(card) or plays.setdefault(card, Play(seat, (card,))) for card in hand]
            else:
                actions = [Play(seat, pair) for pair in combinations(hand, 2)]
            if seat in self.rules.proposers[self.storyteller]:
                actions.extend(Propose(seat, card) for card in hand)
            return actions
        if phase is VOTE_PHASE:
            actions = []
            rules = self.rules
            if seat in turn.voters:
                row = self._vote_actions[seat]
                if not row:  # one per slot: the table size is the same every turn
                    row = self._vote_actions[seat] = [Vote(seat, (s,)) for s in range(1, rules.table_size + 1)]
                allowed = rules.may_vote[seat]
                actions = [row[i] for i, owner in enumerate(turn.owners) if allowed[owner]]
                if rules.tokens == 2:
                    pairs = rules.second_tokens(rules.votable(seat, turn.owners))
                    actions.extend(Vote(seat, pair) for pair in pairs)
            if seat == self.storyteller and rules.mode.red_token:
                actions.extend(PlaceRed(seat, slot) for slot in turn.red_slots)
            return actions
        if phase is CLUE_PHASE and seat == self.storyteller:
            if self.rules.mode.clue_before_hand:
                return [BlindClue(seat, None)]
            return [Tell(seat, card, None) for card in self._cards.hands[seat]]
        return []

    # ---------------------------------------------------------------- applying

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action`` and return what happened; raise `IllegalAction` and change nothing
        if it is not allowed now."""
        found = _HANDLERS.get(type(action))
        if found is None:
            raise IllegalAction(CommonCode.MALFORMED, f"Not an action: {quoted(action)}.")
        if self.phase is GAME_OVER:
            raise IllegalAction(RuleCode.GAME_OVER, "The game is over.")
        seat = action.seat
        if type(seat) is not int or not 0 <= seat < self.rules.seats:
            raise IllegalAction(RuleCode.BAD_SEAT, f"There is no seat {quoted(seat)} at this table.")
        wanted, handler = found
        if self.phase is not wanted:
            raise IllegalAction(
                RuleCode.WRONG_PHASE, f"This is the {self.phase.value} phase, not the {wanted.value} phase."
            )
        events = handler(self, action)
        self.log.append(action)
        return events

    # Each handler runs in its phase (`_HANDLERS`); the turn checks the rest of the move.

    def _apply_clue(self, action: Tell | BlindClue) -> list[Event]:
        seat, turn = action.seat, self._turn
        if isinstance(action, Tell):
            clue = turn.tell(self._cards.hands[seat], seat, action.card, action.clue, action.aloud, sound=action.sound)
        else:
            clue = turn.blind_clue(seat, action.clue, action.aloud, sound=action.sound)
        self.phase = PLAY_PHASE
        return [ClueGiven(seat, clue, turn.aloud, turn.sound)]

    def _apply_play(self, action: Play) -> list[Event]:
        seat, turn, hands = action.seat, self._turn, self._cards.hands
        changed, complete = turn.play(hands[seat], seat, action.cards)
        if complete:
            laid = turn.lay(hands, self.seed, self.round)
            self.phase = VOTE_PHASE
            return [Played(seat, changed), laid]
        return [Played(seat, changed)]

    def _apply_propose(self, action: Propose) -> list[Event]:
        self._turn.propose(self._cards.hands[action.seat], action.seat, action.card)
        return [Proposed(action.seat)]

    def _apply_vote(self, action: Vote) -> list[Event]:
        changed, complete = self._turn.vote(action.seat, action.slots)
        if complete:
            return [Voted(action.seat, changed), *self._end_turn()]
        return [Voted(action.seat, changed)]

    def _apply_red(self, action: PlaceRed) -> list[Event]:
        changed, complete = self._turn.place_red(action.seat, action.slot)
        if complete:
            return [RedPlaced(action.seat, changed), *self._end_turn()]
        return [RedPlaced(action.seat, changed)]

    # ---------------------------------------------------------------- end of turn

    def _end_turn(self) -> list[Event]:
        rules, turn, cards = self.rules, self._turn, self._cards
        self.last_result = result = turn.reveal(self.round, self.scores)
        self.scores[:] = result.scores
        events: list[Event] = [RoundScored(result)]
        cards.discard.extend(turn.table)
        cards.refill(rules, self.seed, self.storyteller, events)
        if rules.game_ends(self.round, self.scores, len(cards.pile)):
            events.append(self._end())
        else:
            self.round += 1
            self.storyteller = (self.storyteller + 1) % rules.seats
            self._start_turn()
            events.append(RoundStarted(self.round, self.storyteller))
        return events

    def end_now(self) -> list[Event]:
        """End the game at once (the host's call, not a rule): the round being played does not
        count, the cards on the table go to the discard pile, and the scores as they stand decide.

        >>> game = Game.new("odyssey", seats=4, seed=1)
        >>> [type(event).__name__ for event in game.end_now()], game.outcome.winners
        (['GameEnded'], (0, 1, 2, 3))
        """
        if self.phase is GAME_OVER:
            raise IllegalAction(RuleCode.GAME_OVER, "The game is over already.")
        self._cards.discard.extend(self._turn.table)
        return [self._end()]

    def _end(self) -> GameEnded:
        self._start_turn()
        self.phase = GAME_OVER
        self._turn.waiting = []
        self.outcome = Outcome.decide(self.scores, self.rules.team_of)
        return GameEnded(self.outcome)

    # ---------------------------------------------------------------- views

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may see (``None``: a spectator). See `fabula.rules.views`."""
        return seat_view(self, seat)

    def views(self, seats: Iterable[int | None]) -> dict[int | None, SeatView]:
        """The views of several seats at once, as `view` gives them one by one (cheaper: what they
        share is built once, and shared)."""
        return seat_views(self, seats)

    # ---------------------------------------------------------------- state

    def copy(self) -> Game:
        other = Game.__new__(Game)
        other.rules, other.seed, other.deck = self.rules, self.seed, self.deck
        other.round, other.storyteller, other.phase = self.round, self.storyteller, self.phase
        other.scores, other.log = list(self.scores), list(self.log)
        other.last_result, other.outcome = self.last_result, self.outcome
        other._cards, other._turn = self._cards.copy(), self._turn.copy()
        other._play_actions, other._vote_actions = self._play_actions, self._vote_actions
        return other

    def to_json(self) -> dict[str, Any]:
        """The whole state, secrets included (for storage, never for a client)."""
        mode = self.mode
        return {
            "format": STATE_FORMAT,
            "mode": mode,
            "seats": self.seats,
            "options": self.rules.options.to_json(mode),
            "seed": self.seed,
            "deck": list(self.deck),
            "round": self.round,
            "storyteller": self.storyteller,
            "phase": self.phase.value,
            "clue": self.clue,
            "aloud": self.aloud,
            "sound": self.sound,
            "scores": list(self.scores),
            **self._cards.to_json(),
            **self._turn.to_json(),
            "reshuffles": self._cards.reshuffles,
            "last_result": None if self.last_result is None else self.last_result.to_json(),
            "outcome": None if self.outcome is None else self.outcome.to_json(),
            "log": [action.to_json() for action in self.log],
        }

    @classmethod
    def from_json(cls, state: Mapping[str, Any]) -> Game:
        """Restore a state written by `to_json`."""
        if state.get("format") != STATE_FORMAT:
            raise InvalidSetup(RuleCode.BAD_STATE, f"Unknown state format {state.get('format')!r}.")
        game = cls.__new__(cls)
        game.rules = rules = Ruleset.create(state["mode"], state["seats"], state["options"])
        game.seed, game.deck = state["seed"], tuple(state["deck"])
        game.round, game.storyteller, game.phase = state["round"], state["storyteller"], Phase(state["phase"])
        game.scores = list(state["scores"])
        game._cards = Cards.from_json(state)
        game._turn = Turn.from_json(rules, state)
        last, outcome = state["last_result"], state["outcome"]
        game.last_result = None if last is None else RoundResult.from_json(last)
        game.outcome = None if outcome is None else Outcome.from_json(outcome)
        game.log = [action_from_json(action) for action in state["log"]]
        game._clear_caches()
        return game

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game {self.mode} seats={self.seats} round={self.round} phase={self.phase.value} "
            f"storyteller={self.storyteller} scores={self.scores}>"
        )


#: What each kind of action does, and the phase it belongs to.
_HANDLERS: dict[type, tuple[Phase, Callable[[Game, Any], list[Event]]]] = {
    Tell: (CLUE_PHASE, Game._apply_clue),
    BlindClue: (CLUE_PHASE, Game._apply_clue),
    Play: (PLAY_PHASE, Game._apply_play),
    Propose: (PLAY_PHASE, Game._apply_propose),
    Vote: (VOTE_PHASE, Game._apply_vote),
    PlaceRed: (VOTE_PHASE, Game._apply_red),
}
