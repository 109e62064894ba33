"""The audience (issue 36): spectators who join with a name and vote, once a round, for the card
they think is the storyteller's — counted in batches, durable once acknowledged, shown as numbers
during the vote and as the crowd's split after the reveal, ranked in the album, and never changing
the players' scores. An audience connection sees exactly what a spectator does, byte for byte."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from pathlib import Path
from typing import Any

import pytest

from fabula.protocol.audience import AudienceHello
from fabula.protocol.settings import RoomSettings
from fabula.rules import Phase, RulesError, numbered_deck
from fabula.server.crowd import check_vote
from fabula.server.entries import Created, CrowdVote, CrowdVoted, Joined, Started
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS

from ..services import postgres_url, redis_url
from .harness import Client, LiveServer, live_server
from .test_quiet_vote import next_move, phase, play_until, quiet, seated
from .test_scaleout import Deployment, pair, pair_without_relay, seat

__all__ = ["pair", "pair_without_relay", "postgres_url", "redis_url"]  # fixtures, used by name

OPTIONS = {"first_storyteller": 0, "storyteller_cycles": 1}


def fan(server: LiveServer, code: str, name: str, token: str | None = None) -> Client:
    """An audience member's connection (a token of their own unless given)."""
    hello = AudienceHello(token=token or secrets.token_urlsafe(16), name=name)
    return Client(server.url, code, None, audience=hello)


# ---------------------------------------------------------------------- the room, without a server


def room_in_its_vote(seed: int = 5) -> Room:
    room = Room("CROWD")
    room.apply(Created(at=0.0, settings=RoomSettings(mode="odyssey", options={"storyteller_cycles": 1})))
    for n in range(3):
        room.apply(Joined(at=1.0, member=n, name=f"P{n}", colour=COLOURS[n], token_hash=f"h{n}"))
    room.apply(Started(at=2.0, seed=seed, seating=[0, 1, 2], deck=list(numbered_deck())))
    assert room.game is not None
    rng = random.Random(seed)
    while room.game.phase is not Phase.VOTE:
        room.apply(next_move(room, rng))
    return room


def refusal(room: Room, vote: CrowdVote) -> str:
    try:
        check_vote(room.crowd, room.game, vote)
    except RulesError as refused:
        return str(refused.code)
    return "ok"


def test_a_vote_is_checked_then_counted_and_never_changes_the_scores() -> None:
    room, twin = room_in_its_vote(), room_in_its_vote()
    assert room.game is not None
    table = list(room.game.table)
    votes = [CrowdVote(f"a{n}", f"Fan {n}", room.game.round, table[n % len(table)], f"v{n}") for n in range(5)]
    assert refusal(room, CrowdVote("x", "X", room.game.round, "no-such-card", "v")) == "not_on_table"
    assert refusal(room, CrowdVote("x", "X", room.game.round + 1, table[0], "v")) == "wrong_phase"
    room.apply(CrowdVoted(at=3.0, votes=votes))
    assert refusal(room, CrowdVote("a0", "Fan 0", room.game.round, table[1], "other")) == "already_voted"
    assert check_vote(room.crowd, room.game, votes[0]) is not None  # the same message: its entry's seq
    assert room.crowd.voted_in(room.game.round) == 5
    rng = random.Random(1)
    while room.game.phase is Phase.VOTE:  # the same moves on both rooms: only the crowd differs
        move = next_move(room, rng)
        room.apply(move)
        assert twin.game is not None
        twin.apply(move)
    assert twin.game is not None
    assert room.game.scores == twin.game.scores
    result = room.game.last_result
    assert result is not None
    crowd = room.crowd.result(result.round)
    assert crowd is not None
    assert crowd.total == 5
    assert sum(crowd.votes.values()) == 5
    assert crowd.found == sum(v.card == result.storyteller_card for v in votes)
    board = room.album(1).audience  # type: ignore[union-attr]
    assert board is not None
    assert board.voters == 5
    assert [leader.points for leader in board.leaders] == sorted(
        (leader.points for leader in board.leaders), reverse=True
    )
    assert sum(leader.points for leader in board.leaders) == crowd.found


