"""Load on a server (one process or several) over real WebSockets: R rooms × N players playing random legal moves.

Every player is an external client, as a browser or `fabula bot` is: its seat is taken over HTTP
(``POST /api/rooms``, ``POST /api/rooms/{code}/join``), then it plays over its own WebSocket:
``legal`` → a random choice → ``act``. The load generator runs in its own process(es), apart
from the server, which by default it starts itself (``fabula serve`` on a free port, a temporary
data folder, per-address limits raised because every client comes from 127.0.0.1) and pins to
one core, the generator taking the others.

Phases (``--phases``, in this order):

idle    resident memory of the server with the seats taken and nobody connected, then with every
        player connected (each has said hello and got its state) and idle: the difference per
        player is what an idle connected player costs; then with every game started.
paced   each room's players act, together, as a Poisson process of N / ``--think`` actions a
        second (``--jitter uniform``: gaps uniform in 0…2× the mean), each time one awaited seat
        chosen at random — so a player acts once per ``--think`` seconds on average, although in
        Dixit only the awaited seats may move (only the storyteller in the clue phase).
max     every awaited seat acts as soon as it may: the most actions a second the server sustains.

Latency is from sending an ``act`` to the last connection of the room receiving the state it
caused: the ``ack`` names the entry's ``seq`` and the update is the first ``state`` with
``room.seq`` above it, on every connection of the room (the acting one included).

The ceiling (``--ceiling``): after Fabula, the same generator runs the ``max`` phase against
``benchmarks/transport.py``, a bare fan-out server on the same stack (Starlette + uvicorn with
``fabula serve``'s uvicorn options) that relays each ``act`` to every connection of its room with
a sequence number and no game logic — ``echo``: just the action; ``sample``: the action plus a
state Fabula really sent in this run, so that the same bytes go through the same fan-out.

The generator's players (``--client``): ``lean`` (the default) frame and read the protocol
themselves — a protocol callback per connection, no task, only the observer decoding whole
states — because the generator must not be what limits the figure; ``fabula`` plays through
`fabula.client` (the client of `fabula bot` and the tests), to measure what that costs. On this
2-core machine (``--phases max --duration 20 --ceiling sample``, each variant twice, the machine
shared) the lean generator spent 326–327 µs of CPU per action against Fabula and 381–387 against
the transport; on `fabula.client` 556–593 and 892–893: 1.7–2.3 times as much, so at the
1,500 actions a second of the target the client alone would need 0.8–1.3 of the generator's core.
(Since then the lean players read and write JSON with msgspec: 163–221 µs per action, docs/deploy.md.)

Run: ``python benchmarks/load.py`` (the default: 100 six-player rooms, 20 s per phase, the
sampled ceiling; about a minute and a half). The issue's figures:

    python benchmarks/load.py --rooms 834 --phases idle,paced --duration 60   # 5,004 players
    python benchmarks/load.py --rooms 834 --phases max --ceiling both          # at full load
    python benchmarks/load.py --server http://host:8000 --server-pid 1234      # a running server
    python benchmarks/load.py --phases max --database postgresql://… --redis redis://…  # scale-out backends
    python benchmarks/load.py --phases max --servers 2 --database postgresql://… --redis redis://…
    python benchmarks/load.py --server http://127.0.0.1:8001 --server http://127.0.0.1:8002 \
        --server-pid 1234 --server-pid 1235                                    # a running deployment

Several processes (``--servers N``, or ``--server URL`` repeated): member M of room R takes its seat
and opens its WebSocket on server (R + M) mod N, so every room spans the processes and its
updates go through PostgreSQL and Redis; CPU and resident memory are summed over the server
processes and shown for each. ``--servers N`` starts them all on one schema and namespace
(dropped afterwards) and, with ``--pin``, pins them all to the same core: on a 2-core machine
they share that core with each other, the generator has the other, and PostgreSQL and Redis
(unpinned; their CPU is measured apart when they are local) take what they find. One
``--server`` (nginx, say) with several ``--server-pid`` loads a proxy and sums its processes.

Instructions (``--callgrind``): CPU time on a shared VM swings by a third from run to run, so a
ratio of two runs' CPU per action is worth little. With ``--callgrind`` the started servers run
under valgrind's callgrind, instrumented from each phase's start, their counters zeroed when the
window opens and dumped when it closes: the instructions they ran in the window, and per action,
repeat to within a fraction of a percent. Only user-space instructions count (not the kernel's
work, nor what cache misses and sharing a core cost), and the servers run some 50 times slower,
so keep the load light (``--rooms 20 --think 15``: 8 actions/s) and read the ``max`` phase as
the regime where the servers are saturated, not as their speed.

Targets (issue 7, this 2-core machine): one process holds 5,000 connected players (six-player
rooms, one action per player every 10 s) with p99 ≤ 200 ms and no errors; at full load at least
1,500 actions a second on one core; its maximum actions a second at least half the bare
transport's with the same fan-out; resident memory per idle connected player stated.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import json
import multiprocessing
import multiprocessing.connection
import os
import random
import re
import resource
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec
import websockets

from fabula.client import Client, Received
from fabula.protocol import Ack, Act, ClientMessage, Error, Legal, LegalMoves, Rematch, Start, Welcome

HERE = Path(__file__).resolve().parent
COLOURS = ("red", "pink", "yellow", "blue", "dark green", "light green", "orange", "brown", "purple", "black")
CLUES = ("Journey", "Memory", "Silence", "Home", "Freedom", "Waiting", "Secret", "Dream", "Far away")
#: The room's ``seq`` is the second key of every state (``{"type":"state","room":{"code":…,"seq":…``):
#: players other than the room's observer read only that, not the whole state.
SEQ = re.compile(rb'"seq":(\d+)')
STATE_PREFIX = b'{"type":"state"'
#: The messages the generator sends, typed for `fabula.client` (``--client fabula``).
MESSAGE_TYPES: dict[str, type[ClientMessage]] = {"legal": Legal, "act": Act, "start": Start, "rematch": Rematch}
#: sends of ``--client fabula`` under way: a task is kept until it is done
SENDING: set[asyncio.Task[None]] = set()
#: Latency targets of the issue.
TARGET_PLAYERS, TARGET_P99_MS, TARGET_ACTIONS, TARGET_RATIO = 5000, 200.0, 1500.0, 0.5

# the generator's JSON: msgspec's (the standard library's took a sixth of the generator's time)
encode_json = msgspec.json.encode
decode_json: Callable[[bytes], Any] = msgspec.json.decode


# ---------------------------------------------------------------------------------------------
# operating-system figures


def raise_nofile() -> tuple[int, int]:
    """Raise this process's open-file limit to its hard limit (children inherit it); (soft, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (from /proc/PID/stat)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` (VmRSS of /proc/PID/status) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_times() -> dict[int, list[int]]:
    """Every CPU's jiffies from /proc/stat: user nice system idle iowait irq softirq steal."""
    found = {}
    for line in Path("/proc/stat").read_text().splitlines():
        name, *values = line.split()
        if name.startswith("cpu") and name != "cpu":
            found[int(name[3:])] = [int(v) for v in values[:8]]
    return found


def cpu_usage(before: dict[int, list[int]], after: dict[int, list[int]]) -> dict[int, dict[str, float]]:
    """Per CPU between two readings: percent busy (not idle or iowait) and percent in softirq."""
    usage = {}
    for cpu, start in before.items():
        delta = [b - a for a, b in zip(start, after[cpu], strict=True)]
        total = sum(delta) or 1
        usage[cpu] = {"busy": 100 * (total - delta[3] - delta[4]) / total, "softirq": 100 * delta[6] / total}
    return usage


