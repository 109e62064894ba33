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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from itertools import combinations
from typing import Any

from fabula.text import TextRefused, clue_text

from .actions import Action, BlindClue, PlaceRed, Play, Propose, Tell, Vote, action_from_json
from .errors import IllegalAction, InvalidSetup, quoted
from .events import (
    ClueGiven,
    DeckReshuffled,
    Event,
    GameEnded,
    HandsPassed,
    Played,
    Proposed,
    RedPlaced,
    RoundScored,
    RoundStarted,
    TableLaid,
    Voted,
)
from .modes import Ruleset
from .randomness import below, shuffled
from .results import Outcome, RoundResult
from .scoring import RoundFacts, finders

#: Clues are 1..200 characters once trimmed.
CLUE_MAX = 200
STATE_FORMAT = 1


class Phase(StrEnum):
    CLUE = "clue"
    PLAY = "play"
    VOTE = "vote"
    OVER = "over"


def numbered_deck(size: int = 84) -> tuple[str, ...]:
    """Card ids ``c01`` … for a game that needs no particular deck."""
    return tuple([f"c{n:02d}" for n in range(1, size + 1)])


_DEFAULT_DECK = numbered_deck()


def clean_clue(clue: object) -> str:
    """The clue as it will be shown (trimmed), or `IllegalAction` saying what is wrong with it
    (the policy is `fabula.text.clue_text`)."""
    if clue is None:
        raise IllegalAction("clue_required", "Give a clue with the card.")
    if not isinstance(clue, str):
        raise IllegalAction("malformed", f"A clue is text; got {quoted(clue)}.")
    try:
        return clue_text(clue, limit=CLUE_MAX)
    except TextRefused as refused:
        raise IllegalAction(f"clue_{refused.reason}", refused.message) from None


