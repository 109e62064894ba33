"""Screenshots of every screen of the browser client, at a phone's and a desktop's size, and the
board at a TV's.

    .venv/bin/python tools/screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium]

A server runs in this process (a temporary data folder, fixed seeds, quick bots); browsers play
rooms of every mode through their screens — home, join, lobby, the table in every phase, the
party storyteller's blind clue, teams, the reveal, the end, the board, the rules — and each screen
is saved as SIZE-SCREEN.png (``phone-table-vote.png``, ``desktop-reveal.png``,
``tv-board-game.png``). A few are also taken in 繁體中文 and 简体中文 (suffix ``-zh-hant``,
``-zh-hans``), from a player whose browser is set to that language; Chinese needs a CJK font
(Debian: fonts-noto-cjk). Prints the files written.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Locator, Page, WebSocket, sync_playwright

from fabula.server.app import create_app
from fabula.server.config import Config
from fabula.server.local import ServerThread

ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "src" / "fabula" / "web" / "static" / "i18n"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SIZES = {"phone": (390, 844), "desktop": (1440, 900), "tv": (1920, 1080)}
BOTH = ("phone", "desktop")
LANGUAGES = {"zh-Hant": "zh-hant", "zh-Hans": "zh-hans"}

# Everything on the page has settled: fonts, the pictures on screen, animations.
SETTLED = """() => {
    if (document.fonts.status !== "loaded") return false;
    const high = window.innerHeight;
    for (const img of document.images) {
        const box = img.getBoundingClientRect();
        if (box.bottom < 0 || box.top > high || box.width === 0) continue;
        if (!img.complete || img.naturalWidth === 0) return false;
    }
    return document.getAnimations().every((animation) => animation.playState !== "running");
}"""


# ---------------------------------------------------------------- the server


class Server(ServerThread):
    """The Fabula server on a free port, in a thread of this process."""

    def __init__(self, data: Path) -> None:
        config = Config(
            data=data,
            # the lobby as a group sees it on its Wi-Fi (this server itself listens on 127.0.0.1)
            public_url="http://192.168.1.20:8000",
            bot_delay_seconds=0.2,
            bot_reveal_seconds=0.0,
            sweep_seconds=3600,
            max_rooms_per_address=1000,
            max_connections_per_address=1000,
        )
        super().__init__(create_app(config, rng=random.Random(20240)))


# ---------------------------------------------------------------- pictures


@dataclass
class Camera:
    out: Path
    written: list[Path] = field(default_factory=list)

    def shoot(self, page: Page, screen: str, sizes: Sequence[str] = BOTH, *, full_page: bool = False) -> None:
        """``page`` as it looks now at each of ``sizes``, as SIZE-SCREEN.png."""
        before = page.viewport_size
        for size in sizes:
            width, height = SIZES[size]
            page.set_viewport_size({"width": width, "height": height})
            settle(page)
            path = self.out / f"{size}-{screen}.png"
            page.screenshot(path=str(path), full_page=full_page, animations="disabled")
            self.written.append(path)
        if before is not None:
            page.set_viewport_size(before)


def settle(page: Page) -> None:
    try:
        page.wait_for_function(SETTLED, timeout=10_000, polling=100)
    except Exception:  # a picture that never loads is itself worth seeing in the screenshot
        print(f"warning: {page.url} did not settle", file=sys.stderr)
    page.wait_for_timeout(150)  # a last frame after the layout change


# ---------------------------------------------------------------- players


class Table:
    """Browser pages, one context (one seat) each, and what they need to play."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.browser, self.base = browser, base
        self.sockets: dict[int, WebSocket] = {}
        self.errors: list[str] = []

    def page(self, language: str | None = None, size: str = "desktop") -> Page:
        width, height = SIZES[size]
        context = self.browser.new_context(viewport={"width": width, "height": height}, base_url=self.base)
        context.set_default_timeout(15_000)
        if language is not None:
            context.add_init_script(f"localStorage.setItem('fabula.language', {json.dumps(language)})")
        else:  # English whatever the machine's locale
            context.add_init_script("localStorage.setItem('fabula.language', 'en')")
        page = context.new_page()
        page.on("websocket", lambda socket: self.sockets.__setitem__(id(page), socket))
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        return page

    def answered(self, page: Page, act: Callable[[], None]) -> dict[str, Any]:
        """Do ``act`` (a click that sends a message) and wait for the server's answer."""

        def reply(payload: str | bytes) -> bool:
            message = json.loads(payload)
            return isinstance(message, dict) and message.get("type") in ("ack", "error")

        with self.sockets[id(page)].expect_event("framereceived", predicate=reply) as frame:
            act()
        answer: dict[str, Any] = json.loads(frame.value)
        if answer["type"] != "ack":
            raise RuntimeError(f"refused: {answer}")
        return answer

    def room(self, name: str, colour: str, **settings: Any) -> dict[str, Any]:
        response = httpx.post(f"{self.base}/api/rooms", json={"name": name, "colour": colour, "settings": settings})
        response.raise_for_status()
        seat: dict[str, Any] = response.json()
        return seat

    def sit(self, page: Page, seat: dict[str, Any]) -> None:
        """Open the room as the seat an HTTP call took."""
        page.goto("/rules")
        saved = {seat["code"]: {"token": seat["token"], "member": seat["member"]}}
        page.evaluate("(seats) => localStorage.setItem('fabula.seats', JSON.stringify(seats))", saved)
        page.goto(f"/room/{seat['code']}")
        page.locator(".lobby").wait_for()

    def join(self, page: Page, code: str, name: str) -> None:
        page.goto(f"/join/{code}")
        page.fill("input[name=name]", name)
        page.locator("form button.primary[type=submit]").click()
        page.locator(".lobby").wait_for()

    def add_bots(self, host: Page, count: int) -> None:
        for index in range(count):
            if index:
                host.wait_for_timeout(550)  # two taps closer than half a second are one (net.js)
            seats = host.locator(".seat").count()
            self.answered(host, host.locator(".lobby .actions button:not(.primary)").click)
            host.wait_for_function(f"() => document.querySelectorAll('.seat').length > {seats}")

    def start(self, host: Page, everyone: Sequence[Page]) -> None:
        self.answered(host, host.locator(".lobby .actions button.primary").click)
        for page in everyone:
            page.locator(".table-screen").wait_for()


