"""`fabula bot`: a bot that takes a seat over the network, through the same protocol as a browser.

It joins by HTTP (or takes a seat back with a token), then over the WebSocket: on every state
where its seat is awaited it asks for its legal moves, lets a `Bot` choose, and sends the move.
A dropped connection is reopened with the same token; the bot stops when the game is over.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import secrets
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import websockets

from fabula.cards.model import Card
from fabula.rules import action_from_json

from .base import Bot, make_bot


class BotClientError(Exception):
    """The server refused the bot (no such room, no free seat, …)."""


def websocket_url(server: str, code: str) -> str:
    parts = urlsplit(server)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urlunsplit((scheme, parts.netloc, f"{parts.path.rstrip('/')}/ws/{code}", "", ""))


async def join(server: str, code: str, name: str | None, colour: str | None) -> dict[str, Any]:
    """Take a free seat in room ``code``: ``{"code", "member", "token"}``."""
    async with httpx.AsyncClient(base_url=server.rstrip("/"), timeout=10) as http:
        summary = await http.get(f"/api/rooms/{code}")
        if summary.status_code != 200:
            raise BotClientError(_error_text(summary))
        free = summary.json()["free_colours"]
        if colour is None:
            if not free:
                raise BotClientError("every rabbit in the room is taken")
            colour = free[0]
        joined = await http.post(
            f"/api/rooms/{code}/join", json={"name": name or f"Bot {colour.title()}", "colour": colour}
        )
        if joined.status_code != 201:
            raise BotClientError(_error_text(joined))
        seat: dict[str, Any] = joined.json()
        return seat


async def room_cards(server: str, code: str) -> dict[str, Card]:
    """The cards of room ``code`` as its server describes them (what a reading bot reads)."""
    async with httpx.AsyncClient(base_url=server.rstrip("/"), timeout=10) as http:
        response = await http.get(f"/api/rooms/{code}/cards")
        if response.status_code != 200:
            raise BotClientError(_error_text(response))
        return {
            item["id"]: Card(
                item["id"], item.get("title", ""), item.get("description", ""), tuple(item.get("tags", ()))
            )
            for item in response.json()["cards"]
        }


def _error_text(response: httpx.Response) -> str:
    try:
        error = response.json()["error"]
        return f"{error['code']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


async def play(
    server: str,
    code: str,
    *,
    name: str | None = None,
    colour: str | None = None,
    token: str | None = None,
    seed: int | None = None,
    bot: Bot | None = None,
    level: str = "random",
    language: str = "en",
    reconnects: int = 20,
) -> dict[str, Any]:
    """Play in room ``code`` until its game is over, as ``bot`` or else a bot of ``level`` giving
    its clues in ``language``; the final scores and outcome."""
    code = code.upper()
    if token is None:
        token = (await join(server, code, name, colour))["token"]
    if bot is None:
        cards = await room_cards(server, code) if level != "random" else {}
        bot = make_bot(level, random.Random(seed), cards=cards, language=language)
    player = bot
    # ids unique to this run: a bot started again with the same token must not reuse one (the
    # server would take it for a resend and not make the move)
    prefix = secrets.token_hex(4)
    ids = (f"{prefix}-{n}" for n in itertools.count())
    failures = 0  # connections in a row that never got a welcome
    while failures <= reconnects:
        welcomed: list[bool] = []
        try:
            async with websockets.connect(websocket_url(server, code), max_size=1 << 22) as socket:
                result = await _play_connected(socket, token, player, ids, welcomed)
                if result is not None:
                    return result
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException):
            pass  # the server went away (a restart, a crash, the network): try again
        failures = 0 if welcomed else failures + 1
        await asyncio.sleep(min(5.0, 0.2 * 2**failures))
    raise BotClientError(f"lost the connection to {server} and could not get it back")


async def _play_connected(
    socket: Any, token: str, player: Bot, ids: Any, welcomed: list[bool]
) -> dict[str, Any] | None:
    await socket.send(json.dumps({"type": "hello", "id": next(ids), "token": token}))
    room: dict[str, Any] | None = None
    asking = False  # a 'legal' request or a move is on its way: don't send another

    async def ask_if_awaited() -> None:
        nonlocal asking
        if asking or room is None or room["game"] is None:
            return
        game, seat = room["game"], room["you"]["seat"]
        if seat is not None and seat in game["awaiting"] and game["phase"] != "over":
            asking = True
            await socket.send(json.dumps({"type": "legal", "id": next(ids)}))

    async for raw in socket:
        message = json.loads(raw)
        kind = message["type"]
        if kind == "error" and message["code"] in ("bad_token", "no_room"):
            raise BotClientError(f"{message['code']}: {message['message']}")
        if kind == "welcome":
            welcomed.append(True)
        if kind == "state":
            room = message["room"]
            if room["status"] == "over" and room["game"] is not None:
                game = room["game"]
                return {
                    "room": room["code"],
                    "seat": room["you"]["seat"],
                    "scores": game["scores"],
                    "outcome": game["outcome"],
                }
            await ask_if_awaited()
        elif kind == "legal":
            if not message["actions"] or room is None:
                asking = False
                continue
            legal = [action_from_json(action) for action in message["actions"]]
            # A reading bot may think for a while the first time it sees a deck: not on the loop.
            action = await asyncio.to_thread(player.choose, room["game"], legal)
            await socket.send(json.dumps({"type": "act", "id": next(ids), "action": action.to_json()}))
        elif kind in ("ack", "error"):
            asking = False
            await ask_if_awaited()
    return None
