"""The guesser: for a clue and the cards on the table, how likely each is the storyteller's card,
and what share of human votes each would draw.

Both are a softmax over the table of a weighted sum of features (a conditional logit): the clue's
similarity to each card's texts (`cards.TEXT_FEATURES`) and, with a memory of finished rounds,
how close the clue is to earlier clues of each card (`memory.MEMORY_FEATURES`). The weights were
fitted by `fabula.bots.semantic.tuning` on rounds of human play kept apart from those the figures
in docs/ai.md are measured on; the softmax temperature is folded into them.

>>> from fabula.cards.model import Card
>>> cards = [Card("a", "", "A lighthouse on a rock in a storm."), Card("b", "", "A cat asleep on a sofa.")]
>>> guess = Guesser().guess("Guiding light", cards)
>>> guess.best, round(sum(guess.probabilities), 6)
('a', 1.0)
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fabula.cards.model import Card

from .cards import TEXT_FEATURES, CardIndex, card_features
from .encoder import MultilingualEncoder, TextEncoder, shared_encoder, shared_multilingual_encoder
from .memory import MEMORY_FEATURES, ClueMemory

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Weights:
    """Feature weights: finding the storyteller's card, and predicting human vote shares, each
    from the card texts alone (`TEXT_FEATURES`) and with a memory (those, then `MEMORY_FEATURES`)."""

    find_text: tuple[float, ...]
    vote_text: tuple[float, ...]
    find_memory: tuple[float, ...]
    vote_memory: tuple[float, ...]

    def __post_init__(self) -> None:
        text, both = len(TEXT_FEATURES), len(TEXT_FEATURES) + len(MEMORY_FEATURES)
        if (len(self.find_text), len(self.vote_text), len(self.find_memory), len(self.vote_memory)) != (
            text,
            text,
            both,
            both,
        ):
            raise ValueError("weights do not match the features")


#: Fitted by tools/tune_guesser.py ``--fold-adapters`` for MiniLM with its adapter (docs/ai.md has the
#: data, the split and the cross-fitting).
DEFAULT_WEIGHTS = Weights(
    find_text=(1.081, 2.793, 1.500, 1.192, -0.971),
    vote_text=(1.636, 2.226, 1.446, 2.311, -0.060),
    find_memory=(-0.233, 1.523, 1.187, 0.959, -0.546, 4.149, -0.363, 0.909, 1.421, 0.508, 0.131),
    vote_memory=(0.612, 1.189, 1.171, 1.848, -0.145, 0.075, -0.529, 0.629, 4.300, -0.171, 0.371),
)


#: The multilingual model's weights, for clues MiniLM cannot read (tools/tune_guesser.py ``--model
#: multilingual`` on the same English rounds — the model puts a clue in any of its languages in the
#: same space — before the tool fitted memory weights both ways round: the first quarter of the
#: tuning half as memory, the second fitted).
MULTILINGUAL_WEIGHTS = Weights(
    find_text=(0.021, 2.273, 1.353, 1.683, -1.111),
    vote_text=(1.279, 2.536, 0.646, 3.055, 0.603),
    find_memory=(-0.745, 1.882, 0.784, 1.110, -0.917, 3.601, 0.479, 0.912, 1.655, 0.551, 0.118),
    vote_memory=(0.742, 2.109, 0.283, 2.443, -0.269, -0.892, -0.052, -0.032, 3.305, -0.168, 0.463),
)


def reads_english(clue: str) -> bool:
    """Whether MiniLM can read ``clue``: every letter in it is Latin. A clue with Chinese (or any
    other script's) letters goes to the multilingual model.

    >>> reads_english("Guiding light"), reads_english("Café au lait"), reads_english("指引之光")
    (True, True, False)
    """
    return all(not c.isalpha() or c.isascii() or unicodedata.name(c, "").startswith("LATIN") for c in clue)


@functools.lru_cache(maxsize=8192)
def card_reads_english(card: Card) -> bool:
    """Whether MiniLM can read ``card``'s texts (an imported deck may be captioned in Chinese)."""
    return all(reads_english(text) for text in (card.description, *card.tags))


def softmax(scores: Floats) -> Floats:
    shifted = np.exp(scores - scores.max())
    result: Floats = shifted / shifted.sum()
    return result


@dataclass(frozen=True, slots=True)
class Guess:
    """A guesser's view of one table, card by card in the table's order."""

    cards: tuple[str, ...]
    #: probability that each card is the storyteller's (sums to 1)
    probabilities: tuple[float, ...]
    #: predicted share of human votes for each card (sums to 1)
    votes: tuple[float, ...]

    @property
    def best(self) -> str:
        """The card most likely to be the storyteller's."""
        return self.cards[int(np.argmax(self.probabilities))]

    def ranking(self) -> list[str]:
        """The cards, most likely first."""
        order = sorted(range(len(self.cards)), key=lambda i: -self.probabilities[i])
        return [self.cards[i] for i in order]


class Guesser:
    """Ranks a table's cards for a clue. Shares the process's model and card vectors.

    ``memory``: a `ClueMemory` of finished rounds, or ``None`` to judge by the card texts alone.
    A clue MiniLM cannot read (`reads_english`), or a table with a card it cannot read, is judged
    by ``foreign`` — by default the multilingual model, with the same memory read in its space —
    loaded on the first such clue.
    """

    def __init__(
        self,
        memory: ClueMemory | None = None,
        weights: Weights = DEFAULT_WEIGHTS,
        encoder: TextEncoder | None = None,
        foreign: Guesser | None = None,
    ) -> None:
        self.encoder = encoder or shared_encoder()
        self.index = _index_for(self.encoder)
        self.memory = memory
        self.weights = weights
        self._foreign = foreign

    @property
    def reads_every_language(self) -> bool:
        return isinstance(self.encoder, MultilingualEncoder)

    @property
    def foreign(self) -> Guesser:
        """The guesser for clues this one's model cannot read."""
        if self._foreign is None:
            encoder = shared_multilingual_encoder()
            memory = self.memory.read_by(encoder) if self.memory is not None else None
            self._foreign = Guesser(memory=memory, weights=MULTILINGUAL_WEIGHTS, encoder=encoder)
        return self._foreign

    def reader(self, clue: str, cards: Sequence[Card] = ()) -> Guesser:
        """The guesser that judges ``clue`` against ``cards``: this one, or `foreign` when this
        one's model cannot read the clue or one of the cards."""
        if self.reads_every_language or (reads_english(clue) and all(map(card_reads_english, cards))):
            return self
        return self.foreign

    def scores(self, clue: str, cards: Sequence[Card]) -> tuple[Floats, Floats]:
        """(find, vote) logits of ``cards`` for ``clue``: the softmax of the first is the chance that
        each is the storyteller's card, of the second the share of votes each draws."""
        reader = self.reader(clue, cards)
        features, with_memory = reader.features(clue, cards)
        w = reader.weights
        find = features @ np.asarray(w.find_memory if with_memory else w.find_text)
        vote = features @ np.asarray(w.vote_memory if with_memory else w.vote_text)
        return find, vote

    def features(self, clue: str, cards: Sequence[Card]) -> tuple[Floats, bool]:
        """This guesser's model's feature matrix (cards × features) and whether it includes memory
        features (`scores` first picks the model that reads the clue)."""
        vector = self.encoder.encode_one(clue)
        text = card_features(vector, [self.index.vectors(card) for card in cards])
        if self.memory is not None:
            remembered, known = self.memory.features(
                clue, self.memory.encoder.encode_one(clue), [card.id for card in cards]
            )
            if known:
                return np.concatenate([text, remembered], axis=1), True
        return text, False

    def guess(self, clue: str, cards: Sequence[Card]) -> Guess:
        """Probabilities for every card of ``cards`` (at least one, ids all different)."""
        if not cards:
            raise ValueError("no cards to guess from")
        find, vote = self.scores(clue, cards)
        return Guess(
            cards=tuple(card.id for card in cards),
            probabilities=tuple(float(p) for p in softmax(find)),
            votes=tuple(float(p) for p in softmax(vote)),
        )


_indexes: dict[int, CardIndex] = {}


def _index_for(encoder: TextEncoder) -> CardIndex:
    """One card-vector cache per encoder (so per process, with the shared one)."""
    index = _indexes.get(id(encoder))
    if index is None or index.encoder is not encoder:
        index = _indexes[id(encoder)] = CardIndex(encoder)
    return index
