"""The audience benchmark's gauge of whether the players' p99 moved beyond the noise of its two
windows (`load.audience.p99_change`)."""

from __future__ import annotations

import math
import random

from .conftest import generator_module

audience = generator_module("load.audience")


def latencies(seed: int, count: int = 180, shift: float = 0.0) -> list[float]:
    """Like the players' latencies of a 30-s window (ms): mostly a few ms, a long thin tail."""
    rng = random.Random(seed)
    return [shift + rng.lognormvariate(0.7, 0.35) for _ in range(count)]


def test_two_windows_of_the_same_play_differ_within_their_noise() -> None:
    change, low, high = audience.p99_change(latencies(1), latencies(2))
    assert low <= 0 <= high
    assert low <= change <= high


def test_a_tail_moved_by_a_few_milliseconds_is_beyond_the_noise() -> None:
    before = latencies(1)
    after = latencies(2, shift=4.0)
    change, low, high = audience.p99_change(before, after)
    assert 0 < low <= change <= high
    assert 2.0 < change < 6.0


def test_the_interval_is_the_same_for_the_same_samples() -> None:
    assert audience.p99_change(latencies(3), latencies(4)) == audience.p99_change(latencies(3), latencies(4))


def test_an_empty_window_has_no_figure() -> None:
    assert all(math.isnan(figure) for figure in audience.p99_change([], latencies(1)))
