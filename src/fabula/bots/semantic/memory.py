"""What finished rounds teach: which clues were given to which cards, and which cards drew votes.

A `ClueMemory` only ever receives rounds that are over (their clue, table, storyteller's card and
vote shares — all public once a round is revealed), so it cannot leak a running game's secrets; a
guesser uses one only when given it, so memory is switched on or off per guesser.

For a new clue, each card on the table is compared with the earlier clues of that card:

- ``told``: kernel density of the clues its storytellers gave it (log of the mean of
  exp((cos − 1) / τ)), high when a close clue was once given for it;
- ``told_exact``: how often exactly this clue (case and end punctuation aside) was given for it;
- ``voted``: the same density over rounds where it was someone else's card, weighted by the share
  of voters it drew — people thought it fitted that clue;
- ``centroid``: the cosine with the mean of all those clue vectors (told ones weigh 1, the others
  their vote share);
- ``prior``: log of how often the card, once on the table, was the storyteller's (smoothed);
- ``support``: log of the kernel's sum (not mean) over its told clues, plus half its vote-weighted
  sum over the others — many close clues count more than one.
"""

from __future__ import annotations

import json
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .encoder import TextEncoder, Vectors

MEMORY_FEATURES = ("told", "told_exact", "voted", "centroid", "prior", "support")
#: The kernel's width in cosine units.
TAU = 0.1
#: A guesser uses the memory only when every card on the table was on a remembered table this often.
MIN_APPEARANCES = 5

Floats = npt.NDArray[np.float64]


def normalise_clue(clue: str) -> str:
    """The form two clues are compared in for an exact match: lower case, spaces collapsed, no
    punctuation at either end (in any script: "Freedom!" and "自由！" lose their marks)."""
    text = " ".join(clue.lower().split())
    start, end = 0, len(text)
    while start < end and (unicodedata.category(text[start])[0] in "PZ"):
        start += 1
    while end > start and (unicodedata.category(text[end - 1])[0] in "PZ"):
        end -= 1
    return text[start:end]


@dataclass(frozen=True, slots=True)
class PastRound:
    """One finished round: the clue, the table, the storyteller's card and each card's vote share."""

    clue: str
    cards: tuple[str, ...]
    storyteller_card: str
    vote_share: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> PastRound:
        """A round in the ``val.jsonl`` format (`ValueError` when it is not one)."""
        clue, cards, told, shares = (
            data.get("clue"),
            data.get("cards"),
            data.get("storyteller_card"),
            data.get("vote_share", {}),
        )
        if not isinstance(clue, str) or not isinstance(told, str):
            raise ValueError("a round needs a string 'clue' and 'storyteller_card'")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards) or told not in cards:
            raise ValueError("a round needs 'cards', a list of card ids holding the storyteller's card")
        if len(set(cards)) != len(cards) or len(cards) < 2:
            raise ValueError("a round needs at least two different cards")
        if not isinstance(shares, dict) or not all(
            isinstance(k, str) and isinstance(v, (int, float)) for k, v in shares.items()
        ):
            raise ValueError("'vote_share' must map card ids to numbers")
        return cls(clue, tuple(cards), told, {k: float(v) for k, v in shares.items()})

    def to_json(self) -> dict[str, object]:
        """The round in the ``val.jsonl`` format (`from_json` reads it back)."""
        return {
            "clue": self.clue,
            "cards": list(self.cards),
            "storyteller_card": self.storyteller_card,
            "vote_share": dict(self.vote_share),
        }


def read_rounds(path: str | Path) -> list[PastRound]:
    """Every round of a JSON-lines file (blank lines skipped); `ValueError` names a bad line."""
    with open(path, encoding="utf-8") as handle:
        return [round_of_line(line, f"{path}, line {number}") for number, line in enumerate(handle, 1) if line.strip()]


def round_of_line(line: str, where: str) -> PastRound:
    """The round one line of a rounds file holds; `ValueError` saying ``where`` the line is when
    it holds none."""
    try:
        data = json.loads(line)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return PastRound.from_json(data)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


