"""Requests for one room that arrive while its last entry is being stored are stored together."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from fabula.protocol.settings import RoomSettings
from fabula.server.connections import Connection, TokenBucket
from fabula.server.entries import Created, Joined, Said, TeamsSet
from fabula.server.errors import RoomError
from fabula.server.fanout import FanOut
from fabula.server.live_room import LiveRoom, replay
from fabula.server.metrics import Metrics
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS
from fabula.server.rooms import Rooms
from fabula.store import LocalBus, SqliteStore, StoredEntry

pytestmark = pytest.mark.anyio


class SlowStore(SqliteStore):
    """SQLite whose appends take a while, as a network database's do; it records each append."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.appends: list[tuple[int, int]] = []

    async def append_many(self, code: str, seq: int, data: Sequence[bytes], at: float) -> None:
        await asyncio.sleep(0.05)
        self.appends.append((seq, len(data)))
        await super().append_many(code, seq, data, at)


async def a_room(tmp_path: Path) -> tuple[Rooms, LiveRoom, SlowStore]:
    store = SlowStore(tmp_path / "rooms.sqlite3")
    rooms, live = await a_room_on(store)
    store.appends.clear()
    return rooms, live, store


async def test_requests_that_wait_for_their_room_are_stored_in_one_append(tmp_path: Path) -> None:
    rooms, live, store = await a_room(tmp_path)
    said = [Said(at=2.0, member=0, text=f"hello {n}") for n in range(4)]

    seqs = await asyncio.gather(*(rooms.commit(live, entry) for entry in said))

    assert seqs == [2, 3, 4, 5]
    assert store.appends == [(2, 1), (3, 3)], "the first alone; the three that waited for it together"
    stored = await store.load("ABCDE")
    assert [entry.seq for entry in stored] == [0, 1, 2, 3, 4, 5]
    assert [e.text for e, _ in live.room.chat] == [f"hello {n}" for n in range(4)]


async def test_one_message_twice_in_one_append_is_made_once_and_both_are_told_its_seq(tmp_path: Path) -> None:
    """The same message (member, id) through two processes can reach the owner in one batch: it is
    made once, and the second request is answered with the first's seq once that is stored (on
    scale-out it was refused as the room then was: `wrong_phase` for a move)."""
    rooms, live, store = await a_room(tmp_path)
    entries = [
        Said(at=2.0, member=0, text="first"),
        Said(at=2.0, by=0, client_id="same-1", member=0, text="once"),
        Said(at=2.0, by=0, client_id="same-1", member=0, text="once"),
    ]

    seqs = await asyncio.gather(*(rooms.commit(live, entry) for entry in entries))

    assert seqs == [2, 3, 3]
    assert store.appends == [(2, 1), (3, 1)]
    assert [e.text for e, _ in live.room.chat] == ["first", "once"]
    assert [entry.seq for entry in await store.load("ABCDE")] == [0, 1, 2, 3]


async def test_a_refused_request_fails_alone_and_the_others_are_stored(tmp_path: Path) -> None:
    rooms, live, store = await a_room(tmp_path)
    entries = [
        Said(at=2.0, member=0, text="first"),
        Said(at=2.0, member=0, text="second"),
        Said(at=2.0, member=7, text="not a player"),
        Said(at=2.0, member=0, text="third"),
    ]

    outcomes = await asyncio.gather(*(rooms.commit(live, entry) for entry in entries), return_exceptions=True)

    assert outcomes[:2] == [2, 3]
    assert isinstance(outcomes[2], RoomError)
    assert outcomes[2].code == "unknown_member"
    assert outcomes[3] == 4
    assert store.appends == [(2, 1), (3, 2)]
    assert [entry.seq for entry in await store.load("ABCDE")] == [0, 1, 2, 3, 4]


