"""Hidden information stays hidden: every message the server sends to every connection, over
whole games of every mode played by people through WebSockets, holds only what its receiver may
know.

After the games, each room is rebuilt from its stored log, entry by entry, and every message is
held against the true game at the moment it was sent:

* no message names a card in another seat's hand or in the draw pile (its raw text is searched
  for every such card id; a spectator may see no hand at all);
* every state message is exactly the room snapshot of its receiver at its ``seq``, and that
  snapshot does not change when everything the receiver may not know is changed: the other
  hands and the pile renamed, the owners of the cards on the table that are not the receiver's
  shuffled, the other seats' votes and the red token moved, the seed and the move log replaced
  (so a leak is caught whatever field it hides in);
* a seat's view is the spectator's view plus that seat's own hand, cards, vote, red token and
  proposal — and those are its own;
* the legal moves a seat is told are its own and depend on nothing more than a view does
  (in `teams`, a voter may know its partner's card: it may not vote for it);
* team chat reaches the two teammates and nobody else, live and in the chat a new connection
  is welcomed with; nobody ever sees another member's seat token.

* every album read after the game — over the socket by the spectator and each seat, over HTTP by
  each member, through a share link — holds exactly the rounds the engine revealed and names no
  card that was never laid on the table; its picture is drawn from laid cards only.

The last test is a regression test of a leak this file found: a team line said before the host
re-pairs the teams must not be shown to the sender's new partner when that partner connects.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from fabula.rules import Game, Phase
from fabula.server import history
from fabula.server.entries import Said, Started, decode
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS
from fabula.story import Album

from .harness import Client, LiveServer, create_room, join_room, live_server
from .players import move_once

#: What a card id looks like in a message's raw text (checked against the deck below).
WORD = re.compile(r"[\w-]+")
#: A card id of the deck these games are dealt from.
CARD = re.compile(r"\bfabula-\d+\b")
#: The parts of a view that belong to its seat; everything else is the same for everyone.
PRIVATE = ("seat", "hand", "hand_hidden", "cards_to_play", "my_cards", "my_vote", "my_red", "my_proposal")
PRIVATE_TEAM = ("teammate_proposed",)
#: Chat lines a person sends (at most): with the host's refused team line, five, the server's chat
#: burst, so none is refused however fast the game goes.
CHATS_PER_PERSON = 4
CHAT_CHANCE = 0.15

#: The games of each test: (mode, seats, options), all seats people, one spectator per room.
GAMES: dict[str, list[tuple[str, int, dict[str, Any]]]] = {
    "odyssey-3": [
        ("odyssey", 3, {"storyteller_cycles": 1}),
        ("odyssey", 3, {"storyteller_cycles": 2}),
        ("odyssey", 3, {"target_score": 10, "found_if": "all_tokens"}),
        ("odyssey", 4, {"storyteller_cycles": 1}),
        ("odyssey", 5, {"storyteller_cycles": 1, "lone_finder_bonus": True}),
    ],
    "odyssey-7-two-tokens": [
        ("odyssey", 7, {"target_score": 10}),
        ("odyssey", 7, {"target_score": 10, "second_token_same_slot": True}),
        ("odyssey", 8, {"target_score": 8}),
        # 72 cards in hands, 12 on the table: the discards are reshuffled in after round 2 (no
        # round gains anyone 12 points, so there is a round 2)
        ("odyssey", 12, {"target_score": 12}),
    ],
    "classic": [
        ("classic", 3, {"target_score": 10}),
        ("classic", 4, {"target_score": 10}),
        ("classic", 5, {"target_score": 10}),
        ("classic", 6, {"target_score": 8}),
    ],
    "party-6": [
        ("party", 6, {"storyteller_cycles": 1}),
        ("party", 6, {"storyteller_cycles": 1, "party_red_target": "not_own_card"}),
        ("party", 7, {"storyteller_cycles": 1, "party_score_basis": "owner"}),
        ("party", 8, {"storyteller_cycles": None, "target_score": 8}),
    ],
    "teams-6": [
        ("teams", 6, {"storyteller_cycles": 1}),
        ("teams", 6, {"storyteller_cycles": 2, "team_vote_own_card": True}),
        ("teams", 8, {"storyteller_cycles": 1}),
        ("teams", 10, {"storyteller_cycles": None, "target_score": 8}),
    ],
}


#: The cards each album picture was drawn from, by room code (recorded by the fixture below).
PICTURES_DRAWN: dict[str, list[list[str]]] = defaultdict(list)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    drawn = history.render_album  # type: ignore[attr-defined]

    def recorded(album: Album, pictures: Mapping[str, bytes], **options: Any) -> bytes:
        held = running.service.rooms.held.items()
        code = next(code for code, live in held if any(a is album for a in live.room.albums))
        PICTURES_DRAWN[code].append(list(pictures))
        return drawn(album, pictures, **options)

    monkeypatch.setattr(history, "render_album", recorded)
    # Generous limits: a dozen rooms of people on one address, as fast as the test can play.
    with live_server(
        tmp_path / "data", max_connections_per_address=1000, messages_per_second=1000, message_burst=1000
    ) as running:
        yield running


# ---------------------------------------------------------------------- playing


@dataclass
class Watcher:
    """One connection: a seat's (``member``) or a spectator's (None), with all it received."""

    client: Client
    member: int | None
    #: opened after the game, to see what chat a new connection is welcomed with
    late: bool = False


@dataclass
class Table:
    """A finished room and every connection it had."""

    code: str
    mode: str
    watchers: list[Watcher]
    tokens: dict[int, str]
    #: teams: the pairs the host chose
    pairs: list[list[int]] | None = None
    #: the album as each member read it over HTTP (its JSON's raw text), and as a share link shows it
    albums: list[str] = field(default_factory=list)


async def say(client: Client, text: str, *, team_only: bool) -> None:
    reply = await client.request({"type": "say", "text": text, "team_only": team_only})
    assert reply["type"] == "ack", reply


async def play_and_chat(
    client: Client, rng: random.Random, texts: Iterator[str], *, teams: bool, timeout: float = 60
) -> None:
    """Random legal moves until the game is over (like `players.play_to_end`), chatting now and then."""

    async def loop() -> None:
        while True:
            room = client.room
            if room is not None and room["status"] == "over":
                return
            if rng.random() < CHAT_CHANCE:
                text = next(texts, None)
                if text is not None:
                    await say(client, text, team_only=teams and rng.random() < 0.7)
                    continue  # new states may have come meanwhile: look again
            seen = len(client.received)
            reply = await move_once(client, rng)
            if reply is None:
                await client.wait_for(lambda m: m["type"] == "state", start=seen, timeout=timeout)
            elif reply["type"] == "error":
                assert reply["code"] in {"wrong_phase", "not_your_turn", "already_played", "conflict"}, reply
                await asyncio.sleep(0.01)

    await asyncio.wait_for(loop(), timeout)


async def read_albums(server_url: str, code: str, tokens: dict[int, str]) -> list[str]:
    """Game 1's album as each member reads it over HTTP, with its picture, and through a share link."""
    found = []
    async with httpx.AsyncClient(base_url=server_url, timeout=60) as http:
        for token in tokens.values():
            headers = {"Authorization": f"Bearer {token}"}
            answer = await http.get(f"/api/rooms/{code}/games/1", headers=headers)
            assert answer.status_code == 200, answer.text
            found.append(answer.text)
        picture = await http.get(f"/api/rooms/{code}/games/1/album.png", headers=headers)
        assert picture.headers["content-type"] == "image/png"
        link = (await http.post(f"/api/rooms/{code}/games/1/share", headers=headers)).json()
        found.append((await http.get(f"/api/albums/{link['path'].removeprefix('/album/')}")).text)
    return found