def nofile_of(pid: int) -> int | None:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    return None


#: The processes of a local PostgreSQL and Redis (``comm`` names), whose CPU is counted apart.
BACKENDS = ("postgres", "redis-server")


def backend_cpu() -> dict[int, float]:
    """CPU seconds so far of every local PostgreSQL and Redis process (by pid)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            if (entry / "comm").read_text().strip() in BACKENDS:
                found[int(entry.name)] = cpu_seconds(int(entry.name))
    return found


def is_local(url: str | None) -> bool:
    return url is None or urlsplit(url).hostname in (None, "", "localhost", "127.0.0.1", "::1")


# ---------------------------------------------------------------------------------------------
# the servers


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
    process.kill()
    raise RuntimeError(f"{name} did not start:\n{log_path.read_text()}")


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
    server = start_server(command, "fabula serve", folder, pin, patience=180 if args.callgrind else 60)
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


def start_transport(sample: Path | None, pin: set[int] | None) -> Server:
    folder = Path(tempfile.mkdtemp(prefix="fabula-transport-"))
    command = [sys.executable, str(HERE / "transport.py"), "--serve", "--port=0"]
    if sample is not None:
        command.append(f"--sample={sample}")
    return start_server(command, "transport", folder, pin)


# ---------------------------------------------------------------------------------------------
# taking seats over HTTP


@dataclass
class RoomPlan:
    code: str
    tokens: list[str]
    #: the server each member's seat was taken through and its WebSocket goes to
    urls: list[str]


async def take_seats(
    urls: Sequence[str], rooms: int, players: int, concurrency: int = 32, *, split: str = "player"
) -> list[RoomPlan]:
    """Create the rooms and take every seat. With several servers and ``split="player"``, member
    M of room R goes to server (R + M) mod N, seat and WebSocket alike: every room spans the
    processes (each hosts some rooms' observers), so its updates go through the store and the
    bus. With ``split="room"`` every member of room R goes to server R mod N, as nginx's room
    hash sends them: each process holds its own rooms."""
    import httpx

    gate = asyncio.Semaphore(concurrency)
    # idle connections are dropped before the server's keep-alive timeout (uvicorn's 5 s) can
    # close one as it is reused: with several servers one client may wait while the others work
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency, keepalive_expiry=2.0)
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(httpx.AsyncClient(base_url=url, timeout=60, limits=limits)) for url in urls
        ]

        async def post(server: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
            async with gate:
                response = await clients[server].post(path, json=body)
            if response.status_code != 201:
                raise RuntimeError(f"POST {urls[server]}{path}: HTTP {response.status_code} {response.text}")
            found: dict[str, Any] = response.json()
            return found

        async def one_room(index: int) -> RoomPlan:
            where = [(index + (member if split == "player" else 0)) % len(urls) for member in range(players)]
            host = await post(
                where[0], "/api/rooms", {"name": "P0", "colour": COLOURS[0], "settings": {"mode": "odyssey"}}
            )
            tokens = [host["token"]]
            for member in range(1, players):
                seat = await post(
                    where[member],
                    f"/api/rooms/{host['code']}/join",
                    {"name": f"P{member}", "colour": COLOURS[member]},
                )
                tokens.append(seat["token"])
            return RoomPlan(host["code"], tokens, [urls[server] for server in where])

        return list(await asyncio.gather(*(one_room(index) for index in range(rooms))))


# ---------------------------------------------------------------------------------------------
# a lean WebSocket client (RFC 6455, permessage-deflate of RFC 7692 like a browser's)


class WebSocketClient(asyncio.Protocol):
    """One client connection without a task or a queue of its own: frames are parsed as bytes
    arrive and each message is handed to ``on_message`` at once, so one generator process can
    drive thousands of players. Answers pings; compresses what it sends when the server agreed
    to permessage-deflate, as browsers do."""

    def __init__(
        self, host: str, path: str, deflate: bool, on_message: Callable[[bytes], None], on_close: Callable[[str], None]
    ) -> None:
        self.request_head = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\nSec-WebSocket-Version: 13\r\n"
            + ("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" if deflate else "")
            + "\r\n"
        ).encode()
        self.on_message, self.on_close = on_message, on_close
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.open = self.closing = False
        self.inflater: Any = None
        self.deflater: Any = None
        self.inflate_bits = self.deflate_bits = 15
        self.inflate_reset = self.deflate_reset = False
        self.fragments: list[bytes] = []
        self.fragment_compressed = False
        self.close_code: int | None = None

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transport does what an asyncio.Transport does without subclassing it
        self.transport = transport  # type: ignore[assignment]
        transport.write(self.request_head)  # type: ignore[attr-defined]

    def connection_lost(self, exc: Exception | None) -> None:
        was_open = self.open
        self.open = False
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed during the handshake: {exc}"))
        if was_open:
            self.on_close("closed" if self.close_code is None else f"closed_{self.close_code}")

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end]).decode("latin-1")
            del buffer[: end + 4]
            self._handshake(head)
            if not self.open:
                return
        self._frames()

    def _handshake(self, head: str) -> None:
        lines = head.split("\r\n")
        if not lines[0].startswith("HTTP/1.1 101"):
            self.opened.set_exception(ConnectionError(f"handshake refused: {lines[0]}"))
            assert self.transport is not None
            self.transport.close()
            return
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-extensions" and "permessage-deflate" in value:
                for parameter in value.split(";")[1:]:
                    key, _, number = parameter.strip().partition("=")
                    if key == "server_max_window_bits":
                        self.inflate_bits = int(number.strip('"'))
                    elif key == "client_max_window_bits" and number:
                        self.deflate_bits = int(number.strip('"'))
                    elif key == "server_no_context_takeover":
                        self.inflate_reset = True
                    elif key == "client_no_context_takeover":
                        self.deflate_reset = True
                self.inflater = zlib.decompressobj(-self.inflate_bits)
                self.deflater = zlib.compressobj(6, zlib.DEFLATED, -self.deflate_bits, 5)
        self.open = True
        self.opened.set_result(None)

    def _frames(self) -> None:
        buffer = self.buffer
        size = len(buffer)
        at = 0
        while size - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            length, head = second & 0x7F, 2
            if length == 126:
                if size - at < 4:
                    break
                length, head = int.from_bytes(buffer[at + 2 : at + 4], "big"), 4
            elif length == 127:
                if size - at < 10:
                    break
                length, head = int.from_bytes(buffer[at + 2 : at + 10], "big"), 10
            if second & 0x80:  # a server never masks; tolerate it anyway
                head += 4
            end = at + head + length
            if end > size:
                break
            payload = bytes(buffer[at + head : end])
            if second & 0x80:
                payload = _unmask(payload, bytes(buffer[end - length - 4 : end - length]))
            at = end
            self._frame(first, payload)
        if at:
            del buffer[:at]

    def _frame(self, first: int, payload: bytes) -> None:
        opcode = first & 0x0F
        if opcode >= 8:
            if opcode == 9:
                self._send_frame(0x8A, payload)
            elif opcode == 8:
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                if not self.closing:
                    self.closing = True
                    self._send_frame(0x88, payload[:2])
                if self.transport is not None:
                    self.transport.close()
            return
        if opcode != 0:
            self.fragment_compressed = bool(first & 0x40)
            self.fragments = []
        self.fragments.append(payload)
        if not first & 0x80:
            return
        data = self.fragments[0] if len(self.fragments) == 1 else b"".join(self.fragments)
        self.fragments = []
        if self.fragment_compressed:
            data = self.inflater.decompress(data + b"\x00\x00\xff\xff")
            if self.inflate_reset:
                self.inflater = zlib.decompressobj(-self.inflate_bits)
        self.on_message(data)

    def _send_frame(self, first: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        length = len(payload)
        if length < 126:
            head = bytes((first, 0x80 | length))
        elif length < 1 << 16:
            head = bytes((first, 0x80 | 126)) + length.to_bytes(2, "big")
        else:
            head = bytes((first, 0x80 | 127)) + length.to_bytes(8, "big")
        mask = random.randbytes(4)
        self.transport.write(head + mask + _unmask(payload, mask))

    def send_text(self, data: bytes) -> None:
        if not self.open or self.closing:
            return
        if self.deflater is not None:
            data = self.deflater.compress(data) + self.deflater.flush(zlib.Z_SYNC_FLUSH)
            if data.endswith(b"\x00\x00\xff\xff"):
                data = data[:-4]
            if self.deflate_reset:
                self.deflater = zlib.compressobj(6, zlib.DEFLATED, -self.deflate_bits, 5)
            self._send_frame(0xC1, data)
        else:
            self._send_frame(0x81, data)

    def close(self) -> None:
        if self.open and not self.closing:
            self.closing = True
            self._send_frame(0x88, (1000).to_bytes(2, "big"))


def _unmask(data: bytes, mask: bytes) -> bytes:
    return _apply_mask(data, mask)


def _python_mask(data: bytes, mask: bytes) -> bytes:
    if not data:
        return data
    repeated = (mask * (len(data) // 4 + 1))[: len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(data), "big")


_apply_mask: Callable[[bytes, bytes], bytes] = _python_mask
with contextlib.suppress(ImportError):
    from websockets.speedups import apply_mask as _speedy_mask

    _apply_mask = _speedy_mask


# ---------------------------------------------------------------------------------------------
# players and rooms (inside a generator process)


@dataclass
class Figures:
    """What a generator process counts during one phase (warm-up and window)."""

    actions: int = 0  # acks of acts received in the window
    acts_sent: int = 0
    legal_sent: int = 0
    stale: int = 0  # 'legal' answered with no move: the seat was no longer awaited
    rematches: int = 0
    states: int = 0  # state messages received in the window, every connection
    state_bytes: int = 0
    messages: int = 0  # every message received in the window
    errors: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)  # ms, acts sent in the window
    backlog: int = 0  # the most paced ticks waiting for an awaited seat at once
    acked_by: Counter[str] = field(default_factory=Counter)  # actions counted, by the server that acked them


class Pending:
    """An acknowledged act waiting for every connection of its room to see its update."""

    __slots__ = ("counted", "latest", "sent", "seq", "waiting")

    def __init__(self, seq: int, sent: float, counted: bool) -> None:
        self.seq, self.sent, self.counted = seq, sent, counted
        self.latest = sent
        self.waiting: set[Player] = set()


class Player:
    """One seat's connection. The room's observer (its host) reads whole states; the others only
    their ``seq`` — what a latency needs."""

    def __init__(self, table: Table, member: int, token: str, url: str) -> None:
        self.table, self.member, self.token, self.url = table, member, token, url
        self.socket: WebSocketClient | None = None
        self.client: Client | None = None
        self.ids = (f"{table.session}-{n}" for n in range(1 << 62))
        self.greeted = False
        self.connected = False
        self.history: deque[tuple[int, float]] = deque(maxlen=64)  # (room.seq, when received)
        self.legal_id: str | None = None
        self.act_id: str | None = None
        self.act_sent = 0.0

    def send(self, message: dict[str, Any]) -> str:
        message_id = next(self.ids)
        message["id"] = message_id
        if self.client is not None:
            typed = MESSAGE_TYPES[message["type"]](**{k: v for k, v in message.items() if k != "type"})
            task = asyncio.create_task(self.client.send(typed))
            SENDING.add(task)
            task.add_done_callback(SENDING.discard)
            return message_id
        if self.socket is None:
            return message_id
        self.socket.send_text(encode_json(message))
        return message_id

    def on_received(self, received: Received) -> None:
        """What `on_message` does, for a message `fabula.client` has decoded (into a typed one)."""
        now = time.monotonic()
        table = self.table
        figures = table.figures
        counting = table.window_start <= now < table.window_end
        if counting:
            figures.messages += 1
        if received.type == "state":
            room = received.data["room"]
            if counting:
                figures.states += 1
                figures.state_bytes += len(received.text)
            seq = int(room["seq"])
            if self is table.observer:
                table.observe(room)
            self.history.append((seq, now))
            table.on_state(self, seq, now)
            if table.spans and self is not table.observer:
                table.fire()
            return
        message = received.message
        if isinstance(message, Welcome):
            self.greeted = True
        elif isinstance(message, Ack):
            if message.id == self.act_id:
                self.act_id = None
                table.on_ack(self, message.seq, now)
        elif isinstance(message, LegalMoves):
            if message.id == self.legal_id:
                self.legal_id = None
                table.on_legal(self, message.actions)
        elif isinstance(message, Error):
            figures.errors[message.code] += 1
            if message.id is not None and message.id in (self.legal_id, self.act_id):
                self.legal_id = self.act_id = None
                table.done(self)

    def on_message(self, data: bytes) -> None:
        now = time.monotonic()
        table = self.table
        figures = table.figures
        counting = table.window_start <= now < table.window_end
        if counting:
            figures.messages += 1
        if data.startswith(STATE_PREFIX):
            if counting:
                figures.states += 1
                figures.state_bytes += len(data)
            if self is table.observer:
                room = decode_json(data)["room"]
                seq = int(room["seq"])
                table.observe(room)
            else:
                found = SEQ.search(data, 0, 200)
                if found is None:
                    figures.errors["unreadable_state"] += 1
                    return
                seq = int(found.group(1))
            self.history.append((seq, now))
            table.on_state(self, seq, now)
            if table.spans and self is not table.observer:
                table.fire()  # this player's process may have been behind the observer's
            return
        message = decode_json(data)
        kind = message.get("type")
        if kind == "welcome":
            self.greeted = True
        elif kind == "ack":
            if message["id"] == self.act_id:
                self.act_id = None
                table.on_ack(self, int(message["seq"]), now)
        elif kind == "legal":
            if message["id"] == self.legal_id:
                self.legal_id = None
                table.on_legal(self, message["actions"])
        elif kind == "error":
            figures.errors[str(message.get("code"))] += 1
            if message.get("id") is not None and message["id"] in (self.legal_id, self.act_id):
                self.legal_id = self.act_id = None
                table.done(self)

    def behind(self, seq: int) -> bool:
        """This connection has not yet seen the room at ``seq`` (its server is behind another's)."""
        return not self.history or self.history[-1][0] < seq

    def on_close(self, why: str) -> None:
        self.connected = False
        if not self.table.closing:
            self.table.figures.errors[f"connection_{why}"] += 1
        self.table.on_leave(self)


class Table:
    """A room and its players, driven from one generator process."""

    def __init__(self, plan: RoomPlan, session: str, rng: random.Random, figures: Figures) -> None:
        self.code = plan.code
        self.session = session
        self.rng = rng
        self.figures = figures
        self.players = [
            Player(self, member, token, url)
            for member, (token, url) in enumerate(zip(plan.tokens, plan.urls, strict=True))
        ]
        self.observer = self.players[0]
        self.room: dict[str, Any] | None = None
        self.seen = -1  # the observer's newest room.seq
        self.by_seat: dict[int, Player] = {}
        self.busy: set[Player] = set()
        self.acted_at: dict[Player, int] = {}  # a player's last entry: it may act again once the observer saw it
        self.pending: list[Pending] = []
        self.window_start = self.window_end = float("inf")
        self.mode = "stop"  # 'paced', 'max' or 'stop'
        self.mean_gap = 1.0
        self.uniform = False
        self.ticks = 0  # paced actions due but not yet started
        self.timer: asyncio.TimerHandle | None = None
        self.rematch_asked = False
        self.closing = False
        #: the players are connected to several servers: each acts on what its own connection saw
        self.spans = len(set(plan.urls)) > 1

    # --- what the observer sees
    def observe(self, room: dict[str, Any]) -> None:
        self.room = room
        self.seen = int(room["seq"])
        status = room.get("status")
        if status == "playing":
            self.rematch_asked = False
            members = room.get("members")
            if members and members[0].get("seat") is not None:
                self.by_seat = {
                    m["seat"]: self.players[m["member"]] for m in members if m["member"] < len(self.players)
                }
            else:
                self.by_seat = dict(enumerate(self.players))
        elif status == "over" and self.mode != "stop" and not self.rematch_asked:
            self.rematch_asked = True
            self.figures.rematches += 1
            self.observer.send({"type": "rematch"})
        self.fire()

    def eligible(self) -> list[Player]:
        room = self.room
        if room is None or room.get("status") != "playing" or not room.get("game"):
            return []
        found = []
        for seat in room["game"].get("awaiting", ()):
            player = self.by_seat.get(seat)
            if (
                player is not None
                and player.connected
                and player not in self.busy
                and self.seen > self.acted_at.get(player, -1)
                # the observer's own state is what `seen` is (and is read before its history grows)
                and not (self.spans and player is not self.observer and player.behind(self.seen))
            ):
                found.append(player)
        return found

    def fire(self) -> None:
        """Start the moves that are due: every awaited seat (max), or one per paced tick."""
        if self.mode == "stop":
            return
        if self.mode == "paced" and not self.ticks:
            return
        candidates = self.eligible()
        self.rng.shuffle(candidates)
        for player in candidates:
            if self.mode == "paced":
                if not self.ticks:
                    break
                self.ticks -= 1
            self.busy.add(player)
            player.legal_id = player.send({"type": "legal"})
            if time.monotonic() < self.window_end:
                self.figures.legal_sent += 1

    def tick(self) -> None:
        if self.mode != "paced":
            return
        self.ticks += 1
        self.figures.backlog = max(self.figures.backlog, self.ticks)
        self.fire()
        self.timer = asyncio.get_running_loop().call_later(self.gap(), self.tick)

    def gap(self) -> float:
        if self.uniform:
            return self.rng.uniform(0, 2 * self.mean_gap)
        return self.rng.expovariate(1 / self.mean_gap)

    # --- a player's move
    def on_legal(self, player: Player, actions: list[dict[str, Any]]) -> None:
        if not actions or self.mode == "stop":
            if not actions:
                self.figures.stale += 1
            self.done(player)
            return
        action = self.rng.choice(actions)
        if action.get("type") in ("tell", "blind_clue") and not action.get("clue"):
            action["clue"] = self.rng.choice(CLUES)
        player.act_sent = time.monotonic()
        player.act_id = player.send({"type": "act", "action": action})
        if self.window_start <= player.act_sent < self.window_end:
            self.figures.acts_sent += 1

    def on_ack(self, player: Player, seq: int, now: float) -> None:
        if self.window_start <= now < self.window_end:
            self.figures.actions += 1
            self.figures.acked_by[player.url] += 1
        self.acted_at[player] = seq
        pending = Pending(seq, player.act_sent, self.window_start <= player.act_sent < self.window_end)
        for other in self.players:
            if not other.connected:
                continue
            # the first state past ``seq`` it got, if any: near the end of its history (which a
            # connection's rising seqs keep in order), so it is searched from there
            first = None
            for seen_seq, when in reversed(other.history):
                if seen_seq <= seq:
                    break
                first = when
            if first is None:
                pending.waiting.add(other)
            else:
                pending.latest = max(pending.latest, first)
        if pending.waiting:
            self.pending.append(pending)
        else:
            self.finish(pending)
        self.done(player)

    def done(self, player: Player) -> None:
        self.busy.discard(player)
        self.fire()

    # --- updates reaching the players
    def on_state(self, player: Player, seq: int, now: float) -> None:
        if not self.pending:
            return
        finished = []
        for pending in self.pending:
            if seq > pending.seq and player in pending.waiting:
                pending.waiting.discard(player)
                pending.latest = max(pending.latest, now)
                if not pending.waiting:
                    finished.append(pending)
        for pending in finished:
            self.pending.remove(pending)
            self.finish(pending)

    def finish(self, pending: Pending) -> None:
        if pending.counted:
            self.figures.latencies.append((pending.latest - pending.sent) * 1000)

    def on_leave(self, player: Player) -> None:
        self.busy.discard(player)
        for pending in list(self.pending):
            pending.waiting.discard(player)
            if not pending.waiting:
                self.pending.remove(pending)
                self.finish(pending)

    # --- phases
    def begin(self, mode: str, think: float, uniform: bool, window: tuple[float, float]) -> None:
        self.mode = mode
        self.window_start, self.window_end = window
        self.ticks = 0
        if mode == "paced":
            self.mean_gap = think / len(self.players)
            self.uniform = uniform
            self.timer = asyncio.get_running_loop().call_later(self.gap(), self.tick)
        else:
            self.fire()

    def halt(self) -> None:
        self.mode = "stop"
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


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
        loop = asyncio.get_running_loop()
        gate = asyncio.Semaphore(concurrency)
        failures: Counter[str] = Counter()

        async def one(player: Player) -> None:
            if self.client == "fabula":
                async with gate:
                    await one_client(player)
                return
            async with gate:
                path = f"/ws/{player.table.code}"
                parts = urlsplit(player.url)
                try:
                    _, socket = await loop.create_connection(
                        lambda: WebSocketClient(parts.netloc, path, self.deflate, player.on_message, player.on_close),
                        parts.hostname or "127.0.0.1",
                        parts.port or 80,
                    )
                    await asyncio.wait_for(socket.opened, 30)
                except (OSError, TimeoutError, ConnectionError) as error:
                    failures[type(error).__name__] += 1
                    return
                player.socket = socket
                player.connected = True
                socket.send_text(encode_json({"type": "hello", "id": next(player.ids), "token": player.token}))
                deadline = loop.time() + 30
                while not (player.greeted and player.history) and loop.time() < deadline and player.connected:
                    await asyncio.sleep(0.01)
                if not player.greeted:
                    failures["no_welcome"] += 1

        async def one_client(player: Player) -> None:
            client = Client(
                player.url, player.table.code, player.token, ids=player.ids, history=16, on_message=player.on_received
            )
            try:
                reply = await client.connect(timeout=30)
            except (OSError, TimeoutError, ConnectionError, websockets.WebSocketException) as error:
                failures[type(error).__name__] += 1
                return
            player.client = client
            player.connected = True
            if not isinstance(reply, Welcome):
                failures["no_welcome"] += 1

        started = time.monotonic()
        await asyncio.gather(*(one(player) for player in self.players()))
        return {
            "connected": sum(player.connected and player.greeted for player in self.players()),
            "failures": dict(failures),
            "seconds": time.monotonic() - started,
            "deflate": any(p.socket is not None and p.socket.inflater is not None for p in self.players())
            or (self.client == "fabula" and self.deflate),
        }

    async def start_games(self) -> dict[str, Any]:
        for table in self.tables:
            if table.room is None or table.room.get("status") == "lobby":
                table.observer.send({"type": "start"})
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
            if player.socket is not None:
                player.socket.close()
            if player.client is not None:
                await player.client.close()
                player.connected = False
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(p.connected for p in self.players()):
            await asyncio.sleep(0.05)
        for player in self.players():
            if player.socket is not None and player.socket.transport is not None:
                player.socket.transport.close()


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


# ---------------------------------------------------------------------------------------------
# the main process: servers, phases, figures


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
        with contextlib.suppress(Exception):
            self.ask("close", timeout=30)
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()


def percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * fraction))]


