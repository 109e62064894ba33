"""What a play-test of issue 36's three group games found (a party game with a crowd in streamer
mode, a same-room game with clues said aloud in 繁體中文 and 简体中文, a remote game with sound
clues), each as the behaviour a person at the table expects: the host of a streamer's room sees
on their phone's first screen that someone asks to join; the storyteller's clue field shows its
whole hint on a 360-px phone, in every language; the TV's replay of a sound clue has a play button
readable from three metres, as every other word on the TV."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import Players
from .test_album import PHONE_360, TV, game_over, shot, too_small
from .test_pause import in_language
from .test_sound_clue import FAKE_MICROPHONE, hold_to_record
from .ui import (
    add_bots,
    answered,
    create_room_by_api,
    enabled_hand_cards,
    open_seat,
    play_until,
    start_game,
)

#: This module's Chromium has a fake microphone (`conftest.browser`): a sound clue is recorded below.
CHROMIUM_EXTRA_ARGS = FAKE_MICROPHONE


def test_the_host_sees_a_join_request_on_the_phones_first_screen(players: Players) -> None:
    """Streamer mode: a phone asks to join. On the host's 360-px phone the request (its name and
    "Let in") is on the lobby's first screen, by the Start button — not below the house rules and
    settings, where the host, told "add a bot, or wait for friends", would not scroll to it."""
    seat = create_room_by_api(players.base, "Mara", streamer=True)
    code = seat["code"]
    host = players.open(*PHONE_360, mobile=True)
    open_seat(host, players.base, code, seat)
    phone = players.open(*PHONE_360, mobile=True)
    phone.goto(f"/join/{code}")
    phone.fill("input[name=name]", "Ben")
    phone.locator("form .actions button.primary").click()
    expect(phone.locator(".waiting h2")).to_be_visible()

    ask = host.locator(".ask", has_text="Ben")
    expect(ask).to_be_attached()
    assert host.evaluate("() => window.scrollY") == 0, "(the host has not scrolled)"
    shot(host, "crowd-play-host-ask-360")
    expect(ask.get_by_role("button", name="Let in")).to_be_in_viewport()
    ask.get_by_role("button", name="Let in").click()
    expect(phone.locator(".lobby")).to_be_visible()


#: The width of a field's placeholder in its own font, against the room the field has for it.
PLACEHOLDER_FIT = """(field) => {
    const style = getComputedStyle(field);
    const context = document.createElement("canvas").getContext("2d");
    context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = field.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { text: field.placeholder, width: context.measureText(field.placeholder).width, room };
}"""


@pytest.mark.parametrize("language", ["en", "zh-Hant", "zh-Hans"])
def test_the_clue_fields_hint_is_whole_on_a_360_px_phone(players: Players, language: str) -> None:
    """The storyteller's clue field on a 360-px phone (sound clues on, the "Tell" button beside it)
    shows its whole hint, not "Your clue: a word, a sound, a sen" — nor, said aloud, its hint for
    the optional words."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    host = players.open(*PHONE_360, mobile=True)
    open_seat(host, players.base, seat["code"], seat)
    add_bots(host, 2)
    start_game(host)
    in_language(host, language)
    field = host.locator(".clue-input")
    enabled_hand_cards(host).first.click()
    shot(host, f"crowd-play-clue-field-{language}-360")
    fit = field.evaluate(PLACEHOLDER_FIT)
    assert fit["width"] <= fit["room"], f"the hint is cut: {fit}"
    host.locator(".aloud-toggle").click()
    fit = field.evaluate(PLACEHOLDER_FIT)
    assert fit["width"] <= fit["room"], f"said aloud, the hint is cut: {fit}"


def test_the_tvs_replay_of_a_sound_clue_has_a_play_button_readable_from_three_metres(players: Players) -> None:
    """A game with a sound clue, at its end: the TV's replay of that round has the clue's play
    button at 24 px or more, as every word on the TV (UX.md: readable from three metres)."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    code = seat["code"]
    mara = players.open(*PHONE_360, mobile=True)
    open_seat(mara, players.base, code, seat)
    add_bots(mara, 2)
    start_game(mara)
    enabled_hand_cards(mara).first.click()
    hold_to_record(mara, 1.5)
    reply = answered(mara, mara.locator("form.action-bar button[type=submit]").click)
    assert reply["type"] == "ack", reply
    play_until([mara], lambda: game_over(mara), timeout=90)

    tv = players.open(*TV)
    tv.goto(f"/room/{code}/board")
    board = tv.locator(".board-replay .replay")
    expect(board.locator(".replay-where")).to_have_text("Final scores")
    board.get_by_role("button", name="Pause").click()
    for _ in range(3):
        board.get_by_role("button", name="Previous round").click()
    expect(board.locator(".replay-where")).to_contain_text("Round 1 of 3")
    button = board.locator(".replay-clue .sound-play")
    expect(button).to_be_visible()
    # (the cards flip in: the picture is taken once they have)
    tv.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    shot(tv, "crowd-play-tv-replay-sound")
    assert not too_small(tv, ".board-replay"), "nothing under 24 px on the TV"
