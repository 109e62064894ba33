"""Long words and long text on small and large screens (issue 34's follow-ups): names in the
replay wrap between words, a 200-character clue leaves the reveal's cards in sight, a clue stops
at its limit and says so, and the cards' descriptions are in the page's language."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from .conftest import Players
from .test_album import PHONE_360, TV, shot
from .ui import (
    TAPS_APART_MS,
    add_bots,
    close_reveal,
    create_room_by_api,
    enabled_hand_cards,
    join_in_ui,
    open_seat,
    start_game,
    tell,
)

#: Where a word is broken in two: for every element ``selector`` finds, its text with a ``|``
#: where a line ends inside a word (between two letters, not at a space or after a hyphen), and
#: any element whose text runs past its box (ellipsised) without its whole text in its title.
BROKEN_WORDS = """(selector) => {
    const found = [];
    for (const element of document.querySelectorAll(selector)) {
        const text = element.textContent;
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
        const boxes = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.textContent.length; i += 1) {
                const range = document.createRange();
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const box = range.getClientRects()[0];
                boxes.push({ ch: node.textContent[i], top: box ? box.top : null });
            }
        }
        for (let i = 1; i < boxes.length; i += 1) {
            const [before, after] = [boxes[i - 1], boxes[i]];
            if (before.top === null || after.top === null || after.top <= before.top + 2) continue;
            if (/\\s|-/.test(before.ch) || /\\s/.test(after.ch)) continue;
            found.push(text.slice(0, i) + "|" + text.slice(i));
        }
        if (element.scrollWidth > element.clientWidth + 1 && element.title !== text) {
            found.push(`${text} (cut, with no title)`);
        }
    }
    return found;
}"""


def one_round_then_over(
    players: Players, page: Page, name: str, bots: int, clue: str = "A long journey"
) -> dict[str, Any]:
    """In ``page``, a room of ``name`` (the first storyteller, giving ``clue``) and ``bots`` bots,
    whose game the host ends once the first round is revealed; the host's seat. ``page`` is left at
    the game over."""
    seat = create_room_by_api(players.base, name, options={"first_storyteller": 0, "storyteller_cycles": 3})
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, bots)
    start_game(page)
    tell(page, clue)
    expect(page.locator(".overlay .reveal")).to_be_visible(timeout=30_000)
    close_reveal(page)
    page.get_by_role("button", name="End the game now").click()
    page.locator(".confirm").get_by_role("button", name="End the game").click()
    expect(page.locator(".game-over")).to_be_visible()
    return seat


def open_replay(page: Page) -> None:
    page.locator(".history-replay").click()
    replay = page.locator(".replay-overlay .replay")
    expect(replay.locator(".replay-where")).to_contain_text("Round 1 of 1")
    pause = replay.get_by_role("button", name=re.compile("Pause"))
    if pause.count():
        pause.click()
    page.wait_for_timeout(1500)  # the cards turn over


def test_the_replay_wraps_names_between_words_at_1280_and_360_px(players: Players) -> None:
    """Issue 34: at 1280 × 800 the replay's seven cards broke a name mid-word ("Lauren|ce")."""
    desktop = players.open(1280, 800)
    seat = one_round_then_over(players, desktop, "Laurence Bartholomew", 6)
    open_replay(desktop)
    expect(desktop.locator(".replay-cards .reveal-card")).to_have_count(7)
    names = ".replay .owner-name, .replay .points-name, .replay-scores .name, .replay .tag-inline"
    assert desktop.locator(".replay .owner-name", has_text="Laurence").count() == 1
    broken: list[str] = desktop.evaluate(BROKEN_WORDS, names)
    shot(desktop, "replay-1280-seven-cards")
    assert not broken, broken
    # every card whole inside the cards' area (none cut at its sides)
    cut: list[str] = desktop.evaluate(
        """() => { const area = document.querySelector(".replay-cards").getBoundingClientRect();
            return [...document.querySelectorAll(".replay-cards .reveal-card")]
                .filter((card) => { const box = card.getBoundingClientRect();
                    return box.left < area.left - 1 || box.right > area.right + 1 || box.bottom > area.bottom + 1; })
                .map((card) => card.textContent); }"""
    )
    assert not cut, cut
    phone = players.open(*PHONE_360, mobile=True)
    open_seat(phone, players.base, seat["code"], seat)
    open_replay(phone)
    broken = phone.evaluate(BROKEN_WORDS, names)
    shot(phone, "replay-360-seven-cards")
    assert not broken, broken


#: A clue of 200 characters, the most there may be.
LONG_CLUE = (
    "The moment you realise that the long road home was the adventure all along, and that every"
    " stranger you met on the way was a friend you had not yet recognised, waiting by the side of a quiet old lane!"
)

