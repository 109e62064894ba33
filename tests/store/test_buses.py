"""The fan-out bus and lease contracts, run against LocalBus/LocalLease and RedisBus/RedisLease.

Two `RedisBus` instances are two processes of one deployment (each has its own connections);
the local bus has one process, so its "other process" is the same bus.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import msgspec
import pytest
from redis.asyncio import Redis

from fabula.store import HEARD, RESYNC, Bus, LocalBus, Notice, RedisBus, RedisLease, Subscription
from fabula.store.bus import _LISTENS, CARRIED_BYTES, _Listens, channel_name, parse_message

from ..services import PrivateRedis
from .conftest import BusBackend, unique_name

pytestmark = pytest.mark.anyio


async def next_notice(subscription: Subscription, timeout: float = 5.0) -> Notice:
    return await asyncio.wait_for(anext(subscription), timeout)


async def until(subscription: Subscription, last: dict[str, int], timeout: float = 5.0) -> list[Notice]:
    """Every notice up to the one that brings each room in ``last`` to its seq."""
    got: list[Notice] = []
    seen: dict[str, int] = {}
    while any(seen.get(room, -1) < seq for room, seq in last.items()):
        notice = await next_notice(subscription, timeout)
        got.append(notice)
        if notice.room is not None:
            seen[notice.room] = max(seen.get(notice.room, -1), notice.seq)
    return got


async def hear(bus: Bus, subscription: Subscription, *rooms: str) -> None:
    """``bus`` hears ``rooms`` (a Redis bus once Redis says so: a `HEARD` notice of each)."""
    for room in rooms:
        bus.hear(room)
    if isinstance(bus, RedisBus):
        assert {await next_notice(subscription) for _ in rooms} == {Notice(room, HEARD) for room in rooms}


async def eventually(condition: Callable[[], bool], within: float = 2.0) -> None:
    """Wait until ``condition()`` holds (a bus learns what another said in a moment, not at once)."""
    end = time.monotonic() + within
    while not condition():
        assert time.monotonic() < end, "not within the time allowed"
        await asyncio.sleep(0.01)


async def nothing_arrives(subscription: Subscription, within: float = 0.3) -> None:
    with pytest.raises(TimeoutError):
        await next_notice(subscription, within)


# ---------------------------------------------------------------------- the bus


async def test_a_notice_published_by_one_process_reaches_the_others(bus_backend: BusBackend) -> None:
    first, second = await bus_backend.bus(), await bus_backend.bus()
    with first.subscribe() as mine, second.subscribe() as theirs:
        await hear(first, mine, "FGHJK")
        await hear(second, theirs, "ABCDE")
        first.publish("ABCDE", 3)
        assert await next_notice(theirs) == Notice("ABCDE", 3)
        if bus_backend.name == "local":  # one bus in one process: every subscription hears all
            assert await next_notice(mine) == Notice("ABCDE", 3)
        second.publish("FGHJK", 0)
        assert await next_notice(mine) == Notice("FGHJK", 0)
        if bus_backend.name == "local":
            assert await next_notice(theirs) == Notice("FGHJK", 0)
        else:  # a process does not read its own notices back from Redis
            await nothing_arrives(mine)
            await nothing_arrives(theirs)


async def test_an_earlier_version_s_text_notice_is_understood_and_only_the_own_are_dropped() -> None:
    assert parse_message(b"ABCDE:12@0a1b2c3d4e5f") == [Notice("ABCDE", 12)]
    assert parse_message(b"ABCDE:12") == [Notice("ABCDE", 12)]
    assert parse_message(b"ABCDE:12@0a1b2c3d4e5f", own="0a1b2c3d4e5f") == []


async def test_every_subscription_gets_every_notice(bus_backend: BusBackend) -> None:
    publisher, listener = await bus_backend.bus(), await bus_backend.bus()
    subscriptions = [listener.subscribe() for _ in range(3)]
    listener.hear("ABCDE")
    if isinstance(listener, RedisBus):
        for subscription in subscriptions:
            assert await next_notice(subscription) == Notice("ABCDE", HEARD)
    for seq in range(5):
        publisher.publish("ABCDE", seq)
        await publisher.flush()
    for subscription in subscriptions:
        assert await until(subscription, {"ABCDE": 4}) == [Notice("ABCDE", seq) for seq in range(5)]
        subscription.close()


async def test_notices_of_a_room_arrive_in_order(bus_backend: BusBackend) -> None:
    publisher, listener = await bus_backend.bus(), await bus_backend.bus()
    with listener.subscribe() as subscription:
        await hear(listener, subscription, "ROOMA", "ROOMB")
        # one at a time, as a room's writer publishes after each append: each one arrives
        for seq in range(30):
            publisher.publish("ROOMA", seq)
            publisher.publish("ROOMB", seq)
            await publisher.flush()
        got = await until(subscription, {"ROOMA": 29, "ROOMB": 29})
        for room in ("ROOMA", "ROOMB"):
            assert [n.seq for n in got if n.room == room] == list(range(30))

        # a burst (published faster than sent): per room increasing, and the newest always arrives
        for seq in range(30, 200):
            publisher.publish("ROOMA", seq)
            if seq % 3 == 0:
                publisher.publish("ROOMB", seq)
            if seq % 17 == 0:
                await asyncio.sleep(0)
        got = await until(subscription, {"ROOMA": 199, "ROOMB": 198})
        for room, newest in (("ROOMA", 199), ("ROOMB", 198)):
            seqs = [n.seq for n in got if n.room == room]
            assert seqs == sorted(set(seqs)), f"{room} out of order: {seqs}"
            assert seqs[-1] == newest
        await nothing_arrives(subscription)


async def test_a_closed_subscription_stops_receiving(bus_backend: BusBackend) -> None:
    publisher, listener = await bus_backend.bus(), await bus_backend.bus()
    leaving, staying = listener.subscribe(), listener.subscribe()
    listener.hear("ABCDE")
    if isinstance(listener, RedisBus):
        for subscription in (leaving, staying):
            assert await next_notice(subscription) == Notice("ABCDE", HEARD)
    publisher.publish("ABCDE", 0)
    assert await next_notice(leaving) == Notice("ABCDE", 0)
    leaving.close()
    publisher.publish("ABCDE", 1)
    assert await next_notice(staying) == Notice("ABCDE", 0)
    assert await next_notice(staying) == Notice("ABCDE", 1)
    assert [notice async for notice in leaving] == [], "its iteration has ended"
    leaving.close()  # closing twice is harmless
    staying.close()


async def test_a_waiting_subscriber_is_released_by_close(bus_backend: BusBackend) -> None:
    bus = await bus_backend.bus()
    subscription = bus.subscribe()

    async def read_all() -> list[Notice]:
        return [notice async for notice in subscription]

    reader = asyncio.create_task(read_all())
    await asyncio.sleep(0.05)
    subscription.close()
    assert await asyncio.wait_for(reader, 2) == []


async def test_closing_the_bus_ends_its_subscriptions() -> None:
    bus = LocalBus()
    subscription = bus.subscribe()
    await bus.close()
    assert [notice async for notice in subscription] == []
    bus.publish("ABCDE", 0)  # a closed bus drops what it is given
    with pytest.raises(RuntimeError, match="closed"):
        bus.subscribe()


def test_a_message_on_the_wire_holds_a_publisher_s_notices_with_their_entries() -> None:
    assert channel_name("fabula") == "fabula:rooms"
    message = msgspec.msgpack.encode(["0a1b2c3d4e5f", {"ABCDE": [12, [b"e11", b"e12"]], "FGHJK": [3, []]}])
    assert parse_message(message) == [Notice("ABCDE", 12, (b"e11", b"e12")), Notice("FGHJK", 3)]
    assert parse_message(message)[0].first == 11  # type: ignore[index]
    assert parse_message(message, own="0a1b2c3d4e5f") == [], "a bus drops its own"
    for bad in (b"ABCDE", b"ABCDE:", b":3", b"ABCDE:-1", b"ABCDE:x", b"\xff\xfe", msgspec.msgpack.encode([1])):
        assert parse_message(bad) is None, bad
    assert RESYNC.room is None


# ---------------------------------------------------------------------- leases


async def test_only_one_holder_gets_a_lease(bus_backend: BusBackend) -> None:
    first, second = await bus_backend.lease(), await bus_backend.lease()
    results = await asyncio.gather(*(holder.try_acquire("timer:ABCDE:7", ttl=10) for holder in (first, second)))
    assert sorted(results) == [False, True]
    winner, loser = (first, second) if results[0] else (second, first)
    assert not await winner.try_acquire("timer:ABCDE:7", ttl=10), "not re-entrant: one deadline, one firing"
    assert await loser.try_acquire("timer:ABCDE:8", ttl=10), "another key is another lease"


async def test_an_expired_lease_can_be_taken_by_another(bus_backend: BusBackend) -> None:
    first, second = await bus_backend.lease(), await bus_backend.lease()
    assert await first.try_acquire("timer:ABCDE:1", ttl=0.2)
    assert not await second.try_acquire("timer:ABCDE:1", ttl=0.2)
    await asyncio.sleep(0.35)
    assert await second.try_acquire("timer:ABCDE:1", ttl=5)
    assert not await first.release("timer:ABCDE:1"), "the first holder's lease is over"
    assert not await first.renew("timer:ABCDE:1", ttl=5)
    assert not await first.try_acquire("timer:ABCDE:1", ttl=5), "the second one holds it now"


async def test_only_the_holder_releases_or_renews(bus_backend: BusBackend) -> None:
    holder, other = await bus_backend.lease(), await bus_backend.lease()
    assert await holder.try_acquire("sweep", ttl=0.3)
    assert not await other.release("sweep")
    assert not await other.renew("sweep", ttl=10)
    assert not await other.try_acquire("sweep", ttl=10), "the failed release changed nothing"
    assert await holder.renew("sweep", ttl=10)
    await asyncio.sleep(0.4)
    assert not await other.try_acquire("sweep", ttl=10), "renewed past its first ttl"
    assert await holder.release("sweep")
    assert not await holder.release("sweep"), "released once"
    assert await other.try_acquire("sweep", ttl=10)


async def test_a_lease_needs_a_positive_ttl(bus_backend: BusBackend) -> None:
    holder = await bus_backend.lease()
    with pytest.raises(ValueError, match="positive ttl"):
        await holder.try_acquire("x", ttl=0)


# ---------------------------------------------------------------------- Redis only


async def test_a_process_hears_only_the_rooms_it_holds(redis_url: str) -> None:
    """A room's notices go to the processes that hear it (hold it), no others: a process that
    holds none of a busy room's state pays nothing for its notices."""
    namespace = unique_name("fabula-test")
    publisher, listener = await RedisBus.connect(redis_url, namespace), await RedisBus.connect(redis_url, namespace)
    try:
        with listener.subscribe() as subscription:
            publisher.publish("UNHRD", 0)
            await publisher.flush()
            await nothing_arrives(subscription)
            await hear(listener, subscription, "HEARD", "OTHER")
            for seq in range(3):
                publisher.publish("UNHRD", seq + 1)
                publisher.publish("HEARD", seq)
                await publisher.flush()
            assert await until(subscription, {"HEARD": 2}) == [Notice("HEARD", seq) for seq in range(3)]
            listener.unhear("HEARD")
            listener.unhear("HEARD")  # (twice: harmless)
            await asyncio.sleep(0.2)  # (Redis is told in a moment)
            publisher.publish("HEARD", 3)
            publisher.publish("OTHER", 0)
            await publisher.flush()
            assert await next_notice(subscription) == Notice("OTHER", 0)
            await nothing_arrives(subscription)
    finally:
        await publisher.close()
        await listener.close()


