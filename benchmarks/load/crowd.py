"""The audience of the audience benchmark, in a process of its own: N connections that each read
every state and vote once a round. Apart from the players, so that the players' latency is the
server's, not this generator's: 2,000 connections reading a state each held the generator's loop
some 27 ms (p99 of its lag), and a player's state read meanwhile waited as long.

The benchmark's process asks it what to do over a pipe (`Crowd`): count the states from now,
stop counting and say what each connection got (and how late its own loop was meanwhile), stop
voting, say the votes, close. A large audience is split over several such processes (`Crowds`):
one process reading 10,000 sockets took some 0.5 s to read a state on all of them, and that wait
was its own, not the server's — though on a two-core machine a second process costs the server
its share of a core (docs/deploy.md, *The audience*).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import re
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import msgspec

from .links import Link, connect
from .system import raise_nofile

SEQ = re.compile(rb'"seq":(\d+)')
STATE = b'{"type":"state"'
decode = msgspec.json.decode


@dataclass(slots=True)
class View:
    """What an audience connection needs of a state: read once per seq for all of them."""

    game: int
    round: int
    voting: bool
    cards: list[str]


@dataclass
class CrowdTally:
    """What the audience counts, across its connections."""

    votes_sent: int = 0
    #: votes not sent: the phone showed the vote over by the end of its voter's pause
    votes_closed: int = 0
    acked: Counter[tuple[int, int]] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    views: dict[int, View] = field(default_factory=dict)
    #: a state's text → its seq (the connections are handed the very same text object, whose
    #: hash Python keeps: looking it up again costs next to nothing)
    seqs: dict[bytes, int] = field(default_factory=dict)
    #: compressed message → its text, for all the connections (`WebSocketClient.inflated`)
    inflated: dict[bytes, bytes] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    counting: bool = False


class Watcher:
    """An audience connection: counts its states, votes once a round."""

    def __init__(self, link: Link, rng: random.Random, spread: float, tally: CrowdTally, *, late: bool = False) -> None:
        self.link, self.rng, self.spread, self.tally = link, rng, spread, tally
        #: send a vote whose pause ended after the vote closed on this phone (a browser does not:
        #: its vote button goes with the vote phase)
        self.late = late
        #: the (game, round) of the vote this phone shows open, if one is
        self.open: tuple[int, int] | None = None
        link.on_message = self.on_message
        self.greeted = False
        self.voted: set[tuple[int, int]] = set()
        self.voting = True
        self.pending: dict[str, tuple[int, int]] = {}
        self.counted_in: int | None = None

    def on_message(self, now: float, data: bytes) -> None:
        seq = self.tally.seqs.get(data)
        if seq is None and data.startswith(STATE):
            found = SEQ.search(data, 0, 200)
            if found is None:
                self.tally.errors["unreadable_state"] += 1
                return
            seq = int(found.group(1))
            if len(self.tally.seqs) >= 256:
                self.tally.seqs.clear()
            self.tally.seqs[data] = seq
        if seq is not None:
            if self.tally.counting:
                self.link.states.append((seq, self.link.arrival(now), now))
            view = self.tally.views.get(seq)
            if view is None:  # (every audience connection gets the same bytes: read once)
                view = self.tally.views[seq] = view_of(decode(data)["room"])
            key = (view.game, view.round)
            self.open = key if view.voting else None
            if view.voting and self.voting and key not in self.voted:
                self.voted.add(key)
                card = self.rng.choice(view.cards)
                asyncio.get_running_loop().call_later(self.rng.uniform(0, self.spread), self.vote, key, card)
            return
        message = decode(data)
        kind = message["type"]
        if kind == "welcome":
            self.greeted = True
        elif kind == "audience":
            you = message["you"]
            # (the standing that comes before a vote's ack says the round the server counted it
            # in: a vote sent from a state seconds old still counts in the round being voted)
            self.counted_in = you["round"] if you["vote"] is not None else None
        elif kind == "ack" and message["id"] in self.pending:
            game, round_number = self.pending.pop(message["id"])
            if self.counted_in is not None:
                round_number, self.counted_in = self.counted_in, None
            self.tally.acked[(game, round_number)] += 1
        elif kind == "error":
            self.pending.pop(message.get("id"), None)
            self.tally.refused[message["code"]] += 1

    def vote(self, key: tuple[int, int], card: str) -> None:
        if self.voting and not self.late and self.open != key:
            self.tally.votes_closed += 1
        elif self.voting:
            self.pending[self.link.send({"type": "crowd_vote", "card": card})] = key
            self.tally.votes_sent += 1


def view_of(room: dict[str, Any]) -> View:
    game = room["game"]
    if game is None:
        return View(room["games_started"], 0, False, [])
    voting = room["status"] == "playing" and game["phase"] == "vote"
    return View(room["games_started"], game["round"], voting, [slot["card"] for slot in game["table"]])


# ---------------------------------------------------------------------- the process


async def _serve(pipe: Connection, urls: list[str], code: str, settings: dict[str, Any]) -> None:
    tally, rng = CrowdTally(), random.Random(settings["seed"])
    first = settings.get("first", 0)
    watchers = [
        Watcher(
            Link(urls[n % len(urls)], code, settings["deflate"], tally.inflated, stamped=_stamped(n, settings)),
            rng,
            settings["spread"],
            tally,
            late=settings.get("late_votes", False),
        )
        for n in range(first, first + settings["audience"])
    ]
    hellos = [
        {"token": None, "audience": {"token": secrets.token_urlsafe(16), "name": f"Fan {first + n}"}}
        for n in range(len(watchers))
    ]
    seconds = await connect(
        [(w.link, h) for w, h in zip(watchers, hellos, strict=True)], lambda: sum(w.greeted for w in watchers)
    )
    pipe.send(seconds)
    lags: list[float] = []
    lagging: asyncio.Task[None] | None = None
    while True:
        command = await asyncio.to_thread(pipe.recv)
        if command == "count":
            for watcher in watchers:
                watcher.link.states = []
            tally.counting = True
            lags = []
            lagging = asyncio.create_task(_lag(lags))
            pipe.send(None)
        elif command == "states":
            tally.counting = False
            if lagging is not None:
                lagging.cancel()
            pipe.send(
                ([watcher.link.states for watcher in watchers], lags, [watcher.link.stamped for watcher in watchers])
            )
        elif command == "votes":
            for watcher in watchers:
                watcher.voting = False
            await asyncio.sleep(3.0)  # (the last batches stored, the numbers shown)
            unanswered = sum(len(w.pending) for w in watchers)
            pipe.send(
                (
                    tally.votes_sent,
                    tally.acked,
                    dict(tally.refused),
                    unanswered,
                    dict(tally.errors),
                    tally.votes_closed,
                )
            )
        elif command == "close":
            for watcher in watchers:
                watcher.link.close()
            await asyncio.sleep(1.0)
            pipe.send(None)
            return


def _stamped(n: int, settings: dict[str, Any]) -> bool:
    """Whether audience connection ``n`` reads with the kernel's stamps: every ``stamps``-th (reading
    in Python, each costs this process some twice the CPU of uvloop's own reading)."""
    every = settings.get("stamps", 0)
    return bool(every) and n % every == 0


