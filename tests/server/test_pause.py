"""Time (issue 36): the host pauses the game (its timer stands still, nobody moves, no bot moves)
and resumes it (the timer goes on with what it had left), adds time to the running timer, and
sets ``extended_timers`` (every timer twice as long). Only the host; a pause is an entry, so it
survives a restart."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from fabula import protocol as p
from fabula.cards.library import DeckLibrary
from fabula.protocol.settings import RoomSettings
from fabula.rules import RulesError, Tell, numbered_deck
from fabula.server.commands import Context, entry_for
from fabula.server.entries import Acted, Created, Joined, Paused, Resumed, Started, TimeAdded, decode
from fabula.server.room import Room
from fabula.server.room_clock import MOST_TIME_LEFT, REVEAL_SECONDS
from fabula.server.room_settings import COLOURS

from .harness import Client, LiveServer, create_room, join_room, live_server

# ---------------------------------------------------------------------- the room's clock


def room_of(*, extended: bool = False, clue: int | None = 60, started_at: float = 100.0) -> Room:
    room = Room("TIME")
    settings = RoomSettings(clue_seconds=clue, play_seconds=40, vote_seconds=30, extended_timers=extended)
    room.apply(Created(at=0.0, settings=settings))
    for n in range(3):
        room.apply(Joined(at=1.0, member=n, name=f"P{n}", colour=COLOURS[n], token_hash=f"h{n}"))
    room.apply(Started(at=started_at, seed=3, seating=[0, 1, 2], deck=list(numbered_deck())))
    return room


def tell(room: Room, at: float) -> Acted:
    """The storyteller's clue."""
    assert room.game is not None
    seat = room.game.storyteller
    action = next(a for a in room.game.legal_actions(seat) if isinstance(a, Tell))
    return Acted(at=at, member=room.seating[seat], action=action.with_clue("Far").to_json())


def refusal(room: Room, entry: Any) -> str:
    seq = room.seq
    with pytest.raises(RulesError) as refused:
        room.apply(entry)
    assert room.seq == seq
    return str(refused.value.code)


def test_a_paused_timer_stands_still_and_goes_on_from_where_it_stopped() -> None:
    room = room_of()
    assert room.deadline() == 160.0
    room.apply(Paused(at=130.0))
    assert (room.paused, room.deadline(), room.time_left()) == (True, None, 30.0)
    room.apply(Resumed(at=5000.0))  # an hour and more later, or after a restart
    assert (room.paused, room.deadline(), room.time_left()) == (False, 5030.0, None)
    room.apply(Paused(at=5010.0))
    room.apply(Resumed(at=5100.0))
    assert room.deadline() == 5120.0, "a second pause adds to the first"


def test_the_host_adds_time_to_the_running_timer_also_while_paused() -> None:
    room = room_of()
    room.apply(TimeAdded(at=110.0, seconds=30))
    assert (room.deadline(), room.time_added) == (190.0, 30)
    room.apply(Paused(at=120.0))
    room.apply(TimeAdded(at=150.0, seconds=30))
    assert room.time_left() == 100.0
    room.apply(Resumed(at=200.0))
    assert room.deadline() == 300.0


def test_a_timer_that_ran_out_gets_the_added_time_from_now() -> None:
    room = room_of()
    room.apply(TimeAdded(at=170.0, seconds=30))  # ran out at 160: a bot was about to move
    assert room.deadline() == 200.0


def test_a_new_phase_starts_its_timer_afresh() -> None:
    room = room_of()
    room.apply(TimeAdded(at=110.0, seconds=30))
    room.apply(tell(room, 120.0))
    assert (room.deadline(), room.time_added) == (160.0, 0), "the play phase: its own 40 s"


def test_extended_timers_double_every_timer_the_reveal_too() -> None:
    plain, extended = room_of(), room_of(extended=True)
    assert plain.deadline() == 160.0
    assert extended.deadline() == 220.0
    assert extended.timer_factor == 2
    assert extended.phase_seconds() == 2 * 60
    # (the first clue of a later round adds the reveal's seconds: doubled as well)
    assert REVEAL_SECONDS * 2 == 30


def test_what_the_clock_refuses_changes_nothing() -> None:
    room = room_of(clue=None)
    assert refusal(room, TimeAdded(at=110.0, seconds=30)) == "no_timer"
    assert refusal(room, Resumed(at=110.0)) == "not_paused"
    room.apply(Paused(at=110.0))
    assert refusal(room, Paused(at=111.0)) == "paused"
    room.apply(Resumed(at=111.0))
    room.apply(Paused(at=112.0))
    assert refusal(room, tell(room, 113.0)) == "paused"
    timed = room_of()
    assert refusal(timed, TimeAdded(at=110.0, seconds=MOST_TIME_LEFT)) == "too_much_time"
    lobby = Room("LOBBY")
    lobby.apply(Created(at=0.0, settings=RoomSettings()))
    assert refusal(lobby, Paused(at=1.0)) == "not_started"
    assert refusal(lobby, TimeAdded(at=1.0, seconds=30)) == "not_started"


