"""What goes to a crowd is paced: its outboxes wake a slice per turn of the event loop, so a
player's state (and a player's move read meanwhile) does not wait behind thousands of sends."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from fabula import protocol as p
from fabula.protocol.settings import RoomSettings
from fabula.rules import Phase, RulesError, numbered_deck
from fabula.server.ballots import Ballots
from fabula.server.connections import PACED_PER_TURN, Connection, Outbox, TokenBucket, Watcher
from fabula.server.entries import Created, CrowdVote, CrowdVoted, Joined, Started
from fabula.server.fanout import FanOut, crowd_gap
from fabula.server.live_room import LiveRoom
from fabula.server.metrics import Metrics
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS
from fabula.server.rooms import Rooms
from fabula.store import LocalBus, SqliteStore

from .test_quiet_vote import next_move

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


def _connection(live: LiveRoom, member: int | None, *, watcher: Watcher | None = None) -> Connection:
    made = Connection(
        "127.0.0.1", TokenBucket(100, 100), TokenBucket(100, 100), code=live.room.code, member=member, watcher=watcher
    )
    live.presence.arrive(made, None)
    return made


async def _room(tmp_path: Path, code: str = "PACED") -> tuple[Rooms, LiveRoom]:
    store = SqliteStore(tmp_path / "rooms.sqlite3")
    rooms = Rooms(store, LocalBus(), Metrics(), time.time)
    await store.create_room(code, at=0.0)
    live = LiveRoom(Room(code))
    rooms.hold(live)
    await rooms.commit(live, Created(at=0.0, settings=RoomSettings(options={"storyteller_cycles": 1})))
    for member in range(3):
        await rooms.commit(
            live, Joined(at=1.0, member=member, name=f"P{member}", colour=COLOURS[member], token_hash=f"h{member}")
        )
    return rooms, live


def _kinds(connection: Connection) -> list[str]:
    return [json.loads(data)["type"] for data in connection.outbox.drain()]


async def test_a_change_sends_the_players_state_at_once_and_the_watchers_a_slice_a_turn(tmp_path: Path) -> None:
    """Even queueing a state for thousands of watchers takes longer than a player's move: the
    players' go first, and the watchers' from the next turn on, `PACED_PER_TURN` a turn."""
    _, live = await _room(tmp_path)
    fanout = FanOut(lambda: 30.0)
    player = _connection(live, 0)
    watchers = [_connection(live, None) for _ in range(1_000)]

    fanout.states(live)

    assert _kinds(player) == ["state"]
    assert all(not watcher.outbox.drain() for watcher in watchers), "a watcher's state was queued at once"
    got: list[list[bytes]] = [[] for _ in watchers]
    turns = 0
    while not all(got):
        await asyncio.sleep(0)
        turns += 1
        reached = 0
        for index, watcher in enumerate(watchers):
            queued = watcher.outbox.drain()
            got[index] += queued
            reached += bool(queued)
        assert reached <= PACED_PER_TURN, f"{reached} watchers in one turn"
    assert turns >= len(watchers) // PACED_PER_TURN
    assert all(len(messages) == 1 for messages in got), "each watcher has the state, once"
    assert "P0" in got[0][0].decode(), "the room as a spectator sees it"


async def _delivered(live: LiveRoom, seconds: float = 2.0) -> None:
    """Until the room's crowd delivery has nothing left to do (it may wait for `crowd_gap`)."""
    deadline = time.monotonic() + seconds
    while live.crowd_delivery is not None and not live.crowd_delivery.done:
        assert time.monotonic() < deadline, "the crowd's delivery did not end"
        await asyncio.sleep(0.001)


