"""What a real group hit in its first evening (issue 14), one browser test each: every one failed on
the client and server as they were before the fix."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page, WebSocketRoute, expect
from websockets.sync.client import connect

from ..server.harness import LiveServer, live_server
from .conftest import Players
from .ui import (
    add_bots,
    await_bot_clue,
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
    start_game,
    step,
    tell,
    vote,
)

PHONE_360 = (360, 740)


def phone360(players: Players) -> Page:
    return players.open(*PHONE_360, mobile=True)


def over(pages: list[Page]) -> bool:
    return all(page.locator(".game-over").count() and not page.locator(".overlay").count() for page in pages)


def alone_with_bots(players: Players, name: str, bots: int, **settings: Any) -> Page:
    """A desktop player's started game, in a room made over HTTP, with ``bots`` bots."""
    seat = create_room_by_api(players.base, name, **settings)
    page = players.open()
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, bots)
    start_game(page)
    return page


def summary(base: str, code: str) -> dict[str, object]:
    found: dict[str, object] = httpx.get(f"{base}/api/rooms/{code}").json()
    return found


# ---------------------------------------------------------------- 1. party: the reveal speaks party


def test_a_party_reveal_says_the_voters_scored_and_names_no_storytellers_card(players: Players) -> None:
    page = alone_with_bots(players, "Hal", 5, mode="party", options={"first_storyteller": 0})
    tell(page, "Far away")
    play_cards(page)
    vote(page)
    enabled_table_cards(page).first.click()
    page.locator(".action-bar button.red").click()
    reveal = page.locator(".overlay .reveal")
    expect(reveal).to_be_visible()
    expect(reveal.locator(".reveal-headline")).to_contain_text("Voters score")
    expect(reveal).not_to_contain_text("Some found")
    expect(reveal).not_to_contain_text("storyteller's card")
    expect(reveal.locator(".red-tag")).to_have_count(1)
    expect(reveal.locator(".vote-count")).to_have_count(6)  # how many chose each image
    reasons = reveal.locator(".points .reasons").all_inner_texts()
    assert len(reasons) == 6
    assert all(re.search(r"image|red token|alone", text) for text in reasons), reasons


# ---------------------------------------------------------------- 2. the reveal keeps its place


def test_the_reveal_keeps_the_readers_place_when_something_happens(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 2})
    code = seat["code"]
    page, guest = phone360(players), players.phone()
    open_seat(page, players.base, code, seat)
    join_in_ui(guest, players.base, code, "Ben")
    add_bots(page, 2)
    start_game(page, [guest])
    play_until([page, guest], lambda: page.locator(".overlay .reveal").count() > 0)
    reveal = page.locator(".overlay .reveal")
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    page.evaluate(
        "() => { const r = document.querySelector('.reveal'); r.scrollTop = r.scrollHeight; r.dataset.mine = 'yes'; }"
    )
    place = page.evaluate("() => document.querySelector('.reveal').scrollTop")
    assert place > 100, "the points are below the fold on a phone"
    # something happens at the table: a chat line, and the next round's moves
    close_reveal(guest)
    guest.locator("details.chat summary").click()
    guest.fill("input[name=chat]", "look at card 3!")
    guest.get_by_role("button", name="Send").click()
    expect(page.locator("details.chat summary")).to_contain_text("(1)")
    for _ in range(3):
        step(guest)
    assert page.evaluate("() => document.querySelector('.reveal').dataset.mine") == "yes", "the reveal was redrawn"
    assert page.evaluate("() => document.querySelector('.reveal').scrollTop") == place
    assert page.evaluate("() => document.getAnimations().filter((a) => a.playState === 'running').length") == 0
    expect(reveal).to_be_visible()


# ---------------------------------------------------------------- 3. a double tap


def test_a_double_tap_on_create_makes_one_room_and_back_goes_home(players: Players, server: LiveServer) -> None:
    page = players.phone()
    page.goto("/")
    page.fill("input[name=name]", "Mara")
    before = set(server.service.rooms.held)
    page.get_by_role("button", name="Create the room").dblclick()
    page.wait_for_url(re.compile(r"/room/[A-Z0-9]+$"))
    expect(page.locator(".lobby")).to_be_visible()
    page.wait_for_timeout(300)  # a second room would have been made by now
    made = set(server.service.rooms.held) - before
    assert len(made) == 1, made
    code = page.url.rsplit("/", 1)[1]
    assert made == {code}
    page.go_back()
    expect(page.locator(".create-panel")).to_be_visible()  # home, not an empty first room


