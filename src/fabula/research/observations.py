"""What one seat observes, as text any framework can hold: its view, and the texts of its cards.

A seat observes exactly what a browser at that seat receives — `Game.view` — and nothing more
(so the engine's leak guarantees, tested in tests/server/test_leaks.py, carry over):

- ``view``: the view as JSON text, non-ASCII characters escaped (``\\u00e0``) so that the text
  fits a fixed charset (`JSON_CHARSET`) whatever a clue or a caption holds;
  ``json.loads(view) == game.view(seat).to_json()``.
- ``cards``: a JSON object from card id to ``{"title": …, "description": …}`` for every card the
  view names — the seat's hand, the table, the last round's table — in that order.

The environments hand them out in an `Observation`, which writes both texts when first read.

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
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import msgspec

from fabula.cards.model import Card, Deck
from fabula.cards.original import original_deck
from fabula.rules import Game
from fabula.rules.views import SeatView, ViewEncoder, ViewHead, ViewParts

__all__ = [
    "CARDS_MAX",
    "JSON_CHARSET",
    "OBSERVATION_KEYS",
    "VIEW_MAX",
    "CardTexts",
    "DeckLike",
    "Observation",
    "SeatObserver",
    "seat_texts",
    "view_json",
    "view_text",
]

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
_T = TypeVar("_T")


def _ascii(raw: bytes) -> str:
    """JSON bytes as ASCII text: the same JSON value, non-ASCII characters escaped."""
    if raw.isascii():  # the common case: no accent in any clue
        return raw.decode("ascii")
    return json.dumps(json.loads(raw), separators=(",", ":"))


def view_json(game: Game, seat: int | None) -> str:
    """The seat's view (``None``: the spectator's) as JSON text in `JSON_CHARSET` (module docstring)."""
    return _ascii(_ENCODE(game.view(seat)))


def view_text(view: SeatView) -> str:
    """A view as JSON text in `JSON_CHARSET`: what `view_json` writes of the view it takes."""
    return _ascii(_ENCODE(view))


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

    `capture` takes a seat's view now for `texts_of` to write later (what an `Observation`
    holds: `texts_of` keeps no reference to the game, only to the deck's texts).
    """

    __slots__ = ("capture", "texts", "texts_of")

    def __init__(self, texts: CardTexts) -> None:
        self.texts = texts
        #: ``capture(game, seat[, awaiting])``: the seat's view now, kept for `texts_of` (values
        #: that do not change: `fabula.rules.views.ViewEncoder.capture`)
        self.capture = ViewEncoder().capture
        #: ``texts_of(parts)``: the ``view`` and ``cards`` texts of a `capture`
        self.texts_of = _TextWriter(texts).write

    def __call__(self, game: Game, seat: int) -> tuple[str, str]:
        return self.texts_of(self.capture(game, seat))


class _TextWriter:
    """Writes the texts of captured views: the deck's texts, and those of the cards every view of
    the last phase written names (nothing of a game in play)."""

    __slots__ = ("_shared", "texts")

    def __init__(self, texts: CardTexts) -> None:
        self.texts = texts
        self._shared: _SharedCards | None = None

    def write(self, parts: ViewParts) -> tuple[str, str]:
        raw, own = ViewEncoder.render(parts)
        shared = self._shared
        if shared is None or shared.head is not parts.head:
            shared = self._shared = _SharedCards(parts.head, self.texts)
        hand = own["hand"]
        shared_ids, shared_json = shared.ids, shared.json
        if not hand:
            cards = "".join(("{", shared_json, "}"))
        elif shared_ids.keys().isdisjoint(hand):
            cards = "".join(("{", self.texts.entries(hand), "," if shared_json else "", shared_json, "}"))
        else:  # a card of the last table drawn again after a reshuffle: named once
            cards = "".join(("{", self.texts.entries(dict.fromkeys([*hand, *shared_ids])), "}"))
        return _ascii(raw), cards


class _SharedCards:
    """The cards every view of a phase names (the table, the last table), and their texts."""

    __slots__ = ("head", "ids", "json")

    def __init__(self, head: ViewHead, texts: CardTexts) -> None:
        last = head.last_result
        self.head = head
        self.ids = dict.fromkeys([*head.cards, *(() if last is None else last.table)])
        self.json = texts.entries(self.ids)


#: The keys of an observation, in their order.
OBSERVATION_KEYS = ("view", "cards", "action_mask")


