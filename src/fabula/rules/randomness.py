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
from typing import TypeVar

T = TypeVar("T")

#: Random bits per draw: the modulo bias of a draw below n is at most n / 2**64.
_BITS = 64
_MASK = (1 << _BITS) - 1


def _stream(seed: int, purpose: str, draws: int) -> int:
    return int.from_bytes(shake_256(f"{seed}/{purpose}".encode()).digest(draws * _BITS // 8), "little")


def shuffled(items: Iterable[T], seed: int, purpose: str) -> list[T]:
    """A new list with ``items`` in a uniformly random order (Fisher–Yates)."""
    out = list(items)
    stream = _stream(seed, purpose, len(out))
    for i in range(len(out) - 1, 0, -1):
        # Each draw takes its own 64 bits of the stream.
        j = (stream & _MASK) % (i + 1)
        stream >>= _BITS
        out[i], out[j] = out[j], out[i]
    return out


def below(n: int, seed: int, purpose: str) -> int:
    """A uniformly random integer in ``range(n)``."""
    return (_stream(seed, purpose, 1) & _MASK) % n
