"""The servers under load: ``fabula serve`` (one process or several over PostgreSQL and Redis,
optionally under callgrind) or the bare transport of ``benchmarks/transport.py``, each started
on a free port in a temporary folder of its own, and everything they started or left stopped
and dropped afterwards."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: benchmarks/, where transport.py lives
BENCHMARKS = Path(__file__).resolve().parents[1]


@dataclass
class Server:
    url: str
    pid: int | None
    process: subprocess.Popen[bytes] | None = None
    folder: Path | None = None
    name: str = "fabula"
    #: (database URL, Redis URL or None, namespace) of a started server's PostgreSQL schema and
    #: Redis keys, dropped when it stops
    shared: tuple[str, str | None, str] | None = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        if self.shared is not None:
            drop_namespace(*self.shared)


def drop_namespace(database: str, redis_url: str | None, namespace: str) -> None:
    """Drop what a started server left in PostgreSQL and Redis."""
    # imported here: only a run over the scale-out backends needs them
    import asyncpg
    import redis

    async def drop_schema() -> None:
        connection = await asyncpg.connect(database)
        try:
            await connection.execute(f'DROP SCHEMA IF EXISTS "{namespace}" CASCADE')
        finally:
            await connection.close()

    asyncio.run(drop_schema())
    if redis_url is not None:
        client = redis.Redis.from_url(redis_url)
        try:
            keys = list(client.scan_iter(match=f"{namespace}:*", count=500))
            if keys:
                client.delete(*keys)
        finally:
            client.close()


def start_server(command: list[str], name: str, folder: Path, pin: set[int] | None, patience: float = 60) -> Server:
    """Start a server that prints ``… http://127.0.0.1:PORT/ …`` when it listens (within ``patience``
    seconds)."""
    log_path = folder / "server.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT, cwd=folder)
    try:
        if pin:
            os.sched_setaffinity(process.pid, pin)
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited at start:\n{log_path.read_text()}")
            found = re.search(r"http://[0-9.]+:\d+/", log_path.read_text(errors="replace"))
            if found:
                server = Server(found.group(0).rstrip("/"), process.pid, process, folder, name)
                wait_healthy(server.url, patience)
                return server
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not start:\n{log_path.read_text()}")
    except BaseException:
        # a server that never came up (or Ctrl+C meanwhile) must not outlive the benchmark
        process.kill()
        process.wait()
        raise


def wait_healthy(url: str, patience: float = 30) -> None:
    import httpx

    deadline = time.monotonic() + patience
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.1)


def stop_servers(servers: Sequence[Server]) -> None:
    """Stop every server, then drop their shared PostgreSQL schema and Redis keys once."""
    shared = {server.shared for server in servers if server.shared is not None}
    for server in servers:
        server.shared = None
        server.stop()
    for found in shared:
        drop_namespace(*found)


def start_fabula(args: argparse.Namespace, pin: set[int] | None, namespace: str | None = None) -> Server:
    folder = Path(tempfile.mkdtemp(prefix="fabula-load-"))
    fabula = Path(sys.executable).with_name("fabula")
    command = [str(fabula)] if fabula.exists() else [sys.executable, "-c", "from fabula.cli import main; main()"]
    if args.callgrind:
        # instrumented only from a phase's start (`counting`): taking the seats would take minutes
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={folder / 'callgrind.out'}",
            *command,
        ]
    command += [
        "serve",
        "--port=0",
        f"--data={folder / 'data'}",
        f"--durability={args.durability}",
        # every player comes from 127.0.0.1: the per-address limits would refuse most of them
        "--max-connections-per-address=1000000",
        "--max-rooms-per-address=1000000",
        "--messages-per-second=1000",
        "--message-burst=1000",
        f"--log-level={args.server_log_level}",
    ]
    namespace = namespace or f"fabula_load_{os.getpid()}"
    if args.database:
        command += [f"--database={args.database}", f"--namespace={namespace}"]
    if args.redis:
        command.append(f"--redis={args.redis}")
    try:
        server = start_server(command, "fabula serve", folder, pin, patience=180 if args.callgrind else 60)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    if args.database:
        server.shared = (args.database, args.redis, namespace)
    return server


def start_fabulas(args: argparse.Namespace, pin: set[int] | None) -> list[Server]:
    """``--servers N``: N processes over the same PostgreSQL schema and Redis namespace (with
    ``--spread``, server k pinned to CPU k, round the machine's CPUs)."""
    if args.servers == 1:
        return [start_fabula(args, pin)]
    namespace = f"fabula_load_{os.getpid()}"
    cpus = sorted(os.sched_getaffinity(0))
    servers: list[Server] = []
    try:
        for number in range(args.servers):
            servers.append(start_fabula(args, {cpus[number % len(cpus)]} if args.spread else pin, namespace))
    except BaseException:
        stop_servers(servers)
        drop_namespace(args.database, args.redis, namespace)
        raise
    return servers


def start_transport(sample: Path | None, pin: set[int] | None) -> Server:
    """The bare fan-out server (the ceiling), relaying ``sample`` (a real state) if given."""
    folder = Path(tempfile.mkdtemp(prefix="fabula-transport-"))
    command = [sys.executable, str(BENCHMARKS / "transport.py"), "--serve", "--port=0"]
    if sample is not None:
        command.append(f"--sample={sample}")
    try:
        return start_server(command, "transport", folder, pin)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def callgrind_control(pids: Sequence[int], *options: str) -> None:
    """Ask the callgrind of each of ``pids`` (`--callgrind`) to do something."""
    for pid in pids:
        subprocess.run(["callgrind_control", *options, str(pid)], check=True, capture_output=True, timeout=120)


def instructions_counted(folder: Path) -> int:
    """The instructions in the newest dump of the callgrind whose output goes to ``folder``."""
    dumps = sorted(folder.glob("callgrind.out*"), key=lambda path: path.stat().st_mtime)
    text = dumps[-1].read_text(errors="replace")
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no total in {dumps[-1]}")
    return int(found.group(1))
