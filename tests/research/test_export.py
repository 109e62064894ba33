"""`fabula arena --log`, `fabula ai export` and `fabula ai eval` in a row: an arena's rounds, a
server's saved album and its data folder become rounds the evaluation reads."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from fabula.cli import main
from fabula.research.agents.standin import StandIn
from fabula.research.export import read_log
from fabula.rules import RoundResult
from tests.server.harness import live_server
from tests.server.players import play_to_end
from tests.server.test_games import seat_people


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_arena_log_exported_and_evaluated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log, rounds, cards, transcript = (tmp_path / name for name in ("log.jsonl", "r.jsonl", "c.json", "t.jsonl"))
    with StandIn() as server:
        code = main(
            [
                "arena", "--players", "4", "--games", "2", "--bots", "random", "--seed", "3",
                "--agent", f"openai:{server.url}:stand-in", "--agent", "fabula.bots.base:RandomBot",
                "--log", str(log), "--transcript", str(transcript), "--json",
            ]
        )  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["levels"]) == {"random", "llm:stand-in", "RandomBot"}
    assert report["agents"]["llm:stand-in"]["fallbacks"] == 0
    logged = lines(log)
    assert len(logged) == report["rounds"]
    assert len(lines(transcript)) == report["agents"]["llm:stand-in"]["attempts"]
    for record in logged:
        assert {seat["agent"] for seat in record["seats"]} == {"random", "llm:stand-in", "RandomBot"}
        result = RoundResult.from_json(record)  # every field of the round is there
        assert result.storyteller_card == result.table[result.owners.index(result.storyteller)]
    finals = [record for record in logged if "winners" in record]
    assert [record["game"] for record in finals] == [1, 2], "the last round of each game names its winners"
    assert all(max(r["scores"]) >= 30 for r in finals)

    assert main(["ai", "export", str(log), "--out", str(rounds), "--cards-out", str(cards)]) == 0
    exported = lines(rounds)
    assert len(exported) == len(logged)
    assert exported[0]["source"] == f"{log}#game1/round1"
    described = json.loads(cards.read_text(encoding="utf-8"))
    assert {card["id"] for card in described} == {card for row in exported for card in row["cards"]}
    capsys.readouterr()
    assert main(["ai", "eval", str(rounds), "--cards", str(cards), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["rounds"] == len(exported)
    assert 0 <= figures["top1"] <= 1


def test_party_rounds_only_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "party.jsonl"
    arena = ["arena", "--mode", "party", "--players", "6", "--games", "1", "--bots", "random", "--log", str(log)]
    assert main(arena) == 0
    assert read_log(log) == []
    assert len(read_log(log, party=True)) == len(lines(log))
    assert main(["ai", "export", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["ai", "export"]) == 2
    (tmp_path / "bad.jsonl").write_text('{"clue": "x"}\n', encoding="utf-8")
    assert main(["ai", "export", str(tmp_path / "bad.jsonl")]) == 2
    assert "not an arena round" in capsys.readouterr().err


async def one_game(data: Path) -> tuple[str, dict[str, Any]]:
    """A room of two people and two random bots that played one short game: its code and album."""
    with live_server(data, messages_per_second=500.0, message_burst=500) as server:
        clients, code = await seat_people(server, 2, 0, mode="odyssey", options={"storyteller_cycles": 1})
        for _ in range(2):
            assert (await clients[0].request({"type": "add_bot", "level": "random"}))["type"] == "ack"
        assert (await clients[0].request({"type": "start"}))["type"] == "ack"
        rng = random.Random(5)
        await asyncio.gather(*(play_to_end(client, rng) for client in clients))
        token = clients[0].token
        assert token is not None
        async with httpx.AsyncClient(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as http:
            album = (await http.get(f"/api/rooms/{code}/games/1")).json()
        for client in clients:
            await client.close()
    return code, album


def test_a_servers_album_and_data_folder_exported(tmp_path: Path) -> None:
    data = tmp_path / "data"
    code, album = asyncio.run(one_game(data))  # (export then runs the store's own event loop)
    saved = tmp_path / "album.json"
    saved.write_text(json.dumps(album), encoding="utf-8")
    from_album, from_data, cards = tmp_path / "a.jsonl", tmp_path / "d.jsonl", tmp_path / "c.json"
    assert main(["ai", "export", "--album", str(saved), "--out", str(from_album)]) == 0
    assert main(["ai", "export", "--data", str(data), "--out", str(from_data), "--cards-out", str(cards)]) == 0
    rows = lines(from_album)
    assert len(rows) == len(album["rounds"]) == 4, "one cycle of four storytellers"
    strip = [{key: value for key, value in row.items() if key != "source"} for row in rows]
    assert strip == [{key: value for key, value in row.items() if key != "source"} for row in lines(from_data)]
    assert lines(from_data)[0]["source"] == f"room {code}/game1/round1"
    for row, result in zip(rows, album["rounds"], strict=True):
        assert (row["clue"], row["cards"], row["storyteller_card"]) == (
            result["clue"],
            result["table"],
            result["storyteller_card"],
        )
        assert sum(row["vote_share"].values()) == pytest.approx(1.0)
    assert main(["ai", "eval", str(from_data), "--cards", str(cards)]) == 0


def test_arena_refuses_an_agent_it_cannot_seat(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["arena", "--players", "4", "--games", "1"]
    assert main([*base, "--agent", "openai:http://localhost:8080"]) == 2
    assert "openai:URL:MODEL" in capsys.readouterr().err
    assert main([*base, "--agent", "no_such_module_here:Bot"]) == 2
    assert "cannot import" in capsys.readouterr().err
    assert main([*base, "--agent", "fabula.bots.base:RandomBot", "--retries", "-1"]) == 2
    assert (
        main([*base, "--bots", "", "--agent", "fabula.bots.base:RandomBot", "--agent", "fabula.bots.base:RandomBot"])
        == 0
    )
    assert "RandomBot#2" in capsys.readouterr().out, "one name twice: told apart"
