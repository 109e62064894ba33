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
  observation (as a language-model agent does): printed beside, not part of the target;
- **env, vector mode**: the same loop with ``observations="vector"`` and a clue vocabulary
  (`VOCABULARY`), the agent reading each observation's vector (as a learning agent does). Its
  own ratio to the engine, measured as the text env's (issue 35's target: ≤ 3×). ``--no-vector``
  leaves it out (it needs the MiniLM model of the research extra).

The wrapper's cost is the ratio engine / env: the median, over the runs, of each run's ratio of
the engine's rate to the env's in the run right after it. (On a shared machine the speed drifts
by tens of per cent within seconds; two short runs side by side see nearly the same machine, so
their ratio is steadier than the ratio of two medians taken over different moments.) The rates'
medians and bests are printed too, with the spread of the runs' ratios, and where an env move's
time goes: in engine games, the time per move of the engine's move, of
taking the acting seat's view (`SeatObserver.capture`: what every observation costs), of
writing its texts from that (`SeatObserver.texts_of`: only when read), of its mask, and in
vector mode of writing its vector from the same view (`fabula.research.vectors.VectorWriter`).

Run: ``python benchmarks/research_env.py`` (``--seconds``, ``--runs``, ``--players``,
``--no-vector``, ``--json``).

Targets: the env costs at most 2× the engine (issue 18: ratio ≤ 2); in vector mode at most 3×
(issue 35: ratio ≤ 3).
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
from fabula.research.observations import CardTexts, SeatObserver, card_list
from fabula.research.pettingzoo import FabulaAECEnv, env
from fabula.research.vectors import CardEmbeddings, Vector, VectorLayout, VectorWriter
from fabula.rules import Action, BlindClue, Game, Tell
from fabula.rules.views import ViewParts

TARGET = 2.0
VECTOR_TARGET = 3.0
#: The vector env's clue vocabulary (vector mode needs one: a learner's action is a number).
VOCABULARY = ("Freedom", "Dream", "Journey", "Fear", "Home", "Hope", "Time", "Chaos")


def engine_games(players: int, options: dict[str, Any], rng: random.Random) -> Callable[[], int]:
    """One random engine game per call; returns its moves."""

    def one() -> int:
        game = play_random_game(Game.new("odyssey", players, options=options, seed=rng.getrandbits(63)), rng)
        return len(game.log)

    return one


def env_episodes(aec: FabulaAECEnv, rng: random.Random, *, read: tuple[str, ...] = ()) -> Callable[[], int]:
    """One random-agent episode per call; returns its moves. (The agent draws its id with the
    engine loop's generator, `random.Random`: NumPy's costs 10 times more a draw.) The agent
    reads each observation's mask, and the entries ``read`` names too (``("view", "cards")``:
    both texts; ``("observation",)``: the vector)."""
    draw = rng.random

    def one() -> int:
        aec.reset()
        moves = 0
        for _agent in aec.agent_iter():
            observation, _reward, termination, truncation, _info = aec.last()
            if termination or truncation or observation is None:
                aec.step(None)
                continue
            for key in read:
                observation[key]
            legal = observation["action_mask"].nonzero()[0]  # (a 1-D mask: np.flatnonzero without its ravel)
            aec.step(int(legal[int(draw() * len(legal))]))
            moves += 1
        return moves

    return one


def breakdown(players: int, options: dict[str, Any], games: int, vector: bool = True) -> dict[str, float]:
    """Microseconds per move, in ``games`` random engine games, of the engine's move and of what
    the env adds for the acting seat: taking its view, writing the texts (when read), its mask,
    and (``vector``) writing its vector in vector mode. (The wall clock here: the CPU clock costs
    more to read than some of these parts take.)"""
    texts, rng = CardTexts.of(None), random.Random(f"bench/breakdown/{players}")
    observer, space = SeatObserver(texts), ActionSpace.create("odyssey", players, options)
    write = vector_writer(space) if vector else None
    spent = {"engine": 0.0, "capture": 0.0, "texts": 0.0, "mask": 0.0, "vector": 0.0}
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
            if write is not None:
                write(captured)
            written = clock()
            game.apply(vocabulary_clue(random_action(game, seat, rng), moves))
            spent["capture"] += taken - start
            spent["texts"] += observed - taken
            spent["mask"] += masked - observed
            spent["vector"] += written - masked
            spent["engine"] += clock() - written
            moves += 1
    if write is None:
        del spent["vector"]
    return {name: round(1e6 * total / moves, 2) for name, total in spent.items()}


