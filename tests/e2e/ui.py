"""Driving Fabula's browser client: rooms and seats, and one move at a time as a player would
make it (pick cards, type a clue, press the button), with waits on what the page shows."""

from __future__ import annotations

import json
import re
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import httpx
from playwright.sync_api import Locator, Page, WebSocket, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

#: ``document.title`` starts with this while the seat is awaited (see room.js).
YOUR_MOVE = "●"


def create_room_in_ui(
    page: Page,
    base: str,
    name: str,
    *,
    mode: str = "odyssey",
    cycles: int | None = None,
    target: int | None = None,
) -> str:
    """Create a room from the home screen as its host; the room code."""
    page.goto(base + "/")
    if mode != "odyssey":
        page.check(f"input[name=mode][value={mode}]")
    if cycles is not None or target is not None:
        open_advanced(page)
        if cycles is not None:
            page.fill("input[name=cycles]", str(cycles))
        if target is not None:
            page.fill("input[name=target]", str(target))
    page.fill("input[name=name]", name)
    page.get_by_role("button", name="Create the room").click()
    page.wait_for_url(re.compile(r"/room/[A-Z0-9]+$"))
    page.locator(".lobby").wait_for()
    return page.url.rsplit("/", 1)[1]


def open_advanced(page: Page) -> None:
    """Open the create form's advanced settings. A click can be lost: CI once found the section
    closed 15 s after it (perhaps a render of the home screen between the click and the details'
    toggle event, which is what keeps it open across renders — not confirmed), so it clicks again
    (at most five times, 200 ms apart) until the section is open."""
    advanced = page.locator("details.advanced")
    for _ in range(5):
        if advanced.evaluate("(details) => details.open"):
            return
        advanced.locator("summary").click()
        page.wait_for_timeout(200)
    expect(advanced).to_have_attribute("open", "")


def join_in_ui(page: Page, base: str, code: str, name: str) -> None:
    """Take a seat in ``code`` from its join link."""
    page.goto(f"{base}/join/{code}")
    page.fill("input[name=name]", name)
    page.get_by_role("button", name="Take a seat").click()
    page.locator(".lobby").wait_for()


def create_room_by_api(base: str, name: str, colour: str = "blue", **settings: Any) -> dict[str, Any]:
    """A room made over HTTP (for settings the home screen does not offer); its seat."""
    response = httpx.post(f"{base}/api/rooms", json={"name": name, "colour": colour, "settings": settings})
    assert response.status_code == 201, response.text
    seat: dict[str, Any] = response.json()
    return seat


def open_seat(page: Page, base: str, code: str, seat: dict[str, Any]) -> None:
    """Open room ``code`` in ``page`` as the seat an HTTP call took (its token saved in this
    browser, as the client saves it after creating or joining)."""
    page.goto(base + "/rules")
    saved = {"token": seat["token"], "member": seat["member"]}
    page.evaluate(
        """([code, seat]) => {
            const all = JSON.parse(localStorage.getItem("fabula.seats") || "{}");
            all[code] = seat;
            localStorage.setItem("fabula.seats", JSON.stringify(all));
        }""",
        [code, saved],
    )
    page.goto(f"{base}/room/{code}")
    page.locator(".lobby, .table-screen, .game-over").first.wait_for()


