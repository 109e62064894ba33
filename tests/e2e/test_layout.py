"""A 360-px phone: no screen scrolls sideways, and every card keeps the 2:3 shape of the box's."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import Players
from .ui import (
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

WIDTH = 360


def assert_fits(page: Page, screen: str) -> None:
    """Nothing is wider than the screen: the page does not scroll (or get cut off) sideways, nor
    does a dialog."""
    wide: dict[str, int] = page.evaluate(
        """() => {
            // html and body hide what overflows sideways (style.css): body's scrollWidth still
            // tells when something is cut off.
            const found = { page: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) };
            for (const element of document.querySelectorAll(".overlay, .reveal")) {
                found[element.className] = element.scrollWidth - element.clientWidth;
            }
            return found;
        }"""
    )
    assert wide["page"] <= WIDTH, f"{screen}: the page is {wide['page']} px wide"
    for name, extra in wide.items():
        if name != "page":
            assert extra <= 0, f"{screen}: .{name} scrolls sideways by {extra} px"


def assert_card_shapes(page: Page, selector: str, screen: str) -> None:
    # Measured in the same call that sees them laid out: a state arriving in between (a bot's
    # move) redraws the table, and a fresh image is 0 px wide until the browser has laid it out.
    boxes: list[list[float]] = page.wait_for_function(
        """(selector) => {
            const boxes = [...document.querySelectorAll(selector)].map((img) => img.getBoundingClientRect());
            return boxes.length && boxes.every((box) => box.width > 0) && boxes.map((box) => [box.width, box.height]);
        }""",
        arg=selector,
    ).json_value()
    assert boxes, f"{screen}: no {selector}"
    for index, (width, height) in enumerate(boxes):
        assert width > 40, f"{screen}: card {index} is {width} px wide"
        assert abs(height / width - 1.5) < 0.03, f"{screen}: card {index} is {width}×{height}"


def test_every_screen_fits_a_360_px_phone(players: Players) -> None:
    page = players.open(WIDTH, 740, mobile=True)
    page.goto("/")
    expect(page.locator(".create-panel")).to_be_visible()
    assert_fits(page, "home")

    seat = create_room_by_api(
        players.base, "Marguerite-Antoinette", options={"first_storyteller": 1, "storyteller_cycles": 1}
    )
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, 2)
    assert_fits(page, "lobby")
    start_game(page)

    play = page.locator(".action-bar button.primary", has_text="Play")
    expect(play).to_be_visible()
    expect(page.locator(".clue")).to_be_visible()
    assert_fits(page, "table, play")
    assert_card_shapes(page, ".hand-card img", "hand")
    play_cards(page)

    expect(page.locator(".action-bar button.primary", has_text="Vote")).to_be_visible()
    assert_fits(page, "table, vote")
    assert_card_shapes(page, ".table-card img", "table")
    vote(page)

    expect(page.locator(".overlay .reveal")).to_be_visible()
    page.wait_for_function("() => document.getAnimations().every((animation) => animation.playState !== 'running')")
    assert_fits(page, "reveal")
    assert_card_shapes(page, ".reveal-card img", "reveal")
    close_reveal(page)

    play_until([page], lambda: bool(page.locator(".game-over").count() and not page.locator(".overlay").count()))
    expect(page.locator(".ranking li")).to_have_count(3)
    assert_fits(page, "game over")


def test_the_action_bar_stays_on_a_phone_screen_while_the_cards_scroll(players: Players) -> None:
    """Six cards on the table are taller than a phone: the bar with the Vote button sticks to the
    bottom of the screen, so that a card can be chosen and the vote sent without scrolling."""
    page = players.open(WIDTH, 740, mobile=True)
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 1})
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, 4)
    start_game(page)
    await_bot_clue(page)
    play_cards(page)
    vote_button = page.locator(".action-bar button.primary", has_text="Vote")
    expect(vote_button).to_be_visible()
    page.evaluate("() => window.scrollTo(0, 0)")
    bottom = page.evaluate("() => document.querySelector('.action-bar').getBoundingClientRect().bottom")
    height = page.evaluate("() => window.innerHeight")
    assert bottom <= height + 1, f"the action bar is at {bottom} px, below the {height}-px screen"
