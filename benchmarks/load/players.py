"""The simulated players, inside a generator process: each room (`Table`) and its seats
(`Player`), playing random legal moves — ``legal`` → a random choice → ``act`` — paced or flat
out, and timing each act until the last connection of its room has seen the state it caused.

Which client carries a player's messages (`Link`) is `connections`' business: a player only
sends the typed messages of `fabula.protocol` and is told of each state and reply it receives.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from fabula.client import message_ids
from fabula.protocol import Ack, Act, AnyServerMessage, ClientMessage, Error, Legal, LegalMoves, Rematch, Welcome

from .seats import RoomPlan

CLUES = ("Journey", "Memory", "Silence", "Home", "Freedom", "Waiting", "Secret", "Dream", "Far away")


class Link(Protocol):
    """The connection a player plays through (`connections.LeanLink` or `connections.FabulaLink`)."""

    @property
    def deflate(self) -> bool:
        """Whether the server agreed to permessage-deflate on it."""
        ...

    def send(self, message: ClientMessage) -> None: ...

    async def close(self) -> None:
        """Start closing it; `Player.on_close` is called when it is closed."""

    def abort(self) -> None:
        """Close it at once."""


@dataclass
class Figures:
    """What a generator process counts during one phase (warm-up and window)."""

    actions: int = 0  # acks of acts received in the window
    acts_sent: int = 0
    legal_sent: int = 0
    stale: int = 0  # 'legal' answered with no move: the seat was no longer awaited
    rematches: int = 0
    states: int = 0  # state messages received in the window, every connection
    state_bytes: int = 0
    messages: int = 0  # every message received in the window
    errors: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)  # ms, acts sent in the window
    backlog: int = 0  # the most paced ticks waiting for an awaited seat at once
    acked_by: Counter[str] = field(default_factory=Counter)  # actions counted, by the server that acked them


class Pending:
    """An acknowledged act waiting for every connection of its room to see its update."""

    __slots__ = ("counted", "latest", "sent", "seq", "waiting")

    def __init__(self, seq: int, sent: float, counted: bool) -> None:
        self.seq, self.sent, self.counted = seq, sent, counted
        self.latest = sent
        self.waiting: set[Player] = set()


class Player:
    """One seat's connection. The room's observer (its host) reads whole states; the others only
    their ``seq`` — what a latency needs."""

    def __init__(self, table: Table, member: int, token: str, url: str) -> None:
        self.table, self.member, self.token, self.url = table, member, token, url
        self.link: Link | None = None
        self.ids = message_ids(table.session)
        self.greeted = False
        self.connected = False
        self.history: deque[tuple[int, float]] = deque(maxlen=64)  # (room.seq, when received)
        self.legal_id: str | None = None
        self.act_id: str | None = None
        self.act_sent = 0.0

    def send(self, kind: type[ClientMessage], **fields: Any) -> str:
        """Send a message of ``kind`` with a fresh id; that id."""
        message = kind(id=next(self.ids), **fields)
        if self.link is not None:
            self.link.send(message)
        return message.id

    # --- what the link hands over, as it arrives
    def counted(self, now: float) -> bool:
        """Count a message received at ``now``: whether it falls in the window."""
        table = self.table
        counting = table.window_start <= now < table.window_end
        if counting:
            table.figures.messages += 1
        return counting

    def on_state(self, now: float, seq: int, room: dict[str, Any] | None, size: int) -> None:
        """A state of the room at ``seq`` (the whole ``room`` for the observer only)."""
        table = self.table
        if self.counted(now):
            table.figures.states += 1
            table.figures.state_bytes += size
        if room is not None:
            table.observe(room)
        self.history.append((seq, now))
        table.on_state(self, seq, now)
        if table.spans and self is not table.observer:
            table.fire()  # this player's process may have been behind the observer's

    def on_reply(self, now: float, message: AnyServerMessage) -> None:
        """Any other message of the protocol."""
        self.counted(now)
        table = self.table
        if isinstance(message, Welcome):
            self.greeted = True
        elif isinstance(message, Ack):
            if message.id == self.act_id:
                self.act_id = None
                table.on_ack(self, message.seq, now)
        elif isinstance(message, LegalMoves):
            if message.id == self.legal_id:
                self.legal_id = None
                table.on_legal(self, message.actions)
        elif isinstance(message, Error):
            table.figures.errors[message.code] += 1
            if message.id is not None and message.id in (self.legal_id, self.act_id):
                self.legal_id = self.act_id = None
                table.done(self)

    def behind(self, seq: int) -> bool:
        """This connection has not yet seen the room at ``seq`` (its server is behind another's)."""
        return not self.history or self.history[-1][0] < seq

    def on_close(self, why: str) -> None:
        self.connected = False
        if not self.table.closing:
            self.table.figures.errors[f"connection_{why}"] += 1
        self.table.on_leave(self)


class Table:
    """A room and its players, driven from one generator process."""

    def __init__(self, plan: RoomPlan, session: str, rng: random.Random, figures: Figures) -> None:
        self.code = plan.code
        self.session = session
        self.rng = rng
        self.figures = figures
        self.players = [
            Player(self, member, token, url)
            for member, (token, url) in enumerate(zip(plan.tokens, plan.urls, strict=True))
        ]
        self.observer = self.players[0]
        self.room: dict[str, Any] | None = None
        self.seen = -1  # the observer's newest room.seq
        self.by_seat: dict[int, Player] = {}
        self.busy: set[Player] = set()
        self.acted_at: dict[Player, int] = {}  # a player's last entry: it may act again once the observer saw it
        self.pending: list[Pending] = []
        self.window_start = self.window_end = float("inf")
        self.mode = "stop"  # 'paced', 'max' or 'stop'
        self.mean_gap = 1.0
        self.uniform = False
        self.ticks = 0  # paced actions due but not yet started
        self.timer: asyncio.TimerHandle | None = None
        self.rematch_asked = False
        self.closing = False
        #: the players are connected to several servers: each acts on what its own connection saw
        self.spans = len(set(plan.urls)) > 1

    # --- what the observer sees
    def observe(self, room: dict[str, Any]) -> None:
        self.room = room
        self.seen = int(room["seq"])
        status = room.get("status")
        if status == "playing":
            self.rematch_asked = False
            members = room.get("members")
            if members and members[0].get("seat") is not None:
                self.by_seat = {
                    m["seat"]: self.players[m["member"]] for m in members if m["member"] < len(self.players)
                }
            else:
                self.by_seat = dict(enumerate(self.players))
        elif status == "over" and self.mode != "stop" and not self.rematch_asked:
            self.rematch_asked = True
            self.figures.rematches += 1
            self.observer.send(Rematch)
        self.fire()

    def eligible(self) -> list[Player]:
        room = self.room
        if room is None or room.get("status") != "playing" or not room.get("game"):
            return []
        found = []
        for seat in room["game"].get("awaiting", ()):
            player = self.by_seat.get(seat)
            if (
                player is not None
                and player.connected
                and player not in self.busy
                and self.seen > self.acted_at.get(player, -1)
                # the observer's own state is what `seen` is (and is read before its history grows)
                and not (self.spans and player is not self.observer and player.behind(self.seen))
            ):
                found.append(player)
        return found

    def fire(self) -> None:
        """Start the moves that are due: every awaited seat (max), or one per paced tick."""
        if self.mode == "stop":
            return
        if self.mode == "paced" and not self.ticks:
            return
        candidates = self.eligible()
        self.rng.shuffle(candidates)
        for player in candidates:
            if self.mode == "paced":
                if not self.ticks:
                    break
                self.ticks -= 1
            self.busy.add(player)
            player.legal_id = player.send(Legal)
            if time.monotonic() < self.window_end:
                self.figures.legal_sent += 1

    def tick(self) -> None:
        if self.mode != "paced":
            return
        self.ticks += 1
        self.figures.backlog = max(self.figures.backlog, self.ticks)
        self.fire()
        self.timer = asyncio.get_running_loop().call_later(self.gap(), self.tick)

    def gap(self) -> float:
        if self.uniform:
            return self.rng.uniform(0, 2 * self.mean_gap)
        return self.rng.expovariate(1 / self.mean_gap)

    # --- a player's move
    def on_legal(self, player: Player, actions: list[dict[str, Any]]) -> None:
        if not actions or self.mode == "stop":
            if not actions:
                self.figures.stale += 1
            self.done(player)
            return
        action = self.rng.choice(actions)
        if action.get("type") in ("tell", "blind_clue") and not action.get("clue"):
            action["clue"] = self.rng.choice(CLUES)
        player.act_sent = time.monotonic()
        player.act_id = player.send(Act, action=action)
        if self.window_start <= player.act_sent < self.window_end:
            self.figures.acts_sent += 1

    def on_ack(self, player: Player, seq: int, now: float) -> None:
        if self.window_start <= now < self.window_end:
            self.figures.actions += 1
            self.figures.acked_by[player.url] += 1
        self.acted_at[player] = seq
        pending = Pending(seq, player.act_sent, self.window_start <= player.act_sent < self.window_end)
        for other in self.players:
            if not other.connected:
                continue
            # the first state past ``seq`` it got, if any: near the end of its history (which a
            # connection's rising seqs keep in order), so it is searched from there
            first = None
            for seen_seq, when in reversed(other.history):
                if seen_seq <= seq:
                    break
                first = when
            if first is None:
                pending.waiting.add(other)
            else:
                pending.latest = max(pending.latest, first)
        if pending.waiting:
            self.pending.append(pending)
        else:
            self.finish(pending)
        self.done(player)

    def done(self, player: Player) -> None:
        self.busy.discard(player)
        self.fire()

    # --- updates reaching the players
    def on_state(self, player: Player, seq: int, now: float) -> None:
        if not self.pending:
            return
        finished = []
        for pending in self.pending:
            if seq > pending.seq and player in pending.waiting:
                pending.waiting.discard(player)
                pending.latest = max(pending.latest, now)
                if not pending.waiting:
                    finished.append(pending)
        for pending in finished:
            self.pending.remove(pending)
            self.finish(pending)

    def finish(self, pending: Pending) -> None:
        if pending.counted:
            self.figures.latencies.append((pending.latest - pending.sent) * 1000)

    def on_leave(self, player: Player) -> None:
        self.busy.discard(player)
        for pending in list(self.pending):
            pending.waiting.discard(player)
            if not pending.waiting:
                self.pending.remove(pending)
                self.finish(pending)

    # --- phases
    def begin(self, mode: str, think: float, uniform: bool, window: tuple[float, float]) -> None:
        self.mode = mode
        self.window_start, self.window_end = window
        self.ticks = 0
        if mode == "paced":
            self.mean_gap = think / len(self.players)
            self.uniform = uniform
            self.timer = asyncio.get_running_loop().call_later(self.gap(), self.tick)
        else:
            self.fire()

    def halt(self) -> None:
        self.mode = "stop"
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