async def test_a_room_no_other_process_hears_costs_no_message(redis_url: str) -> None:
    """A room's notices go out only while another process hears it (it said so on the namespace's
    channel): none is read back by its own publisher alone. One that begins to hear it gets the
    newest seq it missed at once; one that lets go, closes, or stops saying it (dies) gets no more."""
    namespace = unique_name("fabula-test")
    every = 0.2  # (seconds between two full sayings; the first 0.3 s after subscribing send everything)
    publisher = await RedisBus.connect(redis_url, namespace, announce_every=every)
    listener = await RedisBus.connect(redis_url, namespace, announce_every=every)
    raw = Redis.from_url(redis_url)
    wire = raw.pubsub()

    async def on_the_wire(within: float = 0.4) -> list[bytes]:
        """The room messages Redis carried (to a reader that is not a process of the deployment)."""
        seen: list[bytes] = []
        end = time.monotonic() + within
        while (left := end - time.monotonic()) > 0:
            message = await wire.get_message(ignore_subscribe_messages=True, timeout=left)
            if message is not None:
                seen.append(message["channel"].removeprefix(f"{namespace}:room:".encode()))
        return seen

    try:
        await wire.subscribe(*(f"{namespace}:room:{room}" for room in ("QUIET", "GHOST", "BYEBY")))
        await asyncio.sleep(2 * every)  # (both past their first moments)
        with listener.subscribe() as subscription:
            for seq in range(5):
                publisher.publish("QUIET", seq)
            await publisher.flush()
            assert await on_the_wire() == []
            await hear(listener, subscription, "QUIET")
            assert await next_notice(subscription) == Notice("QUIET", 4)  # (told when it began to hear)
            publisher.publish("QUIET", 5)
            await publisher.flush()
            assert await next_notice(subscription) == Notice("QUIET", 5)
            assert await on_the_wire() == [b"QUIET", b"QUIET"]
            listener.unhear("QUIET")
            await eventually(lambda: not publisher.heard_elsewhere("QUIET"))
            publisher.publish("QUIET", 6)
            await publisher.flush()
            assert await on_the_wire() == []

            # a process that says it hears a room and then says nothing more (it died)
            ghost = _LISTENS + msgspec.msgpack.encode(_Listens("ghost", ["GHOST"], True))
            await raw.publish(channel_name(namespace), ghost)
            said = time.monotonic()
            await eventually(lambda: publisher.heard_elsewhere("GHOST"))
            publisher.publish("GHOST", 0)
            await publisher.flush()
            assert await on_the_wire() == [b"GHOST"]
            await eventually(lambda: not publisher.heard_elsewhere("GHOST"))
            # (it lapses three sayings later, at the next full one: not before)
            assert time.monotonic() - said >= 3 * every
            publisher.publish("GHOST", 1)
            await publisher.flush()
            assert await on_the_wire() == []

            await hear(listener, subscription, "BYEBY")
        await asyncio.sleep(every / 2)
        await listener.close()  # (says it hears nothing now, not once it lapses)
        await eventually(lambda: not publisher.heard_elsewhere("BYEBY"), within=2 * every)
        publisher.publish("BYEBY", 0)
        await publisher.flush()
        assert await on_the_wire() == []
    finally:
        await wire.aclose()
        await raw.aclose()
        await publisher.close()
        await listener.close()