def test_a_vote_stored_just_after_the_reveal_counts_for_its_round() -> None:
    room = room_in_its_vote()
    assert room.game is not None
    late = CrowdVote("late", "Late", room.game.round, room.game.table[0], "v")
    assert refusal(room, late) == "ok"
    rng = random.Random(1)
    while room.game.phase is Phase.VOTE:
        room.apply(next_move(room, rng))
    assert refusal(room, late) == "ok"  # (cast before the reveal: it still counts)
    room.apply(CrowdVoted(at=9.0, votes=[late]))
    crowd = room.crowd.result(late.round)
    assert crowd is not None
    assert crowd.total == 1


def voting(room: Room) -> bool:
    return room.game is not None and room.game.phase is Phase.VOTE


def test_each_member_is_told_their_place_on_the_leaderboard_which_names_ten() -> None:
    """A member outside the album's top ten still learns where they stand: their place counts those
    with more points, or as many of more votes, so members alike share it as on the board."""
    room = room_in_its_vote(seed=11)
    assert room.game is not None
    rng = random.Random(3)
    for wave in range(2):  # two rounds: fourteen vote in the first, six of them and two others in the second
        table = list(room.game.table)
        voters = [f"a{n}" for n in range(14)] if wave == 0 else [f"a{n}" for n in range(6)] + ["b0", "b1"]
        votes = [CrowdVote(who, who.upper(), room.game.round, rng.choice(table), f"v{wave}") for who in voters]
        room.apply(CrowdVoted(at=3.0 + wave, votes=votes))
        while voting(room):
            room.apply(next_move(room, rng))
        while wave == 0 and not voting(room):
            room.apply(next_move(room, rng))
    crowd = room.crowd.current
    assert crowd is not None
    members = sorted(crowd.votes)
    assert len(members) == 16
    standings = {who: room.crowd.standing(who, who.upper(), room.game.round) for who in members}
    for who, standing in standings.items():
        better = sum(
            (crowd.points[other], crowd.votes[other]) > (crowd.points[who], crowd.votes[who]) for other in members
        )
        assert standing.place == better + 1
        assert standing.voters == 16
    assert len({s.place for s in standings.values()}) < 16  # (some alike: shared places)
    board = room.album(1).audience  # type: ignore[union-attr]
    assert board is not None
    assert len(board.leaders) == 10
    # the board's places, as the album shows them (alike: the place of the one above) ...
    places: list[int] = []
    for index, leader in enumerate(board.leaders):
        above = board.leaders[index - 1] if index else None
        alike = above is not None and (above.points, above.votes) == (leader.points, leader.votes)
        places.append(places[-1] if alike else index + 1)
    # ... are the ones the leaders are told, and those off the board are told theirs too
    by_name = {who.upper(): standing for who, standing in standings.items()}
    assert [by_name[leader.name].place for leader in board.leaders] == places
    off_the_board = [by_name[name] for name in by_name.keys() - {leader.name for leader in board.leaders}]
    assert len(off_the_board) == 6
    assert all(standing.place is not None and standing.place >= places[-1] for standing in off_the_board)
    never = room.crowd.standing("z", "Z", room.game.round)
    assert (never.place, never.voters) == (None, 16)


def test_members_alike_on_the_board_are_in_the_order_a_person_reads_their_names() -> None:
    """Found by a group's play: the crowd's numbered names, all alike, read "Fan 150" before "Fan 17"."""
    room = room_in_its_vote(seed=11)
    assert room.game is not None
    card = room.game.table[0]
    names = ["Fan 150", "Fan 17", "fan 2", "Fan 9", "Ann"]
    votes = [CrowdVote(f"a{n}", name, room.game.round, card, "v") for n, name in enumerate(names)]
    room.apply(CrowdVoted(at=3.0, votes=votes))
    board = room.album(1).audience  # type: ignore[union-attr]
    assert board is not None
    assert [leader.name for leader in board.leaders] == ["Ann", "fan 2", "Fan 9", "Fan 17", "Fan 150"]


