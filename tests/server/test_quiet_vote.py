"""A quiet vote (issue 36): from the storyteller's clue until the round is scored the table's chat
is closed — the rules ask for no discussion before the votes are final. A line to the table is
refused with ``chat_closed``, stored nowhere and sent to nobody, and the room goes on; team chat
stays open in mode `teams`; the host may allow table talk as a house rule (``table_talk``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fabula import protocol as p
from fabula.cards.library import DeckLibrary
from fabula.protocol.settings import RoomSettings
from fabula.rules import BlindClue, Phase, RulesError, Tell, numbered_deck
from fabula.server.commands import Context, entry_for
from fabula.server.entries import Acted, Created, Joined, Said, Started
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS

from .harness import Client, LiveServer, create_room, join_room, live_server
from .players import awaited, move_once

# ---------------------------------------------------------------------- the room's commands


def room_of(mode: str, seats: int, *, table_talk: bool = False) -> Room:
    room = Room("QUIET")
    settings = RoomSettings(mode=mode, options={"storyteller_cycles": 1}, table_talk=table_talk)
    room.apply(Created(at=0.0, settings=settings))
    for n in range(seats):
        room.apply(Joined(at=1.0, member=n, name=f"P{n}", colour=COLOURS[n], token_hash=f"h{n}"))
    return room


def said(room: Room, member: int, *, team_only: bool = False) -> str:
    """``ok`` if ``member``'s chat line would be taken now, else the refusal's code."""
    context = Context(member=member, now=2.0, library=DeckLibrary(Path("no-such-folder")), seed=lambda: 0)
    try:
        entry = entry_for(p.Say(id="s", text="psst", team_only=team_only), context, room)
    except RulesError as refused:
        return str(refused.code)
    assert isinstance(entry, Said)
    return "ok"


def next_move(room: Room, rng: random.Random) -> Acted:
    """A legal move of the first awaited seat, at random (a party storyteller's first may be a
    vote again and again), a clue given where one is wanted."""
    assert room.game is not None
    seat = room.game.awaiting[0]
    action = rng.choice(room.game.legal_actions(seat))
    if isinstance(action, Tell | BlindClue):
        action = action.with_clue("Far away")
    return Acted(at=3.0, member=room.seating[seat], action=action.to_json())


def chat_in_each_phase(room: Room, *, team_only: bool = False) -> set[tuple[str, str]]:
    """(phase, what member 0's line gets) over a whole game, from the lobby to its end."""
    seen = {("lobby", said(room, 0, team_only=team_only))}
    room.apply(Started(at=3.0, seed=5, seating=sorted(room.members), deck=list(numbered_deck())))
    assert room.game is not None
    rng = random.Random(5)
    while room.game.phase is not Phase.OVER:
        seen.add((room.game.phase.value, said(room, 0, team_only=team_only)))
        room.apply(next_move(room, rng))
    seen.add(("over", said(room, 0, team_only=team_only)))
    return seen


@pytest.mark.parametrize(("mode", "seats"), [("odyssey", 3), ("classic", 4), ("party", 6), ("teams", 6)])
def test_the_table_is_quiet_from_the_clue_until_the_round_is_scored(mode: str, seats: int) -> None:
    # (party: the blind clue is the clue — the play phase that follows it is quiet too)
    assert chat_in_each_phase(room_of(mode, seats)) == {
        ("lobby", "ok"),
        ("clue", "ok"),
        ("play", "chat_closed"),
        ("vote", "chat_closed"),
        ("over", "ok"),
    }


def test_team_chat_stays_open_in_every_phase() -> None:
    assert {outcome for _, outcome in chat_in_each_phase(room_of("teams", 6), team_only=True)} == {"ok"}


def test_with_table_talk_the_table_may_talk_in_every_phase() -> None:
    assert {outcome for _, outcome in chat_in_each_phase(room_of("odyssey", 3, table_talk=True))} == {"ok"}


def test_a_log_kept_before_the_rule_still_replays() -> None:
    """The rule is the commands', not the log's: a line said during a vote before it still folds in."""
    room = room_of("odyssey", 3)
    room.apply(Started(at=3.0, seed=5, seating=[0, 1, 2], deck=list(numbered_deck())))
    assert room.game is not None
    while room.game.phase is not Phase.VOTE:
        room.apply(next_move(room, random.Random(5)))
    room.apply(Said(at=4.0, member=1, text="it was said once"))
    assert room.chat[-1][0].text == "it was said once"


# ---------------------------------------------------------------------- a live server


async def seated(server: LiveServer, people: int, **settings: Any) -> list[Client]:
    """``people`` connected persons in a new room (the first hosts it, and tells first), and a
    spectator last."""
    host = await create_room(server.url, "P0", COLOURS[0], **settings)
    tokens = [host["token"]]
    for n in range(1, people):
        joined = await join_room(server.url, host["code"], f"P{n}", COLOURS[n])
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    clients = [Client(server.url, host["code"], token) for token in [*tokens, None]]
    for client in clients:
        assert (await client.connect())["type"] == "welcome"
    return clients


async def play_until(clients: list[Client], done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Random legal moves by whoever is awaited until ``done`` holds of the host's room. Every
    client has every state before each choice: a person whose state came first must not move on
    while the host's still shows the room as it was (the host would see a phase already gone)."""
    rng = random.Random(5)
    for _ in range(500):
        await quiet(clients)
        room = clients[0].room
        if room is not None and done(room):
            return room
        mover = next((c for c in clients if awaited(c.room)), None)
        if mover is None:
            await asyncio.sleep(0.02)
        else:
            await move_once(mover, rng)
    raise AssertionError("the room never got there")


def phase(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda room: room["game"] is not None and room["game"]["phase"] == name


async def quiet(clients: list[Client]) -> None:
    """Wait until every frame sent to ``clients`` so far has arrived (a ping answered)."""
    for client in clients:
        assert (await client.request({"type": "ping"}))["type"] == "pong"


def lines_read(client: Client) -> list[str]:
    """The chat lines ``client`` received, live or in a welcome."""
    found = []
    for message in client.received:
        if message["type"] == "chat":
            found.append(message["text"])
        elif message["type"] == "welcome":
            found += [line["text"] for line in message["chat"]]
    return found


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.mark.anyio
async def test_a_table_line_from_the_clue_until_the_reveal_is_refused_kept_nowhere_and_sent_to_nobody(
    data: Path,
) -> None:
    with live_server(data) as server:
        clients = await seated(server, 3, options={"first_storyteller": 0, "storyteller_cycles": 2})
        teller, first = clients[0], clients[1]
        assert (await first.request({"type": "say", "text": "good luck"}))["type"] == "ack"  # the lobby
        assert (await teller.request({"type": "start"}))["type"] == "ack"
        clue = await first.wait_state(phase("clue"))
        assert clue["table_chat"] is True
        assert (await first.request({"type": "say", "text": "take your time"}))["type"] == "ack"
        refused = []
        for name in ("play", "vote"):
            room = await play_until(clients, phase(name))
            assert room["table_chat"] is False
            reply = await first.request({"type": "say", "text": f"during the {name}"})
            assert (reply["type"], reply["code"]) == ("error", "chat_closed"), reply
            refused.append(f"during the {name}")
        await quiet(clients)
        assert all(not set(refused) & set(lines_read(c)) for c in clients), "a refused line was sent"
        # the room goes on, and opens again at the reveal
        revealed = await play_until(clients, lambda room: room["game"]["round"] == 2)
        assert revealed["game"]["phase"] == "clue"
        assert revealed["table_chat"] is True
        said = await first.request({"type": "say", "text": "so that was yours!"})
        assert said["type"] == "ack", said
        await quiet(clients)
        assert all("so that was yours!" in lines_read(c) for c in clients)
        code = clients[0].code
        for client in clients:
            await client.close()
    with live_server(data) as server:  # what the room kept: its log, read again
        again = Client(server.url, code, None)
        welcome = await again.connect()
        assert [line["text"] for line in welcome["chat"]] == ["good luck", "take your time", "so that was yours!"]
        await again.close()


@pytest.mark.anyio
async def test_team_chat_stays_open_during_the_vote_in_mode_teams(data: Path) -> None:
    with live_server(data) as server:
        clients = await seated(server, 6, mode="teams", options={"first_storyteller": 0, "storyteller_cycles": 1})
        host = clients[0]
        assert (await host.request({"type": "teams", "pairs": [[0, 1], [2, 3], [4, 5]]}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        room = await play_until(clients, phase("vote"))
        assert room["table_chat"] is False
        voter = next(c for c in clients if awaited(c.room))
        seat_of = {c: c.room["you"]["seat"] for c in clients[:-1] if c.room is not None}
        pair = next(pair for pair in room["game"]["teams"] if seat_of[voter] in pair)
        partner = next(c for c, seat in seat_of.items() if seat in pair and c is not voter)
        assert (await voter.request({"type": "say", "text": "the blue one?", "team_only": True}))["type"] == "ack"
        reply = await voter.request({"type": "say", "text": "the blue one, everyone?"})
        assert reply["code"] == "chat_closed"
        await quiet(clients)
        readers = [c for c in clients if "the blue one?" in lines_read(c)]
        assert readers == [c for c in clients if c in (voter, partner)]
        assert all("the blue one, everyone?" not in lines_read(c) for c in clients)
        for client in clients:
            await client.close()


@pytest.mark.anyio
async def test_only_the_host_allows_table_talk_and_the_room_keeps_it(data: Path) -> None:
    with live_server(data) as server:
        clients = await seated(server, 3, options={"first_storyteller": 0})
        host, guest = clients[0], clients[1]
        assert host.room is not None
        assert host.room["settings"]["table_talk"] is False, "off by default"
        talk = {"type": "settings", "settings": {**host.room["settings"], "table_talk": True}}
        refused = await guest.request(talk)
        assert (refused["type"], refused["code"]) == ("error", "not_host")
        assert (await host.request(talk))["type"] == "ack"
        code = host.code
        for client in clients:
            await client.close()
    with live_server(data) as server:  # a restart: the room is its log, settings included
        clients = [Client(server.url, code, c.token) for c in clients]
        for client in clients:
            assert (await client.connect())["type"] == "welcome"
        room = await clients[0].wait_state(lambda _: True)
        assert room["settings"]["table_talk"] is True
        assert (await clients[0].request({"type": "start"}))["type"] == "ack"
        for name in ("play", "vote"):
            room = await play_until(clients, phase(name))
            assert room["table_chat"] is True
            assert (await clients[1].request({"type": "say", "text": f"in the {name}"}))["type"] == "ack"
        await quiet(clients)
        assert {"in the play", "in the vote"} <= set(lines_read(clients[2]))
        for client in clients:
            await client.close()
