"""Full random games per second, per mode and seat count, on one core.

Every move goes through the public API a player uses: `Game.awaiting`, `Game.legal_actions`
(a uniformly random choice among them) and `Game.apply`. Run: ``python benchmarks/engine.py``
(``--quick`` for a short run, ``--json`` for machine-readable figures).

Target (issue 2): at least 1,000 six-player `odyssey` games per second on one core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from typing import Any

from fabula.bots.random_player import play_random_game
from fabula.rules import MODES, Game

TABLES = [(mode, seats) for mode in ("odyssey", "classic", "party", "teams") for seats in MODES[mode].seat_counts]


def games_per_second(mode: str, seats: int, seconds: float) -> tuple[float, float, int]:
    """Play seeded random games for about ``seconds``: (games per second, rounds per game, games)."""
    rng = random.Random(f"bench/{mode}/{seats}")
    games = rounds = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        game = play_random_game(Game.new(mode, seats, seed=rng.getrandbits(64)), rng)
        games += 1
        rounds += game.round
        now = time.perf_counter()
        if now >= deadline:
            return games / (now - start), rounds / games, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per table (default 2)")
    parser.add_argument("--quick", action="store_true", help="only the six-player odyssey table, 1 s")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says
    tables = [("odyssey", 6)] if args.quick else TABLES
    seconds = 1.0 if args.quick else args.seconds
    play_random_game(Game.new("odyssey", 6, seed=0), random.Random(0))  # warm up imports and caches
    rows: list[dict[str, Any]] = []
    for mode, seats in tables:
        rate, rounds, games = games_per_second(mode, seats, seconds)
        rows.append(
            {
                "mode": mode,
                "seats": seats,
                "games_per_second": round(rate, 1),
                "rounds_per_game": round(rounds, 2),
                "games": games,
            }
        )
    if args.json:
        print(json.dumps({"python": platform.python_version(), "rows": rows}))
        return
    print(f"Python {platform.python_version()} on {platform.machine()}, one core, {seconds:g} s per table")
    print(f"{'mode':<8} {'seats':>5} {'games/s':>9} {'rounds/game':>12} {'games':>7}")
    for row in rows:
        print(
            f"{row['mode']:<8} {row['seats']:>5} {row['games_per_second']:>9.1f} "
            f"{row['rounds_per_game']:>12.2f} {row['games']:>7}"
        )
    target = next((r for r in rows if r["mode"] == "odyssey" and r["seats"] == 6), None)
    if target is not None:
        verdict = "meets" if target["games_per_second"] >= 1000 else "MISSES"
        print(f"six-player odyssey: {target['games_per_second']:.0f} games/s — {verdict} the 1,000/s target")


if __name__ == "__main__":
    main()
