"""The collector's pauses kept short (`fabula.server.heap`): what is alive is frozen, and cycles
among frozen objects are still reclaimed by the periodic full collection."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable, Iterator

import pytest

from fabula.server.heap import (
    YOUNG_COLLECTIONS_PER_MIDDLE,
    collect_everything,
    collect_the_middle_generation_less_often,
    keep_pauses_short,
)


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def freezers_ended() -> None:
    """Wait for the freezers told to stop to end: one in the middle of a full collection would
    make another thread's `gc.collect` return without collecting."""
    for thread in threading.enumerate():
        if thread.name == "fabula-gc":
            thread.join(60)


@pytest.fixture
def thawed() -> Iterator[None]:
    freezers_ended()
    gc.unfreeze()
    yield
    freezers_ended()
    gc.unfreeze()  # (the test process's collector as it was)


def wait_until(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def frozen_cycle() -> weakref.ref[Node]:
    """Two nodes left to the freezer (running) until frozen, then made a cycle nothing else holds:
    only a collection that sees frozen objects reclaims it. A reference to one of them."""
    kept = Node()
    kept.other = Node()
    time.sleep(0.1)  # (five freezes)
    # read until frozen: a count read while the freezer is between its unfreeze and its freeze is
    # 0 (seen once on a fresh clone with both cores loaded), and any freeze from now holds the two
    assert wait_until(lambda: gc.get_freeze_count() > 0), "nothing was frozen"
    kept.other.other = kept
    return weakref.ref(kept)


@pytest.mark.usefixtures("thawed")
def test_what_is_alive_is_frozen_out_of_the_collector_s_sight() -> None:
    stop = keep_pauses_short(freeze_seconds=0.02, full_seconds=60)
    try:
        gone = frozen_cycle()
        gc.collect()
        assert gone() is not None, "a collection saw the frozen cycle"
    finally:
        stop.set()
    gc.unfreeze()
    gc.collect()
    assert gone() is None


@pytest.mark.usefixtures("thawed")
def test_the_periodic_full_collection_reclaims_cycles_among_frozen_objects() -> None:
    stop = keep_pauses_short(freeze_seconds=0.02, full_seconds=0.5)
    try:
        gone = frozen_cycle()
        assert wait_until(lambda: gone() is None), "the frozen cycle was never reclaimed"
    finally:
        stop.set()


@pytest.mark.usefixtures("thawed")
def test_stopping_it_stops_the_freezing() -> None:
    stop = keep_pauses_short(freeze_seconds=0.02, full_seconds=60)
    assert wait_until(lambda: gc.get_freeze_count() > 0)
    stop.set()
    time.sleep(0.1)  # (a freeze already under way finishes)
    gc.unfreeze()
    time.sleep(0.1)
    assert gc.get_freeze_count() == 0, "it went on freezing after it was stopped"


@pytest.mark.usefixtures("thawed")
def test_after_a_full_collection_the_next_waits_until_the_frozen_objects_grew_by_half() -> None:
    stop = keep_pauses_short(freeze_seconds=0.02, full_seconds=0.1, growth=1.5)
    try:
        time.sleep(0.3)  # the first full collection (due after 0.1 s) is behind us
        gone = frozen_cycle()
        time.sleep(0.5)  # five periods: no full collection while nothing grew
        assert gone() is not None, "a full collection came although the heap had not grown"
        # twice as many frozen — counted frozen or not: a freeze count read while the freezer is
        # between its unfreeze and its freeze is 0. In a test process that has run half the suite
        # that is millions of objects: making them took 2.8 s for 3 million on an idle machine, and
        # more than the 5 s this waited once the suite loads both cores (two failures on fresh
        # clones), so the wait is long: what fails is a collection that never comes
        grown = [Node() for _ in range(gc.get_freeze_count() + len(gc.get_objects()))]
        assert wait_until(lambda: gone() is None, seconds=60), "the heap doubled and still no full collection"
        del grown
    finally:
        stop.set()


@pytest.mark.usefixtures("thawed")
def test_a_full_collection_that_could_not_run_is_tried_again() -> None:
    # Another thread's collection held open (a gc callback of its own waits): the collector runs
    # one collection at a time, so the freezer's gc.collect() returns at once, collecting nothing.
    inside, release = threading.Event(), threading.Event()

    def hold(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and threading.current_thread() is holder:
            inside.set()
            release.wait(10)

    holder = threading.Thread(target=gc.collect)
    gc.callbacks.append(hold)
    try:
        holder.start()
        assert inside.wait(5), "the other thread's collection did not start"
        assert not collect_everything(), "a collection ran beside another"
        stop = keep_pauses_short(freeze_seconds=0.02, full_seconds=0.1)
        try:
            gone = frozen_cycle()
            time.sleep(0.3)  # the first full collection was due meanwhile, and could not run
            assert gone() is not None
            release.set()
            holder.join()
            assert wait_until(lambda: gone() is None), "the full collection that could not run never came"
        finally:
            stop.set()
    finally:
        release.set()
        gc.callbacks.remove(hold)
    freezers_ended()
    assert collect_everything(), "with no other collection under way, it ran"


def test_the_middle_generation_is_collected_once_every_hundred_young_collections() -> None:
    before = gc.get_threshold()
    kept: list[list[object]] = []
    try:
        collect_the_middle_generation_less_often()
        young, middle, old = gc.get_threshold()
        assert (young, old) == (before[0], before[2]), "only the middle generation's threshold changes"
        assert middle == YOUNG_COLLECTIONS_PER_MIDDLE == 100
        gc.collect()
        start = gc.get_stats()[1]["collections"]
        for _ in range(50 * young):  # (tracked objects kept alive: 50 young collections' worth)
            kept.append([])
        assert gc.get_stats()[1]["collections"] == start, "generation 1 was collected before its 100th young one"
    finally:
        kept.clear()
        gc.set_threshold(*before)
