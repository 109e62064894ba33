"""Dealing and hands: where every card is that is not on the table.

The deck order is hidden state drawn from the game's seed: the deal, and each reshuffle of the
discard pile, is its own keyed shuffle (`randomness`), so a replay deals the same cards. Kept
apart from the turn's table because it outlives turns: hands refill, piles run down, party hands
move left, whatever mode is played.

>>> from fabula.rules.modes import Ruleset
>>> cards = Cards.deal(Ruleset.create("odyssey", 4), numbered_deck(), seed=7)
>>> [len(hand) for hand in cards.hands], len(cards.pile)
([6, 6, 6, 6], 60)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .errors import InvalidSetup, RuleCode
from .events import DeckReshuffled, Event, HandsPassed
from .modes import Ruleset
from .randomness import shuffled


def numbered_deck(size: int = 84) -> tuple[str, ...]:
    """Card ids ``c01`` … for a game that needs no particular deck."""
    return tuple([f"c{n:02d}" for n in range(1, size + 1)])


DEFAULT_DECK = numbered_deck()


def checked_deck(rules: Ruleset, deck: Sequence[str] | None) -> tuple[str, ...]:
    """The deck a game with ``rules`` is dealt from (the numbered one if ``None``), or `InvalidSetup`."""
    cards = DEFAULT_DECK if deck is None else tuple(deck)
    if cards is not DEFAULT_DECK:
        if not all(isinstance(card, str) and card for card in cards):
            raise InvalidSetup(RuleCode.BAD_DECK, "Every card id must be a non-empty string.")
        if len(set(cards)) != len(cards):
            raise InvalidSetup(RuleCode.BAD_DECK, "The deck holds the same card id twice.")
    if len(cards) < rules.cards_needed:
        raise InvalidSetup(
            RuleCode.DECK_TOO_SMALL,
            f"This game needs {rules.cards_needed} cards ({rules.seats} hands of {rules.hand_size} and a "
            f"table of {rules.table_size}); the deck has {len(cards)}: "
            f"{rules.cards_needed - len(cards)} missing.",
        )
    return cards


class Cards:
    """Each seat's hand, the draw pile (top card last) and the discard pile; owned by one game,
    which changes them only through `apply` (hidden information: never for a client)."""

    __slots__ = ("discard", "hands", "pile", "reshuffles")

    hands: list[list[str]]
    pile: list[str]
    discard: list[str]
    #: how many times the discard pile became the draw pile (each reshuffle is its own shuffle)
    reshuffles: int

    def __init__(self, hands: list[list[str]], pile: list[str], discard: list[str], reshuffles: int) -> None:
        self.hands, self.pile, self.discard, self.reshuffles = hands, pile, discard, reshuffles

    @classmethod
    def deal(cls, rules: Ruleset, deck: tuple[str, ...], seed: int) -> Cards:
        """Shuffle ``deck`` and deal every hand from the top of the pile."""
        pile = shuffled(deck, seed, "deal")
        size, seats = rules.hand_size, rules.seats
        hands = [pile[len(pile) - size * (s + 1) : len(pile) - size * s][::-1] for s in range(seats)]
        del pile[len(pile) - size * seats :]
        return cls(hands, pile, [], 0)

    def refill(self, rules: Ruleset, seed: int, storyteller: int, events: list[Event]) -> None:
        """Refill every hand to the hand size, clockwise from the storyteller; party hands move left.
        What happened on the way (a reshuffle, hands passed) is added to ``events``."""
        hands, size, seats = self.hands, rules.hand_size, rules.seats
        needed = size * seats - sum(map(len, hands))
        if needed > len(self.pile) and not rules.options.end_on_empty_deck and self.discard:
            fresh = shuffled(self.discard, seed, f"reshuffle/{self.reshuffles}")
            self.reshuffles += 1
            # What is left of the old pile stays on top: it is drawn first.
            self.pile = fresh + self.pile
            self.discard = []
            events.append(DeckReshuffled(len(fresh)))
        pile = self.pile
        for seat in (*range(storyteller, seats), *range(storyteller)):
            hand = hands[seat]
            for _ in range(min(size - len(hand), len(pile))):
                hand.append(pile.pop())
        if rules.mode.pass_hands_left:
            self.hands = [hands[seat - 1] for seat in range(seats)]
            events.append(HandsPassed())

    def copy(self) -> Cards:
        return Cards([list(hand) for hand in self.hands], list(self.pile), list(self.discard), self.reshuffles)

    def to_json(self) -> dict[str, Any]:
        """The hands and piles as `Game.to_json` stores them (the reshuffle count it stores apart)."""
        return {"hands": [list(hand) for hand in self.hands], "pile": list(self.pile), "discard": list(self.discard)}

    @classmethod
    def from_json(cls, state: Mapping[str, Any]) -> Cards:
        return cls(
            [list(hand) for hand in state["hands"]], list(state["pile"]), list(state["discard"]), state["reshuffles"]
        )
