"""What re-announcing a process's presence costs the event loop, against the real Redis.

Every ``ttl / 3`` seconds a process of a scale-out deployment announces again every room it
holds and reads back who the others announce (`fabula.store.RedisPresence`). This times that
refresh for ``--rooms`` rooms of six connected members each, written and read by Lua scripts
`fabula.store.presence.ROOMS_A_CALL` rooms a call and, for comparison, all rooms in one call:
the CPU time of the refresh, and the longest stretch during it in which the event loop ran
nothing else (a task that only yields, timing its own gaps) — what a move arriving then waits on
top of its own work. (Before the scripts, one pipeline of redis-py commands for all 834 rooms:
~107 ms of CPU, the loop held 40–60 ms.)

Run: ``python benchmarks/presence.py`` (``--rooms``, ``--runs``; Redis from
``FABULA_TEST_REDIS_URL``, default ``redis://127.0.0.1:6379/0``, on a namespace of its own that
is deleted afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import time

from redis.asyncio import Redis

from fabula.store import RedisPresence, Seen
from fabula.store.presence import ROOMS_A_CALL


async def longest_hold(work: asyncio.Future[None]) -> float:
    """The longest the loop went without coming back to this task while ``work`` ran, in seconds."""
    longest = 0.0
    while not work.done():
        before = time.perf_counter()
        await asyncio.sleep(0)
        longest = max(longest, time.perf_counter() - before)
    return longest


async def refresh(presence: RedisPresence, here: dict[str, list[Seen]]) -> tuple[float, float]:
    """One refresh (announce everything, read everything back): (CPU seconds, longest hold)."""
    cpu = time.process_time()

    async def both() -> None:
        await presence.announce(here)
        await presence.others(sorted(here))

    work = asyncio.ensure_future(both())
    held = await longest_hold(work)
    await work
    return time.process_time() - cpu, held


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=834, help="rooms held (default 834: 5,004 players)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    url = os.environ.get("FABULA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    namespace = f"fabula_bench_{secrets.token_hex(4)}"
    presence = await RedisPresence.connect(url, namespace)
    try:
        print(f"{args.rooms} rooms of six members, Redis at {url}; {args.runs} alternating runs each")
        found: dict[int, list[tuple[float, float]]] = {ROOMS_A_CALL: [], args.rooms: []}
        for run in range(args.runs):
            for size, runs in found.items():
                presence.rooms_a_call = size
                # a new hello in every room each time, so that every run writes as much
                here = {f"R{i:05d}": [Seen(m, run) for m in range(6)] for i in range(args.rooms)}
                runs.append(await refresh(presence, here))
        for size, runs in found.items():
            cpu = statistics.median(c for c, _ in runs) * 1e3
            held = statistics.median(h for _, h in runs) * 1e3
            worst = max(h for _, h in runs) * 1e3
            label = f"{size} rooms a call" + (" (all in one)" if size == args.rooms else "")
            print(
                f"{label:>28}: refresh CPU {cpu:.0f} ms (median), "
                f"loop held at most {held:.1f} ms (median; worst {worst:.1f})"
            )
    finally:
        await presence.close()  # (withdraws what it announced)
        cleaner = Redis.from_url(url)
        async for key in cleaner.scan_iter(f"{namespace}:*"):  # the visited keys
            await cleaner.delete(key)
        await cleaner.aclose()


if __name__ == "__main__":
    asyncio.run(main())