# ---------------------------------------------------------------------- a live server


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


def last_state(client: Client) -> str:
    return next(raw for raw in reversed(client.raw) if raw.startswith('{"type":"state"'))


def storyteller_card(host: Client) -> str:
    """The host tells first: their first card down is the storyteller's."""
    assert host.room is not None
    return str(host.room["game"]["my_cards"][0])


@pytest.mark.anyio
async def test_the_audience_joins_votes_once_and_sees_the_crowd_after_the_reveal(data: Path) -> None:
    with live_server(data) as server:
        clients = await seated(server, 3, options=OPTIONS)
        host, spectator = clients[0], clients[-1]
        fans = [fan(server, host.code, f"Fan {n}") for n in range(3)]
        for member in fans:
            welcome = await member.connect()
            assert welcome["type"] == "welcome", welcome
            assert welcome["member"] is None
            assert welcome["audience"]["vote"] is None
            assert welcome["audience"]["points"] == 0
        assert len({m.received[0]["audience"]["id"] for m in fans}) == 3
        # anything but a vote in a round's vote phase is refused, and changes nothing
        assert (await fans[0].request({"type": "crowd_vote", "card": "x"}))["code"] == "wrong_phase"
        assert (await host.request({"type": "crowd_vote", "card": "x"}))["code"] == "not_audience"
        assert (await spectator.request({"type": "crowd_vote", "card": "x"}))["code"] == "not_audience"
        malformed = await fans[0].request({"type": "crowd_vote", "card": "x", "slot": 2})
        assert malformed["code"] == "malformed"
        await host.request({"type": "start"})
        room = await play_until(clients, phase("vote"))
        cards = [slot["card"] for slot in room["game"]["table"]]
        answer = storyteller_card(host)
        other = next(card for card in cards if card != answer)
        assert (await fans[0].request({"type": "crowd_vote", "card": "no-such"}))["code"] == "not_on_table"
        chosen = [answer, other, answer]
        for member, card in zip(fans, chosen, strict=True):
            acked = await member.request({"type": "crowd_vote", "card": card, "id": "vote-1"})
            assert acked["type"] == "ack", acked
            standing = next(m for m in reversed(member.received) if m["type"] == "audience")
            assert standing["you"]["vote"] == card
        again = await fans[0].request({"type": "crowd_vote", "card": other})
        assert again["code"] == "already_voted"
        resent = await fans[0].request({"type": "crowd_vote", "card": answer, "id": "vote-1"})
        assert resent["type"] == "ack"  # the same message again: acknowledged, not counted twice
        # during the vote: the numbers only (who voted for what would be table talk)
        voting = await spectator.wait_state(lambda r: r["audience"] == {"count": 3, "voted": 3})
        assert voting["crowd"] is None
        assert voting["game"]["phase"] == "vote"
        for member in fans:
            for message in member.received:
                if message["type"] == "state" and message["room"]["game"] is not None:
                    shown = message["room"]
                    assert shown["you"] is None
                    assert shown["game"]["hand"] is None
                    assert shown["game"]["my_cards"] == []
                    assert shown["game"]["my_vote"] == []
                    assert shown["crowd"] is None  # (no round revealed yet)
        revealed = await play_until(clients, lambda r: r["game"]["round"] == 2)
        assert revealed["crowd"] == {"round": 1, "votes": {answer: 2, other: 1}, "total": 3, "found": 2}
        seen = await fans[1].wait_state(lambda r: r["crowd"] is not None)
        assert seen["crowd"]["found"] == 2
        points = await fans[0].wait_for(lambda m: m["type"] == "audience" and m["you"]["points"] == 1)
        assert points["you"]["round"] == 2
        assert points["you"]["vote"] is None
        album = (await fans[2].request({"type": "album"}))["album"]
        assert album["audience"]["voters"] == 3
        assert [(row["name"], row["points"]) for row in album["audience"]["leaders"]] == [
            ("Fan 0", 1),
            ("Fan 2", 1),
            ("Fan 1", 0),
        ]
        assert album["rounds"][0]["scores"] == revealed["game"]["scores"]
        for client in [*clients, *fans]:
            await client.close()


