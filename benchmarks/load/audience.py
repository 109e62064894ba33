"""The audience mode (``--audience N``, issue 36): one room of six protocol players moving, watched
by N audience connections (``hello`` with ``audience``) that each receive every state and vote
once a round (``crowd_vote``) — on one server process, or split over several.

Two windows of ``--duration`` seconds with the same players and the same pace: first without an
audience, then with it (connected in between). It reports:

- whether every audience connection got each state (each ``seq`` the room's first player got:
  exactly that state, or — coalesced by its outbox — a newer one at least);
- the delivery of a change to the whole audience: from a player's ``act`` to the last audience
  connection receiving a state that shows it (p50/p99/max), and the players' own latency (from
  an ``act`` to the last of the six receiving it) with and without the audience — received being
  when the state reached the connection's socket (the kernel's stamp, `benchmarks.load.stamped`),
  and, beside it, when the generator read it;
- the audience's votes: sent, acknowledged, refused (by code), against what the room counted (the
  albums' ``audience.rounds`` totals and the state's ``audience.voted`` for a round not revealed);
- resident memory of the server process(es) with N audience connections against none, per connection.

The players act as soon as they are awaited, after a pause of ``--think`` × uniform(0.2, 1) seconds
(at ``--think 1``, a round of six takes some 5–8 s, its vote phase 2–3 s); each audience member
votes for a random card of the table, once a round, after a pause of uniform(0, ``--vote-spread``)
seconds from the first state of the vote it gets — if its phone still shows that vote open then, as
the browser's vote button does (``--late-votes``: all the same, the server refusing what comes after
the vote). The generator is this process (the players) and
a process of its own for the audience (`benchmarks.load.crowd`; ``--crowd-processes K`` splits it over
K), pinned (with ``--pin``) to the cores the servers are not on. The audience processes' own loop
lag is reported: a state they read late was delivered in time all the same, and its socket's stamp
says so (reading 10,000 sockets, their lag reached 0.5–0.7 s).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import os
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .crowd import Crowds
from .links import Link, connect
from .seats import take_seats
from .servers import Server, start_fabulas, stop_servers
from .system import cpu_seconds, raise_nofile, settle

decode = msgspec.json.decode
#: which time of a state `deliveries` counts: its arrival at the connection's socket (the
#: kernel's stamp, `benchmarks.load.stamped`), or when this generator read it
ARRIVED, READ = 1, 2


@dataclass
class Tally:
    """What the players count."""

    #: (time sent, seq of the entry it made, its kind) of every act acknowledged in the window
    acts: list[tuple[float, int, str]] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    counting: bool = False


class Player:
    """A seat played through the protocol: a random legal move whenever awaited, after a pause."""

    def __init__(self, link: Link, rng: random.Random, think: float, tally: Tally) -> None:
        self.link, self.rng, self.think, self.tally = link, rng, think, tally
        link.on_message = self.on_message
        self.room: dict[str, Any] | None = None
        self.greeted = False
        self.moving = False
        #: message id → (time sent, the action's kind)
        self.sent: dict[str, tuple[float, str]] = {}
        self.task: asyncio.TimerHandle | None = None
        self.albums: dict[int, dict[str, Any]] = {}

    def on_message(self, now: float, data: bytes) -> None:
        message = decode(data)
        kind = message["type"]
        if kind == "state":
            self.room = message["room"]
            if self.tally.counting:
                self.link.states.append((self.room["seq"], self.link.arrival(now), now))
            self.plan()
        elif kind == "welcome":
            self.greeted = True
        elif kind == "album" and message["album"] is not None:
            self.albums[message["album"]["number"]] = message["album"]
        elif kind == "ack" and message["id"] in self.sent:
            sent, what = self.sent.pop(message["id"])
            if self.tally.counting:
                self.tally.acts.append((sent, message["seq"], what))
            self.plan()
        elif kind == "error":
            self.sent.pop(message.get("id"), None)
            self.tally.errors[f"player_{message['code']}"] += 1
            # (a state that came while the act was on its way was not planned for: the table may
            # be waiting for this seat — a stall that cut some runs' acts from ~140 to 12)
            self.plan()

    def plan(self) -> None:
        room = self.room
        if not self.moving or self.task is not None or room is None or room["you"] is None:
            return
        if room["status"] == "over" and room["you"]["host"]:
            self.task = asyncio.get_running_loop().call_later(0.5, self.rematch)
        elif room["you"]["legal"] and not self.sent:
            self.task = asyncio.get_running_loop().call_later(self.think * self.rng.uniform(0.2, 1.0), self.act)

    def act(self) -> None:
        self.task = None
        room = self.room
        if not self.moving or room is None or room["you"] is None or not room["you"]["legal"] or self.sent:
            return
        action = dict(self.rng.choice(room["you"]["legal"]))
        if "clue" in action and action["clue"] is None:
            action["clue"] = "a long way home"
        self.sent[self.link.send({"type": "act", "action": action})] = (time.monotonic(), str(action.get("type")))

    def rematch(self) -> None:
        self.task = None
        if self.moving and self.room is not None and self.room["status"] == "over":
            self.link.send({"type": "rematch"})

    def halt(self) -> None:
        self.moving = False
        if self.task is not None:
            self.task.cancel()
            self.task = None


# ---------------------------------------------------------------------- measuring


def deliveries(
    acts: list[tuple[float, int, str]], got: list[list[tuple[int, float, float]]], column: int = ARRIVED
) -> tuple[list[float | None], int]:
    """For each act, from its sending to the last connection showing it (ms; None if some
    connection never showed it) — ``got``: each connection's (seq, arrival at its socket, read) of
    the states it got, ``column`` the time counted — the first state each got with a seq above the
    act's entry; and how many acts some connection never showed."""
    latest = [0.0] * len(acts)
    missing = [False] * len(acts)
    for states in got:
        seqs = [state[0] for state in states]  # (in arrival order: never decreasing)
        for index, (_, seq, _) in enumerate(acts):
            at = bisect.bisect_right(seqs, seq)
            if at == len(seqs):
                missing[index] = True
            else:
                latest[index] = max(latest[index], states[at][column])
    found = [None if missing[i] else (latest[i] - sent) * 1000 for i, (sent, _, _) in enumerate(acts)]
    return found, sum(missing)