async def test_namespaces_do_not_hear_each_other(redis_url: str) -> None:
    ours, theirs = unique_name("fabula-test"), unique_name("fabula-test")
    a, b = await RedisBus.connect(redis_url, ours), await RedisBus.connect(redis_url, theirs)
    lease_a, lease_b = a.lease(), b.lease()
    try:
        with b.subscribe() as subscription:
            await hear(b, subscription, "ABCDE")
            a.publish("ABCDE", 0)
            await a.flush()
            await nothing_arrives(subscription)
        assert await lease_a.try_acquire("timer:ABCDE:0", ttl=5)
        assert await lease_b.try_acquire("timer:ABCDE:0", ttl=5), "another deployment's lease"
        assert lease_a.key("k") == f"{ours}:lease:k"
    finally:
        await a.close()
        await b.close()


async def test_malformed_messages_on_the_channel_are_ignored(redis_url: str) -> None:
    namespace = unique_name("fabula-test")
    bus = await RedisBus.connect(redis_url, namespace)
    raw = Redis.from_url(redis_url)
    try:
        with bus.subscribe() as subscription:
            await raw.publish(channel_name(namespace), b"no seq here")
            await raw.publish(channel_name(namespace), b"ABCDE:4")
            assert await next_notice(subscription) == Notice("ABCDE", 4)
    finally:
        await raw.aclose()
        await bus.close()