def saved_seats(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(page.evaluate("() => localStorage.getItem('fabula.seats') || '{}'"))
    return found


#: How long a person takes between two taps that are meant as two (the page takes two taps
#: closer than its DOUBLE_TAP_MS, net.js, as one).
TAPS_APART_MS = 550


_last_bot: weakref.WeakKeyDictionary[Page, float] = weakref.WeakKeyDictionary()


def add_bots(host: Page, count: int) -> None:
    seats = host.locator(".seat")
    for _ in range(count):
        since = time.monotonic() - _last_bot.get(host, 0.0)
        if since * 1000 < TAPS_APART_MS:
            host.wait_for_timeout(TAPS_APART_MS - since * 1000)
        before = seats.count()
        host.get_by_role("button", name="Add a bot").click()
        _last_bot[host] = time.monotonic()
        expect(seats).to_have_count(before + 1)


#: How long a page may wait for a bot storyteller's first clue: a bot's first move in a fresh
#: server reads the room's deck, which takes seconds, and more while the whole suite starts on two
#: cores (CI once waited over the 5 s of `expect`).
BOT_CLUE_MS = 30_000


def await_bot_clue(page: Page) -> None:
    """Wait until the bot storyteller has told, so that ``page`` may play a card."""
    expect(page.locator(".action-bar button.primary", has_text="Play")).to_be_visible(timeout=BOT_CLUE_MS)


def start_game(host: Page, others: Sequence[Page] = ()) -> None:
    host.get_by_role("button", name="Start the game").click()
    for page in (host, *others):
        page.locator(".table-screen").wait_for()


def awaited(page: Page) -> bool:
    """The seat shown in ``page`` owes a move now."""
    return page.title().startswith(YOUR_MOVE)


# The newest WebSocket of each page (a reload opens another), and the moves each page has made:
# a seat may change a play or a vote until the phase ends, so the page keeps offering it.
_sockets: weakref.WeakKeyDictionary[Page, WebSocket] = weakref.WeakKeyDictionary()
_made: weakref.WeakKeyDictionary[Page, set[tuple[str, str]]] = weakref.WeakKeyDictionary()


class _Frames:
    """Every message a page sent and received, on all its WebSockets in turn (a reconnect opens
    another), as JSON objects."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []

    def watch(self, socket: WebSocket) -> None:
        socket.on("framesent", lambda payload: self.sent.append(_message(payload)))
        socket.on("framereceived", lambda payload: self.received.append(_message(payload)))


_frames: weakref.WeakKeyDictionary[Page, _Frames] = weakref.WeakKeyDictionary()


def _message(payload: str | bytes) -> dict[str, Any]:
    found = json.loads(payload)
    return found if isinstance(found, dict) else {}


def watch_sockets(page: Page) -> None:
    """Keep track of the page's WebSocket and its messages (call before the first navigation)."""
    frames = _frames.setdefault(page, _Frames())

    def opened(socket: WebSocket) -> None:
        _sockets[page] = socket
        frames.watch(socket)

    page.on("websocket", opened)


def socket_of(page: Page) -> WebSocket:
    """The page's WebSocket (see ``watch_sockets``)."""
    return _sockets[page]


#: What the page asks without changing anything (not a move's message).
_QUESTIONS = ("hello", "ping", "legal", "album")


def answered(page: Page, act: Callable[[], None], timeout: float = 15) -> dict[str, Any]:
    """Do ``act`` (a click that sends a message) and wait for the server's answer to it — on
    whichever socket it comes (a message the page had no answer to goes again, with its id,
    once the page has connected again)."""
    frames = _frames[page]
    sent_before = len(frames.sent)
    act()
    deadline = time.monotonic() + timeout
    while not (sent := [m for m in frames.sent[sent_before:] if m.get("type") not in _QUESTIONS and "id" in m]):
        assert time.monotonic() < deadline, "the page sent nothing"
        page.wait_for_timeout(10)
    message_id = sent[0]["id"]
    while True:
        # A move refused for coming too fast (six fast bots make many states) is sent again by
        # the page a little later (net.js, retry): its answer is the answer.
        final = _last_reply_to(frames, message_id)
        if final is not None and final.get("code") != "rate_limited":
            return final
        assert time.monotonic() < deadline, f"no answer to {message_id}"
        page.wait_for_timeout(10)


def _last_reply_to(frames: _Frames, message_id: str) -> dict[str, Any] | None:
    replies = [m for m in frames.received if m.get("id") == message_id and m.get("type") in ("ack", "error")]
    return replies[-1] if replies else None


def _made_here(page: Page, move: str) -> bool:
    """Whether ``page`` made ``move`` in this round already."""
    return (page.locator(".table-head .round").inner_text(), move) in _made.setdefault(page, set())


def _remember(page: Page, move: str, round_text: str) -> None:
    _made.setdefault(page, set()).add((round_text, move))


def close_reveal(page: Page) -> bool:
    overlay = page.locator(".overlay")
    if not overlay.count():
        return False
    overlay.get_by_role("button", name="Continue").click()
    overlay.wait_for(state="detached")
    return True


def enabled_hand_cards(page: Page) -> Locator:
    return page.locator(".hand-card .card-button:not([disabled])")


def enabled_table_cards(page: Page) -> Locator:
    return page.locator(".table-card .card-button:not([disabled])")


def _acked(page: Page, button: Locator) -> None:
    reply = answered(page, button.click)
    assert reply["type"] == "ack", reply


def tell(page: Page, clue: str) -> None:
    """As the storyteller: pick the first card (unless the hand is covered) and give ``clue``."""
    field = page.locator(".clue-input")
    if not page.locator(".hidden-hand").count():
        enabled_hand_cards(page).first.click()
    field.fill(clue)
    _acked(page, page.locator("form.action-bar button[type=submit]"))


def play_cards(page: Page) -> None:
    """Pick as many cards as the button asks for and play them."""
    button = page.locator(".action-bar button.primary", has_text=re.compile("^Play"))
    wanted = 2 if button.inner_text() == "Play these cards" else 1
    cards = enabled_hand_cards(page)
    for index in range(wanted):
        cards.nth(index).click()
    _acked(page, button)


def vote(page: Page, index: int = 0) -> None:
    """Vote with one token for the ``index``-th card that may be chosen."""
    enabled_table_cards(page).nth(index).click()
    _acked(page, page.locator(".action-bar button.primary", has_text=re.compile("^Vote")))


def place_red(page: Page, index: int = 0) -> None:
    enabled_table_cards(page).nth(index).click()
    _acked(page, page.locator(".action-bar button.red"))


def step(page: Page, clue: str = "A long journey") -> bool:
    """Close a reveal, or make the one move the page's seat owes now; True if it did something.
    Moves wait until the page has the legal moves for the current state (the action bar). A move
    the table overtook (a reveal opened over it, a bot partner played first) is tried again."""
    if close_reveal(page):
        return True
    if not awaited(page):
        return False
    bar = page.locator(".action-bar")
    if not bar.count():
        return False  # the legal moves are on their way
    page.set_default_timeout(5_000)
    try:
        return _move(page, bar, clue)
    except PlaywrightTimeoutError:
        close_reveal(page)
        return True
    finally:
        page.set_default_timeout(15_000)


def _move(page: Page, bar: Locator, clue: str) -> bool:
    if page.locator(".clue-input").count():
        tell(page, clue)
        return True
    moves: list[tuple[str, Locator, Callable[[Page], None]]] = [
        ("play", bar.locator("button.primary", has_text=re.compile("^Play")), play_cards),
        ("vote", bar.locator("button.primary", has_text=re.compile("^Vote")), vote),
        ("red", bar.locator("button.red"), place_red),
    ]
    for move, button, make in moves:
        if button.count() and not _made_here(page, move):
            round_text = page.locator(".table-head .round").inner_text()
            make(page)
            _remember(page, move, round_text)  # (only once it was made: an overtaken move is tried again)
            return True
    return False


def play_until(pages: Sequence[Page], done: Callable[[], bool], timeout: float = 60) -> None:
    """Let every page move in turn until ``done()``."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the game did not get there in time"
        acted = False
        for page in pages:
            acted = step(page) or acted
        if not acted:
            pages[0].wait_for_timeout(40)


def card_sources(page: Page, selector: str) -> list[str]:
    found: list[str] = page.eval_on_selector_all(selector, "images => images.map((img) => img.getAttribute('src'))")
    return found