async def play_table(server: LiveServer, mode: str, seats: int, options: dict[str, Any], rng: random.Random) -> Table:
    """One room of ``seats`` people and a spectator, played to the end, with chat."""
    # (table talk as a house rule: lines to the table come in every phase, mixed with the secrets)
    host = await create_room(server.url, "P0", COLOURS[0], mode=mode, options=options, table_talk=True)
    code = host["code"]
    tokens = {0: host["token"]}
    for n in range(1, seats):
        joined = await join_room(server.url, code, f"P{n}", COLOURS[n])
        assert joined.status_code == 201, joined.text
        tokens[joined.json()["member"]] = joined.json()["token"]
    people = {member: Client(server.url, code, token) for member, token in tokens.items()}
    spectator = Client(server.url, code, None)
    for client in [*people.values(), spectator]:
        assert (await client.connect())["type"] == "welcome"
    table = Table(code, mode, [Watcher(c, m) for m, c in people.items()] + [Watcher(spectator, None)], tokens)
    host_client = people[0]
    texts = {m: iter([f"{code}-P{m}-line{n}" for n in range(CHATS_PER_PERSON)]) for m in people}

    if mode == "teams":
        order = list(people)
        rng.shuffle(order)
        table.pairs = [order[i : i + 2] for i in range(0, seats, 2)]
        assert (await host_client.request({"type": "teams", "pairs": table.pairs}))["type"] == "ack"
        for member, client in people.items():  # one team line each in the lobby
            await say(client, next(texts[member]), team_only=True)
    else:
        refused = await host_client.request({"type": "say", "text": "psst", "team_only": True})
        assert (refused["type"], refused["code"]) == ("error", "not_teams")
        await say(host_client, next(texts[0]), team_only=False)
    assert (await host_client.request({"type": "start"}))["type"] == "ack"

    await asyncio.gather(
        *(
            play_and_chat(client, random.Random(rng.random()), texts[member], teams=mode == "teams")
            for member, client in people.items()
        )
    )
    # Whoever connects now is welcomed with the chat so far: a spectator, and each seat again.
    late = [Watcher(Client(server.url, code, None), None, late=True)]
    late += [Watcher(Client(server.url, code, token), member, late=True) for member, token in tokens.items()]
    for watcher in late:
        assert (await watcher.client.connect())["type"] == "welcome"
    table.watchers += late
    for watcher in late:  # the album of the game, as a spectator and each seat read it
        assert (await watcher.client.request({"type": "album"}))["type"] == "album"
    table.albums = await read_albums(server.url, code, tokens)
    # A ping answered means everything queued before it has arrived: nothing is still on its way.
    for watcher in table.watchers:
        assert (await watcher.client.request({"type": "ping"}))["type"] == "pong"
    for watcher in table.watchers:
        await watcher.client.close()
    return table