@pytest.mark.anyio
async def test_the_audience_gets_the_spectators_very_bytes_and_nothing_more(data: Path) -> None:
    with live_server(data) as server:
        clients = await seated(server, 3, options=OPTIONS)
        host, spectator = clients[0], clients[-1]
        tokens = [secrets.token_urlsafe(24) for _ in range(2)]
        fans = [fan(server, host.code, f"Fan {n}", tokens[n]) for n in range(2)]
        for member in fans:
            assert (await member.connect())["type"] == "welcome"
        await host.request({"type": "start"})
        room = await play_until(clients, phase("vote"))
        await fans[0].request({"type": "crowd_vote", "card": room["game"]["table"][0]["card"]})
        await spectator.wait_state(lambda r: r["audience"]["voted"] == 1)
        await asyncio.sleep(1.2)  # (no numbers left to show)
        await quiet([*clients, *fans])
        assert last_state(fans[0]) == last_state(fans[1]) == last_state(spectator)
        ids = [m.received[0]["audience"]["id"] for m in fans]
        for n, member in enumerate(fans):
            text = "".join(member.raw)
            assert not any(token in text for token in tokens)  # the token is never sent back
            assert ids[1 - n] not in text  # nor anyone else's id
            hands = [json.loads(raw)["room"]["game"] for raw in member.raw if raw.startswith('{"type":"state"')]
            assert all(game is None or game["hand"] is None for game in hands)
        for client in [*clients, *fans]:
            await client.close()


@pytest.mark.anyio
async def test_a_bad_audience_hello_is_refused_and_the_room_goes_on(data: Path) -> None:
    with live_server(data) as server:
        clients = await seated(server, 3, options=OPTIONS)
        host = clients[0]
        cases: list[tuple[dict[str, Any], str]] = [
            ({"token": "short", "name": "A"}, "malformed"),
            ({"token": secrets.token_urlsafe(16), "name": "A", "colour": "red"}, "malformed"),
            ({"token": secrets.token_urlsafe(16), "name": "   "}, "name_empty"),
            ({"token": secrets.token_urlsafe(16), "name": "N" * 40}, "name_too_long"),
        ]
        for audience, code in cases:
            raw = Client(server.url, host.code, None)
            await raw.connect_only()
            reply = await raw.request({"type": "hello", "token": None, "audience": audience}, ("welcome", "error"))
            assert (reply["type"], reply["code"]) == ("error", code), (audience, reply)
            await raw.close()
        seated_too = Client(server.url, host.code, None)
        await seated_too.connect_only()
        hello = {"type": "hello", "token": host.token, "audience": {"token": secrets.token_urlsafe(16), "name": "A"}}
        assert (await seated_too.request(hello, ("welcome", "error")))["code"] == "malformed"
        await seated_too.close()
        assert (await host.request({"type": "start"}))["type"] == "ack"
        await quiet(clients)
        for client in clients:
            await client.close()