#: The first row of the reveal's cards (their pictures' boxes), the top of the "Continue" bar over
#: the bottom of the reveal, the window's height and how far the reveal is scrolled.
FIRST_ROW = """() => {
    const pictures = [...document.querySelectorAll(".overlay .reveal-card .card-img")];
    const top = Math.min(...pictures.map((p) => p.getBoundingClientRect().top));
    return {
        row: pictures.map((p) => p.getBoundingClientRect()).filter((box) => box.top < top + 2)
            .map((box) => ({ top: box.top, bottom: box.bottom })),
        bar: document.querySelector(".overlay .reveal-actions").getBoundingClientRect().top,
        height: window.innerHeight,
        scrolled: document.querySelector(".overlay .reveal").scrollTop,
    };
}"""


def test_a_200_character_clue_leaves_the_reveals_first_cards_in_sight_at_360_px(players: Players) -> None:
    """Issue 34: at 360 × 800 the reveal of a 200-character clue had its cards below the fold."""
    assert len(LONG_CLUE) == 200
    phone = players.open(360, 800, mobile=True)
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 3})
    open_seat(phone, players.base, seat["code"], seat)
    add_bots(phone, 6)  # (seven at the table: the sentence of who found the card is long too)
    start_game(phone)
    tell(phone, LONG_CLUE)
    reveal = phone.locator(".overlay .reveal")
    expect(reveal).to_be_visible(timeout=30_000)
    phone.wait_for_timeout(1500)  # the cards turn over
    shot(phone, "reveal-360-long-clue")
    seen: dict[str, Any] = phone.evaluate(FIRST_ROW)
    assert seen["scrolled"] == 0
    assert len(seen["row"]) >= 2, seen
    for box in seen["row"]:
        assert box["bottom"] <= min(seen["bar"], seen["height"]) + 1, seen
    # the clue may be shortened, never lost: it is there whole, or a tap shows it whole
    clue = reveal.locator(".reveal-clue")
    expect(clue).to_contain_text(LONG_CLUE)
    if clue.evaluate("(p) => p.scrollHeight > p.clientHeight + 1"):
        reveal.get_by_role("button", name="Show the whole clue").click()
        assert not clue.evaluate("(p) => p.scrollHeight > p.clientHeight + 1")
        expect(reveal.get_by_role("button", name="Show less of the clue")).to_be_visible()
        shot(phone, "reveal-360-long-clue-whole")


#: What of the page runs past the screen's right edge: the page's own width beyond the window's,
#: and each text element whose text runs past its box.
RUNS_OFF = """(selector) => ({
    page: document.documentElement.scrollWidth - window.innerWidth,
    cut: [...document.querySelectorAll(selector)]
        .filter((element) => element.scrollWidth > element.clientWidth + 1
            || element.getBoundingClientRect().right > window.innerWidth + 1)
        .map((element) => element.className),
})"""


def test_a_200_character_word_as_a_clue_wraps_on_the_tv_and_the_phones(players: Players) -> None:
    """Found by a group's play: a clue of one 200-character word ran off both sides of the TV (one
    line some 4,000 px wide) and off a 360-px phone's "Pick the card … that best fits" line."""
    word = "x" * 200
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    code = seat["code"]
    mara = players.open(360, 800, mobile=True)
    open_seat(mara, players.base, code, seat)
    ben = players.open(360, 800, mobile=True)
    join_in_ui(ben, players.base, code, "Ben")
    add_bots(mara, 1)
    tv = players.open(*TV)
    tv.goto(f"{players.base}/room/{code}/board")
    start_game(mara, [ben])
    tell(mara, word)
    expect(ben.locator(".status-line")).to_contain_text("xxxxxxxxxx")  # (the clue quoted, its start)
    expect(tv.locator(".board-clue")).to_contain_text(word)
    shot(tv, "tv-200-character-word")
    shot(ben, "phone-200-character-word")
    assert tv.evaluate(RUNS_OFF, ".board-clue") == {"page": 0, "cut": []}
    assert ben.evaluate(RUNS_OFF, ".clue, .status-line") == {"page": 0, "cut": []}