async def test_a_newer_state_takes_over_the_rest_of_the_way_then_reaches_those_the_older_one_did(
    tmp_path: Path,
) -> None:
    rooms, live = await _room(tmp_path)
    fanout = FanOut(lambda: 30.0)
    watchers = [_connection(live, None) for _ in range(4 * PACED_PER_TURN)]
    fanout.states(live)
    await asyncio.sleep(0)
    first = [watcher.outbox.drain() for watcher in watchers]
    assert sum(map(len, first)) == PACED_PER_TURN
    began = time.monotonic()

    await rooms.commit(live, Joined(at=2.0, member=3, name="Nell", colour=COLOURS[3], token_hash="h3"))
    fanout.states(live)
    await asyncio.sleep(0)
    reached_next = {index for index, watcher in enumerate(watchers) if watcher.outbox.drain()}
    for _ in range(10):
        await asyncio.sleep(0)
    then = [watcher.outbox.drain() for watcher in watchers]
    await _delivered(live)
    again = [watcher.outbox.drain() for watcher in watchers]

    reached_first = {index for index, messages in enumerate(first) if messages}
    assert len(reached_next) == PACED_PER_TURN
    assert not reached_next & reached_first, "those the older state had not reached come first"
    assert all(b"Nell" in messages[0] for messages in then + again if messages), "the newest state"
    assert {index for index, messages in enumerate(again) if messages} == reached_first, (
        "those the older state reached get the newer one after the others"
    )
    assert time.monotonic() - began >= crowd_gap(len(watchers)), "(not before the gap)"
    assert (
        sum(map(len, first)) + len(reached_next) + sum(map(len, then)) + sum(map(len, again)) == 5 * PACED_PER_TURN
    ), "the older one went no further, the newer one to everyone once"


async def test_the_changes_of_a_burst_reach_a_large_crowd_as_one_state(tmp_path: Path) -> None:
    """Five changes while the first is on its way to 2,000 watchers: each watcher gets the first
    (or the newest) and then the newest — at most two states, not six — the second way round
    `crowd_gap` after the first began."""
    rooms, live = await _room(tmp_path)
    fanout = FanOut(lambda: 30.0)
    watchers = [_connection(live, None) for _ in range(2_000)]
    fanout.states(live)
    await asyncio.sleep(0)
    for member in range(3, 8):
        await rooms.commit(
            live, Joined(at=2.0, member=member, name=f"Late {member}", colour=COLOURS[member], token_hash=f"h{member}")
        )
        fanout.states(live)
        await asyncio.sleep(0)
    sent_at: dict[int, list[float]] = {index: [] for index in range(len(watchers))}
    got: dict[int, list[bytes]] = {index: [] for index in range(len(watchers))}
    deadline = time.monotonic() + 5
    while live.crowd_delivery is not None and not live.crowd_delivery.done:
        assert time.monotonic() < deadline
        await asyncio.sleep(0)
        for index, watcher in enumerate(watchers):
            for data in watcher.outbox.drain():
                got[index].append(data)
                sent_at[index].append(time.monotonic())

    assert all(1 <= len(states) <= 2 for states in got.values()), "at most the first and the newest"
    assert all(b"Late 7" in states[-1] for states in got.values()), "everyone ends with the newest"
    twice = [index for index, states in got.items() if len(states) == 2]
    assert twice, "(those the first state reached before the burst get the newest after)"
    spread = [sent_at[index][1] - sent_at[index][0] for index in twice]
    assert min(spread) >= crowd_gap(len(watchers)) * 0.9, "the second way round waits for the gap"


class _RelayedOutbox(Outbox):
    relayed = True


async def test_relayed_watchers_get_a_state_in_one_turn_together(tmp_path: Path) -> None:
    """A relayed connection's message is a list entry for its peer link, and the same message to
    many in one turn crosses the link as one frame: they are not sliced."""

    _, live = await _room(tmp_path)
    local = [_connection(live, None) for _ in range(2 * PACED_PER_TURN)]
    relayed = []
    for _ in range(3 * PACED_PER_TURN):
        made = Connection("10.0.0.2", TokenBucket(9, 9), TokenBucket(9, 9), outbox=_RelayedOutbox(), code="PACED")
        live.presence.arrive(made, None)
        relayed.append(made)

    FanOut(lambda: 30.0).states(live)
    await asyncio.sleep(0)

    assert all(_kinds(connection) == ["state"] for connection in relayed)
    assert sum(bool(_kinds(connection)) for connection in local) == PACED_PER_TURN


async def test_each_watchers_standing_follows_its_state_after_a_reveal_even_if_a_newer_state_comes(
    tmp_path: Path,
) -> None:
    _, live, fanout, fans = await _revealed_to_fans(tmp_path, 3 * PACED_PER_TURN)
    room = live.room
    assert room.game is not None

    fanout.states(live)  # the reveal: each one's points
    await asyncio.sleep(0)
    fanout.states(live)  # (another round of states, before most were reached: the audience's numbers, say)
    await _delivered(live)

    sent = [[json.loads(data) for data in fan.outbox.drain()] for fan in fans]
    for fan, messages in zip(fans, sent, strict=True):
        assert [message["type"] for message in messages][-2:] == ["state", "audience"], messages
        assert fan.standing is not None
        assert messages[-1]["you"]["points"] == fan.standing.points
        assert messages[-1]["you"]["round"] == room.game.round
    assert {messages[-1]["you"]["points"] for messages in sent} == {0, 1}, "some found the card, some not"


