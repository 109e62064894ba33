"""Sound clues across browsers (issue 36): Firefox records the sound that Chromium plays, and plays
the sound that Chromium recorded, on a 360-px phone and on a TV whose first tap allows sound under
Firefox's own autoplay policy; WebKit (Safari's engine, as Debian's WebKitGTK) plays it on a phone
and on a TV under Safari's autoplay policy. Chromium's and Firefox's recorders make Opus in WebM,
and the server stores MP3 for every browser.

WebKitGTK's own recorder is not Safari's (GStreamer's MP4 writer, not AVFoundation's) and its
files are broken (the last fragment's header written twice, or the fragment lost): WebKit does
not record here. Safari itself is not on this machine: see docs/deploy.md.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from .conftest import Players
from .driven import DrivenPage
from .firefox import firefox_window
from .test_album import SHOTS, TV
from .test_quiet_vote import PHONE_360, words
from .test_sound_clue import heard, hold_to_record, until_her_clue
from .ui import answered, close_reveal, create_room_by_api, enabled_hand_cards, join_in_ui
from .webkit import webkit_window

#: This module's Chromium has a fake microphone too (`conftest.browser`).
CHROMIUM_EXTRA_ARGS = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]

SAID = words("en")

#: An <audio> that has a sound (a duration) and has played some of it.
PLAYED = "const a = document.querySelector(arguments[0]); return !!a && a.duration > 0 && a.played.length > 0"


def open_seat_in(page: DrivenPage, base: str, code: str, seat: dict[str, str]) -> None:
    page.go(f"{base}/rules")
    page.run(
        "localStorage.setItem('fabula.seats', JSON.stringify({[arguments[0]]: arguments[1]}))",
        code,
        {"token": seat["token"], "member": seat["member"]},
    )
    page.go(f"{base}/room/{code}")
    page.wait_for(".lobby")


def shot(page: DrivenPage, name: str) -> None:
    page.screenshot(Path(SHOTS) / f"{name}.png")


def started_with_a_bot(players: Players, seat: dict[str, str], host: DrivenPage, board: DrivenPage) -> Page:
    """The game of ``seat``'s room started by its host on ``host``, with Ben on a Chromium phone
    (returned), a bot, and the room's TV on ``board``."""
    code = seat["code"]
    open_seat_in(host, players.base, code, seat)
    ben = players.open(*PHONE_360, mobile=True)
    join_in_ui(ben, players.base, code, "Ben")
    host.until("return document.querySelectorAll('.seat').length === 2")
    host.button(SAID["lobby.add_bot"]).click()
    host.until("return document.querySelectorAll('.seat').length === 3")
    board.go(f"{players.base}/room/{code}/board")
    host.button(SAID["lobby.start"]).click()
    host.wait_for(".table-screen")
    return ben


def the_tv_waits_for_a_tap_then_plays(board: DrivenPage) -> None:
    tv_button = board.wait_for(".board-clue .board-sound .sound-play")
    assert board.text(".board-clue .board-sound .sound-play") == SAID["board.allow_sound"]
    assert not board.run(PLAYED, ".board-clue .board-sound audio")
    tv_button.click()
    board.until(PLAYED, ".board-clue .board-sound audio", timeout=20)


def test_firefox_records_a_sound_chromium_plays_and_plays_the_one_chromium_recorded(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    with firefox_window(*PHONE_360) as mara, firefox_window(*TV) as board:
        ben = started_with_a_bot(players, seat, mara, board)

        # Firefox's phone: a card, the record button held 2.5 s, released, the sound sent
        mara.wait_for(".hand-card .card-button:not([disabled])").click()
        mara.hold(mara.wait_for(".recorder .record"), 2500)
        ready = SAID["sound.ready"].split("{seconds}")[0]
        mara.until(
            "return document.querySelector('.recorder .record-state')?.innerText.includes(arguments[0])",
            ready,
            timeout=20,
        )
        # the listen-back plays the stored MP3, whose length Firefox knows (not its own recording's)
        length = "const a = document.querySelector('.recorder .listen-back'); return a.duration > 0 && a.duration"
        said = float(re.search(r"(\d+\.\d)", mara.text(".recorder .record-state")).group(1))  # type: ignore[union-attr]
        assert abs(mara.until(length) - said) < 0.2
        shot(mara, "firefox-360-sound-ready")
        mara.wait_for("form.action-bar button[type=submit]").click()

        # Chromium's phone plays it
        listen = ben.locator(".clue.aloud .sound-clue .sound-play")
        expect(listen).to_contain_text(SAID["sound.listen"].replace("{name}", "Mara"))
        listen.click()
        heard(ben, ben.locator(".clue.aloud .sound-clue audio"))

        # Firefox's TV: nothing plays until the first tap, which plays it
        the_tv_waits_for_a_tap_then_plays(board)
        shot(board, "firefox-1920-board-sound")

        # Chromium's phone tells the next round with a sound of its own
        until_her_clue(ben)
        close_reveal(ben)
        expect(ben.locator(".overlay")).to_have_count(0)
        enabled_hand_cards(ben).first.click()
        hold_to_record(ben, 1.5)
        assert answered(ben, ben.locator("form.action-bar button[type=submit]").click)["type"] == "ack"

        # Firefox's phone plays it with one tap; Firefox's TV by itself (it was allowed once)
        mara.until("return !document.querySelector('.overlay') || !!document.querySelector('.overlay button')")
        if mara.count(".overlay"):
            mara.button(SAID["reveal.continue"]).click()
        mara.wait_for(".clue.aloud .sound-clue .sound-play").click()
        mara.until(PLAYED, ".clue.aloud .sound-clue audio", timeout=20)
        shot(mara, "firefox-360-sound-listen")
        board.until(
            "return document.querySelector('.board-clue .board-sound .sound-play')?.innerText === arguments[0]",
            SAID["sound.play_again"],
        )
        board.until(PLAYED, ".board-clue .board-sound audio", timeout=20)
        assert mara.errors() == []
        assert board.errors() == []
    assert Path(os.devnull).is_char_device(), "Firefox's client removed the log file it was given: /dev/null"


def test_webkit_plays_the_sound_chromium_recorded_on_a_phone_and_on_a_tv(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 1, "storyteller_cycles": 1})
    with webkit_window(*PHONE_360) as mara, webkit_window(*TV) as board:
        ben = started_with_a_bot(players, seat, mara, board)

        # Chromium's phone tells with a sound
        enabled_hand_cards(ben).first.click()
        hold_to_record(ben, 1.5)
        assert answered(ben, ben.locator("form.action-bar button[type=submit]").click)["type"] == "ack"

        # WebKit's phone (as narrow as its window goes) plays it with one tap
        mara.wait_for(".clue.aloud .sound-clue .sound-play").click()
        mara.until(PLAYED, ".clue.aloud .sound-clue audio", timeout=20)
        assert mara.run("return document.querySelector('.clue.aloud .sound-clue audio').duration") > 1
        shot(mara, f"webkit-{mara.width}-sound-listen")

        # WebKit's TV: nothing plays until the first tap, which plays it
        the_tv_waits_for_a_tap_then_plays(board)
        shot(board, "webkit-1920-board-sound")
        assert mara.errors() == []
        assert board.errors() == []
