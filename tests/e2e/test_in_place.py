"""The page changes in place (`dom.show`), and what a group play-test of it found: a code with a
symbol said nothing, the reveal took the keys from a chat line being typed, the party storyteller
was told a vote could be changed and could not, a new game opened scrolled down, and the tab's
title kept the old language."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import WebSocketRoute, expect

from .conftest import Players
from .test_album import alone_with_bots, game_over, shot
from .ui import (
    add_bots,
    answered,
    await_bot_clue,
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


def test_a_room_code_typed_with_spaces_is_the_code_without_them(players: Players) -> None:
    """Found by a group's play: "ab 1" was refused with "  is not one of them" (a space, unseen)."""
    page = players.phone()
    page.goto("/")
    page.locator("input.code-input").fill(" kx7 pq ")
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page).to_have_url(players.base + "/join/KX7PQ")


def test_the_reveal_leaves_a_chat_line_being_typed_alone(players: Players) -> None:
    # (table talk as a house rule: without it the table's chat is closed during the vote)
    seat = create_room_by_api(
        players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1}, table_talk=True
    )
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
    expect(page.get_by_text("Vote first, then tap a card for the red token.")).to_have_count(0)  # (done)
    enabled_table_cards(page).first.click()
    expect(page.locator(".table-card .red-mark")).to_have_count(1)
    reply = answered(page, page.locator(".action-bar button.red").click)
    assert reply["type"] == "ack", reply
    # both are placed (the bots may have ended the round by now): the hint that asked for them is gone
    expect(page.get_by_text("Vote first, then tap a card for the red token.")).to_have_count(0)


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