async def _lag(lags: list[float]) -> None:
    """How late a 50 ms sleep of this process wakes (ms), until cancelled."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(0.05)
        lags.append((time.monotonic() - before - 0.05) * 1000)


def _crowd_process(pipe: Connection, urls: list[str], code: str, settings: dict[str, Any]) -> None:
    raise_nofile()
    try:
        import uvloop

        uvloop.run(_serve(pipe, urls, code, settings))
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        asyncio.run(_serve(pipe, urls, code, settings))


class Crowd:
    """The audience process, seen from the benchmark's: `start`, then `ask` it, then `stop`."""

    def __init__(self, urls: list[str], code: str, **settings: Any) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, theirs = context.Pipe()
        self.process = context.Process(target=_crowd_process, args=(theirs, urls, code, settings), daemon=True)

    async def start(self) -> float:
        """Start it (on this process's cores); seconds until every connection was welcomed."""
        self.process.start()
        started = time.monotonic()
        while not await asyncio.to_thread(self.pipe.poll, 1.0):
            if not self.process.is_alive() or time.monotonic() - started > 180:
                raise RuntimeError("the audience process did not connect")
        connected: float = self.pipe.recv()
        return connected

    async def ask(self, command: str) -> Any:
        self.pipe.send(command)
        return await asyncio.to_thread(self.pipe.recv)

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(timeout=10)
        if self.process.is_alive():  # pragma: no cover
            self.process.kill()
            self.process.join()


class Crowds:
    """The audience split over ``processes`` crowd processes (as evenly as can be), asked as one."""

    def __init__(
        self, urls: list[str], code: str, *, audience: int, processes: int, seed: float, **settings: Any
    ) -> None:
        processes = max(1, min(processes, audience))
        sizes = [audience // processes + (k < audience % processes) for k in range(processes)]
        firsts = [sum(sizes[:k]) for k in range(processes)]
        self.crowds = [
            Crowd(urls, code, audience=size, first=first, seed=seed + k, **settings)
            for k, (size, first) in enumerate(zip(sizes, firsts, strict=True))
        ]

    async def start(self) -> float:
        """Start them all; seconds until the last connection was welcomed."""
        return max(await asyncio.gather(*(crowd.start() for crowd in self.crowds)))

    async def ask(self, command: str) -> Any:
        """Ask each, then one answer for all: the states of every connection and the crowds' loop
        lags sorted together (``states``), the votes summed (``votes``)."""
        answers = await asyncio.gather(*(crowd.ask(command) for crowd in self.crowds))
        if command == "states":
            return (
                [states for watched, _, _ in answers for states in watched],
                sorted(lag for _, lags, _ in answers for lag in lags),
                [on for _, _, stamped in answers for on in stamped],
            )
        if command == "votes":
            sent, acked, refused, unanswered, errors = 0, Counter[tuple[int, int]](), Counter[str](), 0, Counter[str]()
            closed = 0
            for their_sent, their_acked, their_refused, their_unanswered, their_errors, their_closed in answers:
                closed += their_closed
                sent += their_sent
                acked += their_acked
                refused.update(their_refused)
                unanswered += their_unanswered
                errors.update(their_errors)
            return sent, acked, dict(refused), unanswered, dict(errors), closed
        return None

    @property
    def pids(self) -> list[int]:
        return [crowd.pid for crowd in self.crowds if crowd.pid is not None]

    def stop(self) -> None:
        for crowd in self.crowds:
            crowd.stop()
