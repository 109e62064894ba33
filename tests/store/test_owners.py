"""Room owners on a real Redis: who owns a room, asking the owner over a peer link, a dead owner
replaced, a room let go and taken back, and a link without the deployment's secret shut out."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import cast

import msgspec
import pytest
from redis.asyncio import Redis

from fabula.server.cluster.links import _LENGTH, MAX_FRAME, Answer, Ask, Hello, Outbound, PeerLink, _encode
from fabula.server.cluster.owners import RoomOwners
from fabula.store.redis_client import redis_client

from ..services import drop_namespace, redis_url, unique_name

__all__ = ["redis_url"]  # a fixture, used by name

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["asyncio", "uvloop"])
def anyio_backend(request: pytest.FixtureRequest) -> tuple[str, dict[str, bool]]:
    """Both event loops: `fabula serve` runs on uvloop, whose transports are not asyncio's classes."""
    return ("asyncio", {"use_uvloop": request.param})


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
    # a's process dies: nobody listens at its address, but its key is still in Redis (no goodbye)
    assert a.owners._server is not None
    a.owners._server.close()
    for link in list(a.owners._links.values()):
        link.close()
    await asyncio.sleep(0.1)

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


async def test_an_owner_that_let_the_room_go_takes_it_back_or_names_the_new_owner(
    two: tuple[Process, Process], redis_url: str
) -> None:
    a, b = two
    assert await a.owners.owner("ABCDE") == a.owners.me
    assert await b.owners.owner("ABCDE") == a.owners.me  # b keeps that in mind
    await a.owners.let_go("ABCDE")

    # nobody took it: asked all the same, a takes it back and answers
    answer = await b.owners.ask(a.owners.me, "ABCDE", 1, b"m")
    assert answer is not None
    assert answer.seq == 1
    assert "ABCDE" in a.owners.owned

    # a lets it go and b takes it; a process that still thinks a owns it is told to make it itself
    await a.owners.let_go("ABCDE")
    b.owners._known.pop("ABCDE")
    assert await b.owners.owner("ABCDE") == b.owners.me
    assert await b.owners.ask(a.owners.me, "ABCDE", 2, b"m") is None, "b owns it: b makes it"
    assert len(a.asked) == 1, "a made nothing for a room it no longer owns"


class End:
    """One end of a relayed connection (a `Peer`), keeping what it hears."""

    def __init__(self) -> None:
        self.heard: list[bytes] = []
        self.closed: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()

    def received(self, data: bytes, state: bool, *, paced: bool = False) -> None:
        del state, paced
        self.heard.append(data)

    def ended(self, code: int | None) -> None:
        if not self.closed.done():
            self.closed.set_result(code)


async def test_a_stopping_process_hands_its_rooms_and_relayed_clients_to_the_others(redis_url: str) -> None:
    namespace = unique_name("fabula_owners")
    clients = [Redis.from_url(redis_url), Redis.from_url(redis_url)]
    a, b = Process(clients[0], namespace), Process(clients[1], namespace)
    hosted_at_a: list[End] = []

    def host(code: str, address: str, line: object) -> End:
        del code, address, line
        hosted_at_a.append(End())
        return hosted_at_a[-1]

    try:
        await a.owners.start(a.handle, host)
        await b.owners.start(b.handle, host)
        assert await a.owners.owner("ABCDE") == a.owners.me
        relayed_from_b = End()
        line = await b.owners.relay(a.owners.me, "ABCDE", "10.0.0.9", relayed_from_b)
        assert line is not None
        assert len(hosted_at_a) == 1

        await a.owners.retire()

        # b's client is told to connect again (no close code of a's own: b closes with 1012), and
        # a's end of it is over
        assert await asyncio.wait_for(relayed_from_b.closed, 5) is None
        assert await asyncio.wait_for(hosted_at_a[0].closed, 5) is None
        # the room is free at once, and a never takes one again
        assert a.owners.owned == set()
        assert await a.owners.owner("FGHJK") is None, "nobody owns it, and a does not take it"
        b.owners._known.clear()
        assert await b.owners.owner("ABCDE") == b.owners.me
        assert await a.owners.owner("ABCDE") == b.owners.me
        # a stale ask that still reaches a is sent on to b
        assert await b.owners.ask(a.owners.me, "ABCDE", 1, b"m") is None, "b owns it: b makes it"
        assert a.asked == []
        assert await b.owners.relay(a.owners.me, "ABCDE", "10.0.0.9", End()) is None
    finally:
        for process in (a, b):
            await process.owners.close()
        for client in clients:
            await client.aclose()
        await drop_namespace(redis_url, namespace)


