"""Random-agent episodes per second through the PettingZoo env, beside the bare engine's games.

Both play the same table (six-player `odyssey`, default options unless ``--options``) with
uniformly random legal moves, in the same process and on one core, alternating runs so a shared
machine's drift hits both alike, each timed in the process's CPU time:

- **engine**: `fabula.bots.random_player.play_random_game` — `Game.awaiting`,
  `Game.legal_actions`, `Game.apply` (what benchmarks/engine.py measures);
- **env**: the AEC env's own loop, as an agent runs it — ``agent_iter``, ``last()`` (the seat's
  observation: its mask, and its view and card texts written only if read — a random agent
  reads the mask alone), a random id among the mask's ones, ``step``; free-text clues, so each
  clue is a bare id (the env's default clue);
- **env, texts read**: the same loop by an agent that also reads both texts of every
  observation (as a language-model agent does): printed beside, not part of the target.

The wrapper's cost is the ratio engine / env: the median, over the runs, of each run's ratio of
the engine's rate to the env's in the run right after it. (On a shared machine the speed drifts
by tens of per cent within seconds; two short runs side by side see nearly the same machine, so
their ratio is steadier than the ratio of two medians taken over different moments.) The rates'
medians and bests are printed too, with the spread of the runs' ratios, and where an env move's
time goes: in engine games, the time per move of the engine's move, of
taking the acting seat's view (`SeatObserver.capture`: what every observation costs), of
writing its texts from that (`SeatObserver.texts_of`: only when read) and of its mask.

Run: ``python benchmarks/research_env.py`` (``--seconds``, ``--runs``, ``--players``,
``--json``).

Target (issue 18): the env costs at most 2× the engine (ratio ≤ 2).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from fabula.bots.random_player import play_random_game, random_action
from fabula.research.actions import ActionSpace
from fabula.research.observations import CardTexts, SeatObserver
from fabula.research.pettingzoo import FabulaAECEnv, env
from fabula.rules import Game

TARGET = 2.0


def engine_games(players: int, options: dict[str, Any], rng: random.Random) -> Callable[[], int]:
    """One random engine game per call; returns its moves."""

    def one() -> int:
        game = play_random_game(Game.new("odyssey", players, options=options, seed=rng.getrandbits(63)), rng)
        return len(game.log)

    return one


def env_episodes(aec: FabulaAECEnv, rng: random.Random, *, read_texts: bool = False) -> Callable[[], int]:
    """One random-agent episode per call; returns its moves. (The agent draws its id with the
    engine loop's generator, `random.Random`: NumPy's costs 10 times more a draw.) With
    ``read_texts`` the agent reads each observation's view and card texts too."""
    draw = rng.random

    def one() -> int:
        aec.reset()
        moves = 0
        for _agent in aec.agent_iter():
            observation, _reward, termination, truncation, _info = aec.last()
            if termination or truncation or observation is None:
                aec.step(None)
                continue
            if read_texts:
                observation["view"], observation["cards"]
            legal = observation["action_mask"].nonzero()[0]  # (a 1-D mask: np.flatnonzero without its ravel)
            aec.step(int(legal[int(draw() * len(legal))]))
            moves += 1
        return moves

    return one


def breakdown(players: int, options: dict[str, Any], games: int) -> dict[str, float]:
    """Microseconds per move, in ``games`` random engine games, of the engine's move and of what
    the env adds for the acting seat: taking its view, writing the texts (when read) and its mask.
    (The wall clock here: the CPU clock costs more to read than some of these parts take.)"""
    texts, rng = CardTexts.of(None), random.Random(f"bench/breakdown/{players}")
    observer, space = SeatObserver(texts), ActionSpace.create("odyssey", players, options)
    spent = {"engine": 0.0, "capture": 0.0, "texts": 0.0, "mask": 0.0}
    moves, clock = 0, time.perf_counter
    for _ in range(games):
        game = Game.new("odyssey", players, options=options, seed=rng.getrandbits(63), deck=texts.ids)
        while not game.is_over:
            seat = game.awaiting[0]
            start = clock()
            captured = observer.capture(game, seat)
            taken = clock()
            observer.texts_of(captured)
            observed = clock()
            space.mask(game, seat)
            masked = clock()
            game.apply(random_action(game, seat, rng))
            spent["capture"] += taken - start
            spent["texts"] += observed - taken
            spent["mask"] += masked - observed
            spent["engine"] += clock() - masked
            moves += 1
    return {name: round(1e6 * total / moves, 2) for name, total in spent.items()}


