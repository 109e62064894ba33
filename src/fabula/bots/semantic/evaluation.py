"""`fabula ai eval`: how well the guesser finds the storyteller's card in rounds of human play.

For every round (clue, table, vote shares, storyteller's card — the ``val.jsonl`` format) the
guesser gives each card a probability. The figures: top-1 accuracy (its most likely card is the
storyteller's), mean log-loss of the storyteller's card, and the Pearson correlation, over all
cards of all rounds, between the probabilities and the share of human votes each card drew; each
also for chance (a uniform guess over the table). How many of the rounds the shipped guesser was
tuned on (`fabula.bots.semantic.split`), and how many are in the memory too, is counted beside
them: a figure on such rounds flatters the guesser.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from fabula.cards.model import Card

from .guesser import Guesser
from .memory import ClueMemory, PastRound
from .split import round_key, tuning_overlap

#: Log-loss floor: a probability is never taken below this.
EPSILON = 1e-9


def read_cards(path: str | Path) -> dict[str, Card]:
    """Cards from a JSON list of ``{"id", "description", "tags"}`` (the ``cards.json`` format)."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of cards")
    cards: dict[str, Card] = {}
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("id"), (str, int)):
            raise ValueError(f"{path}: every card needs an 'id'")
        tags = item.get("tags", [])
        description = item.get("description", "")
        if not isinstance(description, str) or not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ValueError(f"{path}: card {item['id']}: 'description' must be a string and 'tags' strings")
        card_id = str(item["id"])
        cards[card_id] = Card(id=card_id, title=str(item.get("title", "")), description=description, tags=tuple(tags))
    return cards


@dataclass(frozen=True, slots=True)
class Report:
    rounds: int
    top1: float
    chance_top1: float
    log_loss: float
    chance_log_loss: float
    #: guesser's probabilities vs human vote shares
    vote_share_r: float
    chance_vote_share_r: float
    #: the vote-share model's predictions vs human vote shares
    vote_model_r: float
    memory_rounds: int
    seconds_per_guess: float
    #: rounds evaluated that the shipped guesser was tuned on (`fabula.bots.semantic.split`)
    tuning_rounds: int = 0
    #: rounds evaluated that ``memory`` holds too
    remembered_rounds: int = 0

    def to_json(self) -> dict[str, float | int]:
        return {key: (round(value, 4) if isinstance(value, float) else value) for key, value in asdict(self).items()}


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (0 when either side does not vary)."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    a, b = a - a.mean(), b - b.mean()
    scale = math.sqrt(float((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / scale) if scale > 0 else 0.0


def evaluate(
    rounds: Sequence[PastRound],
    cards: dict[str, Card],
    *,
    memory: Sequence[PastRound] = (),
    guesser: Guesser | None = None,
    progress: Callable[[int], object] | None = None,
    online: bool = False,
) -> Report:
    """Guess every round (after learning ``memory``, if any) and score the guesses.

    ``online``: each round, once guessed, joins the memory (as a finished game would on a server),
    so later rounds are guessed with the earlier ones in memory.
    """
    if not rounds:
        raise ValueError("no rounds to evaluate")
    unknown = sorted({c for r in (*rounds, *memory) for c in r.cards} - cards.keys())
    if unknown:
        raise ValueError(f"card ids not in the cards file: {', '.join(unknown[:5])}")
    if guesser is None:
        learned = None
        if memory or online:
            learned = ClueMemory(Guesser().encoder.published)
            learned.add(memory, progress)
        guesser = Guesser(memory=learned)
    guesser.index.warm(list(cards.values()))
    guesser.encoder.encode([r.clue for r in rounds])  # one batched pass; guesses then hit the cache
    if guesser.memory is not None:
        guesser.memory.encoder.encode([r.clue for r in rounds])
    hits = 0
    loss = 0.0
    chance_hits = 0.0
    chance_loss = 0.0
    probabilities: list[float] = []
    uniform: list[float] = []
    predicted_votes: list[float] = []
    shares: list[float] = []
    elapsed = 0.0
    for past in rounds:
        start = time.perf_counter()
        guess = guesser.guess(past.clue, [cards[c] for c in past.cards])
        elapsed += time.perf_counter() - start
        k = guess.cards.index(past.storyteller_card)
        hits += guess.best == past.storyteller_card
        loss -= math.log(max(guess.probabilities[k], EPSILON))
        n = len(past.cards)
        chance_hits += 1 / n
        chance_loss += math.log(n)
        probabilities.extend(guess.probabilities)
        predicted_votes.extend(guess.votes)
        uniform.extend([1 / n] * n)
        shares.extend(past.vote_share.get(c, 0.0) for c in past.cards)
        if online and guesser.memory is not None:
            guesser.memory.add([past])
        if progress:
            progress(1)
    count = len(rounds)
    return Report(
        rounds=count,
        top1=hits / count,
        chance_top1=chance_hits / count,
        log_loss=loss / count,
        chance_log_loss=chance_loss / count,
        vote_share_r=pearson(probabilities, shares),
        chance_vote_share_r=pearson(uniform, shares),
        vote_model_r=pearson(predicted_votes, shares),
        memory_rounds=len(guesser.memory) if guesser.memory is not None else 0,
        seconds_per_guess=elapsed / count,
        tuning_rounds=tuning_overlap(rounds),
        remembered_rounds=remembered(rounds, memory),
    )


def remembered(rounds: Sequence[PastRound], memory: Sequence[PastRound]) -> int:
    """How many of ``rounds`` ``memory`` holds too (`round_key`): their answers are remembered."""
    if not memory:
        return 0
    kept = {round_key(past) for past in memory}
    return sum(round_key(past) in kept for past in rounds)
