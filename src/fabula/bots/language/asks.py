"""What a seat is asked to do now, in words a language model can answer.

`Game.legal_actions` lists every move (at three players, every pair of hand cards; with two
tokens, every pair of slots). A model is not shown that list: it is asked one question — tell,
play, vote, place the red token — with numbered choices (the hand's cards, or the table's slots)
and how many to name. `fabula.bots.language.parse` maps the answer back to one of the legal moves.

When a seat may do two kinds of thing at once, one is asked, so the question stays simple:

- party storyteller, voting phase: the red token first (until it lies), then the green vote;
- teams, playing phase: playing for the team; proposing to the teammate stays possible (the reply
  says ``propose``), once a round, but is not the question.

>>> from fabula.rules import Game
>>> game = Game.new("odyssey", seats=4, seed=1)
>>> ask = what_is_asked(game.view(0).to_json(), game.legal_actions(0))
>>> ask.kind, len(ask.choices), ask.least, ask.most
('tell', 6, 1, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from fabula.cards.model import Card
from fabula.rules import Action, BlindClue, PlaceRed, Play, Propose, Tell, Vote

Kind = Literal["tell", "blind_clue", "play", "propose", "vote", "red"]


@dataclass(frozen=True, slots=True)
class Choice:
    """One numbered thing the seat may name: a hand card (numbered 1..n in hand order) or a
    table slot (its slot number)."""

    number: int
    card: str
    title: str
    description: str
    #: a table slot holding the seat's own card
    yours: bool = False
    #: a table slot no legal move names (one's own card, or in teams one's team's)
    barred: bool = False


@dataclass(frozen=True, slots=True)
class Ask:
    """The question of one move."""

    kind: Kind
    seat: int
    #: what may be named (hand cards for tell/play/propose, table slots for vote/red; none for a blind clue)
    choices: tuple[Choice, ...]
    #: how many choices to name, at least and at most
    least: int
    most: int
    #: the legal moves that answer this question (clues blank, as `Game.legal_actions` gives them)
    legal: tuple[Action, ...]
    #: teams: the seat may also only propose a card to its teammate
    may_propose: bool = False

    @property
    def needs_clue(self) -> bool:
        return self.kind in ("tell", "blind_clue")

    @property
    def on_table(self) -> bool:
        """Whether the choices are table slots (else hand cards)."""
        return self.kind in ("vote", "red")


def _card(cards: Mapping[str, Card], card_id: str) -> Card:
    # A card the table was not told about (an imported picture without a caption) is named by its id.
    return cards.get(card_id) or Card(card_id, card_id, "")


def _hand(view: Mapping[str, Any], cards: Mapping[str, Card]) -> tuple[Choice, ...]:
    hand = view.get("hand") or []
    return tuple(
        Choice(number, card.id, card.title, card.description)
        for number, card in enumerate((_card(cards, card_id) for card_id in hand), 1)
    )


def _table(view: Mapping[str, Any], cards: Mapping[str, Card]) -> tuple[Choice, ...]:
    found = []
    for slot in view.get("table") or []:
        card = _card(cards, slot["card"])
        found.append(Choice(slot["slot"], card.id, card.title, card.description, bool(slot.get("yours"))))
    return tuple(found)


def what_is_asked(view: Mapping[str, Any], legal: Sequence[Action], cards: Mapping[str, Card] | None = None) -> Ask:
    """The question behind ``legal`` (never empty) for the seat whose ``view`` (`SeatView.to_json`)
    this is; ``cards``: card id → card, for titles and descriptions."""
    if not legal:
        raise ValueError("no legal moves: nothing is asked")
    cards = cards or {}
    seat = legal[0].seat
    by_kind: dict[type, tuple[Action, ...]] = {}
    for action in legal:
        by_kind[type(action)] = (*by_kind.get(type(action), ()), action)
    if Tell in by_kind:
        return Ask("tell", seat, _hand(view, cards), 1, 1, by_kind[Tell])
    if BlindClue in by_kind:
        return Ask("blind_clue", seat, (), 0, 0, by_kind[BlindClue])
    if PlaceRed in by_kind and (view.get("my_red") is None or Vote not in by_kind):
        return Ask("red", seat, _table(view, cards), 1, 1, by_kind[PlaceRed])
    if Vote in by_kind:
        votes = by_kind[Vote]
        sizes = [len(action.slots) for action in votes if isinstance(action, Vote)]
        open_slots = {slot for action in votes if isinstance(action, Vote) for slot in action.slots}
        table = tuple(replace(choice, barred=choice.number not in open_slots) for choice in _table(view, cards))
        return Ask("vote", seat, table, min(sizes), max(sizes), votes)
    if Play in by_kind:
        plays = by_kind[Play]
        count = max(len(action.cards) for action in plays if isinstance(action, Play))
        # One proposal a round: a seat asked again after proposing is asked to play, or a model that
        # keeps proposing would hold the round up for ever.
        proposes = by_kind.get(Propose, ()) if view.get("my_proposal") is None else ()
        return Ask("play", seat, _hand(view, cards), count, count, (*plays, *proposes), bool(proposes))
    if Propose in by_kind:
        return Ask("propose", seat, _hand(view, cards), 1, 1, by_kind[Propose])
    raise ValueError(f"moves of no known kind: {legal[0]!r}")
