"""Reading bots in a room: the levels a host adds, their moves through the live server, and the
memory the server keeps of finished games only."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fabula.bots.semantic.encoder import shared_encoder
from fabula.bots.semantic.memory import PastRound
from fabula.cards.library import DeckLibrary
from fabula.cards.original import original_deck
from fabula.server.autoplay import AutoPlayers, GameRecord
from fabula.store import SqliteStore

from .harness import Client, LiveServer, create_room, live_server
from .players import awaited, move_once, play_to_end

TITLES = {card.id: card.title.lower() for card in original_deck().cards}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data") as running:
        yield running


async def host_room(server: LiveServer, **settings: object) -> tuple[Client, str]:
    seat = await create_room(server.url, "Host", "red", **settings)
    host = Client(server.url, seat["code"], seat["token"])
    assert (await host.connect())["type"] == "welcome"
    return host, seat["code"]


@pytest.mark.anyio
async def test_bots_of_every_reading_level_play_a_whole_game_and_learn_only_once_it_is_over(
    server: LiveServer,
) -> None:
    host, _ = await host_room(server, mode="odyssey", options={"target_score": 10})
    for level in ("easy", "normal", "hard"):
        assert (await host.request({"type": "add_bot", "level": level}))["type"] == "ack"
    room = await host.wait_state(lambda r: len(r["members"]) == 4)
    assert sorted(m["bot"] for m in room["members"] if m["bot"]) == ["easy", "hard", "normal"]
    memory = server.service.autoplay.memory()
    assert memory is not None
    assert len(memory) == 0
    # clues are compared with clues as MiniLM was published, what the memory weights were fitted on
    assert memory.encoder is shared_encoder().published is not shared_encoder()
    assert (await host.request({"type": "start"}))["type"] == "ack"

    # While the game runs, finished rounds are public but the memory must not take them yet.
    rng = random.Random(3)
    while host.room is None or host.room["game"] is None or host.room["game"]["last_round"] is None:
        seen = len(host.received)
        if await move_once(host, rng) is None:
            await host.wait_for(lambda m: m["type"] == "state", start=seen, timeout=60)
    assert len(memory) == 0

    final = await play_to_end(host, rng, timeout=120)
    assert final["game"]["outcome"]["winners"]
    for _ in range(100):  # the memory learns in a worker thread just after the last round
        if len(memory) > 0:
            break
        await asyncio.sleep(0.05)
    assert len(memory) == final["game"]["last_round"]["round"]  # every round of the game, once
    await host.close()


@pytest.mark.anyio
async def test_an_unknown_bot_level_is_refused_and_changes_nothing(server: LiveServer) -> None:
    host, _ = await host_room(server)
    before = await host.wait_state(lambda r: r["status"] == "lobby")
    reply = await host.request({"type": "add_bot", "level": "genius"})
    assert reply["type"] == "error"
    assert "level" in reply["message"]
    reply = await host.request({"type": "add_bot", "level": "hard"})
    assert reply["type"] == "ack"
    after = await host.wait_state(lambda r: len(r["members"]) == len(before["members"]) + 1)
    assert [m["bot"] for m in after["members"]].count("hard") == 1
    await host.close()


@pytest.mark.anyio
async def test_a_bot_storyteller_never_tells_its_card_title(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        # 7 is one more than a round's most (3 for finding + 3 for decoy votes), so the game lasts
        # at least two rounds and a bot tells at least once, whoever starts.
        host, _ = await host_room(server, mode="odyssey", options={"target_score": 7})
        for level in ("hard", "normal", "easy", "hard"):
            assert (await host.request({"type": "add_bot", "level": level}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        final = await play_to_end(host, random.Random(5), timeout=120)
        seen = [m["room"]["game"]["last_round"] for m in host.received if m["type"] == "state" and m["room"]["game"]]
        results = {r["round"]: r for r in seen if r is not None}
        host_seat = final["you"]["seat"]
        told = [r for r in results.values() if r["storyteller"] != host_seat]
        assert told, "the bots told stories"
        for result in told:
            assert result["clue"].strip()
            assert result["clue"].lower() != TITLES[result["storyteller_card"]]
        await host.close()


@pytest.mark.anyio
async def test_the_memory_can_be_switched_off(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", bot_memory=False) as server:
        assert server.service.autoplay.memory() is None
        host, _ = await host_room(server, mode="odyssey", options={"target_score": 3})
        for level in ("hard", "hard"):
            assert (await host.request({"type": "add_bot", "level": level}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        final = await play_to_end(host, random.Random(1), timeout=120)
        assert final["game"]["outcome"] is not None
        assert server.service.autoplay.memory() is None  # a finished game taught nothing
        await host.close()


def seq_above(seq: int, room: dict[str, Any]) -> bool:
    return bool(room["seq"] > seq)


async def now_or_next(client: Client, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The client's room if ``test`` holds for it now, else the first later state for which it does."""
    seen = len(client.received)
    if client.room is not None and test(client.room):
        return client.room
    found = await client.wait_for(lambda m: m["type"] == "state" and test(m["room"]), start=seen)
    room: dict[str, Any] = found["room"]
    return room


