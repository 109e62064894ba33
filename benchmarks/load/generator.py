"""The load generator: processes apart from the server (so that its CPU is not the server's),
each driving a share of the rooms, obeying the main process over a pipe.

`Generators` is the main process's side: it starts them, asks each a command (``connect``,
``start``, ``run`` a phase, ``close``) and gathers their answers; `generator_process` is theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import multiprocessing.connection
import os
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from fabula.protocol import Start

from .connections import OPEN_FAILURES, open_link
from .players import Figures, Player, Table
from .seats import RoomPlan
from .system import raise_nofile


@dataclass
class PhaseSpec:
    mode: str  # 'paced' or 'max'
    think: float
    uniform: bool
    start: float  # time.monotonic() at which the load begins
    warmup: float
    duration: float
    drain: float = 10.0


class Generator:
    """One generator process: its tables, their connections, and the commands of the main process."""

    def __init__(self, plans: list[RoomPlan], deflate: bool, seed: int, client: str = "lean") -> None:
        self.deflate, self.client = deflate, client
        self.figures = Figures()
        rng = random.Random(seed)
        session = secrets.token_hex(3)
        self.tables = [Table(plan, session, random.Random(rng.getrandbits(64)), self.figures) for plan in plans]

    def players(self) -> Iterator[Player]:
        for table in self.tables:
            yield from table.players

    async def connect(self, concurrency: int = 64) -> dict[str, Any]:
        gate = asyncio.Semaphore(concurrency)
        failures: Counter[str] = Counter()

        async def one(player: Player) -> None:
            async with gate:
                try:
                    welcomed = await open_link(player, self.client, self.deflate)
                except OPEN_FAILURES as error:
                    failures[type(error).__name__] += 1
                    return
                if not welcomed:
                    failures["no_welcome"] += 1

        started = time.monotonic()
        await asyncio.gather(*(one(player) for player in self.players()))
        return {
            "connected": sum(player.connected and player.greeted for player in self.players()),
            "failures": dict(failures),
            "seconds": time.monotonic() - started,
            "deflate": any(player.link is not None and player.link.deflate for player in self.players()),
        }

    async def start_games(self) -> dict[str, Any]:
        for table in self.tables:
            if table.room is None or table.room.get("status") == "lobby":
                table.observer.send(Start)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if all(t.room is not None and t.room.get("status") == "playing" for t in self.tables):
                break
            await asyncio.sleep(0.05)
        return {"playing": sum(t.room is not None and t.room.get("status") == "playing" for t in self.tables)}

    async def run(self, spec: PhaseSpec) -> dict[str, Any]:
        self.figures = figures = Figures()
        for table in self.tables:
            table.figures = figures
        window = (spec.start + spec.warmup, spec.start + spec.warmup + spec.duration)
        lags: list[float] = []
        await asyncio.sleep(max(0.0, spec.start - time.monotonic()))
        for table in self.tables:
            table.begin(spec.mode, spec.think, spec.uniform, window)
        cpu_before = cpu_after = 0.0
        counted = False
        # the loop's lag: how late a 50 ms sleep wakes says whether the generator keeps up
        while time.monotonic() < window[1]:
            before = time.monotonic()
            await asyncio.sleep(0.05)
            now = time.monotonic()
            if window[0] <= before and not counted:
                counted, cpu_before = True, time.process_time()
            if window[0] <= before < window[1]:
                lags.append((now - before - 0.05) * 1000)
        cpu_after = time.process_time()
        for table in self.tables:
            table.halt()
        drain_until = time.monotonic() + spec.drain
        while time.monotonic() < drain_until and any(t.busy or t.pending for t in self.tables):
            await asyncio.sleep(0.05)
        stuck = sum(1 for t in self.tables for p in t.pending if p.counted)
        if stuck:
            figures.errors["no_update_in_drain"] += stuck
        for table in self.tables:
            table.pending.clear()
            table.busy.clear()
        lags.sort()
        sample = None
        for table in self.tables:
            if table.room is not None and table.room.get("status") == "playing":
                sample = table.room
                break
        return {
            "actions": figures.actions,
            "acts_sent": figures.acts_sent,
            "legal_sent": figures.legal_sent,
            "stale": figures.stale,
            "rematches": figures.rematches,
            "states": figures.states,
            "state_bytes": figures.state_bytes,
            "messages": figures.messages,
            "errors": dict(figures.errors),
            "latencies": figures.latencies,
            "backlog": figures.backlog,
            "acked_by": dict(figures.acked_by),
            "cpu": cpu_after - cpu_before,
            "lag_p99": lags[int(len(lags) * 0.99)] if lags else 0.0,
            "lag_max": lags[-1] if lags else 0.0,
            "connected": sum(p.connected for p in self.players()),
            "sample": sample,
        }

    async def close(self) -> None:
        for table in self.tables:
            table.closing = True
            table.halt()
        for player in self.players():
            if player.link is not None:
                await player.link.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(p.connected for p in self.players()):
            await asyncio.sleep(0.05)
        for player in self.players():
            if player.link is not None:
                player.link.abort()


def generator_process(
    plans: list[RoomPlan], deflate: bool, seed: int, *, cpus: set[int] | None, pipe: Any, client: str = "lean"
) -> None:
    """Entry point of a generator process: obey the main process's commands until 'close'."""
    raise_nofile()
    if cpus:
        os.sched_setaffinity(0, cpus)
    try:
        import uvloop

        loop_factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        loop_factory = asyncio.new_event_loop
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(_serve_commands(Generator(plans, deflate, seed, client), pipe))


async def _serve_commands(generator: Generator, pipe: Any) -> None:
    loop = asyncio.get_running_loop()
    while True:
        # a thread waits on the pipe: the loop's own readers would make it non-blocking, and a
        # large answer would then fail to be sent
        command, argument = await loop.run_in_executor(None, pipe.recv)
        if command == "connect":
            pipe.send(await generator.connect())
            # the players are long-lived: out of the collector's sight, so that a collection of
            # the generator's own heap cannot pause it (and starve the server) in a phase
            gc.collect()
            gc.freeze()
        elif command == "start":
            pipe.send(await generator.start_games())
        elif command == "run":
            gc.disable()
            try:
                pipe.send(await generator.run(argument))
            finally:
                gc.enable()
                gc.collect()
        elif command == "close":
            await generator.close()
            pipe.send({})
            return


class Generators:
    """The generator processes, each with a share of the rooms."""

    def __init__(
        self, plans: list[RoomPlan], workers: int, deflate: bool, cpus: set[int] | None, client: str = "lean"
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[multiprocessing.connection.Connection] = []
        self.processes: list[Any] = []
        for index in range(workers):
            share = plans[index::workers]
            if not share:
                continue
            mine, theirs = context.Pipe()
            process = context.Process(
                target=generator_process,
                args=(share, deflate, 1000 + index),
                kwargs={"cpus": cpus, "pipe": theirs, "client": client},
                daemon=True,
            )
            process.start()
            self.pipes.append(mine)
            self.processes.append(process)

    def ask(self, command: str, argument: Any = None, timeout: float = 600) -> list[dict[str, Any]]:
        for pipe in self.pipes:
            pipe.send((command, argument))
        answers = []
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            if not pipe.poll(timeout):
                raise RuntimeError(f"generator {process.pid} did not answer {command!r}")
            answers.append(pipe.recv())
        return answers

    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    def close(self) -> None:
        # a generator that does not say goodbye (it failed, or hangs) is killed all the same
        with contextlib.suppress(Exception):
            self.ask("close", timeout=30)
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
