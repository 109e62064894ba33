"""Groups playing whole short games, one test per mode: three or four people, each in their own
browser (most of them on 360-px phones), and bots in the other seats, from the home screen to
the ranking. On the way every group does what groups do: someone reloads in the middle of a
round, someone's tab is closed and opened again, someone taps a button twice, someone switches
to Chinese, someone gets an input wrong. Every move is made in the page, as a player makes it.
At the end, one test for each thing the groups tripped over."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict
from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Dialog, Locator, Page, Request, WebSocket, expect

from ..server.harness import LiveServer
from .conftest import Players
from .ui import (
    TAPS_APART_MS,
    add_bots,
    answered,
    awaited,
    card_sources,
    close_reveal,
    create_room_in_ui,
    enabled_hand_cards,
    enabled_table_cards,
    open_advanced,
    saved_seats,
    socket_of,
    start_game,
    step,
    watch_sockets,
)

PHONE = (360, 740)
CJK = re.compile(r"[\u3400-\u9fff]")
ROOM_URL = re.compile(r"/room/[A-Z0-9]+$")
#: how often a page is looked at again when nothing new came to it (s)
LOOK_AGAIN = 0.3


def is_state(payload: str | bytes) -> bool:
    message = json.loads(payload)
    return isinstance(message, dict) and message.get("type") == "state"


def away_line(name: str) -> re.Pattern[str]:
    """What the others read while ``name``'s seat waits out its grace (60 s in the e2e server)."""
    return re.compile(rf"^{re.escape(name)} is away: a bot plays for them in (1:00|0:[0-5]\d)\.$")


@dataclass
class Moment:
    """Something that happens to ``who`` once on the way: the first time, from round
    ``from_round`` on, that their page offers them ``move`` ("clue", "play" or "vote")."""

    label: str
    who: str
    move: str
    run: Callable[[], None]
    from_round: int = 1

    def due(self, shown: Shown) -> bool:
        return not shown["overlay"] and shown["move"] == self.move and shown["round"] >= self.from_round