class Game:
    """One game in progress; create it with `Game.new`, advance it with `apply`."""

    __slots__ = (
        "_discard",
        "_hands",
        "_owner_of",
        "_owners",
        "_pile",
        "_play_actions",
        "_players",
        "_plays",
        "_proposals",
        "_red",
        "_reshuffles",
        "_shown",
        "_table",
        "_vote_actions",
        "_voters",
        "_votes",
        "_waiting",
        "clue",
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
    clue: str | None
    scores: list[int]
    last_result: RoundResult | None
    outcome: Outcome | None
    log: list[Action]
    _hands: list[list[str]]
    _pile: list[str]
    _discard: list[str]
    #: the cards each seat put down this turn (they stay in the hand until the table is laid)
    _plays: list[tuple[str, ...] | None]
    _proposals: list[str | None]
    _table: tuple[str, ...]
    _owners: tuple[int, ...]
    _owner_of: dict[str, int]
    _votes: list[tuple[int, ...] | None]
    _red: int | None
    _voters: tuple[int, ...]
    #: who may put cards down this turn (in teams: one member of each team will)
    _players: tuple[int, ...]
    #: the seats whose move the current phase still waits for, in seat order
    _waiting: list[int]
    _reshuffles: int
    # Actions are values, so legal_actions hands out the same ones again: per seat, by card/slot.
    _play_actions: list[dict[str, Play]]
    _vote_actions: list[list[Vote]]
    _shown: list[Any]

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
        rules = Ruleset.create(mode, seats, options)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise InvalidSetup("bad_seed", f"The seed must be an integer; got {seed!r}.")
        cards = _DEFAULT_DECK if deck is None else tuple(deck)
        if cards is not _DEFAULT_DECK:
            if not all(isinstance(card, str) and card for card in cards):
                raise InvalidSetup("bad_deck", "Every card id must be a non-empty string.")
            if len(set(cards)) != len(cards):
                raise InvalidSetup("bad_deck", "The deck holds the same card id twice.")
        if len(cards) < rules.cards_needed:
            raise InvalidSetup(
                "deck_too_small",
                f"This game needs {rules.cards_needed} cards ({seats} hands of {rules.hand_size} and a "
                f"table of {rules.table_size}); the deck has {len(cards)}: "
                f"{rules.cards_needed - len(cards)} missing.",
            )
        game = cls.__new__(cls)
        game.rules, game.seed, game.deck = rules, seed, cards
        pile = shuffled(cards, seed, "deal")
        size = rules.hand_size
        game._hands = [pile[len(pile) - size * (s + 1) : len(pile) - size * s][::-1] for s in range(seats)]
        del pile[len(pile) - size * seats :]
        game._pile, game._discard = pile, []
        first = rules.options.first_storyteller
        game.storyteller = below(seats, seed, "first storyteller") if first is None else first
        game.round = 1
        game.scores = [0] * seats
        game.last_result = game.outcome = None
        game.log = []
        game._reshuffles = 0
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
        # The public parts every view repeats, as JSON, built once (see `views.seat_view`):
        # [last_result, its JSON, outcome, its JSON, the options' JSON].
        self._shown = [None, None, None, None, self.rules.options.to_json(self.rules.mode.name)]

    def _start_turn(self) -> None:
        n = self.rules.seats
        storyteller = self.storyteller
        self.phase = Phase.CLUE
        self._waiting = [storyteller]
        if self.rules.mode.clue_before_hand:
            self._players = tuple(range(n))
        else:
            self._players = (*range(storyteller), *range(storyteller + 1, n))
        self.clue = None
        self._plays = [None] * n
        self._proposals = [None] * n
        self._votes = [None] * n
        self._table, self._owners, self._owner_of = (), (), {}
        self._red = None
        self._voters = ()

    # ---------------------------------------------------------------- reading

    @property
    def mode(self) -> str:
        return self.rules.mode.name

    @property
    def seats(self) -> int:
        return self.rules.seats

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def hand(self, seat: int) -> tuple[str, ...]:
        """``seat``'s hand (for the engine and tests; clients get `view`)."""
        return tuple(self._hands[seat])

    def proposal(self, seat: int) -> str | None:
        """The card ``seat`` proposed to its teammate this turn (team mode), if it did. Hidden:
        the teammate's view only says that a proposal was made."""
        return self._proposals[seat]

    @property
    def table(self) -> tuple[str, ...]:
        """The cards in slot order once laid out (empty before the vote)."""
        return self._table

    @property
    def draw_pile(self) -> tuple[str, ...]:
        """The draw pile, top card last (hidden information: never for a client)."""
        return tuple(self._pile)

    @property
    def discard_pile(self) -> tuple[str, ...]:
        return tuple(self._discard)

    @property
    def owners(self) -> tuple[int, ...]:
        """The owner of each slot's card (hidden until the reveal: never for a client)."""
        return self._owners

    @property
    def draw_pile_size(self) -> int:
        return len(self._pile)

    @property
    def discard_size(self) -> int:
        return len(self._discard)

    @property
    def voters(self) -> tuple[int, ...]:
        """Who votes this turn (known once the table is laid)."""
        return self._voters

    @property
    def awaiting(self) -> tuple[int, ...]:
        """The seats whose move the table is waiting for, in seat order.

        In a simultaneous phase a seat that has acted may still change its move, but is no longer
        awaited. In `teams`, both members of a team that has not played yet are awaited; the party
        storyteller is awaited until both the vote and the red token are down.
        """
        return tuple(self._waiting)

    def _cards_to_play(self, seat: int) -> int:
        """How many cards ``seat`` puts down this turn (0 for a seat that does not play)."""
        return self.rules.cards_per_player if seat in self._players else 0

    def _done(self, seat: int) -> bool:
        """Take ``seat`` off the waiting list; True if that closes the phase."""
        waiting = self._waiting
        if seat in waiting:
            waiting.remove(seat)
        return not waiting

    # ---------------------------------------------------------------- legal actions

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, including changing a play or vote already made.

        A `Tell` or `BlindClue` comes with ``clue=None``: any clue will do, fill it with
        ``with_clue``.
        """
        phase = self.phase
        if phase is Phase.PLAY:
            if seat not in self._players:
                return []
            hand = self._hands[seat]
            actions: list[Action]
            if self.rules.cards_per_player == 1:
                plays = self._play_actions[seat]
                actions = [plays.get(card) or plays.setdefault(card, Play(seat, (card,))) for card in hand]
            else:
                actions = [Play(seat, pair) for pair in combinations(hand, 2)]
            if self._may_propose(seat):
                actions.extend(Propose(seat, card) for card in hand)
            return actions
        if phase is Phase.VOTE:
            actions = []
            if seat in self._voters:
                rules, owners = self.rules, self._owners
                row = self._vote_actions[seat] or self._vote_row(seat)
                if rules.mode.clue_before_hand:
                    actions = list(row)
                elif rules.team_of is None:
                    actions = [row[i] for i, owner in enumerate(owners) if owner != seat]
                else:
                    actions = [row[i] for i, owner in enumerate(owners) if rules.may_vote_for(seat, owner)]
                if rules.tokens == 2:
                    slots = [i for i, owner in enumerate(owners, 1) if rules.may_vote_for(seat, owner)]
                    actions.extend(Vote(seat, pair) for pair in combinations(slots, 2))
                    if rules.options.second_token_same_slot:
                        actions.extend(Vote(seat, (slot, slot)) for slot in slots)
            if seat == self.storyteller and self.rules.mode.red_token:
                actions.extend(PlaceRed(seat, slot) for slot in self._red_slots())
            return actions
        if phase is Phase.CLUE and seat == self.storyteller:
            if self.rules.mode.clue_before_hand:
                return [BlindClue(seat, None)]
            return [Tell(seat, card, None) for card in self._hands[seat]]
        return []

    def _vote_row(self, seat: int) -> list[Vote]:
        """``seat``'s one-token votes, one per slot (the table size is the same every turn)."""
        row = self._vote_actions[seat] = [Vote(seat, (slot,)) for slot in range(1, self.rules.table_size + 1)]
        return row

    def _may_propose(self, seat: int) -> bool:
        team_of = self.rules.team_of
        return team_of is not None and team_of[seat] != team_of[self.storyteller]

    def _red_slots(self) -> list[int]:
        if self.rules.options.party_red_target == "not_own_card":
            return [i for i, owner in enumerate(self._owners, 1) if owner != self.storyteller]
        return list(range(1, len(self._table) + 1))

    # ---------------------------------------------------------------- applying

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action`` and return what happened; raise `IllegalAction` and change nothing
        if it is not allowed now."""
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction("malformed", f"Not an action: {quoted(action)}.")
        if self.phase is Phase.OVER:
            raise IllegalAction("game_over", "The game is over.")
        seat = action.seat
        if type(seat) is not int or not 0 <= seat < self.rules.seats:
            raise IllegalAction("bad_seat", f"There is no seat {quoted(seat)} at this table.")
        events = handler(self, action)
        self.log.append(action)
        return events

    def _wrong_phase(self, wanted: Phase) -> IllegalAction:
        return IllegalAction("wrong_phase", f"This is the {self.phase.value} phase, not the {wanted.value} phase.")

    def _not_in_hand(self, card: object) -> IllegalAction:
        return IllegalAction("card_not_in_hand", f"Card {quoted(card)} is not in your hand.")

    def _bad_slot(self, slot: object) -> IllegalAction:
        return IllegalAction("bad_slot", f"There is no slot {quoted(slot)}; slots are 1 to {len(self._table)}.")

    def _storyteller_clue(self, seat: int, clue: object) -> str:
        if self.phase is not Phase.CLUE:
            raise self._wrong_phase(Phase.CLUE)
        if seat != self.storyteller:
            raise IllegalAction("not_your_turn", "Only the storyteller gives the clue.")
        return clean_clue(clue)

    def _apply_tell(self, action: Tell) -> list[Event]:
        seat = action.seat
        clue = self._storyteller_clue(seat, action.clue)
        if self.rules.mode.clue_before_hand:
            raise IllegalAction("wrong_action", "In party mode the clue comes before the card: give a blind clue.")
        if action.card not in self._hands[seat]:
            raise self._not_in_hand(action.card)
        self._plays[seat] = (action.card,)
        return self._clue_given(seat, clue)

    def _apply_blind_clue(self, action: BlindClue) -> list[Event]:
        clue = self._storyteller_clue(action.seat, action.clue)
        if not self.rules.mode.clue_before_hand:
            raise IllegalAction("wrong_action", "Choose a card with the clue (only party mode has blind clues).")
        return self._clue_given(action.seat, clue)

    def _clue_given(self, seat: int, clue: str) -> list[Event]:
        self.clue = clue
        self.phase = Phase.PLAY
        self._waiting = list(self._players)
        return [ClueGiven(seat, clue)]

    def _apply_play(self, action: Play) -> list[Event]:
        seat, cards = action.seat, action.cards
        if self.phase is not Phase.PLAY:
            raise self._wrong_phase(Phase.PLAY)
        if seat not in self._players:
            raise IllegalAction("not_your_turn", "The storyteller's card is already chosen.")
        count = self.rules.cards_per_player
        if type(cards) is not tuple or len(cards) != count:
            raise IllegalAction("wrong_card_count", "Play one card." if count == 1 else f"Play {count} cards.")
        hand = self._hands[seat]
        for card in cards:
            if card not in hand:
                raise self._not_in_hand(card)
        if count > 1 and len(set(cards)) != count:
            raise IllegalAction("duplicate_card", "Play two different cards.")
        plays = self._plays
        changed = plays[seat] is not None
        plays[seat] = cards
        if self.rules.team_of is not None:
            mate = self.rules.teammate(seat)
            if mate != self.storyteller:
                if plays[mate] is not None:
                    # The team changes its mind about who plays: one card per team on the table.
                    plays[mate] = None
                    changed = True
                self._done(mate)
        if self._done(seat):
            return [Played(seat, changed), self._lay_table()]
        return [Played(seat, changed)]

    def _apply_propose(self, action: Propose) -> list[Event]:
        seat = action.seat
        if self.phase is not Phase.PLAY:
            raise self._wrong_phase(Phase.PLAY)
        if self.rules.team_of is None:
            raise IllegalAction("wrong_action", "Only team mode has proposals.")
        if not self._may_propose(seat):
            raise IllegalAction("not_your_turn", "The storyteller's team does not choose who plays.")
        if action.card not in self._hands[seat]:
            raise self._not_in_hand(action.card)
        self._proposals[seat] = action.card
        return [Proposed(seat)]

    def _lay_table(self) -> TableLaid:
        rules, storyteller, plays, hands = self.rules, self.storyteller, self._plays, self._hands
        placed = shuffled(
            [(card, seat) for seat, cards in enumerate(plays) if cards for card in cards],
            self.seed,
            f"table/{self.round}",
        )
        self._table = table = tuple([card for card, _ in placed])
        self._owners = tuple([seat for _, seat in placed])
        self._owner_of = dict(placed)
        for card, seat in placed:
            hands[seat].remove(card)
        if rules.team_of is not None:
            storyteller_team = rules.team_of[storyteller]
            self._voters = tuple(
                [s for s in self._players if plays[s] is None and rules.team_of[s] != storyteller_team]
            )
            self._proposals = [None] * rules.seats
        else:
            self._voters = self._players
        self._waiting = list(self._voters)
        if rules.mode.red_token and storyteller not in self._waiting:
            self._waiting = sorted([*self._waiting, storyteller])
        self.phase = Phase.VOTE
        return TableLaid(table)

    def _apply_vote(self, action: Vote) -> list[Event]:
        seat, slots = action.seat, action.slots
        if self.phase is not Phase.VOTE:
            raise self._wrong_phase(Phase.VOTE)
        if seat not in self._voters:
            if seat == self.storyteller and not self.rules.mode.red_token:
                raise IllegalAction("not_your_turn", "The storyteller does not vote.")
            raise IllegalAction("not_your_turn", "You do not vote this turn.")
        if type(slots) is not tuple:
            raise IllegalAction("malformed", "Slots must be a tuple of slot numbers.")
        size = len(self._table)
        for slot in slots:
            if type(slot) is not int or not 0 < slot <= size:
                raise self._bad_slot(slot)
        rules = self.rules
        if len(slots) == 1 and rules.team_of is None and not rules.mode.clue_before_hand:
            # The common case, checked inline: one token, not on your own card.
            if self._owners[slots[0] - 1] == seat:
                raise IllegalAction("own_card", "You cannot vote for your own card.")
        else:
            rules.check_vote(seat, tuple([self._table[slot - 1] for slot in slots]), self._owner_of)
        changed = self._votes[seat] is not None
        self._votes[seat] = slots if len(slots) == 1 else tuple(sorted(slots))
        if seat == self.storyteller and self._red is None:
            return [Voted(seat, changed)]  # the red token is still to come
        if self._done(seat):
            return [Voted(seat, changed), *self._end_turn()]
        return [Voted(seat, changed)]

    def _apply_red(self, action: PlaceRed) -> list[Event]:
        seat, slot = action.seat, action.slot
        if self.phase is not Phase.VOTE:
            raise self._wrong_phase(Phase.VOTE)
        if not self.rules.mode.red_token:
            raise IllegalAction("wrong_action", "Only party mode has a red token.")
        if seat != self.storyteller:
            raise IllegalAction("not_your_turn", "Only the storyteller has the red token.")
        if type(slot) is not int or not 0 < slot <= len(self._table):
            raise self._bad_slot(slot)
        if slot not in self._red_slots():
            raise IllegalAction("own_card", "The red token cannot go on your own card (party_red_target).")
        changed = self._red is not None
        self._red = slot
        if self._votes[seat] is None:
            return [RedPlaced(seat, changed)]  # the storyteller's own vote is still to come
        if self._done(seat):
            return [RedPlaced(seat, changed), *self._end_turn()]
        return [RedPlaced(seat, changed)]

    # ---------------------------------------------------------------- end of turn

    def _end_turn(self) -> list[Event]:
        rules, storyteller, table, scores = self.rules, self.storyteller, self._table, self.scores
        # Scored by slot number: the slots name the cards as well as their ids do.
        played: dict[int, tuple[int, ...]] = {}
        for slot, owner in enumerate(self._owners, 1):
            played[owner] = (*played.get(owner, ()), slot)
        facts = RoundFacts(
            seats=rules.seat_order,
            storyteller=storyteller,
            played=played,
            votes={s: slots for s, slots in enumerate(self._votes) if slots},
            red=self._red,
            teams=rules.teams,
        )
        explained = rules.mode.explain(facts, rules)
        by_seat = [explained[team] for team in rules.team_of] if rules.team_of is not None else list(explained.values())
        points = [sum(part.points for part in parts) for parts in by_seat]
        for seat, p in enumerate(points):
            scores[seat] += p
        found = finders(facts, rules)
        if rules.mode.clue_before_hand:
            storyteller_scored = points[storyteller] > 0
        else:
            storyteller_scored = 0 < len(found) < len(self._voters)
        self.last_result = result = RoundResult(
            round=self.round,
            storyteller=storyteller,
            clue=self.clue or "",
            storyteller_card=table[facts.storyteller_card - 1],
            table=table,
            owners=self._owners,
            votes=tuple([v or () for v in self._votes]),
            red=self._red,
            voters=self._voters,
            finders=tuple(found),
            points=tuple(points),
            scores=tuple(scores),
            storyteller_scored=storyteller_scored,
            reasons=tuple(tuple(parts) for parts in by_seat),
        )
        events: list[Event] = [RoundScored(result)]
        self._discard.extend(table)
        self._refill(events)
        options = rules.options
        if (
            (options.target_score is not None and max(scores) >= options.target_score)
            or (options.storyteller_cycles is not None and self.round >= rules.seats * options.storyteller_cycles)
            or (options.end_on_empty_deck and not self._pile)
        ):
            self._start_turn()
            self.phase = Phase.OVER
            self._waiting = []
            self.outcome = self._outcome()
            events.append(GameEnded(self.outcome))
        else:
            self.round += 1
            self.storyteller = (storyteller + 1) % rules.seats
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
        if self.phase is Phase.OVER:
            raise IllegalAction("game_over", "The game is over already.")
        self._discard.extend(self._table)
        self._start_turn()
        self.phase = Phase.OVER
        self._waiting = []
        self.outcome = self._outcome()
        return [GameEnded(self.outcome)]

    def _refill(self, events: list[Event]) -> None:
        """Refill every hand to the hand size, clockwise from the storyteller; party hands move left."""
        rules, hands, size, seats = self.rules, self._hands, self.rules.hand_size, self.rules.seats
        needed = size * seats - sum(map(len, hands))
        if needed > len(self._pile) and not rules.options.end_on_empty_deck and self._discard:
            fresh = shuffled(self._discard, self.seed, f"reshuffle/{self._reshuffles}")
            self._reshuffles += 1
            # What is left of the old pile stays on top: it is drawn first.
            self._pile = fresh + self._pile
            self._discard = []
            events.append(DeckReshuffled(len(fresh)))
        pile = self._pile
        storyteller = self.storyteller
        for seat in (*range(storyteller, seats), *range(storyteller)):
            hand = hands[seat]
            for _ in range(min(size - len(hand), len(pile))):
                hand.append(pile.pop())
        if rules.mode.pass_hands_left:
            self._hands = [hands[seat - 1] for seat in range(seats)]
            events.append(HandsPassed())

    def _outcome(self) -> Outcome:
        best = max(self.scores)
        winners = tuple(s for s, score in enumerate(self.scores) if score == best)
        teams = None
        if self.rules.team_of is not None:
            teams = tuple(sorted({self.rules.team_of[s] for s in winners}))
        return Outcome(winners, tuple(self.scores), teams)

    # ---------------------------------------------------------------- views

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator). See `fabula.rules.views`."""
        from .views import seat_view

        return seat_view(self, seat)

    def views(self, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """The views of several seats at once, as `view` gives them one by one (cheaper: what they
        share is built once, and shared)."""
        from .views import seat_views

        return seat_views(self, seats)

    # ---------------------------------------------------------------- state

    def copy(self) -> Game:
        other = Game.__new__(Game)
        other.rules, other.seed, other.deck = self.rules, self.seed, self.deck
        other.round, other.storyteller, other.phase, other.clue = self.round, self.storyteller, self.phase, self.clue
        other.scores = list(self.scores)
        other.last_result, other.outcome = self.last_result, self.outcome
        other.log = list(self.log)
        other._hands = [list(hand) for hand in self._hands]
        other._pile, other._discard = list(self._pile), list(self._discard)
        other._plays, other._proposals = list(self._plays), list(self._proposals)
        other._table, other._owners, other._owner_of = self._table, self._owners, dict(self._owner_of)
        other._votes, other._red, other._voters = list(self._votes), self._red, self._voters
        other._players, other._waiting = self._players, list(self._waiting)
        other._reshuffles = self._reshuffles
        other._play_actions, other._vote_actions = self._play_actions, self._vote_actions
        other._shown = list(self._shown)
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
            "scores": list(self.scores),
            "hands": [list(hand) for hand in self._hands],
            "pile": list(self._pile),
            "discard": list(self._discard),
            "plays": [None if cards is None else list(cards) for cards in self._plays],
            "proposals": list(self._proposals),
            "table": list(self._table),
            "owners": list(self._owners),
            "votes": [None if slots is None else list(slots) for slots in self._votes],
            "red": self._red,
            "voters": list(self._voters),
            "players": list(self._players),
            "waiting": list(self._waiting),
            "reshuffles": self._reshuffles,
            "last_result": None if self.last_result is None else self.last_result.to_json(),
            "outcome": None if self.outcome is None else self.outcome.to_json(),
            "log": [action.to_json() for action in self.log],
        }

    @classmethod
    def from_json(cls, state: Mapping[str, Any]) -> Game:
        """Restore a state written by `to_json`."""
        if state.get("format") != STATE_FORMAT:
            raise InvalidSetup("bad_state", f"Unknown state format {state.get('format')!r}.")
        game = cls.__new__(cls)
        game.rules = Ruleset.create(state["mode"], state["seats"], state["options"])
        game.seed, game.deck = state["seed"], tuple(state["deck"])
        game.round, game.storyteller = state["round"], state["storyteller"]
        game.phase, game.clue = Phase(state["phase"]), state["clue"]
        game.scores = list(state["scores"])
        game._hands = [list(hand) for hand in state["hands"]]
        game._pile, game._discard = list(state["pile"]), list(state["discard"])
        game._plays = [None if cards is None else tuple(cards) for cards in state["plays"]]
        game._proposals = list(state["proposals"])
        game._table, game._owners = tuple(state["table"]), tuple(state["owners"])
        game._owner_of = dict(zip(game._table, game._owners, strict=True))
        game._votes = [None if slots is None else tuple(slots) for slots in state["votes"]]
        game._red, game._voters = state["red"], tuple(state["voters"])
        game._players, game._waiting = tuple(state["players"]), list(state["waiting"])
        game._reshuffles = state["reshuffles"]
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


_HANDLERS: dict[type, Callable[[Game, Any], list[Event]]] = {
    Tell: Game._apply_tell,
    BlindClue: Game._apply_blind_clue,
    Play: Game._apply_play,
    Propose: Game._apply_propose,
    Vote: Game._apply_vote,
    PlaceRed: Game._apply_red,
}
