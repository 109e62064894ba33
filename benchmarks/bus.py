"""What publishing a batch of room notices costs the publishing process, against the real Redis.

A process announces what it stored on each room's own channel (`fabula.store.RedisBus`: only
the processes holding a room hear it). This times, in the process's CPU time, one batch of
``--rooms`` notices (each carrying one 300-byte entry) sent three ways: as one Lua script call
publishing on every room's channel (what the bus does), as a redis-py pipeline of one PUBLISH a
room, and — for scale — as the single message on one channel that every process used to read
whole.

Run: ``python benchmarks/bus.py`` (``--rooms``, ``--runs``; Redis from
``FABULA_TEST_REDIS_URL``, default ``redis://127.0.0.1:6379/0``; nothing subscribes, nothing
is kept).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import time
from collections.abc import Awaitable, Callable

from fabula.store.bus import _Batch, _encode_batch, channel_name, room_channel
from fabula.store.redis_bus import _PUBLISH_EACH
from fabula.store.redis_client import redis_client


async def main(rooms: int, runs: int, url: str) -> None:
    redis = redis_client(url, timeout=5)
    namespace = f"fabula-bench-{secrets.token_hex(4)}"
    publish_each = redis.register_script(_PUBLISH_EACH)
    batch = {f"R{n:04d}": (10, [b"x" * 300]) for n in range(rooms)}

    def messages() -> list[str | bytes]:
        pairs: list[str | bytes] = []
        for room, notice in batch.items():
            pairs += (room_channel(namespace, room), _encode_batch(_Batch("bench", {room: notice})))
        return pairs

    async def script() -> None:
        await publish_each(args=messages())

    async def pipeline() -> None:
        async with redis.pipeline(transaction=False) as pipe:
            for room, notice in batch.items():
                pipe.publish(room_channel(namespace, room), _encode_batch(_Batch("bench", {room: notice})))
            await pipe.execute()

    async def one_message() -> None:
        await redis.publish(channel_name(namespace), _encode_batch(_Batch("bench", batch)))

    ways: dict[str, Callable[[], Awaitable[None]]] = {
        "one script call (the bus)": script,
        "a pipeline, a PUBLISH a room": pipeline,
        "one message on one channel": one_message,
    }
    spent: dict[str, list[float]] = {name: [] for name in ways}
    try:
        for way in ways.values():  # warm: connections open, the script loaded
            await way()
        for _ in range(runs):  # alternating, so that the machine's drift hits every way alike
            for name, way in ways.items():
                started = time.process_time()
                for _ in range(20):
                    await way()
                spent[name].append((time.process_time() - started) / 20)
    finally:
        await redis.aclose()
    print(f"{rooms} room notices a batch, {runs} runs of 20 batches each, CPU time of this process:")
    for name, times in spent.items():
        print(
            f"  {name}: median {statistics.median(times) * 1000:.2f} ms a batch "
            f"({statistics.median(times) / rooms * 1e6:.1f} µs a room; runs {min(times) * 1000:.2f}–"
            f"{max(times) * 1000:.2f} ms)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=834)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    asyncio.run(
        main(arguments.rooms, arguments.runs, os.environ.get("FABULA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))
    )
