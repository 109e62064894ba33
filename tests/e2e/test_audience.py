"""The audience in the browser (issue 36): anyone with the link watches and votes, once a round, for
the card they think is the storyteller's; after the reveal the TV and every phone show where the
crowd's vote went (a marker with its share on each card), the audience's size is a number, and the
album has the audience's leaderboard. A reload is the same audience member, with the same vote."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from .conftest import Players
from .test_album import PHONE_360, TV, game_over, shot
from .ui import (
    BOT_CLUE_MS,
    add_bots,
    await_bot_clue,
    close_reveal,
    create_room_by_api,
    open_seat,
    play_cards,
    play_until,
    start_game,
    vote,
)

#: The audience's vote button (screens/audience.js).
VOTE = "button.crowd-vote"


def sent_by(page: Page) -> list[dict[str, Any]]:
    """Every message ``page`` sends on its WebSockets from now on (call before it connects)."""
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda payload: sent.append(json.loads(payload))))
    return sent


def join_audience(players: Players, code: str, name: str, *, from_join_page: bool = False) -> Page:
    """A phone that joins room ``code``'s audience as ``name`` (from the join page's "Watch and
    vote", or its /watch/CODE link) and shows the audience's screen."""
    page = players.open(*PHONE_360, mobile=True)
    page.goto(f"/join/{code}" if from_join_page else f"/watch/{code}")
    if from_join_page:
        page.get_by_role("link", name="Watch and vote").click()
        page.wait_for_url(re.compile(rf"/watch/{code}$"))
    page.fill("input[name=name]", name)
    page.get_by_role("button", name="Watch and vote").click()
    expect(page.locator(".audience-screen")).to_be_visible()
    expect(page.locator(".audience-badge")).to_have_text(f"audience · {name}")
    return page


def test_a_name_typed_on_the_join_page_comes_along_to_watch_and_vote(players: Players) -> None:
    """Found by a group's play: "Watch and vote" asked again for the name just typed."""
    seat = create_room_by_api(players.base, "Mara")
    page = players.open(*PHONE_360, mobile=True)
    page.goto(f"/join/{seat['code']}")
    page.fill("input[name=name]", "Zoe")
    page.get_by_role("link", name="Watch and vote").click()
    page.wait_for_url(re.compile(rf"/watch/{seat['code']}$"))
    expect(page.locator("input[name=name]")).to_have_value("Zoe")