async def test_an_unreachable_redis_fails_fast() -> None:
    started = time.monotonic()
    with pytest.raises(Exception, match=r"(?i)connect|refused"):
        await RedisBus.connect("redis://127.0.0.1:9/0", timeout=2)
    with pytest.raises(Exception, match=r"(?i)connect|refused"):
        await RedisLease.connect("redis://127.0.0.1:9/0", timeout=2)
    assert time.monotonic() - started < 10


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.kill()


@pytest.fixture
async def two_buses(private_redis: PrivateRedis) -> AsyncIterator[tuple[RedisBus, RedisBus]]:
    first = await RedisBus.connect(private_redis.url, "fabula")
    second = await RedisBus.connect(private_redis.url, "fabula")
    yield first, second
    await first.close(timeout=0.5)
    await second.close(timeout=0.5)


async def test_the_bus_comes_back_after_redis_restarts(
    private_redis: PrivateRedis, two_buses: tuple[RedisBus, RedisBus]
) -> None:
    publisher, listener = two_buses
    with listener.subscribe() as subscription:
        await hear(listener, subscription, "ABCDE")
        publisher.publish("ABCDE", 0)
        assert await next_notice(subscription) == Notice("ABCDE", 0)

        private_redis.kill()
        publisher.publish("ABCDE", 1)  # Redis is down: kept and sent once it is back …
        await asyncio.sleep(0.5)
        assert not listener.connected
        private_redis.start()

        # … which may be before or after the listener has subscribed again: either way the
        # listener is told to re-check (RESYNC), and then hears everything as before
        got = [await next_notice(subscription, timeout=15)]
        while got[-1] != RESYNC:
            got.append(await next_notice(subscription, timeout=15))
        # (the room is heard again too: said before or after the resync)
        assert set(got) <= {RESYNC, Notice("ABCDE", 1), Notice("ABCDE", HEARD)}
        assert listener.connected
        assert listener.reconnections == 1
        await asyncio.wait_for(publisher.flush(), 15)

        publisher.publish("ABCDE", 2)
        while (notice := await next_notice(subscription, timeout=15)) != Notice("ABCDE", 2):
            assert notice in {Notice("ABCDE", 1), Notice("ABCDE", HEARD)}