async def test_a_link_without_the_deployment_s_secret_is_shut_out(two: tuple[Process, Process]) -> None:
    a, _ = two
    host, _, port = a.owners.me.partition("@")[2].rpartition(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    for frame in (Hello("not the secret"), Ask(0, "ABCDE", 0, b"m")):
        data = msgspec.msgpack.encode(frame)
        writer.write(len(data).to_bytes(4, "big") + data)
    await writer.drain()

    assert await asyncio.wait_for(reader.read(), 2.0) == b"", "closed without an answer"
    assert a.asked == []
    writer.close()


async def test_a_burst_of_rooms_asking_at_once_waits_for_connections_rather_than_failing(redis_url: str) -> None:
    """Every room of a full server starting its game at once asks who owns it: on the bus's
    client (`redis_client`) the commands past its pool's `REDIS_CONNECTIONS` wait for a free
    connection — every room gets its owner — where redis-py's plain pool refused them ("Too
    many connections", past 100), leaving rooms without one."""
    namespace = unique_name("fabula_owners")
    client = redis_client(redis_url, timeout=5.0)
    owners = RoomOwners(client, namespace)
    try:
        codes = [f"R{n:04d}" for n in range(400)]
        found = await asyncio.gather(*(owners.owner(code) for code in codes))
        assert found == [owners.me] * len(codes)
        assert owners.owned == set(codes)
    finally:
        await owners.close()
        await client.aclose()
        await drop_namespace(redis_url, namespace)


def test_a_link_reads_frames_however_the_bytes_are_cut() -> None:
    """TCP hands a link its bytes in pieces: a frame split anywhere, even inside its length, and
    many frames in one piece, are read whole and in order; an oversized or unreadable frame
    closes the link, and nothing after it is read."""
    sent = [
        Outbound(session, bytes([session]) * size, state=session % 2 == 0)
        for session, size in enumerate([0, 1, 3, 250, 2_500, 70_000, 5, 40_000])
    ]
    wire = b"".join(_LENGTH.pack(len(data)) + data for data in map(_encode, sent))
    received: list[object] = []
    for cuts in ([], [1], [2, 3], list(range(1, 60)), [4_000, 4_001, 80_000], list(range(7, len(wire), 997))):
        received.clear()
        link = PeerLink(lambda _, frame: received.append(frame), lambda _: None)
        for start, end in itertools.pairwise([0, *cuts, len(wire)]):
            link.data_received(wire[start:end])
        assert received == sent, cuts
        assert not link._buffer, "nothing left over"

    closed: list[PeerLink] = []

    class Transport:
        def close(self) -> None:
            closed.append(link)

        def is_closing(self) -> bool:
            return bool(closed)

    for bad in (_LENGTH.pack(MAX_FRAME + 1), _LENGTH.pack(3) + b"\xc1\xc1\xc1"):
        received.clear()
        closed.clear()
        link = PeerLink(lambda _, frame: received.append(frame), lambda _: None)
        link.connection_made(cast(asyncio.Transport, Transport()))
        link.data_received(_LENGTH.pack(len(_encode(sent[1]))) + _encode(sent[1]) + bad + wire)
        assert closed == [link]
        assert received == [], "a piece with a bad frame is dropped whole"
