"""Room owners on a real Redis: who owns a room, asking the owner, and a dead owner replaced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from fabula.store.owners import Answer, Ask, RoomOwners

from ..services import drop_namespace, redis_url, unique_name

__all__ = ["redis_url"]  # a fixture, used by name

pytestmark = pytest.mark.anyio


class Process:
    """One process's `RoomOwners`, answering every request with the next seq of its own."""

    def __init__(self, redis: Redis, namespace: str) -> None:
        self.owners = RoomOwners(redis, namespace)
        self.asked: list[Ask] = []

    async def handle(self, ask: Ask) -> Answer:
        self.asked.append(ask)
        if ask.message == b"refuse":
            return Answer(ask.request, error="wrong_phase", text="Not now.")
        return Answer(ask.request, seq=len(self.asked))


@pytest.fixture
async def two(redis_url: str) -> AsyncIterator[tuple[Process, Process]]:
    namespace = unique_name("fabula_owners")
    clients = [Redis.from_url(redis_url), Redis.from_url(redis_url)]
    processes = (Process(clients[0], namespace), Process(clients[1], namespace))
    for process in processes:
        await process.owners.start(process.handle)
    yield processes
    for process in processes:
        await process.owners.close()
    for client in clients:
        await client.aclose()
    await drop_namespace(redis_url, namespace)


async def test_the_first_to_ask_owns_the_room_and_answers_the_others(two: tuple[Process, Process]) -> None:
    a, b = two
    assert await a.owners.owner("ABCDE") == a.owners.me
    assert await b.owners.owner("ABCDE") == a.owners.me
    assert await b.owners.owner("FGHJK") == b.owners.me, "each room has its own owner"

    answer = await b.owners.ask(a.owners.me, "ABCDE", 3, b'{"type":"say","text":"hi"}')

    assert answer == Answer(0, seq=1)
    assert [(ask.code, ask.member, ask.message) for ask in a.asked] == [("ABCDE", 3, b'{"type":"say","text":"hi"}')]
    refused = await b.owners.ask(a.owners.me, "ABCDE", 3, b"refuse")
    assert refused is not None
    assert (refused.error, refused.text) == ("wrong_phase", "Not now.")
    # many at once: each answer reaches the request it answers
    answers = await asyncio.gather(*(b.owners.ask(a.owners.me, "ABCDE", n, b"m") for n in range(20)))
    assert sorted(answer.seq or 0 for answer in answers if answer is not None) == list(range(3, 23))


async def test_an_owner_that_is_gone_is_replaced_at_once(two: tuple[Process, Process]) -> None:
    a, b = two
    assert await a.owners.owner("ABCDE") == a.owners.me
    assert await b.owners.owner("ABCDE") == a.owners.me
    # a's process dies: its inbox is nobody's, but its key is still in Redis (no goodbye)
    for task in a.owners._tasks:
        task.cancel()
    await asyncio.sleep(0.2)

    assert await b.owners.ask(a.owners.me, "ABCDE", 1, b"m") is None, "nobody to ask: made by the asker"
    assert await b.owners.owner("ABCDE") == b.owners.me, "the dead owner's key was cleared: b owns it now"


async def test_letting_a_room_go_frees_it_for_the_next(two: tuple[Process, Process]) -> None:
    a, b = two
    assert await a.owners.owner("ABCDE") == a.owners.me
    await a.owners.let_go("ABCDE")
    assert await b.owners.owner("ABCDE") == b.owners.me


async def test_without_redis_nobody_is_known_to_own_a_room() -> None:
    redis = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.5)
    owners = RoomOwners(redis, "fabula")
    try:
        assert await owners.owner("ABCDE") is None
        assert await owners.ask("someone", "ABCDE", 0, b"m") is None
    finally:
        await redis.aclose()