async def test_a_store_that_fails_fails_every_request_of_its_append_and_keeps_nothing(tmp_path: Path) -> None:
    rooms, live, store = await a_room(tmp_path)
    original = store.append_many
    calls = 0

    async def fail_the_second(code: str, seq: int, data: Sequence[bytes], at: float) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            await asyncio.sleep(0.05)
            raise OSError("the disk is full")
        await original(code, seq, data, at)

    store.append_many = fail_the_second  # type: ignore[method-assign]
    said = [Said(at=2.0, member=0, text=f"hello {n}") for n in range(3)]
    outcomes = await asyncio.gather(*(rooms.commit(live, entry) for entry in said), return_exceptions=True)

    assert outcomes[0] == 2
    assert all(isinstance(o, RoomError) and o.code == "store_failed" for o in outcomes[1:])
    assert live.room.seq == 3, "memory went back to what is stored"
    assert [e.text for e, _ in live.room.chat] == ["hello 0"]


async def test_team_lines_stored_together_each_reach_only_their_own_team(tmp_path: Path) -> None:
    store = SlowStore(tmp_path / "rooms.sqlite3")
    rooms = Rooms(store, LocalBus(), Metrics(), time.time)
    rooms.listeners.append(FanOut(lambda: 30.0))
    await store.create_room("TEAMS", at=0.0)
    live = LiveRoom(Room("TEAMS"))
    rooms.hold(live)
    await rooms.commit(live, Created(at=0.0, settings=RoomSettings(mode="teams")))
    for member in range(4):
        await rooms.commit(
            live, Joined(at=1.0, member=member, name=f"P{member}", colour=COLOURS[member], token_hash=f"h{member}")
        )
    await rooms.commit(live, TeamsSet(at=1.0, pairs=[[0, 1], [2, 3]]))
    connections = {}
    for member in range(4):
        connection = Connection("127.0.0.1", TokenBucket(100, 100), TokenBucket(100, 100), code="TEAMS", member=member)
        live.presence.connections.add(connection)
        connections[member] = connection

    lines = [Said(at=2.0, member=m, text=f"for my team, from {m}", team_only=True) for m in (0, 2, 1, 3)]
    await asyncio.gather(*(rooms.commit(live, line) for line in lines))

    assert store.appends[-1][1] == 3, "the last three lines were stored together"
    for member, connection in connections.items():
        read = [json.loads(data)["text"] for data in connection.outbox.drain() if json.loads(data)["type"] == "chat"]
        team = {0: {0, 1}, 1: {0, 1}, 2: {2, 3}, 3: {2, 3}}[member]
        assert read == [f"for my team, from {m}" for m in (0, 2, 1, 3) if m in team]


