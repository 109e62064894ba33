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

The hand's positions are those of the action ids (`fabula.research.actions`): hand[h] of the
view is row h, so a policy can match the vector's rows to its moves.

>>> from fabula.rules import Game
>>> from fabula.research.actions import ActionSpace
>>> layout = VectorLayout.of(ActionSpace.create("odyssey", 4))
>>> layout.size, layout.fields["phase"]
(4307, slice(0, 4, None))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fabula.cards.model import Card
from fabula.rules.views import SeatView

from .actions import ActionSpace

__all__ = ["EMBEDDING_WIDTH", "CardEmbeddings", "VectorLayout"]

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


class CardEmbeddings:
    """Each card's embedding (computed once, for the whole deck) and each clue's (once per clue).

    ``embeddings[card_id]`` is the card's row; `clue` a clue's. ``encode`` turns texts into unit
    rows of width `width` (by default the MiniLM encoder the bots share, loaded on first use).
    """

    __slots__ = ("_clues", "_encode_one", "_rows", "width")

    def __init__(self, cards: Sequence[Card], encoder: Any = None) -> None:
        if encoder is None:
            from fabula.bots.semantic.encoder import shared_encoder

            encoder = shared_encoder()
        texts = {card.id: _text_of(card) for card in cards}
        described = [text for text in texts.values() if text]
        vectors = encoder.encode(described) if described else np.zeros((0, EMBEDDING_WIDTH), np.float32)
        self.width = int(vectors.shape[1]) if described else EMBEDDING_WIDTH
        by_text = dict(zip(described, vectors, strict=True))
        blank = np.zeros(self.width, dtype=np.float32)
        self._rows = {card: (by_text[text] if text else blank) for card, text in texts.items()}
        self._encode_one = encoder.encode_one
        self._clues: dict[str, Vector] = {}

    def __getitem__(self, card: str) -> Vector:
        return self._rows[card]

    def clue(self, clue: str) -> Vector:
        found = self._clues.get(clue)
        if found is None:
            if len(self._clues) > 100_000:  # free-text clues of a very long run: forget, never grow
                self._clues.clear()
            found = self._clues[clue] = np.asarray(self._encode_one(clue), dtype=np.float32)
        return found


def _text_of(card: Card) -> str:
    """What a card's embedding is made of: its description, else its title when it is not its id."""
    if card.description.strip():
        return card.description.strip()
    title = card.title.strip()
    return title if title and title != card.id else ""
