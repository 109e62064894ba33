"""What goes to a crowd is paced: its outboxes wake a slice per turn of the event loop, so a
player's state (and a player's move read meanwhile) does not wait behind thousands of sends."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from fabula.protocol.settings import RoomSettings
from fabula.server.connections import PACED_PER_TURN, Connection, Outbox, TokenBucket
from fabula.server.entries import Created, Joined
from fabula.server.fanout import FanOut
from fabula.server.live_room import LiveRoom
from fabula.server.metrics import Metrics
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS
from fabula.server.rooms import Rooms
from fabula.store import LocalBus, SqliteStore

pytestmark = pytest.mark.anyio


async def _sender(name: str, outbox: Outbox, sent: list[tuple[str, bytes]]) -> None:
    """As a socket's sender task: takes what its outbox has, one message a wake."""
    while True:
        sent.append((name, await outbox.get()))


async def _until(condition: Callable[[], bool], turns: int = 10_000) -> None:
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("not done in time")


async def test_a_players_state_put_after_a_thousand_watchers_states_is_sent_before_most_of_them() -> None:
    sent: list[tuple[str, bytes]] = []
    watchers = [Outbox() for _ in range(1_000)]
    player = Outbox()
    tasks = [asyncio.create_task(_sender(f"watcher {i}", o, sent)) for i, o in enumerate(watchers)]
    tasks.append(asyncio.create_task(_sender("player", player, sent)))
    await asyncio.sleep(0)  # (every sender waits on its outbox)

    for outbox in watchers:
        outbox.put(b"spectators' state", is_state=True, paced=True)
    player.put(b"player's state", is_state=True)
    await _until(lambda: len(sent) == 1_001)

    names = [name for name, _ in sent]
    assert names.index("player") <= PACED_PER_TURN, f"the player's state went out {names.index('player')}th"
    assert len(set(names)) == 1_001, "each outbox sent its state once"
    assert {data for name, data in sent if name != "player"} == {b"spectators' state"}
    for task in tasks:
        task.cancel()


async def test_a_paced_outbox_sends_only_the_newest_state_and_keeps_the_order_of_other_messages() -> None:
    sent: list[tuple[str, bytes]] = []
    outbox = Outbox()
    task = asyncio.create_task(_sender("watcher", outbox, sent))
    await asyncio.sleep(0)

    outbox.put(b"state 1", is_state=True, paced=True)
    outbox.put(b"state 2", is_state=True, paced=True)  # (replaces state 1, unsent)
    outbox.put(b"your standing", paced=True)
    outbox.put(b"an answer")  # (not paced: wakes the sender at once, all in order)
    await _until(lambda: len(sent) == 3)
    await asyncio.sleep(0)

    assert [data for _, data in sent] == [b"state 2", b"your standing", b"an answer"]
    task.cancel()


async def test_a_closed_outbox_is_passed_over_and_the_others_still_wake() -> None:
    sent: list[tuple[str, bytes]] = []
    outboxes = [Outbox() for _ in range(3 * PACED_PER_TURN)]
    tasks = [asyncio.create_task(_sender(str(i), o, sent)) for i, o in enumerate(outboxes)]
    await asyncio.sleep(0)
    outboxes[5].closed = True

    for outbox in outboxes:
        outbox.put(b"state", is_state=True, paced=True)
    await _until(lambda: len(sent) == len(outboxes) - 1)

    assert "5" not in {name for name, _ in sent}
    for task in tasks:
        task.cancel()


async def test_a_change_queues_the_players_state_at_once_and_the_watchers_from_the_next_turn(tmp_path: Path) -> None:
    """Even queueing a state for thousands of watchers takes longer than a player's move: the
    players' senders go first, and the watchers' states are queued from the next turn on."""
    store = SqliteStore(tmp_path / "rooms.sqlite3")
    rooms = Rooms(store, LocalBus(), Metrics(), time.time)
    fanout = FanOut(lambda: 30.0)
    await store.create_room("PACED", at=0.0)
    live = LiveRoom(Room("PACED"))
    rooms.hold(live)
    await rooms.commit(live, Created(at=0.0, settings=RoomSettings()))
    await rooms.commit(live, Joined(at=1.0, member=0, name="Mara", colour=COLOURS[0], token_hash="h0"))

    def connection(member: int | None) -> Connection:
        made = Connection("127.0.0.1", TokenBucket(100, 100), TokenBucket(100, 100), code="PACED", member=member)
        live.presence.connections.add(made)
        return made

    player = connection(0)
    watchers = [connection(None) for _ in range(1_000)]

    fanout.states(live)

    assert [json.loads(data)["type"] for data in player.outbox.drain()] == ["state"]
    assert all(not watcher.outbox.drain() for watcher in watchers), "a watcher's state was queued at once"
    fanout.states(live)
    player.outbox.drain()
    await asyncio.sleep(0)
    queued = [watcher.outbox.drain() for watcher in watchers]
    assert all(len(messages) == 1 for messages in queued), "each watcher has the newest state, once"
    assert {json.loads(messages[0])["type"] for messages in queued} == {"state"}
    assert "Mara" in queued[0][0].decode(), "the room as a spectator sees it"