class Observation(dict[str, Any]):
    """A seat's observation, ``{"view": str, "cards": str, "action_mask": array}``: a `dict`
    whose two texts are written the first time anything reads them.

    An agent that reads only the mask (most learning agents) does not pay for texts it never
    reads. What the texts will say is taken when the observation is made — values that do not
    change, and only the seat's own (`fabula.rules.views.ViewParts`) — so an observation read
    after the game has gone on still says what the seat saw then.

    Everything Python does with a dict reads the texts first: indexing, ``get``, iterating,
    ``keys``/``items``/``values``, comparing, ``dict(o)``, ``{**o}``, ``json.dumps``, printing,
    copying and pickling (a copy or an unpickled observation is a plain `dict`). ``len`` and
    ``in`` answer without them. Only C code that reads a dict's storage directly (``orjson``,
    ``msgspec``) would see the mask alone: call `filled` first.

    >>> observation = Observation.pending(lambda seat: ("{}", f'{{"seat":{seat}}}'), 2, [1, 0])
    >>> observation["action_mask"], len(observation), "view" in observation
    ([1, 0], 3, True)
    >>> observation
    {'view': '{}', 'cards': '{"seat":2}', 'action_mask': [1, 0]}
    """

    __slots__ = ("_write",)

    _write: tuple[Callable[[Any], tuple[str, str]], Any] | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._write = None

    @classmethod
    def pending(cls, write: Callable[[_T], tuple[str, str]], what: _T, action_mask: Any) -> Observation:
        """An observation whose ``view`` and ``cards`` ``write(what)`` gives when first read."""
        observation = _new_dict(cls)
        observation._write = (write, what)
        _set_default(observation, "action_mask", action_mask)  # (a method call: 4× cheaper than __setitem__'s slot)
        return observation

    def filled(self) -> Observation:
        """The observation with its texts written (it is returned)."""
        write = self._write
        if write is not None:
            self._write = None
            view, cards = write[0](write[1])
            mask = _pop(self, "action_mask")
            _update(self, view=view, cards=cards, action_mask=mask)
        return self

    def __missing__(self, key: str) -> Any:
        # (dict's own indexing calls this for a key it lacks: the mask, there from the start, is
        # read at C speed — no Python-level __getitem__ for the read every agent makes)
        if self._write is None:
            raise KeyError(key)
        return _get_item(self.filled(), key)

    def get(self, key: str, default: Any = None) -> Any:
        if self._write is not None and key != "action_mask":
            self.filled()
        return _get(self, key, default)

    def __len__(self) -> int:
        return len(OBSERVATION_KEYS) if self._write is not None else _len(self)

    def __contains__(self, key: object) -> bool:
        return key in OBSERVATION_KEYS if self._write is not None else _contains(self, key)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Observation):
            other.filled()
        return _eq(self.filled(), other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # (a dict's: unhashable)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (_items_list(self.filled()),))

    def __copy__(self) -> dict[str, Any]:
        return _copy(self.filled())


def _filling(name: str) -> Any:
    """``dict``'s method ``name``, the texts written first."""
    method = getattr(dict, name)

    def filled(self: Observation, *args: Any, **kwargs: Any) -> Any:
        return method(self.filled(), *args, **kwargs)

    filled.__name__, filled.__qualname__, filled.__doc__ = name, f"Observation.{name}", method.__doc__
    return filled


# Every other method of dict reads or changes the storage: the texts go in first. (Assigned, not
# written out: the same two lines twenty times.)
for _name in (
    "__iter__",
    "__reversed__",
    "__repr__",
    "__or__",
    "__ror__",
    "__ior__",
    "__setitem__",
    "__delitem__",
    "__sizeof__",
    "keys",
    "values",
    "items",
    "copy",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "clear",
):
    setattr(Observation, _name, _filling(_name))

_new_dict = dict.__new__
_set_default, _get_item, _get, _pop, _update = dict.setdefault, dict.__getitem__, dict.get, dict.pop, dict.update
_len, _contains, _eq, _copy = dict.__len__, dict.__contains__, dict.__eq__, dict.copy


def _items_list(observation: dict[str, Any]) -> list[tuple[str, Any]]:
    return list(_items(observation))


_items = dict.items


def card_list(deck: DeckLike) -> list[Card]:
    """The cards of ``deck`` (`DeckLike`): a bare id is a card titled by its id, without a description."""
    if deck is None:
        return list(original_deck().cards)
    if isinstance(deck, Deck):
        return list(deck.cards)
    return [card if isinstance(card, Card) else Card(card, card, "") for card in deck]


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
        return cls(card_list(deck))

    def json(self, view: SeatView) -> str:
        """The texts of every card ``view`` names, as a JSON object (module docstring)."""
        return "{" + self.entries(self.named(view)) + "}"

    @staticmethod
    def named(view: SeatView) -> dict[str, None]:
        """The cards ``view`` names, in order (the hand, the table, the last round's table), once each."""
        named = dict.fromkeys(view.hand or ())
        named.update(dict.fromkeys([slot.card for slot in view.table]))
        last = view.last_round
        if last is not None:
            named.update(dict.fromkeys(last.table))
        return named

    def entries(self, cards: Iterable[str]) -> str:
        """The ``"id":{"title":…,"description":…}`` members of ``cards``, comma-separated."""
        entries = self._entries
        return ",".join([entries[card] for card in cards])