def settle(pids: Sequence[int], seconds: float) -> list[float] | None:
    """Resident memory of each of ``pids`` once it stopped moving (the smallest of a few readings)."""
    if not pids:
        return None
    time.sleep(seconds)
    readings: list[list[float]] = [[] for _ in pids]
    for _ in range(3):
        for found, pid in zip(readings, pids, strict=True):
            found.append(rss_mib(pid))
        time.sleep(0.2)
    return [min(found) for found in readings]


@dataclass
class Run:
    """What one server measured: every figure, for printing and for --json."""

    target: str
    players: int
    rooms: int
    figures: dict[str, Any] = field(default_factory=dict)


def measure(args: argparse.Namespace, target: str, phases: list[str], sample: Path | None = None) -> Run:
    cpus = sorted(os.sched_getaffinity(0))
    pin = args.pin and len(cpus) >= 2 and not args.spread
    server_cpus = {cpus[0]} if pin else None
    generator_cpus = set(cpus[1:]) if pin else None
    if args.server:
        servers = [Server(url.rstrip("/"), None, name="given") for url in args.server]
        pids = list(args.server_pid or [])
    elif target == "fabula":
        servers = start_fabulas(args, server_cpus)
        pids = [server.pid for server in servers if server.pid is not None]
    else:
        servers = [start_transport(sample, server_cpus)]
        pids = [server.pid for server in servers if server.pid is not None]
    urls = [server.url for server in servers]
    several = len(urls) > 1 or len(pids) > 1
    backends = target == "fabula" and not args.server and bool(args.database or args.redis)
    backends = backends and is_local(args.database) and is_local(args.redis)
    run = Run(target, args.rooms * args.players, args.rooms)
    out = run.figures
    generators: Generators | None = None
    pid = pids[0] if pids else None
    try:
        if not several:
            print(f"\n== {target} at {urls[0]} (pid {pid}) — {args.rooms} rooms × {args.players} players", flush=True)
        else:
            print(
                f"\n== {target} at {', '.join(urls)} (pids {', '.join(map(str, pids)) or 'not given'}) — "
                f"{args.rooms} rooms × {args.players} players"
                + (
                    (
                        f", each room's players split round-robin over the {len(urls)} servers"
                        if args.split == "player"
                        else f", each room's players all on one of the {len(urls)} servers (rooms split round-robin)"
                    )
                    if len(urls) > 1
                    else ""
                ),
                flush=True,
            )
        if pid is not None and not several:
            out["server_nofile"] = nofile_of(pid)
            out["server_cpus"] = sorted(os.sched_getaffinity(pid))
            print(
                f"   server: RLIMIT_NOFILE {out['server_nofile']}, CPUs {out['server_cpus']}; "
                f"generator CPUs {sorted(generator_cpus) if generator_cpus else cpus}",
                flush=True,
            )
        elif several:
            out["server_pids"] = pids
            out["server_urls"] = urls
            out["server_nofile"] = [nofile_of(p) for p in pids]
            out["server_cpus"] = [sorted(os.sched_getaffinity(p)) for p in pids]
            for p, nofile, allowed in zip(pids, out["server_nofile"], out["server_cpus"], strict=True):
                print(f"   server pid {p}: RLIMIT_NOFILE {nofile}, CPUs {allowed}", flush=True)
            if args.server:
                pinning = "the given servers as they are (CPUs above); the generator " + (
                    f"on CPUs {sorted(generator_cpus)}" if generator_cpus else "not pinned"
                )
            elif args.spread:
                pinning = (
                    "each server process on a CPU of its own (--spread: server k on CPU k, round the CPUs); "
                    "the generator, PostgreSQL and Redis not pinned: they share every CPU with the servers"
                )
            elif pin:
                pinning = (
                    f"all {len(pids)} server processes on CPU {cpus[0]}, sharing that one core; "
                    f"the generator on CPUs {sorted(generator_cpus or ())}"
                )
            else:
                pinning = "nothing pinned (--no-pin): servers and generator share every CPU"
            print(f"   pinning: {pinning}", flush=True)
        out["generator_cpus"] = sorted(generator_cpus) if generator_cpus else cpus
        if backends:
            print(
                "   PostgreSQL and Redis: local, not pinned; their CPU (every process named "
                f"{' or '.join(BACKENDS)}) is measured apart",
                flush=True,
            )
        idle = "idle" in phases
        readings: dict[str, list[float]] = {}

        def memory(key: str) -> None:
            found = settle(pids, args.settle)
            out[key] = None if found is None else sum(found)
            if found is not None and several:
                readings[key] = found

        if idle:
            memory("rss_empty")
        started = time.monotonic()
        plans = asyncio.run(take_seats(urls, args.rooms, args.players, split=args.split))
        out["seats_seconds"] = time.monotonic() - started
        if idle:
            memory("rss_seated")
        generators = Generators(plans, args.workers, args.deflate, generator_cpus, args.client)
        connected = generators.ask("connect")
        out["connected"] = sum(c["connected"] for c in connected)
        out["connect_failures"] = dict(sum((Counter(c["failures"]) for c in connected), Counter()))
        out["connect_seconds"] = max(c["seconds"] for c in connected)
        out["deflate"] = any(c["deflate"] for c in connected)
        print(
            f"   {out['connected']} players connected in {out['connect_seconds']:.1f} s "
            f"(seats over HTTP in {out['seats_seconds']:.1f} s; permessage-deflate "
            f"{'on' if out['deflate'] else 'off'})"
            + (f"; failed: {out['connect_failures']}" if out["connect_failures"] else ""),
            flush=True,
        )
        if idle:
            memory("rss_connected")
        playing = sum(g["playing"] for g in generators.ask("start"))
        out["games_started"] = playing
        if idle:
            memory("rss_playing")
            report_idle(out, args.rooms, out["connected"])
            if readings:
                out["rss_each"] = readings
                for index, p in enumerate(pids):
                    print(
                        f"     pid {p}: "
                        + " → ".join(
                            f"{readings[key][index]:.1f}"
                            for key in ("rss_empty", "rss_seated", "rss_connected", "rss_playing")
                        )
                        + " MiB",
                        flush=True,
                    )
        for phase in ("paced", "max"):
            if phase not in phases:
                continue
            spec = PhaseSpec(
                phase, args.think, args.jitter == "uniform", time.monotonic() + 0.5, args.warmup, args.duration
            )
            out[phase] = run_phase(
                generators,
                spec,
                pids,
                signal_window=args.signal_window,
                counting=[server.folder for server in servers if server.folder] if args.callgrind else None,
                backends=backends,
                urls=urls if len(urls) > 1 else None,
            )
            report_phase(phase, out[phase], args)
    finally:
        if generators is not None:
            generators.close()
        stop_servers(servers)
    return run


