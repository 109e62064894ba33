"""A deployment's services fail mid-game: two `fabula serve` processes over PostgreSQL and Redis.

Each test runs the service it breaks itself (`PrivatePostgres`, `PrivateRedis` of
`tests.services`) and the other on the shared one, with a room's people split between the two
processes (as a load balancer would) and playing on their own: `Player` (of the crash test)
records every acknowledgement, reconnects by itself, and sends a message again, with the same id,
when it was refused with ``store_failed`` or had no answer in time.

* Redis killed mid-game and started again: play goes on meanwhile (the processes write to
  PostgreSQL, ask a room's owner over their own links, and read what the others stored every
  half second while they cannot hear them), the game ends, and every acknowledged move is in the
  log once, at its seq.
* PostgreSQL stopped mid-game (``pg_ctl -m immediate``: the sessions cut, as in a crash) and
  started again: while it is down every move is refused with ``store_failed`` and its readable
  message and nothing is acknowledged; once it is back the players' messages go through by
  themselves and the game ends; every acknowledgement is durable, none applied twice.

Each prints how long play took to resume once the service was back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from ..services import PrivatePostgres, PrivateRedis, postgres_url, private_postgres, redis_url
from .test_crash import Player, ServerProcess
from .test_scaleout import Deployment, Route, ack_problems, raise_failures, replay, seat

__all__ = ["postgres_url", "private_postgres", "redis_url"]  # fixtures, used by name

pytestmark = pytest.mark.anyio

#: How long the broken service stays down.
DOWN_SECONDS = 3.0
#: An answer this soon after the stop may be one the server sent just before it.
IN_FLIGHT_SECONDS = 0.3


class Witness(Player):
    """A `Player` that also notes when each answer to its messages came."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: (loop time, message id, "ack" or the error's code, the error's words)
        self.answers: list[tuple[float, str, str, str]] = []

    def _answer(self, message: dict[str, Any]) -> None:
        kind = "ack" if message["type"] == "ack" else str(message["code"])
        self.answers.append((self._now(), str(message["id"]), kind, str(message.get("message", ""))))
        super()._answer(message)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


async def seated(deployment: Deployment) -> tuple[list[Witness], list[Route]]:
    """Two processes; a room of four people (split between them) and a server bot, two
    storyteller cycles of odyssey (10 rounds); the people as `Witness`es, not yet running."""
    a, b = deployment.spawn(), deployment.spawn()
    code, seats, clients = await seat([a.url, b.url], 4, bots=1, mode="odyssey", options={"storyteller_cycles": 2})
    for client in clients:
        await client.close()
    routes = [Route(a.url if n % 2 == 0 else b.url) for n in range(len(seats))]
    players = [
        Witness(cast(ServerProcess, route), code, member, token, name=f"P{member}", seed=member)
        for route, (member, token) in zip(routes, seats, strict=True)
    ]
    return players, routes


async def until_round(players: list[Witness], tasks: list[asyncio.Task[None]], wanted: int) -> None:
    while True:
        raise_failures(tasks)
        rooms = [player.room for player in players if player.room is not None]
        if max((room["game"]["round"] for room in rooms if room["game"]), default=0) >= wanted:
            return
        await asyncio.sleep(0.05)


async def until_done(players: list[Witness], tasks: list[asyncio.Task[None]]) -> None:
    while not all(player.done for player in players):
        raise_failures(tasks)
        await asyncio.sleep(0.05)


async def stop(players: list[Witness], tasks: list[asyncio.Task[None]]) -> None:
    for player in players:
        player.stopped = True
    for task in tasks:
        task.cancel()
    await asyncio.wait(tasks, timeout=10)


def the_game_ended_as_logged(code: str, entries: list[Any], players: list[Witness]) -> None:
    room = replay(code, entries)
    assert room.game is not None
    assert room.status == "over"
    finals = {tuple(player.final["game"]["scores"]) for player in players if player.final is not None}
    assert finals == {tuple(room.game.scores)}


def first_ack_after(players: list[Witness], moment: float) -> float:
    return min(at for player in players for at, _, kind, _ in player.answers if kind == "ack" and at > moment)


async def test_redis_restarted_mid_game_play_goes_on_and_nothing_is_lost(
    postgres_url: str, private_redis: PrivateRedis, tmp_path: Path
) -> None:
    deployment = Deployment(postgres_url, private_redis.url, tmp_path)
    try:
        players, _ = await seated(deployment)
        tasks = [asyncio.create_task(player.run()) for player in players]
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(120):
                assert (await (await players[0].submit({"type": "start"})))["type"] == "ack"
                await until_round(players, tasks, 2)
                private_redis.kill()
                down = loop.time()
                await asyncio.sleep(DOWN_SECONDS)
                private_redis.start()
                up = loop.time()
                await until_done(players, tasks)
        finally:
            await stop(players, tasks)
        entries = await deployment.entries(players[0].code)
    finally:
        deployment.close()

    problems = ack_problems(entries, players)
    assert not problems, "\n".join(problems)
    the_game_ended_as_logged(players[0].code, entries, players)
    while_down = [at for player in players for at, _, kind, _ in player.answers if kind == "ack" and down < at < up]
    # the processes read the store while they cannot hear each other: play goes on meanwhile
    assert len(while_down) >= len(players), "moves were acknowledged while Redis was down"
    later = [at for player in players for at, _, kind, _ in player.answers if kind == "ack" and at > up]
    print(
        f"\nRedis down {up - down:.1f} s: {len(while_down)} messages acknowledged meanwhile; "
        + (f"first ack {min(later) - up:.2f} s after it was back" if later else "the game ended before it was back")
    )


async def test_postgresql_restarted_mid_game_refuses_moves_while_down_and_play_resumes_by_itself(
    private_postgres: PrivatePostgres, redis_url: str, tmp_path: Path
) -> None:
    deployment = Deployment(private_postgres.url, redis_url, tmp_path)
    try:
        players, _ = await seated(deployment)
        tasks = [asyncio.create_task(player.run()) for player in players]
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(120):
                assert (await (await players[0].submit({"type": "start"})))["type"] == "ack"
                await until_round(players, tasks, 2)
                private_postgres.stop()
                down = loop.time()
                # whatever the game awaits now, every person says something: that is stored too
                for player in players:
                    await player.submit({"type": "say", "text": f"{player.name} while the database is down"})
                await asyncio.sleep(DOWN_SECONDS)
                refusals = [
                    (code, words)
                    for player in players
                    for at, _, code, words in player.answers
                    if code != "ack" and at > down
                ]
                acked = [at for player in players for at, _, kind, _ in player.answers if kind == "ack" and at > down]
                private_postgres.start()
                up = loop.time()
                await until_done(players, tasks)
        finally:
            await stop(players, tasks)
        entries = await deployment.entries(players[0].code)
    finally:
        deployment.close()

    assert len(refusals) >= len(players), "the lines said while PostgreSQL was down were refused"
    assert {code for code, _ in refusals} == {"store_failed"}, refusals
    assert all(words.strip() for _, words in refusals), "each refusal says why in words"
    assert all(at < down + IN_FLIGHT_SECONDS for at in acked), "nothing is acknowledged while the store is down"
    problems = ack_problems(entries, players)
    assert not problems, "\n".join(problems)
    the_game_ended_as_logged(players[0].code, entries, players)
    resumed = first_ack_after(players, up) - up
    print(
        f"\nPostgreSQL down {up - down:.1f} s: {len(refusals)} refusals (store_failed), "
        f"first ack {resumed:.2f} s after it was back, {len(entries)} log entries"
    )
