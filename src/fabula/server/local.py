"""Serving an app with uvicorn the way `fabula serve` does: its listening socket, its uvicorn
options, and — for tests, tools and benchmarks — a server on a free loopback port, in this event
loop (`serving`) or in a thread of its own (`ServerThread`).

>>> sock = listener("127.0.0.1", 0)
>>> sock.getsockname()[0], sock.proto == socket.IPPROTO_TCP
('127.0.0.1', True)
>>> sock.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from .shared_deflate import FabulaWebSockets

#: Messages above this size close the connection outright (close code 1009); below it, and above
#: ``max_message_bytes``, they are answered with an error and the connection goes on.
WS_HARD_LIMIT = 1 << 20


def listener(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (0: a free one), for uvicorn to serve on. Said to be
    TCP explicitly: asyncio turns Nagle's algorithm off only on sockets that say so, and a reply
    written in two parts would otherwise wait ~40 ms for a delayed ACK. `OSError` if it cannot bind."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def uvicorn_config(
    app: Any, *, log_level: str = "warning", shared_compression: bool = True, **options: Any
) -> uvicorn.Config:
    """uvicorn's configuration for ``app``, with the WebSocket limits and pings of `fabula serve`
    (``shared_compression``: `fabula.server.shared_deflate`, else uvicorn's own)."""
    settings: dict[str, Any] = {
        "log_level": log_level,
        "ws_max_size": WS_HARD_LIMIT,
        "ws_ping_interval": 20,
        "ws_ping_timeout": 20,
        "access_log": False,
        "ws": FabulaWebSockets if shared_compression else "auto",
    }
    return uvicorn.Config(app, **(settings | options))


def url_of(sock: socket.socket) -> str:
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """``app`` served on a free loopback port, in this event loop, for the block; its base URL."""
    sock = listener("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn_config(app))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("the server stopped before it started")
            await asyncio.sleep(0.01)
        yield url_of(sock)
    finally:
        server.should_exit = True
        await task
        sock.close()


class ServerThread:
    """``app`` served on a free loopback port in a thread of this process (its own event loop):
    `start`, then `url`, then `stop` (or use it as a context manager)."""

    def __init__(self, app: Any, **options: Any) -> None:
        self.app = app
        self.sock = listener("127.0.0.1", 0)
        self.port: int = self.sock.getsockname()[1]
        self.url = url_of(self.sock)
        self.server = uvicorn.Server(uvicorn_config(app, **options))
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, name="fabula server", daemon=True)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The server's event loop (once started)."""
        if self._loop is None:
            raise RuntimeError("the server has not started")
        return self._loop

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        try:
            self._loop.run_until_complete(self.server.serve(sockets=[self.sock]))
        finally:
            self._loop.close()

    def start(self, timeout: float = 10) -> None:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)

    def stop(self, timeout: float = 10) -> None:
        self.server.should_exit = True
        self._thread.join(timeout=timeout)
        self.sock.close()

    def __enter__(self) -> ServerThread:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
