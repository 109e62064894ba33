"""A sound as the clue (issue 36), in Chromium with a fake microphone: on a 360-px phone the
storyteller holds the record button (a countdown shows what is left), listens back and tells with
the sound and no words; the other phone plays it ("Listen to Mara's clue"), the TV plays it after a
first tap, and the album at the game's end plays it again. The lobby says the bot cannot hear it.
Over plain http on the LAN (no secure context) the button is not offered and one line says why."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .conftest import Players
from .test_album import TV, game_over, shot
from .test_aloud import fits, in_language, reads
from .test_audience import join_audience
from .test_quiet_vote import PHONE_360, words
from .ui import (
    _made_here,
    _remember,
    add_bots,
    answered,
    awaited,
    close_reveal,
    create_room_by_api,
    enabled_hand_cards,
    join_in_ui,
    open_seat,
    play_cards,
    play_until,
    vote,
)

#: A microphone that plays a beep, allowed without asking.
FAKE_MICROPHONE = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
#: This module's Chromium has it (`conftest.browser`).
CHROMIUM_EXTRA_ARGS = FAKE_MICROPHONE


def hold_to_record(page: Page, seconds: float = 2.5) -> None:
    """Hold the record button ``seconds`` (by the mouse: pointer events, as a finger sends) and
    wait until the sound is sent."""
    record = page.locator(".recorder .record")
    box = record.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    expect(record).to_have_class("small record recording")
    page.wait_for_timeout(seconds * 1000)  # (what is measured is the sound's length, not this wait)
    page.mouse.up()
    ready = words("en")["sound.ready"].split("{seconds}")[0]
    expect(page.locator(".recorder .record-state")).to_contain_text(ready, timeout=20_000)


def hold_with_a_finger(page: Page, target: Locator, seconds: float) -> None:
    """Touch ``target`` with a finger for ``seconds`` (the touch events a phone's screen sends,
    through Chromium's DevTools: the tap, or long tap, that follows the release included)."""
    box = target.bounding_box()
    assert box is not None
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    screen = page.context.new_cdp_session(page)
    screen.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    page.wait_for_timeout(seconds * 1000)
    screen.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    screen.detach()


def heard(page: Page, audio: Locator) -> None:
    """``audio`` (an <audio>) has loaded its sound (a duration) and played some of it, and its
    URL answers MP3."""
    audio.wait_for(state="attached")
    handle = audio.element_handle()
    page.wait_for_function("(a) => a.duration > 0 && a.played.length > 0", arg=handle, timeout=20_000)
    kind = page.evaluate("(a) => fetch(a.src).then((r) => r.headers.get('content-type'))", handle)
    assert kind == "audio/mpeg"


def listens_to_what_was_stored(page: Page) -> None:
    """The listen-back plays the stored MP3 (what the table will hear): it knows its length, the
    one the line says (Firefox's own recording does not know it: `test_sound_engines.py`)."""
    listen_back = page.locator(".recorder .listen-back")
    said = re.search(r"(\d+\.\d)", page.locator(".recorder .record-state").inner_text())
    assert said is not None
    handle = listen_back.element_handle()
    page.wait_for_function("(a) => a.duration > 0 && Number.isFinite(a.duration)", arg=handle)
    assert abs(page.evaluate("(a) => a.duration", handle) - float(said.group(1))) < 0.2


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
    crowd = join_audience(players, code, "Ada")  # (in English: the helper reads its buttons)
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
    listens_to_what_was_stored(mara)
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

    # the audience's phone plays it too
    crowd_listen = crowd.locator(".clue.aloud .sound-clue .sound-play")
    reads(crowd_listen, "▶" + words("en")["sound.listen"].replace("{name}", "Mara"))
    crowd_listen.click()
    heard(crowd, crowd.locator(".clue.aloud .sound-clue audio"))
    shot(crowd, f"sound-{language}-360-audience")

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
    crowd_clue = crowd.locator(".album .album-round .reveal-clue").first
    expect(crowd_clue).to_contain_text(words("en")["album.sound_clue"])
    crowd_clue.locator(".sound-play").click()
    heard(crowd, crowd_clue.locator("audio"))
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


def until_her_clue(page: Page, timeout: float = 90) -> None:
    """Play ``page``'s cards and votes (never a clue) until it is her turn to tell again."""
    deadline = time.monotonic() + timeout
    while not page.locator(".clue-input").count():
        assert time.monotonic() < deadline, "her turn to tell did not come in time"
        if close_reveal(page) or not awaited(page):
            page.wait_for_timeout(40)
            continue
        bar = page.locator(".action-bar")
        for move, label, make in (("play", "^Play", play_cards), ("vote", "^Vote", vote)):
            button = bar.locator("button.primary", has_text=re.compile(label))
            if button.count() and not _made_here(page, move):
                round_text = page.locator(".table-head .round").inner_text()
                try:
                    make(page)
                except PlaywrightTimeoutError:  # the table went on meanwhile
                    break
                _remember(page, move, round_text)
                break
        else:
            page.wait_for_timeout(40)


def test_once_allowed_the_tv_plays_each_new_sound_by_itself(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 2})
    mara = players.open(*PHONE_360, mobile=True)
    open_seat(mara, players.base, seat["code"], seat)
    add_bots(mara, 2)
    board = players.open(*TV)
    board.goto(f"{players.base}/room/{seat['code']}/board")
    mara.get_by_role("button", name="Start").click()
    mara.locator(".table-screen").wait_for()
    enabled_hand_cards(mara).first.click()
    hold_to_record(mara, 1.5)
    assert answered(mara, mara.locator("form.action-bar button[type=submit]").click)["type"] == "ack"
    first = board.locator(".board-clue .board-sound")
    first.locator(".sound-play").click()  # the one tap that allows sound
    heard(board, first.locator("audio"))

    until_her_clue(mara)
    close_reveal(mara)  # (round 3's, shown as her turn came)
    expect(mara.locator(".overlay")).to_have_count(0)
    enabled_hand_cards(mara).first.click()
    hold_to_record(mara, 1.5)
    assert answered(mara, mara.locator("form.action-bar button[type=submit]").click)["type"] == "ack"
    later = board.locator(".board-clue .board-sound")
    expect(later.locator(".sound-play")).to_have_text(words("en")["sound.play_again"])
    heard(board, later.locator("audio"))  # played with no tap