class Group:
    """The people of one scenario, by name, and what their pages' WebSockets carried: the newest
    state each page has, the newest entry a move was stored as, and the messages each page sent."""

    def __init__(self, players: Players, server: LiveServer) -> None:
        self.players, self.server = players, server
        self.people: dict[str, Page] = {}
        self.seq: dict[Page, int] = {}  # the newest state each page received
        self.stored = -1
        self.sent: dict[Page, list[dict[str, Any]]] = {}
        self.posts: dict[Page, list[str]] = {}
        self.status: dict[Page, str] = {}
        #: when each page was last looked at, if nothing came to it since
        self.looked: dict[Page, float] = {}
        self.code = ""

    # ------------------------------------------------------------ pages

    def phone(self, name: str) -> Page:
        return self._add(name, self.players.open(*PHONE, mobile=True))

    def laptop(self, name: str) -> Page:
        return self._add(name, self.players.open())

    def _add(self, name: str, page: Page) -> Page:
        self.people[name] = page
        self._watch(page)
        return page

    def _watch(self, page: Page) -> None:
        self.sent[page], self.posts[page] = [], []
        page.on("websocket", lambda socket: self._socket(page, socket))
        page.on("request", lambda request: self._request(page, request))

    def _request(self, page: Page, request: Request) -> None:
        if request.method == "POST":
            self.posts[page].append(urlsplit(request.url).path)

    def _socket(self, page: Page, socket: WebSocket) -> None:
        def received(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message.get("type") == "state":
                room = message["room"]
                self.seq[page] = max(self.seq.get(page, -1), room["seq"])
                self.status[page] = room["status"]
            elif message.get("type") == "ack":
                self.stored = max(self.stored, message["seq"])
            self.looked.pop(page, None)  # something new came: the page is worth a look

        def sent(payload: str | bytes) -> None:
            self.sent[page].append(json.loads(payload))

        socket.on("framereceived", received)
        socket.on("framesent", sent)

    @staticmethod
    def drawn_seq(page: Page) -> int:
        """The seq of the newest state the page's script has drawn (it marks the page with it)."""
        found = page.evaluate("() => document.documentElement.dataset.seq ?? '-1'")
        return int(found)

    def pages(self) -> list[Page]:
        return list(self.people.values())

    def others(self, name: str) -> list[Page]:
        return [page for who, page in self.people.items() if who != name]

    def sent_of(self, page: Page, kind: str) -> int:
        """How many messages of ``kind`` the page has sent over its WebSockets."""
        return sum(message.get("type") == kind for message in self.sent[page])

    def moves_sent(self, page: Page) -> list[str]:
        """What the page asked the room to do (not: say hello, ask for its legal moves)."""
        return [m["type"] for m in self.sent[page] if m.get("type") not in ("hello", "legal", "ping")]

    def reopen(self, name: str, *, via_home: bool = False) -> Page:
        """``name``'s browser opens the room again in a new tab (same context: same saved seat):
        from its address, or (``via_home``) from "Your rooms" on the home screen."""
        context = self.people[name].context
        page = context.new_page()
        watch_sockets(page)
        self._watch(page)
        errors, dialogs = self.players.errors, self.players.dialogs
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))

        def dialog_opened(dialog: Dialog) -> None:
            dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", dialog_opened)
        if via_home:
            page.goto(self.players.base + "/")
            room = page.locator(".your-rooms li", has_text=f"Room {self.code}")
            expect(room).to_contain_text("playing")
            room.get_by_role("link", name="Back to the table").click()
            page.wait_for_url(ROOM_URL)
        else:
            page.goto(f"{self.players.base}/room/{self.code}")
        self.people[name] = page
        return page

    # ------------------------------------------------------------ the server's side

    def summary(self) -> dict[str, Any]:
        response = httpx.get(f"{self.players.base}/api/rooms/{self.code}")
        assert response.status_code == 200, response.text
        found: dict[str, Any] = response.json()
        return found

    def live_room(self) -> Any:
        return self.server.service.rooms.held[self.code].room

    # ------------------------------------------------------------ playing

    def settle(self, timeout: float = 10) -> None:
        """Wait until every open page has drawn the state after the newest stored move, so that no
        page acts on a table that has moved on (two partners playing for one team at once)."""
        deadline = time.monotonic() + timeout
        while True:
            behind = [p for p in self.pages() if not p.is_closed() and self.drawn_seq(p) < self.stored]
            if not behind:
                return
            assert time.monotonic() < deadline, "a page did not get the newest state"
            behind[0].wait_for_timeout(5)

    def step_others(self, name: str) -> None:
        """The others make every move they owe (the table may then wait for ``name``)."""
        while True:
            acted = False
            for page in self.others(name):
                if step(page):
                    acted = True
                    self.settle()
            if not acted:
                return

    def over(self) -> bool:
        """Every page shows the end of the game (its last reveal closed)."""
        pages = self.pages()
        if not all(self.status.get(page) == "over" for page in pages):
            return False
        return all(page.locator(".game-over").count() and not page.locator(".overlay").count() for page in pages)

    def worth_a_look(self, page: Page) -> bool:
        """Something came to ``page`` since it was last looked at (or a while has passed: what
        came may have been drawn only after the look)."""
        if time.monotonic() - self.looked.get(page, 0) < LOOK_AGAIN:
            return False
        self.looked[page] = time.monotonic()
        return True

    def play_to_the_end(self, moments: Sequence[Moment], timeout: float = 90) -> None:
        """Everyone plays, each page in turn, until every page shows the end of the game; each of
        ``moments`` happens once on the way, just before its player's turn to step."""
        pending = list(moments)
        deadline = time.monotonic() + timeout
        while not self.over():
            left = [m.label for m in pending]
            assert time.monotonic() < deadline, f"the game did not end in time; still to happen: {left}"
            acted = False
            for name in list(self.people):
                page = self.people[name]
                if not self.worth_a_look(page):
                    continue
                theirs = [m for m in pending if m.who == name]
                if theirs:
                    # what the page offers, read at once: a moment is never missed because its
                    # move came between a look for it and the step that makes it
                    shown = showing(page)
                    due = next((m for m in theirs if m.due(shown)), None)
                    if due is not None:
                        due.run()
                        pending.remove(due)
                        self.settle()
                        acted = True
                        continue
                    if not shown["overlay"] and shown["move"] is None:
                        continue  # nothing to do yet: the next state brings it
                if step(page):
                    self.settle()
                    acted = True
            if not acted:
                self.pages()[0].wait_for_timeout(15)
        assert not pending, f"the game ended before {[m.label for m in pending]}"


# ---------------------------------------------------------------- what a page shows


