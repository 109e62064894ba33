"""Taking every seat over HTTP (``POST /api/rooms``, ``POST /api/rooms/{code}/join``), as a
browser or `fabula bot` does, before any player connects.

The requests are those of `fabula.client.create_room` and `fabula.client.join_room`, and a refusal
is read as theirs (`fabula.client.HttpError`), but they go through a few pooled HTTP clients:
those two calls open a client of their own each time (28 ms of CPU here, mostly its TLS context).
Taking 600 seats (100 rooms, 32 at a time, 2026-12-05, the machine shared) cost 21.5 and 22.8 s
of CPU through them against 2.7 and 3.2 s pooled: some 3 minutes more for the issue's 5,004.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from fabula.client import HttpError

COLOURS = ("red", "pink", "yellow", "blue", "dark green", "light green", "orange", "brown", "purple", "black")


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
                raise RuntimeError(f"POST {urls[server]}{path}: {HttpError.of(response)}")
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