@pytest.mark.parametrize("message", [p.Pause(id="x"), p.Resume(id="x"), p.AddTime(id="x", seconds=30)])
def test_only_the_host_keeps_time(message: p.Pause | p.Resume | p.AddTime) -> None:
    room = room_of()
    library = DeckLibrary(Path("no-such-folder"))
    with pytest.raises(RulesError) as refused:
        entry_for(message, Context(member=1, now=110.0, library=library, seed=lambda: 0), room)
    assert refused.value.code == "not_host"
    made = entry_for(message, Context(member=0, now=110.0, library=library, seed=lambda: 0), room)
    assert isinstance(made, Paused | Resumed | TimeAdded)
    assert made.by == 0


# ---------------------------------------------------------------------- a live table


async def table(server: LiveServer, **settings: Any) -> tuple[Client, Client, str]:
    """A started game: the host and another person (both connected) and one bot; the host tells
    first (a bot storyteller is never timed out, and the tests here time people out)."""
    options = {"storyteller_cycles": 1, "first_storyteller": 0}
    seat = await create_room(server.url, "Host", "red", options=options, **settings)
    host = Client(server.url, seat["code"], seat["token"])
    await host.connect()
    joined = (await join_room(server.url, seat["code"], "Mara", "blue")).json()
    other = Client(server.url, seat["code"], joined["token"])
    await other.connect()
    await host.request({"type": "add_bot"})
    await host.request({"type": "start"})
    await other.wait_state(lambda r: r["status"] == "playing")
    return host, other, seat["code"]


async def entries_of(server: LiveServer, code: str) -> list[Any]:
    stored = asyncio.run_coroutine_threadsafe(server.service.rooms.store.load(code), server.loop)
    return [decode(e.data) for e in await asyncio.wrap_future(stored)]


@pytest.mark.anyio
async def test_a_paused_game_does_not_move_on_by_its_timer_and_resumes_with_the_time_left(tmp_path: Path) -> None:
    # (the bot waits longer than the test runs: only the timer and the pause move this room)
    with live_server(tmp_path / "data", disconnect_grace_seconds=3600, bot_delay_seconds=36000) as server:
        host, other, code = await table(server, clue_seconds=60, play_seconds=60, vote_seconds=60)
        room = await host.wait_state(lambda r: r["deadline"] is not None)
        seq, deadline = room["seq"], room["deadline"]
        reply = await host.request({"type": "pause"})
        assert reply["type"] == "ack"
        paused = await other.wait_state(lambda r: r["paused"])
        assert paused["deadline"] is None
        assert paused["you"]["legal"] == []
        assert paused["time_left"] == pytest.approx(deadline - server.service.clock(), abs=2)
        server.shift_clock(3600)  # an hour later: nobody's timer ran out
        await asyncio.sleep(0.5)
        assert (await host.request({"type": "ping"}))["type"] == "pong"  # (every state sent has arrived)
        assert host.room is not None
        assert host.room["seq"] == seq + 1, "nothing moved while paused"
        legal = await other.request({"type": "legal"})
        assert legal["actions"] == []
        await host.request({"type": "resume"})
        resumed = await other.wait_state(lambda r: r["seq"] > paused["seq"])
        assert resumed["deadline"] == pytest.approx(server.service.clock() + paused["time_left"], abs=2)
        await host.request({"type": "add_time"})
        added = await other.wait_state(lambda r: r["time_added"] == 30)
        assert added["deadline"] == pytest.approx(resumed["deadline"] + 30, abs=0.01)
        before = len(other.received)
        server.shift_clock(added["deadline"] - server.service.clock() + 1)
        timed_out = lambda m: m["type"] == "state" and m["room"]["seq"] > added["seq"]  # noqa: E731
        await other.wait_for(timed_out, start=before, timeout=30)
        assert any(isinstance(e, Acted) and e.auto and e.because == "time" for e in await entries_of(server, code))


async def bot_awaited(host: Client, other: Client) -> None:
    """Until the bot is awaited: a person who is the storyteller tells (then the bot plays)."""
    room = await host.wait_state(lambda r: r["status"] == "playing")
    teller = room["game"]["storyteller"]
    for person in (host, other):
        assert person.room is not None
        if person.room["you"]["seat"] == teller:
            await person.wait_state(lambda r: r["you"]["legal"])
            card = person.room["game"]["hand"][0]
            reply = await person.request({"type": "act", "action": {"type": "tell", "card": card, "clue": "Moon"}})
            assert reply["type"] == "ack", reply


async def bot_moves(server: LiveServer, code: str) -> int:
    return len([e for e in await entries_of(server, code) if isinstance(e, Acted) and e.member == 2])


