"""A sound as the clue (issue 36), in Chromium with a fake microphone: on a 360-px phone the
storyteller holds the record button (a countdown shows what is left), listens back and tells with
the sound and no words; the other phone plays it ("Listen to Mara's clue"), the TV plays it after a
first tap, and the album at the game's end plays it again. The lobby says the bot cannot hear it.
Over plain http on the LAN (no secure context) the button is not offered and one line says why."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

from .conftest import CHROMIUM, CHROMIUM_ARGS, Players
from .test_album import TV, game_over, shot
from .test_aloud import fits, in_language, reads
from .test_quiet_vote import PHONE_360, words
from .ui import add_bots, answered, create_room_by_api, enabled_hand_cards, join_in_ui, open_seat, play_until

#: A microphone that plays a beep, allowed without asking.
FAKE_MICROPHONE = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """This module's Chromium, with the fake microphone."""
    if not CHROMIUM.exists():
        pytest.skip(f"the browser tests need Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, *FAKE_MICROPHONE])
        yield launched
        launched.close()


def heard(page: Page, audio: Locator) -> None:
    """``audio`` (an <audio>) has loaded its sound (a duration) and played some of it, and its
    URL answers MP3."""
    audio.wait_for(state="attached")
    handle = audio.element_handle()
    page.wait_for_function("(a) => a.duration > 0 && a.played.length > 0", arg=handle, timeout=20_000)
    kind = page.evaluate("(a) => fetch(a.src).then((r) => r.headers.get('content-type'))", handle)
    assert kind == "audio/mpeg"


@pytest.mark.parametrize("language", ["en", "zh-Hant"])
def test_a_phone_records_a_sound_and_the_table_the_tv_and_the_album_play_it(players: Players, language: str) -> None:
    said = words(language)
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    code = seat["code"]
    mara = players.open(*PHONE_360, mobile=True)
    open_seat(mara, players.base, code, seat)
    ben = players.open(*PHONE_360, mobile=True)
    join_in_ui(ben, players.base, code, "Ben")
    add_bots(mara, 1)
    board = players.open(*TV)
    board.goto(f"{players.base}/rules")
    board.evaluate("(language) => localStorage.setItem('fabula.language', language)", language)
    board.goto(f"{players.base}/room/{code}/board")
    for page in (mara, ben):
        in_language(page, language)
    # the lobby: sound clues are on, and the bot cannot hear them
    expect(ben.locator(".sound-clues-on")).to_have_text(said["lobby.sound_clues_on"])
    expect(mara.locator("input[name=sound-clues]")).to_be_checked()
    expect(mara.locator(".bots-cannot-hear")).to_have_text(said["lobby.bots_cannot_hear_sounds"])
    fits(mara)
    shot(mara, f"sound-{language}-360-lobby", full_page=True)
    mara.get_by_role("button", name=said["lobby.start"]).click()
    for page in (mara, ben):
        page.locator(".table-screen").wait_for()

    # Mara holds the button: it counts down while she holds it; released, the sound is sent
    enabled_hand_cards(mara).first.click()
    record = mara.locator(".recorder .record")
    expect(record).to_contain_text(said["sound.hold_to_record"].replace("{seconds}", "10"))
    record.evaluate("(el) => { el.markedHere = true; }")
    box = record.bounding_box()
    assert box is not None
    mara.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    mara.mouse.down()
    expect(record).to_have_class("small record recording")
    assert record.evaluate("(el) => el.markedHere === true"), "the button under the finger was replaced"
    counting = said["sound.recording"].split("{seconds}")[0].strip()
    expect(record).to_contain_text(counting)
    shot(mara, f"sound-{language}-360-recording")
    mara.wait_for_timeout(2500)  # (a hold of a few seconds: what is measured is the sound's length)
    mara.mouse.up()
    ready = said["sound.ready"].split("{seconds}")[0]
    expect(mara.locator(".recorder .record-state")).to_contain_text(ready, timeout=20_000)
    expect(mara.locator(".recorder .listen-back")).to_be_visible()
    expect(mara.locator(".recorder .record-again")).to_have_text(said["sound.record_again"])
    fits(mara)
    shot(mara, f"sound-{language}-360-ready")
    reply = answered(mara, mara.locator("form.action-bar button[type=submit]").click)
    assert reply["type"] == "ack", reply

    # Ben's phone: the clue is a button that plays Mara's sound
    listen = ben.locator(".clue.aloud .sound-clue .sound-play")
    reads(listen, "▶" + said["sound.listen"].replace("{name}", "Mara"))
    expect(ben.locator(".clue.aloud .aloud-bots")).to_have_text(said["table.bots_cannot_hear"])
    listen.click()
    heard(ben, ben.locator(".clue.aloud .sound-clue audio"))
    fits(ben)
    shot(ben, f"sound-{language}-360-listen")

    # the TV: a first tap allows sound and plays it; then the button plays it again
    tv_button = board.locator(".board-clue .board-sound .sound-play")
    expect(tv_button).to_have_text(said["board.allow_sound"])
    shot(board, f"sound-{language}-1920-board")
    tv_button.click()
    heard(board, board.locator(".board-clue .board-sound audio"))
    expect(tv_button).to_have_text(said["sound.play_again"])

    for page in (mara, ben):  # (the helpers that play on read the English buttons)
        in_language(page, "en")
    play_until([mara, ben], lambda: game_over(mara) and game_over(ben), timeout=90)
    in_language(ben, language)
    clue = ben.locator(".game-over .album .album-round .reveal-clue").first
    expect(clue).to_contain_text(said["album.sound_clue"])
    expect(clue).to_contain_text("Mara")
    clue.locator(".sound-play").click()
    heard(ben, clue.locator("audio"))
    shot(ben, f"sound-{language}-360-album", full_page=True)

    # the replay keeps the round's play button (paused, and back at the first round, to look)
    ben.locator(".game-over .replay-open").click()
    pause = ben.locator(".replay-play")
    if pause.get_attribute("aria-pressed") == "true":
        pause.click()
    back = ben.locator(".replay-prev")
    while back.is_enabled():
        back.click()
    replayed = ben.locator(".replay-clue .sound-play")
    expect(replayed).to_be_visible()
    replayed.click()
    heard(ben, ben.locator(".replay-clue .sound-clue audio"))
    shot(ben, f"sound-{language}-360-replay")
    shot(board, f"sound-{language}-1920-board-over")


def test_over_plain_http_on_the_lan_the_record_button_is_not_offered(players: Players) -> None:
    """No secure context, no microphone: one line says why (the page is told it is not secure)."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    page = players.open(*PHONE_360, mobile=True)
    page.add_init_script("Object.defineProperty(window, 'isSecureContext', { value: false })")
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, 2)
    page.get_by_role("button", name="Start").click()
    page.locator(".table-screen").wait_for()
    enabled_hand_cards(page).first.click()
    expect(page.locator(".record-off")).to_have_text(words("en")["sound.needs_secure"])
    expect(page.locator(".recorder .record")).to_have_count(0)
    shot(page, "sound-en-360-no-secure-context")