def test_a_finger_held_on_record_keeps_the_sound_though_record_again_comes_under_it(players: Players) -> None:
    """Found by a group's play on a 360-px phone: the clue bar stuck to the screen's foot, the
    recording to listen back to and "Record again" took the record button's place, "Record again"
    under the finger; the tap the phone makes of a release then pressed it, and 8 recordings of 9
    were thrown away with no word. Now the release makes no tap, and a tap on "Record again" just
    after a release is not taken as one."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    mara = players.open(*PHONE_360, mobile=True)
    open_seat(mara, players.base, seat["code"], seat)
    add_bots(mara, 2)
    mara.get_by_role("button", name="Start").click()
    mara.locator(".table-screen").wait_for()
    enabled_hand_cards(mara).first.click()
    # a longer page, as the host's with more lines has: the clue bar stuck to the screen's foot
    mara.evaluate(
        """() => {
            document.querySelector(".action-bar").previousElementSibling.style.marginBottom = "900px";
            window.scrollTo(0, 0);
            window.taps = [];
            document.addEventListener("click", (event) => window.taps.push(event.target.className), true);
        }"""
    )
    # a hold longer than a tap (450 ms), shorter than a long press: the phone follows it with a tap
    hold_with_a_finger(mara, mara.locator(".recorder .record"), 0.6)
    again = mara.locator(".recorder .record-again")
    again.wait_for()
    again.evaluate("(button) => button.click()")  # a tap on it just after the release: the release's own
    ready = words("en")["sound.ready"].split("{seconds}")[0]
    expect(mara.locator(".recorder .record-state")).to_contain_text(ready, timeout=20_000)
    mara.wait_for_timeout(800)
    assert mara.evaluate("window.taps") == ["small record-again"]  # (only the test's own: no tap of the release)
    expect(mara.locator(".recorder .listen-back")).to_have_count(1)
    expect(mara.locator(".recorder .record-state")).to_contain_text(ready)
    again.click()  # a tap of its own, later: that one counts
    record = mara.locator(".recorder .record")
    expect(record).to_be_visible()
    # a tap, not a hold: it records until a second tap, and says so (it said "release to stop")
    hold_with_a_finger(mara, record, 0.1)
    expect(record).to_contain_text("tap to stop")
    mara.wait_for_timeout(1000)
    hold_with_a_finger(mara, record, 0.1)
    expect(mara.locator(".recorder .record-state")).to_contain_text(ready, timeout=20_000)
    assert answered(mara, mara.locator("form.action-bar button[type=submit]").click)["type"] == "ack"
