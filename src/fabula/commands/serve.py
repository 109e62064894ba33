"""`fabula serve`: run the server until interrupted, printing the URL to open."""

from __future__ import annotations

import asyncio
import socket
import sys

import uvicorn

from fabula.server.app import create_app
from fabula.server.backends import describe
from fabula.server.config import Config
from fabula.server.heap import keep_pauses_short
from fabula.server.logs import configure

#: Messages above this size close the connection outright (close code 1009); below it, and above
#: ``max_message_bytes``, they are answered with an error and the connection goes on.
WS_HARD_LIMIT = 1 << 20


def lan_address() -> str | None:
    """This machine's address on its local network, for the URL to show phones."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET: no packet is sent for a UDP connect
            return str(probe.getsockname()[0])
        except OSError:
            return None


def run(config: Config) -> int:
    configure(config.log_level)
    # IPPROTO_TCP explicitly: asyncio turns Nagle's algorithm off only on sockets that say they
    # are TCP, and a reply written in two parts would otherwise wait ~40 ms for a delayed ACK
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((config.host, config.port))
    except OSError as error:
        print(f"error: cannot listen on {config.host}:{config.port}: {error.strerror}", file=sys.stderr)
        return 2
    port = listener.getsockname()[1]
    app = create_app(config)
    keep_pauses_short()
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level=config.log_level.lower(),
            ws_max_size=WS_HARD_LIMIT,
            ws_ping_interval=20,
            ws_ping_timeout=20,
            access_log=False,
            log_config=None,  # logs.configure made uvicorn's loggers write JSON lines like ours
            proxy_headers=True,
        )
    )
    shown = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
    urls = [f"http://{shown}:{port}/"]
    if config.host in ("0.0.0.0", "::") and (lan := lan_address()):
        urls.append(f"http://{lan}:{port}/")
    if config.public_url:
        urls = [config.public_url.rstrip("/") + "/"]
    print(
        f"Fabula is running — open {' or '.join(urls)}  (data in {config.data.resolve()}; {describe(config)}; "
        "Ctrl+C stops)",
        flush=True,
    )
    try:  # uvloop comes with uvicorn[standard]; a faster event loop where it is available
        import uvloop
    except ImportError:
        asyncio.run(server.serve(sockets=[listener]))
    else:
        uvloop.run(server.serve(sockets=[listener]))
    return 0
