"""Where a server's event loop stalls: put this folder on ``PYTHONPATH`` of ``fabula serve``.

    PYTHONPATH=$PWD/tools/stalls python -m benchmarks.load --rooms 834 --phases paced --think 10 ...

(`benchmarks/load/` passes its environment to the servers it starts, each in a folder of its
own: hence the absolute path.) In a process whose command line says ``serve``, Python imports
this at start-up and

- starts, beside the server, a task that wakes every 2 ms (the loop's heartbeat);
- samples, from a thread, the main thread's stack every 2 ms while the heartbeat is more than
  30 ms old (the loop is held: by one long callback, or by a burst of short ones);
- times every collection of the garbage collector (``gc.callbacks``).

Every 5 s it writes ``/tmp/fabula-stalls.PID.txt``: one line per stall (wall-clock time, how long,
the frames seen most often in its samples) and one per collection over 5 ms. A stall with many
samples was Python code (its frames say whose); one with few was the process not running — C
code holding the interpreter (a collection: see the collections' lines) or the core taken by
another process. It costs the server little (a thread waking every 2 ms) but is a diagnosis
tool, not for production. It found the stalls fixed on 2026-12-03 (docs/deploy.md, "Presence in
scripts…").
"""

from __future__ import annotations

import asyncio
import collections
import gc
import os
import sys
import threading
import time
import traceback
from types import FrameType
from typing import Any

BEAT_SECONDS = 0.002
STALL_SECONDS = 0.03
SLOW_COLLECTION_SECONDS = 0.005


class Watch:
    def __init__(self) -> None:
        self.beat = time.perf_counter()
        self.lines: list[str] = []
        self.report = f"/tmp/fabula-stalls.{os.getpid()}.txt"
        self._collecting_since = 0.0

    async def heartbeat(self) -> None:
        while True:
            self.beat = time.perf_counter()
            await asyncio.sleep(BEAT_SECONDS)

    def collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._collecting_since = time.perf_counter()
            return
        took = time.perf_counter() - self._collecting_since
        if took >= SLOW_COLLECTION_SECONDS:
            generation, collected = info["generation"], info["collected"]
            self.lines.append(f"{time.time():.1f} collection gen{generation} {1000 * took:.1f} ms, {collected} freed")

    def sample_forever(self, main: int) -> None:
        samples: list[list[str]] = []
        began, longest, written = 0.0, 0.0, time.monotonic()
        while True:
            time.sleep(BEAT_SECONDS)
            held = time.perf_counter() - self.beat
            if held > STALL_SECONDS:
                if not samples:
                    began = time.time()
                frame = sys._current_frames().get(main)
                if frame is not None:
                    samples.append([_name(f) for f, _ in traceback.walk_stack(frame)])
                longest = max(longest, held)
            elif samples:
                self.lines.append(self._stall(began, longest, samples))
                samples, longest = [], 0.0
            if time.monotonic() - written > 5:
                written = time.monotonic()
                with open(self.report, "w") as report:
                    report.write("\n".join(self.lines) + "\n")

    @staticmethod
    def _stall(began: float, longest: float, samples: list[list[str]]) -> str:
        seen: collections.Counter[str] = collections.Counter()
        for stack in samples:
            seen.update(set(stack))
        # the frames of the loop itself and of the server's start say nothing about the stall
        ignored = ("base_events.py", "events.py", "runners.py", "cli.py", "serve.py", "__init__.py:run", "fabula:")
        frames = [f"{name} ({count})" for name, count in seen.most_common(40) if not name.startswith(ignored)]
        return f"{began:.1f} stall {1000 * longest:.0f} ms, {len(samples)} samples: " + " | ".join(frames[:20])


def _name(frame: FrameType) -> str:
    return f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_code.co_name}"


def _install() -> None:
    import uvicorn

    watch = Watch()
    serve = uvicorn.Server.serve

    async def serve_with_heartbeat(self: uvicorn.Server, *args: Any, **kwargs: Any) -> None:
        beating = asyncio.get_running_loop().create_task(watch.heartbeat())
        try:
            await serve(self, *args, **kwargs)
        finally:
            beating.cancel()

    uvicorn.Server.serve = serve_with_heartbeat  # type: ignore[method-assign]
    gc.callbacks.append(watch.collection)
    main = threading.main_thread().ident
    assert main is not None
    threading.Thread(target=watch.sample_forever, args=(main,), name="stalls", daemon=True).start()


if "serve" in sys.argv:
    _install()