def slowest(acts: list[tuple[float, int, str]], found: list[float | None], count: int = 5) -> list[str]:
    """The ``count`` slowest acts: how long, and what kind of act (which phase it ended, say)."""
    timed = sorted(((ms, act[2]) for ms, act in zip(found, acts, strict=True) if ms is not None), reverse=True)
    return [f"{ms:.0f} ms ({what})" for ms, what in timed[:count]]


def quantile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


def p99_change(
    before: Sequence[float], after: Sequence[float], *, rounds: int = 2000, seed: int = 7
) -> tuple[float, float, float]:
    """How much the p99 of ``after`` exceeds that of ``before`` (ms), and the 95 % bootstrap
    interval of that change: each window's samples resampled with replacement ``rounds`` times.
    An interval holding 0 is a change the two windows' own noise could make.

    >>> p99_change([1.0, 2.0, 3.0] * 60, [1.0, 2.0, 3.0] * 60)[0]
    0.0
    """
    if not before or not after:
        return float("nan"), float("nan"), float("nan")
    rng = random.Random(seed)

    def p99(values: Sequence[float]) -> float:
        return quantile(sorted(values), 0.99)

    changes = sorted(
        p99(rng.choices(after, k=len(after))) - p99(rng.choices(before, k=len(before))) for _ in range(rounds)
    )
    return p99(after) - p99(before), changes[int(0.025 * rounds)], changes[int(0.975 * rounds) - 1]


