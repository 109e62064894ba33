"""A seat's observation as one vector of numbers: what RL libraries and OpenSpiel's tensors take.

`VectorLayout.of(space)` fixes the layout for one game (mode, seats, options): a flat
``float32`` vector of `VectorLayout.size` numbers made of named fields (`VectorLayout.fields`,
each a slice), all computed from the seat's `fabula.rules.views.SeatView` — exactly what the text
observation and a browser at that seat get, and nothing more. With N seats, H cards in a hand, T
slots on the table and D = 384 (the width of a card's embedding):

=================  ========  ==============================================================
field              size      what it holds
=================  ========  ==============================================================
``phase``          4         one-hot: clue, play, vote, over
``seat``           N         one-hot: this seat
``storyteller``    N         one-hot: the storyteller's seat
``teammate``       N         teams: one-hot, this seat's partner (zeros elsewhere)
``scores``         N         each seat's score ÷ 30
``awaiting``       N         1 for each seat the table waits for
``acted``          N         1 for each seat that has played (play) or voted (vote) this turn
``voters``         N         1 for each seat that votes this turn (known once the table is laid)
``progress``       3         the round ÷ 100, the draw pile ÷ 100, the discard pile ÷ 100
``flags``          5         hand hidden (party, before the blind clue); the red token placed;
                             the teammate has offered a card; it is my turn; I am the storyteller
``cards_to_play``  1         how many cards this seat puts down this turn
``clue``           1 + D     1 when there is a clue, then its embedding
``hand``           H×(2+D)   per hand position: present, put down this turn (or offered, in
                             teams), then the card's embedding
``table``          T×(5+D)   per slot: present, mine, my tokens on it, the red token on it, the
                             slot's number ÷ T, then the card's embedding
``last_round``     2N + 1    the last round's points by seat ÷ 5, one-hot its storyteller,
                             and 1 if the storyteller scored
=================  ========  ==============================================================

A card's embedding is the sentence embedding of its description by the model Fabula ships (the
MiniLM encoder the bots use, `fabula.bots.semantic.encoder`), and the clue's is the clue's by the
same model, so that a clue and the pictures it fits are near in one space. A card without any
text (a bare id) has zeros. The embeddings are computed once per deck (`CardEmbeddings`); a clue's
once per clue.

`VectorLayout.encode` writes the vector of a `SeatView`. The PettingZoo env writes the same vector,
number for number, with a `VectorWriter`: from a capture of the seat's view
(`fabula.rules.views.ViewEncoder.capture`, what the text mode takes too), writing what the views of
a phase share once a phase and each seat's hand rows once per hand.

The hand's positions are those of the action ids (`fabula.research.actions`): hand[h] of the
view is row h, so a policy can match the vector's rows to its moves.

>>> from fabula.rules import Game
>>> from fabula.research.actions import ActionSpace
>>> layout = VectorLayout.of(ActionSpace.create("odyssey", 4))
>>> layout.size, layout.fields["phase"]
(4307, slice(0, 4, None))
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from fabula.cards.model import Card
from fabula.rules.modes import Ruleset
from fabula.rules.state import SeatSecrets
from fabula.rules.views import SeatView, ViewHead, ViewParts

from .actions import ActionSpace

__all__ = ["EMBEDDING_WIDTH", "CardEmbeddings", "VectorLayout", "VectorWriter"]

#: The width of a card's (and a clue's) embedding: MiniLM's.
EMBEDDING_WIDTH = 384
_PHASES = ("clue", "play", "vote", "over")
#: Scales that keep every number near [0, 1] in an ordinary game.
_SCORE_SCALE, _POINTS_SCALE, _COUNT_SCALE = 30.0, 5.0, 100.0

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class VectorLayout:
    """Where each field of the vector observation lies, for one game (module docstring)."""

    seats: int
    hand_size: int
    table_size: int
    #: each field's slice of the vector, in order
    fields: Mapping[str, slice]
    size: int

    @classmethod
    def of(cls, space: ActionSpace, width: int = EMBEDDING_WIDTH) -> VectorLayout:
        rules = space.rules
        n, hand, table = rules.seats, rules.hand_size, rules.table_size
        sizes = {
            "phase": len(_PHASES),
            "seat": n,
            "storyteller": n,
            "teammate": n,
            "scores": n,
            "awaiting": n,
            "acted": n,
            "voters": n,
            "progress": 3,
            "flags": 5,
            "cards_to_play": 1,
            "clue": 1 + width,
            "hand": hand * (2 + width),
            "table": table * (5 + width),
            "last_round": 2 * n + 1,
        }
        fields, start = {}, 0
        for name, size in sizes.items():
            fields[name] = slice(start, start + size)
            start += size
        return cls(n, hand, table, fields, start)

    def describe(self) -> list[tuple[str, int, int]]:
        """Each field's name, first index and size: the layout as a table (for docs and checks)."""
        return [(name, part.start, part.stop - part.start) for name, part in self.fields.items()]

    def encode(self, view: SeatView, cards: CardEmbeddings, out: Vector | None = None) -> Vector:
        """The vector of a seat's ``view``, written into ``out`` if given (and returned)."""
        vector = np.zeros(self.size, dtype=np.float32) if out is None else out
        if out is not None:
            vector.fill(0.0)
        f = self.fields
        width = cards.width
        vector[f["phase"].start + _PHASES.index(view.phase)] = 1.0
        seat = view.seat
        if seat is not None:
            vector[f["seat"].start + seat] = 1.0
        vector[f["storyteller"].start + view.storyteller] = 1.0
        if seat is not None and view.teams:
            for pair in view.teams:
                if seat in pair:
                    vector[f["teammate"].start + pair[1 - pair.index(seat)]] = 1.0
        vector[f["scores"]] = np.asarray(view.scores, dtype=np.float32) / _SCORE_SCALE
        for name, seats in (("awaiting", view.awaiting), ("acted", view.acted), ("voters", view.voters)):
            start = f[name].start
            for s in seats:
                vector[start + s] = 1.0
        progress = f["progress"].start
        vector[progress : progress + 3] = (
            view.round / _COUNT_SCALE,
            view.draw_pile / _COUNT_SCALE,
            view.discard_pile / _COUNT_SCALE,
        )
        flags = f["flags"].start
        vector[flags : flags + 5] = (
            view.hand_hidden,
            view.red_token_placed is True,
            view.teammate_proposed is True,
            seat is not None and seat in view.awaiting,
            seat == view.storyteller,
        )
        vector[f["cards_to_play"].start] = view.cards_to_play
        if view.clue is not None:
            clue = f["clue"].start
            vector[clue] = 1.0
            vector[clue + 1 : clue + 1 + width] = cards.clue(view.clue)
        hand = view.hand or []
        down = set(view.my_cards)
        if isinstance(view.my_proposal, str):
            down.add(view.my_proposal)
        row, start = 2 + width, f["hand"].start
        for h, card in enumerate(hand[: self.hand_size]):
            at = start + h * row
            vector[at] = 1.0
            vector[at + 1] = card in down
            vector[at + 2 : at + row] = cards[card]
        row, start = 5 + width, f["table"].start
        votes = view.my_vote
        red = view.my_red if isinstance(view.my_red, int) else None
        for slot in view.table[: self.table_size]:
            at = start + (slot.slot - 1) * row
            vector[at : at + 5] = (
                1.0,
                slot.yours,
                votes.count(slot.slot),
                red == slot.slot,
                slot.slot / self.table_size,
            )
            vector[at + 5 : at + row] = cards[slot.card]
        last = view.last_round
        if last is not None:
            start = f["last_round"].start
            vector[start : start + self.seats] = np.asarray(last.points, dtype=np.float32) / _POINTS_SCALE
            vector[start + self.seats + last.storyteller] = 1.0
            vector[start + 2 * self.seats] = last.storyteller_scored
        return vector


