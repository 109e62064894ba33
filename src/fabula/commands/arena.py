"""`fabula arena`: bots of several levels play each other; how often each wins, and how."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

if TYPE_CHECKING:
    from fabula.bots.arena import AgentFactory, ArenaReport, SeatContext
    from fabula.bots.base import Bot
    from fabula.research.trajectories import Trajectories

#: The exit status of a run a language model's endpoint ended (2: a bad request; 1: a bot broke the rules).
ENDPOINT_FAILED = 3


#: what a language-model agent counts (`LLMAgent`), summed per seated name for the report
_COUNTS = ("moves", "attempts", "fallbacks", "failures")


def _agents(
    specs: Sequence[str],
    stack: ExitStack,
    transcript: str | None,
    made: dict[str, list[Bot]],
    llm: Mapping[str, Any],
) -> dict[str, AgentFactory]:
    """The factory of each ``--agent``, by the name it is seated as (a name twice gets ``#2``);
    every player made is kept in ``made``, by that name. ``llm``: `agent_from_spec`'s settings of
    a language model (retries, fallback, temperature, …)."""
    if not specs:
        return {}
    from fabula.research.agents import Transcript, agent_from_spec

    log = stack.enter_context(Transcript.open(transcript)) if transcript else None
    factories: dict[str, AgentFactory] = {}
    for spec in specs:
        name, factory = agent_from_spec(spec, transcript=log, **llm)
        unique, count = name, 1
        while unique in factories:
            count += 1
            unique = f"{name}#{count}"
        players = made.setdefault(unique, [])

        def keep(context: SeatContext, factory: AgentFactory = factory, players: list[Bot] = players) -> Bot:
            player = factory(context)
            players.append(player)
            return player

        factories[unique] = keep
    return factories


def _counts(made: Mapping[str, Sequence[Bot]]) -> dict[str, dict[str, int]]:
    """Per language-model agent: its moves, the replies asked for, the random moves it fell back
    on and the endpoint's failures (players without these counts are left out)."""
    found = {}
    for name, players in made.items():
        counted = [player for player in players if all(hasattr(player, key) for key in _COUNTS)]
        if counted:
            found[name] = {key: sum(int(getattr(player, key)) for player in counted) for key in _COUNTS}
    return found


def _wrong_settings(
    bots: Sequence[str],
    agents: Sequence[str],
    *,
    retries: int,
    fallback: str,
    temperature: float | None,
    max_tokens: int | None,
    timeout: float | None,
    concurrency: int,
) -> str | None:
    """What is wrong with the players or the language-model settings, if anything: an unknown bot
    level (or no player at all), a value out of range, or one given with no language model seated
    to use it."""
    from fabula.bots.base import BOT_LEVELS

    unknown = [level for level in bots if level not in BOT_LEVELS]
    if (not bots and not agents) or unknown:
        named = ", ".join(map(repr, unknown)) or "(none given)"
        return f"unknown bot level {named}; the levels are {', '.join(BOT_LEVELS)}"
    if retries < 0:
        return "--retries cannot be negative"
    if fallback not in ("stop", "random"):
        return f"--fallback is stop or random, not {fallback!r}"
    if temperature is not None and not temperature >= 0:
        return "--temperature cannot be negative"
    if max_tokens is not None and max_tokens < 1:
        return "--max-tokens must be at least 1"
    if timeout is not None and not timeout > 0:
        return "--timeout must be more than 0 seconds"
    if concurrency < 1:
        return "--concurrency must be at least 1"
    if not any(spec.lower().startswith("openai:") for spec in agents):
        given = [
            flag
            for flag, value in (("--temperature", temperature), ("--max-tokens", max_tokens), ("--timeout", timeout))
            if value is not None
        ]
        if given:
            return f"{', '.join(given)}: for a language model, and no --agent openai:URL:MODEL is seated"
    return None


def _log_writer(path: str | None, stack: ExitStack, last: str = "winners") -> Callable[[dict[str, Any]], None] | None:
    """What writes each round to ``--log`` (one JSON object a line, flushed per game: after the
    line whose ``last`` key is set), or each move to ``--trajectories`` (``last="done"``)."""
    if path is None:
        return None
    handle = stack.enter_context(open(path, "w", encoding="utf-8"))  # noqa: SIM115 - the stack closes it

    def write(record: dict[str, Any]) -> None:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        if record.get(last):
            handle.flush()

    return write


def _percent(rate: float | None) -> str:
    return "–" if rate is None else f"{rate:.1%}"


def _print_report(report: ArenaReport, seated: Sequence[str], counts: Mapping[str, Mapping[str, int]]) -> None:
    """The arena's figures as a table for people: a row per level (or agent), what the columns
    mean, the overall rates, and what each language-model agent counted (`_counts`)."""
    who = "team's" if report.mode == "teams" else "player's"
    print(
        f"{report.games:,} {report.mode} games, {report.players} players ({', '.join(seated)}; "
        f"seats shuffled each game), {report.rounds:,} rounds in {report.seconds:.1f} s"
    )
    header = ("level", "seats", "win rate (95% interval)", "told & scored", "finds", "decoy votes", "final score")
    width = max(8, *(len(level) + 2 for level in report.levels))  # an agent's name can be long
    print(
        f"  {header[0]:<{width}}{header[1]:>6}  {header[2]:<25}"
        f"{header[3]:>14}{header[4]:>8}{header[5]:>13}{header[6]:>13}"
    )
    for level, stats in report.levels.items():
        win = f"{stats.win_rate:.1%} ({stats.win_rate_low:.1%}–{stats.win_rate_high:.1%})"
        decoys = "–" if stats.decoy_votes_per_round is None else f"{stats.decoy_votes_per_round:.2f}"
        print(
            f"  {level:<{width}}{stats.seats:>6}  {win:<25}{_percent(stats.storyteller_scored_rate):>14}"
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
    for name, count in counts.items():
        print(
            f"  {name}: {count['moves']:,} moves, {count['attempts'] - count['moves']:,} replies retried, "
            f"{count['fallbacks']:,} random fallbacks, {count['failures']:,} endpoint failures"
        )


def _trajectories(path: str | None, stack: ExitStack) -> Trajectories | None:
    """What records every move to ``--trajectories``, if asked."""
    write = _log_writer(path, stack, last="done")
    if write is None:
        return None
    from fabula.research.trajectories import Trajectories

    return Trajectories(write)


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
    agents: Sequence[str] = (),
    log: str | None = None,
    trajectories: str | None = None,
    transcript: str | None = None,
    retries: int = 2,
    fallback: str = "stop",
    temperature: float | None = None,
    max_tokens: int | None = None,
    timeout: float | None = None,
    concurrency: int = 1,
) -> int:
    """Play the arena and print its figures; 2 for a bad request, 1 when a bot breaks the rules,
    `ENDPOINT_FAILED` when a language model's endpoint failed every attempt of a move (unless
    ``fallback="random"``). ``agents``: ``--agent`` specs, seated beside ``bots``; ``log``: the
    per-round JSON-lines file; ``trajectories``: the per-move one; ``transcript``: where
    language-model agents log every prompt and reply; ``retries``, ``fallback``, ``temperature``,
    ``max_tokens``, ``timeout``: theirs (and ``seed``, sent with each request); ``concurrency``:
    games at a time (and requests in flight)."""
    from fabula.bots.language.client import DEFAULT_TIMEOUT

    wrong = _wrong_settings(
        bots,
        agents,
        retries=retries,
        fallback=fallback,
        temperature=temperature,
        max_tokens=max_tokens,
        timeout=timeout,
        concurrency=concurrency,
    )
    if wrong:
        print(f"error: {wrong}", file=sys.stderr)
        return 2
    llm = {
        "retries": retries,
        "fallback": fallback,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "seed": seed,
        "timeout": DEFAULT_TIMEOUT if timeout is None else timeout,
        "concurrency": concurrency,
    }
    made: dict[str, list[Bot]] = {}
    with ExitStack() as stack:
        try:
            factories = _agents(agents, stack, transcript, made, llm)
            record = _log_writer(log, stack)
            trajectory = _trajectories(trajectories, stack)
        except (OSError, ValueError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        seated = [*bots, *factories]
        played = _play(
            mode,
            players,
            games,
            seated,
            seed=seed,
            options=options,
            language=language,
            factories=factories,
            record=record,
            trajectory=trajectory,
            concurrency=concurrency,
        )
        if isinstance(played, int):
            return played
        report = played
    return _finish(report, seated, made, as_json=as_json)


def _play(
    mode: str,
    players: int,
    games: int,
    seated: Sequence[str],
    *,
    seed: int,
    options: Mapping[str, Any],
    language: str,
    factories: Mapping[str, AgentFactory],
    record: Any,
    concurrency: int,
    trajectory: Any = None,
) -> ArenaReport | int:
    """`run_arena` with a progress bar: its report, or the exit code of what stopped it (said)."""
    from fabula.bots.arena import run_arena
    from fabula.bots.playing import ArenaError
    from fabula.bots.semantic.encoder import ModelMissing
    from fabula.research.agents import EndpointFailed
    from fabula.rules import RulesError

    # disable=None: a bar only when stderr is a terminal.
    with tqdm(total=games, unit="game", disable=None, leave=False) as bar:
        try:
            return run_arena(
                mode,
                players,
                games,
                seated,
                seed=seed,
                options=options,
                language=language,
                progress=bar.update,
                agents=factories,
                record=record,
                trajectory=trajectory,
                concurrency=concurrency,
            )
        except EndpointFailed as error:
            stopped, code = (
                (
                    f"{error}\nThe run is stopped: a model that cannot be reached would be measured as a random "
                    "player. Check that the server is up at that URL (and the model's name), or pass --fallback "
                    "random to play a random move whenever the endpoint fails."
                ),
                ENDPOINT_FAILED,
            )
        except RulesError as error:
            stopped, code = f"{error.code}: {error.message}", 2
        except (ModelMissing, ValueError) as error:
            stopped, code = str(error), 2
        except ArenaError as error:
            stopped, code = str(error), 1
    # (said once the bar is gone, so that it does not cut the line)
    print(f"error: {stopped}", file=sys.stderr)
    return code


def _finish(report: ArenaReport, seated: Sequence[str], made: Mapping[str, list[Bot]], *, as_json: bool) -> int:
    """Print the arena's figures (and a warning for each model whose endpoint failed)."""
    counts = _counts(made)
    for name, count in counts.items():
        if count["failures"]:
            print(
                f"warning: {name}: its endpoint failed {count['failures']:,} times; "
                f"{count['fallbacks']:,} of its {count['moves']:,} moves were played at random",
                file=sys.stderr,
            )
    if as_json:
        print(json.dumps({**report.to_json(), **({"agents": counts} if counts else {})}))
        return 0
    _print_report(report, seated, counts)
    return 0