def coverage(observer: Link, watched: list[list[tuple[int, float, float]]]) -> dict[str, Any]:
    """Of the states the room's first player got, how many each audience connection got."""
    seqs = {state[0] for state in observer.states}
    exact = [len(seqs & {state[0] for state in states}) for states in watched]
    newest = max(seqs, default=-1)
    return {
        "states": len(seqs),
        "got_every_state": sum(count == len(seqs) for count in exact),
        "states_got_share": sum(exact) / (len(seqs) * len(watched)) if seqs and watched else 1.0,
        "saw_the_last": sum(any(state[0] >= newest for state in states) for states in watched),
    }


async def window(
    players: list[Player], crowd: Crowds | None, tally: Tally, duration: float, pids: list[int]
) -> dict[str, Any]:
    """The players play for ``duration`` seconds; then what every connection got of it."""
    for link in [p.link for p in players]:
        link.states = []
    if crowd is not None:
        await crowd.ask("count")
    tally.acts, tally.counting = [], True
    generators = [os.getpid()] + (crowd.pids if crowd is not None else [])
    cpu = [cpu_seconds(pid) for pid in pids + generators]
    start = time.monotonic()
    for player in players:
        player.moving = True
        player.plan()
    lags = await lag_over(duration)
    end = time.monotonic()
    for player in players:
        player.halt()
    cpu = [cpu_seconds(pid) - before for pid, before in zip(pids + generators, cpu, strict=True)]
    await asyncio.sleep(3.0)  # (what was under way arrives)
    tally.counting = False
    watched: list[list[tuple[int, float, float]]] = []
    crowd_lags: list[float] = []
    stamped: list[bool] = []
    if crowd is not None:
        watched, crowd_lags, stamped = await crowd.ask("states")
    acts = [act for act in tally.acts if start <= act[0] <= end]
    played, played_missing = deliveries(acts, [p.link.states for p in players])
    read, audience_missing = deliveries(acts, watched, READ)
    audience, _ = deliveries(acts, [states for states, on in zip(watched, stamped, strict=True) if on])
    return {
        "acts": len(acts),
        "players_ms": summary(played),
        "players_samples": [round(ms, 3) for ms in played if ms is not None],
        # (with several servers: the players seated on each, from the act to the last of them; in
        # the servers' order, as the room's host, the first player, reaches the first)
        "players_by_server_ms": [
            summary(deliveries(acts, [p.link.states for p in players if p.link.url == url])[0])
            for url in dict.fromkeys(p.link.url for p in players)
        ],
        "players_read_ms": summary(deliveries(acts, [p.link.states for p in players], READ)[0]),
        "players_missing": played_missing,
        "audience_ms": summary(audience) if any(stamped) else None,
        "audience_stamped": sum(stamped),
        "audience_read_ms": summary(read) if watched else None,
        "audience_slowest": slowest(acts, audience) if any(stamped) else [],
        "audience_missing": audience_missing,
        "coverage": coverage(players[0].link, watched) if watched else None,
        "server_cpu_share": [round(c / duration, 3) for c in cpu[: len(pids)]],
        "generator_cpu_share": round(sum(cpu[len(pids) :]) / duration, 3),
        "generator_lag_ms": summary(lags),
        "crowd_lag_ms": summary(crowd_lags) if crowd_lags else None,
    }


async def lag_over(duration: float) -> list[float]:
    """Wait ``duration`` seconds, measuring how late a 50 ms sleep wakes (ms): whether this
    process, the generator, keeps up."""
    lags = []
    end = time.monotonic() + duration
    while time.monotonic() < end:
        before = time.monotonic()
        await asyncio.sleep(0.05)
        lags.append((time.monotonic() - before - 0.05) * 1000)
    return sorted(lags)


def summary(found: Sequence[float | None]) -> dict[str, float]:
    values = sorted(value for value in found if value is not None)
    return {
        "p50": round(quantile(values, 0.5), 1),
        "p99": round(quantile(values, 0.99), 1),
        "max": round(values[-1], 1) if values else float("nan"),
        "n": len(values),
    }


