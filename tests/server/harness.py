"""A live Fabula server on a free port (in a thread of the test process) and a WebSocket client
that records every message it receives — what the server tests drive games with."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection

import fabula.client
from fabula.client import REPLY_TYPES, Received
from fabula.protocol import Language
from fabula.protocol.audience import AudienceHello
from fabula.server.app import create_app
from fabula.server.config import Config
from fabula.server.local import ServerThread


class LiveServer(ServerThread):
    """A Fabula server for ``config`` on a free port, in a thread of the test process."""

    def __init__(self, config: Config) -> None:
        self.config = config
        super().__init__(create_app(config), shared_compression=config.compression == "shared")

    def shift_clock(self, seconds: float) -> None:
        """Move the server's clock forward and let every room re-plan (timers, absent players)."""
        service = self.service
        current = service.clock
        service.clock = lambda: current() + seconds

        def wake_all() -> None:
            for live in service.rooms.held.values():
                live.wake.set()

        self.loop.call_soon_threadsafe(wake_all)

    @property
    def service(self) -> Any:
        return self.app.state.service


@contextmanager
def live_server(data: Path, **settings: Any) -> Iterator[LiveServer]:
    config = replace(Config(data=data, bot_delay_seconds=0.0, bot_reveal_seconds=0.0, sweep_seconds=3600), **settings)
    server = LiveServer(config)
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Client:
    """One WebSocket connection that sends messages with fresh ids and keeps every message received,
    as JSON objects: `fabula.client.Client` with the tests' dictionaries (messages are sent as
    written, so a test may send what the typed messages would not allow)."""

    def __init__(
        self,
        server_url: str,
        code: str,
        token: str | None,
        language: Language | None = None,
        audience: AudienceHello | None = None,
    ) -> None:
        self.server_url, self.code, self.token = server_url, code, token
        #: the language said in hello, as the web client says its own (None: not said)
        self.language = language
        self.received: list[dict[str, Any]] = []
        self.raw: list[str] = []
        # ids unique across Client objects: a reconnecting client must not reuse an earlier one's
        prefix = secrets.token_hex(3)
        ids = (f"{prefix}-m{n}" for n in itertools.count())
        self.connection = fabula.client.Client(
            server_url, code, token, language=language, ids=ids, on_message=self._keep, audience=audience
        )

    def _keep(self, received: Received) -> None:
        self.raw.append(received.text)
        self.received.append(received.data)

    @property
    def room(self) -> dict[str, Any] | None:
        return self.connection.room

    @property
    def socket(self) -> ClientConnection | None:
        return self.connection.socket

    @property
    def _ids(self) -> Iterator[str]:
        return self.connection.ids

    @_ids.setter
    def _ids(self, ids: Iterator[str]) -> None:
        self.connection.ids = ids

    async def connect_only(self, **headers: str) -> None:
        """Open the connection without saying hello."""
        self.connection.headers = headers
        await self.connection.open()

    async def connect(self, **headers: str) -> dict[str, Any]:
        """Open the connection and say hello; the welcome (after which the first state has come
        in too) or the error."""
        self.connection.headers = headers
        await self.connection.connect()
        assert self.connection.greeting is not None
        return self.connection.greeting.data

    async def send_raw(self, data: str | bytes) -> None:
        await self.connection.send_raw(data)

    async def request(
        self,
        message: dict[str, Any],
        reply_types: tuple[str, ...] = REPLY_TYPES,
        timeout: float = 10,
    ) -> dict[str, Any]:
        """Send ``message`` (given an id unless it has one) and wait for the reply naming that id."""
        message = {"id": self.connection.next_id(), **message}
        reply = await self.connection.request_raw(json.dumps(message), message["id"], reply_types, timeout)
        return reply.data

    async def wait_for(self, test: Callable[..., bool], start: int = 0, timeout: float = 10) -> dict[str, Any]:
        return (await self.connection.wait_for(lambda r: test(r.data), start, timeout)).data

    async def wait_state(self, test: Callable[..., bool], timeout: float = 10) -> dict[str, Any]:
        """The first state, from now or already received, for which ``test(room)`` holds."""
        return await self.connection.wait_state(test, timeout=timeout)

    async def close(self) -> None:
        await self.connection.close()


async def create_room(server_url: str, name: str = "Host", colour: str = "red", **settings: Any) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server_url) as http:
        response = await http.post("/api/rooms", json={"name": name, "colour": colour, "settings": settings})
    assert response.status_code == 201, response.text
    seat: dict[str, Any] = response.json()
    return seat


async def join_room(server_url: str, code: str, name: str, colour: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server_url) as http:
        return await http.post(f"/api/rooms/{code}/join", json={"name": name, "colour": colour})


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServeProcess:
    """`fabula serve` as a child process on a port of its own, with ``options`` (the scale-out
    tests run several on one database). Its output goes to ``log``."""

    def __init__(self, options: list[str], log: Path, *, ignore_interrupts: bool = False) -> None:
        self.options, self.log = options, log
        #: started as a shell script's background job is: with Ctrl+C's signal ignored
        self.ignore_interrupts = ignore_interrupts
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30) -> None:
        """Start it and wait until /healthz answers."""
        command = [sys.executable, "-m", "fabula.cli", "serve", "--port", str(self.port), *self.options]
        env = {name: value for name, value in os.environ.items() if not name.startswith("FABULA_")}
        env["PYTHONUNBUFFERED"] = "1"
        with self.log.open("ab") as out:
            if self.ignore_interrupts:  # (an ignored signal stays ignored across exec)
                command = ["sh", "-c", 'trap "" INT; exec "$@"', "sh", *command]
            self.proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        with httpx.Client(base_url=self.url, timeout=2) as http:
            while True:
                if self.proc.poll() is not None:
                    raise AssertionError(f"fabula serve exited with {self.proc.returncode}:\n{self.log_tail()}")
                try:
                    if http.get("/healthz").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"fabula serve did not answer /healthz:\n{self.log_tail()}")
                time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no goodbye to the store, the bus or anyone."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Stop it the way an operator would (SIGTERM), or kill it if it does not stop."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, lines: int = 30) -> str:
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    async def metrics(self) -> dict[str, float]:
        """The samples of its /metrics page, by name (labels included)."""
        async with httpx.AsyncClient(base_url=self.url, timeout=5) as http:
            text = (await http.get("/metrics")).text
        samples = [line.rsplit(" ", 1) for line in text.splitlines() if line and line[0] != "#"]
        return {name: float(value) for name, value in samples}


class Front:
    """A TCP load balancer in front of some servers (a thread of the test process): each new
    connection goes to the next server in turn that accepts it, as a load balancer skips a process
    that is down. A connection ends when either side closes it."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._next = itertools.count()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="front", daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    def start(self) -> None:
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the front did not start")

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        tasks: set[asyncio.Task[None]] = set()

        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.create_task(self._pass_on(reader, writer))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        server = await asyncio.start_server(accepted, "127.0.0.1", self.port)
        self._started.set()
        await self._stop.wait()
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _pass_on(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in self.ports:
            port = self.ports[next(self._next) % len(self.ports)]
            try:
                back_reader, back_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            break
        else:
            writer.close()
            return
        copies = [asyncio.create_task(_copy(reader, back_writer)), asyncio.create_task(_copy(back_reader, writer))]
        try:
            await asyncio.wait(copies, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for copy in copies:
                copy.cancel()
            for end in (writer, back_writer):
                end.close()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