def vocabulary_clue(action: Action, moves: int) -> Action:
    """``action`` with its clue, if it has one, taken from `VOCABULARY` (as a vector env's are:
    the breakdown's vectors embed each clue once, as the env's)."""
    if type(action) is Tell or type(action) is BlindClue:
        return action.with_clue(VOCABULARY[moves % len(VOCABULARY)])
    return action


def vector_writer(space: ActionSpace) -> Callable[[ViewParts], Vector]:
    """What vector mode does with the view it took to write the seat's vector (`Table.observe`)."""
    return VectorWriter(VectorLayout.of(space), CardEmbeddings(card_list(None))).write


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


def players_of(players: int, options: dict[str, Any], vector: bool) -> dict[str, Callable[[], int]]:
    """What is timed, by name, in the order of a run: the engine, then each env beside it."""

    def table(**kwargs: Any) -> FabulaAECEnv:
        return env("odyssey", players, options=options, seed=1, **kwargs)

    def agent() -> random.Random:
        return random.Random(f"bench/env/{players}")

    plays = {"engine": engine_games(players, options, random.Random(f"bench/engine/{players}"))}
    plays["env"] = env_episodes(table(), agent())
    if vector:
        aec = table(clues=VOCABULARY, observations="vector")
        plays["vector"] = env_episodes(aec, agent(), read=("observation",))
    plays["reading"] = env_episodes(table(), agent(), read=("view", "cards"))
    return plays


def _ratios(engine: list[float], other: list[float]) -> list[float]:
    """Each run's ratio of the engine's rate to the other's in the run beside it, sorted."""
    return sorted(e / o for e, o in zip(engine, other, strict=True))


def _quartiles(ratios: list[float]) -> list[float]:
    return [round(q, 2) for q in statistics.quantiles(ratios, n=4)] if len(ratios) > 1 else []