def rate(play: Callable[[], int], seconds: float) -> tuple[float, int, int]:
    """Games per second of this process's CPU time over about ``seconds`` of it: (rate, games,
    moves). CPU time rather than the wall clock, so that other work on a shared machine slows
    neither side of the ratio."""
    games = moves = 0
    start = time.process_time()
    while True:
        moves += play()
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return games / elapsed, games, moves


def measure(players: int, options: dict[str, Any], seconds: float, runs: int) -> dict[str, Any]:
    engine = engine_games(players, options, random.Random(f"bench/engine/{players}"))
    episodes = env_episodes(env("odyssey", players, options=options, seed=1), random.Random(f"bench/env/{players}"))
    reading = env_episodes(
        env("odyssey", players, options=options, seed=1), random.Random(f"bench/env/{players}"), read_texts=True
    )
    engine(), episodes(), reading()  # warm up imports and caches (the card texts, the spaces)
    found: dict[str, list[float]] = {"engine": [], "env": [], "reading": []}
    moves: dict[str, list[int]] = {"engine": [0, 0], "env": [0, 0], "reading": [0, 0]}
    for _ in range(runs):
        for name, play in (("engine", engine), ("env", episodes), ("reading", reading)):
            per_second, games, played = rate(play, seconds)
            found[name].append(per_second)
            moves[name][0] += games
            moves[name][1] += played
    engine_rate, env_rate = statistics.median(found["engine"]), statistics.median(found["env"])
    ratios = sorted(e / v for e, v in zip(found["engine"], found["env"], strict=True))
    reading_ratios = [e / r for e, r in zip(found["engine"], found["reading"], strict=True)]
    return {
        "python": platform.python_version(),
        "mode": "odyssey",
        "players": players,
        "options": options,
        "engine_games_per_second": round(engine_rate, 1),
        "engine_best": round(max(found["engine"]), 1),
        "env_episodes_per_second": round(env_rate, 1),
        "env_best": round(max(found["env"]), 1),
        "engine_moves_per_game": round(moves["engine"][1] / moves["engine"][0], 1),
        "env_moves_per_episode": round(moves["env"][1] / moves["env"][0], 1),
        "ratio": round(statistics.median(ratios), 2),
        "ratio_quartiles": [round(q, 2) for q in statistics.quantiles(ratios, n=4)] if len(ratios) > 1 else [],
        "env_reading_texts_episodes_per_second": round(statistics.median(found["reading"]), 1),
        "ratio_reading_texts": round(statistics.median(reading_ratios), 2),
        "target": TARGET,
        "microseconds_per_move": breakdown(players, options, max(3, runs * 10)),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.25, help="length of one run (default 0.25)")
    parser.add_argument("--runs", type=int, default=30, help="runs of each (default 30)")
    parser.add_argument("--players", type=int, default=6, help="seats at the odyssey table (default 6)")
    parser.add_argument("--options", default="{}", help="the game's options as JSON (default: the mode's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, for both alike
    figures = measure(args.players, json.loads(args.options), args.seconds, args.runs)
    if args.json:
        print(json.dumps(figures))
        return figures
    print(f"Python {figures['python']}, one core, {args.runs} alternating runs of {args.seconds:g} s each")
    print(
        f"{args.players}-player odyssey: engine {figures['engine_games_per_second']:.0f} games/s "
        f"(best {figures['engine_best']:.0f}, {figures['engine_moves_per_game']} moves a game); "
        f"PettingZoo env {figures['env_episodes_per_second']:.0f} episodes/s "
        f"(best {figures['env_best']:.0f}, {figures['env_moves_per_episode']} moves an episode)"
    )
    per_move = figures["microseconds_per_move"]
    print(
        f"per move in engine games: the engine's move {per_move['engine']:.1f} µs; what the env adds for "
        f"the acting seat: taking its view {per_move['capture']:.1f} µs, writing its texts (when read) "
        f"{per_move['texts']:.1f} µs, its mask {per_move['mask']:.1f} µs"
    )
    verdict = "meets" if figures["ratio"] <= TARGET else "misses"
    quartiles = "–".join(f"{q:.2f}" for q in figures["ratio_quartiles"][::2])
    print(
        f"the env costs {figures['ratio']:.2f}× the engine (median of the runs' ratios; quartiles {quartiles}) "
        f"— {verdict} the ≤ {TARGET:g}× target"
    )
    print(
        f"(an agent that reads both texts of every observation: {figures['env_reading_texts_episodes_per_second']:.0f} "
        f"episodes/s, {figures['ratio_reading_texts']:.2f}× the engine)"
    )
    return figures


if __name__ == "__main__":
    main()