class Shown(TypedDict):
    overlay: bool
    round: int
    move: str | None


#: What a page shows, read in one go: a dialog over it, the round (in any language), and the move
#: its seat owes and is offered now — "clue", "play", "vote" (the party storyteller's vote with
#: the red token: "vote+red"), "red", or null.
SHOWING = """() => {
    const head = document.querySelector(".table-head .round");
    const found = head ? head.textContent.match(/\\d+/) : null;
    const bar = document.querySelector(".action-bar");
    let move = null;
    if (document.title.startsWith("●") && bar) {
        const primary = [...bar.querySelectorAll("button.primary")].map((button) => button.textContent);
        const red = bar.querySelector("button.red") !== null;
        if (document.querySelector(".clue-input")) move = "clue";
        else if (primary.some((text) => text.startsWith("Play"))) move = "play";
        else if (primary.some((text) => text.startsWith("Vote"))) move = red ? "vote+red" : "vote";
        else if (red) move = "red";
    }
    return { overlay: document.querySelector(".overlay") !== null, round: found ? Number(found[0]) : 0, move };
}"""


def showing(page: Page) -> Shown:
    shown: Shown = page.evaluate(SHOWING)
    return shown


def ranking_names(page: Page) -> list[str]:
    return page.locator(".ranking .name").all_inner_texts()


# ---------------------------------------------------------------- the lobby, as people use it

#: How a person taps a button twice: Playwright's double click (both clicks within a few
#: milliseconds: the second comes while the first is on its way), or two taps at one spot with a
#: person's pause between them (the first tap's answer is usually in by the second).
DoubleTap = Literal["dblclick", "taps"]
TAP_PAUSE_MS = 150


def centre(target: Locator) -> tuple[float, float]:
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def tap_at(page: Page, x: float, y: float) -> None:
    if page.evaluate("() => navigator.maxTouchPoints > 0"):
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def double_tap(page: Page, target: Locator, how: DoubleTap) -> None:
    if how == "dblclick":
        target.dblclick()
        return
    x, y = centre(target)
    tap_at(page, x, y)
    page.wait_for_timeout(TAP_PAUSE_MS)
    tap_at(page, x, y)  # (wherever it lands now: on the button, or on the screen that followed)


def create_with_a_double_tap(group: Group, page: Page, name: str, *, mode: str, how: DoubleTap) -> str:
    """The host fills the home form and taps "Create the room" twice: one room, one seat."""
    rooms_before = set(group.server.service.rooms.held)
    page.goto(group.players.base + "/")
    if mode != "odyssey":
        page.check(f"input[name=mode][value={mode}]")
    open_advanced(page)
    page.fill("input[name=cycles]", "1")
    page.fill("input[name=name]", name)
    double_tap(page, page.get_by_role("button", name="Create the room"), how)
    page.wait_for_url(ROOM_URL)
    page.locator(".lobby").wait_for()
    code = page.url.rsplit("/", 1)[1]
    group.code = code
    expect(page.locator(".seat-name")).to_have_text([name])
    page.wait_for_timeout(TAP_PAUSE_MS)  # whatever a second tap made is under way by now
    assert group.posts[page] == ["/api/rooms"]  # the second tap sent nothing ...
    assert group.moves_sent(page) == []  # ... nor did it tap anything in the lobby
    assert set(group.server.service.rooms.held) - rooms_before == {code}  # exactly one new room
    assert [m["name"] for m in group.summary()["members"]] == [name]
    assert list(saved_seats(page)) == [code]
    return code


def create(group: Group, page: Page, name: str, *, mode: str) -> str:
    group.code = create_room_in_ui(page, group.players.base, name, mode=mode, cycles=1)
    return group.code


def join(group: Group, page: Page, name: str, *, double: DoubleTap | None = None) -> None:
    """Open the join link, type the name, press "Take a seat" (``double``: twice)."""
    page.goto(f"{group.players.base}/join/{group.code}")
    page.fill("input[name=name]", name)
    button = page.get_by_role("button", name="Take a seat")
    if double:
        double_tap(page, button, double)
    else:
        button.click()
    page.wait_for_url(ROOM_URL)
    page.locator(".lobby").wait_for()
    if double:
        expect(page.locator(".seat-name", has_text=name)).to_have_count(1)
        page.wait_for_timeout(TAP_PAUSE_MS)
        assert group.posts[page] == [f"/api/rooms/{group.code}/join"]  # the second tap sent nothing
        assert group.moves_sent(page) == []
        names = [m["name"] for m in group.summary()["members"]]
        assert names.count(name) == 1, names
        assert list(saved_seats(page)) == [group.code]