def hand(page: Page) -> Locator:
    return page.locator(".hand-card .card-button:not([disabled])")


def table_cards(page: Page) -> Locator:
    return page.locator(".table-card .card-button:not([disabled])")


def bar_button(page: Page, css: str = "button.primary") -> Locator:
    return page.locator(f".action-bar {css}")


def awaited(page: Page) -> bool:
    return page.title().startswith("●")


def close_reveal(page: Page) -> bool:
    overlay = page.locator(".overlay")
    if not overlay.count():
        return False
    overlay.locator("button.primary").click()
    overlay.wait_for(state="detached")
    return True


def play_to_the_end(table: Table, pages: Sequence[Page], timeout: float = 120) -> None:
    """Every page makes its moves (first card, first vote) until the game is over."""
    made: set[tuple[int, str, str]] = set()
    deadline = time.monotonic() + timeout

    def once(page: Page, move: str) -> bool:
        key = (id(page), page.locator(".table-head .round").inner_text(), move)
        if key in made:
            return False
        made.add(key)
        return True

    while not all(page.locator(".game-over").count() and not page.locator(".overlay").count() for page in pages):
        if time.monotonic() > deadline:
            raise RuntimeError("the game did not end in time")
        moved = False
        for page in pages:
            if close_reveal(page):
                moved = True
                continue
            if not awaited(page) or not page.locator(".action-bar").count():
                continue
            if page.locator(".clue-input").count():
                if not page.locator(".hidden-hand").count():
                    hand(page).first.click()
                page.fill(".clue-input", "Once upon a time")
                table.answered(page, page.locator("form.action-bar button[type=submit]").click)
                moved = True
            elif hand(page).count() and once(page, "play"):  # cards may be chosen only to play them
                hand(page).first.click()
                if bar_button(page).is_disabled():  # two cards to play
                    hand(page).nth(1).click()
                table.answered(page, bar_button(page).click)
                moved = True
            elif table_cards(page).count() and once(page, "vote"):
                table_cards(page).first.click()
                table.answered(page, bar_button(page).click)
                moved = True
        if not moved:
            pages[0].wait_for_timeout(50)


# ---------------------------------------------------------------- the tour


