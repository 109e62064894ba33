"""Whole games and rounds played in real browsers: odyssey from the home screen to the end, a
party round and a teams round with bots at the table, and a reload in the middle of a vote."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from ..server.harness import LiveServer
from .conftest import Players
from .ui import (
    add_bots,
    awaited,
    card_sources,
    close_reveal,
    create_room_by_api,
    create_room_in_ui,
    enabled_hand_cards,
    enabled_table_cards,
    join_in_ui,
    open_seat,
    play_cards,
    play_until,
    saved_seats,
    start_game,
    step,
    tell,
    vote,
)


def test_three_browsers_play_odyssey_to_the_end_and_the_host_is_offered_a_rematch(players: Players) -> None:
    host = players.open()
    code = create_room_in_ui(host, players.base, "Mara", cycles=1)
    guests = [players.phone(), players.open()]
    for guest, name in zip(guests, ["Ben", "Cleo"], strict=True):
        join_in_ui(guest, players.base, code, name)
    expect(host.locator(".seat-name")).to_have_text(["Mara", "Ben", "Cleo"])
    everyone = [host, *guests]
    for page in everyone:
        assert code in saved_seats(page)
    start_game(host, guests)

    watcher = guests[0]  # still looking at the last round's reveal when the rematch starts

    def over(page: Page) -> bool:
        return bool(page.locator(".game-over").count())

    deadline = time.monotonic() + 90
    while not all(over(page) and (page is watcher or not page.locator(".overlay").count()) for page in everyone):
        assert time.monotonic() < deadline, "the game did not end in time"
        acted = False
        for page in everyone:
            if not (page is watcher and over(page)):  # (the watcher leaves the final reveal open)
                acted = step(page) or acted
        if not acted:
            host.wait_for_timeout(40)
    for page in everyone:
        expect(page.locator(".game-over h2")).to_contain_text("!")
        expect(page.locator(".ranking li")).to_have_count(3)
        expect(page.locator(".ranking li.winner").first).to_be_visible()
        assert sorted(page.locator(".ranking .name").all_inner_texts()) == ["Ben", "Cleo", "Mara"]
    scores = [int(text) for text in host.locator(".ranking .score").all_inner_texts()]
    assert scores == sorted(scores, reverse=True)
    assert all(page.locator(".ranking .score").all_inner_texts() == [str(s) for s in scores] for page in everyone)
    rematch = host.get_by_role("button", name="Play again with the same seats")
    expect(rematch).to_be_visible()
    for guest in guests:
        expect(guest.get_by_role("button", name="Play again with the same seats")).to_have_count(0)
        expect(guest.get_by_text("The host can start a rematch.")).to_be_visible()
    expect(watcher.locator(".overlay .reveal")).to_be_visible()
    rematch.click()
    for page in everyone:
        expect(page.locator(".table-head .round")).to_have_text("Round 1")
        expect(page.locator(".scores .score")).to_have_text(["0", "0", "0"])
    # the last game's round is gone from the watcher's screen: the new game is what shows
    expect(watcher.locator(".overlay")).to_have_count(0)


def test_a_party_round_with_bots_covers_the_storytellers_hand_until_the_clue(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", mode="party", options={"first_storyteller": 0})
    code = seat["code"]
    host, guest = players.open(), players.phone()
    open_seat(host, players.base, code, seat)
    join_in_ui(guest, players.base, code, "Ben")
    add_bots(host, 4)
    start_game(host, [guest])

    # The storyteller speaks first: the hand stays covered, not a single card picture is sent.
    expect(host.locator(".hidden-hand")).to_be_visible()
    expect(host.locator(".status-line")).to_contain_text("give your clue first")
    assert host.locator(".hand-card").count() == 0
    assert host.locator(".hand img, .table-card img").count() == 0
    expect(guest.locator(".hand-card")).to_have_count(5)  # the others see their own hands
    expect(guest.locator(".hidden-hand")).to_have_count(0)
    tell(host, "Far away")

    # Then everyone plays, the storyteller too, and the hand shows.
    expect(host.locator(".hidden-hand")).to_have_count(0)
    expect(host.locator(".hand-card")).to_have_count(5)
    for page in (host, guest):
        expect(page.locator(".clue")).to_have_text("“Far away”")
        play_cards(page)
    expect(host.locator(".table-card")).to_have_count(6)

    # Everyone votes; the storyteller also puts the red token down.
    expect(host.locator(".status-line")).to_contain_text("red token")
    expect(host.locator(".action-bar button.red")).to_be_visible()
    vote(guest)
    vote(host)
    red = host.locator(".action-bar button.red")
    chosen = enabled_table_cards(host).first
    chosen.click()
    expect(host.locator(".table-card.red-chosen")).to_have_count(1)
    red.click()
    for page in (host, guest):
        reveal = page.locator(".overlay .reveal")
        expect(reveal).to_be_visible()
        expect(reveal.locator(".reveal-card")).to_have_count(6)
        expect(reveal.locator(".red-tag")).to_have_count(1)
        expect(reveal.locator(".reveal-clue")).to_contain_text("Far away")
        close_reveal(page)
    expect(host.locator(".table-head .round")).to_have_text("Round 2")


def test_a_teams_round_with_bots_lets_one_partner_play_and_the_other_vote(players: Players) -> None:
    # Seats go pair by pair: the two people (joined first) are team 1, at seats 0 and 3; a bot tells.
    seat = create_room_by_api(players.base, "Mara", mode="teams", options={"first_storyteller": 1})
    code = seat["code"]
    host, guest = players.open(), players.open()
    open_seat(host, players.base, code, seat)
    join_in_ui(guest, players.base, code, "Ben")
    add_bots(host, 4)
    expect(host.locator(".teams li").first).to_contain_text("Mara")
    expect(host.locator(".teams li").first).to_contain_text("Ben")
    start_game(host, [guest])

    for page in (host, guest):
        expect(page.locator(".status-line")).to_contain_text("For your team")
    # One partner suggests a card; the other is told, and plays it for the team.
    enabled_hand_cards(guest).first.click()
    guest.get_by_role("button", name="Suggest to my partner").click()
    expect(host.locator(".partner-offer")).to_contain_text("Ben offers to play a card for your team")
    enabled_hand_cards(host).first.click()
    host.get_by_role("button", name="Play it for the team").click()
    # The partner who did not play votes; the one who played does not.
    expect(guest.locator(".action-bar button.primary", has_text="Vote")).to_be_visible(timeout=15_000)
    assert not awaited(host)
    expect(host.locator(".table-card.yours")).to_have_count(1)
    # The storyteller, their partner and the two other teams each lay one card.
    expect(guest.locator(".table-card")).to_have_count(4)
    expect(enabled_table_cards(guest)).to_have_count(3)  # not the team's own card
    vote(guest)
    for page in (host, guest):
        expect(page.locator(".overlay .reveal")).to_be_visible()
        expect(page.locator(".overlay .reveal-card")).to_have_count(4)
        close_reveal(page)


def test_a_reload_in_the_middle_of_the_vote_keeps_the_seat_and_the_hand(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 1, "storyteller_cycles": 1})
    code = seat["code"]
    page = players.phone()
    open_seat(page, players.base, code, seat)
    add_bots(page, 2)
    start_game(page)
    play_until([page], lambda: page.locator(".action-bar button.primary", has_text="Vote").count() > 0)
    hand = card_sources(page, ".hand-card img")
    table = card_sources(page, ".table-card img")
    assert hand
    assert len(table) == 5  # three players lay five cards

    page.reload()
    expect(page.locator(".table-screen")).to_be_visible()
    assert page.url.endswith(f"/room/{code}")  # not sent to the join screen: the seat is still ours
    expect(page.locator(".action-bar button.primary", has_text="Vote")).to_be_visible()
    assert awaited(page)
    assert card_sources(page, ".hand-card img") == hand
    assert card_sources(page, ".table-card img") == table
    expect(page.locator(".table-card.yours")).to_have_count(2)
    assert page.locator(".overlay").count() == 0  # nothing ended: no reveal on reload
    vote(page)
    expect(page.locator(".overlay .reveal")).to_be_visible()
    _assert_same_member(page, code, seat["member"])


def _assert_same_member(page: Page, code: str, member: int) -> None:
    assert saved_seats(page)[code]["member"] == member


def test_the_host_pairs_teams_by_tapping_two_players(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", mode="teams")
    host = players.open()
    open_seat(host, players.base, seat["code"], seat)
    add_bots(host, 5)
    teams = host.locator(".teams li.team")
    expect(teams).to_have_count(3)
    first_partner = teams.nth(0).locator("button.team-member").nth(1)
    partner_before = first_partner.inner_text().split("\n")[-1]  # the name, after the rabbit's initial
    moving = teams.nth(2).locator("button.team-member").nth(0)
    moving_name = moving.inner_text().split("\n")[-1]
    first_partner.click()
    expect(host.get_by_text("Now tap the player to change places with.")).to_be_visible()
    moving.click()
    expect(teams.nth(0)).to_contain_text(moving_name)
    expect(teams.nth(0)).to_contain_text("Mara")
    expect(teams.nth(2)).to_contain_text(partner_before)


def test_a_host_using_the_app_in_chinese_adds_bots_that_clue_in_chinese(players: Players, server: LiveServer) -> None:
    seat = create_room_by_api(players.base, "Mara")
    code = seat["code"]
    page = players.phone()
    page.goto(players.base + "/rules")
    page.evaluate("() => localStorage.setItem('fabula.language', 'zh-Hans')")
    open_seat(page, players.base, code, seat)
    seats = page.locator(".seat")
    page.get_by_role("button", name="添加机器人").click()  # "Add a bot" in simplified Chinese
    expect(seats).to_have_count(2)
    members = server.service.rooms.held[code].room.members
    assert [m.bot_language for m in members.values() if m.bot is not None] == ["zh-Hans"]