def test_a_too_long_name_to_watch_with_is_said_and_the_join_waits_for_a_shorter_one(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara")
    page = players.open(*PHONE_360, mobile=True)
    page.goto(f"/watch/{seat['code']}")
    join = page.get_by_role("button", name="Watch and vote")
    page.fill("input[name=name]", "Z" * 27)
    expect(page.locator(".name-warning")).to_have_text("27 characters: a name has 24 at most.")
    expect(page.locator(".name-warning")).to_have_class(re.compile(r"\berror\b"))
    expect(join).to_be_disabled()
    expect(page.locator("input[name=name]")).to_be_focused()  # (the field kept under the finger)
    shot(page, "audience-name-too-long")
    page.fill("input[name=name]", "Zoe")
    expect(page.locator(".name-warning")).to_have_text("")
    expect(page.locator(".name-warning")).not_to_have_class(re.compile(r"\berror\b"))
    join.click()
    expect(page.locator(".audience-badge")).to_have_text("audience · Zoe")


def crowd_vote(page: Page, index: int) -> None:
    """Tap the ``index``-th card of the table, then the vote button; wait for the vote to be shown."""
    cards = page.locator(".audience-cards .card-button")
    cards.nth(index).click()
    expect(page.locator(VOTE)).to_have_text(f"Vote for card {index + 1}")
    page.locator(VOTE).click()
    expect(page.locator(".audience-cards .my-crowd-vote")).to_have_count(1)


#: The crowd's marks on the five cards of the first round, in slot order: two of the three voted
#: for card 1, one for card 2.
SHARES = ["crowd 67%", "crowd 33%", "crowd 0%", "crowd 0%", "crowd 0%"]


def test_the_audience_votes_and_the_tv_and_a_players_phone_show_where_the_crowds_vote_went(players: Players) -> None:
    # a bot tells first: the vote waits for Mara, and the audience votes meanwhile
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 1, "storyteller_cycles": 1})
    code = seat["code"]
    host = players.open(*PHONE_360, mobile=True)
    open_seat(host, players.base, code, seat)
    add_bots(host, 2)
    ada = join_audience(players, code, "Ada", from_join_page=True)
    expect(ada.locator(".audience-screen .status-line")).to_contain_text("The game has not started yet")
    bo = join_audience(players, code, "Bo")
    cy = players.open(*PHONE_360, mobile=True)
    cy_sent = sent_by(cy)
    cy.goto(f"/watch/{code}")
    cy.fill("input[name=name]", "Cy")
    cy.get_by_role("button", name="Watch and vote").click()
    tv = players.open(*TV)
    tv.goto(f"/room/{code}/board")
    # how many watch: a number, on the TV and the phones, never a list of names
    expect(tv.locator(".board-audience")).to_have_text("3 watching", timeout=10_000)
    expect(host.locator(".lobby .audience-count")).to_have_text("3 watching")
    start_game(host)
    expect(host.locator(".table-head .head-audience")).to_contain_text("3 watching")

    # before the vote the audience is told what happens; then the table's cards to vote on
    expect(ada.locator(".audience-screen .status-line")).to_contain_text(
        re.compile("is choosing a card and a clue|The players are laying their cards"), timeout=BOT_CLUE_MS
    )
    await_bot_clue(host)
    expect(ada.locator(".audience-screen .status-line")).to_contain_text("The players are laying their cards")
    play_cards(host)
    expect(host.locator(".action-bar button.primary", has_text=re.compile("^Vote"))).to_be_visible()
    for page in (ada, bo, cy):
        expect(page.locator(".audience-cards .card-button:not([disabled])")).to_have_count(5)
    expect(ada).to_have_title("● Vote now · Fabula")  # (as a player's page says their move is awaited)
    shot(ada, "audience-vote")
    crowd_vote(ada, 0)
    expect(ada).to_have_title("Fabula · audience")
    expect(ada.locator(".audience-screen .status-line")).to_have_text("You voted for card 1 — waiting for the reveal.")
    expect(ada.locator(VOTE)).to_have_count(0)
    expect(ada.locator(".audience-cards .card-button:not([disabled])")).to_have_count(0)
    crowd_vote(bo, 0)
    # a double tap on a card chooses it, even on a phone busy drawing after the first tap (the
    # second tap's handler runs 650 ms later; the taps' own stamps are a moment apart) …
    cy.evaluate(
        """() => document.addEventListener("click", () => {
            const start = performance.now();
            while (performance.now() - start < 650) {}
        })"""
    )
    cy.locator(".audience-cards .card-button").nth(1).dblclick()
    expect(cy.locator(VOTE)).to_have_text("Vote for card 2")
    # … and a double tap on the vote button sends one vote
    cy.locator(VOTE).dblclick()
    expect(cy.locator(".audience-cards .my-crowd-vote")).to_have_count(1)
    expect(cy.locator(".audience-screen p.error")).to_have_count(0)
    votes = [m for m in cy_sent if m.get("type") == "crowd_vote"]
    assert len({m["id"] for m in votes}) == 1, votes  # (one message; a reconnect may send it again, same id)
    assert votes[0]["card"] == cy.locator(".audience-cards .my-crowd-vote img").get_attribute("data-card")
    # a reload is the same audience member, with the vote shown
    ada.reload()
    expect(ada.locator(".audience-cards .my-crowd-vote .slot-number")).to_have_text("1")
    expect(ada.locator(".audience-screen .status-line")).to_have_text("You voted for card 1 — waiting for the reveal.")
    expect(ada.locator(VOTE)).to_have_count(0)
    expect(tv.locator(".board-audience")).to_have_text("3 watching · 3 voted", timeout=10_000)
    shot(ada, "audience-voted")

    # the reveal: on the TV (which holds it for 12 s) and Mara's phone each card has the crowd's
    # share (2 of 3, 1 of 3)
    ada.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # (down among the cards)
    vote(host)
    expect(tv.locator(".board-cards li .crowd-mark")).to_have_text(SHARES)
    expect(tv.locator(".board-audience")).to_contain_text(
        re.compile(r"\d of 3 in the audience found the storyteller's card")
    )
    shot(tv, "tv-reveal-crowd")
    # (a group's play found a card's number half under its crowd marker on the TV)
    overlaps = tv.evaluate(
        """() => [...document.querySelectorAll(".board-cards li")].filter((card) => {
            const [a, b] = [".slot-number", ".crowd-mark"].map((s) => card.querySelector(s).getBoundingClientRect());
            return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        }).length"""
    )
    assert overlaps == 0
    reveal = host.locator(".overlay .reveal")
    expect(reveal.locator(".reveal-card .crowd-mark")).to_have_text(SHARES)
    expect(reveal.locator(".reveal-card").first.locator(".crowd-mark")).to_have_attribute("data-share", "67")
    expect(reveal.locator(".crowd-line")).to_contain_text("in the audience found the storyteller's card")
    shot(host, "player-reveal-crowd")

    # the audience's phone: the storyteller's card, the crowd's marks, whether you were right
    result = ada.locator(".audience-result")
    expect(result.locator("h3")).to_be_in_viewport()  # (brought into sight)
    # with its frame in sight above it, not cut at the screen's edge
    ada.wait_for_function("() => document.querySelector('.audience-result').getBoundingClientRect().top >= 0")
    shot(ada, "audience-result-in-sight")
    expect(result.locator(".reveal-card .crowd-mark")).to_have_text(SHARES)
    teller = result.locator(".reveal-card.teller-card .slot-number").inner_text()
    right = teller == "1"
    verdict = result.locator(".audience-verdict")
    expect(verdict).to_have_text(re.compile("^You found" if right else f"^Not this time: .* card {teller}\\.$"))
    # and where Ada stands among the three: Bo voted as she did, Cy for card 2
    place = 1 if right or teller != "2" else 2
    expect(ada.locator(".audience-points")).to_have_text(
        f"Your points: {1 if right else 0} · #{place} of 3 in the crowd"
    )
    # under the verdict, where the reveal brought the phone (they were some 1,300 px further down)
    expect(result.locator(".audience-verdict + .audience-points")).to_be_in_viewport()
    shot(ada, "audience-result", full_page=True)
    # … and after a reload: the vote is kept in this browser with the audience token
    said = verdict.inner_text()
    ada.reload()
    expect(ada.locator(".audience-result .audience-verdict")).to_have_text(said)
    expect(ada.locator(".audience-result .reveal-card.my-crowd-vote .slot-number")).to_have_text("1")

    # the game to its end: the album's audience leaderboard, on a player's phone and the audience's
    close_reveal(host)
    play_until([host], lambda: game_over(host), timeout=90)
    board = host.locator(".game-over .audience-board")
    expect(board.locator(".audience-leaders li")).to_have_count(3)
    expect(board).to_contain_text("3 in the audience voted")
    leaders = dict(
        zip(
            board.locator(".leader-name").all_inner_texts(),
            board.locator(".leader-points").all_inner_texts(),
            strict=True,
        )
    )
    assert leaders["Ada"] == leaders["Bo"] == f"{1 if right else 0} right"
    places = dict(
        zip(
            board.locator(".leader-name").all_inner_texts(),
            board.locator(".leader-rank").all_inner_texts(),
            strict=True,
        )
    )
    assert places["Ada"] == places["Bo"], f"alike, so one place: {places}"  # (once by name: 1, 2)
    board.scroll_into_view_if_needed()
    shot(host, "player-album-audience")
    expect(ada.locator(".audience-board .audience-leaders li")).to_have_count(3)
    expect(ada.locator(".audience-final")).to_have_text(
        f"Your points in this game: {1 if right else 0} · #{place} of 3 in the crowd"
    )
    assert not ada.locator(".audience-board").evaluate("(board) => board.scrollWidth > board.clientWidth")

    # the TV's final scores (after it has held the last reveal): the leaderboard beside the chart
    expect(tv.locator(".board-replay .replay-body.final .audience-board .audience-leaders li")).to_have_count(
        3, timeout=40_000
    )
    shot(tv, "tv-final-audience")
    # … and its replay, back to the first round: the crowd's markers on its cards, as at the reveal
    replay = tv.locator(".board-replay")
    for _ in range(10):
        if not replay.locator(".replay-prev:not([disabled])").count():
            break
        replay.locator(".replay-prev").click()
    expect(replay.locator(".replay-cards .crowd-mark")).to_have_text(SHARES)
    expect(replay.locator(".replay-head .crowd-line")).to_contain_text(
        "of 3 in the audience found the storyteller's card"
    )
    tv.wait_for_timeout(1500)  # (the cards turned over)
    shot(tv, "tv-replay-crowd")


