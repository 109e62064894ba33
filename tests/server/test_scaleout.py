"""Several `fabula serve` processes on one PostgreSQL and one Redis serve the same rooms.

Real processes (`ServeProcess`, ``--database`` and ``--redis``) on the real services of
`tests.services`, each test (or module) on a PostgreSQL schema and a Redis namespace of its own,
dropped afterwards. A room's clients are split between the processes, as a load balancer would
split them:

* whole games of every mode finish, every process telling the same game (and album) the log
  replays to; a share link made through one opens through the other;
* processes SIGKILLed mid-game, in turn: two rooms play while A, then B, then A, then B is
  killed, each a moment after one of its players sent a burst of chat lines (some answered, some
  in flight). The killed process's players reconnect to the other one (a load balancer's
  route); the killed one is started again on its port and half of each room moves back to it
  before the other is killed. Every moved player is seated and acknowledged again by the
  survivor within a bound (asserted: 10 s; the figures are printed, about 0.05–0.25 s from the
  SIGKILL, the players' reconnection back-off of 0.03–0.12 s included); the games finish, every
  acknowledged message is in the log exactly once, at the seq it was acknowledged at, with what
  was sent, and nothing unacknowledged or refused is;
* conflicting messages sent through both processes at the same moment are never applied twice:
  the same message id through both gets one entry (both acks name it), two different moves of
  one seat are each applied at most once, in one order every process agrees on;
* a phase timer with both processes holding the room fires once: one automatic move;
* presence crosses processes: a player connected to one is neither grey nor played for on the
  other, and once they leave, exactly one bot move is made for them after the grace period;
* the idle sweep deletes a room nobody has visited once (one process does it), and keeps a room
  someone is connected to through the other process;
* a picture the host uploads through one process is listed, captioned and served by the other
  (each process has a data folder of its own: the pictures are in the database); a deck linked
  through one is copied into another room, and downloaded, through the other.
"""

from __future__ import annotations

import asyncio
import functools
import io
import itertools
import json
import random
import statistics
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from PIL import Image
from websockets.asyncio.client import ClientConnection

from fabula.bots.base import RandomBot
from fabula.rules import action_from_json
from fabula.server.entries import Acted, AnyEntry, Said, decode
from fabula.server.room import Room
from fabula.store import PostgresStore

from ..services import drop_namespace, drop_schema, postgres_url, redis_url, run_aside, unique_name
from .harness import Client, ServeProcess, create_room, join_room
from .players import awaited, move_once, play_to_end
from .test_crash import Player, ServerProcess, matches

__all__ = ["postgres_url", "redis_url"]  # fixtures, used by name

pytestmark = pytest.mark.anyio

COLOURS = ["red", "pink", "yellow", "blue", "dark green", "light green", "orange", "brown", "purple", "black"]


class Deployment:
    """`fabula serve` processes sharing one schema and one namespace, as one deployment."""

    def __init__(self, database: str, redis: str, folder: Path) -> None:
        self.database, self.redis, self.folder = database, redis, folder
        self.namespace = unique_name("fabula_scale")
        self.processes: list[ServeProcess] = []

    def spawn(self, *options: str) -> ServeProcess:
        number = len(self.processes)
        process = ServeProcess(
            [
                *("--data", str(self.folder / f"data-{number}")),
                *("--database", self.database, "--redis", self.redis, "--namespace", self.namespace),
                *("--bot-delay-seconds", "0.05", "--bot-reveal-seconds", "0"),
                *("--disconnect-grace-seconds", "600", "--sweep-seconds", "3600"),
                *("--max-rooms-per-address", "1000", "--max-connections-per-address", "1000"),
                *options,
            ],
            self.folder / f"serve-{number}.log",
        )
        self.processes.append(process)
        process.start()
        return process

    async def entries(self, code: str) -> list[AnyEntry]:
        """Room ``code``'s log as the database holds it; its seqs are 0, 1, 2, … without a gap."""
        store = await PostgresStore.connect(self.database, schema=self.namespace, max_size=1)
        try:
            stored = await store.load(code)
        finally:
            await store.close()
        assert [item.seq for item in stored] == list(range(len(stored)))
        return [decode(item.data) for item in stored]

    def close(self) -> None:
        for process in self.processes:
            process.stop()
        run_aside(functools.partial(drop_schema, self.database, self.namespace))
        run_aside(functools.partial(drop_namespace, self.redis, self.namespace))


