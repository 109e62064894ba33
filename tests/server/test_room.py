"""The room as a pure value: every entry is checked before anything changes."""

from __future__ import annotations

import copy

import pytest

from fabula.protocol.settings import RoomSettings
from fabula.rules import RulesError, numbered_deck
from fabula.server.entries import (
    Acted,
    AnyEntry,
    Created,
    HostPassed,
    Joined,
    Left,
    Said,
    SettingsChanged,
    Started,
    TeamsSet,
    decode,
    encode,
)
from fabula.server.room import Room, clean_text
from fabula.server.room_settings import COLOURS


def room_with(members: int, mode: str = "odyssey", **options: object) -> Room:
    room = Room("TEST1")
    room.apply(Created(at=0.0, settings=RoomSettings(mode=mode, options=dict(options))))
    for n in range(members):
        room.apply(Joined(at=1.0, member=n, name=f"P{n}", colour=COLOURS[n], token_hash=f"h{n}"))
    return room


def refused(room: Room, entry: AnyEntry) -> str:
    """The code of the refusal; the room must be unchanged by it."""
    before = copy.deepcopy(room.snapshot(None)), room.seq, dict(room.members)
    with pytest.raises(RulesError) as raised:
        room.apply(entry)
    assert (room.snapshot(None), room.seq, dict(room.members)) == before
    return raised.value.code


def test_names_and_chat_are_one_line_of_plain_text() -> None:
    assert clean_text("  Ana\u202e\u200b  Lee\n", limit=24, what="name") == "Ana Lee"
    assert clean_text("<b>hi</b>", limit=24, what="name") == "<b>hi</b>", "kept as text; never interpreted"
    with pytest.raises(RulesError, match="empty"):
        clean_text(" \t\u200b ", limit=24, what="name")
    with pytest.raises(RulesError, match="at most 24"):
        clean_text("x" * 25, limit=24, what="name")
    with pytest.raises(RulesError):
        clean_text(42, limit=24, what="name")


def test_joining_is_refused_for_duplicates_unknown_colours_and_full_rooms() -> None:
    room = room_with(2)
    assert refused(room, Joined(at=2.0, member=2, name="p0", colour="grey", token_hash="x")) == "name_taken"
    assert refused(room, Joined(at=2.0, member=2, name="New", colour=COLOURS[1], token_hash="x")) == "colour_taken"
    assert refused(room, Joined(at=2.0, member=2, name="New", colour="teal", token_hash="x")) == "unknown_colour"
    assert refused(room, Joined(at=2.0, member=7, name="New", colour="grey", token_hash="x")) == "bad_member"
    full = room_with(12)
    assert refused(full, Joined(at=2.0, member=12, name="X", colour="grey", token_hash="x")) == "room_full"
    small = room_with(6, mode="classic")
    assert refused(small, Joined(at=2.0, member=6, name="X", colour="grey", token_hash="x")) == "room_full"


def test_the_first_person_hosts_and_hosting_passes_on_when_the_host_leaves() -> None:
    room = room_with(3)
    assert room.host == 0
    room.apply(Left(at=3.0, member=0))
    assert room.host == 1
    assert 0 not in room.members
    room.apply(HostPassed(at=4.0, member=2))
    assert room.host == 2


def test_settings_change_before_the_start_only_and_are_checked() -> None:
    room = room_with(3)
    assert refused(room, SettingsChanged(at=2.0, settings=RoomSettings(mode="chess"))) == "unknown_mode"
    bad_option = RoomSettings(mode="odyssey", options={"decoy_cap": "many"})
    assert refused(room, SettingsChanged(at=2.0, settings=bad_option)) == "bad_option"
    assert refused(room, SettingsChanged(at=2.0, settings=RoomSettings(vote_seconds=1))) == "bad_timer"
    assert refused(room_with(7), SettingsChanged(at=2.0, settings=RoomSettings(mode="classic"))) == "room_full"
    room.apply(SettingsChanged(at=2.0, settings=RoomSettings(mode="party")))
    assert room.settings.mode == "party"