class _CardMemory:
    """What one card was used for: clue vectors with a weight each, told ones apart."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.told: list[Vectors] = []
        self.voted: list[Vectors] = []
        self.vote_weights: list[float] = []
        self.exact: Counter[str] = Counter()
        self.appearances = 0
        self._cache: tuple[Vectors, Vectors, Floats, Vectors] | None = None

    def arrays(self) -> tuple[Vectors, Vectors, Floats, Vectors]:
        """(told clues, voted clues, their vote weights, unit centroid) — rebuilt after a change."""
        if self._cache is None:
            told = np.stack(self.told) if self.told else np.zeros((0, self.dimensions), dtype=np.float32)
            voted = np.stack(self.voted) if self.voted else np.zeros((0, self.dimensions), dtype=np.float32)
            weights = np.asarray(self.vote_weights, dtype=np.float64)
            centre = told.sum(axis=0) + (weights[:, None] * voted).sum(axis=0)
            norm = float(np.linalg.norm(centre))
            centroid = (centre / norm if norm > 0 else centre).astype(np.float32)
            self._cache = (told, voted, weights, centroid)
        return self._cache


def _kernel(similarities: Floats) -> Floats:
    result: Floats = np.exp((similarities - 1.0) / TAU)
    return result


def _density(kernel: Floats, weights: Floats | None = None) -> float:
    """τ · log(weighted mean of the kernel) + 1: a soft maximum of the cosines, in cosine units."""
    mean = float(kernel.mean()) if weights is None else float((kernel * weights).sum() / weights.sum())
    return TAU * float(np.log(max(mean, 1e-30))) + 1.0


class ClueMemory:
    """Clue → card pairs from finished rounds, searched by clue similarity.

    The clues live in one model's space — for MiniLM, its `published` reading, which the guesser's
    memory weights were fitted with; `read_by` gives the same rounds in another model's (the
    multilingual one, for clues MiniLM cannot read), kept in step with this memory.
    """

    def __init__(self, encoder: TextEncoder, *, source: ClueMemory | None = None) -> None:
        self.encoder = encoder
        self._cards: dict[str, _CardMemory] = {}
        self._lock = threading.Lock()
        self.rounds = 0
        #: every round learned, for a memory in another model's space (`read_by`) to learn too
        self._past: list[PastRound] = []
        self._readers: dict[int, ClueMemory] = {}
        #: for a memory made by `read_by`: the memory it follows, and how many of its rounds it has
        self._source = source
        self._taken = 0
        self._catch_up_lock = threading.Lock()

    def __len__(self) -> int:
        return self.rounds

    def knows(self, card_id: str) -> bool:
        return card_id in self._cards

    def read_by(self, encoder: TextEncoder) -> ClueMemory:
        """These rounds as ``encoder``'s model reads their clues: a second memory, built the first
        time it is used (every clue embedded again) and brought up to date each time after."""
        if encoder is self.encoder:
            return self
        with self._lock:
            reader = self._readers.get(id(encoder))
            if reader is None or reader.encoder is not encoder:
                reader = self._readers[id(encoder)] = ClueMemory(encoder, source=self)
        return reader

    def _catch_up(self) -> None:
        source = self._source
        if source is None:
            return
        with self._catch_up_lock:
            with source._lock:
                pending = source._past[self._taken :]
            if pending:
                self.add(pending)
                self._taken += len(pending)

    def add(self, rounds: Iterable[PastRound], progress: Callable[[int], object] | None = None) -> None:
        """Learn from finished rounds (their clues are embedded in batches)."""
        batch: list[PastRound] = []
        for past in rounds:
            batch.append(past)
            if len(batch) == 256:
                self._add_batch(batch)
                if progress:
                    progress(len(batch))
                batch = []
        if batch:
            self._add_batch(batch)
            if progress:
                progress(len(batch))

    def _add_batch(self, batch: Sequence[PastRound]) -> None:
        vectors = self.encoder.encode([past.clue for past in batch])
        with self._lock:
            for past, vector in zip(batch, vectors, strict=True):
                key = normalise_clue(past.clue)
                for card_id in past.cards:
                    memory = self._cards.setdefault(card_id, _CardMemory(self.encoder.dimensions))
                    memory.appearances += 1
                    memory._cache = None
                    if card_id == past.storyteller_card:
                        memory.told.append(vector)
                        memory.exact[key] += 1
                    elif (share := past.vote_share.get(card_id, 0.0)) > 0:
                        memory.voted.append(vector)
                        memory.vote_weights.append(share)
                self.rounds += 1
            if self._source is None:
                self._past.extend(batch)

    def features(self, clue: str, clue_vector: Vectors, card_ids: Sequence[str]) -> tuple[Floats, bool]:
        """(cards × `MEMORY_FEATURES`, whether the memory knows every card well enough to be used).

        Known: each card was on at least `MIN_APPEARANCES` remembered tables — a memory that knows
        only some of the cards would tilt the guess toward them. A feature a card lacks (never told,
        never voted for) gets the table's mean of the others' values.
        """
        self._catch_up()
        key = normalise_clue(clue)
        out = np.full((len(card_ids), len(MEMORY_FEATURES)), np.nan)
        known = True
        with self._lock:
            for row, card_id in enumerate(card_ids):
                memory = self._cards.get(card_id)
                if memory is None or memory.appearances < MIN_APPEARANCES:
                    known = False
                if memory is None:
                    continue
                told, voted, weights, centroid = memory.arrays()
                told_kernel = _kernel((told @ clue_vector).astype(np.float64))
                voted_kernel = _kernel((voted @ clue_vector).astype(np.float64))
                if len(told):
                    out[row, 0] = _density(told_kernel)
                out[row, 1] = float(np.log1p(memory.exact[key]))
                if len(voted):
                    out[row, 2] = _density(voted_kernel, weights)
                if len(told) or len(voted):
                    out[row, 3] = float(centroid @ clue_vector)
                out[row, 4] = float(np.log((len(told) + 1) / (memory.appearances + 5)))
                support = float(told_kernel.sum() + 0.5 * (voted_kernel * weights).sum())
                out[row, 5] = float(np.log(support + 1e-6))
        missing = np.isnan(out)
        if missing.any():
            counts = (~missing).sum(axis=0)
            means = np.where(counts > 0, np.nansum(out, axis=0) / np.maximum(counts, 1), 0.0)
            out = np.where(missing, means[None, :], out)
        return out, known
