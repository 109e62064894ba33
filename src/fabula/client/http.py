"""The HTTP side of the protocol: creating a room, reading one, taking a seat.

Each call answers with the server's JSON, or raises `HttpError` with the server's refusal.

>>> async def seat_two(server: str) -> tuple[dict[str, Any], dict[str, Any]]:
...     host = await create_room(server, "Ana", "red", {"mode": "odyssey"})
...     guest = await join_room(server, host["code"], "Ben", "blue")
...     return host, guest  # each {"code", "member", "token", …}
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx


class HttpError(Exception):
    """The server refused a request: ``status`` and, when it said so, the error's ``code``."""

    def __init__(self, status: int, code: str | None, message: str) -> None:
        super().__init__(f"{code}: {message}" if code else message)
        self.status, self.code, self.message = status, code, message

    @classmethod
    def of(cls, response: httpx.Response) -> HttpError:
        try:
            error = response.json()["error"]
            return cls(response.status_code, str(error["code"]), str(error["message"]))
        except (ValueError, KeyError, TypeError):
            return cls(response.status_code, None, f"HTTP {response.status_code}")


def websocket_url(server: str, code: str) -> str:
    """The play WebSocket of room ``code`` on ``server`` (``http(s)://host[/prefix]``).

    >>> websocket_url("https://fabula.example/games/", "ex865")
    'wss://fabula.example/games/ws/ex865'
    """
    parts = urlsplit(server)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urlunsplit((scheme, parts.netloc, f"{parts.path.rstrip('/')}/ws/{code}", "", ""))


def _http(server: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server.rstrip("/"), timeout=10)


def _json(response: httpx.Response, status: int) -> dict[str, Any]:
    if response.status_code != status:
        raise HttpError.of(response)
    found: dict[str, Any] = response.json()
    return found


async def create_room(server: str, name: str, colour: str, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Create a room with its creator seated as host: ``{"code", "member", "token", …}``."""
    body: dict[str, Any] = {"name": name, "colour": colour}
    if settings is not None:
        body["settings"] = settings
    async with _http(server) as http:
        return _json(await http.post("/api/rooms", json=body), 201)


async def room_summary(server: str, code: str) -> dict[str, Any]:
    """Who is in room ``code`` and which colours are free."""
    async with _http(server) as http:
        return _json(await http.get(f"/api/rooms/{code}"), 200)


async def join_room(server: str, code: str, name: str, colour: str) -> dict[str, Any]:
    """Take a seat in room ``code``: ``{"code", "member", "token"}``."""
    async with _http(server) as http:
        return _json(await http.post(f"/api/rooms/{code}/join", json={"name": name, "colour": colour}), 201)