def test_teams_seat_each_pair_opposite() -> None:
    room = room_with(6, mode="teams")
    room.apply(TeamsSet(at=2.0, pairs=[[0, 5], [1, 2]]))
    seating = room.default_seating()
    room.apply(Started(at=3.0, seed=1, seating=seating, deck=list(numbered_deck())))
    game = room.game
    assert game is not None
    assert game.rules.teams is not None
    pairs = {frozenset(room.seating[s] for s in pair) for pair in game.rules.teams}
    assert pairs == {frozenset({0, 5}), frozenset({1, 2}), frozenset({3, 4})}
    assert refused(room, TeamsSet(at=4.0, pairs=[[0, 1]])) == "game_started"


def test_bad_teams_are_refused() -> None:
    room = room_with(6, mode="teams")
    assert refused(room, TeamsSet(at=2.0, pairs=[[0, 0]])) == "bad_teams"
    assert refused(room, TeamsSet(at=2.0, pairs=[[0, 9]])) == "bad_teams"
    assert refused(room, TeamsSet(at=2.0, pairs=[[0, 1], [1, 2]])) == "bad_teams"
    assert refused(room_with(4), TeamsSet(at=2.0, pairs=[[0, 1]])) == "not_teams"


def test_a_game_move_for_another_seat_or_out_of_turn_changes_nothing() -> None:
    room = room_with(3)
    room.apply(Started(at=3.0, seed=5, seating=[0, 1, 2], deck=list(numbered_deck())))
    game = room.game
    assert game is not None
    teller = room.seating[game.storyteller]
    other = next(m for m in room.members if m != teller)
    card = game.hand(game.storyteller)[0]
    move = {"type": "tell", "card": card, "clue": "Home"}
    assert refused(room, Acted(at=4.0, member=other, action=move)) in {
        "not_your_turn",
        "wrong_phase",
        "card_not_in_hand",
    }
    spoofed = {**move, "seat": game.storyteller}
    assert refused(room, Acted(at=4.0, member=other, action=spoofed)) == "not_your_seat"
    assert refused(room, Acted(at=4.0, member=teller, action={"type": "dance"})) == "malformed"
    room.apply(Acted(at=5.0, member=teller, action=move))
    assert game.clue == "Home"
    assert room.phase_since == 5.0, "the play phase's timer counts from the clue"


def test_leaving_a_game_in_progress_leaves_the_seat_to_a_bot() -> None:
    room = room_with(3)
    room.apply(Started(at=3.0, seed=5, seating=[0, 1, 2], deck=list(numbered_deck())))
    room.apply(Left(at=4.0, member=1))
    assert room.members[1].away
    assert room.seat_of(1) == 1
    room.apply(Left(at=5.0, member=0, kicked=True))
    assert room.members[0].token_hash == "", "a kicked player's token no longer takes the seat"
    assert room.member_by_token_hash("h0") is None
    assert room.host == 2


def test_team_chat_is_for_mode_teams_and_chat_is_cleaned() -> None:
    room = room_with(3)
    assert refused(room, Said(at=2.0, member=0, text="psst", team_only=True)) == "not_teams"
    assert refused(room, Said(at=2.0, member=0, text="x" * 301)) == "message_too_long"
    room.apply(Said(at=2.0, member=0, text=" hello\x07 there "))
    assert room.chat[-1][0].text == "hello there"


def test_a_room_rebuilt_from_its_encoded_log_is_the_same_room() -> None:
    room = room_with(4)
    room.apply(Started(at=3.0, seed=9, seating=[3, 1, 0, 2], deck=list(numbered_deck())))
    log: list[AnyEntry] = [Created(at=0.0, settings=room.settings)]
    log += [Joined(at=1.0, member=n, name=f"P{n}", colour=COLOURS[n], token_hash=f"h{n}") for n in range(4)]
    log.append(Started(at=3.0, seed=9, seating=[3, 1, 0, 2], deck=list(numbered_deck())))
    rebuilt = Room("TEST1")
    for entry in log:
        rebuilt.apply(decode(encode(entry)))
    for member in range(4):
        assert rebuilt.snapshot(member) == room.snapshot(member)