@pytest.mark.anyio
async def test_a_bot_that_proposed_leaves_the_choice_to_its_person_teammate_until_the_table_is_quiet(
    server: LiveServer,
) -> None:
    """Team mode, a person and a bot as teammates: once the bot has proposed its card, it does not
    play over the person's head — only after ``teammate_wait_seconds`` without a move."""
    # Four storyteller turns each: the random teammate proposes rather than plays in half its turns.
    host, _ = await host_room(server, mode="teams", options={"storyteller_cycles": 4})
    for _ in range(5):
        assert (await host.request({"type": "add_bot", "level": "random"}))["type"] == "ack"
    await host.wait_state(lambda r: len(r["members"]) == 6)
    assert (await host.request({"type": "start"}))["type"] == "ack"
    rng = random.Random(5)
    waited = 0
    while waited < 2:
        room = host.room
        assert room is not None
        assert room["game"] is not None, "the game ended before the bot ever proposed"
        assert room["status"] != "over", "the game ended before the bot ever proposed"
        game = room["game"]
        seen = len(host.received)
        our_team = {game["seat"], (game["seat"] + 3) % 6}  # seats s and s + N/2 are teammates
        if game["phase"] == "play" and game["storyteller"] not in our_team and awaited(room):
            # Our team chooses who plays: leave it to the bot until it has proposed or played.
            room = await now_or_next(
                host, lambda r: r["game"]["teammate_proposed"] or not awaited(r) or r["game"]["phase"] != "play"
            )
            if room["game"]["phase"] == "play" and awaited(room):
                proposed_at = len(host.received)
                await asyncio.sleep(0.5)  # with no wait, a bot (delay 0 here) would have played by now
                assert host.room is not None
                assert awaited(host.room), "the bot played over its teammate's head"
                # nothing happened to our team meanwhile (the other team's bots may have moved:
                # each state is sent as it comes, none left out for a newer one)
                meanwhile = [m["room"] for m in host.received[proposed_at:] if m["type"] == "state"]
                assert all(awaited(r) and r["game"]["teammate_proposed"] for r in meanwhile)
                # A quiet table later the bot moves (a random bot may propose again, and wait again).
                for _ in range(30):
                    before: int = host.room["seq"]
                    server.shift_clock(server.config.teammate_wait_seconds + 1)
                    room = await now_or_next(host, partial(seq_above, before))
                    if not (awaited(room) and room["game"]["phase"] == "play"):
                        break
                else:
                    raise AssertionError("the bot never played")
                waited += 1
            continue
        if await move_once(host, rng) is None:
            await host.wait_for(lambda m: m["type"] == "state", start=seen, timeout=30)
    await host.close()


@pytest.mark.anyio
async def test_bots_give_their_clues_in_the_language_they_were_added_in(server: LiveServer) -> None:
    from fabula.bots.semantic.vocabulary import clue_pool

    # one turn as storyteller each (a target score could end the game before both bots told)
    host, _ = await host_room(server, mode="odyssey", options={"storyteller_cycles": 1})
    for level in ("easy", "normal"):
        reply = await host.request({"type": "add_bot", "level": level, "language": "zh-Hant"})
        assert reply["type"] == "ack"
    refused = await host.request({"type": "add_bot", "level": "easy", "language": "fr"})
    assert refused["type"] == "error"
    room = await host.wait_state(lambda r: len(r["members"]) == 3)
    assert sum(1 for m in room["members"] if m["bot"]) == 2  # the refused one changed nothing
    assert (await host.request({"type": "start"}))["type"] == "ack"
    final = await play_to_end(host, random.Random(2), timeout=120)
    you = final["you"]["seat"]
    told = {
        (m["room"]["game"]["round"], m["room"]["game"]["clue"])
        for m in host.received
        if m["type"] == "state"
        and m["room"]["game"] is not None
        and m["room"]["game"]["clue"]
        and m["room"]["game"]["storyteller"] != you
    }
    assert len(told) >= 2
    pool = set(clue_pool(language="zh-Hant"))
    assert all(clue in pool for _, clue in told), told
    await host.close()