async def _voting(tmp_path: Path) -> tuple[Rooms, LiveRoom]:
    """A room of three whose first round is at its vote."""
    rooms, live = await _room(tmp_path)
    await rooms.commit(live, Started(at=2.0, seed=5, seating=[0, 1, 2], deck=list(numbered_deck())))
    room, rng = live.room, random.Random(5)
    assert room.game is not None
    while room.game.phase is not Phase.VOTE:
        await rooms.commit(live, next_move(room, rng))
    return rooms, live


async def _revealed_to_fans(tmp_path: Path, fans_count: int) -> tuple[Rooms, LiveRoom, FanOut, list[Connection]]:
    """A room whose fans voted in round 1 (some for the storyteller's card), its vote just revealed
    and not yet sent out."""
    rooms, live = await _voting(tmp_path)
    fanout = FanOut(lambda: 30.0)
    room, rng = live.room, random.Random(6)
    assert room.game is not None
    fans = [_connection(live, None, watcher=Watcher(f"a{n}", f"Fan {n}")) for n in range(fans_count)]
    table = list(room.game.table)
    votes = [CrowdVote(f"a{n}", f"Fan {n}", room.game.round, table[n % len(table)], f"v{n}") for n in range(len(fans))]
    await rooms.commit(live, CrowdVoted(at=3.0, votes=votes))
    fanout.states(live)
    await _delivered(live)
    await asyncio.sleep(crowd_gap(len(fans)))  # (the next state goes at once)
    for fan in fans:
        fan.outbox.drain()
    while room.game.phase is Phase.VOTE:
        await rooms.commit(live, next_move(room, rng))
    return rooms, live, fanout, fans


async def test_after_a_reveal_the_state_reaches_every_watcher_before_any_standing(tmp_path: Path) -> None:
    """At 10,000 watchers the standings looked at along with the state held the last watchers'
    state back by their whole cost: the table first, to all, then each one's points."""
    _, live, fanout, fans = await _revealed_to_fans(tmp_path, 4 * PACED_PER_TURN)

    fanout.states(live)
    kinds: list[list[str]] = [[] for _ in fans]
    first_standing_turn = last_state_turn = None
    for turn in range(200):
        await asyncio.sleep(0)
        for index, fan in enumerate(fans):
            for kind in _kinds(fan):
                kinds[index].append(kind)
                if kind == "state":
                    last_state_turn = turn
                elif first_standing_turn is None:
                    first_standing_turn = turn

    assert all(k[0] == "state" for k in kinds), "every watcher got the revealed table"
    assert first_standing_turn is not None
    assert last_state_turn is not None
    assert last_state_turn < first_standing_turn, "a standing went out before the state had reached all"
    assert sum(k.count("audience") for k in kinds) == len(fans), "each fan's points, once"


async def test_a_newer_state_during_the_standings_still_brings_every_owed_standing(tmp_path: Path) -> None:
    _, live, fanout, fans = await _revealed_to_fans(tmp_path, 6 * PACED_PER_TURN)
    fanout.states(live)
    kinds: list[list[str]] = [[] for _ in fans]
    while not any("audience" in k for k in kinds):  # the state everywhere, the standings begun
        await asyncio.sleep(0)
        for index, fan in enumerate(fans):
            kinds[index] += _kinds(fan)
    assert any("audience" not in k for k in kinds), "(the standings are sliced: some still owed)"

    fanout.states(live)  # (the audience's numbers, say: a state that changes no standing)
    for _ in range(200):
        await asyncio.sleep(0)
        for index, fan in enumerate(fans):
            kinds[index] += _kinds(fan)

    assert all(k.count("state") == 2 for k in kinds), "each fan has the newer state too"
    assert all(k.count("audience") == 1 for k in kinds), "each fan's points once: none dropped, none again"
    assert {fan.standing.points for fan in fans if fan.standing is not None} == {0, 1}


def test_a_member_let_go_goes_on_watching_and_is_no_longer_among_the_seated() -> None:
    live = LiveRoom(Room("GONE"))
    seat, other, watching = _connection(live, 0), _connection(live, 1), _connection(live, None)

    assert live.presence.present() == {0, 1}
    assert live.presence.let_go(0) == [seat]

    assert seat.member is None
    assert live.presence.seated == {other}
    assert live.presence.connections == {seat, other, watching}
    assert live.presence.present() == {1}
    assert live.presence.watched


