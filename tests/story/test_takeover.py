"""A seat taken over during a game (issue 34, bug 4): Hal plays rounds 1–3 and leaves for good, Leo
takes the seat over. The album keeps Hal's name for the rounds Hal played (also in a room rebuilt
from its log), says who took the seat over from which round, and its picture names and marks every
round by who played it, with the take-over line and the ranking that says whose points Leo carries."""

from __future__ import annotations

import random

import msgspec

from fabula.bots.random_player import random_action
from fabula.protocol.settings import RoomSettings
from fabula.rules import Phase, numbered_deck
from fabula.server.entries import Acted, AnyEntry, Created, Joined, Left, Started, decode, encode
from fabula.server.room import Room
from fabula.story import Album, Player, TakeOver
from fabula.story.picture import Layout, layout
from fabula.story.words import Words

HOST, HAL, BOT, LEO = 0, 1, 2, 3


def taken_over_room(seed: int = 5, *, leave_after: int = 3) -> tuple[Room, list[AnyEntry]]:
    """Mara (the host), Hal and a bot play (Hal in seat 1); after round ``leave_after`` Hal leaves for good and
    Leo takes his seat over; the game is played to its end with random moves."""
    rng = random.Random(seed)
    room = Room("TAKE")
    log: list[AnyEntry] = []

    def apply(entry: AnyEntry) -> None:
        log.append(room.apply(entry))

    apply(Created(at=0.0, settings=RoomSettings(mode="odyssey", options={"target_score": 12})))
    apply(Joined(at=1.0, member=HOST, name="Mara", colour="red", token_hash="h0"))
    apply(Joined(at=1.0, member=HAL, name="Hal", colour="blue", token_hash="h1"))
    apply(Joined(at=1.0, member=BOT, name="Bot Pink", colour="pink", token_hash="h2", bot="easy"))
    apply(Started(at=2.0, seed=seed, seating=[HOST, HAL, BOT], deck=list(numbered_deck(84))))
    game = room.game
    assert game is not None
    at = 3.0
    left = False
    while game.phase is not Phase.OVER:
        if not left and game.round == leave_after + 1:
            apply(Left(at=at, member=HAL, for_good=True, by=HAL))
            apply(Joined(at=at, member=LEO, name="Leo", colour="blue", token_hash="h3", replaces=HAL))
            left = True
        at += 1.0
        seat = rng.choice(game.awaiting)
        apply(Acted(at=at, member=room.seating[seat], action=random_action(game, seat, rng).to_json()))
    assert left, "the game ended before Hal left"
    return room, log


def test_the_album_names_each_round_by_who_played_it_and_a_rebuilt_room_agrees() -> None:
    room, log = taken_over_room()
    album = room.albums[0]
    assert len(album.rounds) > 3
    assert [p.name for p in album.players] == ["Mara", "Leo", "Bot Pink"]  # the seats' last players
    assert album.takeovers == [
        TakeOver(seat=1, round=4, former=Player(1, "Hal", "blue", None), player=Player(1, "Leo", "blue", None))
    ]
    for result in album.rounds:
        assert album.players_in(result.round)[1].name == ("Hal" if result.round <= 3 else "Leo")
    # the seat's score goes on: Leo carries what Hal scored
    assert album.score_lines()[1][3] == album.rounds[2].scores[1]
    # a restart: the room rebuilt from its encoded log has the same album, take-over included
    rebuilt = Room("TAKE")
    for entry in log:
        rebuilt.apply(decode(encode(entry)))
    assert rebuilt.albums[0].to_json() == album.to_json()
    assert album.to_json()["takeovers"][0]["former"]["name"] == "Hal"
    assert album.summary().takeovers == album.takeovers


def marks_of(page: Layout, round_number: int) -> list[str]:
    return page.texts("mark", round_number)


def test_the_picture_names_and_marks_every_round_by_who_played_it() -> None:
    room, _ = taken_over_room()
    album = room.albums[0]
    say = Words("en")
    page = layout(album)
    # the line above round 4's row, and the ranking says whose points Leo carries
    assert page.texts("took_over", 4) == ["Leo took over Hal's seat from round 4"]
    assert page.texts("took_over") == ["Leo took over Hal's seat from round 4"]
    assert "Leo (took over from Hal in round 4)" in page.texts("ranked")
    assert "Hal" not in page.texts("ranked")
    for result in album.rounds:
        number = result.round
        who = "Hal" if number <= 3 else "Leo"
        # every row has each seat's chip with its rabbit's mark: Hal's H, then Leo's L
        marks = marks_of(page, number)
        assert ("H" in marks, "L" in marks) == (who == "Hal", who == "Leo"), (number, marks)
        if result.storyteller == 1:
            assert page.texts("storyteller", number) == [who]
        # one round's own picture: the owners of the cards, and each side's points
        one = layout(album, round_number=number)
        owners = one.texts("owner", number)
        assert any(who in owner for owner in owners), (number, owners)
        assert not any(("Leo" if who == "Hal" else "Hal") in owner for owner in owners)
        scorers = one.texts("scorer", number)
        assert any(scorer.startswith(who) for scorer in scorers), scorers
        took_over = [say("album.took_over", name="Leo", former="Hal", round=4)] if number == 4 else []
        assert one.texts("took_over", number) == took_over


def test_the_picture_says_it_in_chinese_and_a_bots_seat_taken_over_is_named_as_the_bot_before() -> None:
    room, _ = taken_over_room()
    raw = room.albums[0].to_json()
    # the seat was the dark green bot's before Leo took it over
    bot = {"name": "Bot Dark Green", "colour": "dark green", "bot": "easy"}
    raw["takeovers"][0]["former"].update(bot)
    for player in (raw["players"][1], raw["takeovers"][0]["player"]):
        player["colour"] = "dark green"
    album = msgspec.convert(raw, Album)
    page = layout(album, language="zh-Hant")
    assert page.texts("took_over", 4) == ["Leo 從第 4 輪起接替 深綠色機器人 的座位"]
    assert "Leo（第 4 輪起接替 深綠色機器人）" in page.texts("ranked")
    first = next(result for result in album.rounds if result.storyteller == 1)
    if first.round <= 3:
        assert page.texts("storyteller", first.round) == ["深綠色機器人"]