class VectorWriter:
    """Seats' vectors from captured views, for one seat after another of a game in play:
    ``write(parts)`` is ``layout.encode(view, cards)`` number for number, ``view`` being the view
    ``parts`` were captured of (`fabula.rules.views.ViewEncoder.capture`; tests/research check it
    at every move of games of every mode).

    A vector is joined from the bytes of its fields' float32 numbers, in one new buffer: what the
    views of a phase share — the phase, the storyteller, the scores, the voters, the round and
    piles, the red token, the clue's embedding, the table's rows, the last round — is joined once a
    phase (once a `ViewHead`); each card's and each clue's bytes are made once; and a seat's own
    fields are bytes kept by their value (its seat and teammate, who is awaited, who has acted,
    its flags, how many cards it puts down), so that writing a seat's vector is one join, its hand's
    rows among the parts, and a few numbers set: its marks on the table, the cards it put down.
    Each vector is a new array (over a `bytearray` of its own), which stays as it is whatever the
    game does next.
    """

    __slots__ = (
        "_base",
        "_clues",
        "_flags",
        "_hand_rows",
        "_head",
        "_last",
        "_many",
        "_marks",
        "_pads",
        "_phases",
        "_rows",
        "_rules",
        "_scores",
        "_seated",
        "_slots",
        "_table_pads",
        "_to_play",
        "_zeros",
        "cards",
        "layout",
    )

    def __init__(self, layout: VectorLayout, cards: CardEmbeddings) -> None:
        fields, width, seats = layout.fields, cards.width, layout.seats
        if tuple(fields) != _FIELDS or fields["clue"].stop - fields["clue"].start != 1 + width:
            raise ValueError(f"a layout of the fields {_FIELDS}, embeddings {width} numbers wide, is written")
        self.layout, self.cards = layout, cards
        #: where the hand and the table start, and their rows' numbers
        self._marks = (fields["hand"].start, 2 + width, fields["table"].start, 5 + width)
        self._head: ViewHead | None = None
        self._base: _Base = (b"", b"", b"", b"", b"", (), -1, 0, False)
        self._rules: tuple[Ruleset, bool, bool] | None = None  # (the rules, teams?, a red token?)
        #: each seat's own one-hot and its teammate's (zeros without teams)
        self._seated: list[tuple[bytes, bytes]] = []
        #: each field's numbers, all zero
        self._zeros = {name: bytes(4 * (part.stop - part.start)) for name, part in fields.items()}
        #: the zeros after a hand, and after a table, of k cards
        self._pads = [bytes(4 * (2 + width) * (layout.hand_size - k)) for k in range(layout.hand_size + 1)]
        self._table_pads = [bytes(4 * (5 + width) * (layout.table_size - k)) for k in range(layout.table_size + 1)]
        #: each card's embedding, its row in a hand (present, 0, the embedding), each clue's field
        #: (1, the embedding): made when first needed
        self._rows: _Made[str] = _Made(lambda card: _float32(cards[card]))
        self._hand_rows: _Made[str] = _Made(lambda card: _PRESENT + self._rows[card])
        self._clues: _Made[str] = _Made(lambda clue: _float32([1.0]) + _float32(cards.clue(clue)))
        #: a table slot's first numbers (present, not mine, no token, no red token, its number ÷ T)
        self._slots = [_float32([1.0, 0.0, 0.0, 0.0, (i + 1) / layout.table_size]) for i in range(layout.table_size)]
        #: 1 for each seat of a tuple (who is awaited, who has acted, who votes)
        self._many: _Made[tuple[int, ...]] = _Made(lambda some: _float32([float(s in some) for s in range(seats)]))
        self._phases = {phase: _float32([float(phase == p) for p in _PHASES]) for phase in _PHASES}
        #: the flags by the number their five bits make (hand hidden = 1, red token placed = 2 …)
        self._flags = [_float32([float(code >> bit & 1) for bit in range(5)]) for code in range(32)]
        self._to_play: _Made[int] = _Made(lambda count: _float32([count]))
        self._scores: tuple[tuple[int, ...], bytes] = ((), b"")
        self._last: tuple[Any, bytes] = (None, b"")

    def write(self, parts: ViewParts) -> Vector:
        """The vector of the view ``parts`` hold."""
        head = parts.head
        if head is not self._head:
            self._new_base(head)
        phase, storyteller_hot, scores, voters, clue, after, storyteller, on_table, red_placed = self._base
        _rules, teams, red_token = self._rules  # type: ignore[misc]
        seat, secrets, awaiting = parts.seat, parts.secrets, parts.awaiting
        hand, many = secrets.hand, self._many
        flags = self._flags[
            (hand is None)
            + 2 * red_placed
            + 4 * (teams and secrets.teammate_proposed is True)
            + 8 * (seat in awaiting)
            + 16 * (seat == storyteller)
        ]
        mine, mate = self._seated[seat]
        if hand:
            shown = hand[: self.layout.hand_size]
            chunks = [
                phase,
                mine,
                storyteller_hot,
                mate,
                scores,
                many[awaiting],
                many[parts.acted],
                voters,
                flags,
                self._to_play[secrets.cards_to_play],
                clue,
                *map(self._hand_rows.__getitem__, shown),  # (map: no comprehension's frame)
                self._pads[len(shown)],
                *after,
            ]
        else:
            chunks = [phase, mine, storyteller_hot, mate, scores, many[awaiting], many[parts.acted], voters, flags]
            chunks += (self._to_play[secrets.cards_to_play], clue, self._pads[0], *after)
        vector = _array(_join(chunks), _FLOAT32)
        if secrets.played or secrets.slots or secrets.vote or (red_token and secrets.red is not None) or teams:
            self._mark(vector, secrets, on_table, teams)
        return vector

    def _mark(self, vector: Vector, secrets: SeatSecrets, on_table: int, teams: bool) -> None:
        """The seat's marks: the cards of its hand put down (or offered) this turn, its cards on
        the table, its tokens and its red token."""
        hand_at, hand_row, table_at, table_row = self._marks
        hand, down = secrets.hand, secrets.played or ()
        if teams and secrets.proposal is not None:
            down = (*down, secrets.proposal)
        if hand and down:
            shown = hand[: self.layout.hand_size]
            for card in down:
                if card in shown:
                    vector[hand_at + shown.index(card) * hand_row + 1] = 1.0
        for i in secrets.slots:
            if i < on_table:
                vector[table_at + i * table_row + 1] = 1.0
        for slot in secrets.vote or ():
            if 1 <= slot <= on_table:
                vector[table_at + (slot - 1) * table_row + 2] += 1.0
        red = secrets.red
        if self._rules is not None and self._rules[2] and isinstance(red, int) and 1 <= red <= on_table:
            vector[table_at + (red - 1) * table_row + 3] = 1.0

    def _new_base(self, head: ViewHead) -> None:
        """What every seat's view of this phase shares, as bytes."""
        rules, seats = head.rules, self.layout.seats
        if self._rules is None or rules is not self._rules[0]:
            self._rules = (rules, rules.team_of is not None, rules.mode.red_token)
            pairs = rules.teams or ()
            mates = [tuple(pair[1 - pair.index(s)] for pair in pairs if s in pair) for s in range(seats)]
            self._seated = [(self._many[(s,)], self._many[mates[s]]) for s in range(seats)]
        round_, phase, storyteller, clue, _aloud, _sound, voters, scores, draw, discard, _outcome, red = (
            head.phase_values
        )
        if scores != self._scores[0]:
            self._scores = (scores, (np.asarray(scores, dtype=np.float32) / _SCORE_SCALE).tobytes())
        cards, slots, rows = head.cards[: self.layout.table_size], self._slots, self._rows
        after = [part for i, card in enumerate(cards) for part in (slots[i], rows[card])]
        after.append(self._table_pads[len(cards)])
        last = head.last_result
        if last is not None and last is not self._last[0]:
            points = (np.asarray(last.points, dtype=np.float32) / _POINTS_SCALE).tobytes()
            self._last = (last, points + self._many[(last.storyteller,)] + _float32([last.storyteller_scored]))
        after.append(self._zeros["last_round"] if last is None else self._last[1])
        self._head = head
        self._base = (
            self._phases[phase.value],
            self._many[(storyteller,)],
            self._scores[1],
            self._many[voters] + _pack3(round_ / _COUNT_SCALE, draw / _COUNT_SCALE, discard / _COUNT_SCALE),
            self._zeros["clue"] if not clue else self._clues[clue],  # (said aloud without words: nothing to read)
            tuple(after),
            storyteller,
            len(cards),
            red is True,
        )


