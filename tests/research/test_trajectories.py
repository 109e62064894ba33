"""`fabula arena --trajectories`: a line per move of every seat, which replays through the research
env — the same observations, masks and game, the same rewards — and whose rewards add up to the
final scores."""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Iterator
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fabula.bots.arena import run_arena
from fabula.cli import main
from fabula.rules import Game, RoundResult
from fabula.rules.events import RoundScored

from .extra import require_extra
from .games import SHORT, TABLES, VARIANTS

require_extra()

from fabula.research.pettingzoo import env  # noqa: E402
from fabula.research.table import Table  # noqa: E402
from fabula.research.trajectories import Trajectories  # noqa: E402

Record = dict[str, Any]
#: every mode at its smallest and largest table, and the options that change the moves
PLAYED = [(mode, seats, SHORT) for mode, seats in TABLES] + VARIANTS


def arena(
    tmp_path: Path, mode: str, seats: int, options: dict[str, Any], *, bots: str = "random", games: int = 2
) -> tuple[list[Record], list[Record]]:
    """``fabula arena`` with ``--log`` and ``--trajectories``: the rounds and the moves it wrote."""
    log, moves = tmp_path / f"{mode}{seats}.log.jsonl", tmp_path / f"{mode}{seats}.moves.jsonl"
    command = ["arena", "--mode", mode, "--players", str(seats), "--games", str(games), "--bots", bots]
    command += ["--seed", "5", "--options", json.dumps(options), "--log", str(log), "--trajectories", str(moves)]
    assert main(command) == 0
    read = [[json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] for path in (log, moves)]
    return read[0], read[1]


def by_game(records: list[Record]) -> Iterator[tuple[int, list[Record]]]:
    for number, records_of_game in groupby(records, key=lambda record: record["game"]):
        yield number, list(records_of_game)


def dealt(record: Record, deck: tuple[str, ...]) -> Game:
    """The game a record's line belongs to, dealt again from its seed."""
    return Game.new(record["mode"], record["players"], options=record["options"], seed=record["seed"], deck=deck)


def move_of(record: Record) -> int | tuple[int, str]:
    return record["action"] if record["clue"] is None else (record["action"], record["clue"])


def attributed(points: list[int] | None, latest: dict[int, int], rewards: list[int], early: list[int]) -> None:
    """A round's points to each seat's latest move (before its first: kept for it in ``early``)."""
    for seat, gained in enumerate(points or ()):
        if seat in latest:
            rewards[latest[seat]] += gained
        else:
            early[seat] += gained


def check_rounds(results: list[RoundResult], rounds: list[Record]) -> None:
    """The rounds played again are those of ``fabula arena --log``, field for field."""
    assert len(results) == len(rounds)
    for result, line in zip(results, rounds, strict=True):
        found = result.to_json()
        del found["reasons"]
        assert {key: line[key] for key in found} == found


@pytest.mark.parametrize(("mode", "seats", "options"), PLAYED, ids=[f"{m}-{n}-{len(o)}" for m, n, o in PLAYED])
def test_every_move_replays_through_the_env_table_with_its_observation_mask_and_reward(
    tmp_path: Path, mode: str, seats: int, options: dict[str, Any]
) -> None:
    rounds, moves = arena(tmp_path, mode, seats, options)
    log = dict(by_game(rounds))
    games = dict(by_game(moves))
    assert sorted(games) == sorted(log) == [1, 2]
    for number, records in games.items():
        table = Table(mode, seats, options=options, seed=0, deck=None, clues=None)
        table.reset(None)
        table.game = dealt(records[0], table.texts.ids)
        rewards, latest, results, early = [0] * len(records), {}, [], [0] * seats
        for step, record in enumerate(records):
            seat = record["seat"]
            assert (record["step"], record["round"], record["phase"]) == (
                step,
                table.game.round,
                table.game.phase.value,
            )
            observation = table.observe(seat)
            assert record["observation"] == {"view": observation["view"], "cards": observation["cards"]}
            assert record["legal"] == np.flatnonzero(observation["action_mask"]).tolist()
            assert record["actions"] == len(observation["action_mask"])
            assert not table.game.is_over
            if record["replaces"]:  # (a move the env never offers: the random bots' second vote)
                assert record["action"] not in record["legal"]
                assert record["agent"] == "random"
                game = table.game
                events = game.apply(table.space.decode(game, seat, record["action"], record["clue"]))
            else:
                assert record["action"] in record["legal"]
                events = table.apply(seat, move_of(record))
            latest[seat] = step
            rewards[step] += early[seat]
            early[seat] = 0
            attributed(table.points(events), latest, rewards, early)
            results += [event.result for event in events if type(event) is RoundScored]
            assert record["done"] == table.game.is_over  # a line for every move, the last one last
        assert [record["reward"] for record in records] == rewards
        assert [record["last"] for record in records] == [step in latest.values() for step in range(len(records))]
        check_rounds(results, log[number])
        scores = log[number][-1]["scores"]
        assert table.game.scores == scores
        assert [sum(r["reward"] for r in records if r["seat"] == seat) for seat in range(seats)] == scores


