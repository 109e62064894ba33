"""What one seat observes, as text any framework can hold: its view, and the texts of its cards.

A seat observes exactly what a browser at that seat receives — `Game.view` — and nothing more
(so the engine's leak guarantees, tested in tests/server/test_leaks.py, carry over):

- ``view``: the view as JSON text, non-ASCII characters escaped (``\\u00e0``) so that the text
  fits a fixed charset (`JSON_CHARSET`) whatever a clue or a caption holds;
  ``json.loads(view) == game.view(seat).to_json()``.
- ``cards``: a JSON object from card id to ``{"title": …, "description": …}`` for every card the
  view names — the seat's hand, the table, the last round's table — in that order.

>>> import json
>>> from fabula.rules import Game
>>> texts = CardTexts.of(None)
>>> game = Game.new("odyssey", 4, seed=1, deck=texts.ids)
>>> json.loads(view_json(game, 0)) == game.view(0).to_json()
True
>>> view, cards = seat_texts(game, 0, texts)
>>> json.loads(view) == game.view(0).to_json()
True
>>> cards = json.loads(cards)
>>> list(cards) == list(game.hand(0)), sorted(cards[game.hand(0)[0]])
(True, ['description', 'title'])
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import msgspec

from fabula.cards.model import Card, Deck
from fabula.cards.original import original_deck
from fabula.rules import Game
from fabula.rules.results import RoundResult
from fabula.rules.views import SeatView, ViewEncoder

__all__ = ["CARDS_MAX", "JSON_CHARSET", "VIEW_MAX", "CardTexts", "DeckLike", "SeatObserver", "seat_texts", "view_json"]

#: Every character the observation texts may hold: printable ASCII (the rest is escaped).
JSON_CHARSET = "".join(chr(c) for c in range(0x20, 0x7F))
#: Bounds of the observation texts. The longest view of any game (12 seats, the last round's
#: reasons, two 200-character CJK clues escaped six characters each) is under 12,000 characters;
#: the bound leaves room for options and fields to come.
VIEW_MAX = 1 << 16
#: 31 cards at most (a hand, the table, the last table), each caption at most a few hundred
#: characters, escaped.
CARDS_MAX = 1 << 17

#: A deck as the environments take it: the original deck (``None``), a `Deck`, its cards, or bare
#: card ids (whose title is the id, without a description).
DeckLike = Deck | Sequence[Card] | Sequence[str] | None

_ENCODE = msgspec.json.Encoder().encode


def _ascii(raw: bytes) -> str:
    """JSON bytes as ASCII text: the same JSON value, non-ASCII characters escaped."""
    if raw.isascii():  # the common case: no accent in any clue
        return raw.decode("ascii")
    return json.dumps(json.loads(raw), separators=(",", ":"))


def view_json(game: Game, seat: int | None) -> str:
    """The seat's view (``None``: the spectator's) as JSON text in `JSON_CHARSET` (module docstring)."""
    return _ascii(_ENCODE(game.view(seat)))


def seat_texts(game: Game, seat: int, texts: CardTexts) -> tuple[str, str]:
    """The seat's ``view`` and ``cards`` texts (module docstring), both from one `Game.view`: the
    cards named are those of the view itself, so they can never say more than it does."""
    view = game.view(seat)
    return _ascii(_ENCODE(view)), texts.json(view)


class SeatObserver:
    """`seat_texts` for one seat after another of a game in play, keeping what their views share.

    Within a phase most of a view stays the same from move to move, so the view's JSON comes
    from a `fabula.rules.views.ViewEncoder` (the public fields encoded once a phase, each seat's
    own part — the engine's own code — and who is awaited encoded as asked), and the texts of
    the cards every seat's view names (the table, the last table) are joined once a phase. The
    texts are those of `seat_texts`, character for character (tests/research check it at every
    move of games of every mode).
    """

    __slots__ = ("_encoder", "_last", "_shared", "_shared_ids", "_table", "texts")

    def __init__(self, texts: CardTexts) -> None:
        self.texts = texts
        self._encoder = ViewEncoder()
        # the cards every seat's view names now (the table, the last table), and their texts
        self._table: tuple[str, ...] = ()
        self._last: RoundResult | None = None
        self._shared_ids: dict[str, None] = {}
        self._shared = ""

    def __call__(self, game: Game, seat: int) -> tuple[str, str]:
        raw, own = self._encoder.encode(game, seat)
        table, last = game.table, game.last_result
        if table is not self._table or last is not self._last:  # (each is one value for a phase)
            self._table, self._last = table, last
            named = dict.fromkeys([*table, *(() if last is None else last.table)])
            self._shared_ids, self._shared = named, self.texts.entries(named)
        hand, shared = own["hand"], self._shared
        if not hand:
            cards = "".join(("{", shared, "}"))
        elif self._shared_ids.keys().isdisjoint(hand):
            cards = "".join(("{", self.texts.entries(hand), "," if shared else "", shared, "}"))
        else:  # a card of the last table drawn again after a reshuffle: named once
            cards = "".join(("{", self.texts.entries(dict.fromkeys([*hand, *self._shared_ids])), "}"))
        return _ascii(raw), cards


class CardTexts:
    """The titles and descriptions of a deck's cards, each card's JSON written once."""

    __slots__ = ("_entries", "ids")

    ids: tuple[str, ...]
    _entries: dict[str, str]

    def __init__(self, cards: Sequence[Card]) -> None:
        self.ids = tuple(card.id for card in cards)
        self._entries = {
            card.id: json.dumps(card.id) + ":" + json.dumps({"title": card.title, "description": card.description})
            for card in cards
        }
        assert all(set(entry) <= set(JSON_CHARSET) for entry in self._entries.values())

    @classmethod
    def of(cls, deck: DeckLike) -> CardTexts:
        """The texts of ``deck`` (`DeckLike`)."""
        if deck is None:
            return cls(original_deck().cards)
        if isinstance(deck, Deck):
            return cls(deck.cards)
        return cls([card if isinstance(card, Card) else Card(card, card, "") for card in deck])

    def json(self, view: SeatView) -> str:
        """The texts of every card ``view`` names, as a JSON object (module docstring)."""
        named = dict.fromkeys(view.hand or ())
        named.update(dict.fromkeys([slot.card for slot in view.table]))
        last = view.last_round
        if last is not None:
            named.update(dict.fromkeys(last.table))
        return "{" + self.entries(named) + "}"

    def entries(self, cards: Iterable[str]) -> str:
        """The ``"id":{"title":…,"description":…}`` members of ``cards``, comma-separated."""
        entries = self._entries
        return ",".join([entries[card] for card in cards])
