"""`fabula arena`: bots of several levels play each other; how often each wins, and how."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from tqdm import tqdm


def _percent(rate: float | None) -> str:
    return "–" if rate is None else f"{rate:.1%}"


def run(
    mode: str,
    players: int,
    games: int,
    bots: Sequence[str],
    *,
    seed: int,
    options: Mapping[str, Any],
    language: str = "en",
    as_json: bool,
) -> int:
    """Play the arena and print its figures; 2 for a bad request, 1 when a bot breaks the rules."""
    from fabula.bots.arena import ArenaError, run_arena
    from fabula.bots.base import BOT_LEVELS
    from fabula.bots.semantic.encoder import ModelMissing
    from fabula.rules import RulesError

    unknown = [level for level in bots if level not in BOT_LEVELS]
    if not bots or unknown:
        print(
            f"error: unknown bot level {', '.join(map(repr, unknown)) or '(none given)'}; "
            f"the levels are {', '.join(BOT_LEVELS)}",
            file=sys.stderr,
        )
        return 2
    # disable=None: a bar only when stderr is a terminal.
    with tqdm(total=games, unit="game", disable=None, leave=False) as bar:
        try:
            report = run_arena(
                mode, players, games, bots, seed=seed, options=options, language=language, progress=bar.update
            )
        except RulesError as error:
            bar.close()
            print(f"error: {error.code}: {error.message}", file=sys.stderr)
            return 2
        except (ModelMissing, ValueError) as error:
            bar.close()
            print(f"error: {error}", file=sys.stderr)
            return 2
        except ArenaError as error:
            bar.close()
            print(f"error: {error}", file=sys.stderr)
            return 1
    if as_json:
        print(json.dumps(report.to_json()))
        return 0
    who = "team's" if mode == "teams" else "player's"
    print(
        f"{report.games:,} {report.mode} games, {report.players} players ({', '.join(bots)}; "
        f"seats shuffled each game), {report.rounds:,} rounds in {report.seconds:.1f} s"
    )
    header = ("level", "seats", "win rate (95% interval)", "told & scored", "finds", "decoy votes", "final score")
    print(f"  {header[0]:<8}{header[1]:>6}  {header[2]:<25}{header[3]:>14}{header[4]:>8}{header[5]:>13}{header[6]:>13}")
    for level, stats in report.levels.items():
        win = f"{stats.win_rate:.1%} ({stats.win_rate_low:.1%}–{stats.win_rate_high:.1%})"
        decoys = "–" if stats.decoy_votes_per_round is None else f"{stats.decoy_votes_per_round:.2f}"
        print(
            f"  {level:<8}{stats.seats:>6}  {win:<25}{_percent(stats.storyteller_scored_rate):>14}"
            f"{_percent(stats.finder_accuracy):>8}{decoys:>13}{stats.score_mean:>13.2f}"
        )
    print(f"  win rate: a shared victory is 1/k of a win for each of the k tied; final score: the {who}")
    print("  told & scored: rounds as storyteller that scored; finds: votes that found the storyteller's card")
    print("  decoy votes: votes its cards drew, per round it played one as a non-storyteller")
    overall = f"storyteller scored in {report.storyteller_scored_rate:.1%} of rounds"
    if report.all_found_rate is not None and report.none_found_rate is not None:
        overall += (
            f"; every voter found the card in {report.all_found_rate:.1%}, none in {report.none_found_rate:.1%} "
            f"(together {_percent(report.all_or_none_found_rate)})"
        )
    print(f"  overall: {overall}")
    return 0
