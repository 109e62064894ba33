"""The page changes in place (`dom.show`), and what a group play-test of it found: a code with a
symbol said nothing, the reveal took the keys from a chat line being typed, the party storyteller
was told a vote could be changed and could not, a new game opened scrolled down, and the tab's
title kept the old language."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from .conftest import Players
from .test_album import alone_with_bots, game_over
from .ui import (
    add_bots,
    answered,
    create_room_by_api,
    enabled_table_cards,
    open_seat,
    play_cards,
    play_until,
    start_game,
    tell,
    vote,
)


def test_the_button_under_a_finger_is_the_same_element_after_a_state(players: Players) -> None:
    page, _ = alone_with_bots(players, "Mara", 2, options={"first_storyteller": 0})
    # a card the storyteller keeps: the state after the clue changes the whole table around it
    handle = page.locator(".hand-card .card-button").last.element_handle()
    assert handle is not None
    page.evaluate("(button) => { button.marked = true; }", handle)  # (a property: the page's own attributes are its)
    seq = int(page.evaluate("() => document.documentElement.dataset.seq"))
    tell(page, "A long journey")
    page.wait_for_function(f"() => Number(document.documentElement.dataset.seq) > {seq}")
    assert page.evaluate("(button) => button.isConnected && button.marked === true", handle)


def test_a_room_code_with_a_symbol_is_said_to_be_wrong(players: Players) -> None:
    page = players.phone()
    page.goto("/")
    page.locator("input.code-input").fill("zz9q!")
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page.locator(".join-panel p.error")).to_have_text(
        "A room code has only letters and digits, like KX7PQ: ! is not one of them."
    )
    expect(page).to_have_url(players.base + "/")
    page.get_by_role("button", name="Show the board").click()
    expect(page.locator(".join-panel p.error")).to_contain_text("! is not one of them")
    page.locator("input.code-input").fill("zz9q")  # typing again clears the message
    expect(page.locator(".join-panel p.error")).to_have_count(0)


def test_the_reveal_leaves_a_chat_line_being_typed_alone(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    code = seat["code"]
    joined = httpx.post(f"{players.base}/api/rooms/{code}/join", json={"name": "Fay", "colour": "pink"})
    mara, fay = players.open(), players.phone()
    open_seat(mara, players.base, code, seat)
    open_seat(fay, players.base, code, joined.json())
    add_bots(mara, 1)
    start_game(mara, [fay])
    tell(mara, "A long journey")
    play_cards(fay)
    expect(fay.locator(".action-bar button.primary", has_text="Vote")).to_be_visible(timeout=30_000)
    mara.locator("details.chat summary").click()
    chat = mara.locator("details.chat input[name=chat]")
    chat.click()
    mara.keyboard.type("what a ")
    vote(fay)  # the last vote: the reveal opens on Mara's page while she types
    expect(mara.locator(".overlay .reveal")).to_be_visible()
    mara.keyboard.type("clever clue")
    expect(chat).to_have_value("what a clever clue")
    expect(mara.locator(".overlay .reveal")).to_be_visible()


def test_the_party_storyteller_changes_the_vote_made(players: Players) -> None:
    page, _ = alone_with_bots(players, "Hal", 5, mode="party", options={"first_storyteller": 0})
    tell(page, "Far away")
    play_cards(page)
    vote(page, 0)
    voted = page.locator(".table-card", has=page.locator(".token-mark.sent"))
    expect(voted).to_have_count(1)
    first = voted.locator(".slot-number").inner_text()
    page.get_by_role("button", name="Change my vote").click()
    # a tap now moves the vote, not the red token
    others = [c for c in enabled_table_cards(page).all() if c.locator(".slot-number").inner_text() != first]
    others[0].click()
    expect(page.locator(".table-card .red-mark")).to_have_count(0)
    reply = answered(page, page.locator(".action-bar button.primary", has_text="Vote").click)
    assert reply["type"] == "ack", reply
    expect(voted.locator(".slot-number")).not_to_have_text(first)
    # and then the red token, as before
    enabled_table_cards(page).first.click()
    expect(page.locator(".table-card .red-mark")).to_have_count(1)


def test_a_new_game_opens_at_its_top_and_the_title_follows_the_language(players: Players) -> None:
    page, _ = alone_with_bots(players, "Mara", 2, options={"first_storyteller": 0, "storyteller_cycles": 1})
    play_until([page], lambda: game_over(page), timeout=60)
    page.mouse.wheel(0, 2000)
    page.wait_for_function("() => window.scrollY > 100")
    page.get_by_role("button", name="Play again").click()
    expect(page.locator(".table-screen")).to_be_visible()
    page.wait_for_function("() => window.scrollY === 0")
    expect(page).to_have_title("● Your move · Fabula")  # the storyteller's clue
    page.select_option("select.language", "zh-Hant")
    expect(page).to_have_title("● 輪到你了 · Fabula")


def test_another_language_keeps_what_the_home_form_holds(players: Players) -> None:
    page = players.phone()
    page.goto("/")
    page.fill("input[name=name]", "Mara")
    page.locator("input[name=colour][value=orange]").check(force=True)
    page.select_option("select.language", "zh-Hans")
    expect(page.get_by_role("button", name="创建房间")).to_be_visible()
    expect(page.locator("input[name=name]")).to_have_value("Mara")
    expect(page.locator("input[name=colour][value=orange]")).to_be_checked()
