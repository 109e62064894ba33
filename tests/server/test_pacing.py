"""What goes to a crowd is paced: its outboxes wake a slice per turn of the event loop, so a
player's state (and a player's move read meanwhile) does not wait behind thousands of sends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from fabula.server.connections import PACED_PER_TURN, Outbox

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