def tour(browser: Browser, base: str, camera: Camera, languages: Sequence[str]) -> list[str]:
    """Every screen; the notes to print (what was skipped, script errors)."""
    table = Table(browser, base)
    notes: list[str] = []
    shoot = camera.shoot

    # Home, rules, a wrong code; home in each other language.
    visitor = table.page()
    visitor.goto("/")
    visitor.locator(".create-panel").wait_for()
    shoot(visitor, "home", full_page=True)
    visitor.locator("details.advanced summary").click()
    visitor.locator("input[name=mode][value=party]").check()
    shoot(visitor, "home-advanced", full_page=True)
    visitor.goto("/rules")
    visitor.locator(".rules").wait_for()
    shoot(visitor, "rules", full_page=True)
    visitor.goto("/join/NOROOM")
    visitor.locator("main p.error").wait_for()
    shoot(visitor, "join-no-room")
    for language, suffix in LANGUAGES.items():
        if language not in languages:
            notes.append(f"no {I18N / (language + '.json')}: home in {language} skipped")
            continue
        page = table.page(language)
        page.goto("/")
        page.locator(".create-panel").wait_for()
        shoot(page, f"home-{suffix}", full_page=True)
        page.context.close()
    chinese = "zh-Hant" if "zh-Hant" in languages else None
    zh = LANGUAGES.get(chinese or "", "")

    # Odyssey: four people (one in Chinese, if there is Chinese) and a bot; Mara tells first.
    seat = table.room("Mara", "blue", mode="odyssey", options={"first_storyteller": 0, "storyteller_cycles": 1})
    code = seat["code"]
    mara = table.page()
    table.sit(mara, seat)
    ben = table.page(size="phone")
    ben.goto(f"/join/{code}")
    ben.locator("input[name=name]").wait_for()
    ben.fill("input[name=name]", "Ben")
    shoot(ben, "join", full_page=True)
    table.join(ben, code, "Ben")
    cleo = table.page(size="phone")
    table.join(cleo, code, "Cleopatra Wolkenstein")
    people = [mara, ben, cleo]
    dev = None
    if chinese is not None:
        dev = table.page(chinese, size="phone")
        table.join(dev, code, "小明")
        people.append(dev)
    table.add_bots(mara, 1)
    shoot(mara, "lobby", full_page=True)
    shoot(ben, "lobby-guest", full_page=True)
    if dev is not None:
        shoot(dev, f"lobby-{zh}", ("phone",), full_page=True)
    board = table.page(size="tv")
    board.goto(f"/room/{code}/board")
    board.locator(".board-qr").wait_for()
    shoot(board, "board-lobby", ("tv", *BOTH))

    table.start(mara, people)
    cleo.locator(".status-line").wait_for()
    shoot(cleo, "table-clue-waiting")
    hand(mara).first.wait_for()
    hand(mara).nth(2).click()
    mara.fill(".clue-input", "The sea remembers")
    shoot(mara, "table-clue")
    table.answered(mara, bar_button(mara, "button[type=submit]").click)

    for page in people[1:]:
        hand(page).first.wait_for()
    hand(ben).nth(1).click()
    shoot(ben, "table-play")
    table.answered(ben, bar_button(ben).click)
    ben.locator(".hand-card.played").wait_for()
    shoot(ben, "table-played")
    if dev is not None:
        hand(dev).nth(0).click()
        shoot(dev, f"table-play-{zh}", ("phone",))
    for page in people[2:]:
        if not page.locator(".hand-card.chosen").count():
            hand(page).first.click()
        table.answered(page, bar_button(page).click)

    for page in people[1:]:
        table_cards(page).first.wait_for()
    watcher = table.page()
    watcher.goto(f"/room/{code}?watch=1")
    watcher.locator(".table-cards").wait_for()
    shoot(watcher, "table-watch")
    watcher.context.close()
    table_cards(ben).nth(1).click()
    shoot(ben, "table-vote")
    board.locator(".board-cards li").first.wait_for()
    shoot(board, "board-game", ("tv", *BOTH))
    ben.locator(".table-card .zoom").first.click()
    ben.locator(".viewer").wait_for()
    shoot(ben, "card-viewer")
    ben.keyboard.press("Escape")
    if dev is not None:
        table_cards(dev).first.click()
        shoot(dev, f"table-vote-{zh}", ("phone",))
    for page in people[1:]:
        if not page.locator(".table-card.chosen").count():
            table_cards(page).first.click()
        table.answered(page, bar_button(page).click)

    ben.locator(".overlay .reveal").wait_for()
    shoot(ben, "reveal")
    if dev is not None:
        dev.locator(".overlay .reveal").wait_for()
        shoot(dev, f"reveal-{zh}", ("phone",))
    board.locator(".board-clue.past").wait_for()
    shoot(board, "board-reveal", ("tv", *BOTH))
    close_reveal(mara)
    shoot(mara, "table-after-reveal")

    play_to_the_end(table, people)
    shoot(mara, "game-over", full_page=True)
    shoot(ben, "game-over-guest", ("phone",), full_page=True)
    if dev is not None:
        shoot(dev, f"game-over-{zh}", ("phone",), full_page=True)
    shoot(board, "board-over", ("tv",))
    # the TV replays the game (after the last reveal's time on screen): a round of it
    board.locator(".board-replay .replay-prev").click(timeout=30_000)
    board.locator(".board-replay .reveal-card").first.wait_for()
    board.locator(".board-replay .replay-play").click()  # paused, to be shot
    shoot(board, "board-replay", ("tv",))
    mara.locator(".album .album-next").click()
    shoot(mara, "album-round-2", ("phone",))
    for page in [*people, board]:
        page.context.close()

    # Party: the storyteller speaks before seeing the hand; later, the vote and the red token.
    seat = table.room("Mara", "blue", mode="party", options={"first_storyteller": 0})
    mara = table.page()
    table.sit(mara, seat)
    table.add_bots(mara, 5)
    table.start(mara, [mara])
    mara.locator(".hidden-hand").wait_for()
    mara.fill(".clue-input", "Almost home")
    shoot(mara, "table-party-blind")
    table.answered(mara, bar_button(mara, "button[type=submit]").click)
    hand(mara).first.click()
    table.answered(mara, bar_button(mara).click)
    table_cards(mara).first.wait_for()
    table_cards(mara).nth(1).click()
    shoot(mara, "table-party-vote")
    mara.context.close()

    # Teams: two people in one team; one suggests a card, the other is about to play it.
    seat = table.room("Mara", "blue", mode="teams", options={"first_storyteller": 1})
    mara, ben = table.page(), table.page(size="phone")
    table.sit(mara, seat)
    table.join(ben, seat["code"], "Ben")
    table.add_bots(mara, 4)
    shoot(mara, "lobby-teams", full_page=True)
    table.start(mara, [mara, ben])
    hand(ben).first.click()
    table.answered(ben, bar_button(ben, "button:not(.primary)").click)  # suggest it
    mara.locator(".action-bar .hint").wait_for()
    hand(mara).nth(1).click()
    shoot(mara, "table-teams")
    table.answered(mara, bar_button(mara).click)
    table_cards(ben).first.wait_for()
    table_cards(ben).first.click()
    shoot(ben, "table-teams-vote")
    for page in (mara, ben):
        page.context.close()

    notes.extend(f"script error: {error}" for error in table.errors)
    return notes


@contextmanager
def chromium(path: str) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots", help="folder for the PNGs")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium", help="Chromium to drive")
    args = parser.parse_args(argv)
    if not Path(args.chromium).exists():
        parser.error(f"no Chromium at {args.chromium} (Debian: apt install chromium)")
    languages = [language for language in LANGUAGES if (I18N / f"{language}.json").exists()]
    notes = []
    if languages and not _has_cjk_font():
        notes.append(
            "no CJK font (fc-list :lang=zh is empty): Chinese shows as boxes; Debian: apt install fonts-noto-cjk"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    camera = Camera(args.out)
    with (
        tempfile.TemporaryDirectory(prefix="fabula-shots-") as data,
        Server(Path(data)) as server,
        chromium(args.chromium) as browser,
    ):
        notes.extend(tour(browser, server.url, camera, languages))
    for path in camera.written:
        print(path)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def _has_cjk_font() -> bool:
    if shutil.which("fc-list") is None:
        return True  # cannot tell
    found = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False)
    return bool(found.stdout.strip())


if __name__ == "__main__":
    sys.exit(main())