# ---------------------------------------------------------------------- what a seat may know


def plain(value: Any) -> Any:
    """``value`` as it reads after a trip through JSON, as the server encodes it (tuples become
    lists, a view or snapshot its JSON object)."""
    return json.loads(msgspec.json.encode(value))


def hand_hidden(game: Game, seat: int | None) -> bool:
    """Party: the storyteller gives the clue before seeing the hand."""
    return game.rules.mode.clue_before_hand and game.phase is Phase.CLUE and seat == game.storyteller


def unseen_cards(game: Game | None, seat: int | None) -> frozenset[str]:
    """The cards ``seat`` (None: a spectator) must not be shown: the other hands and the draw pile
    (a card of the last round's public table may have been reshuffled into either)."""
    if game is None:
        return frozenset()
    cards = set(game.draw_pile)
    for other in range(game.seats):
        if other != seat or hand_hidden(game, seat):
            cards.update(game.hand(other))
    if game.last_result is not None:
        cards.difference_update(game.last_result.table)
    return frozenset(cards)


def hidden_variant(game: Game, seat: int | None, owners_known: set[int]) -> Game:
    """A game ``seat`` cannot tell from ``game``: every card it cannot see renamed, the owners of
    the table's cards that are not in ``owners_known`` rotated among their slots, the other seats'
    votes and (but for the storyteller) the red token moved, another seed, no move log."""
    state = game.to_json()
    seats, phase = state["seats"], state["phase"]
    fresh = (f"hidden-{n}" for n in itertools.count())
    renamed: dict[str, str] = {}

    def rename(card: str) -> str:
        if card not in renamed:
            renamed[card] = next(fresh)
        return renamed[card]

    blind = [s for s in range(seats) if s != seat or hand_hidden(game, seat)]
    for s in blind:
        state["hands"][s] = [rename(card) for card in state["hands"][s]]
        if state["proposals"][s] is not None:
            state["proposals"][s] = rename(state["proposals"][s])
        if phase == "play" and state["plays"][s] is not None:  # played cards are still in the hand
            state["plays"][s] = [rename(card) for card in state["plays"][s]]
    state["pile"] = [rename(card) for card in state["pile"]]
    state["seed"] += 1
    state["log"] = []
    if phase == "vote":
        table, owners = state["table"], state["owners"]
        movable = [i for i, owner in enumerate(owners) if owner not in owners_known]
        moved = [owners[i] for i in movable]
        for i, owner in zip(movable, moved[1:] + moved[:1], strict=True):
            owners[i] = owner
        for s in range(seats):
            if s not in owners_known and state["plays"][s] is not None:
                state["plays"][s] = [card for card, owner in zip(table, owners, strict=True) if owner == s]
        size = len(table)
        for s in range(seats):
            if s != seat and state["votes"][s] is not None:
                state["votes"][s] = sorted(slot % size + 1 for slot in state["votes"][s])
        if state["red"] is not None and seat != state["storyteller"]:
            state["red"] = state["red"] % size + 1
    return Game.from_json(state)