async def counted_votes(host: Player, crowd: Crowds) -> dict[str, Any]:
    """The votes the audience sent and had acknowledged, against those the room counted: each
    game's album (its revealed rounds) and the state's ``audience.voted`` for a round not revealed."""
    sent, acked, refused, unanswered, errors, closed = await crowd.ask("votes")
    room = host.room
    assert room is not None
    for number in range(1, room["games_started"] + 1):
        host.link.send({"type": "album", "game": number})
    deadline = time.monotonic() + 30
    while len(host.albums) < room["games_started"] and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    counted: Counter[tuple[int, int]] = Counter()
    for number, album in host.albums.items():
        for crowd_round in (album.get("audience") or {}).get("rounds", []):
            counted[(number, crowd_round["round"])] = crowd_round["total"]
    room = host.room
    assert room is not None
    game = room["game"]
    if game is not None and game["phase"] == "vote":
        counted[(room["games_started"], game["round"])] = room["audience"]["voted"]
    return {
        "sent": sent,
        "closed": closed,
        "acked": sum(acked.values()),
        "refused": refused,
        "unanswered": unanswered,
        "counted": sum(counted.values()),
        "exact": counted == +acked,
        "rounds": len(counted),
        "errors": errors,
    }


async def run(args: argparse.Namespace, servers: list[Server]) -> dict[str, Any]:
    urls = [server.url for server in servers]
    pids = [server.pid for server in servers if server.pid is not None]
    tally, rng = Tally(), random.Random(7)
    (plan,) = await take_seats(urls, 1, args.players)
    players = [
        Player(
            Link(url, plan.code, args.deflate, stamped=args.stamps > 0), random.Random(rng.random()), args.think, tally
        )
        for url in plan.urls
    ]
    await connect(
        [(p.link, {"token": token}) for p, token in zip(players, plan.tokens, strict=True)],
        lambda: sum(p.greeted and p.room is not None for p in players),
    )
    host = players[0]
    host.link.send({"type": "start"})
    await asyncio.sleep(1.0)
    figures: dict[str, Any] = {
        "audience": args.audience,
        "servers": len(servers),
        "room": plan.code,
        "stamps": args.stamps,
    }
    figures["rss_without_mib"] = await asyncio.to_thread(settle, pids, 3.0)
    figures["without"] = await window(players, None, tally, args.duration, pids)
    crowd = Crowds(
        urls,
        plan.code,
        audience=args.audience,
        processes=args.crowd_processes,
        deflate=args.deflate,
        stamps=args.stamps,
        spread=args.vote_spread,
        late_votes=args.late_votes,
        seed=rng.random(),
    )
    try:
        figures["connect_seconds"] = round(await crowd.start(), 1)
        rss_with = await asyncio.to_thread(settle, pids, 3.0)
        figures["rss_with_mib"] = rss_with
        if rss_with and figures["rss_without_mib"]:
            grown = sum(rss_with) - sum(figures["rss_without_mib"])
            figures["kib_per_audience"] = round(grown * 1024 / max(1, args.audience), 1)
        figures["with"] = await window(players, crowd, tally, args.duration, pids)
        figures["votes"] = await counted_votes(host, crowd)
        figures["errors"] = dict(tally.errors) | figures["votes"].pop("errors")
        await crowd.ask("close")
    finally:
        crowd.stop()
    for player in players:
        player.link.close()
    await asyncio.sleep(1.0)
    return figures


