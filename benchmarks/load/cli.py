"""The command line: ``python -m benchmarks.load [options]`` (the package's docstring says what
each phase measures), and the run it asks for — Fabula, then the bare transport's ceiling, then
the verdicts."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from . import audience
from .measure import measure
from .report import Run, ceiling_lines, verdicts, versus_sqlite
from .system import raise_nofile

DESCRIPTION = (
    "Load on a server (one process or several) over real WebSockets: R rooms × N players playing random legal moves."
)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=DESCRIPTION)
    parser.add_argument(
        "--server",
        action="append",
        metavar="URL",
        help="the URL of a running server to load (default: start one); repeat it for several processes of "
        "one deployment: each room's players are split round-robin over them",
    )
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        metavar="PID",
        help="with --server: its process id, for CPU and memory; repeat it for several (summed, and shown each)",
    )
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        metavar="N",
        help="start N fabula serve processes over --database and --redis (one schema and namespace, dropped "
        "afterwards) and split each room's players round-robin over them (default 1)",
    )
    parser.add_argument("--target", choices=("fabula", "transport"), default="fabula", help="the server to start")
    parser.add_argument("--rooms", type=int, default=100, help="rooms (default 100)")
    parser.add_argument("--players", type=int, default=6, help="players a room (default 6)")
    parser.add_argument("--phases", default="idle,paced,max", help="of idle,paced,max (default all three)")
    parser.add_argument("--think", type=float, default=10.0, help="paced: mean seconds between a player's actions")
    parser.add_argument("--jitter", choices=("exp", "uniform"), default="exp", help="paced: gaps exponential/uniform")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured per phase (default 20)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of load before the window (default 5)")
    parser.add_argument("--workers", type=int, default=1, help="generator processes (default 1)")
    parser.add_argument(
        "--settle", type=float, default=3.0, help="idle: seconds to wait before reading memory (default 3)"
    )
    parser.add_argument(
        "--ceiling",
        choices=("none", "echo", "sample", "both"),
        default="sample",
        help="then the bare transport's max: echo the action, or with a real Fabula state (default sample)",
    )
    parser.add_argument(
        "--client",
        choices=("lean", "fabula"),
        default="lean",
        help="the generator's players: the lean WebSocket client of benchmarks/load/websocket.py, or "
        "fabula.client (default lean)",
    )
    parser.add_argument(
        "--deflate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="offer permessage-deflate, as browsers do (default on)",
    )
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="pin the started server(s) to one core, all together, and the generator to the others (default on)",
    )
    parser.add_argument(
        "--spread",
        action="store_true",
        help="with several started servers: pin each to a CPU of its own (server k on CPU k), and not the "
        "generator (instead of --pin's all servers on one core)",
    )
    parser.add_argument("--durability", choices=("process", "power"), default="process")
    parser.add_argument(
        "--database", help="start fabula serve with --database URL (a schema of its own, dropped afterwards)"
    )
    parser.add_argument("--redis", help="and with --redis URL: every entry announced as with several processes")
    parser.add_argument("--server-log-level", default="info", help="fabula serve --log-level (default info)")
    parser.add_argument(
        "--signal-window",
        action="store_true",
        help="send the server SIGUSR1 when a window opens and SIGUSR2 when it closes (for a profiler in it)",
    )
    parser.add_argument(
        "--split",
        choices=("player", "room"),
        default="player",
        help="with several servers: each room's players round-robin over them (player, the default), "
        "or each room on one of them (room, as nginx's room hash does)",
    )
    parser.add_argument(
        "--versus-sqlite",
        action="store_true",
        help="with --database: first the same phases on one process over SQLite, then the ratio (issue 19)",
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="run the started servers under valgrind's callgrind and count the instructions they run in each "
        "window (repeatable where CPU time is not; the servers run some 50 times slower: keep the load light)",
    )
    parser.add_argument(
        "--audience",
        type=int,
        metavar="N",
        help="the audience mode (benchmarks/load/audience.py): one room of --players players plus N audience "
        "connections that each receive every state and vote once a round; --duration seconds without, then with",
    )
    parser.add_argument(
        "--crowd-processes",
        type=int,
        default=1,
        help="audience: the generator's processes the audience connections are split over (default 1)",
    )
    parser.add_argument(
        "--stamps",
        type=int,
        default=10,
        metavar="K",
        help="audience: every K-th audience connection (and each player) times a state's arrival by its socket's "
        "kernel stamp, read with recvmsg — the rest with uvloop's own reading, which costs the generator less; "
        "1: all of them, 0: none (default 10)",
    )
    parser.add_argument(
        "--late-votes",
        action="store_true",
        help="audience: a member whose pause ends after the vote closed on their phone votes all the same (a "
        "browser does not: its vote button goes with the vote phase); the votes the server refuses then add load",
    )
    parser.add_argument(
        "--vote-spread", type=float, default=1.5, help="audience: seconds over which a round's votes are spread"
    )
    parser.add_argument("--json", action="store_true", help="also print every figure as JSON")
    args = parser.parse_args(argv)
    args.phases = [phase.strip() for phase in args.phases.split(",") if phase.strip()]
    if unknown := set(args.phases) - {"idle", "paced", "max"}:
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
    if args.servers < 1:
        parser.error("--servers must be at least 1")
    if args.callgrind and (args.server or args.target != "fabula"):
        parser.error("--callgrind counts the fabula serve processes it starts: not with --server or --target")
    if args.servers > 1:
        if args.server:
            parser.error("--servers starts the servers itself: give it or --server URL …, not both")
        if args.target != "fabula":
            parser.error("--servers is for fabula serve only")
        if not (args.database and args.redis):
            parser.error("--servers N > 1 needs --database and --redis: several processes share their rooms there")
    if args.server_pid and not args.server:
        parser.error("--server-pid goes with --server")
    if args.versus_sqlite and not (args.database and args.target == "fabula" and not args.server):
        parser.error("--versus-sqlite compares the fabula serve it starts with --database against SQLite")
    return args


def ceilings_of(args: argparse.Namespace, fabula: Run) -> list[Run]:
    """The bare transport's ``max`` under the same load: echoing the action, or relaying a state
    Fabula really sent in ``fabula``'s run (``--ceiling``)."""
    top = fabula.figures.get("max")
    if args.target != "fabula" or args.server or args.ceiling == "none" or not top:
        return []
    ceilings = []
    for kind in ["echo", "sample"] if args.ceiling == "both" else [args.ceiling]:
        sample_path: Path | None = None
        if kind == "sample" and top.get("sample"):
            sample_path = Path(tempfile.mkdtemp(prefix="fabula-sample-")) / "state.json"
            sample_path.write_text(json.dumps(top["sample"]))
        try:
            ceiling = measure(args, "transport", ["max"], sample_path)
        finally:
            if sample_path is not None:
                shutil.rmtree(sample_path.parent, ignore_errors=True)
        ceiling.target = f"transport/{kind}"
        ceilings.append(ceiling)
    return ceilings