class AwayStore(SlowStore):
    """A store that can go away: while ``away``, every append and load fails as a cut database's."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.away = False
        self.loads = 0

    async def append_many(self, code: str, seq: int, data: Sequence[bytes], at: float) -> None:
        if self.away:
            raise ConnectionRefusedError("the database is down")
        await super().append_many(code, seq, data, at)

    async def load(self, code: str, since: int = 0) -> list[StoredEntry]:
        self.loads += 1
        if self.away:
            raise ConnectionRefusedError("the database is down")
        return await super().load(code, since)


async def a_room_on(store: SlowStore) -> tuple[Rooms, LiveRoom]:
    rooms = Rooms(store, LocalBus(), Metrics(), time.time)
    await store.create_room("ABCDE", at=0.0)
    live = LiveRoom(Room("ABCDE"))
    rooms.hold(live)
    await rooms.commit(live, Created(at=0.0, settings=RoomSettings(mode="odyssey")))
    await rooms.commit(live, Joined(at=1.0, member=0, name="Ada", colour=COLOURS[0], token_hash="h0"))
    return rooms, live


async def test_with_the_store_away_a_room_refuses_everything_and_goes_back_to_it_when_it_returns(
    tmp_path: Path,
) -> None:
    store = AwayStore(tmp_path / "rooms.sqlite3")
    rooms, live = await a_room_on(store)
    store.away = True

    with pytest.raises(RoomError) as refused:
        await rooms.commit(live, Said(at=2.0, member=0, text="lost", by=0, client_id="m1"))
    assert refused.value.code == "store_failed"
    # memory could not go back to the store: the line is still there, marked as not stored
    assert live.stale_since == 2
    with pytest.raises(RoomError) as again:
        await rooms.made_before(live, (0, "m1"))  # sent again: not acknowledged from memory
    assert again.value.code == "store_failed"
    with pytest.raises(RoomError) as other:
        await rooms.commit(live, Said(at=2.0, member=0, text="also lost", by=0, client_id="m2"))
    assert other.value.code == "store_failed"

    store.away = False
    assert await rooms.made_before(live, (0, "m1")) is None, "never stored: made anew"
    assert live.stale_since is None
    assert live.room.seq == 2
    assert live.room.chat == type(live.room.chat)(), "the line that was not stored is gone"
    assert await rooms.commit(live, Said(at=3.0, member=0, text="back", by=0, client_id="m1")) == 2
    assert await rooms.made_before(live, (0, "m1")) == 2
    assert [entry.seq for entry in await store.load("ABCDE")] == [0, 1, 2]


async def test_a_message_sent_again_while_its_entry_is_being_stored_is_acknowledged_once_stored(
    tmp_path: Path,
) -> None:
    store = AwayStore(tmp_path / "rooms.sqlite3")
    rooms, live = await a_room_on(store)
    committing = asyncio.ensure_future(rooms.commit(live, Said(at=2.0, member=0, text="hi", by=0, client_id="m1")))
    await asyncio.sleep(0.01)  # applied in memory, its append under way (SlowStore: 50 ms)
    assert (0, "m1") in live.room.client_ids
    stored_before = len(await store.load("ABCDE"))

    seq = await rooms.made_before(live, (0, "m1"))

    assert stored_before == 2, "the entry was not stored yet when the message came again"
    assert seq == 2 == await committing
    assert len(await store.load("ABCDE")) == 3, "answered only once it was stored"


async def another_process_on(store: SlowStore) -> tuple[Rooms, LiveRoom]:
    """A second process holding room ABCDE as it is stored now, as several processes share one."""
    rooms = Rooms(store, LocalBus(), Metrics(), time.time, shared=True)
    replayed = replay("ABCDE", await store.load("ABCDE"))
    assert replayed is not None
    live = LiveRoom(replayed)
    rooms.hold(live)
    return rooms, live


async def test_a_process_behind_the_store_checks_it_before_refusing_and_never_refuses_what_was_made(
    tmp_path: Path,
) -> None:
    # Two processes on one store; B has not heard of what A stored since it loaded the room (the
    # notice is on its way, or A died before sending it).
    store = SlowStore(tmp_path / "rooms.sqlite3")
    rooms_a, live_a = await a_room_on(store)
    rooms_b, live_b = await another_process_on(store)
    await rooms_a.commit(live_a, Joined(at=2.0, member=1, name="Bo", colour=COLOURS[1], token_hash="h1"))
    made = await rooms_a.commit(live_a, Said(at=3.0, member=1, text="hi", by=1, client_id="m1"))

    # the same message, sent again through B: on B's room member 1 is nobody, but it was made
    again = await rooms_b.commit(live_b, Said(at=3.0, member=1, text="hi", by=1, client_id="m1"))
    assert again == made == 3
    assert live_b.room.seq == 4, "B caught up with what A stored"
    # a new message of member 1 through B, now that B knows them, is made at the next seq
    assert await rooms_b.commit(live_b, Said(at=4.0, member=1, text="again", by=1, client_id="m2")) == 4
    # a refusal that the store confirms stays a refusal
    with pytest.raises(RoomError) as refused:
        await rooms_b.commit(live_b, Said(at=5.0, member=9, text="nobody", by=9, client_id="m3"))
    assert refused.value.code == "unknown_member"
    assert [entry.seq for entry in await store.load("ABCDE")] == [0, 1, 2, 3, 4]


async def test_entries_announced_while_the_room_was_busy_are_applied_without_reading_the_store(
    tmp_path: Path,
) -> None:
    store = AwayStore(tmp_path / "rooms.sqlite3")
    rooms_a, live_a = await a_room_on(store)
    rooms_b, live_b = await another_process_on(store)
    for n in range(3):  # A makes three entries; B heard of them with their data, while busy
        await rooms_a.commit(live_a, Said(at=2.0, member=0, text=f"line {n}"))
    assert rooms_a.recent_entries(live_a, since=2, upto=4) == [item.data for item in await store.load("ABCDE", 2)]
    live_b.carried.update((item.seq, item.data) for item in await store.load("ABCDE", 2))
    live_b.behind = 4
    loads = store.loads

    assert await rooms_b.catch_up(live_b)

    assert store.loads == loads, "the store was not read"
    assert live_b.room.seq == 5
    assert [said.text for said, _ in live_b.room.chat] == ["line 0", "line 1", "line 2"]
    assert live_b.carried == {}
    # a gap (an entry that came without its data) is read from the store
    await rooms_a.commit(live_a, Said(at=3.0, member=0, text="line 3"))
    await rooms_a.commit(live_a, Said(at=3.0, member=0, text="line 4"))
    live_b.carried[6] = (await store.load("ABCDE", 6))[0].data
    live_b.behind = 6
    loads = store.loads
    assert await rooms_b.catch_up(live_b)
    assert store.loads == loads + 1
    assert live_b.room.seq == 7
    # what a room keeps of its newest entries has no gap, and knows where it ends
    assert rooms_b.recent_entries(live_b, since=0, upto=6) == [item.data for item in await store.load("ABCDE", 2)]
    assert rooms_b.recent_entries(live_b, since=5, upto=6) == [item.data for item in await store.load("ABCDE", 5)]
    assert rooms_b.recent_entries(live_b, since=0, upto=9) == []


class FailingListener:
    """A listener with a bug: it fails on every entry made here (or on every one, ``always``)."""

    def __init__(self, *, always: bool = False) -> None:
        self.always = always
        self.heard = 0

    def entry(self, live: LiveRoom, entry: object, *, here: bool) -> None:
        del live, entry
        self.heard += 1
        if here or self.always:
            raise RuntimeError("a bug in a listener")

    def refreshed(self, live: LiveRoom) -> None:
        del live

    async def loaded(self, live: LiveRoom) -> None:
        del live


async def test_a_listener_s_bug_never_turns_a_stored_change_into_a_refusal_even_after_a_conflict(
    tmp_path: Path,
) -> None:
    # B's room is behind the store (A stored an entry B has not heard of): B's append finds its
    # seq taken, B rebuilds the room and makes the request again — the retry path
    store = SlowStore(tmp_path / "rooms.sqlite3")
    rooms_a, live_a = await a_room_on(store)
    rooms_b, live_b = await another_process_on(store)
    failing = FailingListener()
    rooms_b.listeners.append(failing)
    await rooms_a.commit(live_a, Said(at=2.0, member=0, text="from A"))

    seq = await rooms_b.commit(live_b, Said(at=3.0, member=0, text="from B", by=0, client_id="m1"))

    assert seq == 3, "stored at the seq after A's entry, and answered with it"
    assert failing.heard >= 1, "the listener was told (and failed)"
    assert [entry.seq for entry in await store.load("ABCDE")] == [0, 1, 2, 3]
    # alone, without a conflict, the same; and one that fails on what it follows from another
    # process too does not stop the room catching up
    failing.always = True
    assert await rooms_b.commit(live_b, Said(at=4.0, member=0, text="again", by=0, client_id="m2")) == 4
    await rooms_a.commit(live_a, Said(at=5.0, member=0, text="from A again"))
    assert await rooms_b.catch_up(live_b)
    assert live_b.room.seq == 6