def report(figures: dict[str, Any]) -> list[str]:
    """The figures as lines to print."""
    lines = [
        f"room {figures['room']}: 6 players, {figures['audience']:,} audience over {figures['servers']} process(es)"
    ]
    for name in ("without", "with"):
        found = figures[name]
        lines.append(
            f"{name} the audience: {found['acts']} acts; players p50 {found['players_ms']['p50']} ms, "
            f"p99 {found['players_ms']['p99']} ms, max {found['players_ms']['max']} ms (as read: p99 "
            f"{found['players_read_ms']['p99']} ms); server CPU share "
            f"{found['server_cpu_share']}; the generator's (players' and audience's processes) "
            f"{found['generator_cpu_share']}, the players' loop lag p50 {found['generator_lag_ms']['p50']} ms, "
            f"p99 {found['generator_lag_ms']['p99']} ms"
        )
    if figures["servers"] > 1:
        lines.append(
            "the players by the server they reach (with the audience): "
            + "; ".join(
                f"server {n + 1}: p50 {on_it['p50']} ms, p99 {on_it['p99']} ms"
                for n, on_it in enumerate(figures["with"]["players_by_server_ms"])
            )
        )
    change, low, high = p99_change(figures["without"]["players_samples"], figures["with"]["players_samples"])
    lines.append(
        f"the players' p99 with the audience against without: {change:+.1f} ms, 95% bootstrap interval "
        f"[{low:+.1f}, {high:+.1f}] ms: "
        + ("within the windows' own noise" if low <= 0 <= high else "beyond the windows' own noise")
    )
    found = figures["with"]
    if found["audience_read_ms"] is not None:
        cover, read, arrived = found["coverage"], found["audience_read_ms"], found["audience_ms"]
        at_sockets = (
            f"p50 {arrived['p50']} ms, p99 {arrived['p99']} ms, max {arrived['max']} ms at the sockets of "
            f"{found['audience_stamped']:,} of them (every {figures['stamps']}th: the kernel's arrival stamp); "
            if arrived is not None
            else ""
        )
        lines.append(
            f"a change to the whole audience: {at_sockets}p50 {read['p50']} ms, p99 {read['p99']} ms, max "
            f"{read['max']} ms as read by the audience's processes ({found['audience_missing']} acts never shown "
            f"to someone); the audience's processes' loop lag p50 {found['crowd_lag_ms']['p50']} ms, "
            f"p99 {found['crowd_lag_ms']['p99']} ms"
        )
        if found["audience_slowest"]:
            lines.append(f"the slowest acts to the whole audience: {', '.join(found['audience_slowest'])}")
        lines.append(
            f"states: {cover['states']} in the window; {cover['got_every_state']:,} of {figures['audience']:,} "
            f"connections got every one, {cover['states_got_share']:.4f} of them all got; "
            f"{cover['saw_the_last']:,} saw the last"
        )
    votes = figures["votes"]
    lines.append(
        f"votes: {votes['sent']:,} sent ({votes['closed']:,} not: the vote had closed on that phone), "
        f"{votes['acked']:,} acknowledged, refused {votes['refused']}, "
        f"{votes['unanswered']} unanswered; counted {votes['counted']:,} in {votes['rounds']} rounds: "
        f"{'exactly the acknowledged' if votes['exact'] else 'NOT the acknowledged'}"
    )
    lines.append(
        f"memory: {figures['rss_without_mib']} MiB without, {figures['rss_with_mib']} MiB with: "
        f"{figures.get('kib_per_audience')} KiB per audience connection; connected in {figures['connect_seconds']} s"
    )
    if figures["errors"]:
        lines.append(f"errors: {figures['errors']}")
    return lines


def main(args: argparse.Namespace) -> dict[str, Any]:
    """Start the server(s) (pinned, with ``--pin``, to the first core; this process to the
    others), run, print, stop them."""
    raise_nofile()
    cpus = sorted(os.sched_getaffinity(0))
    pin = {cpus[0]} if args.pin and len(cpus) > 1 else None
    servers = start_fabulas(args, pin)
    try:
        if pin:
            os.sched_setaffinity(0, set(cpus) - pin)
        try:
            import uvloop

            figures = uvloop.run(run(args, servers))
        except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
            figures = asyncio.run(run(args, servers))
    finally:
        stop_servers(servers)
    print("== audience")
    for line in report(figures):
        print(f" - {line}", flush=True)
    return figures