def test_a_double_tap_on_take_a_seat_start_and_add_a_bot_does_it_once(players: Players) -> None:
    host, guest = players.open(), players.phone()
    code = create_room_in_ui(host, players.base, "Mara")
    guest.goto(f"/join/{code}")
    guest.fill("input[name=name]", "Ben")
    guest.get_by_role("button", name="Take a seat").dblclick()
    expect(guest.locator(".lobby")).to_be_visible()
    host.get_by_role("button", name="Add a bot").dblclick()
    expect(host.locator(".seat")).to_have_count(3)
    host.wait_for_timeout(300)
    expect(host.locator(".seat")).to_have_count(3)
    assert [m["name"] for m in summary(players.base, code)["members"]] == ["Mara", "Ben", "Bot Pink"]  # type: ignore[attr-defined]
    host.get_by_role("button", name="Start the game").dblclick()
    expect(host.locator(".table-screen")).to_be_visible()
    host.wait_for_timeout(300)
    expect(host.locator(".error")).to_have_count(0)  # no "The game has started already."


def test_a_double_tap_on_add_a_bot_on_a_busy_phone_adds_one_bot(players: Players) -> None:
    """Found in CI: under load the host's double tap gave two bots. The page ran the second tap's
    handler only after the first one had drawn (here made certain: 120 ms of drawing), so the gap
    the page saw was longer than a double tap's; the taps' own stamps are a millisecond apart."""
    host = players.open()
    create_room_in_ui(host, players.base, "Mara")
    expect(host.locator(".seat")).to_have_count(1)
    host.evaluate(
        """() => document.addEventListener("click", () => {
            const start = performance.now();
            while (performance.now() - start < 120) {}
        })"""
    )
    host.get_by_role("button", name="Add a bot").dblclick()
    expect(host.locator(".seat")).to_have_count(2)
    host.wait_for_timeout(300)
    expect(host.locator(".seat")).to_have_count(2)


# ---------------------------------------------------------------- 4. a link phones can open


