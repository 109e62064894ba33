"""A quiet vote (issue 36): from the clue until the reveal the table's chat field is closed and
says why, in the reader's language, and opens again at the reveal; in mode teams the partner may
still be written to; the host may allow table talk in the lobby (a house rule)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

import fabula.web

from .conftest import Players
from .test_album import TV, shot
from .ui import (
    add_bots,
    answered,
    await_bot_clue,
    create_room_by_api,
    enabled_table_cards,
    join_in_ui,
    open_seat,
    play_cards,
    start_game,
)

PHONE_360 = (360, 800)
I18N = Path(fabula.web.__file__).resolve().parent / "static" / "i18n"


@cache
def words(language: str) -> dict[str, str]:
    found: dict[str, str] = json.loads((I18N / f"{language}.json").read_text(encoding="utf-8"))
    return found


def seated_with_bots(players: Players, size: tuple[int, int], bots: int, **settings: Any) -> Page:
    """A page (``size``, in English) seated in a new room with ``bots`` bots, in the lobby."""
    seat = create_room_by_api(players.base, "Mara", **settings)
    page = players.open(*size, mobile=size[0] < 600)
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, bots)
    return page


def vote_bar(page: Page) -> None:
    """Wait until the seat is asked for its vote (the table's cards may be chosen)."""
    expect(enabled_table_cards(page).first).to_be_visible(timeout=30_000)


def open_chat(page: Page) -> None:
    chat = page.locator("details.chat")
    if chat.get_attribute("open") is None:
        chat.locator("summary").click()
    chat.scroll_into_view_if_needed()


@pytest.mark.parametrize(
    ("language", "size"),
    [
        pytest.param("en", PHONE_360, id="en-360"),
        pytest.param("zh-Hant", PHONE_360, id="zh-Hant-360"),
        pytest.param("zh-Hans", TV, id="zh-Hans-1920"),
    ],
)
def test_the_table_chat_is_closed_with_the_reason_during_the_vote_and_opens_at_the_reveal(
    players: Players, language: str, size: tuple[int, int]
) -> None:
    # a bot tells: this seat plays, then votes, and the vote waits for it; then it tells, and the
    # table may talk about the reveal while it thinks
    page = seated_with_bots(players, size, 2, options={"first_storyteller": 2, "storyteller_cycles": 1})
    said = words(language)
    open_chat(page)
    chat = page.locator("details.chat input[name=chat]")
    expect(chat).to_be_enabled()  # the lobby: the table may talk
    start_game(page)
    await_bot_clue(page)
    expect(chat).to_be_disabled()  # the clue is given: quiet
    play_cards(page)
    vote_bar(page)
    if language != "en":
        page.select_option("select.language", language)
    open_chat(page)
    expect(chat).to_be_disabled()
    expect(chat).to_have_attribute("placeholder", said["chat.closed_placeholder"])
    expect(page.locator(".chat-quiet")).to_have_text(said["chat.quiet_reason"])
    expect(page.locator("details.chat summary")).to_contain_text(said["chat.quiet"])
    expect(page.locator(".chat-form button[type=submit]")).to_be_disabled()
    reason = page.locator(".chat-quiet").bounding_box()
    assert reason is not None
    assert reason["x"] + reason["width"] <= size[0], "the reason fits the screen"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size[0], "nothing wider than the screen"
    shot(page, f"quiet-vote-{language}-{size[0]}")
    shot(page, f"quiet-vote-{language}-{size[0]}-page", full_page=True)

    enabled_table_cards(page).first.click()
    reply = answered(page, page.locator(".action-bar button.primary").click)
    assert reply["type"] == "ack", reply
    expect(page.locator(".overlay .reveal")).to_be_visible()
    page.locator(".overlay .reveal button.primary").click()
    page.locator(".overlay").wait_for(state="detached")
    open_chat(page)
    expect(chat).to_be_enabled()  # the reveal: the table may talk again
    expect(page.locator(".chat-quiet")).to_have_count(0)
    expect(chat).to_have_attribute("placeholder", said["chat.placeholder"])
    chat.fill("so that was yours!")
    chat.press("Enter")
    expect(page.locator(".chat-lines li")).to_have_text(["Mara: so that was yours!"])
    shot(page, f"quiet-vote-{language}-{size[0]}-after-reveal")


def test_in_mode_teams_the_partner_may_still_be_written_to_during_the_vote(players: Players) -> None:
    # pairs in joining order: Mara and the first bot; a bot of another team tells; Mara's partner
    # plays, so Mara votes — and the vote waits for her
    page = seated_with_bots(players, PHONE_360, 5, mode="teams", options={"first_storyteller": 1})
    start_game(page)
    vote_bar(page)
    open_chat(page)
    chat = page.locator("details.chat input[name=chat]")
    expect(chat).to_be_enabled()
    expect(chat).to_have_attribute("placeholder", "To your partner")
    partner_only = page.locator(".chat-form input[type=checkbox]")
    expect(partner_only).to_be_checked()
    expect(partner_only).to_be_disabled()  # (a line to the whole table would be refused now)
    expect(page.locator(".chat-quiet")).to_have_text(words("en")["chat.quiet_team"])
    # at 360 px the field keeps its width and its Send beside it; "partner only" goes under them
    field, send = chat.bounding_box(), page.locator(".chat-form button[type=submit]").bounding_box()
    assert field is not None
    assert send is not None
    assert abs(field["y"] - send["y"]) < field["height"], "Send on the field's row"
    assert field["width"] >= 180, "the field is not squeezed (its placeholder cut short)"
    chat.fill("the one with the lighthouse?")
    reply = answered(page, lambda: chat.press("Enter"))
    assert reply["type"] == "ack", reply
    expect(page.locator(".chat-lines li.team")).to_have_text(["Mara: the one with the lighthouse?"])
    shot(page, "quiet-vote-teams-360")


def test_the_host_allows_table_talk_in_the_lobby(players: Players) -> None:
    # (Mara, Fay and a bot: the bot tells first)
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 2, "storyteller_cycles": 1})
    code = seat["code"]
    host = players.open(*TV)
    open_seat(host, players.base, code, seat)
    guest = players.open(*PHONE_360, mobile=True)
    join_in_ui(guest, players.base, code, "Fay")
    rule = host.get_by_role("checkbox", name="Table talk during the vote (house rule)")
    expect(rule).not_to_be_checked()  # off by default
    expect(guest.locator(".house-rule-on")).to_have_count(0)
    reply = answered(host, rule.check)
    assert reply["type"] == "ack", reply
    expect(guest.locator(".house-rule-on")).to_have_text("House rule: the table may chat during the vote.")
    expect(guest.get_by_role("checkbox", name="Table talk during the vote (house rule)")).to_have_count(0)
    shot(host, "quiet-vote-house-rule-lobby-1920")
    shot(guest, "quiet-vote-house-rule-lobby-360")
    # in the game, the table may talk while the votes are out
    add_bots(host, 1)
    start_game(host, [guest])
    await_bot_clue(guest)
    open_chat(guest)
    chat = guest.locator("details.chat input[name=chat]")
    expect(chat).to_be_enabled()
    expect(guest.locator(".chat-quiet")).to_have_count(0)
    chat.fill("no rush")
    chat.press("Enter")
    expect(guest.locator(".chat-lines li")).to_have_text(["Fay: no rush"])


def test_a_tap_on_a_switch_the_moment_it_appears_changes_nothing(players: Players) -> None:
    """The second tap of a double tap on "Create the room" lands on the lobby's first switch, which
    appears where the button was (found by the group play-test): a tap on a switch within a moment
    of its showing is not the host's choice. A tap after that is."""
    seat = create_room_by_api(players.base, "Mara")
    host = players.open(*PHONE_360, mobile=True)
    open_seat(host, players.base, seat["code"], seat)
    rule = host.locator("input[name=table-talk]")
    rule.wait_for()
    rule.click()  # at once: the tap that followed the one that made the room
    expect(rule).not_to_be_checked()
    host.wait_for_timeout(300)  # (a message it sent would be answered by now)
    host.reload()  # what the room has
    rule.wait_for()
    expect(rule).not_to_be_checked()
    host.wait_for_timeout(900)
    reply = answered(host, rule.check)
    assert reply["type"] == "ack", reply
    expect(rule).to_be_checked()