@pytest.fixture
def deployment(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[Deployment]:
    made = Deployment(postgres_url, redis_url, tmp_path)
    try:
        yield made
    finally:
        made.close()


def two_processes(
    postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory, name: str, *options: str
) -> Iterator[Deployment]:
    """Two processes started with ``options``, for a module's tests (each start costs a second)."""
    made = Deployment(postgres_url, redis_url, tmp_path_factory.mktemp(name))
    try:
        made.spawn(*options)
        made.spawn(*options)
        yield made
    finally:
        made.close()


@pytest.fixture(scope="module")
def pair(postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """Two processes for the tests that only play."""
    yield from two_processes(postgres_url, redis_url, tmp_path_factory, "pair")


@pytest.fixture(scope="module")
def pair_without_relay(
    postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    """Two processes that serve their own clients, sending only their changes to the room's
    owner (``--relay no``): each applies every entry of the rooms it holds."""
    yield from two_processes(postgres_url, redis_url, tmp_path_factory, "pair-without-relay", "--relay", "no")


@pytest.fixture(scope="module")
def pair_without_owners(
    postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    """Two processes that each make their clients' changes themselves (``--room-owners no``):
    their appends collide, and the store settles it."""
    yield from two_processes(postgres_url, redis_url, tmp_path_factory, "pair-without-owners", "--room-owners", "no")


def replay(code: str, entries: list[AnyEntry]) -> Room:
    room = Room(code)
    for entry in entries:
        room.apply(entry)
    return room


def client_ids(entries: list[AnyEntry]) -> Counter[tuple[int | None, str]]:
    return Counter((entry.by, entry.client_id) for entry in entries if entry.client_id is not None)


async def seat(
    urls: list[str], people: int, *, bots: int = 0, **settings: Any
) -> tuple[str, list[tuple[int, str]], list[Client]]:
    """A room made through the first process, its people joining through the processes in turn
    (over HTTP), each person connected to the process they joined through; ``bots`` added by
    the host. The code, every person's (member, token), and their connected clients."""
    host = await create_room(urls[0], "P0", COLOURS[0], **settings)
    code = host["code"]
    seats = [(0, host["token"])]
    for n in range(1, people):
        joined = await join_room(urls[n % len(urls)], code, f"P{n}", COLOURS[n])
        assert joined.status_code == 201, joined.text
        seats.append((joined.json()["member"], joined.json()["token"]))
    clients = [Client(urls[n % len(urls)], code, token) for n, (_, token) in enumerate(seats)]
    for client in clients:
        assert (await client.connect())["type"] == "welcome"
    for _ in range(bots):
        assert (await clients[0].request({"type": "add_bot", "level": "random"}))["type"] == "ack"
    return code, seats, clients


def everyone_connected(room: dict[str, Any]) -> bool:
    return all(member["connected"] for member in room["members"])


GAMES = [
    pytest.param("odyssey", 4, 0, {"storyteller_cycles": 1}, id="odyssey-4"),
    pytest.param("odyssey", 3, 4, {"storyteller_cycles": 1}, id="odyssey-7"),
    pytest.param("classic", 3, 1, {"target_score": 8}, id="classic-4"),
    pytest.param("party", 3, 3, {"storyteller_cycles": 1}, id="party-6"),
    pytest.param("teams", 2, 4, {"storyteller_cycles": 1}, id="teams-6"),
]


@pytest.mark.parametrize(("mode", "people", "bots", "options"), GAMES)
@pytest.mark.parametrize("relay", [True, False], ids=["relayed", "followed"])
async def test_a_whole_game_with_the_table_split_between_two_processes(
    request: pytest.FixtureRequest, relay: bool, *, mode: str, people: int, bots: int, options: dict[str, Any]
) -> None:
    pair = cast(Deployment, request.getfixturevalue("pair" if relay else "pair_without_relay"))
    a, b = pair.processes
    followed = [await process.metrics() for process in (a, b)]
    code, _, clients = await seat([a.url, b.url], people, bots=bots, mode=mode, options=options)
    # presence crosses processes: everyone is shown connected, wherever they are connected
    for client in clients:
        await client.wait_state(everyone_connected)
    if relay:  # the first connection made its process (a) the room's owner; b passes its clients on
        on_b = len(clients[1::2])
        connected = [await process.metrics() for process in (a, b)]
        assert connected[1]["fabula_relayed_connections"] - followed[1]["fabula_relayed_connections"] == on_b
        assert connected[0]["fabula_hosted_connections"] - followed[0]["fabula_hosted_connections"] == on_b
        followed = connected  # (b followed the joins made through a before its clients connected)
    if mode == "teams":  # the two people play together, one through each process
        assert (await clients[0].request({"type": "teams", "pairs": [[0, 1]]}))["type"] == "ack"
    assert (await clients[0].request({"type": "start"}))["type"] == "ack"
    rng = random.Random(mode)
    finals = await asyncio.gather(*(play_to_end(client, random.Random(rng.random())) for client in clients))
    assert len({tuple(room["game"]["scores"]) for room in finals}) == 1, "every seat sees the same end"
    assert all(everyone_connected(room) for room in finals)

    served = []
    async with httpx.AsyncClient() as http:
        for process in (a, b):
            response = await http.get(f"{process.url}/api/rooms/{code}/log")
            assert response.status_code == 200, response.text
            served.append(response.json())
    assert served[0] == served[1], "both processes tell the same game"
    entries = await pair.entries(code)
    assert all(count == 1 for count in client_ids(entries).values())
    room = replay(code, entries)
    assert room.game is not None
    assert room.status == "over"
    assert [action.to_json() for action in room.game.log] == served[0]["actions"]
    assert list(room.game.scores) == served[0]["scores"] == finals[0]["game"]["scores"]
    assert finals[0]["seq"] == len(entries)
    carried = 0.0
    for process, before in zip((a, b), followed, strict=True):
        metrics = await process.metrics()
        applied = metrics["fabula_entries_followed_total"] - before["fabula_entries_followed_total"]
        if relay:
            assert applied == 0, "every entry was applied once, by the room's owner"
            continue
        assert applied > 0, "each applied the other's entries"
        carried += applied - (metrics["fabula_entries_loaded_total"] - before["fabula_entries_loaded_total"])
    # some came with their notice or the owner's answer, not from the store (a hello, someone
    # leaving or a refusal reads the store too, so not all of them need to)
    assert carried > 0 or relay
    # the album is the log's: the same through both processes; a link made through one opens on the other
    token = clients[1].token
    assert token is not None
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(headers=headers, timeout=60) as http:
        albums = [(await http.get(f"{process.url}/api/rooms/{code}/games/1")).json() for process in (a, b)]
        link = (await http.post(f"{a.url}/api/rooms/{code}/games/1/share")).json()
        shared = (await http.get(f"{b.url}/api/albums/{link['path'].removeprefix('/album/')}", headers={})).json()
    assert albums[0] == albums[1] == shared == room.album(1).to_json()  # type: ignore[union-attr]
    assert albums[0]["rounds"][-1] == finals[0]["game"]["last_round"]
    for client in clients:
        await client.close()


def raise_failures(tasks: list[asyncio.Task[None]]) -> None:
    """A player whose check failed stops: raise its assertion here."""
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            task.result()


@dataclass
class Route:
    """Where a reconnecting player's connection goes: their process until it dies, then the
    other — what a load balancer does (or another when it rebalances: the test changes ``url``
    and closes the connection). (`Player` reads ``url`` and ``generation``, the number of the
    route's change, noted with each welcome.)"""

    url: str
    generation: int = 1


class TimedPlayer(Player):
    """A `Player` that notes when (loop time) each of its welcomes and acknowledgements came, and
    through which route generation (``welcomes[-1]`` then: the connection they came on); and
    when each of its connections ended."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.welcomed: list[tuple[int, float]] = []
        self.acked: list[tuple[int, float]] = []
        self.dropped: list[float] = []

    async def _session(self, socket: ClientConnection) -> None:
        try:
            await super()._session(socket)
        finally:
            self.dropped.append(self._now())

    def _welcome(self, message: dict[str, Any]) -> None:
        super()._welcome(message)
        self.welcomed.append((self.welcomes[-1], self._now()))

    def _answer(self, message: dict[str, Any]) -> None:
        if message["type"] == "ack" and self.welcomes:
            self.acked.append((self.welcomes[-1], self._now()))
        super()._answer(message)

    @staticmethod
    def first(noted: list[tuple[int, float]], generation: int) -> float | None:
        return next((when for through, when in noted if through == generation), None)


@dataclass
class Kill:
    """One SIGKILL: of which process, when (loop time and wall-clock time), and the players that
    were connected to it, each with the generation of their route to the survivor."""

    number: int
    name: str
    at: float
    wall: float
    moved: list[tuple[TimedPlayer, int]]
    #: the round each room was in
    rounds: list[int]
    #: seconds from the kill until the killed process answered again (None: not started again)
    restarted: float | None = None


def ack_problems(entries: list[AnyEntry], players: Sequence[Player]) -> list[str]:
    """What is wrong with a room's log ``entries`` given what its ``players`` were told: every ack
    must name an entry of theirs, with the content sent; every stored message of theirs must have
    been acknowledged (none refused); none may be without an answer; none may be stored twice."""
    problems = [f"{key} is in the log {count} times" for key, count in client_ids(entries).items() if count > 1]
    for player in players:
        for mid, seq in player.acks.items():
            entry = entries[seq] if seq < len(entries) else None
            if entry is None or (entry.by, entry.client_id) != (player.member, mid):
                problems.append(f"{player.name}'s {mid} {player.sent[mid]} acknowledged at {seq}: found {entry}")
            elif not matches(entry, player.member, player.sent[mid]):
                problems.append(f"{player.name}'s {mid} {player.sent[mid]} is stored as {entry}")
        # (the set-up's messages were sent by another client of the seat)
        stored = {entry.client_id for entry in entries if entry.by == player.member and entry.client_id in player.sent}
        if stored != set(player.acks):
            problems.append(f"{player.name}: stored {sorted(stored)} ≠ acknowledged {sorted(player.acks)}")
        if player.pending:
            problems.append(f"{player.name} never had an answer to {sorted(player.pending)}")
        if stored & set(player.refused):
            problems.append(f"{player.name}: refused {sorted(stored & set(player.refused))} are stored")
    return problems


#: SIGKILLs in the repeated-kill test, of A, B, A, B: each restarted before the next
KILLS = 4
#: every player of a killed process must be acknowledged by the other within this many seconds
BOUND_SECONDS = 10.0
#: the two rooms that play through the kills: mode, people, server bots, rule options
KILLED_ROOMS = [
    ("odyssey", 4, 1, {"storyteller_cycles": 14, "target_score": None}),
    # long enough that neither ends before the last kill on a slow, busy machine (here the party
    # room is in round 12 of 42 at the fourth kill; each restart lets both play on for seconds)
    ("party", 3, 3, {"storyteller_cycles": 7}),
]


async def test_processes_killed_in_turn_their_players_finish_on_the_other_and_every_ack_is_stored_once(
    deployment: Deployment,
) -> None:
    # the players move faster than people (a legal request and a move ~3 times a second) and
    # speak in bursts, re-sent after each move: above the default 10 messages a second
    chatty = ("--chat-burst", "100", "--chat-messages-per-second", "100")
    quick = ("--message-burst", "100", "--messages-per-second", "50")
    processes = [deployment.spawn(*chatty, *quick), deployment.spawn(*chatty, *quick)]
    names = {id(process): name for process, name in zip(processes, "AB", strict=True)}
    rng = random.Random(20_250_101)
    generations = itertools.count(2)
    rooms: list[tuple[str, list[TimedPlayer]]] = []
    routes: dict[int, Route] = {}  # by id of the player
    # before the first kill, half of each room's people on A (the first victim), half on B
    for number, (mode, people, bots, options) in enumerate(KILLED_ROOMS):
        code, seats, clients = await seat(  # (table talk: the bursts of chat are taken in every phase)
            [process.url for process in processes], people, bots=bots, mode=mode, options=options, table_talk=True
        )
        for client in clients:
            await client.close()
        players = []
        for n, (member, token) in enumerate(seats):
            route = Route(processes[n % 2].url)
            player = TimedPlayer(
                cast(ServerProcess, route), code, member, token, name=f"R{number}P{member}", seed=rng.getrandbits(32)
            )
            routes[id(player)] = route
            players.append(player)
        rooms.append((code, players))
    everyone = [player for _, players in rooms for player in players]
    tasks = [asyncio.create_task(player.run()) for player in everyone]
    kills: list[Kill] = []
    loop = asyncio.get_running_loop()

    def on(process: ServeProcess) -> list[TimedPlayer]:
        return [player for player in everyone if routes[id(player)].url == process.url]

    async def until(test: Callable[[], bool], what: str, deadline: float | None = None) -> None:
        deadline = loop.time() + 30 if deadline is None else deadline
        while not test():
            raise_failures(tasks)
            assert loop.time() < deadline, f"timed out: {what}"
            await asyncio.sleep(0.02)

    def still_playing(before: str) -> None:
        """Fail plainly if a room's game is over (its players then stop: none would be seated again)."""
        for code, players in rooms:
            assert all(p.room is not None and p.room["status"] == "playing" for p in players), (
                f"room {code}'s game ended before {before} (rounds now {rounds()}): make the games longer"
            )

    def seated() -> bool:
        """Every player is connected through its route (welcomed on its current generation)."""
        return all(player.welcomes and player.welcomes[-1] == routes[id(player)].generation for player in everyone)

    def rounds() -> list[int]:
        """The round each room is in, as the furthest of its players sees it."""
        return [
            max((p.room["game"]["round"] for p in players if p.room is not None and p.room["game"]), default=0)
            for _, players in rooms
        ]

    def seqs() -> list[int]:
        """How many entries each room has, as the furthest of its players sees it."""
        return [max(p.room["seq"] for p in players if p.room is not None) for _, players in rooms]

    def beyond(reached: list[int]) -> bool:
        return all(now >= then for now, then in zip(seqs(), reached, strict=True))

    def back_on(moved: list[tuple[TimedPlayer, int]]) -> bool:
        return all(TimedPlayer.first(player.acked, generation) is not None for player, generation in moved)

    try:
        async with asyncio.timeout(120):
            for _, players in rooms:
                started = await (await players[0].submit({"type": "start"}))
                assert started["type"] == "ack", started
            for k in range(KILLS):
                victim, survivor = processes[k % 2], processes[1 - k % 2]
                if k > 0:
                    still_playing(f"the rebalancing before kill {k + 1}")
                    # the survivor was killed last time and is back: half of each room goes to it
                    # (a load balancer's rebalancing: they close their connection and reconnect)
                    for _, players in rooms:
                        for player in rng.sample(players, len(players) // 2):
                            route = routes[id(player)]
                            route.url, route.generation = survivor.url, next(generations)
                            if player.socket is not None:
                                await player.socket.close()
                await until(seated, "every player is seated through its route")
                # play a little on both processes, then kill at a moment of no particular meaning
                await until(functools.partial(beyond, [seq + 3 for seq in seqs()]), "play goes on")
                await asyncio.sleep(rng.uniform(0.0, 0.5))
                raise_failures(tasks)
                still_playing(f"kill {k + 1}")
                # killed a moment after one of its players sent a burst: some answered, some in flight
                speaker = rng.choice(on(victim))
                for n in range(12):
                    await speaker.submit({"type": "say", "text": f"kill {k + 1}: line {n} from {speaker.name}"})
                await asyncio.sleep(rng.uniform(0.0, 0.004))
                at, wall = loop.time(), time.time()
                victim.kill()
                moved: list[tuple[TimedPlayer, int]] = []
                for player in on(victim):
                    route = routes[id(player)]
                    route.url, route.generation = survivor.url, next(generations)
                    moved.append((player, route.generation))
                kill = Kill(k + 1, names[id(victim)], at, wall, moved, rounds())
                kills.append(kill)
                # every moved player says something: its first ack through the survivor
                for player, _ in moved:
                    await player.submit({"type": "say", "text": f"kill {k + 1}: {player.name} is back"})
                if k + 1 < KILLS:  # started again (in a thread: the players play on meanwhile)
                    await asyncio.to_thread(victim.start)
                    kill.restarted = loop.time() - kill.at
                await until(
                    functools.partial(back_on, moved),
                    "every moved player is acknowledged by the survivor",
                    kill.at + BOUND_SECONDS,
                )
            await until(lambda: all(player.done for player in everyone), "every game ends", loop.time() + 180)
    finally:
        for player in everyone:
            player.stopped = True
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks, timeout=10)

    problems = []
    logs = []
    for code, players in rooms:
        entries = await deployment.entries(code)
        logs.append(entries)
        problems += [f"room {code}: {problem}" for problem in ack_problems(entries, players)]
    assert not problems, "\n".join(problems)
    for (code, players), entries in zip(rooms, logs, strict=True):
        room = replay(code, entries)
        assert room.game is not None
        assert room.status == "over"
        finals = {tuple(player.final["game"]["scores"]) for player in players if player.final is not None}
        assert finals == {tuple(room.game.scores)}
    assert [kill.name for kill in kills] == ["A", "B", "A", "B"][:KILLS]
    assert sum(len(player.acks) for player in everyone) > 200
    print()
    every: list[tuple[float, float, float]] = []
    for kill in kills:
        assert kill.moved, f"kill {kill.number} of {kill.name}: nobody was connected to it"
        figures: list[tuple[float, float, float]] = []  # per moved player: (drop seen, welcome, first ack)
        for player, generation in kill.moved:
            back, acked = TimedPlayer.first(player.welcomed, generation), TimedPlayer.first(player.acked, generation)
            assert back is not None, f"kill {kill.number} of {kill.name}: {player.name} never came back"
            assert acked is not None, f"kill {kill.number} of {kill.name}: {player.name} never acknowledged again"
            dropped = min(when for when in player.dropped if when >= kill.at)
            figures.append((dropped - kill.at, back - kill.at, acked - kill.at))
            assert acked - kill.at <= BOUND_SECONDS, (
                f"kill {kill.number} of {kill.name}: {player.name} acknowledged again after {acked - kill.at:.2f} s"
            )
        moves, stalls = [], []
        for entries in logs:  # the moves each room stored within the bound after the kill (by their `at`)
            after = [e.at for e in entries if isinstance(e, Acted) and kill.wall < e.at <= kill.wall + BOUND_SECONDS]
            assert after, f"kill {kill.number} of {kill.name}: a room made no move within {BOUND_SECONDS} s"
            moves.append(after[0] - kill.wall)
            stalls.append(max(b - a for a, b in itertools.pairwise([kill.wall, *after])))
        every += figures
        drops, backs, acks = (sorted(column) for column in zip(*figures, strict=True))
        print(
            f"kill {kill.number} of {kill.name} (rounds {', '.join(map(str, kill.rounds))}): "
            f"{len(kill.moved)} players moved, drop seen {drops[0]:.3f}–{drops[-1]:.3f} s, "
            f"back in {backs[0]:.3f}–{backs[-1]:.3f} s, first ack {acks[0]:.3f}–{acks[-1]:.3f} s; "
            f"first move stored in each room after {', '.join(f'{s:.3f}' for s in moves)} s, "
            f"longest wait for a move in the {BOUND_SECONDS:g} s after {', '.join(f'{s:.2f}' for s in stalls)} s"
            + ("" if kill.restarted is None else f"; {kill.name} answered again after {kill.restarted:.2f} s")
        )
    backs, acks = (sorted(column) for column in list(zip(*every, strict=True))[1:])
    print(
        f"the {len(every)} moves of the {len(kills)} kills: back in {backs[0]:.3f}/{statistics.median(backs):.3f}/"
        f"{backs[-1]:.3f} s, first ack {acks[0]:.3f}/{statistics.median(acks):.3f}/{acks[-1]:.3f} s "
        "(min/median/max after the SIGKILL)"
    )
    print(
        f"{sum(len(p.acks) for p in everyone)} acknowledgements checked, "
        f"{sum(p.resent_acked for p in everyone)} acknowledged after a re-send, "
        f"{sum(p.probes_answered for p in everyone)} acknowledged ones re-sent after a move and answered the same, "
        f"{sum(p.retried for p in everyone)} refused for now and sent again, "
        f"{sum(len(p.refused) for p in everyone)} refused, "
        f"{sum(len(entries) for entries in logs)} log entries; the longest wait for a move in each whole game "
        + ", ".join(
            f"{max(b - a for a, b in itertools.pairwise([e.at for e in entries if isinstance(e, Acted)])):.2f} s"
            for entries in logs
        )
    )


async def both_at_once(
    first: Client, second: Client, one: dict[str, Any], other: dict[str, Any]
) -> list[dict[str, Any]]:
    """Send ``one`` through ``first`` and ``other`` through ``second`` at the same moment; both replies."""
    return list(await asyncio.gather(first.request(one), second.request(other)))


async def converged(watchers: list[Client], seq: int) -> dict[str, Any]:
    """Wait until every watcher's state has at least entries up to ``seq``; the first one's room."""
    rooms = [await watcher.wait_state(lambda room: room["seq"] > seq) for watcher in watchers]
    return rooms[0]


@pytest.mark.parametrize("how", ["relayed", "asked", "without-owners"])
async def test_conflicting_messages_through_both_processes_are_never_applied_twice(
    request: pytest.FixtureRequest, how: str
) -> None:
    """Relayed: b passes its connections on to the room's owner; asked (``--relay no``): b sends
    its clients' changes to the owner; without owners: both make them, the store decides."""
    fixture = {"relayed": "pair", "asked": "pair_without_relay", "without-owners": "pair_without_owners"}[how]
    pair: Deployment = request.getfixturevalue(fixture)
    a, b = pair.processes
    before = [await process.metrics() for process in (a, b)]
    conflicts = [metrics["fabula_store_conflicts_total"] for metrics in before]
    code, seats, through_a = await seat([a.url], 3, mode="odyssey", options={"storyteller_cycles": 1})
    through_b = [Client(b.url, code, token) for _, token in seats]
    watchers = [Client(a.url, code, None), Client(b.url, code, None)]
    for client in [*through_b, *watchers]:
        await client.connect()
    acked: dict[tuple[int, str], int] = {}

    def note(member: int, message: dict[str, Any], reply: dict[str, Any]) -> None:
        if reply["type"] == "ack":
            acked[(member, message["id"])] = reply["seq"]
        else:
            # refused as the room now is — never a conflict left for the client to sort out
            assert reply["code"] in {"game_started", "wrong_phase", "not_your_turn"}, reply

    # the host starts the game through both processes at once: one start
    starts = [{"id": "start-a", "type": "start"}, {"id": "start-b", "type": "start"}]
    replies = await both_at_once(through_a[0], through_b[0], *starts)
    for message, reply in zip(starts, replies, strict=True):
        note(0, message, reply)
    assert sorted(reply["type"] for reply in replies) == ["ack", "error"]
    room = await converged(watchers, max(acked.values()))
    rng = random.Random(11)
    step = 0
    while room["status"] != "over":
        step += 1
        game = room["game"]
        seat_no = rng.choice(game["awaiting"])
        member = room["members"][[m["seat"] for m in room["members"]].index(seat_no)]["member"]
        index = [m for m, _ in seats].index(member)
        mover_a, mover_b = through_a[index], through_b[index]
        await mover_a.wait_state(lambda r, seq=room["seq"]: r["seq"] >= seq)
        assert mover_a.room is not None
        legal = [action_from_json(action) for action in (await mover_a.request({"type": "legal"}))["actions"]]
        bot = RandomBot(rng)
        one, other = bot.choose(mover_a.room["game"], legal), bot.choose(mover_a.room["game"], legal)
        if step % 2:  # the same message (same id) through both: made once, both acks name it
            same: dict[str, Any] = {"id": f"same-{step}", "type": "act", "action": one.to_json()}
            replies = await both_at_once(mover_a, mover_b, same, same)
            assert [reply["type"] for reply in replies] == ["ack", "ack"], replies
            assert replies[0]["seq"] == replies[1]["seq"], "one entry for one message id"
            note(member, same, replies[0])
        else:  # two different moves of one seat through both: each made at most once
            messages: list[dict[str, Any]] = [
                {"id": f"one-{step}", "type": "act", "action": one.to_json()},
                {"id": f"other-{step}", "type": "act", "action": other.to_json()},
            ]
            replies = await both_at_once(mover_a, mover_b, *messages)
            for message, reply in zip(messages, replies, strict=True):
                note(member, message, reply)
            assert any(reply["type"] == "ack" for reply in replies), replies
        room = await converged(watchers, max(acked.values()))

    entries = await pair.entries(code)
    assert all(count == 1 for count in client_ids(entries).values())
    for (member, mid), seq in acked.items():
        assert (entries[seq].by, entries[seq].client_id) == (member, mid)
    assert len([entry for entry in entries if entry.client_id in ("start-a", "start-b")]) == 1
    # every process ends in the state the log replays to
    replayed = replay(code, entries).snapshot(None).to_json()
    final = [await watcher.wait_state(lambda r: r["seq"] == len(entries)) for watcher in watchers]
    for seen in final:
        assert seen["game"] == replayed["game"]
        assert (seen["status"], seen["host"], seen["games_started"]) == ("over", replayed["host"], 1)
    now = [(await process.metrics())["fabula_store_conflicts_total"] for process in (a, b)]
    collided = sum(now) - sum(conflicts)
    after = [await process.metrics() for process in (a, b)]
    sent = sum(
        later["fabula_sent_to_owner_total"] - then["fabula_sent_to_owner_total"]
        for then, later in zip(before, after, strict=True)
    )
    if how == "relayed":  # one process made every change: the other passed its clients on to it
        assert after[1]["fabula_relayed_connections"] == before[1]["fabula_relayed_connections"] + 4
        assert sent == 0
        assert collided == 0, "an owner's appends never collide"
    elif how == "asked":  # one process made every change: the other sent its clients' to it
        assert sent >= step, "every change through the other process went to the room's owner"
        assert collided == 0, "an owner's appends never collide"
    else:
        assert sent == 0
        assert collided >= 1, "the two processes really did write at the same seq (and one tried again)"
    print(
        f"\n{step} moves each sent twice at once, {len(acked)} acknowledged, {collided:g} store conflicts, "
        f"{sent:g} sent to the owner"
    )
    for client in [*through_a, *through_b, *watchers]:
        await client.close()


async def test_a_phase_timer_fires_once_with_both_processes_holding_the_room(pair: Deployment) -> None:
    a, b = pair.processes
    before = [await process.metrics() for process in (a, b)]
    code, _, clients = await seat([a.url, b.url], 3, mode="odyssey", options={"storyteller_cycles": 1}, clue_seconds=10)
    assert (await clients[0].request({"type": "start"}))["type"] == "ack"
    # nobody gives the clue: when the timer runs out a bot gives it for the storyteller
    for client in clients:
        await client.wait_state(lambda room: room["game"] is not None and room["game"]["phase"] == "play", timeout=25)
    await asyncio.sleep(1.5)  # time for a second move, if one were coming
    entries = await pair.entries(code)
    automatic = [entry for entry in entries if isinstance(entry, Acted) and entry.auto]
    assert len(automatic) == 1, automatic
    assert automatic[0].action["type"] == "tell"
    assert isinstance(entries[-1], Acted), "nothing after the timed move: the players have not played"
    after = [await process.metrics() for process in (a, b)]
    made = [
        now["fabula_auto_moves_total"] - then["fabula_auto_moves_total"]
        for then, now in zip(before, after, strict=True)
    ]
    assert sum(made) == 1, f"automatic moves made by each process: {made}"
    for client in clients:
        await client.close()


async def test_a_relayed_connection_whose_owner_dies_is_closed_to_reconnect_and_then_served_where_it_is(
    deployment: Deployment,
) -> None:
    """b passes its client on whole to a, the room's owner; a is killed: b closes the client's
    connection with 1012 (connect again), and on reconnecting b serves the room itself."""
    a, b = deployment.spawn(), deployment.spawn()
    host = await create_room(a.url, "Host", COLOURS[0])
    code = host["code"]
    joined = await join_room(b.url, code, "Guest", COLOURS[1])
    assert joined.status_code == 201, joined.text
    at_a, at_b = Client(a.url, code, host["token"]), Client(b.url, code, joined.json()["token"])
    assert (await at_a.connect())["type"] == "welcome"  # (the first connection: a owns the room now)
    assert (await at_b.connect())["type"] == "welcome"
    assert (await b.metrics())["fabula_relayed_connections"] == 1
    assert (await a.metrics())["fabula_hosted_connections"] == 1
    assert (await at_b.request({"type": "say", "text": "through a"}))["type"] == "ack"
    # what the owner refuses reaches the client through b as it would directly
    await at_b.send_raw('{"id": "bad-1", "type": "say", "text": ')
    assert (await at_b.wait_for(lambda m: m["type"] == "error"))["code"] == "malformed"
    await at_b.send_raw(json.dumps({"id": "big-1", "type": "say", "text": "x" * 100_000}))
    assert (await at_b.wait_for(lambda m: m["type"] == "error" and m["code"] != "malformed"))["code"] == "too_large"
    # a flood stops at b, with the error the owner would give: every ping is answered one way or the other
    start, owner_heard = len(at_b.received), (await a.metrics())["fabula_messages_total"]
    for n in range(80):
        await at_b.send_raw(json.dumps({"id": f"flood-{n}", "type": "ping"}))

    def answered() -> list[dict[str, Any]]:
        return [m for m in at_b.received[start:] if str(m.get("id", "")).startswith("flood-")]

    deadline = time.monotonic() + 10
    while len(answered()) < 80 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    kinds = Counter(m["type"] if m["type"] == "pong" else m["code"] for m in answered())
    assert sum(kinds.values()) == 80, kinds
    assert set(kinds) == {"pong", "rate_limited"}, kinds
    assert (await a.metrics())["fabula_messages_total"] - owner_heard == kinds["pong"], "the refused never reached a"

    a.kill()
    socket = at_b.socket
    assert socket is not None
    await asyncio.wait_for(socket.wait_closed(), 10)
    assert socket.close_code == 1012
    assert "connect again" in (socket.close_reason or "")

    again = Client(b.url, code, joined.json()["token"])
    assert (await again.connect())["type"] == "welcome"
    assert (await again.request({"type": "say", "text": "through b"}))["type"] == "ack"
    metrics = await b.metrics()
    assert (metrics["fabula_relayed_connections"], metrics["fabula_rooms"]) == (0, 1)
    said = [entry.text for entry in await deployment.entries(code) if isinstance(entry, Said)]
    assert said == ["through a", "through b"]
    await again.close()


async def test_the_process_that_creates_a_room_owns_it_whoever_connects_first(pair: Deployment) -> None:
    """A room created through a is owned by a even when its first connection reaches b (b passes
    it on to a): owners follow creations, which a round-robin balancer spreads evenly, not the
    race of the first connections."""
    a, b = pair.processes
    before = [await process.metrics() for process in (a, b)]
    host = await create_room(a.url, "Host", COLOURS[0])
    code = host["code"]
    joined = await join_room(b.url, code, "Guest", COLOURS[1])
    assert joined.status_code == 201, joined.text
    at_b = Client(b.url, code, joined.json()["token"])
    assert (await at_b.connect())["type"] == "welcome"  # (the room's first connection)
    assert (await b.metrics())["fabula_relayed_connections"] == before[1]["fabula_relayed_connections"] + 1
    assert (await a.metrics())["fabula_hosted_connections"] == before[0]["fabula_hosted_connections"] + 1
    at_a = Client(a.url, code, host["token"])
    assert (await at_a.connect())["type"] == "welcome"
    assert (await at_b.request({"type": "say", "text": "through a"}))["type"] == "ack"
    assert (await a.metrics())["fabula_made_for_others_total"] == before[0]["fabula_made_for_others_total"]
    await at_a.close()
    await at_b.close()


async def test_presence_crosses_processes_and_an_absent_player_gets_one_stand_in(deployment: Deployment) -> None:
    grace = ("--disconnect-grace-seconds", "1")
    a, b = deployment.spawn(*grace), deployment.spawn(*grace)
    code, _, clients = await seat([a.url, b.url], 4, mode="odyssey", options={"storyteller_cycles": 1})
    for client in clients:  # members 0 and 2 through A, 1 and 3 through B
        await client.wait_state(everyone_connected)
    assert (await clients[0].request({"type": "start"}))["type"] == "ack"
    rooms = [await client.wait_state(lambda r: r["status"] == "playing") for client in clients]
    storyteller = rooms[0]["game"]["storyteller"]
    teller = clients[[room["you"]["seat"] for room in rooms].index(storyteller)]
    await teller.wait_state(awaited)
    assert ((await move_once(teller, random.Random(1))) or {}).get("type") == "ack"
    for client in clients:
        await client.wait_state(lambda r: r["game"] is not None and r["game"]["phase"] == "play")
    await asyncio.sleep(2.5)  # more than the grace period: nobody is gone, so nobody is played for
    assert not [e for e in await deployment.entries(code) if isinstance(e, Acted) and e.auto]

    leaver = next(c for c in clients[1::2] if c is not teller)  # connected through B
    assert leaver.room is not None
    gone = leaver.room["you"]["member"]
    await leaver.close()
    watcher = clients[0]  # through A: sees the rabbit go grey

    def grey(room: dict[str, Any]) -> bool:
        return not next(m for m in room["members"] if m["member"] == gone)["connected"]

    await watcher.wait_state(grey, timeout=10)

    async def stand_ins() -> list[Acted]:
        return [e for e in await deployment.entries(code) if isinstance(e, Acted) and e.auto]

    async with asyncio.timeout(15):
        while not await stand_ins():
            await asyncio.sleep(0.1)
    await asyncio.sleep(1.5)  # a second stand-in move, were one coming, would be here by now
    moves = await stand_ins()
    assert [(move.member, move.action["type"]) for move in moves] == [(gone, "play")]
    for client in clients:
        if client is not leaver:
            await client.close()


async def test_the_start_up_line_and_healthz_name_the_backends(deployment: Deployment) -> None:
    process = deployment.spawn()
    first = process.log.read_text().splitlines()[0]
    assert "rooms in PostgreSQL at" in first
    assert f"(schema {deployment.namespace})" in first
    assert "shared with other processes through Redis" in first
    async with httpx.AsyncClient(base_url=process.url) as http:
        health = (await http.get("/healthz")).json()
    assert health == {"status": "ok", "rooms": 0, "store": "postgresql", "bus": "redis", "bus_connected": True}


async def test_an_idle_room_is_deleted_once_and_a_visited_one_is_kept(deployment: Deployment) -> None:
    sweep = ("--sweep-seconds", "1", "--room-idle-seconds", "2")
    a, b = deployment.spawn(*sweep), deployment.spawn(*sweep)
    abandoned = (await create_room(a.url, "Gone", "red"))["code"]  # nobody ever connects to it
    kept = await create_room(a.url, "Here", "blue")
    here = Client(b.url, kept["code"], kept["token"])  # connected through the other process
    await here.connect()
    async with httpx.AsyncClient() as http:
        async with asyncio.timeout(20):
            while (await http.get(f"{b.url}/api/rooms/{abandoned}")).status_code != 404:
                await asyncio.sleep(0.2)
        for process in (a, b):
            assert (await http.get(f"{process.url}/api/rooms/{abandoned}")).status_code == 404
        await asyncio.sleep(2.5)  # past the idle time again: the visited room stays
        assert (await http.get(f"{a.url}/api/rooms/{kept['code']}")).status_code == 200
    assert (await here.request({"type": "ping"}))["type"] == "pong"
    expired = [
        line
        for process in (a, b)
        for line in process.log.read_text().splitlines()
        if '"room expired"' in line and abandoned in line
    ]
    assert len(expired) == 1, "one process deletes it"
    # a made the room and owns it: b passes its client on to a, which holds the room for it
    held = [await process.metrics() for process in (a, b)]
    assert (held[0]["fabula_rooms"], held[0]["fabula_hosted_connections"]) == (1, 1)
    assert (held[1]["fabula_rooms"], held[1]["fabula_relayed_connections"]) == (0, 1)
    await here.close()


async def test_a_picture_uploaded_through_one_process_is_served_by_the_other(pair: Deployment) -> None:
    a, b = pair.processes
    host = await create_room(a.url, "Host", "red")
    code, auth = host["code"], {"Authorization": f"Bearer {host['token']}"}
    png = io.BytesIO()
    Image.new("RGB", (480, 320), (200, 40, 40)).save(png, "PNG")
    async with httpx.AsyncClient() as http:
        uploaded = await http.post(
            f"{a.url}/api/rooms/{code}/pictures", headers=auth, files=[("files", ("red.png", png.getvalue()))]
        )
        assert uploaded.status_code == 201, uploaded.text
        [answer] = uploaded.json()
        assert answer["status"] == "taken", answer
        card = answer["card"]
        listed = (await http.get(f"{b.url}/api/rooms/{code}/pictures", headers=auth)).json()
        assert [picture["card"] for picture in listed["pictures"]] == [card]
        served = await http.get(f"{b.url}/cards/{card}.webp")
        assert served.status_code == 200
        assert served.content[:4] == b"RIFF"
        captioned = await http.put(
            f"{b.url}/api/rooms/{code}/pictures/{card}/caption", headers=auth, json={"caption": "red"}
        )
        assert captioned.status_code == 200, captioned.text
        again = (await http.get(f"{a.url}/api/rooms/{code}/pictures", headers=auth)).json()
        assert [picture["caption"] for picture in again["pictures"]] == ["red"]
        assert (await http.delete(f"{a.url}/api/rooms/{code}/pictures/{card}", headers=auth)).status_code == 204
        assert (await http.get(f"{b.url}/cards/{card}.webp")).status_code == 404


async def test_a_deck_linked_through_one_process_is_copied_and_downloaded_through_the_other(pair: Deployment) -> None:
    a, b = pair.processes
    host, friend = await create_room(a.url, "Host", "red"), await create_room(b.url, "Friend", "blue")
    auth, theirs = {"Authorization": f"Bearer {host['token']}"}, {"Authorization": f"Bearer {friend['token']}"}
    png = io.BytesIO()
    Image.new("RGB", (480, 320), (40, 40, 200)).save(png, "PNG")
    async with httpx.AsyncClient() as http:
        uploaded = await http.post(
            f"{a.url}/api/rooms/{host['code']}/pictures", headers=auth, files=[("files", ("blue.png", png.getvalue()))]
        )
        [card] = [answer["card"] for answer in uploaded.json()]
        await http.put(
            f"{a.url}/api/rooms/{host['code']}/pictures/{card}/caption", headers=auth, json={"caption": "sky"}
        )
        link = (await http.post(f"{a.url}/api/rooms/{host['code']}/pictures/link", headers=auth)).json()["link"]
        assert (await http.post(f"{b.url}/api/rooms/{host['code']}/pictures/link", headers=auth)).json()["link"] == link
        copied = await http.post(
            f"{b.url}/api/rooms/{friend['code']}/pictures/from-link", headers=theirs, json={"link": link}
        )
        assert copied.status_code == 201, copied.text
        [answer] = copied.json()
        assert answer["status"] == "taken", answer
        zipped = await http.get(f"{a.url}/api/rooms/{friend['code']}/pictures.zip", headers=theirs)
        assert zipped.status_code == 200, zipped.text
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as archive:
        assert archive.namelist() == ["001.webp", "captions.csv"]
        assert archive.read("captions.csv") == b"file,description\r\n001.webp,sky\r\n"
