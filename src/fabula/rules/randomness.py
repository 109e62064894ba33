"""Keyed randomness: every random choice in a game is a pure function of (seed, purpose).

The standard library only promises that ``random.random()`` stays the same across Python
versions; ``shuffle`` and ``randrange`` have changed before. A stored game must replay the same
after an upgrade, so the engine draws from SHAKE-256 of ``"{seed}/{purpose}"`` instead, and each
purpose (the deal, one turn's table, one reshuffle) is its own independent stream.

>>> shuffled(["a", "b", "c", "d"], 7, "example") == shuffled(["a", "b", "c", "d"], 7, "example")
True
>>> sorted(shuffled(range(10), 1, "x")) == list(range(10))
True
"""

from __future__ import annotations

from collections.abc import Iterable
from hashlib import shake_256
from struct import unpack
from typing import TypeVar

from .errors import InvalidSetup, RuleCode

T = TypeVar("T")


def checked_seed(seed: object) -> int:
    """``seed`` if it can seed a game (an integer), or `InvalidSetup`."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidSetup(RuleCode.BAD_SEED, f"The seed must be an integer; got {seed!r}.")
    return seed


def _draws(seed: int, purpose: str, count: int) -> tuple[int, ...]:
    """``count`` independent 64-bit numbers: a draw below n has a modulo bias of at most n / 2**64."""
    return unpack(f"<{count}Q", shake_256(f"{seed}/{purpose}".encode()).digest(8 * count))


def shuffled(items: Iterable[T], seed: int, purpose: str) -> list[T]:
    """A new list with ``items`` in a uniformly random order (Fisher–Yates)."""
    out = list(items)
    last = len(out) - 1
    if last < 1:
        return out
    draws = _draws(seed, purpose, last)
    for k, i in enumerate(range(last, 0, -1)):
        j = draws[k] % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def below(n: int, seed: int, purpose: str) -> int:
    """A uniformly random integer in ``range(n)``."""
    return _draws(seed, purpose, 1)[0] % n