def test_the_lobby_tells_the_host_when_phones_cannot_open_the_link(players: Players) -> None:
    # the test server listens on 127.0.0.1 only, as `fabula serve` does without --host
    page = players.open()
    create_room_in_ui(page, players.base, "Mara")
    problem = page.locator(".invite-problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text("Phones cannot open this link")
    expect(problem).to_contain_text("--host 0.0.0.0")


# ---------------------------------------------------------------- 5. a full room says so first


def test_a_full_room_says_so_before_asking_for_a_name_and_offers_to_watch(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", mode="classic")
    host = players.open()
    open_seat(host, players.base, seat["code"], seat)
    add_bots(host, 5)
    late = players.phone()
    late.goto(f"/join/{seat['code']}")
    expect(late.locator(".join-closed")).to_contain_text("Every seat is taken")
    expect(late.locator("input[name=name]")).to_have_count(0)
    late.get_by_role("link", name="Just watch").click()
    expect(late.locator(".lobby")).to_be_visible()
    expect(late.locator(".badge.watching")).to_be_visible()


# ---------------------------------------------------------------- 6. teams are teams


def test_teams_are_shown_as_teams_in_the_reveal_the_track_and_the_end(players: Players) -> None:
    page = alone_with_bots(players, "Mara", 5, mode="teams", options={"storyteller_cycles": 1})
    expect(page.locator(".scores li")).to_have_count(3)
    expect(page.locator(".scores .name").first).to_contain_text("&")
    expect(page.locator(".table-head .partner")).to_contain_text("Partner: ")
    play_until([page], lambda: page.locator(".overlay .reveal").count() > 0)
    expect(page.locator(".overlay .points li")).to_have_count(3)
    expect(page.locator(".overlay .points-name").first).to_contain_text("&")
    play_until([page], lambda: over([page]), timeout=90)
    rows = page.locator(".ranking li")
    expect(rows).to_have_count(3)
    assert all(" & " in name for name in page.locator(".ranking .name").all_inner_texts())
    ranks = [int(rank) for rank in page.locator(".ranking .rank").all_inner_texts()]
    assert ranks == sorted(ranks)
    assert ranks[-1] <= 3
    heading = page.locator(".game-over h2").inner_text()
    assert " & " in heading, heading


# ---------------------------------------------------------------- 7. removed means removed


def test_a_player_removed_in_the_lobby_is_told_and_offered_to_watch(players: Players) -> None:
    host, fay = players.open(), players.phone()
    code = create_room_in_ui(host, players.base, "Mara")
    join_in_ui(fay, players.base, code, "Fay")
    host.locator(".seat", has_text="Fay").get_by_role("button", name="Remove").click()
    expect(fay.locator(".fatal")).to_have_count(0)  # removing a person asks first
    host.get_by_role("button", name="Remove Fay").click()
    expect(fay.locator(".fatal")).to_contain_text("The host removed you from this room.")
    fay.get_by_role("link", name="Just watch").click()
    expect(fay.locator(".lobby")).to_be_visible()
    expect(fay.locator(".badge.watching")).to_be_visible()
    expect(fay.locator(".seat-name")).to_have_text(["Mara"])


def test_a_player_removed_mid_game_is_told_at_once_and_sees_no_hand(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara")
    code = seat["code"]
    host, fay = players.open(), players.phone()
    open_seat(host, players.base, code, seat)
    join_in_ui(fay, players.base, code, "Fay")
    add_bots(host, 1)
    start_game(host, [fay])
    expect(fay.locator(".hand-card")).not_to_have_count(0)
    # the host's kick, as any client of the protocol sends it
    with connect(players.base.replace("http", "ws", 1) + f"/ws/{code}") as socket:
        socket.send(json.dumps({"type": "hello", "id": "h", "token": seat["token"]}))
        socket.send(json.dumps({"type": "kick", "id": "k", "member": 1}))
        while json.loads(socket.recv(timeout=10)).get("id") != "k":
            pass
    expect(fay.locator(".fatal")).to_contain_text("The host removed you from this room.")
    expect(fay.locator(".hand-card")).to_have_count(0)
    fay.get_by_role("link", name="Just watch").click()
    expect(fay.locator(".table-screen")).to_be_visible()
    expect(fay.locator(".hand-card")).to_have_count(0)
    expect(fay.locator(".badge.watching")).to_be_visible()


def scroll_to_its_end(strip: Locator) -> float:
    """Scroll ``strip`` as far along as it goes, as a thumb would, and say where it came to rest.

    A programmatic scroll of a list that snaps can be taken back by Chromium when the page's
    layout changes in the same frame (it snaps again to the card it last rested on); a thumb's
    scroll ends when the thumb lifts. CI saw this once, in the game's first moments (the list
    back at 2 px): so the scroll is tried again until it stays, and the test's point is what
    the taps do after it."""
    for _ in range(5):
        strip.evaluate("list => { list.scrollLeft = list.scrollWidth; }")
        strip.page.wait_for_timeout(300)  # (scroll snapping settles)
        rest: float = strip.evaluate("list => list.scrollLeft")
        if rest > 100:
            return rest
    sizes = strip.evaluate("list => [list.scrollWidth, list.clientWidth]")
    raise AssertionError(f"the hand did not stay scrolled (at {rest} px; scroll and client widths {sizes})")


def test_a_phone_s_hand_keeps_its_place_when_a_card_far_along_it_is_tapped(players: Players) -> None:
    """At 360 px the hand scrolls sideways; every new state redraws it. It drew back at its start,
    so the card just tapped slid out of sight and a double tap chose a card to its left."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    phone = players.phone()
    open_seat(phone, players.base, code, seat)
    add_bots(phone, 2)
    start_game(phone)
    hand = phone.locator(".hand-cards")
    cards = phone.locator(".hand-card .card-button")
    expect(cards).to_have_count(7)  # (three at the table: seven cards each)
    scrolled = scroll_to_its_end(hand)
    last = cards.nth(6)
    # a double tap is one tap: the card is chosen (its second tap let it go again), and no other
    last.dblclick()
    expect(last).to_have_attribute("aria-pressed", "true")
    phone.wait_for_timeout(600)  # (a redraw a state brings keeps it too)
    assert [cards.nth(n).get_attribute("aria-pressed") for n in range(7)] == ["false"] * 6 + ["true"]
    assert hand.evaluate("list => list.scrollLeft") == pytest.approx(scrolled, abs=2)
    last.click()  # a tap apart from it lets it go
    expect(last).to_have_attribute("aria-pressed", "false")
    assert hand.evaluate("list => list.scrollLeft") == pytest.approx(scrolled, abs=2)


def test_a_move_made_without_a_connection_says_so_where_it_is_made_and_goes_once_it_is_back(players: Players) -> None:
    """On a phone the header's "reconnecting…" has scrolled out of sight by the time the action
    bar is reached: a clue given then only greyed its button. The bar now says why, and the move
    goes as soon as the connection is back."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    phone = players.phone()
    cut = {"off": False}
    routes: list[WebSocketRoute] = []

    def through(route: WebSocketRoute) -> None:
        if cut["off"]:
            route.close()  # (the network is down: every try fails)
            return
        route.connect_to_server()
        routes.append(route)

    phone.route_web_socket(re.compile(r"/ws"), through)
    open_seat(phone, players.base, seat["code"], seat)
    add_bots(phone, 2)
    start_game(phone)
    phone.locator(".hand-card .card-button").first.click()
    phone.locator(".clue-input").fill("Far from home")
    phone.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    expect(phone.locator(".away-hint")).to_have_count(0)  # (connected: nothing said)

    cut["off"] = True
    for route in routes:
        route.close()
    expect(phone.locator(".away-hint")).to_be_visible()
    phone.locator("form.action-bar button[type=submit]").click()
    cards = phone.locator(".hand-card .card-button")
    chosen, other = cards.nth(0).get_attribute("data-keep"), cards.nth(1).get_attribute("data-keep")
    cards.nth(1).click()  # another card, while the move is on its way: it would not be the one told
    expect(cards.nth(0)).to_have_attribute("aria-pressed", "true")
    expect(cards.nth(1)).to_have_attribute("aria-pressed", "false")
    hint = phone.locator(".away-hint")
    expect(hint).to_have_text("No connection: reconnecting. A move made now goes as soon as it is back.")
    box, viewport = hint.bounding_box(), phone.viewport_size
    assert box is not None
    assert viewport is not None
    assert box["y"] >= 0, "in sight, beside the button"
    assert box["y"] + box["height"] <= viewport["height"], "in sight, beside the button"
    expect(phone.locator(".clue-input")).to_have_count(1)  # (not told yet)

    cut["off"] = False
    expect(phone.locator(".away-hint")).to_have_count(0, timeout=20_000)
    expect(phone.get_by_text("Far from home").first).to_be_visible()  # told once it was back
    expect(phone.locator(".clue-input")).to_have_count(0)
    # the card told is the one chosen then (it left the hand), not the one tapped after
    expect(phone.locator(f".card-button[data-keep={chosen}]")).to_have_count(0)
    expect(phone.locator(f".card-button[data-keep={other}]")).to_have_count(1)


# ---------------------------------------------------------------- away, and back


@pytest.fixture
def quick_grace(tmp_path: Path) -> Iterator[LiveServer]:
    """A server where a bot stands in for a gone player after 5 seconds."""
    with live_server(
        tmp_path / "data", bot_delay_seconds=0.05, disconnect_grace_seconds=5, max_rooms_per_address=1000
    ) as running:
        yield running


def contrast(page: Page, selector: str) -> float:
    """The WCAG contrast ratio of the first ``selector``'s text colour against the background it
    sits on (its own, or its nearest ancestor's that is not transparent)."""
    ratio: float = page.locator(selector).first.evaluate(
        """element => {
            const rgb = text => text.match(/[\\d.]+/g).slice(0, 4).map(Number);
            const luminance = ([r, g, b]) => [r, g, b]
                .map(c => c / 255)
                .map(c => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
                .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
            let around = element;
            while (around && (rgb(getComputedStyle(around).backgroundColor)[3] ?? 1) === 0) {
                around = around.parentElement;
            }
            const [text, back] = [element, around || document.body]
                .map(e => luminance(rgb(getComputedStyle(e)[e === element ? "color" : "backgroundColor"])));
            return (Math.max(text, back) + 0.05) / (Math.min(text, back) + 0.05);
        }"""
    )
    return ratio


def test_the_table_sees_who_is_away_and_the_player_learns_what_the_bot_played(
    players: Players, quick_grace: LiveServer
) -> None:
    players.base = quick_grace.url
    seat = create_room_by_api(quick_grace.url, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    host = players.open()
    open_seat(host, quick_grace.url, code, seat)
    fay = players.phone()
    join_in_ui(fay, quick_grace.url, code, "Fay")
    add_bots(host, 1)
    start_game(host, [fay])
    # the TV is on before Fay leaves: the countdown reaches it with the host's (on a busy machine
    # loading the board could take longer than the grace, and the line would be gone)
    board = players.open(1920, 1080)
    board.goto(f"/room/{code}/board")
    expect(board.locator("section.board")).to_be_visible()
    context = fay.context
    fay.close()
    tell(host, "Far away")
    expect(host.locator(".away-line")).to_contain_text(re.compile(r"Fay is away: a bot plays for them in 0:0\d"))
    # the TV shows it too, readable on its dark background (the countdown was the phones' ink: 1.2 : 1)
    expect(board.locator(".away-line")).to_contain_text("Fay is away")
    assert contrast(board, ".away-line .countdown") >= 4.5
    expect(host.locator(".acted li.away")).to_have_count(1)
    # the bot plays and votes for her (the host tells, so does not vote): the round is revealed
    expect(host.locator(".overlay .reveal")).to_be_visible(timeout=15_000)
    back = context.new_page()
    back.goto(f"{quick_grace.url}/room/{code}")
    story = back.locator(".story")
    expect(story).to_contain_text("While you were away, a bot played for you")
    expect(story).to_contain_text("Round 1: played")
    expect(story.locator("img").first).to_be_visible()  # the two cards it played for her (three players)
    back.get_by_role("button", name="Back to the table").click()
    expect(story).to_have_count(0)


# ---------------------------------------------------------------- what the rules give, said where it counts


def test_with_two_tokens_the_vote_prompt_and_the_reveal_show_the_one_token_bonus(players: Players) -> None:
    page = alone_with_bots(players, "Mara", 6, options={"first_storyteller": 1})
    await_bot_clue(page)
    play_cards(page)
    expect(page.locator(".action-bar button.primary", has_text="Vote")).to_be_visible()
    expect(page.locator(".status-line")).to_contain_text("Found with one token alone: 1 more point.")
    vote(page)
    # said in a round where someone earned it, and only then (test_reveal_words has both rounds)
    headline = page.locator(".overlay .reveal-headline")
    expect(headline).to_be_visible()
    earned = page.locator(".overlay .reasons", has_text="found it with one token alone").count() > 0
    assert headline.inner_text().endswith("Found with one token alone: 1 more.") == earned


def test_the_reveal_says_whether_everyone_or_no_one_found_the_card(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    teller, ben, cleo = players.open(), players.phone(), players.phone()
    open_seat(teller, players.base, code, seat)
    join_in_ui(ben, players.base, code, "Ben")
    join_in_ui(cleo, players.base, code, "Cleo")
    start_game(teller, [ben, cleo])
    tell(teller, "Home")
    play_cards(ben)
    play_cards(cleo)
    expect(teller.locator(".table-card")).to_have_count(5)
    own = teller.locator(".table-card.yours .slot-number").inner_text()
    for voter in (ben, cleo):
        expect(voter.locator(".action-bar button.primary", has_text="Vote")).to_be_visible()
        voter.locator(".table-card", has=voter.locator(f".slot-number:text-is('{own}')")).locator(
            ".card-button"
        ).click()
        voter.locator(".action-bar button.primary", has_text="Vote").click()
    expect(teller.locator(".overlay .reveal-headline")).to_have_text(
        "Everyone found Mara's card: Mara scores nothing, everyone else 2."
    )
    expect(teller.locator(".overlay .reasons").first).to_have_text("everyone found the card")


# ---------------------------------------------------------------- teams, on the table


def test_teams_show_your_partner_your_suggestion_and_why_start_is_off(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", mode="teams", options={"first_storyteller": 1})
    code = seat["code"]
    host, ben = players.open(), players.phone()
    open_seat(host, players.base, code, seat)
    join_in_ui(ben, players.base, code, "Ben")
    add_bots(host, 3)
    expect(host.locator(".start-problem")).to_contain_text("1 more needed to start (at least 6)")
    add_bots(host, 2)
    expect(host.locator(".start-problem")).to_contain_text("Teams play in pairs")
    expect(host.get_by_role("button", name="Start the game")).to_be_disabled()
    add_bots(host, 1)
    expect(host.locator(".start-problem")).to_have_count(0)
    start_game(host, [ben])
    expect(host.locator(".partner")).to_have_text(re.compile("Partner: Ben"))
    expect(ben.locator(".partner")).to_have_text(re.compile("Partner: Mara"))
    enabled_hand_cards(ben).first.click()
    ben.get_by_role("button", name="Suggest to my partner").click()
    expect(ben.locator(".hand-card.proposed .tag")).to_have_text("suggested")
    expect(host.locator(".partner-offer")).to_contain_text("Ben offers to play a card for your team")


def test_an_empty_clue_is_refused_with_a_word_and_the_red_token_is_confirmed(players: Players) -> None:
    page = alone_with_bots(players, "Hal", 5, mode="party", options={"first_storyteller": 0})
    page.locator(".clue-input").fill("   ")
    page.locator("form.action-bar button[type=submit]").click()
    expect(page.locator(".error")).to_have_text("Type a clue, or tap “I said it aloud”.")
    expect(page.locator(".hidden-hand")).to_be_visible()  # nothing was sent
    tell(page, "Far away")
    play_cards(page)
    vote(page)
    expect(page.locator(".token-mark.sent")).to_have_count(1)  # the vote is in: a tap now places the red token
    enabled_table_cards(page).nth(1).click()
    slot = page.locator(".table-card.red-chosen .slot-number").inner_text()
    page.locator(".action-bar button.red").click()
    # the bots may have voted already: then the round is revealed at once (and the notice never
    # shows); either way the token is taken, not refused
    placed = page.locator(".notice-line", has_text=f"The red token is on card {slot}.")
    expect(page.locator(".overlay .reveal").or_(placed).first).to_be_visible()
    expect(page.locator(".error")).to_have_count(0)


# ---------------------------------------------------------------- the TV, and the way back


def test_a_tv_opens_a_rooms_board_from_its_home_page_and_the_goal_follows_30(players: Players) -> None:
    # (a target past 30: the goal is the corner after 30)
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 1, "target_score": 40})
    host = players.open()
    open_seat(host, players.base, seat["code"], seat)
    add_bots(host, 2)
    tv = players.open(1920, 1080)
    tv.goto("/")
    tv.fill("input[name=code]", seat["code"].lower())
    tv.get_by_role("button", name="Show the board").click()
    expect(tv).to_have_url(re.compile(f"/room/{seat['code']}/board$"))
    expect(tv.locator("img.board-qr")).to_be_visible()
    start_game(host)
    expect(tv.locator(".board-space")).to_have_count(31)

    # read in one evaluation: a state arriving between two reads redraws the board
    layout = """() => {
        const cell = (e) => [parseInt(e.style.gridRowStart), parseInt(e.style.gridColumnStart)];
        const spaces = [...document.querySelectorAll(".board-space")];
        return {
            goal: cell(document.querySelector(".board-goal")),
            zero: cell(spaces[0]),
            thirty: cell(spaces[30]),
            heights: spaces.map((s) => s.getBoundingClientRect().height),
        };
    }"""
    found = tv.evaluate(layout)
    goal, zero, thirty = found["goal"], found["zero"], found["thirty"]
    assert abs(goal[0] - thirty[0]) + abs(goal[1] - thirty[1]) == 1, (goal, thirty)  # the next cell after 30
    assert abs(goal[0] - zero[0]) + abs(goal[1] - zero[1]) == 1, (goal, zero)  # and just before the start
    heights = found["heights"]
    await_bot_clue(host)
    play_cards(host)
    expect(tv.locator(".board-cards li")).to_have_count(5)
    again = tv.evaluate(layout)["heights"]
    assert again == heights, "the track's rows keep their height from phase to phase"


@pytest.mark.parametrize(
    ("options", "goal_space", "corner"),
    [
        ({"target_score": 10}, 10, None),
        ({}, 30, None),
        ({"target_score": 50}, None, "★ 50"),
        ({"target_score": None, "storyteller_cycles": 1}, None, None),
    ],
    ids=["10-points", "30-points", "50-points", "no-target"],
)
def test_the_board_marks_the_game_s_own_goal_and_a_score_past_30_goes_round_again(
    players: Players, options: dict[str, Any], goal_space: int | None, corner: str | None
) -> None:
    """The TV's track ran 0–30 with its ★ after 30 whatever the game's target, and a rabbit past
    30 stood on 30. Now a target up to 30 is marked on its space, one over 30 in the corner, a game
    without a target has no goal, and a score past 30 goes round again from 0 with "+31"."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 1, **options})
    host = players.open()
    open_seat(host, players.base, seat["code"], seat)
    add_bots(host, 2)
    tv = players.open(1920, 1080)

    def far_along(route: WebSocketRoute) -> None:
        """The server's states, with the seats' scores made 0, 33 and 65 (as after a long game)."""
        server = route.connect_to_server()

        def passed_on(message: str | bytes) -> None:
            data = json.loads(message)
            game = data.get("room", {}).get("game") if data.get("type") == "state" else None
            if game:
                game["scores"] = [0, 33, 65]
            route.send(json.dumps(data))

        server.on_message(passed_on)

    tv.route_web_socket(re.compile(r"/ws"), far_along)
    tv.goto(f"/room/{seat['code']}/board")
    start_game(host)
    expect(tv.locator(".board-space")).to_have_count(31)
    if goal_space is None:
        expect(tv.locator(".goal-space")).to_have_count(0)
    else:
        expect(tv.locator(".goal-space")).to_have_count(1)
        expect(tv.locator(".goal-space .space-number")).to_have_text(f"★ {goal_space}")
        assert tv.locator(".board-space").nth(goal_space).get_attribute("class") == "board-space goal-space"
    if corner is None:
        expect(tv.locator(".board-goal")).to_have_count(0)
    else:
        expect(tv.locator(".board-goal")).to_have_text(corner)
    spaces = tv.locator(".board-space")
    expect(spaces.nth(0).locator(".rabbit")).to_have_count(1)  # 0 points
    expect(spaces.nth(2).locator(".lapped")).to_have_count(1)  # 33 = 31 + 2
    expect(spaces.nth(2).locator(".lap")).to_have_text("+31")
    expect(spaces.nth(3).locator(".lap")).to_have_text("+62")  # 65 = 62 + 3
    expect(spaces.nth(30).locator(".rabbit")).to_have_count(0)  # nobody is stuck on 30
    # the players' own track says it too: the target in its title, and up to 30 on its space
    track = host.locator(".track")
    target = options.get("target_score", 30)
    if target is None:
        expect(track.locator("h3")).to_have_text("Scores")
    else:
        expect(track.locator("h3")).to_have_text(f"Scores (to {target})")
    expect(track.locator(".space.goal")).to_have_text([] if goal_space is None else [f"★{goal_space}"])
    if shots := os.environ.get("FABULA_SHOTS"):
        tv.screenshot(path=f"{shots}/board-goal-{goal_space or corner or 'none'}.png")


def test_the_home_page_leads_back_to_a_room_this_browser_has_a_seat_in(players: Players) -> None:
    page = players.phone()
    code = create_room_in_ui(page, players.base, "Mara")
    page.goto("/")
    yours = page.locator(".your-rooms")
    expect(yours).to_contain_text(code)
    yours.get_by_role("link", name="Back to the table").click()
    expect(page.locator(".lobby")).to_be_visible()
    assert page.url.endswith(f"/room/{code}")


# ---------------------------------------------------------------- leaving, ending, sitting in


def test_leaving_a_room_for_good_takes_a_second_tap_and_frees_the_seat(players: Players) -> None:
    host, ben = players.open(), players.phone()
    code = create_room_in_ui(host, players.base, "Mara")
    join_in_ui(ben, players.base, code, "Ben")
    ben.get_by_role("button", name="Leave this room").click()
    expect(ben.locator(".confirm")).to_contain_text("Leave this room for good?")
    ben.locator(".confirm").get_by_role("button", name="Leave").click()
    expect(ben.locator(".create-panel")).to_be_visible()
    expect(host.locator(".seat-name")).to_have_text(["Mara"])
    ben.goto(f"/room/{code}")
    expect(ben.locator("input[name=name]")).to_be_visible()  # the seat is no longer this browser's


def test_the_host_ends_a_game_early_for_everyone(players: Players) -> None:
    host, ben = players.open(), players.phone()
    code = create_room_in_ui(host, players.base, "Mara")
    join_in_ui(ben, players.base, code, "Ben")
    add_bots(host, 1)
    start_game(host, [ben])
    expect(ben.get_by_role("button", name="End the game now")).to_have_count(0)
    host.get_by_role("button", name="End the game now").click()
    host.locator(".confirm").get_by_role("button", name="End the game").click()
    for page in (host, ben):
        expect(page.locator(".game-over")).to_be_visible()
        expect(page.locator(".ranking li")).to_have_count(3)


def test_a_latecomer_sits_in_for_a_bot_between_moves(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    host = players.open()
    open_seat(host, players.base, code, seat)
    add_bots(host, 2)
    start_game(host)
    late = phone360(players)
    late.goto(f"/join/{code}")
    expect(late.locator(".take-over")).to_contain_text("Pink bot")
    late.fill("input[name=name]", "Zoe")
    late.get_by_role("button", name="Take over this seat").click()
    expect(late.locator(".table-screen")).to_be_visible()
    expect(late.locator(".hand-card")).to_have_count(7)  # three players: hands of seven
    expect(host.locator(".scores")).to_contain_text("Zoe")
    tell(host, "Home")
    expect(late.locator(".action-bar button.primary", has_text="Play")).to_be_visible()
    assert awaited(late)
    play_cards(late)


def test_a_spectator_is_labelled_and_offered_no_sound_switch_and_sound_is_on_for_players(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara")
    host = players.open()
    open_seat(host, players.base, seat["code"], seat)
    add_bots(host, 2)
    start_game(host)
    expect(host.locator(".sound-toggle input")).to_be_checked()
    watcher = players.phone()
    watcher.goto(f"/room/{seat['code']}?watch=1")
    expect(watcher.locator(".badge.watching")).to_have_text("watching")
    expect(watcher.locator(".table-screen")).to_be_visible()
    expect(watcher.locator(".sound-toggle")).to_have_count(0)
    expect(watcher.locator(".take-over")).to_contain_text("Play instead of a bot")


# ---------------------------------------------------------------- polish


def test_at_360_px_the_header_and_long_names_stay_inside_the_screen(players: Players) -> None:
    long_name = "Maximiliantheverylongnam"  # 24 characters, no break
    assert len(long_name) == 24
    seat = create_room_by_api(players.base, long_name, options={"first_storyteller": 0})
    page = phone360(players)
    open_seat(page, players.base, seat["code"], seat)
    code_box, rules_box = page.locator(".room-code").bounding_box(), page.locator(".rules-link").bounding_box()
    assert code_box is not None
    assert rules_box is not None
    overlaps = (
        code_box["x"] < rules_box["x"] + rules_box["width"] and rules_box["x"] < code_box["x"] + code_box["width"]
    )
    assert not (overlaps and abs(code_box["y"] - rules_box["y"]) < rules_box["height"]), (code_box, rules_box)
    add_bots(page, 2)
    remove = page.get_by_role("button", name="Remove bot").first
    box = remove.bounding_box()
    assert box is not None
    assert box["height"] < 40, "Remove bot stays on one line"
    assert page.locator(".seat-name").nth(1).inner_text()[0].isupper()  # "Pink bot", a name
    start_game(page)
    tell(page, "Home")
    play_until([page], lambda: page.locator(".overlay .reveal").count() > 0)
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    width = page.evaluate("() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    assert width <= PHONE_360[0]
    points = page.locator(".overlay .points li").first
    points.scroll_into_view_if_needed()
    gain = points.locator(".gain").bounding_box()
    assert gain is not None
    assert gain["x"] + gain["width"] <= PHONE_360[0], "the points are on the screen"
    close_reveal(page)
    head = page.locator(".table-head").bounding_box()
    assert head is not None
    assert head["x"] + head["width"] <= PHONE_360[0]


def test_a_name_over_24_characters_is_said_to_be_too_long_not_cut(players: Players, server: LiveServer) -> None:
    """Said once, under the field, which gets the focus (a group's play found it said twice: the
    page's warning, then the server's refusal of what the page had sent all the same)."""
    page = players.phone()
    page.goto("/")
    page.fill("input[name=name]", "A" * 27)
    expect(page.locator(".name-warning")).to_have_text("27 characters: a name has 24 at most.")
    before = set(server.service.rooms.held)
    page.get_by_role("button", name="Create the room").click()
    expect(page.locator("input[name=name]")).to_be_focused()
    expect(page.locator(".name-warning")).to_have_class(re.compile(r"\berror\b"))
    expect(page.locator("p.error")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"/$"))
    assert set(server.service.rooms.held) == before


def test_chinese_names_get_different_rabbits_and_the_scores_and_track_have_two_labels(players: Players) -> None:
    seat = create_room_by_api(players.base, "小美")
    code = seat["code"]
    page = players.phone()
    page.goto(players.base + "/rules")
    page.evaluate("() => localStorage.setItem('fabula.language', 'zh-Hant')")
    open_seat(page, players.base, code, seat)
    guest = players.phone()
    join_in_ui(guest, players.base, code, "小明")
    marks = page.locator(".seat .rabbit text").all_text_contents()
    assert len(set(marks)) == len(marks) == 2, marks
    page.get_by_role("button", name="加入機器人").click()  # "Add a bot"
    expect(page.locator(".seat")).to_have_count(3)
    page.get_by_role("button", name="開始遊戲").click()
    expect(page.locator(".table-screen")).to_be_visible()
    heading = page.locator(".track h3").inner_text()
    toggle = page.locator(".track summary").inner_text()
    assert heading != toggle, (heading, toggle)
    assert card_sources(page, ".hand-card img")


def test_a_double_tap_on_a_card_on_a_busy_phone_chooses_it(players: Players) -> None:
    """A double tap on a card is one tap: it chooses the card. On a phone busy drawing after the
    first tap, the second tap's handler ran more than 500 ms later and let the card go again;
    the gap is now the one between the taps themselves (the events' stamps)."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    phone = players.phone()
    open_seat(phone, players.base, seat["code"], seat)
    add_bots(phone, 2)
    start_game(phone)
    cards = phone.locator(".hand-card .card-button")
    expect(cards).to_have_count(7)
    phone.evaluate(
        """() => document.addEventListener("click", () => {
            const start = performance.now();
            while (performance.now() - start < 650) {}
        })"""
    )
    cards.first.dblclick()
    phone.wait_for_timeout(1500)
    expect(cards.first).to_have_attribute("aria-pressed", "true")
