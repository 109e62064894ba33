"""Players for server tests: a person's connection that plays random legal moves through the
protocol, as a browser would (ask for the legal moves, send one, wait for the new state)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from fabula.bots.base import RandomBot
from fabula.rules import action_from_json

from .harness import Client


def awaited(room: dict[str, Any] | None) -> bool:
    if room is None or room["game"] is None or room["you"] is None:
        return False
    seat = room["you"]["seat"]
    return seat is not None and room["game"]["phase"] != "over" and seat in room["game"]["awaiting"]


async def move_once(client: Client, rng: random.Random) -> dict[str, Any] | None:
    """One random legal move if the client's seat is awaited now; the server's reply."""
    if not awaited(client.room):
        return None
    legal = await client.request({"type": "legal"})
    assert legal["type"] == "legal", legal
    if not legal["actions"]:
        return None
    assert client.room is not None
    action = RandomBot(rng).choose(client.room["game"], [action_from_json(a) for a in legal["actions"]])
    return await client.request({"type": "act", "action": action.to_json()})


async def play_to_end(client: Client, rng: random.Random, timeout: float = 60) -> dict[str, Any]:
    """Play until the game is over; the final room snapshot."""

    async def loop() -> dict[str, Any]:
        while True:
            room = client.room
            if room is not None and room["status"] == "over":
                return room
            seen = len(client.received)
            reply = await move_once(client, rng)
            if reply is None:  # not awaited: wait for a state newer than the one just looked at
                await client.wait_for(lambda m: m["type"] == "state", start=seen, timeout=timeout)
            elif reply["type"] == "error":
                # a race with a bot or teammate: the next state tells what is awaited now
                assert reply["code"] in {"wrong_phase", "not_your_turn", "already_played", "conflict"}, reply
                await asyncio.sleep(0.01)

    return await asyncio.wait_for(loop(), timeout)