def refused_then_join(
    group: Group, page: Page, wrong: str, name: str, *, error: str | None = None, warning: str = ""
) -> None:
    """A name refused first (said in words on the join screen: by the room, ``error``, or by the
    page before anything is sent, ``warning`` under the field, which gets the focus), then one the
    room takes."""
    page.goto(f"{group.players.base}/join/{group.code}")
    page.fill("input[name=name]", wrong)
    if warning:
        expect(page.locator(".name-warning")).to_have_text(warning)
        expect(page.locator(".name-warning")).to_have_class(re.compile(r"\berror\b"))
    before = len(group.summary()["members"])
    page.get_by_role("button", name="Take a seat").click()
    if error is None:
        expect(page.locator("input[name=name]")).to_be_focused()
        expect(page.locator("p.error")).to_have_count(0)  # (the warning says it, once)
    else:
        expect(page.locator("p.error")).to_have_text(error)
    assert page.url.endswith(f"/join/{group.code}")
    assert len(group.summary()["members"]) == before
    assert group.code not in saved_seats(page)
    page.fill("input[name=name]", name)
    expect(page.locator(".name-warning")).to_have_text("")
    page.get_by_role("button", name="Take a seat").click()
    page.wait_for_url(ROOM_URL)
    page.locator(".lobby").wait_for()


def start_with_a_double_tap(group: Group, host: Page, how: DoubleTap) -> None:
    start = host.get_by_role("button", name="Start the game")
    before = len(group.moves_sent(host))
    reply = answered(host, lambda: double_tap(host, start, how))
    assert reply["type"] == "ack", reply
    for page in group.pages():
        page.locator(".table-screen").wait_for()
        expect(page.locator(".table-head .round")).to_have_text("Round 1")
    host.wait_for_timeout(TAP_PAUSE_MS)
    assert group.moves_sent(host)[before:] == ["start"]  # the second tap sent nothing
    group.settle()
    assert group.live_room().games_started == 1
    expect(host.locator("p.error")).to_have_count(0)
    expect(host.locator(".viewer")).to_have_count(0)  # nor did it open a card


def seated(group: Group, host: Page, count: int) -> None:
    expect(host.locator(".seat")).to_have_count(count)
    for page in group.pages():
        expect(page.locator(".seat")).to_have_count(count)


# ---------------------------------------------------------------- the moments


def reload_mid_round(group: Group, name: str, move: str, *, from_round: int = 1) -> Moment:
    """``name`` reloads while owing ``move``: the seat, the hand and the phase come back."""

    def run() -> None:
        page = group.people[name]
        code = group.code
        member = saved_seats(page)[code]["member"]
        hand = card_sources(page, ".hand-card img")
        table = card_sources(page, ".table-card img")
        heading = page.locator(".table-head .round").inner_text()
        assert hand
        page.reload()
        expect(page.locator(".table-screen")).to_be_visible()
        assert page.url.endswith(f"/room/{code}")  # still our seat: not sent to the join screen
        expect(page.locator(".table-head .round")).to_have_text(heading)
        expect(page.locator(".hand-card img")).to_have_count(len(hand))
        assert card_sources(page, ".hand-card img") == hand
        assert card_sources(page, ".table-card img") == table
        assert saved_seats(page)[code]["member"] == member
        expect(page.locator(".overlay")).to_have_count(0)  # nothing ended: no reveal on a reload
        label = r"^Play" if move == "play" else r"^Vote"
        expect(page.locator(".action-bar button.primary", has_text=re.compile(label))).to_be_visible()
        assert awaited(page)

    return Moment(f"{name} reloads", name, move, run, from_round)


