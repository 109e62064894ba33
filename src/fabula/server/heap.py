"""Keeping the garbage collector's pauses short in a long-running server.

CPython's full collections scan every tracked object. With thousands of players connected the
heap holds millions of long-lived objects (rooms, games, connections), and a full collection
stalls the event loop for hundreds of milliseconds: measured with `benchmarks/load.py` (5,004
players, one action per 10 s), p99 latency 762 ms, against 61 ms once long-lived objects were
frozen. So every ``freeze_seconds`` what is alive is moved out of the collector's sight
(`gc.freeze`) — young objects are still collected as usual, and everything is still freed by
reference counting — and the frozen objects are thawed for one full collection, which reclaims
any reference cycles among them, once they have grown by half (``growth``) since the last one,
and at most every ``full_seconds``: so frozen garbage never outgrows half of what is alive.

Grown by half, not on a clock: the full collection is the one long pause left — 770–840 ms at
5,004 players (a `gc.collect` timed in the server during `benchmarks/load.py --rooms 834
--phases paced`), every game on the process frozen meanwhile — and it found almost nothing to
reclaim: 0, 892 and 1,821 objects of 400–980 thousand, 40 s apart. Every ten minutes, as it was,
that pause came for nothing; now it comes once the server has grown (players arriving: the first
comes ``full_seconds`` after the start) or garbage has piled up.

Every second rather than every 20 s: the young generations hold what thousands of connections
are awaiting (coroutines, futures — 30–40 thousand objects at 5,004 players), and with 20 s
between freezes each gen-1 collection took 20–45 ms, once a second, and every 25 s or so a gen-2
one took ~140 ms. Freezing each second (`gc.freeze` moves lists: it costs next to nothing) cut
the p99 of that benchmark over PostgreSQL + Redis from 41–79 ms to 13–18 ms (three runs each,
alternating) and its CPU per action by a few per cent; resident memory after 150 s of play was
the same (660 MiB either way).

The collector runs one collection at a time: a `gc.collect` called while another thread is in the
middle of one (its finalizers or weakref callbacks run Python code, so the GIL passes) returns at
once without collecting: with another thread making cycles of objects with ``__del__`` in a loop,
721 of 759 `gc.collect` calls did nothing (a throwaway script, CPython 3.11). The server's event
loop is such a thread (coroutines and sockets have finalizers), and a skipped full collection used
to count as done — the next then waited for the heap to grow by half again. So a full collection
counts only when the collector's callbacks say it started in this thread; one that could not run
is tried again a tick later.
"""

from __future__ import annotations

import gc
import threading

FREEZE_SECONDS = 1.0
FULL_SECONDS = 600.0
GROWTH = 1.5
#: Collections of generation 0 between two of generation 1 (CPython's default is 10).
YOUNG_COLLECTIONS_PER_MIDDLE = 100


def collect_the_middle_generation_less_often() -> None:
    """A collection of generation 1 once every `YOUNG_COLLECTIONS_PER_MIDDLE` of generation 0,
    not every 10th.

    With 2,000 audience connections each idle connection keeps a few suspended coroutines and
    futures (its pending receive and send), made anew at each message: some 7,000 young objects
    between two freezes, and a generation-1 collection walking them took 12–18 ms, some twenty
    times in 30 s (every collection timed in the server by a throwaway hook). What outlives a
    second is frozen anyway (`keep_pauses_short`), so rarer generation-1 collections hardly grow.
    Measured (`python -m benchmarks.load --audience 2000 --think 1 --duration 30`, four runs each,
    alternating, 2026-12-06 23:53–00:04 UTC): players' p99 with the audience 14.7, 16.4, 18.4,
    21.5 ms against 20.6, 27.6, 35.5, 38.8 ms with CPython's 10; their p50, the audience's delivery
    and the CPU share unchanged within noise."""
    young, _, old = gc.get_threshold()
    gc.set_threshold(young, YOUNG_COLLECTIONS_PER_MIDDLE, old)


def keep_pauses_short(
    freeze_seconds: float = FREEZE_SECONDS, full_seconds: float = FULL_SECONDS, growth: float = GROWTH
) -> threading.Event:
    """Start the freezing in a daemon thread (the collector is process-wide, so a thread does);
    set the returned event to stop it."""
    stop = threading.Event()

    def run() -> None:
        since_full = 0.0
        after_full = 0  # objects frozen after the last full collection (none yet: the first is due)
        while not stop.wait(freeze_seconds):
            since_full += freeze_seconds
            if since_full >= full_seconds and gc.get_freeze_count() >= growth * after_full:
                gc.unfreeze()
                collected = collect_everything()
                gc.freeze()
                if collected:
                    since_full = 0.0
                    after_full = gc.get_freeze_count()
                continue
            gc.freeze()

    threading.Thread(target=run, name="fabula-gc", daemon=True).start()
    return stop


def collect_everything() -> bool:
    """A collection of every generation; False if it could not run because another thread's
    collection was under way (`gc.collect` then returns without collecting, and its result, the
    number of objects found unreachable, cannot tell that from a collection that found none)."""
    here = threading.get_ident()
    started = False

    def note(phase: str, _info: dict[str, int]) -> None:
        nonlocal started
        if phase == "start" and threading.get_ident() == here:
            started = True

    gc.callbacks.append(note)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(note)
    return started
