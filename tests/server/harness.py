"""A live Fabula server on a free port (in a thread of the test process) and a WebSocket client
that records every message it receives — what the server tests drive games with."""

from __future__ import annotations

import asyncio
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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets
from websockets.asyncio.client import ClientConnection

from fabula.server.app import create_app
from fabula.server.config import Config


class LiveServer:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.app = create_app(config)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # Nagle off
        listener.bind(("127.0.0.1", 0))
        self.port = listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", ws_max_size=1 << 20))
        self._listener = listener
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self.server.serve(sockets=[self._listener]))
        self.loop.close()

    def shift_clock(self, seconds: float) -> None:
        """Move the server's clock forward and let every room re-plan (timers, absent players)."""
        service = self.service
        current = service.clock
        service.clock = lambda: current() + seconds

        def wake_all() -> None:
            for live in service.rooms.held.values():
                live.wake.set()

        self.loop.call_soon_threadsafe(wake_all)

    def start(self) -> None:
        self._thread.start()
        for _ in range(500):
            if self.server.started:
                return
            threading.Event().wait(0.01)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(timeout=10)

    @property
    def service(self) -> Any:
        return self.app.state.service


@contextmanager
def live_server(data: Path, **settings: Any) -> Iterator[LiveServer]:
    config = replace(Config(data=data, bot_delay_seconds=0.0, sweep_seconds=3600), **settings)
    server = LiveServer(config)
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Client:
    """One WebSocket connection: sends messages with fresh ids, keeps every message received."""

    def __init__(self, server_url: str, code: str, token: str | None, language: str | None = None) -> None:
        self.server_url, self.code, self.token = server_url, code, token
        #: the language said in hello, as the web client says its own (None: not said)
        self.language = language
        self.received: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.room: dict[str, Any] | None = None
        self.socket: ClientConnection | None = None
        # ids unique across Client objects: a reconnecting client must not reuse an earlier one's
        prefix = secrets.token_hex(3)
        self._ids = (f"{prefix}-m{n}" for n in itertools.count())
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    async def connect_only(self, **headers: str) -> None:
        """Open the connection without saying hello."""
        ws_url = self.server_url.replace("http", "ws", 1) + f"/ws/{self.code}"
        self.socket = await websockets.connect(ws_url, additional_headers=headers or None, max_size=1 << 22)
        self._reader = asyncio.create_task(self._read())

    async def connect(self, **headers: str) -> dict[str, Any]:
        """Open the connection and say hello; the welcome (after which the first state has come
        in too) or the error."""
        await self.connect_only(**headers)
        start = len(self.received)
        hello: dict[str, Any] = {"type": "hello", "token": self.token}
        if self.language is not None:
            hello["language"] = self.language
        reply = await self.request(hello, reply_types=("welcome", "error"))
        if reply["type"] == "welcome":
            await self.wait_for(lambda m: m["type"] == "state", start=start)
        return reply

    async def _read(self) -> None:
        assert self.socket is not None
        try:
            async for raw in self.socket:
                text = raw if isinstance(raw, str) else raw.decode()
                self.raw.append(text)
                message = json.loads(text)
                self.received.append(message)
                if message["type"] == "state":
                    self.room = message["room"]
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        self._changed.set()

    async def send_raw(self, data: str | bytes) -> None:
        assert self.socket is not None
        await self.socket.send(data)

    async def request(
        self,
        message: dict[str, Any],
        reply_types: tuple[str, ...] = ("ack", "error", "legal", "pong"),
        timeout: float = 10,
    ) -> dict[str, Any]:
        """Send ``message`` (given an id unless it has one) and wait for the reply naming that id."""
        message = {"id": next(self._ids), **message}
        start = len(self.received)
        await self.send_raw(json.dumps(message))
        return await self.wait_for(
            lambda m: m["type"] in reply_types and m.get("id") == message["id"], start=start, timeout=timeout
        )

    async def wait_for(self, test: Any, start: int = 0, timeout: float = 10) -> dict[str, Any]:
        async def found() -> dict[str, Any]:
            seen = start
            while True:
                for message in self.received[seen:]:
                    if test(message):
                        return message
                seen = len(self.received)
                if self.socket is not None and self._reader is not None and self._reader.done():
                    raise ConnectionError("the connection closed")
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(found(), timeout)

    async def wait_state(self, test: Any, timeout: float = 10) -> dict[str, Any]:
        """The first state, from now or already received, for which ``test(room)`` holds."""
        found = await self.wait_for(lambda m: m["type"] == "state" and test(m["room"]), timeout=timeout)
        room: dict[str, Any] = found["room"]
        return room

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self._reader is not None:
            await self._reader


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

    def __init__(self, options: list[str], log: Path) -> None:
        self.options, self.log = options, log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30) -> None:
        """Start it and wait until /healthz answers."""
        command = [sys.executable, "-m", "fabula.cli", "serve", "--port", str(self.port), *self.options]
        env = {name: value for name, value in os.environ.items() if not name.startswith("FABULA_")}
        env["PYTHONUNBUFFERED"] = "1"
        with self.log.open("ab") as out:
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