#: a phase's base (`VectorWriter._new_base`): the bytes of the phase, the storyteller, the scores,
#: the voters and progress, the clue, and the parts of the table and last round (each card's row
#: and a slot's numbers kept apart: bytes shared, not copied); the storyteller, how many cards are
#: on the table (within the layout's), whether the red token is down
_Base = tuple[bytes, bytes, bytes, bytes, bytes, tuple[bytes, ...], int, int, bool]
#: the fields of a `VectorLayout`, in order
_FIELDS = (
    "phase",
    "seat",
    "storyteller",
    "teammate",
    "scores",
    "awaiting",
    "acted",
    "voters",
    "progress",
    "flags",
    "cards_to_play",
    "clue",
    "hand",
    "table",
    "last_round",
)
#: a hand row's first two numbers, present and not put down
_PRESENT = np.array([1.0, 0.0], dtype=np.float32).tobytes()
#: three numbers' float32 bytes (``struct`` rounds a float to float32 as NumPy does: C's cast)
_pack3 = struct.Struct("=3f").pack
_join, _array, _FLOAT32 = bytearray().join, np.frombuffer, np.dtype(np.float32)
_K = TypeVar("_K")


def _float32(numbers: Any) -> bytes:
    """The bytes of ``numbers`` as float32 (as a vector holds them)."""
    return np.asarray(numbers, dtype=np.float32).tobytes()