def test_the_watchers_kept_between_changes_follow_every_arrival_departure_and_lost_seat() -> None:
    live = LiveRoom(Room("KEPT"))
    seat, watching = _connection(live, 0), _connection(live, None)
    relayed = Connection("10.0.0.2", TokenBucket(9, 9), TokenBucket(9, 9), outbox=_RelayedOutbox(), code="KEPT")
    live.presence.arrive(relayed, None)
    assert live.presence.watchers() == ([relayed], [watching])
    assert live.presence.watchers() is live.presence.watchers(), "(kept while nothing changes)"

    later = _connection(live, None)
    assert set(live.presence.watchers()[1]) == {watching, later}
    live.presence.let_go(0)
    assert set(live.presence.watchers()[1]) == {watching, later, seat}
    live.presence.depart(watching, 5.0)
    live.presence.depart(relayed, 5.0)
    relayed_now, own_now = live.presence.watchers()
    assert relayed_now == []
    assert set(own_now) == {later, seat}


async def test_a_batch_of_votes_is_answered_a_slice_of_voters_a_turn(tmp_path: Path) -> None:
    """Each voter answered sends its standing and its ack: a batch of hundreds answered in one
    turn would hold a player's move read meanwhile for all of those sends."""
    rooms, live = await _voting(tmp_path)
    room = live.room
    assert room.game is not None
    ballots = Ballots(rooms, time.time, lambda *refused: pytest.fail(f"refused: {refused}"))
    card = next(iter(room.game.table))
    fans = [_connection(live, None, watcher=Watcher(f"a{n}", f"Fan {n}")) for n in range(4 * PACED_PER_TURN)]
    for n, fan in enumerate(fans):
        ballots.vote(live, fan, p.CrowdVote(id=f"v{n}", card=card))
    answered = [False] * len(fans)
    turns = 0
    while not all(answered):
        await asyncio.sleep(0)
        newly = 0
        for index, fan in enumerate(fans):
            if not answered[index] and any(b'"ack"' in data for data in fan.outbox.drain()):
                answered[index] = True
                newly += 1
        assert newly <= PACED_PER_TURN, f"{newly} voters answered in one turn"
        turns += 1
        assert turns < 100_000
    assert room.crowd.voted_in(room.game.round) == len(fans), "every vote counted, in one batch"


async def test_a_waiting_vote_sent_again_is_answered_twice_and_counted_once(tmp_path: Path) -> None:
    """A vote waits for its batch as a list entry, its voter's connection reading on meanwhile:
    the same message again (a reconnected phone) is answered with the same ack; another vote of the
    same member is refused at once; a voter gone before the batch is stored still counts."""
    rooms, live = await _voting(tmp_path)
    room = live.room
    assert room.game is not None
    refused: list[tuple[str | None, str]] = []
    ballots = Ballots(rooms, time.time, lambda _, message_id, code, __: refused.append((message_id, code)))
    card = next(iter(room.game.table))
    phone, same_phone_again, gone = (
        _connection(live, None, watcher=Watcher("a1", "Mara")),
        _connection(live, None, watcher=Watcher("a1", "Mara")),
        _connection(live, None, watcher=Watcher("a2", "Nell")),
    )
    for connection in (phone, same_phone_again, gone):
        connection.outbox.drain()

    ballots.vote(live, phone, p.CrowdVote(id="v1", card=card))
    ballots.vote(live, same_phone_again, p.CrowdVote(id="v1", card=card))
    ballots.vote(live, gone, p.CrowdVote(id="v9", card=card))
    with pytest.raises(RulesError) as other:
        ballots.vote(live, same_phone_again, p.CrowdVote(id="v2", card=card))
    assert other.value.code == "already_voted"
    assert room.crowd.voted_in(room.game.round) == 0, "(waiting for the batch)"
    gone.close()
    for _ in range(200):  # (a batch is stored every `BATCH_SECONDS`)
        await asyncio.sleep(0.01)
        if room.crowd.voted_in(room.game.round) == 2:
            break
    for _ in range(5):
        await asyncio.sleep(0)

    answers = [[json.loads(data) for data in c.outbox.drain()] for c in (phone, same_phone_again)]
    for answer in answers:
        assert [m["type"] for m in answer] == ["audience", "ack"], answer
        assert answer[0]["you"]["vote"] == card
    assert answers[0][1] == answers[1][1], "the same ack, the same entry's seq"
    assert refused == []
    await ballots.stop()
