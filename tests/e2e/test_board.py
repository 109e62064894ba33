"""The board for a TV (/room/CODE/board) follows the room as a spectator: the join QR code in the
lobby, then the clue, the cards on the table and the scores; never anyone's hand."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import WebSocket, expect

from .conftest import Players
from .ui import add_bots, close_reveal, create_room_by_api, join_in_ui, open_seat, play_cards, start_game, tell, vote


def test_the_board_follows_the_game_and_never_shows_a_hand(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    code = seat["code"]
    board = players.open(1920, 1080)
    states: list[dict[str, Any]] = []

    def listen(socket: WebSocket) -> None:
        def received(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message["type"] == "state":
                states.append(message["room"])

        socket.on("framereceived", received)

    board.on("websocket", listen)
    board.goto(f"/room/{code}/board")

    # The lobby: a QR code to join, the link, who is here.
    qr = board.locator("img.board-qr")
    expect(qr).to_be_visible()
    board.wait_for_function("() => document.querySelector('img.board-qr').naturalWidth > 0")
    box = qr.bounding_box()
    assert box is not None
    assert box["width"] >= 300, "big enough to scan from across the room"
    expect(board.locator(".board-url")).to_have_text(f"{players.base}/join/{code}")
    expect(board.locator(".board-players li")).to_contain_text(["Mara"])
    host, guest = players.open(), players.open()
    open_seat(host, players.base, code, seat)
    join_in_ui(guest, players.base, code, "Ben")
    add_bots(host, 1)
    expect(board.locator(".board-players li")).to_have_count(3)
    expect(board.locator("header.top")).to_have_count(0)  # nothing but the board
    start_game(host, [guest])

    # The storyteller thinks; the board shows whose turn it is, and no card at all.
    expect(board.locator(".board-line")).to_have_text("Mara is choosing a card and a clue…")
    expect(board.locator(".board-space")).to_have_count(31)
    assert board.locator("img.card-img").count() == 0
    clue = "<i>Lighthouse</i> & co"
    tell(host, clue)
    expect(board.locator(".board-clue")).to_have_text(f"“{clue}”")
    assert board.locator(".board-clue i").count() == 0  # the clue is text, not markup
    expect(board.locator(".board-line")).to_contain_text("Playing cards")
    assert board.locator("img.card-img").count() == 0  # the cards played stay face down

    # The table is laid: five cards (three players) in the middle, whoever still votes.
    play_cards(guest)
    expect(board.locator(".board-cards li")).to_have_count(5)
    # named, not counted (the room once said "waiting for 3", and whom only by dim rabbits)
    expect(board.locator(".board-line")).to_have_text("Voting — waiting for Ben")
    expect(board.locator(".board-players li.waiting")).to_have_count(1)
    expect(board.locator(".board-players li.waiting")).to_contain_text("Ben")
    assert board.locator("img.card-img").count() == 5
    assert board.locator(".board-cards .owner").count() == 0  # owners stay secret until the reveal
    vote(guest)

    # The reveal: last round's cards with their owners and voters, the scores.
    expect(board.locator(".board-clue.past")).to_have_text(f"“{clue}”")
    expect(board.locator(".board-cards li")).to_have_count(5)
    expect(board.locator(".board-cards li.teller-card")).to_have_count(1)
    expect(board.locator(".board-cards .owner")).to_have_count(5)
    expect(board.locator(".board-round")).to_contain_text("Round 1: Mara's clue")
    expect(board.locator(".board-now")).to_contain_text("now: round 2")  # and whose turn it is now
    # every word of the reveal readable from 3 m: 24 px or more (the rabbits' initials are icons)
    small = board.evaluate(
        """() => [...document.querySelectorAll(".board-centre *")]
            .filter((e) => !e.closest(".rabbit, svg") && parseFloat(getComputedStyle(e).fontSize) < 24
                && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
            .map((e) => `${e.className}: ${getComputedStyle(e).fontSize}`)"""
    )
    assert not small, small
    # each player's change, as the phones show it (the headline says only the rule's base score)
    expect(board.locator(".board-players .board-gain")).to_have_count(3)
    on_phone = sorted(text.strip() for text in host.locator(".overlay .points .gain").all_inner_texts())
    assert sorted(text.strip() for text in board.locator(".board-players .board-gain").all_inner_texts()) == on_phone
    close_reveal(host)
    # each player: the rabbit (an initial), the name as text, the score in bold
    on_board = dict(
        board.eval_on_selector_all(
            ".board-players li",
            """items => items.map((li) => [
                li.querySelector(".board-name").textContent,
                li.querySelector("strong").textContent.trim(),
            ])""",
        )
    )
    names, points = host.locator(".scores .name").all_inner_texts(), host.locator(".scores .score").all_inner_texts()
    scores = dict(zip(names, points, strict=True))
    assert on_board == scores
    assert sum(int(score) for score in scores.values()) > 0

    assert board.locator(".hand, .hand-card, .action-bar, .clue-input").count() == 0
    assert states, "the board got the room's states"
    for room in states:
        assert room["you"] is None
        assert room["game"] is None or room["game"]["hand"] is None, "a hand was sent to the board"
