"""`fabula bot`: a bot that takes a seat over the network, through the same protocol as a browser.

It joins by HTTP (or takes a seat back with a token), then over the WebSocket (`fabula.client`):
whenever its seat is awaited it asks for its legal moves, lets a `Bot` choose, and sends the move.
A dropped connection is reopened with the same token, and a move still unanswered is sent again
with its id; the bot stops when the game is over.

>>> async def one_game(server: str, code: str) -> None:
...     result = await play(server, code, level="random", seed=1)
...     print(result["scores"], result["outcome"])
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any

import httpx

from fabula.cards.model import Card
from fabula.client import Client, ConnectionLost, HttpError, Refused, join_room, room_summary
from fabula.protocol import Act, Legal, LegalMoves
from fabula.rules import action_from_json

from .base import Bot, make_bot, model_of
from .language import LLMAgent, ModelBot, OpenAIChat
from .language.seat import ModelSeat, server_pictures


class BotClientError(Exception):
    """The server refused the bot (no such room, no free seat, …)."""


async def join(server: str, code: str, name: str | None, colour: str | None) -> dict[str, Any]:
    """Take a free seat in room ``code``: ``{"code", "member", "token"}``."""
    try:
        free = (await room_summary(server, code))["free_colours"]
        if colour is None:
            if not free:
                raise BotClientError("every rabbit in the room is taken")
            colour = free[0]
        return await join_room(server, code, name or f"Bot {colour.title()}", colour)
    except HttpError as error:
        raise BotClientError(str(error)) from None


async def room_cards(server: str, code: str) -> dict[str, Card]:
    """The cards of room ``code`` as its server describes them (what a reading bot reads)."""
    async with httpx.AsyncClient(base_url=server.rstrip("/"), timeout=10) as http:
        response = await http.get(f"/api/rooms/{code}/cards")
        if response.status_code != 200:
            raise BotClientError(str(HttpError.of(response)))
        return {
            item["id"]: Card(
                item["id"], item.get("title", ""), item.get("description", ""), tuple(item.get("tags", ()))
            )
            for item in response.json()["cards"]
        }


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
    models: Mapping[str, ModelBot] | None = None,
    fallback: str = "normal",
    model_seconds: float = 20.0,
) -> dict[str, Any]:
    """Play in room ``code`` until its game is over, as ``bot`` or else a bot of ``level`` giving
    its clues in ``language``; the final scores and outcome. ``reconnects``: connections in a row
    that may fail before the bot gives up. A ``level`` ``model:NAME`` plays on ``models[NAME]``
    (each request within ``model_seconds``), and as ``fallback`` when its model gives no legal move."""
    code = code.upper()
    name_of_model = model_of(level)
    if name_of_model is not None and name_of_model not in (models or {}):
        raise BotClientError(f"--level {level}: no --model-bot is named {name_of_model!r}")
    if token is None:
        token = (await join(server, code, name, colour))["token"]
    if bot is None:
        cards = await room_cards(server, code) if level != "random" else {}
        rng = random.Random(seed)
        if name_of_model is not None:
            model = (models or {})[name_of_model]
            bot = model_seat(server, model, cards, rng, fallback=fallback, language=language, seconds=model_seconds)
        else:
            bot = make_bot(level, rng, cards=cards, language=language)
    try:
        async with Client(server, code, token, reconnects=reconnects) as client:
            return await _play_connected(client, bot)
    except Refused as error:
        raise BotClientError(str(error)) from None
    except ConnectionLost:
        raise BotClientError(f"lost the connection to {server} and could not get it back") from None


def model_seat(
    server: str,
    model: ModelBot,
    cards: Mapping[str, Card],
    rng: random.Random,
    *,
    fallback: str,
    language: str,
    seconds: float,
) -> ModelSeat:
    """A bot on ``model``, with ``fallback``'s moves when it gives none; the cards' pictures from
    ``server`` for a model that sees."""
    client = OpenAIChat(model.url, model.model, api_key=model.api_key(), timeout=seconds)
    agent = LLMAgent(client, cards, retries=1, rng=rng, name=model.level, language=language)
    backup = make_bot(fallback, random.Random(rng.getrandbits(64)), cards=cards, language=language)
    return ModelSeat(agent, backup, server_pictures(server) if model.vision else None)


def _over(room: dict[str, Any]) -> bool:
    return room["status"] == "over" and room["game"] is not None


def _awaited(room: dict[str, Any]) -> bool:
    game, you = room["game"], room["you"]
    if game is None or you is None or you["seat"] is None:
        return False
    return you["seat"] in game["awaiting"] and game["phase"] != "over"


async def _play_connected(client: Client, player: Bot) -> dict[str, Any]:
    while True:
        looked = client.count
        room = client.room
        if room is not None and _over(room):
            return {
                "room": room["code"],
                "seat": room["you"]["seat"] if room["you"] is not None else None,
                "scores": room["game"]["scores"],
                "outcome": room["game"]["outcome"],
            }
        if room is not None and _awaited(room):
            legal = await client.request(Legal(id=client.next_id()), timeout=None)
            if not isinstance(legal, LegalMoves):
                continue  # refused (a race, a rate limit): look at the newest state again
            if legal.actions and client.room is not None:
                choices = [action_from_json(action) for action in legal.actions]
                # A reading bot may think for a while the first time it sees a deck: not on the loop.
                action = await asyncio.to_thread(player.choose, client.room["game"], choices)
                await client.request(Act(id=client.next_id(), action=action.to_json()), timeout=None)
                continue
            looked = client.count  # no moves for this state: wait for the next one
        await client.wait_for(lambda received: received.type == "state", looked, timeout=None)