def test_a_clue_stops_at_200_characters_says_so_and_a_longer_one_is_refused_aloud(players: Players) -> None:
    """Issue 34: a clue over 200 characters was cut without a word (the field's maxlength, which
    also counted an emoji as two). The field stops at 200 characters as the server counts them,
    and says so; a longer clue that reaches the server anyway is refused, and the page says why."""
    phone = players.open(*PHONE_360, mobile=True)
    lengthen = {"next_clue": False}
    replies: list[dict[str, Any]] = []

    def through(route: WebSocketRoute) -> None:
        # the page's messages go on to the server (a clue, while asked, made 250 characters long),
        # the server's come back, kept
        server = route.connect_to_server()

        def incoming(message: str | bytes) -> None:
            found = json.loads(message)
            if isinstance(found, dict) and found.get("type") in ("ack", "error"):
                replies.append(found)
            route.send(message)

        server.on_message(incoming)

        def outgoing(message: str | bytes) -> None:
            found = json.loads(message)
            action = found.get("action") if isinstance(found, dict) else None
            if lengthen["next_clue"] and isinstance(action, dict) and action.get("type") == "tell":
                action["clue"] = "z" * 250
                lengthen["next_clue"] = False
            server.send(json.dumps(found))

        route.on_message(outgoing)

    phone.route_web_socket(re.compile(r"/ws/"), through)
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 3})
    open_seat(phone, players.base, seat["code"], seat)
    add_bots(phone, 2)
    start_game(phone)
    field = phone.locator(".clue-input")
    counter = phone.locator(".clue-length")
    codepoints = "(field) => [...field.value].length"
    # an emoji is one character, as the server counts (the field's maxlength counted two)
    field.click()
    phone.keyboard.insert_text("💥" * 150)
    assert field.evaluate(codepoints) == 150
    expect(counter).to_have_text("150 / 200 characters")
    field.fill("")
    phone.keyboard.insert_text("a" * 190)
    expect(counter).to_have_text("190 / 200 characters")
    # pasted past the limit: the field keeps 200 and says that the rest was left out
    phone.keyboard.insert_text("b" * 60)
    clue = "a" * 190 + "b" * 10
    assert field.input_value() == clue
    expect(counter).to_contain_text("200 / 200 characters")
    expect(counter).to_contain_text("the rest did not fit")
    # typed at the limit: nothing more goes in, and it says why
    phone.keyboard.type("cc")
    assert field.input_value() == clue
    expect(counter).to_contain_text("can be no longer")
    shot(phone, "clue-at-its-limit")
    # a longer clue reaching the server (from something other than this page) is refused aloud
    enabled_hand_cards(phone).first.click()
    send = phone.locator("form.action-bar button[type=submit]")
    lengthen["next_clue"] = True
    send.click()
    expect(phone.get_by_role("alert")).to_be_visible()
    assert [(r["type"], r.get("code")) for r in replies[-1:]] == [("error", "clue_too_long")], replies
    expect(phone.get_by_role("alert")).to_contain_text("That clue is too long (200 characters at most)")
    assert field.input_value() == clue  # (still there to shorten)
    # the clue of 200 goes, whole (a second tap as a person makes it: not a double tap)
    phone.wait_for_timeout(TAPS_APART_MS)
    send.click()
    expect(phone.locator(".overlay .reveal-clue")).to_contain_text(clue, timeout=30_000)


def described(page: Page, language: str) -> dict[str, str]:
    """The room's cards' descriptions in ``language``, as the server gives them."""
    code = page.url.rsplit("/", 1)[1]
    found: dict[str, str] = page.evaluate(
        """async ([code, language]) => {
            const answer = await (await fetch(`/api/rooms/${code}/cards?lang=${language}`)).json();
            return Object.fromEntries(answer.cards.map((card) => [card.id, card.description]));
        }""",
        [code, language],
    )
    return found


def test_a_chinese_page_describes_the_pictures_in_its_own_script(players: Players) -> None:
    """Issue 34: the pictures' alt text was English on a 繁體中文 or 简体中文 page."""
    phone = players.open(*PHONE_360, mobile=True)
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    open_seat(phone, players.base, seat["code"], seat)
    add_bots(phone, 2)
    start_game(phone)
    picture = phone.locator(".hand-card img.card-img").first
    card = re.sub(r"^.*/cards/([^.]+)\..*$", r"\1", picture.get_attribute("src") or "")
    english, traditional, simplified = (described(phone, language) for language in ("en", "zh-Hant", "zh-Hans"))
    assert re.search(r"[\u4e00-\u9fff]", traditional[card]), traditional[card]
    assert traditional[card] != simplified[card]
    expect(picture).to_have_attribute("alt", english[card])
    # another language chosen: the pictures say what they show in it, at once
    phone.select_option("select.language", "zh-Hant")
    expect(picture).to_have_attribute("alt", traditional[card])
    shot(phone, "hand-zh-Hant")
    # and from the start, for a page that opens in it
    phone.reload()
    phone.locator(".table-screen").wait_for()
    expect(phone.locator(".hand-card img.card-img").first).to_have_attribute("alt", traditional[card])
    phone.select_option("select.language", "zh-Hans")
    expect(phone.locator(".hand-card img.card-img").first).to_have_attribute("alt", simplified[card])
    # the full-screen picture, too
    phone.locator(".hand-card button.zoom").first.click()
    expect(phone.locator("img.viewer-img")).to_have_attribute("alt", simplified[card])