class _Made(dict[_K, bytes]):
    """Bytes by key, each made by ``make(key)`` when first asked (all forgotten past 100,000 keys:
    the free-text clues of a very long run never grow it without end)."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[_K], bytes]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, key: _K) -> bytes:
        if len(self) >= 100_000:
            self.clear()
        made = self[key] = self._make(key)
        return made


class CardEmbeddings:
    """Each card's embedding (computed once, for the whole deck) and each clue's (once per clue).

    ``embeddings[card_id]`` is the card's row; `clue` a clue's. ``encode`` turns texts into unit
    rows of width `width` (by default the MiniLM encoder the bots share, loaded on first use).
    It pickles (SuperSuit's vector envs copy an env by pickling it): the rows travel, and the shared
    encoder is found again in the new process when a clue not seen yet needs it.
    """

    __slots__ = ("_clues", "_encoder", "_rows", "width")

    def __init__(self, cards: Sequence[Card], encoder: Any = None) -> None:
        #: None: the shared encoder, not pickled with the rows (a compiled tokenizer does not pickle)
        self._encoder = encoder
        encoder = self._encoding()
        texts = {card.id: _text_of(card) for card in cards}
        described = [text for text in texts.values() if text]
        vectors = encoder.encode(described) if described else np.zeros((0, EMBEDDING_WIDTH), np.float32)
        self.width = int(vectors.shape[1]) if described else EMBEDDING_WIDTH
        by_text = dict(zip(described, vectors, strict=True))
        blank = np.zeros(self.width, dtype=np.float32)
        self._rows = {card: (by_text[text] if text else blank) for card, text in texts.items()}
        self._clues: dict[str, Vector] = {}

    def _encoding(self) -> Any:
        if self._encoder is not None:
            return self._encoder
        from fabula.bots.semantic.encoder import shared_encoder

        return shared_encoder()

    def __getitem__(self, card: str) -> Vector:
        return self._rows[card]

    def clue(self, clue: str) -> Vector:
        found = self._clues.get(clue)
        if found is None:
            if len(self._clues) > 100_000:  # free-text clues of a very long run: forget, never grow
                self._clues.clear()
            found = self._clues[clue] = np.asarray(self._encoding().encode_one(clue), dtype=np.float32)
        return found

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)


def _text_of(card: Card) -> str:
    """What a card's embedding is made of: its description, else its title when it is not its id."""
    if card.description.strip():
        return card.description.strip()
    title = card.title.strip()
    return title if title and title != card.id else ""