async def test_a_redis_lease_lives_through_a_dead_holder(private_redis: PrivateRedis) -> None:
    """A holder killed before releasing blocks the key only until its ttl runs out."""
    dead, alive = await RedisLease.connect(private_redis.url), await RedisLease.connect(private_redis.url)
    try:
        assert await dead.try_acquire("timer:ABCDE:3", ttl=0.3)
        await dead.close()  # no release: it died
        assert not await alive.try_acquire("timer:ABCDE:3", ttl=1)
        await asyncio.sleep(0.4)
        assert await alive.try_acquire("timer:ABCDE:3", ttl=1)
    finally:
        await alive.close()


async def test_a_notice_carries_its_room_s_newest_entries_and_a_burst_carries_them_all(
    bus_backend: BusBackend,
) -> None:
    publisher, listener = await bus_backend.bus(), await bus_backend.bus()
    with listener.subscribe() as subscription:
        await hear(listener, subscription, "ABCDE")
        publisher.publish("ABCDE", 2, [b"e1", b"e2"])
        assert await next_notice(subscription) == Notice("ABCDE", 2, (b"e1", b"e2"))
        # published faster than sent: the room's entries since the last message go together
        for seq in range(3, 9):
            publisher.publish("ABCDE", seq, [f"e{seq}".encode()])
        got = await until(subscription, {"ABCDE": 8})
        carried = {notice.first + n: data for notice in got for n, data in enumerate(notice.entries)}
        assert carried == {seq: f"e{seq}".encode() for seq in range(3, 9)}, "every entry, each at its seq"
        # entries that do not follow on (another process's came between) are not carried over a gap
        publisher.publish("ABCDE", 10, [b"e10"])
        publisher.publish("ABCDE", 12, [b"e12"])
        got = await until(subscription, {"ABCDE": 12})
        assert all(notice.first + len(notice.entries) - 1 == notice.seq for notice in got)
        assert got[-1].entries[-1:] == (b"e12",)
        if bus_backend.name != "local":  # too big to carry: the readers load it from the store
            publisher.publish("ABCDE", 13, [b"x" * (CARRIED_BYTES + 1)])
            assert await next_notice(subscription) == Notice("ABCDE", 13)