@pytest.mark.anyio
async def test_acknowledged_votes_survive_a_restart(data: Path) -> None:
    token = secrets.token_urlsafe(16)
    with live_server(data) as server:
        clients = await seated(server, 3, options=OPTIONS)
        host = clients[0]
        code, tokens = host.code, [c.token for c in clients[:-1]]
        await host.request({"type": "start"})
        room = await play_until(clients, phase("vote"))
        card = room["game"]["table"][1]["card"]
        member = fan(server, code, "Keeper", token)
        assert (await member.connect())["type"] == "welcome"
        others = [fan(server, code, f"Fan {n}") for n in range(4)]
        for other in others:
            assert (await other.connect())["type"] == "welcome"
        # sent at once: they are stored in one batch or two, each acknowledged once stored
        replies = await asyncio.gather(
            member.request({"type": "crowd_vote", "card": card}),
            *(other.request({"type": "crowd_vote", "card": card}) for other in others),
        )
        assert all(reply["type"] == "ack" for reply in replies), replies
        for client in [*clients, member, *others]:
            await client.close()
    with live_server(data) as server:
        again = fan(server, code, "Keeper", token)
        welcome = await again.connect()
        assert welcome["audience"]["vote"] == card
        assert welcome["audience"]["round"] == 1
        state = await again.wait_state(lambda r: r["game"] is not None)
        assert state["audience"]["voted"] == 5
        players = [Client(server.url, code, t) for t in tokens]
        for player in players:
            assert (await player.connect())["type"] == "welcome"
        revealed = await play_until(players, lambda r: r["game"]["round"] == 2)
        assert revealed["crowd"]["total"] == 5
        assert revealed["crowd"]["votes"] == {card: 5}
        for client in [again, *players]:
            await client.close()


# ---------------------------------------------------------------------- two processes


@pytest.mark.anyio
@pytest.mark.parametrize("relay", [True, False], ids=["relayed", "followed"])
async def test_votes_through_both_processes_count_once(
    relay: bool, pair: Deployment, pair_without_relay: Deployment
) -> None:
    """Audience members on both processes (relayed to the room's owner, or — ``--relay no`` —
    served where they are, their batches stored by their own process): every vote acknowledged is
    in the log once and counted once; a member's second vote, through the other process, is refused."""
    deployment = pair if relay else pair_without_relay
    a, b = deployment.processes
    code, _, clients = await seat([a.url, b.url], 3, options=OPTIONS)
    host = clients[0]
    token = secrets.token_urlsafe(16)
    fans = [
        Client(url, code, None, audience=AudienceHello(token=secrets.token_urlsafe(16), name=f"Fan {n}"))
        for n, url in enumerate([a.url, b.url, b.url, a.url])
    ]
    twice = [Client(url, code, None, audience=AudienceHello(token=token, name="Twice")) for url in (a.url, b.url)]
    for member in [*fans, *twice]:
        assert (await member.connect())["type"] == "welcome"
    assert (await host.request({"type": "start"}))["type"] == "ack"
    room = await play_until(clients, phase("vote"))
    card = room["game"]["table"][0]["card"]
    # each votes once their own process shows the vote, as a phone does (a followed copy of the
    # room may be a moment behind the seat that saw it first)
    await asyncio.gather(*(member.wait_state(phase("vote")) for member in [*fans, *twice]))
    replies = await asyncio.gather(*(member.request({"type": "crowd_vote", "card": card}) for member in fans))
    assert all(reply["type"] == "ack" for reply in replies), replies
    first = await twice[0].request({"type": "crowd_vote", "card": card})
    assert first["type"] == "ack", first
    second = await twice[1].request({"type": "crowd_vote", "card": card})
    assert second["code"] == "already_voted", second
    revealed = await play_until(clients, lambda r: r["game"]["round"] == 2)
    assert revealed["crowd"]["total"] == 5
    assert revealed["crowd"]["votes"] == {card: 5}
    entries = await deployment.entries(code)
    stored = [vote.audience for entry in entries if isinstance(entry, CrowdVoted) for vote in entry.votes]
    assert len(stored) == len(set(stored)) == 5
    for client in [*clients, *fans, *twice]:
        await client.close()