def stop_on_sigterm() -> None:
    """SIGTERM ends the run as Ctrl+C does, through the `finally` that stops the servers and the
    generators: Python's default would end this process at once and leave them running."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    stop_on_sigterm()
    if args.audience is not None:
        figures = audience.main(args)
        if args.json:
            print(json.dumps(figures, indent=2))
        return
    phases: list[str] = args.phases
    soft, hard = raise_nofile()
    need = args.rooms * args.players + 100
    print(
        f"load: {os.cpu_count()} CPUs; RLIMIT_NOFILE raised to {soft} (hard {hard}) here and in the processes "
        f"started; {need:,} descriptors needed on each side",
        flush=True,
    )
    if soft < need:
        sys.exit(f"RLIMIT_NOFILE {soft} < {need}: raise the hard limit (ulimit -Hn) or run fewer players")
    sqlite: Run | None = None
    if args.versus_sqlite:  # the same load on the default backend first, in the same run
        sqlite = measure(
            argparse.Namespace(**{**vars(args), "database": None, "redis": None, "servers": 1}), "fabula", phases
        )
    runs = [measure(args, args.target, phases)]
    ceilings = ceilings_of(args, runs[0])
    print("== verdicts" if args.target == "fabula" else "== the bare transport")
    for line in verdicts(runs[0], ceilings, args) if args.target == "fabula" else ceiling_lines(runs[0]):
        print(f" - {line}")
    if sqlite is not None:
        for line in versus_sqlite(sqlite, runs[0], args):
            print(f" - {line}")
        runs.insert(0, sqlite)
    if args.json:
        for run in runs + ceilings:
            for phase in ("paced", "max"):
                run.figures.get(phase, {}).pop("sample", None)
        print(json.dumps([run.__dict__ for run in runs + ceilings], indent=2, default=str))
