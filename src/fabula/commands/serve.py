"""`fabula serve`: run the server until interrupted, printing the URL to open.

On SIGTERM or Ctrl+C it stops whole, within ``--shutdown-seconds`` and a few more: it stops
taking connections; with several processes, the others take its rooms at once (`RoomService.retire`);
every WebSocket client is told to connect again (close code 1012: a browser does so at once, to
another process where there is one); the requests under way finish (a move being saved, an
upload); then every process it started is stopped and the stores are closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Coroutine
from types import FrameType
from typing import Any

import uvicorn
from starlette.applications import Starlette

from fabula.server.app import create_app
from fabula.server.backends import describe
from fabula.server.config import Config
from fabula.server.heap import collect_the_middle_generation_less_often, keep_pauses_short
from fabula.server.invite import WILDCARDS, is_loopback, lan_address
from fabula.server.local import listener, uvicorn_config
from fabula.server.logs import configure


class Server(uvicorn.Server):
    """uvicorn's server, which lets the app prepare before it closes the connections."""

    def __init__(self, config: uvicorn.Config, stopping: Callable[[], Awaitable[None]]) -> None:
        super().__init__(config)
        self.stopping = stopping
        #: the signal that stopped the server, if one did
        self.stopped_by: int | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.stopped_by = sig
        super().handle_exit(sig, frame)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await self.stopping()
        await super().shutdown(sockets)


def run(config: Config) -> int:
    configure(config.log_level, config.log_format)
    try:
        sock = listener(config.host, config.port)
    except OSError as error:
        print(f"error: cannot listen on {config.host}:{config.port}: {error.strerror}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    app = create_app(config)
    keep_pauses_short()
    collect_the_middle_generation_less_often()
    server = Server(
        uvicorn_config(
            app,
            log_level=config.log_level.lower(),
            shared_compression=config.compression == "shared",
            log_config=None,  # logs.configure made uvicorn's loggers write our lines
            proxy_headers=True,
            timeout_graceful_shutdown=config.shutdown_seconds,
        ),
        stopping=lambda: _retire(app),
    )
    print(startup_message(config, port), flush=True)
    try:  # uvloop comes with uvicorn[standard]; a faster event loop where it is available
        import uvloop
    except ImportError:
        runner: Callable[[Coroutine[Any, Any, None]], None] = asyncio.run
    else:
        runner = uvloop.run
    # (uvicorn stops the server on Ctrl+C, then raises it again for whoever started it)
    with contextlib.suppress(KeyboardInterrupt):
        runner(server.serve(sockets=[sock]))
    if server.stopped_by == signal.SIGINT:  # (raised again, or ignored where the parent ignores it)
        print("Fabula stopped.", file=sys.stderr, flush=True)
        return 130
    return 0


async def _retire(app: Starlette) -> None:
    """Before the connections close: let the other processes take this one's rooms."""
    service = getattr(app.state, "service", None)
    if service is not None:
        await service.retire()


def startup_message(config: Config, port: int) -> str:
    """What `fabula serve` prints: the URL to open here, and the one phones open (or why none)."""
    lines = [f"Fabula is running (data in {config.data.resolve()}; {describe(config)}; Ctrl+C stops)."]
    if config.public_url:
        return "\n".join([*lines, f"  Open {config.public_url.rstrip('/')}/ — on this computer and on phones."])
    here = "127.0.0.1" if config.host in WILDCARDS else config.host
    lines.append(f"  On this computer: http://{here}:{port}/")
    if config.host in WILDCARDS:
        lan = lan_address()
        if lan:
            lines.append(f"  Phones on the same Wi-Fi: http://{lan}:{port}/  (the lobby's QR code leads there)")
        else:
            lines.append("  Phones: this computer has no network address now; join a Wi-Fi and restart.")
    elif is_loopback(config.host):
        lines.append("  Phones cannot reach it: it listens on this computer only (start it with --host 0.0.0.0).")
    else:
        lines.append(f"  Phones on the same network: http://{config.host}:{port}/")
    return "\n".join(lines)
