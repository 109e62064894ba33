"""The crash test: a real `fabula serve` process is killed with SIGKILL at random moments of
several games and started again on the same data folder; the games finish, and nothing the
server acknowledged is missing.

Three rooms play at once (odyssey, party, teams), seated by people whose clients record every
acknowledgement and reconnect by themselves with the same seat token (re-sending, with the same
id, every message still unanswered), by external bots (`fabula.bots.client.play`, which also
reconnect by themselves) and by the server's own bots. The server is killed:

* during the set-up, between two acknowledged requests;
* at a random moment of the games;
* right after a client sent a burst of messages (some acknowledged, some in flight);
* frozen (SIGSTOP) while clients keep sending, so that every message of that moment is in flight;
* frozen right after a restart, while the clients are in the middle of reconnecting;
* at the end, once every game is over.

After each kill, before the restart, a copy of the data folder is checked: every acknowledged
message is in its room's log exactly once, at the acknowledged sequence number, with the content
that was sent; nothing refused is there; every seat token handed out over HTTP is there; no id is
in a log twice; every log replays. After each restart every room answers again, every client
gets its seat back and sees every entry it had acknowledged, and an acknowledged message sent
once more (as if its ack had died with the server) gets the same sequence number, not a second
entry. At the end the replayed logs are the games the server reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from fabula.bots import client as bot_client
from fabula.bots.base import RandomBot
from fabula.rules import action_from_json
from fabula.server.entries import Acted, AnyEntry, Joined, Said, Started, TeamsSet, decode
from fabula.server.room import Room
from fabula.server.seats import token_hash
from fabula.store import SqliteStore

from .harness import free_port
from .players import awaited

SEED = 20_240_611
#: Errors after which a message is sent again (same id) rather than taken as refused.
RETRY_CODES = {"rate_limited", "chat_rate_limited", "conflict", "store_failed"}
#: Seconds without an answer after which a message is sent again (same id).
REPLY_SECONDS = 2.0
COLOURS = ["red", "pink", "yellow", "blue", "dark green", "light green", "orange", "brown", "purple", "black"]


# ---------------------------------------------------------------------------------------------- the server


class ServerProcess:
    """`fabula serve` as a child process, always on the same port and data folder."""

    def __init__(self, data: Path, logs: Path) -> None:
        self.data, self.logs = data, logs
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        #: how many processes have been started (the one running, if any, is this one)
        self.generation = 0
        self.kills = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "fabula.cli",
            "serve",
            "--port",
            str(self.port),
            "--data",
            str(self.data),
            "--bot-delay-seconds",
            "0.05",
            "--bot-reveal-seconds",
            "0",
            "--disconnect-grace-seconds",
            "600",
        ]

    async def start(self) -> None:
        self.generation += 1
        env = {name: value for name, value in os.environ.items() if not name.startswith("FABULA_")}
        env["PYTHONUNBUFFERED"] = "1"
        with (self.logs / f"server-{self.generation}.log").open("wb") as log:
            self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = asyncio.get_running_loop().time() + 30
        async with httpx.AsyncClient(base_url=self.url, timeout=2) as http:
            while True:
                if self.proc.poll() is not None:
                    raise AssertionError(f"the server exited with {self.proc.returncode}:\n{self.log_tail()}")
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if asyncio.get_running_loop().time() > deadline:
                    raise AssertionError(f"the server did not answer /healthz:\n{self.log_tail()}")
                await asyncio.sleep(0.02)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.kills += 1

    def freeze(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def stop(self) -> None:
        """Kill the process if it still runs (the test's ``finally``)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def log_tail(self, lines: int = 30) -> str:
        path = self.logs / f"server-{self.generation}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    async def connections(self) -> int:
        """Open WebSocket connections, as the server's /metrics counts them."""
        async with httpx.AsyncClient(base_url=self.url, timeout=2) as http:
            text = (await http.get("/metrics")).text
        for line in text.splitlines():
            if line.startswith("fabula_connections "):
                return int(float(line.split()[1]))
        raise AssertionError("/metrics has no fabula_connections")

    def client_sockets(self) -> int | None:
        """TCP connections of this process to the server that are established (None: unknown).
        A frozen server's kernel still completes TCP handshakes, so a client that tries to
        connect to it shows here while its WebSocket handshake waits for an answer."""
        try:
            table = Path("/proc/net/tcp").read_text()
        except OSError:
            return None
        count = 0
        for line in table.splitlines()[1:]:
            fields = line.split()
            if fields[3] == "01" and int(fields[2].rsplit(":", 1)[1], 16) == self.port:
                count += 1
        return count


# ---------------------------------------------------------------------------------------------- a person


class Player:
    """A person's seat: plays random legal moves and records every acknowledgement. When the
    connection drops it reconnects by itself with the same token; every message without an answer
    is sent again with the same id (on the new connection, or when no answer came in time)."""

    def __init__(self, server: ServerProcess, code: str, member: int, token: str, *, name: str, seed: int) -> None:
        self.server, self.code, self.member, self.token, self.name = server, code, member, token, name
        self.rng = random.Random(seed)
        self.bot = RandomBot(random.Random(seed + 1))
        self._ids = itertools.count()
        #: every message that changes the room, by id
        self.sent: dict[str, dict[str, Any]] = {}
        #: message id → the sequence number it was acknowledged at
        self.acks: dict[str, int] = {}
        #: message id → the error it was finally refused with
        self.refused: dict[str, dict[str, Any]] = {}
        #: messages without an answer yet → when to send them again
        self.pending: dict[str, float] = {}
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.sends: Counter[str] = Counter()
        self.resent_acked = 0
        self.retried = 0
        self.anonymous_errors = 0
        #: messages found in the store after a kill while still unanswered → where they were
        self.stored_unanswered: dict[str, int] = {}
        #: acknowledged messages sent once more after a restart, as if their ack had been lost
        self.probes: Counter[str] = Counter()
        self.probes_answered = 0
        #: the server generation of every welcome (the seat taken back with the token)
        self.welcomes: list[int] = []
        self.room: dict[str, Any] | None = None
        self.final: dict[str, Any] | None = None
        self.socket: ClientConnection | None = None
        self._move: str | None = None
        self._legal: tuple[str, float] | None = None
        self._ask_at: float | None = None
        self._check_seq = False
        #: set when the test ends, whatever happened
        self.stopped = False

    @property
    def done(self) -> bool:
        return self.stopped or (self.final is not None and not self.pending)

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def submit(self, message: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        """Send ``message`` under a new id (now, or as soon as the seat is back); the future of its
        answer (an ack or a final error)."""
        mid = f"{message['type']}{next(self._ids)}"
        self.sent[mid] = message
        self.replies[mid] = asyncio.get_running_loop().create_future()
        self.pending[mid] = self._now() + REPLY_SECONDS
        if self.socket is not None:
            await self._send(self.socket, mid)
        return self.replies[mid]

    async def _send(self, socket: ClientConnection, mid: str) -> None:
        self.sends[mid] += 1
        self.pending[mid] = self._now() + REPLY_SECONDS
        with contextlib.suppress(websockets.ConnectionClosed):  # if so, sent again on the next connection
            await socket.send(json.dumps({"id": mid, **self.sent[mid]}))

    async def run(self) -> None:
        while not self.done:
            try:
                async with websockets.connect(self._ws_url(), open_timeout=5, max_size=1 << 22) as socket:
                    await self._session(socket)
            except (OSError, websockets.WebSocketException):
                pass  # the server is down, or died in the middle of the handshake
            finally:
                self.socket = None
            if not self.done:
                await asyncio.sleep(self.rng.uniform(0.03, 0.12))

    def _ws_url(self) -> str:
        return self.server.url.replace("http", "ws", 1) + f"/ws/{self.code}"

    async def _session(self, socket: ClientConnection) -> None:
        hello = f"hello{next(self._ids)}"
        await socket.send(json.dumps({"type": "hello", "id": hello, "token": self.token}))
        self._legal = None
        self._ask_at = self._now()
        while not self.done:
            raw: str | bytes | None = None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.03):
                    raw = await socket.recv()
            if raw is not None:
                message = json.loads(raw)
                if message.get("id") == hello:
                    self._welcome(message)
                    self.socket = socket
                    for mid in list(self.pending):
                        await self._send(socket, mid)
                    if self.acks:  # as if this ack had died with the server: the same answer again
                        probe = self.rng.choice(sorted(self.acks))
                        self.probes[probe] += 1
                        await socket.send(json.dumps({"id": probe, **self.sent[probe]}))
                else:
                    await self._handle(socket, message)
            if self.socket is socket:
                await self._tick(socket)

    def _welcome(self, message: dict[str, Any]) -> None:
        assert message["type"] == "welcome", (
            f"{self.name} (room {self.code}, member {self.member}) could not take its seat back "
            f"after restart {self.server.generation - 1}: {message}"
        )
        assert message["member"] == self.member, f"{self.name}: the token gave member {message['member']}"
        self.welcomes.append(self.server.generation)
        self._check_seq = True

    async def _handle(self, socket: ClientConnection, message: dict[str, Any]) -> None:
        kind, mid = message["type"], message.get("id")
        legal = self._legal[0] if self._legal is not None else None
        if kind == "state":
            room = message["room"]
            if self._check_seq:  # the first state after taking the seat back
                self._check_seq = False
                known = max(self.acks.values(), default=-1)
                assert room["seq"] > known, (
                    f"{self.name}: room {self.code} came back at seq {room['seq']} though entry {known} "
                    "was acknowledged"
                )
            self.room = room
            if room["status"] == "over" and room["game"] is not None:
                self.final = room
            if self._ask_at is None:
                self._ask_at = self._now() + self.rng.uniform(0.02, 0.08)
        elif kind == "legal" and mid == legal:
            self._legal = None
            if message["actions"] and awaited(self.room) and self._move is None:
                assert self.room is not None
                choices = [action_from_json(action) for action in message["actions"]]
                action = self.bot.choose(self.room["game"], choices)
                self._move = f"act{next(self._ids)}"
                self.sent[self._move] = {"type": "act", "action": action.to_json()}
                await self._send(socket, self._move)
        elif kind == "error" and mid is None:
            # Refused before the server read the id: which message is not said, so it is sent
            # again once its answer is overdue.
            assert message["code"] == "rate_limited", f"{self.name}: {message}"
            self.anonymous_errors += 1
        elif kind == "error" and mid == legal:
            self._legal = None
            self._ask_at = self._now() + 0.2
        elif kind in ("ack", "error") and mid in self.pending:
            self._answer(message)
        elif kind == "ack":  # an answer to a message sent again: it must say the same
            assert self.acks.get(str(mid)) == message["seq"], (
                f"{self.name}: {mid} {self.sent.get(str(mid))} was acknowledged at {self.acks.get(str(mid))}, "
                f"then at {message['seq']}"
            )
            self.probes_answered += mid in self.probes
        elif kind == "error" and isinstance(mid, str) and mid in self.probes:
            assert message["code"] == "rate_limited", (
                f"{self.name}: {mid} {self.sent[mid]}, acknowledged at {self.acks[mid]}, was refused when sent "
                f"again after a restart: {message}"
            )

    def _answer(self, message: dict[str, Any]) -> None:
        mid = message["id"]
        if message["type"] == "error" and message["code"] in RETRY_CODES:
            self.retried += 1
            self.pending[mid] = self._now() + self.rng.uniform(0.8, 1.2)
            return
        del self.pending[mid]
        if message["type"] == "ack":
            self.acks[mid] = message["seq"]
            if self.sends[mid] > 1:
                self.resent_acked += 1
        else:
            self.refused[mid] = message
        future = self.replies.pop(mid, None)
        if future is not None and not future.done():
            future.set_result(message)
        if mid == self._move:
            self._move = None
            self._ask_at = self._now() + self.rng.uniform(0.02, 0.08)

    async def _tick(self, socket: ClientConnection) -> None:
        now = self._now()
        overdue = [mid for mid, due in self.pending.items() if due <= now]
        for mid in overdue[:2]:
            await self._send(socket, mid)
        if self._legal is not None and self._legal[1] + REPLY_SECONDS < now:
            self._legal = None  # its answer was lost (refused without an id): ask again
        if (
            self.final is None
            and self._move is None
            and self._legal is None
            and self._ask_at is not None
            and now >= self._ask_at
            and awaited(self.room)
        ):
            self._ask_at = None
            self._legal = (f"legal{next(self._ids)}", now)
            try:
                await socket.send(json.dumps({"type": "legal", "id": self._legal[0]}))
            except websockets.ConnectionClosed:
                self._legal = None


# ---------------------------------------------------------------------------------------------- the table


@dataclass
class RoomPlan:
    mode: str
    options: dict[str, Any]
    people: int
    remote_bots: int
    server_bots: int
    pairs: list[list[int]] | None = None


@dataclass
class RoomRecord:
    plan: RoomPlan
    code: str = ""
    #: member → (name, token): every seat handed out over HTTP
    seats: dict[int, tuple[str, str]] = field(default_factory=dict)
    host: Player | None = None
    bots_acked: int = 0
    started: bool = False
    log: dict[str, Any] | None = None


PLANS = [
    RoomPlan("odyssey", {"storyteller_cycles": 5, "target_score": None}, people=3, remote_bots=1, server_bots=0),
    RoomPlan("party", {"storyteller_cycles": 2}, people=3, remote_bots=1, server_bots=2),
    RoomPlan("teams", {"storyteller_cycles": 5}, people=4, remote_bots=0, server_bots=2, pairs=[[0, 1], [2, 3]]),
]


class Table:
    """Everything the test drives: the server, the rooms, the players and the external bots."""

    def __init__(self, server: ServerProcess, rng: random.Random, scratch: Path) -> None:
        self.server, self.rng, self.scratch = server, rng, scratch
        self.rooms = [RoomRecord(plan) for plan in PLANS]
        self.players: list[Player] = []
        self.player_tasks: list[asyncio.Task[None]] = []
        self.remote: dict[asyncio.Task[dict[str, Any]], tuple[RoomRecord, int]] = {}
        self.checks = 0
        self.notes: list[str] = []

    # -------------------------------------------------------------------- watching the clients

    def raise_failures(self) -> None:
        for task in self.player_tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
        for remote, (room, member) in self.remote.items():
            if remote.done() and not remote.cancelled() and (error := remote.exception()) is not None:
                raise AssertionError(
                    f"the external bot client (fabula.bots.client.play) of member {member} in room {room.code} "
                    f"gave up after {self.server.kills} kills: {error!r}"
                ) from error

    async def pause(self, seconds: float) -> None:
        end = asyncio.get_running_loop().time() + seconds
        while asyncio.get_running_loop().time() < end:
            self.raise_failures()
            await asyncio.sleep(min(0.02, max(0.0, end - asyncio.get_running_loop().time())))

    async def wait_until(self, test: Callable[[], Awaitable[bool]], what: str, timeout: float) -> None:
        end = asyncio.get_running_loop().time() + timeout
        while not await test():
            self.raise_failures()
            if asyncio.get_running_loop().time() > end:
                raise AssertionError(f"timed out: {what}\n{self.server.log_tail()}")
            await asyncio.sleep(0.05)

    def unfinished_players(self) -> list[Player]:
        return [player for player in self.players if not player.done]

    def unfinished_remote(self) -> int:
        return sum(1 for task in self.remote if not task.done())

    async def settled(self) -> bool:
        """Every client still playing is connected to the running server, seated again."""
        generation = self.server.generation
        if any(not player.welcomes or player.welcomes[-1] != generation for player in self.unfinished_players()):
            return False
        people = sum(1 for player in self.unfinished_players() if player.socket is not None)
        return await self.server.connections() >= people + self.unfinished_remote()

    # -------------------------------------------------------------------- setting up

    def add_player(self, room: RoomRecord, member: int, name: str, token: str) -> Player:
        player = Player(self.server, room.code, member, token, name=name, seed=self.rng.getrandbits(32))
        self.players.append(player)
        self.player_tasks.append(asyncio.create_task(player.run(), name=name))
        return player

    def setup_steps(self) -> list[tuple[str, Callable[[], Awaitable[None]]]]:
        steps: list[tuple[str, Callable[[], Awaitable[None]]]] = []
        for number, room in enumerate(self.rooms):
            plan = room.plan
            steps.append((f"create room {number}", partial(self.create, room, number)))
            for n in range(1, plan.people + plan.remote_bots):
                steps.append((f"join room {number}", partial(self.join, room, number, n)))
            for _ in range(plan.server_bots):
                steps.append((f"add a bot to room {number}", partial(self.add_bot, room)))
            if plan.pairs is not None:
                steps.append((f"set teams in room {number}", partial(self.set_teams, room)))
        return steps

    async def create(self, room: RoomRecord, number: int) -> None:
        name = f"R{number}P0"
        async with httpx.AsyncClient(base_url=self.server.url, timeout=10) as http:
            response = await http.post(
                "/api/rooms",
                json={
                    "name": name,
                    "colour": COLOURS[0],
                    # (table talk as a house rule: the bursts of chat are taken in every phase)
                    "settings": {"mode": room.plan.mode, "options": room.plan.options, "table_talk": True},
                },
            )
        assert response.status_code == 201, response.text
        seat = response.json()
        room.code = seat["code"]
        room.seats[seat["member"]] = (name, seat["token"])
        room.host = self.add_player(room, seat["member"], name, seat["token"])

    async def join(self, room: RoomRecord, number: int, n: int) -> None:
        person = n < room.plan.people
        name = f"R{number}P{n}" if person else f"R{number}B{n}"
        async with httpx.AsyncClient(base_url=self.server.url, timeout=10) as http:
            response = await http.post(f"/api/rooms/{room.code}/join", json={"name": name, "colour": COLOURS[n]})
        assert response.status_code == 201, response.text
        seat = response.json()
        room.seats[seat["member"]] = (name, seat["token"])
        if person:
            self.add_player(room, seat["member"], name, seat["token"])

    async def host_says(self, room: RoomRecord, message: dict[str, Any]) -> dict[str, Any]:
        assert room.host is not None
        answer = await room.host.submit(message)
        async with asyncio.timeout(30):
            reply = await answer
        assert reply["type"] == "ack", reply
        return reply

    async def add_bot(self, room: RoomRecord) -> None:
        await self.host_says(room, {"type": "add_bot", "level": "random"})
        room.bots_acked += 1

    async def set_teams(self, room: RoomRecord) -> None:
        await self.host_says(room, {"type": "teams", "pairs": room.plan.pairs})

    def start_remote_bots(self) -> None:
        for room in self.rooms:
            for member, (name, token) in room.seats.items():
                if name.startswith(f"R{self.rooms.index(room)}B"):
                    task = asyncio.create_task(
                        bot_client.play(self.server.url, room.code, token=token, seed=self.rng.getrandbits(32))
                    )
                    self.remote[task] = (room, member)

    # -------------------------------------------------------------------- crashing

    async def restart(self) -> None:
        """Check the data folder the killed server left, start a new server, wait for every client."""
        await self.check_store(final=False)
        await self.server.start()
        await self.rooms_are_back()
        await self.wait_until(self.settled, "every client reconnects with its token", timeout=30)

    def progress(self) -> str:
        parts = []
        for room in self.rooms:
            seen = [p.room for p in self.players if p.code == room.code and p.room is not None]
            latest = max(seen, key=lambda r: r["seq"], default=None)
            game = None if latest is None else latest["game"]
            parts.append(f"{room.plan.mode}:" + ("-" if game is None else f"r{game['round']}/{game['phase']}"))
        return " ".join(parts)

    async def crash(self, how: str) -> None:
        self.server.kill()
        self.notes.append(f"{how} [{self.progress()}]")
        await self.restart()

    async def rooms_are_back(self) -> None:
        async with httpx.AsyncClient(base_url=self.server.url, timeout=5) as http:
            for room in self.rooms:
                if not room.code:
                    continue
                response = await http.get(f"/api/rooms/{room.code}")
                assert response.status_code == 200, f"room {room.code} did not come back: {response.text}"
                summary = response.json()
                names = {member["name"] for member in summary["members"]}
                missing = {name for name, _ in room.seats.values()} - names
                assert not missing, f"room {room.code} came back without {missing}"
                bots = sum(1 for member in summary["members"] if member["bot"] is not None)
                assert bots >= room.bots_acked, f"room {room.code} came back with {bots} of its bots"
                if room.started:
                    assert summary["status"] in ("playing", "over"), summary

    async def crash_after_a_burst(self) -> None:
        """Kill a moment after a client sent a burst of chat lines: some acknowledged, some not."""
        speaker = self.rng.choice(self.unfinished_players())
        for n in range(12):
            await speaker.submit({"type": "say", "text": f"burst {self.server.kills} line {n} from {speaker.name}"})
        await asyncio.sleep(self.rng.uniform(0.0, 0.004))
        await self.crash(f"right after a burst of 12 messages from {speaker.name}")

    async def crash_frozen(self) -> None:
        """Freeze the server while clients go on sending (moves, and bursts), then kill it: every
        message of that moment is in flight."""
        self.server.freeze()
        speakers = self.rng.sample(self.unfinished_players(), 2)
        for speaker in speakers:
            for n in range(8):
                await speaker.submit({"type": "say", "text": f"frozen line {n} from {speaker.name}"})
        await self.pause(0.3)
        self.server.kill()
        self.notes.append(f"frozen while 16 messages and the moves of that moment were in flight [{self.progress()}]")
        await self.check_store(final=False)
        # Killed again while the clients are in the middle of reconnecting: the new server is
        # frozen as soon as it answers, so every client that reconnects hangs in its handshake.
        await self.server.start()
        self.server.freeze()

        async def every_client_is_knocking() -> bool:
            expected = len(self.unfinished_players()) + self.unfinished_remote()
            sockets = self.server.client_sockets()
            return sockets is None or sockets >= expected

        await self.wait_until(every_client_is_knocking, "every client tries to reconnect", timeout=15)
        if self.server.client_sockets() is None:  # no /proc: wait past the bot clients' longest back-off
            await self.pause(6)
        self.server.kill()
        self.notes.append(f"frozen right after a restart, while the clients reconnect [{self.progress()}]")
        await self.restart()

    # -------------------------------------------------------------------- checking the store

    async def check_store(self, *, final: bool) -> dict[str, list[AnyEntry]]:
        """Check a copy of the data folder as the server left it: every acknowledgement is there."""
        self.checks += 1
        copy = self.scratch / f"check-{self.checks}"
        copy.mkdir()
        for path in self.server.data.glob("rooms.sqlite3*"):
            shutil.copy(path, copy / path.name)
        store = SqliteStore(copy / "rooms.sqlite3")
        try:
            codes = set(await store.room_codes())
            stored = {room.code: await store.load(room.code) for room in self.rooms if room.code}
        finally:
            await store.close()
        problems: list[str] = []
        logs: dict[str, list[AnyEntry]] = {}
        for room in self.rooms:
            if not room.code:
                continue
            where = f"after kill {self.server.kills}, room {room.code} ({room.plan.mode})"
            if room.code not in codes:
                problems.append(f"{where}: the room is missing")
                continue
            rows = stored[room.code]
            if [row.seq for row in rows] != list(range(len(rows))):
                problems.append(f"{where}: the sequence numbers have gaps")
            entries = [decode(row.data) for row in rows]
            logs[room.code] = entries
            problems += [f"{where}: {problem}" for problem in self.check_room(room, entries, final=final)]
        assert not problems, "\n".join(problems[:25])
        return logs

    def check_room(self, room: RoomRecord, entries: list[AnyEntry], *, final: bool) -> list[str]:
        problems: list[str] = []
        ids = Counter((entry.by, entry.client_id) for entry in entries if entry.client_id is not None)
        problems += [f"message {key} is in the log {count} times" for key, count in ids.items() if count > 1]
        for member, (name, token) in room.seats.items():
            joined = [e for e in entries if isinstance(e, Joined) and e.member == member]
            if not joined or joined[0].name != name or joined[0].token_hash != token_hash(token):
                problems.append(f"the seat of {name} (member {member}), handed out over HTTP, is missing")
        for player in self.players:
            if player.code != room.code:
                continue
            for mid, seq in list(player.acks.items()):
                entry = entries[seq] if seq < len(entries) else None
                if entry is None or (entry.by, entry.client_id) != (player.member, mid):
                    problems.append(f"{player.name}'s {mid} {player.sent[mid]} acknowledged at {seq}: found {entry}")
                elif not matches(entry, player.member, player.sent[mid]):
                    problems.append(f"{player.name}'s {mid} {player.sent[mid]} is stored as {entry}")
            for mid in player.refused:
                if ids[(player.member, mid)]:
                    problems.append(f"{player.name}'s {mid} was refused ({player.refused[mid]}) but is stored")
            where = {entry.client_id: seq for seq, entry in enumerate(entries) if entry.by == player.member}
            stored = {mid for mid in where if mid is not None}
            for mid in list(player.pending):
                if mid in where:  # stored, but the ack died with the server: a re-send must get this seq
                    player.stored_unanswered.setdefault(mid, where[mid])
            for mid, seq in player.stored_unanswered.items():
                if mid in player.acks and player.acks[mid] != seq:
                    problems.append(f"{player.name}'s {mid}, stored at {seq}, was acknowledged at {player.acks[mid]}")
            if stored - set(player.sent):
                problems.append(f"{player.name} never sent {sorted(stored - set(player.sent))}, which are stored")
            if final and player.pending:
                problems.append(f"{player.name} never had an answer to {sorted(player.pending)}")
            if final and stored != set(player.acks):
                problems.append(
                    f"{player.name}'s stored messages {sorted(stored ^ set(player.acks))} were not acknowledged"
                )
        rebuilt = Room(room.code)
        for seq, entry in enumerate(entries):
            try:
                rebuilt.apply(entry)
            except Exception as error:
                problems.append(f"entry {seq} {entry} does not replay: {error!r}")
                return problems
        if final:
            if rebuilt.status != "over" or rebuilt.game is None:
                problems.append(f"the game is not over in the log (status {rebuilt.status})")
            elif room.log is not None:
                if [action.to_json() for action in rebuilt.game.log] != room.log["actions"]:
                    problems.append("the replayed moves differ from the server's game log")
                if list(rebuilt.game.scores) != room.log["scores"]:
                    problems.append(f"replayed scores {rebuilt.game.scores} ≠ served {room.log['scores']}")
        return problems


def matches(entry: AnyEntry, member: int, message: dict[str, Any]) -> bool:
    """Whether ``entry`` is what ``member``'s ``message`` asked for."""
    kind = message["type"]
    if kind == "act":
        return isinstance(entry, Acted) and entry.member == member and entry.action == message["action"]
    if kind == "say":
        return isinstance(entry, Said) and entry.member == member and entry.text == message["text"]
    if kind == "add_bot":
        return isinstance(entry, Joined) and entry.bot == "random"
    if kind == "teams":
        return isinstance(entry, TeamsSet) and entry.pairs == message["pairs"]
    if kind == "start":
        return isinstance(entry, Started)
    raise AssertionError(f"unexpected message {message}")


# ---------------------------------------------------------------------------------------------- the test


@pytest.mark.anyio
async def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    data, scratch = tmp_path / "data", tmp_path / "scratch"
    scratch.mkdir()
    server = ServerProcess(data, tmp_path)
    table = Table(server, rng, scratch)
    started = asyncio.get_running_loop().time()
    try:
        async with asyncio.timeout(150):
            await server.start()
            # Set-up (rooms, seats, bots, teams), with a kill between two acknowledged steps.
            steps = table.setup_steps()
            kill_before = rng.randrange(2, len(steps))
            for number, (what, step) in enumerate(steps):
                if number == kill_before:
                    await table.crash(f"during the set-up, before '{what}'")
                await step()
            table.start_remote_bots()
            for room in table.rooms:
                await table.host_says(room, {"type": "start"})
                room.started = True

            # The games, killed at random moments.
            await table.pause(rng.uniform(0.5, 1.5))
            await table.crash("at a random moment of the games")
            await table.pause(rng.uniform(0.5, 1.5))
            await table.crash_after_a_burst()
            await table.pause(rng.uniform(0.5, 1.5))
            await table.crash_frozen()

            async def all_over() -> bool:
                return not table.unfinished_players() and not table.unfinished_remote()

            await table.wait_until(all_over, "every game ends", timeout=60)
            table.raise_failures()
            results = [task.result() for task in table.remote]

            # Every seat saw the same end; the server tells the finished games; then a last kill.
            async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
                for room in table.rooms:
                    response = await http.get(f"/api/rooms/{room.code}/log")
                    assert response.status_code == 200, response.text
                    room.log = response.json()
                    finals = [p.final for p in table.players if p.code == room.code]
                    finals += [{"game": {"scores": r["scores"]}} for r in results if r["room"] == room.code]
                    assert {tuple(final["game"]["scores"]) for final in finals if final} == {tuple(room.log["scores"])}
            server.kill()
            table.notes.append("after every game ended")
            logs = await table.check_store(final=True)
            print(*table.notes, sep="\n")
    finally:
        server.stop()
        for player in table.players:
            player.stopped = True
        tasks = [*table.player_tasks, *table.remote]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=10)

    acks = sum(len(player.acks) for player in table.players)
    assert server.kills == 6
    assert all(len(entries) > 20 for entries in logs.values())
    print(
        f"\n{server.kills} kills ({'; '.join(table.notes)}), {len(table.rooms)} games, "
        f"{acks} acknowledgements checked ({sum(p.resent_acked for p in table.players)} after a re-send, "
        f"{sum(len(p.stored_unanswered) for p in table.players)} stored before a kill but answered after it, "
        f"{sum(p.probes_answered for p in table.players)} re-sent after a restart and answered the same, "
        f"{sum(len(p.refused) for p in table.players)} refused "
        f"{dict(Counter(e['code'] for p in table.players for e in p.refused.values()))}, "
        f"{sum(p.retried for p in table.players)} retried, "
        f"{sum(p.anonymous_errors for p in table.players)} errors without an id), "
        f"{sum(len(entries) for entries in logs.values())} log entries, "
        f"{sum(len(p.welcomes) - 1 for p in table.players)} reconnections of people, "
        f"{asyncio.get_running_loop().time() - started:.1f} s"
    )