def check_own_fields(game: Game, seat: int | None, view: dict[str, Any]) -> None:
    """``view`` is the spectator's view plus what belongs to ``seat``, and that is ``seat``'s own."""
    spectator = plain(game.view(None))
    assert set(view) == set(spectator)
    if game.phase in (Phase.PLAY, Phase.VOTE):
        assert all(set(slot) == {"slot", "card", "yours"} for slot in view["table"]), view["table"]

    def public(shown: dict[str, Any]) -> dict[str, Any]:
        found = {key: value for key, value in shown.items() if key not in PRIVATE + PRIVATE_TEAM}
        found["table"] = [{"slot": slot["slot"], "card": slot["card"]} for slot in shown["table"]]
        return found

    assert public(view) == public(spectator), "a seat's view differs from the spectator's in a public part"
    state, rules = game.to_json(), game.rules
    hidden = hand_hidden(game, seat)
    own: dict[str, Any] = {
        "seat": seat,
        "hand": None if seat is None or hidden else state["hands"][seat],
        "hand_hidden": hidden,
        "cards_to_play": rules.cards_per_player
        if seat is not None and game.phase is Phase.PLAY and seat in state["players"]
        else 0,
        "my_cards": [] if seat is None else state["plays"][seat] or [],
        "my_vote": [] if seat is None else state["votes"][seat] or [],
    }
    if rules.mode.red_token:
        own["my_red"] = state["red"] if seat is not None and seat == game.storyteller else None
    if rules.teams is not None:
        own["my_proposal"] = None if seat is None else state["proposals"][seat]
        own["teammate_proposed"] = seat is not None and state["proposals"][rules.teammate(seat)] is not None
    assert {key: view[key] for key in own} == own
    assert [slot["yours"] for slot in view["table"]] == [seat is not None and owner == seat for owner in game.owners]


