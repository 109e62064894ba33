"""Baselines: each kind of player at one seat against three `normal` bots, many games.

    python examples/baselines.py                    # every player, 200 games each (minutes)
    python examples/baselines.py --games 40 --players random hard mcts
    python examples/baselines.py --policy runs/ppo.zip   # the policy examples/train_ppo.py saved

A four-seat `odyssey` game of two storyteller turns each (8 rounds); the candidate and three
`normal` bots, their seats shuffled every game (`fabula.bots.arena.run_arena`), the same game
seeds for every candidate. For each candidate: its mean final score with a 95% interval (normal
approximation over its games), its win rate (ties shared; Wilson's 95% interval) and the share
of its storyteller rounds in which it scored as storyteller (Wilson). Prints a Markdown table —
the one in docs/research.md — and, with ``--json``, the figures.

Players: the built-in levels ``random``, ``easy``, ``normal``, ``hard``; ``mcts`` and ``ismcts``
(OpenSpiel's, `fabula.research.search`, ``--simulations`` per move); ``llm:stand-in`` (the
language-model agent against the stand-in endpoint, `fabula.research.agents.standin`: a random
player that speaks the protocol, seeded); ``policy`` (``--policy FILE``: a MaskablePPO policy on
the vector observation, `examples/train_ppo.py`).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from fabula.bots.arena import AgentFactory, run_arena, wilson_interval

MODE, SEATS, OPTIONS = "odyssey", 4, {"storyteller_cycles": 2}
OPPONENT = "normal"
PLAYERS = ("random", "easy", "normal", "hard", "mcts", "ismcts", "llm:stand-in")


def evaluate(name: str, games: int, seed: int, agents: Mapping[str, AgentFactory]) -> dict[str, Any]:
    """``name`` at one seat against three `OPPONENT` bots for ``games`` games: its figures."""
    scores: list[int] = []
    told = told_scored = 0
    seat_of: dict[int, int] = {}

    def record(line: dict[str, Any]) -> None:
        nonlocal told, told_scored
        game = line["game"]
        if game not in seat_of:
            seat_of[game] = next(s["seat"] for s in line["seats"] if s["agent"] == name)
        seat = seat_of[game]
        if line["storyteller"] == seat:
            told += 1
            told_scored += bool(line["storyteller_scored"])
        if "winners" in line:
            scores.append(line["scores"][seat])

    # the candidate's name is its seat's: a built-in level is played by the arena itself, and
    # a second `normal` is told apart from the opponents by an agent of its own name
    bots = [name, OPPONENT, OPPONENT, OPPONENT]
    start = time.perf_counter()
    report = run_arena(MODE, SEATS, games, bots, seed=seed, options=OPTIONS, agents=agents, record=record)
    seconds = time.perf_counter() - start
    stats = report.levels[name]
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores)) if len(scores) > 1 else float("nan")
    scored_low, scored_high = wilson_interval(told_scored, told) if told else (float("nan"), float("nan"))
    return {
        "player": name,
        "games": games,
        "score_mean": round(mean, 2),
        "score_low": round(mean - half, 2),
        "score_high": round(mean + half, 2),
        "win_rate": stats.win_rate,
        "win_low": stats.win_rate_low,
        "win_high": stats.win_rate_high,
        "storyteller_rounds": told,
        "storyteller_scored": round(told_scored / told, 4) if told else None,
        "scored_low": round(scored_low, 4),
        "scored_high": round(scored_high, 4),
        "seconds": round(seconds, 1),
    }


def table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| player | games | mean score (95% CI) | win rate (95% CI) | storyteller rounds scored (95% CI) | s |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['player']} | {r['games']} | {r['score_mean']:.2f} ({r['score_low']:.2f}–{r['score_high']:.2f}) "
            f"| {r['win_rate']:.1%} ({r['win_low']:.1%}–{r['win_high']:.1%}) "
            f"| {r['storyteller_scored']:.1%} ({r['scored_low']:.1%}–{r['scored_high']:.1%})"
            f" of {r['storyteller_rounds']} "
            f"| {r['seconds']} |"
        )
    return "\n".join(lines)


def agents_for(players: Sequence[str], simulations: int, policy: Path | None, stack: ExitStack) -> dict[str, Any]:
    """The arena agents the players need (the built-in levels need none, but `normal`, which
    must not share its name with the opponents)."""
    from fabula.bots.base import make_bot

    agents: dict[str, Any] = {}
    if "normal" in players:
        # the candidate `normal` under a name of its own, so that its figures are its own
        agents["normal "] = lambda c: make_bot("normal", c.rng, cards=c.cards, language=c.language)
    if {"mcts", "ismcts"} & set(players):
        from fabula.research.search import search_player

        for kind in ("mcts", "ismcts"):
            agents[kind] = search_player(kind, simulations)
    if "llm:stand-in" in players:
        from fabula.research.agents.specs import agent_from_spec
        from fabula.research.agents.standin import StandIn

        server = stack.enter_context(StandIn())
        _, factory = agent_from_spec(f"openai:{server.url}:stand-in")
        agents["llm:stand-in"] = factory
    if policy is not None:
        from train_ppo import policy_player  # (this folder's)

        agents["policy"] = policy_player(policy)
    return agents


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", nargs="+", default=list(PLAYERS))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--simulations", type=int, default=50, help="MCTS and IS-MCTS simulations per move")
    parser.add_argument("--policy", type=Path, help="a policy saved by examples/train_ppo.py")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    players = [*args.players, *(["policy"] if args.policy else [])]
    rows = []
    with ExitStack() as stack:
        agents = agents_for(players, args.simulations, args.policy, stack)
        for player in players:
            name = "normal " if player == "normal" else player
            row = evaluate(name, args.games, args.seed, agents)
            row["player"] = player
            rows.append(row)
            print(f"{player}: {row['score_mean']} in {row['seconds']} s", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(table(rows))
    return rows


if __name__ == "__main__":
    main()
