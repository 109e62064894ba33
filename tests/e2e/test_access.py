"""Keyboard play (Tab, Enter, Space, with a visible focus ring), and player text shown as text."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from .conftest import Players
from .ui import add_bots, await_bot_clue, create_room_by_api, join_in_ui, open_seat, play_cards, start_game

# What has the keyboard focus, and the outline drawn for it (a hidden radio button's ring is
# drawn on its label).
FOCUSED = """(wanted) => {
    const element = document.activeElement;
    if (!element || element === document.body) return null;
    const ringed = element.matches(".colour input") ? element.closest("label") : element;
    const style = getComputedStyle(ringed);
    return {
        tag: element.tagName.toLowerCase(),
        name: element.getAttribute("name") || "",
        classes: element.className,
        text: element.textContent.trim(),
        pressed: element.getAttribute("aria-pressed"),
        outline: style.outlineStyle,
        outlineWidth: parseFloat(style.outlineWidth),
        outlineColour: style.outlineColor,
        wanted: Boolean(wanted) && element.matches(wanted),
    };
}"""


def focused(page: Page, wanted: str = "") -> dict[str, Any] | None:
    found: dict[str, Any] | None = page.evaluate(FOCUSED, wanted)
    return found


def assert_ring(found: dict[str, Any] | None) -> dict[str, Any]:
    """The focused element shows a focus ring: an outline at least 2 px wide."""
    assert found is not None, "nothing has the focus"
    assert found["outline"] not in ("none", "hidden"), found
    assert found["outlineWidth"] >= 2, found
    return found


def tab_to(page: Page, wanted: str, limit: int = 40) -> dict[str, Any]:
    """Press Tab until the element matching ``wanted`` (a CSS selector) has the focus; every
    element passed on the way must show its focus ring."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        found = focused(page, wanted)
        if found is None:  # a new state redrew the page under the focus: Tab starts again
            continue
        assert_ring(found)
        if found["wanted"]:
            return found
    raise AssertionError(f"{limit} presses of Tab never reached {wanted}")


def test_the_home_form_and_a_vote_work_with_the_keyboard_alone(players: Players) -> None:
    page = players.open()
    page.goto("/")
    expect(page.locator(".create-panel")).to_be_visible()
    tab_to(page, "input[name=name]")
    page.keyboard.type("Keys")
    tab_to(page, "input[name=colour]")
    page.keyboard.press("ArrowRight")  # the next rabbit after the blue one
    expect(page.locator("input[name=colour]:checked")).to_have_value("dark green")
    found = tab_to(page, "button.primary[type=submit]:not(.join-panel *)")
    assert found["text"] == "Create the room"
    page.keyboard.press("Enter")
    expect(page.locator(".lobby")).to_be_visible()
    expect(page.locator(".seat-name")).to_have_text(["Keys"])

    # A vote: Tab to a card, Space to choose it, Tab to the button, Enter.
    seat = create_room_by_api(players.base, "Keys", options={"first_storyteller": 1})
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, 2)
    start_game(page)
    await_bot_clue(page)
    play_cards(page)
    vote_button = page.locator(".action-bar button.primary", has_text="Vote")
    expect(vote_button).to_be_visible()
    expect(page.locator(".acted li.done")).to_have_count(1)  # the bot has voted: no more redraws
    page.locator("body").focus()
    card = tab_to(page, ".table-card .card-button:not([disabled])")
    page.keyboard.press("Space")
    expect(page.locator(".table-card.chosen .slot-number")).to_have_text(card["text"][:1])
    expect(vote_button).to_be_enabled()
    tab_to(page, ".action-bar button.primary")
    page.keyboard.press("Enter")
    expect(page.locator(".overlay .reveal")).to_be_visible()
    tab_to(page, ".overlay button.primary")
    page.keyboard.press("Enter")
    expect(page.locator(".overlay")).to_have_count(0)


# Choosing a mode or a card redraws the screen; the focus must stay on what was chosen, or a
# keyboard user starts again from the top of the page after every choice.


def test_choosing_a_mode_with_the_keyboard_keeps_the_focus_on_it(players: Players) -> None:
    page = players.open()
    page.goto("/")
    page.locator("input[name=mode][value=odyssey]").focus()
    page.keyboard.press("ArrowDown")
    expect(page.locator("input[name=mode][value=party]")).to_be_checked()
    expect(page.locator("input[name=mode][value=party]")).to_be_focused()


def test_choosing_a_card_with_the_keyboard_keeps_the_focus_on_it(players: Players) -> None:
    page = players.open()
    seat = create_room_by_api(players.base, "Keys", options={"first_storyteller": 1})
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, 2)
    start_game(page)
    await_bot_clue(page)
    page.locator(".hand-card .card-button:not([disabled])").first.focus()
    page.keyboard.press("Space")
    expect(page.locator(".hand-card.chosen")).to_have_count(1)
    found = focused(page)
    assert found is not None, "the focus went back to the page"
    assert "card-button" in found["classes"], found
    assert found["pressed"] == "true", found


def test_the_reveal_takes_the_focus_and_escape_closes_it(players: Players) -> None:
    """The reveal is a modal dialog: the keyboard lands in it (on Continue), not behind it."""
    page = players.open()
    seat = create_room_by_api(players.base, "Keys", options={"first_storyteller": 1})
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, 2)
    start_game(page)
    await_bot_clue(page)
    play_cards(page)
    page.locator(".table-card .card-button:not([disabled])").first.click()
    page.locator(".action-bar button.primary", has_text="Vote").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".overlay .reveal")).to_be_visible()
    expect(page.locator(".overlay button.primary")).to_be_focused()
    assert_ring(focused(page))
    page.keyboard.press("Escape")
    expect(page.locator(".overlay")).to_have_count(0)


XSS_NAME = "<svg onload=alert(1)>"  # a name has at most 24 characters
XSS_TEXT = "<img src=x onerror=alert(1)>"
INJECTED = "() => document.querySelectorAll('img[src=\"x\"], [onerror], [onload], body svg svg').length"


def test_player_text_is_shown_as_text_never_as_markup(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara")
    code = seat["code"]
    host, guest = players.open(), players.phone()
    open_seat(host, players.base, code, seat)
    join_in_ui(guest, players.base, code, XSS_NAME)
    for page in (host, guest):
        expect(page.locator(".seat-name")).to_have_text(["Mara", XSS_NAME])
        assert page.evaluate(INJECTED) == 0

    host.locator("details.chat summary").click()
    host.fill("input[name=chat]", XSS_TEXT)
    host.get_by_role("button", name="Send").click()
    guest.locator("details.chat summary").click()
    for page in (host, guest):
        expect(page.locator(".chat-lines li")).to_have_text([f"Mara: {XSS_TEXT}"])
        assert page.evaluate(INJECTED) == 0

    other = players.open()
    other.goto(f"/join/{code}")
    expect(other.locator(".seated li")).to_contain_text(["Mara", XSS_NAME])
    assert other.evaluate(INJECTED) == 0

    add_bots(host, 1)
    start_game(host, [guest])
    for page in (host, guest):
        expect(page.locator(".scores .name")).to_contain_text([XSS_NAME])
        assert page.evaluate(INJECTED) == 0
    assert not players.dialogs