def measure(players: int, options: dict[str, Any], seconds: float, runs: int, vector: bool = True) -> dict[str, Any]:
    plays = players_of(players, options, vector)
    for play in plays.values():
        play()  # warm up imports and caches (the card texts, the spaces, the embeddings)
    found: dict[str, list[float]] = {name: [] for name in plays}
    steps: dict[str, list[float]] = {name: [] for name in plays}
    moves: dict[str, list[int]] = {name: [0, 0] for name in plays}
    for _ in range(runs):
        for name, play in plays.items():
            per_second, games, played = rate(play, seconds)
            found[name].append(per_second)
            steps[name].append(per_second * played / games)
            moves[name][0] += games
            moves[name][1] += played
    engine_rate, env_rate = statistics.median(found["engine"]), statistics.median(found["env"])
    ratios = _ratios(found["engine"], found["env"])
    per_move = breakdown(players, options, max(3, runs * 10), vector)
    vector_per_move = per_move.pop("vector", None)  # (apart: the env's own figures keep their keys)
    figures = {
        "python": platform.python_version(),
        "mode": "odyssey",
        "players": players,
        "options": options,
        "engine_games_per_second": round(engine_rate, 1),
        "engine_best": round(max(found["engine"]), 1),
        "engine_moves_per_second": round(statistics.median(steps["engine"])),
        "env_episodes_per_second": round(env_rate, 1),
        "env_best": round(max(found["env"]), 1),
        "env_moves_per_second": round(statistics.median(steps["env"])),
        "engine_moves_per_game": round(moves["engine"][1] / moves["engine"][0], 1),
        "env_moves_per_episode": round(moves["env"][1] / moves["env"][0], 1),
        "ratio": round(statistics.median(ratios), 2),
        "ratio_quartiles": _quartiles(ratios),
        "env_reading_texts_episodes_per_second": round(statistics.median(found["reading"]), 1),
        "ratio_reading_texts": round(statistics.median(_ratios(found["engine"], found["reading"])), 2),
        "target": TARGET,
        "microseconds_per_move": per_move,
    }
    if vector:
        vector_ratios = _ratios(found["engine"], found["vector"])
        figures |= {
            "vector_microseconds_per_move": vector_per_move,
            "vector_episodes_per_second": round(statistics.median(found["vector"]), 1),
            "vector_best": round(max(found["vector"]), 1),
            "vector_moves_per_second": round(statistics.median(steps["vector"])),
            "vector_moves_per_episode": round(moves["vector"][1] / moves["vector"][0], 1),
            "ratio_vector": round(statistics.median(vector_ratios), 2),
            "ratio_vector_quartiles": _quartiles(vector_ratios),
            "vector_target": VECTOR_TARGET,
        }
    return figures


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.25, help="length of one run (default 0.25)")
    parser.add_argument("--runs", type=int, default=30, help="runs of each (default 30)")
    parser.add_argument("--players", type=int, default=6, help="seats at the odyssey table (default 6)")
    parser.add_argument("--options", default="{}", help="the game's options as JSON (default: the mode's)")
    parser.add_argument("--no-vector", action="store_true", help="leave vector mode out (it needs the MiniLM model)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, for both alike
    figures = measure(args.players, json.loads(args.options), args.seconds, args.runs, not args.no_vector)
    if args.json:
        print(json.dumps(figures))
    else:
        report(figures, args.runs, args.seconds)
    return figures


def report(figures: dict[str, Any], runs: int, seconds: float) -> None:
    """`measure`'s figures as text."""
    print(f"Python {figures['python']}, one core, {runs} alternating runs of {seconds:g} s each")
    print(
        f"{figures['players']}-player odyssey: engine {figures['engine_games_per_second']:.0f} games/s "
        f"(best {figures['engine_best']:.0f}, {figures['engine_moves_per_game']} moves a game; "
        f"{figures['engine_moves_per_second']} moves/s); "
        f"PettingZoo env {figures['env_episodes_per_second']:.0f} episodes/s "
        f"(best {figures['env_best']:.0f}, {figures['env_moves_per_episode']} moves an episode; "
        f"{figures['env_moves_per_second']} steps/s)"
    )
    per_move = figures["microseconds_per_move"]
    vector = figures.get("vector_microseconds_per_move")
    vector = "" if vector is None else f", writing its vector (vector mode) {vector:.1f} µs"
    print(
        f"per move in engine games: the engine's move {per_move['engine']:.1f} µs; what the env adds for "
        f"the acting seat: taking its view {per_move['capture']:.1f} µs, writing its texts (when read) "
        f"{per_move['texts']:.1f} µs, its mask {per_move['mask']:.1f} µs{vector}"
    )
    verdict = "meets" if figures["ratio"] <= TARGET else "misses"
    quartiles = "–".join(f"{q:.2f}" for q in figures["ratio_quartiles"][::2])
    print(
        f"the env costs {figures['ratio']:.2f}× the engine (median of the runs' ratios; quartiles {quartiles}) "
        f"— {verdict} the ≤ {TARGET:g}× target"
    )
    if "ratio_vector" in figures:
        verdict = "meets" if figures["ratio_vector"] <= VECTOR_TARGET else "misses"
        quartiles = "–".join(f"{q:.2f}" for q in figures["ratio_vector_quartiles"][::2])
        print(
            f"vector mode ({len(VOCABULARY)} clues, the agent reading each vector): "
            f"{figures['vector_episodes_per_second']:.0f} episodes/s (best {figures['vector_best']:.0f}; "
            f"{figures['vector_moves_per_second']} steps/s), {figures['ratio_vector']:.2f}× the engine "
            f"(quartiles {quartiles}) — {verdict} the ≤ {VECTOR_TARGET:g}× target"
        )
    print(
        f"(an agent that reads both texts of every observation: {figures['env_reading_texts_episodes_per_second']:.0f} "
        f"episodes/s, {figures['ratio_reading_texts']:.2f}× the engine)"
    )


if __name__ == "__main__":
    main()