@pytest.mark.anyio
async def test_a_remote_bot_clues_in_the_language_it_was_started_with(server: LiveServer) -> None:
    """`fabula bot --level easy --language zh-Hans`, as the command runs it (`bots.client.play`)."""
    from fabula.bots.client import play
    from fabula.bots.semantic.vocabulary import clue_pool

    host, code = await host_room(server, mode="odyssey", options={"storyteller_cycles": 2})
    assert (await host.request({"type": "add_bot", "level": "random"}))["type"] == "ack"
    remote = asyncio.create_task(play(server.url, code, name="Remote", level="easy", language="zh-Hans", seed=1))
    room = await host.wait_state(lambda r: len(r["members"]) == 3, timeout=30)
    assert any(m["name"] == "Remote" for m in room["members"])
    assert (await host.request({"type": "start"}))["type"] == "ack"
    final = await play_to_end(host, random.Random(4), timeout=120)
    await asyncio.wait_for(remote, 30)
    seat = next(m["seat"] for m in final["members"] if m["name"] == "Remote")
    told = {
        m["room"]["game"]["clue"]
        for m in host.received
        if m["type"] == "state"
        and m["room"]["game"] is not None
        and m["room"]["game"]["clue"]
        and m["room"]["game"]["storyteller"] == seat
    }
    assert told  # two storyteller turns each
    assert told <= set(clue_pool(simple_only=True, language="zh-Hans")), told
    await host.close()


@pytest.mark.anyio
async def test_a_stand_in_clues_in_the_language_its_person_said_hello_in(server: LiveServer) -> None:
    """Out of time as storyteller: the bot that tells for them uses their client's language."""
    from fabula.bots.semantic.vocabulary import clue_pool

    seat = await create_room(
        server.url, "小明", "red", mode="odyssey", options={"first_storyteller": 0}, clue_seconds=30
    )
    host = Client(server.url, seat["code"], seat["token"], language="zh-Hans")
    assert (await host.connect())["type"] == "welcome"
    for _ in range(2):
        assert (await host.request({"type": "add_bot", "level": "random"}))["type"] == "ack"
    await host.wait_state(lambda r: len(r["members"]) == 3)
    assert (await host.request({"type": "start"}))["type"] == "ack"
    room = await host.wait_state(lambda r: r["game"] is not None and r["game"]["phase"] == "clue")
    assert room["game"]["storyteller"] == room["you"]["seat"]
    server.shift_clock(31)  # the clue timer runs out: a stand-in tells for the host
    # The bots (no delay here) finish the round at once, so read the clue from its result.
    room = await host.wait_state(lambda r: r["game"] is not None and r["game"]["last_round"] is not None, timeout=30)
    clue = room["game"]["last_round"]["clue"]
    assert clue in set(clue_pool(language="zh-Hans")), clue
    await host.close()


def test_the_protocol_offers_exactly_the_languages_bots_clue_in() -> None:
    from typing import get_args

    from fabula.bots.base import BOT_LANGUAGES
    from fabula.bots.semantic.vocabulary import clue_pool
    from fabula.protocol import Language

    assert get_args(Language) == BOT_LANGUAGES
    assert all(clue_pool(language=language) for language in BOT_LANGUAGES)