@pytest.mark.anyio
async def test_bots_do_not_move_while_paused(tmp_path: Path) -> None:
    dropped, logger = _Dropped(), logging.getLogger("fabula.server")
    level = logger.level
    logger.addHandler(dropped)
    logger.setLevel(logging.INFO)  # (a dropped move is told at INFO)
    try:
        with live_server(tmp_path / "data", bot_delay_seconds=30.0) as server:
            await _bot_waits_out_the_pause(server, dropped)
    finally:
        logger.removeHandler(dropped)
        logger.setLevel(level)


class _Dropped(logging.Handler):
    """Counts the bot moves the room refused (the scheduler logs each one it drops)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += record.getMessage() == "bot move dropped"


async def _bot_waits_out_the_pause(server: LiveServer, dropped: _Dropped) -> None:
    host, other, code = await table(server)
    await bot_awaited(host, other)
    await host.request({"type": "pause"})
    server.shift_clock(600)  # the bot's delay is long past: still it does not move
    await asyncio.sleep(0.5)
    assert await bot_moves(server, code) == 0
    # nor does the scheduler try (the room would refuse each try, and it would try again at once)
    assert dropped.count == 0
    await host.request({"type": "resume"})  # it waits its delay from the resume, then moves
    server.shift_clock(31)
    for _ in range(300):  # (a loaded machine: the bot's turn may take a while to come round)
        if await bot_moves(server, code):
            break
        await asyncio.sleep(0.1)
    assert await bot_moves(server, code) == 1


@pytest.mark.anyio
async def test_nobody_but_the_host_pauses_and_a_move_while_paused_is_refused(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host, other, _ = await table(server, clue_seconds=60)
        room = await other.wait_state(lambda r: r["deadline"] is not None)
        for message in ({"type": "pause"}, {"type": "resume"}, {"type": "add_time"}):
            reply = await other.request(message)
            assert (reply["type"], reply["code"]) == ("error", "not_host")
        assert other.room is not None
        assert (other.room["seq"], other.room["paused"]) == (room["seq"], False)
        await host.request({"type": "pause"})
        paused = await other.wait_state(lambda r: r["paused"])
        assert paused["game"] is not None
        teller = paused["game"]["storyteller"]
        mover = host if paused["you"]["seat"] != teller else other
        assert mover.room is not None
        card = mover.room["game"]["hand"][0]
        reply = await mover.request({"type": "act", "action": {"type": "tell", "card": card, "clue": "Moon"}})
        assert (reply["type"], reply["code"]) == ("error", "paused")
        assert (await host.request({"type": "pause"}))["code"] == "paused"
        assert (await host.request({"type": "say", "text": "back in five"}))["type"] == "ack", "chat goes on"


@pytest.mark.anyio
async def test_bad_time_messages_are_refused_and_the_room_goes_on(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", bot_delay_seconds=36000) as server:  # (a bot storyteller would tell)
        host, _, _ = await table(server, clue_seconds=60)
        room = await host.wait_state(lambda r: r["deadline"] is not None)
        for bad in (
            {"type": "add_time", "seconds": "30"},
            {"type": "add_time", "seconds": 0},
            {"type": "add_time", "seconds": 100000},
            {"type": "add_time", "seconds": 30.5},
            {"type": "pause", "for": 60},
            {"type": "resume", "seconds": 1},
        ):
            reply = await host.request(bad)
            assert (reply["type"], reply["code"]) == ("error", "malformed"), bad
        assert (await host.request({"type": "ping"}))["type"] == "pong"
        assert host.room is not None
        assert host.room["seq"] == room["seq"], "nothing changed"
        # 60 s left: five times ten minutes more fit in an hour, a sixth does not
        replies = [(await host.request({"type": "add_time", "seconds": 600})).get("code") for _ in range(6)]
        assert replies == [None] * 5 + ["too_much_time"]
        final = await host.wait_state(lambda r: r["time_added"] == 3000)
        assert final["deadline"] == pytest.approx(room["deadline"] + 3000, abs=0.01)


@pytest.mark.anyio
async def test_a_pause_survives_a_restart(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", disconnect_grace_seconds=3600) as server:
        host, other, code = await table(server, clue_seconds=60, play_seconds=60, vote_seconds=60)
        await host.wait_state(lambda r: r["deadline"] is not None)
        await host.request({"type": "add_time", "seconds": 45})
        await host.request({"type": "pause"})
        paused = await host.wait_state(lambda r: r["paused"])
        seq = paused["seq"]
        await host.close()
        await other.close()
    with live_server(tmp_path / "data", disconnect_grace_seconds=3600) as again:
        watcher = Client(again.url, code, None)
        await watcher.connect()
        assert watcher.room is not None
        assert (watcher.room["paused"], watcher.room["deadline"]) == (True, None)
        assert watcher.room["time_left"] == pytest.approx(paused["time_left"], abs=0.01)
        assert watcher.room["time_added"] == 45
        again.shift_clock(7200)
        await asyncio.sleep(0.5)
        assert watcher.room["seq"] == seq, "still paused after the restart: nothing moved"
