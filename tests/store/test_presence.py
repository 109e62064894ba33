"""Presence across processes (`RedisPresence`) against the real Redis: two instances are two
processes of one deployment, on a namespace of their own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from fabula.store import SPECTATORS, RedisPresence, Seen

from ..services import drop_namespace
from .conftest import unique_name

pytestmark = pytest.mark.anyio


@pytest.fixture
async def namespace(redis_url: str) -> AsyncIterator[str]:
    name = unique_name("fabula_presence")
    try:
        yield name
    finally:
        await drop_namespace(redis_url, name)


async def test_each_process_reads_what_the_others_announce(redis_url: str, namespace: str) -> None:
    first = await RedisPresence.connect(redis_url, namespace, linger=60)
    second = await RedisPresence.connect(redis_url, namespace, linger=60)
    try:
        changes = second.changes()
        assert await first.announce({"ROOMA": [Seen(0, 3), Seen(SPECTATORS, 0)], "ROOMB": []}) == ["ROOMA"]
        notice = await asyncio.wait_for(anext(changes), 5)
        assert notice.room == "ROOMA"
        found = await second.others(["ROOMA", "ROOMB"])
        assert sorted(found["ROOMA"], key=lambda s: s.member) == [Seen(SPECTATORS, 0), Seen(0, 3)]
        assert found["ROOMB"] == []
        assert (await first.others(["ROOMA"]))["ROOMA"] == [], "a process does not read its own"
        assert await second.visited("ROOMA")
        assert not await second.visited("ROOMB")
        # announcing the same again changes nothing (no notice); a new hello does
        assert await first.announce({"ROOMA": [Seen(0, 3), Seen(SPECTATORS, 0)]}) == []
        assert await first.announce({"ROOMA": [Seen(0, 7)]}) == ["ROOMA"]
        assert (await second.others(["ROOMA"]))["ROOMA"] == [Seen(0, 7)]
        # leaving: withdrawn at once, while the room stays visited for `linger`
        await first.announce({"ROOMA": []})
        assert (await second.others(["ROOMA"]))["ROOMA"] == []
        assert await second.visited("ROOMA")
    finally:
        await first.close()
        await second.close()


async def test_a_dead_process_s_announcements_expire_and_a_closed_one_withdraws(redis_url: str, namespace: str) -> None:
    dying = await RedisPresence.connect(redis_url, namespace, ttl=0.6, linger=60)
    closing = await RedisPresence.connect(redis_url, namespace, linger=60)
    reader = await RedisPresence.connect(redis_url, namespace, linger=60)
    try:
        await dying.announce({"ROOMA": [Seen(1, 0)]})
        await closing.announce({"ROOMA": [Seen(2, 0)]})
        assert sorted(s.member for s in (await reader.others(["ROOMA"]))["ROOMA"]) == [1, 2]
        await closing.close()  # stopped the way an operator stops it: withdrawn at once
        assert [s.member for s in (await reader.others(["ROOMA"]))["ROOMA"]] == [1]
        await asyncio.sleep(0.8)  # `dying` stopped announcing (as a killed process would)
        assert (await reader.others(["ROOMA"]))["ROOMA"] == []
    finally:
        for presence in (dying, closing, reader):
            await presence.close()  # (closing twice is harmless)


async def test_many_rooms_go_a_few_a_call_and_come_out_the_same(redis_url: str, namespace: str) -> None:
    """Rooms are written and read `ROOMS_A_CALL` at a time (so that thousands never hold the event
    loop for long): with three a call, seven rooms — stale elements removed, rooms emptied, a
    re-announcement that extends every score — read back as announced, each room its own."""
    writer = await RedisPresence.connect(redis_url, namespace, ttl=1.0, linger=60)
    reader = await RedisPresence.connect(redis_url, namespace, linger=60)
    writer.rooms_a_call = reader.rooms_a_call = 3
    codes = [f"ROOM{i}" for i in range(7)]
    try:
        assert await writer.announce({code: [Seen(i, 0), Seen(SPECTATORS, i)] for i, code in enumerate(codes)}) == codes
        found = await reader.others(codes)
        assert {code: sorted(s.member for s in seen) for code, seen in found.items()} == {
            code: [SPECTATORS, i] for i, code in enumerate(codes)
        }
        # member i leaves room i for the even rooms; the odd rooms empty
        later = {code: [Seen(SPECTATORS, i)] if i % 2 == 0 else [] for i, code in enumerate(codes)}
        assert await writer.announce(later) == codes
        found = await reader.others(codes)
        assert {code: [(s.member, s.since) for s in seen] for code, seen in found.items()} == {
            code: [(SPECTATORS, i)] if i % 2 == 0 else [] for i, code in enumerate(codes)
        }
        assert [await reader.visited(code) for code in codes] == [True] * 7
        # re-announced before the ttl runs out, every room's presence outlives the first ttl
        await asyncio.sleep(0.6)
        assert await writer.announce(later) == []
        await asyncio.sleep(0.6)
        found = await reader.others(codes)
        assert [len(found[code]) for code in codes] == [1, 0, 1, 0, 1, 0, 1]
    finally:
        await writer.close()
        await reader.close()