def tab_closed_for_a_while(
    group: Group, name: str, move: str, *, from_round: int = 1, via_home: bool = False
) -> Moment:
    """``name``'s tab is closed while the table waits for their ``move``; the others are told
    that they are away and make their own moves; then the same browser opens the room again."""

    def run() -> None:
        page = group.people[name]
        hand = card_sources(page, ".hand-card img")
        heading = page.locator(".table-head .round").inner_text()
        page.close()
        for other in group.others(name):
            close_reveal(other)
            expect(other.locator(".away-line")).to_have_text(away_line(name))
            expect(other.locator(".acted li.away .away-mark")).to_have_count(1)
        group.step_others(name)  # the others play on (a partner may play for the team)
        waited = any(other.locator(".away-line").count() for other in group.others(name))
        page = group.reopen(name, via_home=via_home)
        expect(page.locator(".table-screen")).to_be_visible()
        assert page.url.endswith(f"/room/{group.code}")
        expect(page.locator(".table-head .round")).to_have_text(heading)
        assert card_sources(page, ".hand-card img") == hand
        for other in group.others(name):
            expect(other.locator(".away-line")).to_have_count(0)
            expect(other.locator(".acted li.away")).to_have_count(0)
        if waited:  # the table waited for them: still their move, no bot made it for them
            expect(page).to_have_title(re.compile(r"^●"))
        expect(page.locator(".story")).to_have_count(0)

    return Moment(f"{name}'s tab closes", name, move, run, from_round)


def empty_clue_first(group: Group, name: str) -> Moment:
    """The storyteller ``name`` presses Tell with no clue (then with spaces): told "Type a clue, or
    tap “I said it aloud”.", nothing is sent; then they give one."""

    def run() -> None:
        page = group.people[name]
        if not page.locator(".hidden-hand").count():
            enabled_hand_cards(page).first.click()
            expect(page.locator(".hand-card.chosen")).to_have_count(1)
        tell = page.locator("form.action-bar button[type=submit]")
        sent = group.sent_of(page, "act")
        for empty in ("", "   "):
            page.locator(".clue-input").fill(empty)
            tell.click()
            expect(page.locator("p.error")).to_have_text("Type a clue, or tap “I said it aloud”.")
            expect(page.locator(".clue-input")).to_be_focused()
        page.wait_for_timeout(100)  # would a message be on its way, it would be out by now
        assert group.sent_of(page, "act") == sent
        assert awaited(page)
        page.locator(".clue-input").fill("Moonlight")
        expect(page.locator("p.error")).to_have_count(0)  # (what it said is mended: it goes)
        reply = answered(page, tell.click)
        assert reply["type"] == "ack", reply
        expect(page.locator(".clue")).to_have_text("“Moonlight”")
        expect(page.locator("p.error")).to_have_count(0)

    return Moment(f"{name} gives an empty clue", name, "clue", run)


def plays_in_chinese(
    group: Group, name: str, language: str, move: str, *, from_round: int = 1, tokens: int = 1
) -> Moment:
    """``name`` switches the app to ``language`` (a 繁體中文 or 简体中文 option) while owing
    ``move``, reads the table in it, makes the move with the buttons (whatever their words), then
    switches back to English."""

    def run() -> None:
        page = group.people[name]
        number = showing(page)["round"]
        status = page.locator(".status-line")
        if tokens == 2:
            expect(status).to_contain_text("a second on another card")
        page.locator("select.language").select_option(label=language)
        head = page.locator(".table-head .round")
        expect(head).to_have_text(re.compile(rf"^第 {number} [輪轮]$"))
        expect(status).to_have_text(CJK)
        expect(page.locator("html")).to_have_attribute("lang", "zh-Hant" if language == "繁體中文" else "zh-Hans")
        button = page.locator(".action-bar button.primary")
        expect(button).to_have_text(CJK)
        if move == "play":
            enabled_hand_cards(page).first.click()
        else:
            cards = enabled_table_cards(page)
            for index in range(tokens):
                cards.nth(index).click()
            expect(page.locator(".table-card.chosen")).to_have_count(tokens)
        reply = answered(page, button.click)
        assert reply["type"] == "ack", reply  # the move is in
        group.settle()
        # the new state is drawn in it too (the next round's heading, or the end's)
        expect(page.locator(".table-head .round, .game-over h2").first).to_have_text(CJK)
        reveal = page.locator(".overlay .reveal")
        if reveal.count():  # the move ended the round: the reveal, in Chinese, closed by its button
            expect(reveal.locator("h2")).to_have_text(re.compile(rf"^第 {number} [輪轮]$"))
            reveal.locator(".reveal-actions button.primary").click()
            expect(reveal).to_have_count(0)
        page.locator("select.language").select_option(label="English")
        expect(page.locator(".table-head .round, .game-over h2").first).not_to_have_text(CJK)
        expect(page.locator("html")).to_have_attribute("lang", "en")

    return Moment(f"{name} plays in {language}", name, move, run, from_round)


