"""What a group still missed after issue 34: the TV board had no language menu, nothing said how a
game ends (only "Scores (to 30)", though a game may end after a number of rounds or when the cards
run out), and a code with a symbol typed in the address bar (/join/zz9q!) showed the home page
without a word. Each test failed on the client as it was before its fix."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocket, expect

from .conftest import Players
from .test_album import shot
from .ui import add_bots, create_room_by_api, open_seat, start_game

TV = (1920, 1080)
PHONE_360 = (360, 800)


# ---------------------------------------------------------------- 1. the TV's language


def in_the_way(tv: Page) -> list[str]:
    """What the board's language menu covers of the game: a space of the track, a card, the clue,
    a line of the centre, a player (read in one evaluation: a state may redraw the board)."""
    found: list[str] = tv.evaluate(
        """() => {
            const menu = document.querySelector("select.language").getBoundingClientRect();
            const over = (r) =>
                r.width > 0 && r.left < menu.right && menu.left < r.right && r.top < menu.bottom && menu.top < r.bottom;
            // boxes, and lines of text (a heading's box is as wide as the screen; its words are not)
            const boxes = [...document.querySelectorAll(".board-space, .board-goal, .board-cards li, .board-qr")];
            const texts = [...document.querySelectorAll(
                ".board-clue, .board-line, .board-players li, .board-round, .board-lobby h1, .board-url"
            )];
            const words = (element) => {
                const range = document.createRange();
                range.selectNodeContents(element);
                return range.getBoundingClientRect();
            };
            return [
                ...boxes.filter((part) => over(part.getBoundingClientRect())),
                ...texts.filter((part) => over(words(part))),
            ].map((part) => part.className || part.tagName);
        }"""
    )
    return found


def test_the_tv_board_has_a_language_menu_that_stays_after_a_reload(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    tv = players.open(*TV)
    tv.goto(f"/room/{code}/board")
    expect(tv.locator(".board-lobby h1")).to_have_text(f"Join room {code}")
    menu = tv.locator("select.language")
    expect(menu).to_be_visible()
    expect(menu).to_have_accessible_name("Language")
    menu.select_option(label="繁體中文")
    expect(tv.locator(".board-lobby h1")).to_have_text(f"加入房間 {code}")
    expect(tv.locator("html")).to_have_attribute("lang", "zh-Hant")
    assert in_the_way(tv) == []

    tv.reload()  # the TV keeps its language
    expect(tv.locator(".board-lobby h1")).to_have_text(f"加入房間 {code}")
    expect(tv.locator("select.language")).to_have_value("zh-Hant")

    host = players.open()
    open_seat(host, players.base, code, seat)
    add_bots(host, 2)
    start_game(host)
    expect(tv.locator(".board-space")).to_have_count(31)
    expect(tv.locator(".board-line")).to_contain_text("Mara")
    expect(tv.locator(".board-round")).to_contain_text("第 1 輪")
    menu = tv.locator("select.language")
    expect(menu).to_be_visible()
    # legible from the sofa (nothing on the board under 24 px), and in the way of nothing
    size = tv.evaluate("() => parseFloat(getComputedStyle(document.querySelector('select.language')).fontSize)")
    assert size >= 24, size
    box = menu.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["y"] >= 0
    assert box["x"] + box["width"] <= TV[0]
    assert box["y"] + box["height"] <= TV[1]
    assert in_the_way(tv) == []
    shot(tv, "tv-board-zh-Hant")

    # during the game, back to English: the board redraws in place (no second connection)
    sockets: list[WebSocket] = []

    def opened(socket: WebSocket) -> None:
        sockets.append(socket)

    tv.on("websocket", opened)
    menu.select_option(label="English")
    expect(tv.locator(".board-round")).to_contain_text("Round 1")
    expect(tv.locator(".board-line")).to_contain_text("Mara is choosing a card and a clue")
    assert sockets == []
    tv.reload()
    expect(tv.locator(".board-round")).to_contain_text("Round 1")


# ---------------------------------------------------------------- 2. how the game ends


def head_line(page: Page) -> str:
    text: str = page.locator(".table-head .round-line").inner_text()
    return " ".join(text.split())


@pytest.mark.parametrize(
    ("settings", "english", "chinese"),
    [
        ({}, "Round 1 · ends when someone reaches 30 points", "第 1 輪 · 有人達到 30 分即結束"),
        ({"options": {"storyteller_cycles": 2, "target_score": None}}, "Round 1 of 6", "第 1 輪 · 共 6 輪"),
        (
            {"options": {"storyteller_cycles": 1}},
            "Round 1 of 3 · sooner if someone reaches 30 points",
            "第 1 輪 · 共 3 輪，有人達到 30 分即提前結束",
        ),
        (
            # three players: 84 cards, three hands of 7 dealt
            {"mode": "classic"},
            "Round 1 · ends at 30 points or when the cards run out (63 left)",
            "第 1 輪 · 有人達到 30 分或抽牌堆用完即結束（還剩 63 張）",
        ),
    ],
    ids=["to-30", "rounds", "rounds-or-30", "classic-deck"],
)
def test_the_phone_and_the_tv_say_how_the_game_ends(
    players: Players, settings: dict[str, Any], english: str, chinese: str
) -> None:
    settings = dict(settings)  # (the parameter's own dict is not changed)
    options = {"first_storyteller": 0, **settings.pop("options", {})}
    seat = create_room_by_api(players.base, "Mara", options=options, **settings)
    code = seat["code"]
    phone = players.open(*PHONE_360, mobile=True)
    open_seat(phone, players.base, code, seat)
    add_bots(phone, 2)
    tv = players.open(*TV)
    tv.goto(f"/room/{code}/board")
    start_game(phone)
    expect(phone.locator(".table-head .round")).to_have_text("Round 1")  # (what other tests read)
    expect(phone.locator(".table-head .round-line")).to_have_text(
        re.compile(r"\s*".join(map(re.escape, english.split())))
    )
    assert head_line(phone) == english
    tv_round = tv.locator(".board-round .round-line")
    expect(tv_round).to_have_text(re.compile(r"\s*".join(map(re.escape, english.split()))))
    assert " ".join(tv_round.inner_text().split()) == english
    # the head stays inside a 360-px phone
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360[0]

    phone.locator("select.language").select_option(label="繁體中文")
    expect(phone.locator(".table-head .round")).to_have_text("第 1 輪")
    expect(phone.locator(".table-head .round-line")).to_contain_text(chinese.split(" · ", 1)[1])
    assert head_line(phone) == chinese
    if not settings and "storyteller_cycles" not in options:  # (the default game)
        shot(phone, "phone-head-zh-Hant")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360[0]
    phone.locator("select.language").select_option(label="简体中文")
    expect(phone.locator(".table-head .round")).to_have_text("第 1 轮")
    expect(phone.locator(".table-head .game-end")).to_have_text(re.compile("[轮结达]"))
    phone.locator("select.language").select_option(label="English")
    shot(phone, f"phone-head-{'-'.join(sorted(options)) or 'default'}-{settings.get('mode', 'odyssey')}")


# ---------------------------------------------------------------- 3. a bad code in the address bar

SYMBOL = "A room code has only letters and digits, like KX7PQ: ! is not one of them."


@pytest.mark.parametrize("path", ["/join/zz9q!", "/room/zz9q!", "/room/zz9q!/board", "/join/zz9q!/"])
def test_a_code_with_a_symbol_in_the_address_bar_is_said_to_be_wrong(players: Players, path: str) -> None:
    page = players.phone()
    response = page.goto(path)
    assert response is not None
    assert response.status == 200  # the server serves the page: the client says what is wrong
    expect(page.locator(".join-panel p.error")).to_have_text(SYMBOL)
    expect(page.locator("input.code-input")).to_have_value("zz9q!")
    # mended in the field, the code goes where it was meant to
    page.locator("input.code-input").fill("zz9q")
    expect(page.locator(".join-panel p.error")).to_have_count(0)
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page).to_have_url(re.compile("/join/ZZ9Q$"))
    expect(page.locator("p.error")).to_have_text("There is no such room. Check the code.")


def test_an_escaped_symbol_and_two_symbols_are_named_and_an_unknown_code_says_no_such_room(players: Players) -> None:
    page = players.phone()
    page.goto("/join/ab%20c$d")
    expect(page.locator(".join-panel p.error")).to_contain_text("is not one of them")
    expect(page.locator(".join-panel p.error")).to_contain_text("$")
    expect(page.locator("input.code-input")).to_have_value("ab c$d")
    page.goto("/join/ZZ9Q")  # letters and digits: the room is asked for, as before
    expect(page.locator("p.error")).to_have_text("There is no such room. Check the code.")
    page.goto("/room/zz9q")
    expect(page.get_by_role("alert")).to_have_text("There is no such room. Check the code.")