def test_every_tap_on_add_a_bot_counts(players: Players) -> None:
    """Quick taps (a tap while the last was on its way met a disabled button and was dropped: 5
    taps gave 3 bots, 11 taps 350 ms apart 6) each give a bot; the button says how many are still
    coming, and stops at a full table."""
    seat = create_room_by_api(players.base, "Hal")
    page = players.phone()
    # A slow network, made certain: the first "add_bot" waits on the wire until the taps are
    # made (a local server answers faster than a finger taps, and the queue never showed).
    held: list[str | bytes] = []
    servers: list[WebSocketRoute] = []
    holding = True

    def slow_network(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def to_server(message: str | bytes) -> None:
            if holding and '"add_bot"' in str(message):
                held.append(message)
            else:
                server.send(message)

        socket.on_message(to_server)
        servers.append(server)

    page.route_web_socket(re.compile(r".*"), slow_network)
    open_seat(page, players.base, seat["code"], seat)
    expect(page.locator(".seat")).to_have_count(1)
    tap = """async ([taps, apart]) => {
        const labels = [];
        for (let n = 0; n < taps; n += 1) {
            document.querySelector("button.add-bot").click();
            labels.push(document.querySelector("button.add-bot").textContent);
            if (apart) await new Promise((done) => setTimeout(done, apart));
        }
        return labels;
    }"""
    labels = page.evaluate(tap, [5, 90])  # five quick ones
    assert labels[-1] == "Add a bot (5 coming)", labels
    assert len(held) == 1  # one at a time: the next goes when this one is answered
    holding = False
    for message in held:
        servers[-1].send(message)
    expect(page.locator(".seat")).to_have_count(6)
    expect(page.locator("button.add-bot")).to_have_text("Add a bot")
    page.evaluate(tap, [7, 350])  # seven more, 350 ms apart: six fill the table, the last finds it full
    expect(page.locator(".seat")).to_have_count(12)
    expect(page.locator("button.add-bot")).to_be_disabled()
    expect(page.locator(".lobby p.error")).to_have_count(0)


def test_two_voting_tokens_are_numbered_and_a_third_tap_says_which_moved(players: Players) -> None:
    """With two tokens (7 players and more) a third card tapped used to take the first token
    silently, and both tokens looked the same: each now shows its number, and the bar says which
    token moved from which card to which."""
    page, _ = alone_with_bots(players, "Hal", 6, options={"first_storyteller": 1})
    await_bot_clue(page)
    play_cards(page)
    vote_button = page.locator(".action-bar button.primary", has_text="Vote")
    expect(vote_button).to_be_visible(timeout=30_000)
    cards = enabled_table_cards(page)
    slots = [int(cards.nth(i).locator(".slot-number").inner_text()) for i in range(3)]
    marks = page.locator(".table-card .token-mark .token")
    cards.nth(0).click()
    cards.nth(1).click()
    expect(marks).to_have_text(["1", "2"])
    cards.nth(2).click()  # both are down: token 1 leaves the first card for the third
    expect(cards.nth(0).locator(".token")).to_have_count(0)
    expect(cards.nth(1).locator(".token")).to_have_text("2")
    expect(cards.nth(2).locator(".token")).to_have_text("1")
    expect(page.locator(".action-bar .token-moved")).to_have_text(
        f"Token 1 moved from card {slots[0]} to card {slots[2]}."
    )
    cards.nth(0).click()  # a fourth: now token 2, which has stayed longest, moves
    expect(cards.nth(0).locator(".token")).to_have_text("2")
    expect(page.locator(".action-bar .token-moved")).to_have_text(
        f"Token 2 moved from card {slots[1]} to card {slots[0]}."
    )
    reply = answered(page, vote_button.click)
    assert reply["type"] == "ack", reply
    expect(page.locator(".action-bar .token-moved")).to_have_count(0)


def test_a_reloaded_page_still_says_the_vote_is_in_and_may_change(players: Players) -> None:
    """After a reload the ✓ on the card stayed but "Your vote is in. You may change it…" was gone:
    the page now reads it from the state."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    fay_seat = httpx.post(f"{players.base}/api/rooms/{code}/join", json={"name": "Fay", "colour": "pink"}).json()
    gus_seat = httpx.post(f"{players.base}/api/rooms/{code}/join", json={"name": "Gus", "colour": "yellow"}).json()
    mara, fay, gus = players.open(), players.phone(), players.phone()
    open_seat(mara, players.base, code, seat)
    open_seat(fay, players.base, code, fay_seat)
    open_seat(gus, players.base, code, gus_seat)
    start_game(mara, [fay, gus])
    tell(mara, "A long journey")
    play_cards(fay)
    play_cards(gus)
    expect(fay.locator(".action-bar button.primary", has_text="Vote")).to_be_visible(timeout=30_000)
    vote(fay)
    expect(fay.locator(".notice-line")).to_have_text("Your vote is in. You may change it until everyone has voted.")
    fay.reload()
    expect(fay.locator(".token-mark.sent")).to_have_text("✓")
    expect(fay.locator(".notice-line")).to_have_text("Your vote is in. You may change it until everyone has voted.")


def test_a_reloaded_page_that_is_awaited_makes_no_console_error(players: Players) -> None:
    """The nudge (vibration, a tone) on a page nobody has tapped yet — a reload while it is your
    turn — was refused by the browser with a console message each time."""
    page, _ = alone_with_bots(players, "Mara", 2, options={"first_storyteller": 0})
    messages: list[str] = []
    page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
    page.reload()
    expect(page.locator(".clue-input")).to_be_visible()
    page.wait_for_timeout(500)
    assert not [m for m in messages if "vibrate" in m or "AudioContext" in m], messages


def test_the_storyteller_s_partner_is_told_to_play_a_decoy_and_not_to_vote(players: Players) -> None:
    # six seats: seat 0 (Tia) and seat 3 (a bot, the first storyteller) are a team
    page, _ = alone_with_bots(players, "Tia", 5, mode="teams", options={"first_storyteller": 3})
    await_bot_clue(page)
    expect(page.locator(".status-line")).to_contain_text("partner")
    expect(page.locator(".status-line")).to_contain_text("You do not vote this round.")


def test_the_timers_set_are_said_in_the_lobby_and_the_clue_s_counts_from_the_reveal(players: Players) -> None:
    """The lobby never showed the timers set, and a 20-s clue timer showed 0:35 after a reveal
    without a word of why."""
    # (a bot tells first, Ines second: a bot's clue in round 2 could end the clue timer before it is read)
    seat = create_room_by_api(players.base, "Ines", clue_seconds=20, vote_seconds=60, options={"first_storyteller": 2})
    page = players.phone()
    open_seat(page, players.base, seat["code"], seat)
    expect(page.locator(".lobby .timers")).to_have_text("Time limits: Clue 20 s and Voting 60 s.")
    add_bots(page, 2)
    start_game(page)
    await_bot_clue(page)
    play_cards(page)
    expect(page.locator(".action-bar button.primary", has_text="Vote")).to_be_visible(timeout=30_000)
    vote(page)
    # round 2: Ines tells, her 20 s counted once the reveal is over, and the timer says so
    expect(page.locator(".table-head .countdown")).to_contain_text("the reveal, then 20 s for the clue")


def test_the_join_page_keeps_up_with_the_room_and_says_the_host_can_remove_a_bot(players: Players) -> None:
    """The join page read the room once: its seat count and free rabbits went stale while a
    newcomer typed; and a lobby full of bots said only "Every seat is taken"."""
    seat = create_room_by_api(players.base, "Hal", mode="odyssey")
    code = seat["code"]
    host, newcomer = players.open(), players.phone()
    open_seat(host, players.base, code, seat)
    newcomer.goto(f"/join/{code}")
    expect(newcomer.locator("ul.seated li")).to_have_count(1)
    newcomer.locator("input[name=name]").fill("Noa")
    add_bots(host, 1)
    expect(newcomer.locator("ul.seated li")).to_have_count(2, timeout=10_000)
    expect(newcomer.locator("input[name=name]")).to_have_value("Noa")  # what was typed stays
    add_bots(host, 10)  # a full table of twelve
    expect(newcomer.locator(".join-closed")).to_contain_text(
        "Every seat is taken. You can watch. The host can remove a bot to make room for you.", timeout=10_000
    )


def test_the_host_frees_a_gone_player_s_seat_mid_game_and_the_removed_player_stays_out(players: Players) -> None:
    """Mid-game the host could not free the seat of someone whose phone was gone for a latecomer,
    and a removed player sat down again at once through the same link."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    fay_seat = httpx.post(f"{players.base}/api/rooms/{code}/join", json={"name": "Fay", "colour": "pink"}).json()
    mara, fay = players.open(), players.phone()
    open_seat(mara, players.base, code, seat)
    open_seat(fay, players.base, code, fay_seat)
    add_bots(mara, 1)
    start_game(mara, [fay])
    fay_context = fay.context
    fay.close()  # Fay's phone is gone
    mara.get_by_role("button", name="Free Fay's seat").click()
    mara.get_by_role("button", name="Free the seat").click()
    expect(mara.get_by_role("button", name="Free Fay's seat")).to_have_count(0)

    # a latecomer takes over the seat
    leo = players.phone()
    leo.goto(f"/join/{code}")
    leo.locator("input[name=name]").fill("Leo")
    leo.get_by_role("button", name="Take over this seat").click()
    leo.locator(".table-screen").wait_for()

    # Fay, back, is told she was removed, and the join link does not seat her again
    again = fay_context.new_page()
    again.goto(f"/room/{code}")
    expect(again.locator(".fatal h2")).to_have_text("The host removed you from this room.")
    again.goto(f"/join/{code}")
    expect(again.locator(".join-closed")).to_have_count(0)  # (Leo took the only open seat: a bot's is left)
    again.locator("input[name=name]").fill("Fay")
    again.get_by_role("button", name="Take over this seat").click()
    expect(again.locator("form p.error")).to_have_text(
        "The host removed you from this room: you can watch it, not take a seat again."
    )


def test_a_long_clue_leaves_the_hand_in_view_on_a_phone(players: Players) -> None:
    """A 200-character clue in the heading's size pushed the hand below the fold at 360 px."""
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    fay_seat = httpx.post(f"{players.base}/api/rooms/{code}/join", json={"name": "Fay", "colour": "pink"}).json()
    mara, fay = players.open(), players.open(360, 740, mobile=True)
    open_seat(mara, players.base, code, seat)
    open_seat(fay, players.base, code, fay_seat)
    add_bots(mara, 1)
    start_game(mara, [fay])
    clue = "The lighthouse keeper who counted every wave for forty years and never once told anyone what " * 3
    tell(mara, clue[:200])
    expect(fay.locator(".action-bar button.primary", has_text="Play")).to_be_visible()
    expect(fay.locator("p.clue")).to_have_class("clue long")
    card = fay.locator(".hand-card").first.bounding_box()
    bar = fay.locator(".action-bar").bounding_box()
    assert card is not None
    assert bar is not None
    assert card["y"] + card["height"] / 2 < bar["y"], "the hand is seen above the action bar without scrolling"


def test_a_countdown_kept_across_a_redraw_ticks_with_the_new_drawings_words(players: Players) -> None:
    """A countdown element that `show` keeps takes the newest drawing's words, as its handlers
    do: it kept its first ones ("… the reveal, then 120 s for the clue" all through the play and
    the vote: found playing in WebKit)."""
    page = players.phone()
    page.goto("/rules")
    kept, text = page.evaluate(
        """async () => {
            const { show } = await import("/static/dom.js");
            const { countdown, tickCountdowns } = await import("/static/screens/parts.js");
            const root = document.body.appendChild(document.createElement("div"));
            const deadline = Date.now() / 1000 + 100;
            show(root, countdown(deadline, (time) => `the clue's words, ${time}`));
            const first = root.firstChild;
            show(root, countdown(deadline + 50, (time) => `the play's words, ${time}`));
            tickCountdowns();
            return [root.firstChild === first, first.textContent];
        }"""
    )
    assert kept, "the countdown is the same element"
    assert re.fullmatch(r"the play's words, 2:(2\d|30)", text)


def test_an_address_with_no_page_says_so_and_keeps_the_rooms_code(players: Players) -> None:
    """A link cut or guessed wrong (/room/CODE/album) opened the server's bare "Not Found"."""
    page = players.phone()
    response = page.goto("/room/kx7pq/album")
    assert response is not None
    assert response.status == 404
    expect(page.locator(".no-such-page")).to_have_text(
        "There is no page at /room/kx7pq/album. Start here, or type a room's code."
    )
    expect(page.locator("input.code-input")).to_have_value("KX7PQ")
    expect(page).to_have_title("Page not found · Fabula")  # (the tab says it too)
    page.select_option("select.language", "zh-Hans")
    expect(page.locator(".no-such-page")).to_have_text("/room/kx7pq/album 没有这个页面。从这里开始，或输入房间代码。")
    expect(page).to_have_title("找不到页面 · Fabula")
    shot(page, "phone-no-such-page-zh-Hans")
    page.goto("/")
    expect(page.locator("input.code-input")).to_be_visible()
    expect(page).to_have_title("Fabula")
    expect(page.locator(".no-such-page")).to_have_count(0)
    api = httpx.get(players.base + "/api/no-such-thing", headers={"accept": "text/html"})
    assert (api.status_code, api.text) == (404, "Not Found"), "an API address is no page"