# ---------------------------------------------------------------- the end


def assert_ranking(group: Group, names: Sequence[str]) -> None:
    for page in group.pages():
        expect(page.locator(".game-over h2")).to_contain_text("!")
        expect(page.locator(".ranking li")).to_have_count(len(names))
        expect(page.locator(".ranking li.winner").first).to_be_visible()
        assert sorted(ranking_names(page)) == sorted(names)
        scores = [int(score) for score in page.locator(".ranking .score").all_inner_texts()]
        assert scores == sorted(scores, reverse=True)
    first = group.pages()[0].locator(".ranking").inner_text()
    assert all(page.locator(".ranking").inner_text() == first for page in group.pages())


def bot_names(page: Page) -> list[str]:
    return [
        seat.locator(".seat-name").inner_text()
        for seat in page.locator(".seat").all()
        if seat.locator(".badge", has_text="bot").count()
    ]


# ---------------------------------------------------------------- the scenarios


def test_odyssey_a_small_table_of_phones(players: Players, server: LiveServer) -> None:
    """Three friends on 360-px phones and one bot: the host double-taps "Create the room"."""
    group = Group(players, server)
    mara, ben, cleo = group.phone("Mara"), group.phone("Ben"), group.phone("Cleo")
    create_with_a_double_tap(group, mara, "Mara", mode="odyssey", how="dblclick")
    join(group, ben, "Ben")
    join(group, cleo, "Cleo")
    add_bots(mara, 1)
    seated(group, mara, 4)
    names = mara.locator(".seat-name").all_inner_texts()
    start_game(mara, [ben, cleo])
    group.play_to_the_end(
        [
            empty_clue_first(group, "Mara"),
            tab_closed_for_a_while(group, "Cleo", "play"),
            reload_mid_round(group, "Ben", "vote"),
            plays_in_chinese(group, "Mara", "繁體中文", "vote", from_round=2),
        ]
    )
    assert_ranking(group, names)


def test_odyssey_seven_seats_vote_with_two_tokens(players: Players, server: LiveServer) -> None:
    """Three people on phones and four bots: seven seats, two voting tokens each. A guest taps
    "Take a seat" twice; another's name is too long at first."""
    group = Group(players, server)
    mara, ben, dan = group.phone("Mara"), group.phone("Ben"), group.phone("Dan")
    create(group, mara, "Mara", mode="odyssey")
    join(group, ben, "Ben", double="taps")
    long_name = "Daniel of the Seven Seas!"  # 25 characters
    refused_then_join(
        group,
        dan,
        long_name,
        "Dan",
        warning="25 characters: a name has 24 at most.",
    )
    add_bots(mara, 4)
    seated(group, mara, 7)
    names = mara.locator(".seat-name").all_inner_texts()
    start_game(mara, [ben, dan])
    group.play_to_the_end(
        [
            reload_mid_round(group, "Mara", "play"),
            tab_closed_for_a_while(group, "Ben", "vote"),
            plays_in_chinese(group, "Dan", "简体中文", "vote", from_round=2, tokens=2),
        ],
        timeout=150,
    )
    assert_ranking(group, names)


def test_classic_a_guest_double_taps_take_a_seat(players: Players, server: LiveServer) -> None:
    """Three people on phones and two bots; one guest double-taps "Take a seat", another first
    types a name already taken (in other letters' case)."""
    group = Group(players, server)
    mara, ben, cleo = group.phone("Mara"), group.phone("Ben"), group.phone("Cleo")
    create(group, mara, "Mara", mode="classic")
    join(group, ben, "Ben", double="dblclick")
    expect(mara.locator(".seat-name")).to_have_text(["Mara", "Ben"])
    refused_then_join(group, cleo, "mara", "Cleo", error="Someone here already has that name.")
    add_bots(mara, 2)
    seated(group, mara, 5)
    names = mara.locator(".seat-name").all_inner_texts()
    start_game(mara, [ben, cleo])
    group.play_to_the_end(
        [
            reload_mid_round(group, "Mara", "play"),
            tab_closed_for_a_while(group, "Ben", "vote", via_home=True),
            plays_in_chinese(group, "Cleo", "繁體中文", "vote", from_round=2),
        ],
        timeout=120,
    )
    assert_ranking(group, names)