def owners_known(game: Game, seat: int | None) -> set[int]:
    """Whose cards on the table ``seat`` knows: its own, and in teams its teammate's (a voter may
    not vote for its own team's card unless `team_vote_own_card`: the moves it may make, which its
    state carries, say which slot that is — as the partner would at the table)."""
    if seat is None:
        return set()
    rules = game.rules
    if rules.teams is not None and not rules.options.team_vote_own_card:
        return {seat, rules.teammate(seat)}
    return {seat}


def checked_snapshot(room: Room, member: int | None) -> dict[str, Any]:
    """``member``'s snapshot of ``room`` now, once it is shown to hold nothing ``member`` may not know."""
    snapshot: dict[str, Any] = plain(room.snapshot(member))
    game = room.game
    if game is None:
        return snapshot
    seat = room.seat_of(member) if member is not None else None
    check_own_fields(game, seat, snapshot["game"])
    room.game = hidden_variant(game, seat, owners_known(game, seat))
    try:
        variant = plain(room.snapshot(member))
    finally:
        room.game = game
    assert variant == snapshot, f"the snapshot of member {member} shows hidden information"
    return snapshot


def without_presence(room: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without who is connected and since when they are gone (that is not in the log)."""
    members = [
        {key: value for key, value in m.items() if key not in ("connected", "stand_in_at")} for m in room["members"]
    ]
    return {**room, "members": members}


def legal_json(game: Game | None, seat: int | None) -> list[dict[str, Any]]:
    if game is None or seat is None:
        return []
    found: list[dict[str, Any]] = plain([action.to_json() for action in game.legal_actions(seat)])
    return found


def check_legal(games: Sequence[Game | None], seat: int | None, actions: list[dict[str, Any]]) -> None:
    """``actions`` are ``seat``'s legal moves in one of ``games`` (the states around the answer),
    and the same in a game that differs in what ``seat`` may not know."""
    for game in games:
        if legal_json(game, seat) != actions:
            continue
        if game is not None and seat is not None:
            known = {seat} if game.rules.teams is None else {seat, game.rules.teammate(seat)}
            assert legal_json(hidden_variant(game, seat, known), seat) == actions, "legal moves show hidden information"
        return
    raise AssertionError(f"seat {seat} was told legal moves of no state around the answer: {actions}")


def sent_between(received: list[dict[str, Any]], final: int) -> list[tuple[int, int]]:
    """For each message, the room seqs it may have been sent at. A state names its own. Any other
    message was queued after the states two places before it (a connection queues one state at a
    time, and a newer state takes an unsent one's place, so the state just before it may be newer
    than it) and before the state after it."""
    seqs = [m["room"]["seq"] if m["type"] == "state" else None for m in received]
    shown = [seq for seq in seqs if seq is not None]
    assert shown, "a connection got no state"
    assert shown == sorted(shown), "states arrived out of order"
    bounds = []
    earlier: list[int] = []
    for index, seq in enumerate(seqs):
        if seq is not None:
            bounds.append((seq, seq))
            earlier.append(seq)
            continue
        later = next((s for s in seqs[index + 1 :] if s is not None), final)
        bounds.append((earlier[-2] if len(earlier) > 1 else 0, later))
    return bounds


# ---------------------------------------------------------------------- checking a table


async def check_table(server: LiveServer, table: Table) -> Counter[str]:
    """Every message of ``table``'s connections against its true game; what was checked, counted."""
    stored = await server.service.rooms.store.load(table.code)
    assert [entry.seq for entry in stored] == list(range(len(stored)))
    entries = [decode(entry.data) for entry in stored]
    assert sum(isinstance(entry, Started) for entry in entries) == 1
    final = len(entries)
    counts: Counter[str] = Counter()

    states: dict[int, list[tuple[Watcher, dict[str, Any]]]] = defaultdict(list)
    for watcher in table.watchers:
        for message in watcher.client.received:
            if message["type"] == "state":
                states[message["room"]["seq"]].append((watcher, message["room"]))
    room = Room(table.code)
    games: list[Game | None] = [None]
    said: dict[str, Said] = {}
    for entry in entries:
        room.apply(entry)
        if isinstance(entry, Said):
            assert entry.text not in said, "every chat line is different"
            said[entry.text] = entry
        games.append(None if room.game is None else room.game.copy())
        expected: dict[int | None, dict[str, Any]] = {}
        for watcher, sent in states.get(room.seq, []):
            if watcher.member not in expected:
                expected[watcher.member] = without_presence(checked_snapshot(room, watcher.member))
                counts["snapshots checked"] += 1
                if room.game is not None and room.game.phase in (Phase.PLAY, Phase.VOTE):
                    counts[f"snapshots checked in phase {room.game.phase.value}"] += 1
            assert without_presence(sent) == expected[watcher.member], (
                f"room {table.code} seq {room.seq}: member {watcher.member} was sent another snapshot than its own"
            )
            counts["states"] += 1
    game = room.game
    assert game is not None
    assert game.phase is Phase.OVER
    counts["rounds"] += game.round
    counts["games with a reshuffle"] += game.to_json()["reshuffles"] > 0
    seat_of: dict[int, int] = {}
    for person in table.tokens:
        seated = room.seat_of(person)
        assert seated is not None
        seat_of[person] = seated
    if table.pairs is not None:  # the game's teams are the pairs the host chose
        for a, b in table.pairs:
            assert game.rules.teammate(seat_of[a]) == seat_of[b]

    @cache
    def unseen(seq: int, seat: int | None) -> frozenset[str]:
        return unseen_cards(games[seq], seat)

    def readers(line: Said) -> set[int | None]:
        if not line.team_only:
            return {w.member for w in table.watchers}
        assert table.pairs is not None
        return {m for pair in table.pairs if line.member in pair for m in pair}

    secrets = {m: (token, hashlib.sha256(token.encode()).hexdigest()) for m, token in table.tokens.items()}
    received_by: dict[str, set[int | None]] = defaultdict(set)
    for watcher in table.watchers:
        member = watcher.member
        seat = None if member is None else seat_of[member]
        others = [secret for m, pair in secrets.items() if m != member for secret in pair]
        messages = watcher.client.received
        for raw, message, (low, high) in zip(watcher.client.raw, messages, sent_between(messages, final), strict=True):
            counts["messages"] += 1
            where = f"room {table.code} ({table.mode}), member {member}, seq {low}..{high}: {raw[:200]}"
            forbidden = frozenset.intersection(*(unseen(seq, seat) for seq in range(low, high + 1)))
            leaked = forbidden & set(WORD.findall(raw))
            assert not leaked, f"{where}: shows the hidden cards {sorted(leaked)}"
            assert not any(secret in raw for secret in others), f"{where}: shows another member's seat token"
            lines: list[dict[str, Any]] = []
            if message["type"] == "legal":
                check_legal(games[low : high + 1], seat, message["actions"])
                counts["legal answers checked"] += 1
            elif message["type"] == "chat":
                lines = [message]
            elif message["type"] == "welcome":
                lines = message["chat"]
                if watcher.late:  # the whole chat so far that this connection may read
                    may_read = {text for text, entry in said.items() if member in readers(entry)}
                    assert {line["text"] for line in lines} == may_read, where
            for line in lines:
                entry = said[line["text"]]
                assert line["team_only"] == entry.team_only
                assert member in readers(entry), f"{where}: reads a team line of member {entry.member}"
                if message["type"] == "chat":
                    received_by[line["text"]].add(member)
                    counts["team lines delivered" if entry.team_only else "table lines delivered"] += 1
    for text, entry in said.items():  # and each line reached all its readers (everyone was connected)
        assert received_by[text] == readers(entry), f"{text!r} reached {received_by[text]}"
    check_albums(table, games, counts)
    counts["games"] += 1
    return counts


def check_albums(table: Table, games: list[Game | None], counts: Counter[str]) -> None:
    """Every album read (over the socket, over HTTP, by a share link, and the cards its picture was
    drawn from) holds the game's rounds exactly as the engine revealed them, and no card that was
    never laid on the table."""
    revealed: list[dict[str, Any]] = []
    for game in games:
        last = None if game is None else game.last_result
        if last is not None and (not revealed or revealed[-1]["round"] != last.round):
            revealed.append(plain(last))
    laid = {card for result in revealed for card in result["table"]}
    texts = [raw for w in table.watchers for raw, m in zip(w.client.raw, w.client.received, strict=True)]
    texts = [raw for raw in texts if '"type":"album"' in raw] + table.albums
    assert len(texts) == len([w for w in table.watchers if w.late]) + len(table.tokens) + 1
    for raw in texts:
        found = json.loads(raw)
        album = found.get("album", found)
        assert album["rounds"] == revealed, f"room {table.code}: an album's rounds are not the reveals"
        assert set(CARD.findall(raw)) <= laid, f"room {table.code}: an album names a card never laid"
        counts["albums checked"] += 1
    for cards in PICTURES_DRAWN.pop(table.code, []):
        assert set(cards) <= laid, f"room {table.code}: the album's picture was drawn from cards never laid"
        counts["album pictures checked"] += 1


# ---------------------------------------------------------------------- the tests


@pytest.mark.anyio
@pytest.mark.parametrize("games", GAMES)
async def test_no_connection_is_sent_what_its_seat_may_not_know(server: LiveServer, games: str) -> None:
    rng = random.Random(games)
    server.service.rng = random.Random(rng.random())  # room codes and deals
    deck = [card.id for card in server.service.library.cards(["fabula"])]
    assert all(WORD.fullmatch(card) for card in deck), "card ids must be whole words for the text search"
    tables = await asyncio.gather(
        *(
            play_table(server, mode, seats, options, random.Random(rng.random()))
            for mode, seats, options in GAMES[games]
        )
    )
    counts: Counter[str] = Counter()
    for table in tables:
        counts += await check_table(server, table)
    assert counts["games"] == len(GAMES[games])
    assert counts["snapshots checked in phase play"] > 0
    assert counts["snapshots checked in phase vote"] > 0
    assert counts["legal answers checked"] > 0
    assert counts["album pictures checked"] == len(GAMES[games])
    assert counts["table lines delivered"] + counts["team lines delivered"] > 0
    if games.startswith("teams"):
        assert counts["team lines delivered"] > 0
    if games.startswith("odyssey-7"):
        assert counts["games with a reshuffle"] > 0
    print(games, dict(counts))


@pytest.mark.anyio
async def test_a_team_line_is_not_shown_to_a_later_partner(server: LiveServer) -> None:
    host = await create_room(server.url, "P0", COLOURS[0], mode="teams")
    code, tokens = host["code"], [host["token"]]
    for n in range(1, 4):
        joined = await join_room(server.url, code, f"P{n}", COLOURS[n])
        tokens.append(joined.json()["token"])
    people = [Client(server.url, code, token) for token in tokens]
    for client in people:
        await client.connect()
    assert (await people[0].request({"type": "teams", "pairs": [[0, 1], [2, 3]]}))["type"] == "ack"
    await say(people[0], "for P1 only", team_only=True)
    await people[1].wait_for(lambda m: m["type"] == "chat")
    # The host pairs P0 with P2 now: P2 was not a reader of that line, and must not become one.
    assert (await people[0].request({"type": "teams", "pairs": [[0, 2], [1, 3]]}))["type"] == "ack"
    assert all(m["type"] != "chat" for m in people[2].received)
    again = Client(server.url, code, tokens[2])
    welcome = await again.connect()
    for client in [*people, again]:
        await client.close()
    assert [line["text"] for line in welcome["chat"]] == []
