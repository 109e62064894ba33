"""Fitting the guesser's weights on rounds of human play (used by tools/tune_guesser.py).

A conditional logit: for each round, softmax over its table of ``features @ w``; the weights
minimise the mean cross-entropy against a target distribution — the storyteller's card (one-hot)
for finding it, the human vote shares for predicting votes — plus a small L2 penalty. Plain numpy,
full-batch Adam: a few thousand rounds fit in seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from fabula.cards.model import Card

from .guesser import Guesser
from .memory import PastRound

Floats = npt.NDArray[np.float64]


def round_features(
    guesser: Guesser,
    rounds: Sequence[PastRound],
    cards: Mapping[str, Card],
    progress: Callable[[int], object] | None = None,
) -> tuple[Floats, npt.NDArray[np.bool_], Floats, Floats]:
    """(features N × K × F, mask N × K, storyteller one-hot N × K, vote shares N × K), K the widest table."""
    width = max(len(r.cards) for r in rounds)
    rows: list[Floats] = []
    for past in rounds:
        features, _ = guesser.features(past.clue, [cards[c] for c in past.cards])
        rows.append(features)
        if progress:
            progress(1)
    size = rows[0].shape[1]
    x = np.zeros((len(rounds), width, size))
    mask = np.zeros((len(rounds), width), dtype=bool)
    told = np.zeros((len(rounds), width))
    votes = np.zeros((len(rounds), width))
    for n, (past, features) in enumerate(zip(rounds, rows, strict=True)):
        k = len(past.cards)
        x[n, :k] = features
        mask[n, :k] = True
        told[n, past.cards.index(past.storyteller_card)] = 1.0
        votes[n, :k] = [past.vote_share.get(c, 0.0) for c in past.cards]
        total = votes[n].sum()
        votes[n] = votes[n] / total if total > 0 else mask[n] / k
    return x, mask, told, votes


def fit(
    x: Floats, mask: npt.NDArray[np.bool_], target: Floats, *, l2: float = 1e-4, steps: int = 2000, rate: float = 0.05
) -> Floats:
    """The weights minimising mean cross-entropy of softmax(x @ w) over each row's mask to ``target``."""
    n, _, size = x.shape
    w = np.zeros(size)
    first = np.zeros(size)
    second = np.zeros(size)
    for step in range(1, steps + 1):
        scores = np.where(mask, x @ w, -np.inf)
        scores -= scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        gradient = np.einsum("nk,nkf->f", p - target, x) / n + l2 * w
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient**2
        w -= rate * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return w


def cross_entropy(x: Floats, mask: npt.NDArray[np.bool_], target: Floats, w: Floats) -> float:
    scores = np.where(mask, x @ w, -np.inf)
    scores -= scores.max(axis=1, keepdims=True)
    log_p = np.where(mask, scores - np.log(np.exp(scores).sum(axis=1, keepdims=True)), 0.0)
    return float(-(target * log_p).sum(axis=1).mean())
