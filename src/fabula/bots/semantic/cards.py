"""What a guesser knows of a card: its text as vectors, computed once per card and kept.

A card is seen through several texts — its literal description, its tags as one phrase, and each
tag (plus, for the original deck, each hand-written association) alone — because a clue may echo the
whole scene, one detail, or an idea the picture evokes. `card_features` compares a clue with each.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fabula.cards.model import Card

from .associations import associations
from .encoder import Encoder, Vectors

#: The clue-to-card similarities every guess starts from, in this order.
TEXT_FEATURES = ("description", "tags", "tag_max", "tag_top3", "tag_mean")

Floats = npt.NDArray[np.float64]


#: A typical card's features for a clue (their means over the tables of the tuning rounds): what a
#: card without any text gets, so that it is neither favoured nor ruled out.
TYPICAL = (0.09, 0.14, 0.32, 0.27, 0.20)


@dataclass(frozen=True, slots=True)
class CardVectors:
    """One card's text as unit vectors; all ``None`` for a card without any text.

    A card with only a description (an imported picture with a caption) uses it for its tags too,
    and one with only tags uses them as its description: every feature then exists.
    """

    description: Vectors | None
    tags: Vectors | None
    #: one row per tag (the literal ones)
    tag_rows: Vectors | None
    #: one row per tag and per association (what the max-type features look at)
    evocations: Vectors | None

    @property
    def blind(self) -> bool:
        """Whether the card has no text at all: a guesser can only play it blind."""
        return self.description is None


class CardIndex:
    """Card vectors, cached by card (id and text) for the life of the process."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        self._cache: dict[Card, CardVectors] = {}
        self._lock = threading.Lock()

    def vectors(self, card: Card) -> CardVectors:
        found = self._cache.get(card)
        if found is not None:
            return found
        description = card.description.strip()
        tags = [tag.strip() for tag in card.tags if tag.strip()]
        joined = ", ".join(tags)
        if not tags and description:
            tags, joined = [description], description
        if not description:
            description = joined
        if not description:
            result = CardVectors(None, None, None, None)
        else:
            evocations = [*tags, *associations(card)]
            rows = self.encoder.encode([description, joined, *evocations])
            result = CardVectors(
                description=rows[0], tags=rows[1], tag_rows=rows[2 : 2 + len(tags)], evocations=rows[2:]
            )
        with self._lock:
            self._cache[card] = result
        return result

    def warm(self, cards: list[Card]) -> None:
        """Compute every card's vectors now (one batched pass), not on first use."""
        self.encoder.encode(
            [
                text
                for card in cards
                if card not in self._cache
                for text in (card.description, ", ".join(card.tags), *card.tags, *associations(card))
                if text.strip()
            ]
        )
        for card in cards:
            self.vectors(card)


def card_features(clue: Vectors, table: list[CardVectors]) -> Floats:
    """Similarity features, cards × `TEXT_FEATURES` (a blind card gets `TYPICAL`)."""
    out = np.tile(np.asarray(TYPICAL, dtype=np.float64), (len(table), 1))
    for row, card in enumerate(table):
        if card.description is None or card.tags is None or card.tag_rows is None or card.evocations is None:
            continue
        evoked = np.sort(card.evocations @ clue)
        out[row] = (
            float(card.description @ clue),
            float(card.tags @ clue),
            float(evoked[-1]),
            float(evoked[-3:].mean()),
            float((card.tag_rows @ clue).mean()),
        )
    return out
