"""Full random games per second, per mode and seat count, on one core.

Every move goes through the public API a player uses: `Game.awaiting`, `Game.legal_actions`
(a uniformly random choice among them) and `Game.apply`. Each table is timed in several
separate runs; the median and the best run are printed, because a shared machine's speed drifts.

Run: ``python benchmarks/engine.py`` (``--quick``: the six-player odyssey table only;
``--json``: machine-readable figures).

Target (issue 2): at least 1,000 six-player `odyssey` games per second on one core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from dataclasses import asdict, dataclass

from fabula.bots.random_player import play_random_game
from fabula.rules import MODES, Game

TABLES = [(mode, seats) for mode in ("odyssey", "classic", "party", "teams") for seats in MODES[mode].seat_counts]
TARGET = 1000


@dataclass
class Row:
    mode: str
    seats: int
    median_games_per_second: float
    best_games_per_second: float
    rounds_per_game: float
    games: int


def one_run(mode: str, seats: int, seconds: float, rng: random.Random) -> tuple[int, int, float]:
    """Play seeded random games for about ``seconds``: (games, rounds, elapsed seconds)."""
    games = rounds = 0
    start = time.perf_counter()
    while True:
        game = play_random_game(Game.new(mode, seats, seed=rng.getrandbits(64)), rng)
        games += 1
        rounds += game.round
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games, rounds, elapsed


def measure(mode: str, seats: int, seconds: float, runs: int) -> Row:
    rng = random.Random(f"bench/{mode}/{seats}")
    rates, total_games, total_rounds = [], 0, 0
    for _ in range(runs):
        games, rounds, elapsed = one_run(mode, seats, seconds, rng)
        rates.append(games / elapsed)
        total_games += games
        total_rounds += rounds
    return Row(
        mode=mode,
        seats=seats,
        median_games_per_second=round(statistics.median(rates), 1),
        best_games_per_second=round(max(rates), 1),
        rounds_per_game=round(total_rounds / total_games, 2),
        games=total_games,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one run (default 1)")
    parser.add_argument("--runs", type=int, default=5, help="runs per table (default 5)")
    parser.add_argument("--quick", action="store_true", help="only the six-player odyssey table")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        # One core, as the target says: the process cannot spread over the others.
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    tables = [("odyssey", 6)] if args.quick else TABLES
    play_random_game(Game.new("odyssey", 6, seed=0), random.Random(0))  # warm up imports and caches
    rows = [measure(mode, seats, args.seconds, args.runs) for mode, seats in tables]
    if args.json:
        print(json.dumps({"python": platform.python_version(), "rows": [asdict(row) for row in rows]}))
        return
    print(
        f"Python {platform.python_version()} on {platform.machine()}, one core, {args.runs} runs of {args.seconds:g} s"
    )
    print(f"{'mode':<8} {'seats':>5} {'median/s':>9} {'best/s':>8} {'rounds/game':>12} {'games':>7}")
    for row in rows:
        print(
            f"{row.mode:<8} {row.seats:>5} {row.median_games_per_second:>9.0f} {row.best_games_per_second:>8.0f} "
            f"{row.rounds_per_game:>12.2f} {row.games:>7}"
        )
    target = next((row for row in rows if row.mode == "odyssey" and row.seats == 6), None)
    if target is not None:
        verdict = "meets" if target.median_games_per_second >= TARGET else "misses"
        print(
            f"six-player odyssey: median {target.median_games_per_second:.0f} games/s "
            f"(best {target.best_games_per_second:.0f}) — {verdict} the {TARGET:,}/s target"
        )


if __name__ == "__main__":
    main()