def test_party_the_host_double_taps_start(players: Players, server: LiveServer) -> None:
    """Three people on phones and three bots (party needs six); the host double-taps "Start the
    game"; a storyteller sends an empty clue for their covered hand; the host's own tab closes."""
    group = Group(players, server)
    mara, ben, cleo = group.phone("Mara"), group.phone("Ben"), group.phone("Cleo")
    create(group, mara, "Mara", mode="party")
    join(group, ben, "Ben")
    join(group, cleo, "Cleo")
    add_bots(mara, 3)
    seated(group, mara, 6)
    names = mara.locator(".seat-name").all_inner_texts()
    start_with_a_double_tap(group, mara, "dblclick")
    group.play_to_the_end(
        [
            empty_clue_first(group, "Ben"),
            reload_mid_round(group, "Cleo", "play"),
            tab_closed_for_a_while(group, "Mara", "vote"),
            plays_in_chinese(group, "Ben", "简体中文", "vote", from_round=2),
        ],
        timeout=150,
    )
    assert_ranking(group, names)


def test_teams_two_pairs_of_friends_and_two_bots(players: Players, server: LiveServer) -> None:
    """Four people (three phones, a laptop) and two bots: three teams. The host taps "Create the
    room" twice, and "Start the game"; the ranking lists the teams."""
    group = Group(players, server)
    mara, ben, cleo = group.phone("Mara"), group.phone("Ben"), group.phone("Cleo")
    dan = group.laptop("Dan")
    create_with_a_double_tap(group, mara, "Mara", mode="teams", how="taps")
    for page, name in ((ben, "Ben"), (cleo, "Cleo"), (dan, "Dan")):
        join(group, page, name)
    add_bots(mara, 2)
    seated(group, mara, 6)
    teams = mara.locator(".teams li.team")
    expect(teams).to_have_count(3)
    expect(teams.nth(0)).to_contain_text("Mara")
    expect(teams.nth(0)).to_contain_text("Ben")
    expect(teams.nth(1)).to_contain_text("Cleo")
    expect(teams.nth(1)).to_contain_text("Dan")
    bots = bot_names(mara)
    assert len(bots) == 2
    start_with_a_double_tap(group, mara, "taps")
    group.play_to_the_end(
        [
            empty_clue_first(group, "Dan"),
            tab_closed_for_a_while(group, "Ben", "play", via_home=True),
            reload_mid_round(group, "Dan", "vote"),
            plays_in_chinese(group, "Cleo", "繁體中文", "play", from_round=2),
        ],
        timeout=150,
    )
    assert_ranking(group, ["Mara & Ben", "Cleo & Dan", f"{bots[0]} & {bots[1]}"])


# ---------------------------------------------------------------- what the groups tripped over

#: Records on a page each time someone's rabbit shows as away, or a line says they are.
WATCH_AWAY = """() => {
    window.seenAway = [];
    new MutationObserver(() => {
        for (const element of document.querySelectorAll(".away-line, .acted li.away, .seat.gone")) {
            window.seenAway.push(element.textContent.trim() || element.className);
        }
    }).observe(document.body, { subtree: true, childList: true });
}"""

#: Each seat of the lobby whose badges reach under its button: [name, badges' right, button's left].
BADGES_UNDER_BUTTONS = """() => [...document.querySelectorAll(".seat")].flatMap((seat) => {
    const button = seat.querySelector("button");
    const badges = [...seat.querySelectorAll(".badge")];
    if (!button || !badges.length) return [];
    const right = Math.max(...badges.map((badge) => badge.getBoundingClientRect().right));
    const left = button.getBoundingClientRect().left;
    const name = seat.querySelector(".seat-name").textContent;
    return right > left + 0.5 ? [[name, Math.round(right), Math.round(left)]] : [];
})"""


def test_a_phone_lobby_shows_every_bot_badge_clear_of_its_button(players: Players) -> None:
    """Found with the groups above: at 360 px (and at 390 and 414) a bot's "bot · normal" badge ran
    under its "Remove bot" button (up to 582a097; the seat label of 911edd5 keeps it clear)."""
    host = players.open(*PHONE, mobile=True)
    create_room_in_ui(host, players.base, "Mara", cycles=1)
    add_bots(host, 4)
    expect(host.locator(".seat .badge", has_text="bot")).to_have_count(4)
    assert host.evaluate(BADGES_UNDER_BUTTONS) == []


