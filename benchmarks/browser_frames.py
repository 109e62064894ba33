"""WebSocket frames a browser exchanges per move: one phone plays whole games against bots through
the page (Chromium, headless), and every frame its socket sends and receives is counted.

    .venv/bin/python benchmarks/browser_frames.py [--games 3] [--bots 2] [--chromium /usr/bin/chromium]

Prints, per game and in all: the moves of the game (every seat's, from its log), the frames the
page sent (its own moves, and any question it asks, such as `legal`) and received (states, acks,
answers), per move. Frame counts do not depend on the machine's speed; the bots' delay does not
change them either (a state per entry whatever the pace).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, WebSocket, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.ui import add_bots, create_room_by_api, open_seat, play_until, start_game, watch_sockets  # noqa: E402
from tests.server.harness import live_server  # noqa: E402


class Frames:
    """Every frame of a page's sockets, by direction and message type."""

    def __init__(self) -> None:
        self.sent: collections.Counter[str] = collections.Counter()
        self.received: collections.Counter[str] = collections.Counter()
        #: bytes of every frame, both ways
        self.bytes = 0

    def watch(self, page: Page) -> None:
        def socket_opened(socket: WebSocket) -> None:
            socket.on("framesent", lambda payload: self._count(self.sent, payload))
            socket.on("framereceived", lambda payload: self._count(self.received, payload))

        page.on("websocket", socket_opened)

    def _count(self, counter: collections.Counter[str], payload: str | bytes) -> None:
        counter.update([_type(payload)])
        self.bytes += len(payload.encode() if isinstance(payload, str) else payload)

    def reset(self) -> None:
        self.sent.clear()
        self.received.clear()
        self.bytes = 0


def _type(payload: str | bytes) -> str:
    message = json.loads(payload)
    return str(message.get("type")) if isinstance(message, dict) else "?"


def game_over(page: Page) -> bool:
    return bool(page.locator(".game-over").count()) and not page.locator(".overlay").count()


def moves_of(base: str, code: str) -> int:
    log: dict[str, Any] = httpx.get(f"{base}/api/rooms/{code}/log").json()
    return len(log["actions"])


def play_one(browser: Any, base: str, bots: int) -> tuple[int, Frames]:
    """One game of a phone against ``bots``: its moves (every seat's) and the phone's frames."""
    seat = create_room_by_api(base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        watch_sockets(page)  # (what the players' helpers need)
        frames = Frames()
        frames.watch(page)
        open_seat(page, base, seat["code"], seat)
        add_bots(page, bots)
        frames.reset()  # the game's frames only
        start_game(page)
        play_until([page], lambda: game_over(page), timeout=120)
        return moves_of(base, seat["code"]), frames
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--bots", type=int, default=2)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    moves, sent, received, size = 0, collections.Counter[str](), collections.Counter[str](), 0
    with (
        tempfile.TemporaryDirectory() as folder,
        live_server(Path(folder), bot_delay_seconds=0.05) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        try:
            for number in range(args.games):
                game_moves, frames = play_one(browser, server.url, args.bots)
                out, back = sum(frames.sent.values()), sum(frames.received.values())
                print(
                    f"game {number + 1}: {game_moves} moves; the page sent {out} frames ({out / game_moves:.2f} a move:"
                    f" {dict(frames.sent)}), received {back} ({back / game_moves:.2f} a move: {dict(frames.received)})"
                )
                moves += game_moves
                size += frames.bytes
                sent.update(frames.sent)
                received.update(frames.received)
        finally:
            browser.close()
    print(
        f"all {args.games} games: {moves} moves; the page sent {sum(sent.values()) / moves:.2f} frames a move"
        f" ({dict(sent)}), received {sum(received.values()) / moves:.2f} ({dict(received)});"
        f" {size / moves:,.0f} bytes a move both ways; {1 + args.bots} seats, one of them the page's"
    )


if __name__ == "__main__":
    main()