def run_phase(
    generators: Generators,
    spec: PhaseSpec,
    pids: Sequence[int],
    *,
    signal_window: bool = False,
    counting: Sequence[Path] | None = None,
    backends: bool = False,
    urls: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One phase; CPU and memory of the server processes ``pids`` (summed, and each one's when
    several), of the local PostgreSQL and Redis if ``backends``; actions by server if ``urls``;
    with ``counting`` (the servers' folders, `--callgrind`), the instructions they ran in the window."""
    pids = list(pids)
    pipes = generators.pipes
    if counting:
        callgrind_control(pids, "--instr=on")
    for pipe in pipes:
        pipe.send(("run", spec))
    window_start = spec.start + spec.warmup
    window_end = window_start + spec.duration
    time.sleep(max(0.0, window_start - time.monotonic()))
    if signal_window:
        for pid in pids:
            os.kill(pid, signal.SIGUSR1)
    if counting:
        callgrind_control(pids, "--zero")
    cpu_start = [cpu_seconds(pid) for pid in pids]
    backend_start = backend_cpu() if backends else {}
    machine_start = cpu_times()
    ours_start = sum(cpu_seconds(p) for p in generators.pids()) + time.process_time()
    rss_peak = [0.0 for _ in pids]
    while time.monotonic() < window_end:
        time.sleep(min(1.0, max(0.0, window_end - time.monotonic())))
        rss_peak = [max(peak, rss_mib(pid)) for peak, pid in zip(rss_peak, pids, strict=True)]
    cpu_used = [cpu_seconds(pid) - start for pid, start in zip(pids, cpu_start, strict=True)]
    if counting:
        callgrind_control(pids, "--dump=window")
    backend_end = backend_cpu() if backends else {}
    machine_end = cpu_times()
    ours = sum(cpu_seconds(p) for p in generators.pids()) + time.process_time() - ours_start
    machine = cpu_usage(machine_start, machine_end)
    busy = sum(
        sum(end) - end[3] - end[4] - (sum(start) - start[3] - start[4])
        for start, end in zip(machine_start.values(), machine_end.values(), strict=True)
    ) / os.sysconf("SC_CLK_TCK")
    # a backend process born in the window (a new PostgreSQL connection) counts whole
    backend_used = sum(used - backend_start.get(pid, 0.0) for pid, used in backend_end.items())
    if signal_window:
        for pid in pids:
            os.kill(pid, signal.SIGUSR2)
    answers = []
    for pipe in pipes:
        if not pipe.poll(spec.drain + 120):
            raise RuntimeError("a generator did not finish its phase")
        answers.append(pipe.recv())
    latencies = sorted(value for answer in answers for value in answer["latencies"])
    errors = sum((Counter(answer["errors"]) for answer in answers), Counter())
    actions = sum(answer["actions"] for answer in answers)
    states = sum(answer["states"] for answer in answers)
    figures: dict[str, Any] = {
        "mode": spec.mode,
        "think": spec.think if spec.mode == "paced" else None,
        "seconds": spec.duration,
        "connected": sum(answer["connected"] for answer in answers),
        "actions": actions,
        "actions_per_second": actions / spec.duration,
        "acts_sent": sum(answer["acts_sent"] for answer in answers),
        "stale_legal": sum(answer["stale"] for answer in answers),
        "rematches": sum(answer["rematches"] for answer in answers),
        "latency_samples": len(latencies),
        "p50_ms": percentile(latencies, 0.50),
        "p95_ms": percentile(latencies, 0.95),
        "p99_ms": percentile(latencies, 0.99),
        "max_ms": latencies[-1] if latencies else float("nan"),
        "mean_ms": statistics.fmean(latencies) if latencies else float("nan"),
        "errors": dict(errors),
        "states_per_second": states / spec.duration,
        "messages_per_second": sum(answer["messages"] for answer in answers) / spec.duration,
        "state_bytes_mean": sum(answer["state_bytes"] for answer in answers) / states if states else 0.0,
        "backlog": max(answer["backlog"] for answer in answers),
        "generator_cpu_percent": [100 * answer["cpu"] / spec.duration for answer in answers],
        "generator_lag_p99_ms": max(answer["lag_p99"] for answer in answers),
        "generator_lag_max_ms": max(answer["lag_max"] for answer in answers),
        "sample": next((answer["sample"] for answer in answers if answer["sample"]), None),
        "cpus": machine,
        # busy CPU time that was neither the server's nor the load's: other work on the machine
        "others_cpu_percent": None if not pids else 100 * (busy - ours - sum(cpu_used) - backend_used) / spec.duration,
    }
    if counting:
        callgrind_control(pids, "--instr=off")
        counted = [instructions_counted(folder) for folder in counting]
        figures["server_instructions"] = counted
        if actions:
            figures["server_instructions_per_action"] = sum(counted) / actions
    if pids:
        rss_now = [rss_mib(pid) for pid in pids]
        figures["server_cpu_percent"] = 100 * sum(cpu_used) / spec.duration
        figures["server_rss_mib"] = sum(rss_now)
        figures["server_rss_peak_mib"] = sum(rss_peak)  # with several: the sum of each one's peak
        if actions:
            figures["server_cpu_us_per_action"] = 1e6 * sum(cpu_used) / actions
        if len(pids) > 1:
            figures["servers"] = [
                {"pid": pid, "cpu_percent": 100 * used / spec.duration, "rss_mib": now, "rss_peak_mib": peak}
                for pid, used, now, peak in zip(pids, cpu_used, rss_now, rss_peak, strict=True)
            ]
    if backends:
        figures["backends_cpu_percent"] = 100 * backend_used / spec.duration
        if actions:
            figures["backends_cpu_us_per_action"] = 1e6 * backend_used / actions
    if urls is not None:
        acked_by = sum((Counter(answer["acked_by"]) for answer in answers), Counter())
        figures["actions_by_server"] = {url: acked_by.get(url, 0) for url in urls}
    return figures


def report_idle(out: dict[str, Any], rooms: int, players: int) -> None:
    empty, seated, connected, playing = (
        out.get(k) for k in ("rss_empty", "rss_seated", "rss_connected", "rss_playing")
    )
    if empty is None or seated is None or connected is None or playing is None or not players:
        print("   (no server pid: resident memory not measured)")
        return
    out["kib_per_idle_player"] = 1024 * (connected - seated) / players
    out["kib_per_seated_room"] = 1024 * (seated - empty) / rooms
    out["kib_per_started_game"] = 1024 * (playing - connected) / rooms
    print(
        f"   resident memory: {empty:.1f} MiB empty → {seated:.1f} with {rooms} rooms seated → "
        f"{connected:.1f} with {players} players connected and idle → {playing:.1f} with the games started"
    )
    print(
        f"   idle connected player: {out['kib_per_idle_player']:.1f} KiB each; a seated room "
        f"{out['kib_per_seated_room']:.1f} KiB; a started game {out['kib_per_started_game']:.1f} KiB",
        flush=True,
    )


def report_phase(phase: str, f: dict[str, Any], args: argparse.Namespace) -> None:
    pace = (
        f"think {args.think:g} s ({args.jitter}): {f['connected'] / args.think:.0f} actions/s offered"
        if phase == "paced"
        else "as fast as possible"
    )
    errors = ", ".join(f"{code} {n}" for code, n in sorted(f["errors"].items())) or "none"
    generator = " + ".join(f"{cpu:.0f}%" for cpu in f["generator_cpu_percent"])
    print(f" - {phase}: {pace}, {f['seconds']:g} s window after {args.warmup:g} s warm-up")
    print(
        f"   {f['connected']} players connected; {f['actions_per_second']:.1f} actions/s sustained "
        f"({f['actions']} acked; {f['stale_legal']} stale 'legal'; {f['rematches']} rematches)"
    )
    print(
        f"   latency act → last player's update: p50 {f['p50_ms']:.1f} ms, p95 {f['p95_ms']:.1f}, "
        f"p99 {f['p99_ms']:.1f}, max {f['max_ms']:.1f} ({f['latency_samples']} samples)"
    )
    print(f"   errors (warm-up, window and drain): {errors}")
    if "server_cpu_percent" in f:
        per_action = f.get("server_cpu_us_per_action")
        several = f.get("servers")
        print(
            (
                f"   servers ({len(several)} processes together): CPU {f['server_cpu_percent']:.0f}% of a core"
                if several
                else f"   server: CPU {f['server_cpu_percent']:.0f}% of one core"
            )
            + (f" ({per_action:.0f} µs per action)" if per_action else "")
            + f", resident {f['server_rss_mib']:.1f} MiB "
            + ("(sum of each one's peak" if several else "(peak")
            + f" {f['server_rss_peak_mib']:.1f})"
        )
        for one in several or ():
            print(
                f"     pid {one['pid']}: CPU {one['cpu_percent']:.0f}%, resident {one['rss_mib']:.1f} MiB "
                f"(peak {one['rss_peak_mib']:.1f})"
            )
    if "server_instructions" in f:
        counted = f["server_instructions"]
        print(
            f"   instructions the server{'s' if len(counted) > 1 else ''} ran in the window (callgrind): "
            f"{sum(counted):,}"
            + (f" ({' + '.join(f'{n:,}' for n in counted)})" if len(counted) > 1 else "")
            + (f", {per:,.0f} per action" if (per := f.get("server_instructions_per_action")) else "")
        )
    if "actions_by_server" in f:
        print(
            "   actions acked, by the server the acting player is connected to: "
            + ", ".join(f"{url} {n}" for url, n in f["actions_by_server"].items())
        )
    if "backends_cpu_percent" in f:
        per_action = f.get("backends_cpu_us_per_action")
        print(
            f"   PostgreSQL + Redis: CPU {f['backends_cpu_percent']:.0f}% of a core"
            + (f" ({per_action:.0f} µs per action)" if per_action else "")
        )
    print(
        f"   generator: CPU {generator} of a core, loop lag p99 {f['generator_lag_p99_ms']:.1f} ms "
        f"(max {f['generator_lag_max_ms']:.1f}); received {f['messages_per_second']:.0f} messages/s, "
        f"{f['states_per_second']:.0f} states/s of {f['state_bytes_mean']:.0f} bytes"
    )
    print(
        "   machine: "
        + ", ".join(
            f"CPU {cpu} {use['busy']:.0f}% busy ({use['softirq']:.0f}% softirq)" for cpu, use in f["cpus"].items()
        )
        + ("" if f["others_cpu_percent"] is None else f"; other processes {f['others_cpu_percent']:.0f}% of a core")
    )
    if f["others_cpu_percent"] is not None and f["others_cpu_percent"] > 10:
        print("   ! other work on this machine competed for the CPUs during the window: figures are low and noisy")
    if any(cpu > 85 for cpu in f["generator_cpu_percent"]):
        print("   ! the generator is (near) saturated: this figure is bounded by the generator, not the server")
    print(flush=True)


def ceiling_lines(run: Run) -> list[str]:
    out, lines = run.figures, []
    for phase in ("paced", "max"):
        if found := out.get(phase):
            lines.append(
                f"{phase}: {found['actions_per_second']:.0f} actions/s with {found['connected']:,} connections, "
                f"p99 {found['p99_ms']:.0f} ms, server CPU {found.get('server_cpu_percent', float('nan')):.0f}% "
                f"of a core ({found.get('server_cpu_us_per_action', float('nan')):.0f} µs per action)"
            )
    if "kib_per_idle_player" in out:
        lines.append(f"resident memory per idle connection: {out['kib_per_idle_player']:.1f} KiB")
    return lines


def verdict(ok: bool) -> str:
    return "MET" if ok else "not met"


def verdicts(fabula: Run, ceilings: list[Run], args: argparse.Namespace) -> list[str]:
    lines = []
    out = fabula.figures
    paced = out.get("paced")
    if paced:
        players = paced["connected"]
        ok = (
            players >= TARGET_PLAYERS
            and paced["p99_ms"] <= TARGET_P99_MS
            and not paced["errors"]
            and args.think >= 10
            and args.players == 6
        )
        lines.append(
            f"{players:,} players, think {args.think:g} s: p99 {paced['p99_ms']:.0f} ms, "
            f"{sum(paced['errors'].values())} errors — target ≥ {TARGET_PLAYERS:,} players, six a room, one action "
            f"per 10 s, p99 ≤ {TARGET_P99_MS:.0f} ms, no errors: "
            + (verdict(ok) if players >= TARGET_PLAYERS else "not tested at this scale (--rooms 834)")
        )
    top = out.get("max")
    if top:
        ok = top["actions_per_second"] >= TARGET_ACTIONS and fabula.players >= TARGET_PLAYERS
        lines.append(
            f"max {top['actions_per_second']:.0f} actions/s with {top['connected']:,} players connected "
            + (f"({len(top['servers'])} servers' CPU together " if top.get("servers") else "(server CPU ")
            + f"{top.get('server_cpu_percent', float('nan')):.0f}% of a core) — target ≥ "
            f"{TARGET_ACTIONS:,.0f} at full load ({TARGET_PLAYERS:,} players): "
            + (verdict(ok) if fabula.players >= TARGET_PLAYERS else "not tested at this scale (--rooms 834)")
        )
        for ceiling in ceilings:
            bare = ceiling.figures.get("max")
            if not bare:
                continue
            ratio = top["actions_per_second"] / bare["actions_per_second"] if bare["actions_per_second"] else 0.0
            lines.append(
                f"ceiling ({ceiling.target}): {bare['actions_per_second']:.0f} actions/s, Fabula reaches "
                f"{ratio:.2f} of it"
                + (f" (Fabula on {args.servers} processes, the transport on one)" if args.servers > 1 else "")
                + f" — target ≥ {TARGET_RATIO}: {verdict(ratio >= TARGET_RATIO)}"
                + (
                    " (the generator was near saturation on the ceiling: the ratio is an upper bound)"
                    if any(c > 85 for c in bare["generator_cpu_percent"])
                    else ""
                )
            )
    if "kib_per_idle_player" in out:
        lines.append(f"resident memory per idle connected player: {out['kib_per_idle_player']:.1f} KiB")
    return lines


#: Issue 19: one process over PostgreSQL + Redis does at least this share of the SQLite maximum.
TARGET_VERSUS_SQLITE = 0.70
#: Issue 19: paced over PostgreSQL + Redis, the p99 latency held.
TARGET_SCALE_OUT_P99_MS = 200.0


def versus_sqlite(sqlite: Run, scaled: Run, args: argparse.Namespace) -> list[str]:
    """The scale-out backends against SQLite, both measured in this run (``--versus-sqlite``)."""
    backends = "PostgreSQL + Redis" if args.redis else "PostgreSQL"
    where = f"{args.servers} processes" if args.servers > 1 else "one process"
    lines = []
    base, top = sqlite.figures.get("max"), scaled.figures.get("max")
    if base and top:
        ratio = top["actions_per_second"] / base["actions_per_second"] if base["actions_per_second"] else 0.0
        cpu = (top.get("server_cpu_us_per_action") or 0.0) / (base.get("server_cpu_us_per_action") or 1.0)
        lines.append(
            f"max, {top['connected']:,} players: {backends} on {where} {top['actions_per_second']:.0f} actions/s "
            f"against SQLite {base['actions_per_second']:.0f}: {ratio:.2f} (Fabula CPU per action {cpu:.2f}×) — "
            f"target ≥ {TARGET_VERSUS_SQLITE:.2f} on one process: "
            + (verdict(ratio >= TARGET_VERSUS_SQLITE) if args.servers == 1 else "(not one process)")
        )
    paced = scaled.figures.get("paced")
    if paced:
        ok = paced["p99_ms"] <= TARGET_SCALE_OUT_P99_MS and not paced["errors"]
        lines.append(
            f"paced over {backends}, {paced['connected']:,} players: {paced['actions_per_second']:.0f} actions/s, "
            f"p99 {paced['p99_ms']:.0f} ms, {sum(paced['errors'].values())} errors (SQLite: p99 "
            f"{sqlite.figures.get('paced', {}).get('p99_ms', float('nan')):.0f} ms) — target p99 ≤ "
            f"{TARGET_SCALE_OUT_P99_MS:.0f} ms, no errors: {verdict(ok)}"
        )
    return lines


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--server",
        action="append",
        metavar="URL",
        help="the URL of a running server to load (default: start one); repeat it for several processes of "
        "one deployment: each room's players are split round-robin over them",
    )
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        metavar="PID",
        help="with --server: its process id, for CPU and memory; repeat it for several (summed, and shown each)",
    )
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        metavar="N",
        help="start N fabula serve processes over --database and --redis (one schema and namespace, dropped "
        "afterwards) and split each room's players round-robin over them (default 1)",
    )
    parser.add_argument("--target", choices=("fabula", "transport"), default="fabula", help="the server to start")
    parser.add_argument("--rooms", type=int, default=100, help="rooms (default 100)")
    parser.add_argument("--players", type=int, default=6, help="players a room (default 6)")
    parser.add_argument("--phases", default="idle,paced,max", help="of idle,paced,max (default all three)")
    parser.add_argument("--think", type=float, default=10.0, help="paced: mean seconds between a player's actions")
    parser.add_argument("--jitter", choices=("exp", "uniform"), default="exp", help="paced: gaps exponential/uniform")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured per phase (default 20)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of load before the window (default 5)")
    parser.add_argument("--workers", type=int, default=1, help="generator processes (default 1)")
    parser.add_argument(
        "--settle", type=float, default=3.0, help="idle: seconds to wait before reading memory (default 3)"
    )
    parser.add_argument(
        "--ceiling",
        choices=("none", "echo", "sample", "both"),
        default="sample",
        help="then the bare transport's max: echo the action, or with a real Fabula state (default sample)",
    )
    parser.add_argument(
        "--client",
        choices=("lean", "fabula"),
        default="lean",
        help="the generator's players: the lean framing below, or fabula.client (default lean)",
    )
    parser.add_argument(
        "--deflate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="offer permessage-deflate, as browsers do (default on)",
    )
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="pin the started server(s) to one core, all together, and the generator to the others (default on)",
    )
    parser.add_argument(
        "--spread",
        action="store_true",
        help="with several started servers: pin each to a CPU of its own (server k on CPU k), and not the "
        "generator (instead of --pin's all servers on one core)",
    )
    parser.add_argument("--durability", choices=("process", "power"), default="process")
    parser.add_argument(
        "--database", help="start fabula serve with --database URL (a schema of its own, dropped afterwards)"
    )
    parser.add_argument("--redis", help="and with --redis URL: every entry announced as with several processes")
    parser.add_argument("--server-log-level", default="info", help="fabula serve --log-level (default info)")
    parser.add_argument(
        "--signal-window",
        action="store_true",
        help="send the server SIGUSR1 when a window opens and SIGUSR2 when it closes (for a profiler in it)",
    )
    parser.add_argument(
        "--split",
        choices=("player", "room"),
        default="player",
        help="with several servers: each room's players round-robin over them (player, the default), "
        "or each room on one of them (room, as nginx's room hash does)",
    )
    parser.add_argument(
        "--versus-sqlite",
        action="store_true",
        help="with --database: first the same phases on one process over SQLite, then the ratio (issue 19)",
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="run the started servers under valgrind's callgrind and count the instructions they run in each "
        "window (repeatable where CPU time is not; the servers run some 50 times slower: keep the load light)",
    )
    parser.add_argument("--json", action="store_true", help="also print every figure as JSON")
    args = parser.parse_args(argv)
    args.phases = [phase.strip() for phase in args.phases.split(",") if phase.strip()]
    if unknown := set(args.phases) - {"idle", "paced", "max"}:
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
    if args.servers < 1:
        parser.error("--servers must be at least 1")
    if args.callgrind and (args.server or args.target != "fabula"):
        parser.error("--callgrind counts the fabula serve processes it starts: not with --server or --target")
    if args.servers > 1:
        if args.server:
            parser.error("--servers starts the servers itself: give it or --server URL …, not both")
        if args.target != "fabula":
            parser.error("--servers is for fabula serve only")
        if not (args.database and args.redis):
            parser.error("--servers N > 1 needs --database and --redis: several processes share their rooms there")
    if args.server_pid and not args.server:
        parser.error("--server-pid goes with --server")
    if args.versus_sqlite and not (args.database and args.target == "fabula" and not args.server):
        parser.error("--versus-sqlite compares the fabula serve it starts with --database against SQLite")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    phases: list[str] = args.phases
    soft, hard = raise_nofile()
    need = args.rooms * args.players + 100
    print(
        f"load: {os.cpu_count()} CPUs; RLIMIT_NOFILE raised to {soft} (hard {hard}) here and in the processes "
        f"started; {need:,} descriptors needed on each side",
        flush=True,
    )
    if soft < need:
        sys.exit(f"RLIMIT_NOFILE {soft} < {need}: raise the hard limit (ulimit -Hn) or run fewer players")
    sqlite: Run | None = None
    if args.versus_sqlite:  # the same load on the default backend first, in the same run
        sqlite = measure(
            argparse.Namespace(**{**vars(args), "database": None, "redis": None, "servers": 1}), "fabula", phases
        )
    runs = [measure(args, args.target, phases)]
    ceilings: list[Run] = []
    top = runs[0].figures.get("max")
    if args.target == "fabula" and not args.server and args.ceiling != "none" and top:
        kinds = ["echo", "sample"] if args.ceiling == "both" else [args.ceiling]
        for kind in kinds:
            sample_path: Path | None = None
            if kind == "sample" and top.get("sample"):
                sample_path = Path(tempfile.mkdtemp(prefix="fabula-sample-")) / "state.json"
                sample_path.write_text(json.dumps(top["sample"]))
            try:
                ceiling = measure(args, "transport", ["max"], sample_path)
            finally:
                if sample_path is not None:
                    shutil.rmtree(sample_path.parent, ignore_errors=True)
            ceiling.target = f"transport/{kind}"
            ceilings.append(ceiling)
    print("== verdicts" if args.target == "fabula" else "== the bare transport")
    for line in verdicts(runs[0], ceilings, args) if args.target == "fabula" else ceiling_lines(runs[0]):
        print(f" - {line}")
    if sqlite is not None:
        for line in versus_sqlite(sqlite, runs[0], args):
            print(f" - {line}")
        runs.insert(0, sqlite)
    if args.json:
        for run in runs + ceilings:
            for phase in ("paced", "max"):
                run.figures.get(phase, {}).pop("sample", None)
        print(json.dumps([run.__dict__ for run in runs + ceilings], indent=2, default=str))


if __name__ == "__main__":
    main()
