"""A clue said aloud (issue 36): on a 360-px phone the storyteller chooses "I said it aloud" and
tells without typing a word; the other phone and the TV board say to listen to her (and that the
bot cannot hear it); the round's reveal and the album at the game's end show "(said aloud)". In
English and in a Chinese language."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from .conftest import Players
from .test_album import TV, game_over, shot
from .test_quiet_vote import PHONE_360, words
from .ui import add_bots, answered, create_room_by_api, enabled_hand_cards, join_in_ui, open_seat, play_until


def in_language(page: Page, language: str) -> None:
    page.select_option("select.language", language)


def reads(locator: Locator, text: str) -> None:
    """``locator`` shows ``text`` (the client sets a space between Chinese and a Latin name)."""
    pattern = r"\s*".join(re.escape(char) for char in text.replace(" ", ""))
    expect(locator).to_have_text(re.compile(f"^\\s*{pattern}\\s*$"))


def fits(page: Page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360[0], "nothing wider than the phone"


@pytest.mark.parametrize("language", ["en", "zh-Hant"])
def test_a_clue_said_aloud_without_words_asks_everyone_to_listen(players: Players, language: str) -> None:
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
    mara.get_by_role("button", name=said["lobby.start"]).click()
    for page in (mara, ben):
        page.locator(".table-screen").wait_for()

    # Mara tells aloud: the field stays the same field, its words now optional
    field = mara.locator(".clue-input")
    expect(field).to_have_attribute("placeholder", said["table.clue_placeholder"])
    enabled_hand_cards(mara).first.click()
    toggle = mara.locator(".aloud-toggle")
    expect(toggle).to_have_text(said["table.said_aloud"])
    expect(toggle).to_have_attribute("aria-pressed", "false")
    field.evaluate("(el) => { el.markedHere = true; }")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(field).to_have_attribute("placeholder", said["table.aloud_placeholder"])
    assert field.evaluate("(el) => el.markedHere === true"), "the field was replaced, not updated in place"
    expect(mara.locator(".aloud-hint")).to_have_text(said["table.aloud_hint"])
    fits(mara)
    shot(mara, f"aloud-{language}-360-form")
    reply = answered(mara, mara.locator("form.action-bar button[type=submit]").click)
    assert reply["type"] == "ack", reply

    listen = said["table.listen"].replace("{name}", "Mara")
    reads(ben.locator(".clue.aloud .listen"), listen)
    expect(ben.locator(".clue.aloud .aloud-bots")).to_have_text(said["table.bots_cannot_hear"])
    expect(ben.locator(".status-line")).to_contain_text(said["table.heard_clue"])
    expect(mara.locator(".clue.aloud .listen")).to_have_text(said["table.you_said_aloud"])
    reads(board.locator(".board-clue.aloud .listen"), listen)
    expect(board.locator(".board-clue.aloud .aloud-bots")).to_have_text(said["table.bots_cannot_hear"])
    fits(ben)
    shot(ben, f"aloud-{language}-360-listen")
    shot(board, f"aloud-{language}-1920-board")

    for page in (mara, ben):  # (the helpers that play on read the English buttons)
        in_language(page, "en")
    play_until([mara, ben], lambda: game_over(mara) and game_over(ben), timeout=90)
    in_language(ben, language)
    album = ben.locator(".game-over .album")
    aloud_by = said["reveal.aloud_by"].replace("{name}", "Mara").replace("{clue}", said["album.said_aloud"])
    reads(album.locator(".album-round .reveal-clue"), aloud_by)
    fits(ben)
    shot(ben, f"aloud-{language}-360-album", full_page=True)
    shot(board, f"aloud-{language}-1920-board-over")
