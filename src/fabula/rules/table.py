"""The round's table and votes: one turn from the clue to the reveal.

A `Turn` holds what the seats have put down (cards, proposals, tokens), the table once laid, and
the answers of the mode's hooks (`Ruleset.players`, `voters`, `red_slots`) asked once for the
turn, so that `Game.legal_actions`, `Game.apply` and the views read them instead of asking
again on every move. At the reveal it becomes the facts a mode scores (`reveal`).

It is the engine's bookkeeping, changed only by the `Game` it belongs to; readers go through the
game's read-only API (`state.GameState`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import add
from typing import Any

from fabula.errors import CommonCode

from .clues import clean_clue
from .errors import IllegalAction, RuleCode, quoted
from .events import TableLaid
from .modes import Ruleset
from .randomness import shuffled
from .results import RoundResult
from .scoring import RoundFacts, finders


def _not_in_hand(card: object) -> IllegalAction:
    return IllegalAction(RuleCode.CARD_NOT_IN_HAND, f"Card {quoted(card)} is not in your hand.")


class Turn:
    """One turn's moves so far; a new one each turn (`Turn(rules, storyteller)`).

    Each move method checks everything but the phase (the game's) and returns what the game
    reports: whether the seat changed an earlier move, and whether the phase is complete.
    """

    __slots__ = (
        "aloud",
        "clue",
        "owner_of",
        "owners",
        "players",
        "plays",
        "proposals",
        "red",
        "red_slots",
        "rules",
        "sound",
        "storyteller",
        "table",
        "voters",
        "votes",
        "waiting",
    )

    rules: Ruleset
    storyteller: int
    clue: str | None
    #: whether the clue was said aloud (its words, `clue`, may then be empty)
    aloud: bool
    #: the id of the sound recorded for the clue, if any
    sound: str | None
    #: who may put cards down this turn (in teams: one member of each team will)
    players: tuple[int, ...]
    #: the cards each seat put down this turn (they stay in the hand until the table is laid)
    plays: list[tuple[str, ...] | None]
    proposals: list[str | None]
    #: the cards in slot order once laid, each slot's owner, and each card's owner
    table: tuple[str, ...]
    owners: tuple[int, ...]
    owner_of: dict[str, int]
    #: who votes (known once the table is laid)
    voters: tuple[int, ...]
    votes: list[tuple[int, ...] | None]
    red: int | None
    #: party: where the red token may go (known once the table is laid)
    red_slots: tuple[int, ...]
    #: the seats whose move the current phase still waits for, in seat order
    waiting: list[int]

    def __init__(self, rules: Ruleset, storyteller: int) -> None:
        n = rules.seats
        self.rules, self.storyteller, self.clue, self.aloud, self.sound = rules, storyteller, None, False, None
        self.players = rules.players(storyteller)
        self.plays = [None] * n
        self.proposals = [None] * n
        self.table, self.owners, self.owner_of = (), (), {}
        self.voters, self.votes = (), [None] * n
        self.red, self.red_slots = None, ()
        self.waiting = [storyteller]

    # ---------------------------------------------------------------- the clue

    def tell(
        self, hand: list[str], seat: int, card: str, clue: object, aloud: object = False, *, sound: str | None = None
    ) -> str:
        """The storyteller's clue with its card; returns the clue as shown."""
        if seat != self.storyteller:
            raise IllegalAction(RuleCode.NOT_YOUR_TURN, "Only the storyteller gives the clue.")
        text = clean_clue(clue, aloud=aloud, sound=sound)
        if self.rules.mode.clue_before_hand:
            raise IllegalAction(
                RuleCode.WRONG_ACTION, "In party mode the clue comes before the card: give a blind clue."
            )
        if card not in hand:
            raise _not_in_hand(card)
        self.plays[seat] = (card,)
        self.clue, self.aloud, self.sound, self.waiting = text, aloud is True, sound, list(self.players)
        return text

    def blind_clue(self, seat: int, clue: object, aloud: object = False, *, sound: str | None = None) -> str:
        """Party: the storyteller's clue before looking at the hand; returns the clue as shown."""
        if seat != self.storyteller:
            raise IllegalAction(RuleCode.NOT_YOUR_TURN, "Only the storyteller gives the clue.")
        text = clean_clue(clue, aloud=aloud, sound=sound)
        if not self.rules.mode.clue_before_hand:
            raise IllegalAction(RuleCode.WRONG_ACTION, "Choose a card with the clue (only party mode has blind clues).")
        self.clue, self.aloud, self.sound, self.waiting = text, aloud is True, sound, list(self.players)
        return text

    # ---------------------------------------------------------------- the cards

    def play(self, hand: list[str], seat: int, cards: tuple[str, ...]) -> tuple[bool, bool]:
        """Put ``seat``'s cards down, replacing its earlier play: (changed one, every card is in)."""
        if seat not in self.players:
            raise IllegalAction(RuleCode.NOT_YOUR_TURN, "The storyteller's card is already chosen.")
        rules = self.rules
        count = rules.cards_per_player
        if type(cards) is not tuple or len(cards) != count:
            raise IllegalAction(RuleCode.WRONG_CARD_COUNT, "Play one card." if count == 1 else f"Play {count} cards.")
        for card in cards:
            if card not in hand:
                raise _not_in_hand(card)
        if count > 1 and len(set(cards)) != count:
            raise IllegalAction(RuleCode.DUPLICATE_CARD, "Play two different cards.")
        plays, waiting = self.plays, self.waiting
        changed = plays[seat] is not None
        plays[seat] = cards
        if rules.team_of is not None:
            mate = rules.teammate(seat)
            if mate != self.storyteller:
                if plays[mate] is not None:
                    # The team changes its mind about who plays: one card per team on the table.
                    plays[mate] = None
                    changed = True
                if mate in waiting:
                    waiting.remove(mate)
        if seat in waiting:
            waiting.remove(seat)
        return changed, not waiting

    def propose(self, hand: list[str], seat: int, card: str) -> None:
        """Teams: ``seat`` offers its teammate a card to play."""
        if self.rules.team_of is None:
            raise IllegalAction(RuleCode.WRONG_ACTION, "Only team mode has proposals.")
        if seat not in self.rules.proposers[self.storyteller]:
            raise IllegalAction(RuleCode.NOT_YOUR_TURN, "The storyteller's team does not choose who plays.")
        if card not in hand:
            raise _not_in_hand(card)
        self.proposals[seat] = card

    def lay(self, hands: list[list[str]], seed: int, round: int) -> TableLaid:
        """Every card is in: shuffle them onto the table (taking them from the hands) and ask the
        mode, once, who votes and where the red token may go."""
        rules, storyteller, plays = self.rules, self.storyteller, self.plays
        placed = shuffled(
            [(card, seat) for seat, cards in enumerate(plays) if cards for card in cards], seed, f"table/{round}"
        )
        self.table = table = tuple([card for card, _ in placed])
        self.owners = tuple([seat for _, seat in placed])
        self.owner_of = dict(placed)
        for card, seat in placed:
            hands[seat].remove(card)
        self.voters = rules.voters(storyteller, self.players, plays)
        if rules.mode.red_token:
            self.red_slots = rules.red_slots(storyteller, self.owners)
        # (teams: an offer is about this turn's card; once laid there is nothing left to offer)
        self.proposals = [None] * rules.seats
        waiting = list(self.voters)
        if rules.mode.red_token and storyteller not in waiting:
            waiting = sorted([*waiting, storyteller])
        self.waiting = waiting
        return TableLaid(table)

    # ---------------------------------------------------------------- the tokens

    def vote(self, seat: int, slots: tuple[int, ...]) -> tuple[bool, bool]:
        """Put ``seat``'s tokens on ``slots``, replacing its earlier vote: (changed one, all are in)."""
        rules = self.rules
        if seat not in self.voters:
            if seat == self.storyteller and not rules.mode.red_token:
                raise IllegalAction(RuleCode.NOT_YOUR_TURN, "The storyteller does not vote.")
            raise IllegalAction(RuleCode.NOT_YOUR_TURN, "You do not vote this turn.")
        if type(slots) is not tuple:
            raise IllegalAction(CommonCode.MALFORMED, "Slots must be a tuple of slot numbers.")
        table = self.table
        size = len(table)
        for slot in slots:
            if type(slot) is not int or not 0 < slot <= size:
                raise self._bad_slot(slot)
        # The common case needs no more than the answer the mode gave when the table was set;
        # the rest (two tokens, or a refusal to explain) goes through the one full check.
        if len(slots) != 1 or not rules.may_vote[seat][self.owners[slots[0] - 1]]:
            rules.check_vote(seat, tuple([table[slot - 1] for slot in slots]), self.owner_of)
        changed = self.votes[seat] is not None
        self.votes[seat] = slots if len(slots) == 1 else tuple(sorted(slots))
        if seat == self.storyteller and self.red is None and rules.mode.red_token:
            return changed, False  # the red token is still to come
        waiting = self.waiting
        if seat in waiting:
            waiting.remove(seat)
        return changed, not waiting

    def place_red(self, seat: int, slot: int) -> tuple[bool, bool]:
        """Party: the storyteller puts the red token on ``slot``: (moved it, every token is in)."""
        if not self.rules.mode.red_token:
            raise IllegalAction(RuleCode.WRONG_ACTION, "Only party mode has a red token.")
        if seat != self.storyteller:
            raise IllegalAction(RuleCode.NOT_YOUR_TURN, "Only the storyteller has the red token.")
        if type(slot) is not int or not 0 < slot <= len(self.table):
            raise self._bad_slot(slot)
        if slot not in self.red_slots:
            raise IllegalAction(RuleCode.OWN_CARD, "The red token cannot go on your own card (party_red_target).")
        changed = self.red is not None
        self.red = slot
        if self.votes[seat] is None:
            return changed, False  # the storyteller's own vote is still to come
        waiting = self.waiting
        if seat in waiting:
            waiting.remove(seat)
        return changed, not waiting

    def _bad_slot(self, slot: object) -> IllegalAction:
        return IllegalAction(RuleCode.BAD_SLOT, f"There is no slot {quoted(slot)}; slots are 1 to {len(self.table)}.")

    # ---------------------------------------------------------------- reading

    def reveal(self, round: int, scores: Sequence[int]) -> RoundResult:
        """The turn scored by the mode: what the table sees at the reveal (``scores``: before it)."""
        rules, storyteller, table, owners, votes = self.rules, self.storyteller, self.table, self.owners, self.votes
        # Scored by slot number: the slots name the cards as well as their ids do.
        played: dict[int, tuple[int, ...]] = {}
        for slot, owner in enumerate(owners, 1):
            played[owner] = (*played.get(owner, ()), slot)
        facts = RoundFacts(
            seats=rules.seat_order,
            storyteller=storyteller,
            played=played,
            votes={s: slots for s, slots in enumerate(votes) if slots},
            red=self.red,
            teams=rules.teams,
        )
        explained = rules.mode.explain(facts, rules)
        by_seat = [explained[team] for team in rules.team_of] if rules.team_of is not None else list(explained.values())
        points = [sum(part.points for part in parts) for parts in by_seat]
        found = finders(facts, rules)
        if rules.mode.clue_before_hand:
            storyteller_scored = points[storyteller] > 0
        else:
            storyteller_scored = 0 < len(found) < len(self.voters)
        return RoundResult(
            round=round,
            storyteller=storyteller,
            clue=self.clue or "",
            aloud=self.aloud,
            sound=self.sound,
            storyteller_card=table[facts.storyteller_card - 1],
            table=table,
            owners=owners,
            votes=tuple([v or () for v in votes]),
            red=self.red,
            voters=self.voters,
            finders=tuple(found),
            points=tuple(points),
            scores=tuple(map(add, scores, points)),
            storyteller_scored=storyteller_scored,
            reasons=tuple(tuple(parts) for parts in by_seat),
        )

    # ---------------------------------------------------------------- storing

    def copy(self) -> Turn:
        other = Turn.__new__(Turn)
        other.rules, other.storyteller, other.clue = self.rules, self.storyteller, self.clue
        other.aloud, other.sound = self.aloud, self.sound
        other.players, other.plays, other.proposals = self.players, list(self.plays), list(self.proposals)
        other.table, other.owners, other.owner_of = self.table, self.owners, dict(self.owner_of)
        other.voters, other.votes = self.voters, list(self.votes)
        other.red, other.red_slots = self.red, self.red_slots
        other.waiting = list(self.waiting)
        return other

    def to_json(self) -> dict[str, Any]:
        """The turn's moves as `Game.to_json` stores them (its clue the game stores apart, and
        what the mode answered is asked again on load)."""
        return {
            "plays": [None if cards is None else list(cards) for cards in self.plays],
            "proposals": list(self.proposals),
            "table": list(self.table),
            "owners": list(self.owners),
            "votes": [None if slots is None else list(slots) for slots in self.votes],
            "red": self.red,
            "voters": list(self.voters),
            "players": list(self.players),
            "waiting": list(self.waiting),
        }

    @classmethod
    def from_json(cls, rules: Ruleset, state: Mapping[str, Any]) -> Turn:
        turn = cls.__new__(cls)
        turn.rules, turn.storyteller, turn.clue = rules, state["storyteller"], state["clue"]
        turn.aloud = state.get("aloud", False)  # (states stored before clues were said aloud have none)
        turn.sound = state.get("sound")
        turn.players = tuple(state["players"])
        turn.plays = [None if cards is None else tuple(cards) for cards in state["plays"]]
        turn.proposals = list(state["proposals"])
        turn.table, turn.owners = tuple(state["table"]), tuple(state["owners"])
        turn.owner_of = dict(zip(turn.table, turn.owners, strict=True))
        turn.votes = [None if slots is None else tuple(slots) for slots in state["votes"]]
        turn.red, turn.voters = state["red"], tuple(state["voters"])
        turn.red_slots = rules.red_slots(turn.storyteller, turn.owners)
        turn.waiting = list(state["waiting"])
        return turn