@pytest.mark.parametrize(
    ("mode", "seats", "bots"),
    [
        ("odyssey", 3, "random,easy"),
        ("odyssey", 8, "random"),
        ("classic", 4, "random,easy"),
        ("party", 6, "easy,normal"),
    ],
)
def test_the_aec_env_fed_each_seats_moves_plays_the_same_game_with_the_same_rewards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, seats: int, bots: str
) -> None:
    rounds, moves = arena(tmp_path, mode, seats, SHORT, bots=bots)
    assert not any(record["replaces"] for record in moves)  # (every move one the env offers)
    log = dict(by_game(rounds))
    for number, records in by_game(moves):
        aec = env(mode, seats, options=SHORT, seed=0)
        monkeypatch.setattr(aec.table, "_deal", lambda records=records, aec=aec: dealt(records[0], aec.table.texts.ids))
        aec.reset()
        queued: dict[int, deque[int | tuple[int, str]]] = defaultdict(deque)
        for record in records:
            queued[record["seat"]].append(move_of(record))
        got = [0.0] * seats
        results: dict[int, RoundResult] = {}
        # (the env asks the seats of a phase in its own order, not the arena's; each seat's moves
        # are its own in order, and a phase's moves give the same round whatever their order —
        # but for teams, where a member's play ends its partner's turn: replayed in file order above)
        for agent in aec.agent_iter():
            _, reward, termination, truncation, _ = aec.last()
            seat = aec.table.seat_of[agent]
            got[seat] += reward
            aec.step(None if termination or truncation else queued[seat].popleft())
            last = aec.game.last_result
            if last is not None:
                results[last.round] = last
        assert not any(queued.values())
        check_rounds(list(results.values()), log[number])
        recorded = [sum(r["reward"] for r in records if r["seat"] == seat) for seat in range(seats)]
        assert got == recorded == aec.game.scores == log[number][-1]["scores"]


def test_the_hard_bots_clues_and_the_records_at_any_concurrency(tmp_path: Path) -> None:
    lines = []
    for concurrency in (1, 2):
        path = tmp_path / f"moves{concurrency}.jsonl"
        command = ["arena", "--players", "4", "--games", "3", "--bots", "hard,random", "--seed", "2"]
        assert main([*command, "--concurrency", str(concurrency), "--trajectories", str(path)]) == 0
        lines.append(path.read_bytes())
    assert lines[0] == lines[1]
    records = [json.loads(line) for line in lines[0].splitlines()]
    tells = [r for r in records if r["phase"] == "clue"]
    assert tells
    assert all(r["clue"] and r["action"] in range(6) for r in tells)  # (free text: the id is the hand card)
    assert {r["agent"] for r in records} == {"hard", "random"}
    assert sum(r["done"] for r in records) == 3


def test_run_arena_without_trajectories_records_no_moves() -> None:
    seen: list[Record] = []
    run_arena("odyssey", 3, 1, ["random"], seed=1, options=SHORT, record=seen.append)
    assert seen
    assert all("action" not in line for line in seen)
    moves: list[Record] = []
    run_arena("odyssey", 3, 1, ["random"], seed=1, options=SHORT, trajectory=Trajectories(moves.append))
    assert len(moves) > len(seen)
    assert {tuple(sorted(r)) for r in moves} == {tuple(sorted(moves[0]))}