@pytest.mark.anyio
async def test_the_memory_outlives_its_room_and_a_restart(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        host, code = await host_room(server, mode="odyssey", options={"target_score": 8})
        for level in ("easy", "easy"):
            assert (await host.request({"type": "add_bot", "level": level}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        final = await play_to_end(host, random.Random(2), timeout=120)
        rounds = final["game"]["last_round"]["round"]
        assert rounds > 1
        clues = {
            m["room"]["game"]["last_round"]["clue"]
            for m in host.received
            if m["type"] == "state" and m["room"]["game"] and m["room"]["game"]["last_round"]
        }
        await host.close()

    async def remembered_after_a_restart() -> int:
        with live_server(tmp_path / "data") as again:
            memory = again.service.autoplay.memory()
            assert memory is not None
            for _ in range(100):
                if len(memory) >= rounds:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.2)  # time enough to learn it a second time, were it to
            return len(memory)

    # The room is still stored, and the game kept too: learned once.
    assert await remembered_after_a_restart() == rounds
    # Its room deleted while the server was down (as the idle sweep would have): the game was kept.
    store = SqliteStore(server.config.sqlite_path)
    await store.delete_room(code)
    kept = await store.kept_games()
    await store.close()
    assert len(kept) == 1
    record = GameRecord.from_bytes(kept[0].data)
    assert {past.clue for past in record.rounds} == clues
    assert record.model == shared_encoder().published.name
    assert record.vectors == pytest.approx(shared_encoder().published.encode([r.clue for r in record.rounds]), abs=1e-6)
    assert await remembered_after_a_restart() == rounds


@pytest.mark.anyio
async def test_recall_takes_the_newest_kept_rounds_skips_a_damaged_record_and_catches_up(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "rooms.sqlite3")
    rounds = [PastRound(f"clue {n}", ("1", "2", "3"), "1", {"1": 0.5, "2": 0.5}) for n in range(6)]
    await store.keep_game("AAAAA/1.0/1", GameRecord(rounds[:3]).to_bytes(), at=1.0)
    await store.keep_game("BBBBB/1.0/1", b"not a game", at=2.0)
    await store.keep_game("CCCCC/1.0/1", GameRecord(rounds[3:5]).to_bytes(), at=3.0)
    players = AutoPlayers(DeckLibrary(tmp_path / "decks"), memory=True, store=store, memory_rounds=4)
    memory = players.memory()
    assert memory is not None
    assert await players.recall() == 4  # the newest four of the five readable rounds
    assert await players.recall() == 0  # nothing new
    # another process keeps a game: the next recall takes it
    await store.keep_game("DDDDD/1.0/1", GameRecord(rounds[5:]).to_bytes(), at=4.0)
    assert await players.recall() == 1
    for _ in range(100):
        if len(memory) == 5:
            break
        await asyncio.sleep(0.05)
    assert len(memory) == 5
    features, _ = memory.features("clue 0", memory.encoder.encode_one("clue 0"), ["1", "2", "3"])
    assert features[0, 1] == 0.0, "the oldest round was left out: 'clue 0' was never told for card 1"
    await store.close()


@pytest.mark.anyio
async def test_recall_uses_the_kept_vectors_of_the_same_model_only(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "rooms.sqlite3")
    rounds = [PastRound(f"kept clue {n}", ("1", "2"), "1", {"1": 1.0}) for n in range(3)]
    marked = np.eye(3, 384, dtype=np.float32)  # not what the model would make: recognisable
    players = AutoPlayers(DeckLibrary(tmp_path / "decks"), memory=True, store=store, memory_rounds=2)
    memory = players.memory()
    assert memory is not None
    await store.keep_game("AAAAA/1.0/1", GameRecord(rounds[:2], memory.encoder.name, marked[:2]).to_bytes(), at=1.0)
    await store.keep_game("BBBBB/1.0/1", GameRecord(rounds[2:], "another model", marked[2:]).to_bytes(), at=1.0)
    assert await players.recall() == 2
    assert memory.encoder.encode_one(rounds[1].clue) == pytest.approx(marked[1])
    assert not np.allclose(memory.encoder.encode_one(rounds[2].clue), marked[2]), "another model's vector"
    assert not np.allclose(memory.encoder.encode_one(rounds[0].clue), marked[0]), "a round left out is not primed"
    await store.close()


def test_a_game_record_reads_back_and_a_damaged_one_is_refused() -> None:
    rounds = [PastRound("Guiding light", ("1", "2"), "1", {"1": 0.5, "2": 0.5})]
    vectors = np.full((1, 4), 0.5, dtype=np.float32)
    assert GameRecord.from_bytes(GameRecord(rounds).to_bytes()) == GameRecord(rounds)
    again = GameRecord.from_bytes(GameRecord(rounds, "model", vectors).to_bytes())
    assert (again.rounds, again.model) == (rounds, "model")
    assert again.vectors is not None
    assert again.vectors.tolist() == vectors.tolist()
    with pytest.raises(ValueError, match="list of rounds"):
        GameRecord.from_bytes(b'{"clue": "not a game"}')
    short = json.loads(GameRecord(rounds, "model", vectors).to_bytes())
    short["dimensions"] = 5
    with pytest.raises(ValueError, match="do not match"):
        GameRecord.from_bytes(json.dumps(short).encode())