def test_a_refused_vote_is_said_in_words_and_the_count_is_a_number(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 1, "storyteller_cycles": 1})
    code = seat["code"]
    host = players.open(*PHONE_360, mobile=True)
    open_seat(host, players.base, code, seat)
    add_bots(host, 2)
    start_game(host)
    # the server's refusal (as if another tab of this member had voted first), made by the test
    page = players.open(*PHONE_360, mobile=True)

    def refuse_votes(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            found = json.loads(message)
            if found.get("type") == "crowd_vote":
                refusal = {"type": "error", "id": found["id"], "code": "already_voted", "message": "voted"}
                socket.send(json.dumps(refusal))
            else:
                server.send(message)

        socket.on_message(from_page)

    page.route_web_socket(re.compile(r"/ws/"), refuse_votes)
    page.goto(f"/watch/{code}")
    page.fill("input[name=name]", "Dee")
    page.get_by_role("button", name="Watch and vote").click()
    await_bot_clue(host)
    play_cards(host)
    page.locator(".audience-cards .card-button").nth(2).click()
    page.locator(VOTE).click()
    expect(page.locator(".audience-screen p.error")).to_have_text("You have voted this round already.")
    expect(page.locator(".audience-cards .my-crowd-vote")).to_have_count(0)

    # the audience's size: a number (formatted for the reader), never names
    count = page.locator(".audience-screen .audience-count")
    expect(count).to_have_attribute("data-count", re.compile(r"^\d+$"))
    line = page.evaluate(
        """async () => {
            const { audienceLine } = await import("/static/screens/crowd.js");
            const room = { audience: { count: 2013, voted: 1500 }, game: { phase: "vote" } };
            return audienceLine(room).textContent;
        }"""
    )
    assert line == "2,013 watching · 1,500 voted"
    nobody = (
        """async () => (await import("/static/screens/crowd.js")).audienceLine({ audience: { count: 0, voted: 0 } })"""
    )
    assert page.evaluate(nobody) is None, "nobody watching: no line"
