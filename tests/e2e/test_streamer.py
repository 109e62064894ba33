"""Streamer mode (issue 36) in the browser: the host's screen (1920 px) and the TV show the room
code masked and no QR code; the host taps the code to see it (and the QR), and taps again to hide
it; a phone at 360 px asks to join, waits ("Waiting for the host to let you in"), the host lets it
in from the lobby, and the phone is seated — in English and in 简体中文."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import Players
from .test_album import TV, shot
from .test_pause import PHONE_360, in_language
from .test_quiet_vote import words
from .ui import create_room_by_api, open_seat, saved_seats


def masked(code: str) -> str:
    return code[0] + "•" * (len(code) - 1)


def text_of(page: Page) -> str:
    return page.locator("body").inner_text()


@pytest.mark.parametrize("language", ["en", "zh-Hans"])
def test_the_code_is_masked_the_host_reveals_it_and_lets_a_phone_in(players: Players, language: str) -> None:
    said = words(language)
    seat = create_room_by_api(players.base, "Mara", streamer=True)
    code = seat["code"]
    host = players.open(*TV)
    open_seat(host, players.base, code, seat)
    in_language(host, language)
    tv = players.open(*TV)
    tv.goto(f"{players.base}/room/{code}/board")
    in_language(tv, language, "select.board-language")
    expect(tv.locator(".board-streamer")).to_have_text(said["board.streamer"])
    expect(tv.locator("h1")).to_contain_text(masked(code))
    assert code not in text_of(tv), "the TV never shows the code"
    assert tv.locator("img").count() == 0, "nor its QR code"
    expect(host.locator(".streamer-code")).to_contain_text(masked(code))
    assert code not in text_of(host)
    assert code not in host.title()
    assert host.locator("img.qr").count() == 0
    shot(host, f"streamer-host-{language}-1920")
    shot(tv, f"streamer-tv-{language}-1920")

    host.locator(".streamer-reveal").click()
    expect(host.locator(".streamer-code")).to_contain_text(code)
    expect(host.locator("img.qr")).to_be_visible()
    shot(host, f"streamer-host-revealed-{language}-1920")
    assert code not in text_of(tv), "revealed on the host's screen only"
    host.locator(".streamer-reveal").click()
    expect(host.locator("img.qr")).to_have_count(0)
    assert code not in text_of(host)

    phone = players.open(*PHONE_360, mobile=True)
    phone.goto(f"{players.base}/join/{code}")
    in_language(phone, language)
    expect(phone.locator(".streamer-note")).to_have_text(said["join.streamer"])
    phone.fill("input[name=name]", "Lin")
    phone.locator("form .actions button.primary").click()
    expect(phone.locator(".waiting h2")).to_have_text(said["wait.title"])
    shot(phone, f"streamer-phone-waiting-{language}-360")
    phone.reload()  # the request is the tab's: it waits on
    expect(phone.locator(".waiting h2")).to_have_text(said["wait.title"])
    assert saved_seats(phone) == {}, "no seat yet"

    ask = host.locator(".ask", has_text="Lin")
    expect(ask).to_be_visible()
    shot(host, f"streamer-host-ask-{language}-1920")
    ask.get_by_role("button", name=said["streamer.let_in"]).click()
    expect(host.locator(".ask")).to_have_count(0)
    expect(phone.locator(".lobby")).to_be_visible()
    expect(phone.locator(".seat", has_text="Lin")).to_be_visible()
    assert code not in text_of(phone), "a player's screen shows the code masked too"
    assert saved_seats(phone)[code]["member"] == 1
    shot(phone, f"streamer-phone-seated-{language}-360")