def test_a_double_tap_on_add_a_bot_adds_one_bot(players: Players, server: LiveServer) -> None:
    """Found when the 7-seat scenario double-clicked "Add a bot" (now and then its second click
    came after the answer): the host adds bots one by one and taps the third one twice."""
    group = Group(players, server)
    mara = group.phone("Mara")
    create(group, mara, "Mara", mode="odyssey")
    add_bots(mara, 2)
    seats = mara.locator(".seat")
    x, y = centre(mara.get_by_role("button", name="Add a bot"))
    mara.wait_for_timeout(TAPS_APART_MS)  # a new tap, well after the last
    first = time.monotonic()
    reply = answered(mara, lambda: tap_at(mara, x, y))
    assert reply["type"] == "ack", reply
    expect(seats).to_have_count(4)
    # The answer is in and drawn, as on a home network it is long before a person's second tap
    # (100-300 ms after the first); here is that second tap, where the first one was.
    mara.wait_for_timeout(max(0, TAP_PAUSE_MS - round(1000 * (time.monotonic() - first))))
    tap_at(mara, x, y)
    mara.wait_for_timeout(500)
    group.settle()
    # a tap made after the first was answered is a tap of its own (issue 34: quick taps on "Add a
    # bot" were dropped); only a double tap within a few tens of ms is one (test_group_bugs)
    assert group.moves_sent(mara) == ["add_bot", "add_bot", "add_bot", "add_bot"]
    assert len(group.live_room().members) == 5
    expect(seats).to_have_count(5)


def test_switching_the_language_does_not_show_you_away_to_the_others(players: Players, server: LiveServer) -> None:
    """Found in the scenarios' language switches: for as long as the switching player's page takes
    to connect again (here ~50-100 ms, on a phone's network longer), everyone else reads "Ben is
    away: a bot plays for them in 1:00." and sees Ben's rabbit asleep."""
    group = Group(players, server)
    mara, ben = group.phone("Mara"), group.phone("Ben")
    create(group, mara, "Mara", mode="odyssey")
    join(group, ben, "Ben")
    add_bots(mara, 1)
    start_game(mara, [ben])
    deadline = time.monotonic() + 30
    while not (awaited(ben) and ben.locator(".action-bar").count()):  # the table waits for Ben
        assert time.monotonic() < deadline
        if step(mara):
            group.settle()
        mara.wait_for_timeout(20)
    mara.evaluate(WATCH_AWAY)
    ben.locator("select.language").select_option(label="简体中文")
    expect(ben.locator(".table-head .round")).to_have_text(re.compile(r"^第 \d+ 轮$"))
    expect(ben.locator(".connection.online")).to_have_count(1)
    expect(ben.locator(".action-bar")).to_be_visible()
    mara.wait_for_timeout(300)  # whatever Ben's reconnection sent Mara has come by now
    expect(mara.locator(".away-line")).to_have_count(0)
    assert mara.evaluate("() => window.seenAway") == []


def test_a_tap_held_while_the_table_moves_still_lands(players: Players, server: LiveServer) -> None:
    """Found in the e2e runs of the 5-bot party table: a card tapped while a bot's vote came in did
    not take, because the redraw put a new card under the finger between press and release (a
    click needs both on one element). Here the host presses "Add a bot" and, before she lifts her
    finger, a friend joins over HTTP."""
    group = Group(players, server)
    mara = group.phone("Mara")
    code = create(group, mara, "Mara", mode="odyssey")
    seats = mara.locator(".seat")
    expect(seats).to_have_count(1)
    x, y = centre(mara.get_by_role("button", name="Add a bot"))
    mara.mouse.move(x, y)
    mara.mouse.down()
    with socket_of(mara).expect_event("framereceived", predicate=is_state):
        joined = httpx.post(f"{players.base}/api/rooms/{code}/join", json={"name": "Ben", "colour": "purple"})
        assert joined.status_code == 201, joined.text
    mara.wait_for_timeout(100)  # the new state is drawn (or waits) now, with the finger still down
    mara.mouse.up()
    expect(seats).to_have_count(3)  # Mara, Ben and the bot her tap asked for
    assert group.moves_sent(mara) == ["add_bot"]
