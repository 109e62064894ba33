"""A room's albums agree with its log, round by round, for random games of every mode: the rounds
are what the engine revealed when the logged moves were played again, a room rebuilt from the
encoded log has the same albums, and an album names no card that was not laid on the table."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fabula.bots.random_player import random_action
from fabula.protocol.settings import RoomSettings
from fabula.rules import Game, Phase, RoundResult, action_from_json, numbered_deck
from fabula.rules.events import RoundScored
from fabula.server.entries import Acted, AnyEntry, Created, Ended, Joined, Started, decode, encode
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS
from fabula.story import Album

from ..rules.play import TABLES, card_leaves, examples, option_sets


def played_room(
    mode: str, seats: int, options: dict[str, Any], seed: int, rng: random.Random, *, games: int
) -> tuple[Room, list[AnyEntry]]:
    """A room of ``seats`` members (some bots) that played ``games`` games with random moves, some
    made by a bot for an absent person, some games ended early by the host."""
    room = Room("ALBUM")
    log: list[AnyEntry] = []

    def apply(entry: AnyEntry) -> None:
        log.append(room.apply(entry))

    apply(Created(at=0.0, settings=RoomSettings(mode=mode, options=options)))
    for member in range(seats):
        bot = "easy" if member and rng.random() < 0.3 else None
        apply(
            Joined(at=1.0, member=member, name=f"P{member}", colour=COLOURS[member], token_hash=f"h{member}", bot=bot)
        )
    deck = list(numbered_deck(84))
    at = 2.0
    for _ in range(games):
        order = list(room.members)
        rng.shuffle(order)
        seating = room.default_seating() if mode == "teams" else order
        apply(Started(at=at, seed=seed + int(at), seating=seating, deck=deck))
        game = room.game
        assert game is not None
        stop_after = rng.choice([None, None, rng.randint(1, 40)])
        moves = 0
        while game.phase is not Phase.OVER:
            at += 1.0
            if stop_after is not None and moves == stop_after:
                apply(Ended(at=at, by=room.host))
                break
            seat = rng.choice(game.awaiting)
            action = random_action(game, seat, rng)
            auto = room.members[room.seating[seat]].bot is None and rng.random() < 0.2
            apply(
                Acted(
                    at=at,
                    member=room.seating[seat],
                    action=action.to_json(),
                    auto=auto,
                    because="away" if auto else None,
                )
            )
            moves += 1
    return room, log


def replayed(log: list[AnyEntry]) -> list[tuple[list[RoundResult], list[list[int]]]]:
    """Each game's revealed rounds, and per round the people's seats a bot moved for, found by
    playing the logged moves again on fresh engines."""
    games: list[tuple[list[RoundResult], list[list[int]]]] = []
    game: Game | None = None
    settings = RoomSettings()
    seating: list[int] = []
    bots: set[int] = set()
    stood: set[int] = set()
    for entry in log:
        if isinstance(entry, Created):
            settings = entry.settings
        elif isinstance(entry, Joined) and entry.bot is not None:
            bots.add(entry.member)
        elif isinstance(entry, Started):
            game = Game.new(
                settings.mode, len(entry.seating), options=settings.options, seed=entry.seed, deck=entry.deck
            )
            seating, stood = entry.seating, set()
            games.append(([], []))
        elif isinstance(entry, Acted):
            assert game is not None
            seat = seating.index(entry.member)
            if entry.auto and entry.member not in bots:
                stood.add(seat)
            for event in game.apply(action_from_json({**entry.action, "seat": seat})):
                if isinstance(event, RoundScored):
                    games[-1][0].append(event.result)
                    games[-1][1].append(sorted(stood))
                    stood = set()
    return games


@examples(60)
@given(st.data())
def test_albums_agree_with_the_log_round_by_round(data: st.DataObject) -> None:
    mode, seats = data.draw(st.sampled_from(TABLES))
    options = data.draw(option_sets(mode, seats))
    options.pop("first_storyteller", None)  # (a room checks it against the members present: none at creation)
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    room, log = played_room(
        mode, seats, options, data.draw(st.integers(0, 2**40)), rng, games=data.draw(st.integers(1, 2))
    )

    assert [(album.rounds, album.stand_ins) for album in room.albums] == replayed(log)
    assert [album.number for album in room.albums] == list(range(1, room.games_started + 1))
    seatings = [entry.seating for entry in log if isinstance(entry, Started)]
    for album, seating in zip(room.albums, seatings, strict=True):
        assert album.finished
        assert album.ended_at is not None
        assert len(album.stand_ins) == len(album.rounds)
        assert [p.name for p in album.players] == [f"P{m}" for m in seating]
        lines = album.score_lines()
        assert album.outcome is not None
        for seat, line in enumerate(lines):
            assert line[0] == 0
            assert line[-1] == album.outcome.scores[seat]
        # only cards that were laid on a table, and every round's owners and votes as revealed
        laid = {card for result in album.rounds for card in result.table}
        assert card_leaves(album.to_json(), set(numbered_deck(84))) <= laid
        for result in album.rounds:
            assert sorted(result.table) == sorted(set(result.table))
    rebuilt = Room("ALBUM")
    for entry in log:
        rebuilt.apply(decode(encode(entry)))
    assert [album.to_json() for album in rebuilt.albums] == [album.to_json() for album in room.albums]


def test_an_album_is_json_with_every_round_and_the_outcome() -> None:
    room, _ = played_room("odyssey", 4, {"storyteller_cycles": 1}, 7, random.Random(3), games=1)
    album = room.albums[0]
    found = album.to_json()
    assert found["number"] == 1
    assert found["mode"] == "odyssey"
    assert [r["round"] for r in found["rounds"]] == list(range(1, len(album.rounds) + 1))
    assert found["outcome"]["scores"] == list(album.outcome.scores)  # type: ignore[union-attr]
    assert Album.__struct_fields__ == tuple(found)
