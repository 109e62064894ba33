"""What a guesser knows of a card: its text as vectors, computed once per card and kept.

A card is seen through several texts — its literal description, its tags as one phrase, and each
tag (plus, for the original deck, each hand-written association) alone — because a clue may echo the
whole scene, one detail, or an idea the picture evokes. `card_features` compares a clue with each.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fabula.cards.model import Card

from .associations import associations
from .encoder import TextEncoder, Vectors

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


def card_texts(card: Card) -> list[str]:
    """Every text of ``card`` that gets a vector (the same ones `CardIndex.vectors` encodes)."""
    description = card.description.strip()
    tags = [tag.strip() for tag in card.tags if tag.strip()]
    joined = ", ".join(tags)
    if not tags and description:
        tags, joined = [description], description
    if not description:
        description = joined
    if not description:
        return []
    return [description, joined, *tags, *associations(card)]


class CardIndex:
    """Card vectors, cached by card (id and text) for the life of the process."""

    def __init__(self, encoder: TextEncoder) -> None:
        self.encoder = encoder
        self._cache: dict[Card, CardVectors] = {}
        self._lock = threading.Lock()

    def vectors(self, card: Card) -> CardVectors:
        found = self._cache.get(card)
        if found is not None:
            return found
        texts = card_texts(card)
        if not texts:
            result = CardVectors(None, None, None, None)
        else:
            rows = self.encoder.encode(texts)
            literal = len(texts) - 2 - len(associations(card))
            result = CardVectors(description=rows[0], tags=rows[1], tag_rows=rows[2 : 2 + literal], evocations=rows[2:])
        with self._lock:
            self._cache[card] = result
        return result

    def warm(self, cards: list[Card]) -> None:
        """Compute every card's vectors now (one batched pass), not on first use."""
        texts = [text for card in cards if card not in self._cache for text in card_texts(card)]
        self.encoder.encode(texts)
        for card in cards:
            self.vectors(card)
        self.encoder.save_cache(texts)


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


class DeckMatrix:
    """A whole deck's vectors stacked, to score many clues against every card in one pass (what a
    storyteller does when it weighs hundreds of clues for its hand). `features` gives exactly what
    `card_features` gives card by card.
    """

    def __init__(self, index: CardIndex, cards: Sequence[Card]) -> None:
        self.ids = tuple(card.id for card in cards)
        self.position = {card_id: i for i, card_id in enumerate(self.ids)}
        table = [index.vectors(card) for card in cards]
        dims = index.encoder.encode_one("").shape[0]
        zero = np.zeros(dims, dtype=np.float32)
        self.blind = np.array([card.blind for card in table], dtype=bool)
        self.description = np.stack([zero if c.description is None else c.description for c in table])
        self.tags = np.stack([zero if c.tags is None else c.tags for c in table])
        # Evocations and tag rows are flattened (one matrix product for all cards), then gathered
        # back into a padded cards × most-rows grid; the pad points at an extra column of -inf.
        self.evocations, self.evocation_grid = _flatten([c.evocations for c in table], dims)
        self.tag_rows, self.tag_grid = _flatten([c.tag_rows for c in table], dims)

    def features(self, clues: Vectors) -> Floats:
        """Clues × cards × `TEXT_FEATURES` (a blind card gets `TYPICAL`)."""
        count = len(clues)
        out = np.empty((count, len(self.ids), len(TEXT_FEATURES)), dtype=np.float64)
        out[:, :, 0] = clues @ self.description.T
        out[:, :, 1] = clues @ self.tags.T
        evoked = _gathered(clues @ self.evocations.T, self.evocation_grid)
        evoked.sort(axis=2)
        out[:, :, 2] = evoked[:, :, -1]
        top3 = evoked[:, :, -3:]
        valid = np.isfinite(top3)
        out[:, :, 3] = np.where(valid, top3, 0.0).sum(axis=2) / np.maximum(valid.sum(axis=2), 1)
        tagged = _gathered(clues @ self.tag_rows.T, self.tag_grid)
        valid = np.isfinite(tagged)
        out[:, :, 4] = np.where(valid, tagged, 0.0).sum(axis=2) / np.maximum(valid.sum(axis=2), 1)
        out[:, self.blind, :] = np.asarray(TYPICAL)
        return out


def _flatten(blocks: list[Vectors | None], dims: int) -> tuple[Vectors, npt.NDArray[np.intp]]:
    """Rows of every block in one matrix, and a cards × widest-block grid of row numbers (the
    matrix's row count, one past the end, where a card has fewer rows)."""
    rows = [block if block is not None else np.zeros((0, dims), dtype=np.float32) for block in blocks]
    flat = np.concatenate(rows) if rows else np.zeros((0, dims), dtype=np.float32)
    widest = max((len(block) for block in rows), default=0) or 1
    grid = np.full((len(rows), widest), len(flat), dtype=np.intp)
    start = 0
    for i, block in enumerate(rows):
        grid[i, : len(block)] = np.arange(start, start + len(block))
        start += len(block)
    return flat, grid


def _gathered(similarities: npt.NDArray[np.floating[Any]], grid: npt.NDArray[np.intp]) -> Floats:
    """Clues × flat rows → clues × cards × widest, -inf in the padding."""
    padded = np.concatenate([similarities, np.full((len(similarities), 1), -np.inf)], axis=1)
    result: Floats = padded[:, grid].astype(np.float64)
    return result
