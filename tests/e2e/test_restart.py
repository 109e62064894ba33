"""A deployment of two processes (PostgreSQL + Redis) behind a load balancer, each restarted
(SIGTERM, then started again) in the middle of a game that two phones and a bot are playing: no
move the server acknowledged is lost or made twice, and the phones play on to the end without a
reload — told to come back (close code 1012), they connect again through the balancer."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from fabula.server.entries import Acted, AnyEntry

from ..server.harness import Front
from ..server.test_scaleout import Deployment
from ..services import postgres_url, redis_url, run_aside
from .conftest import Players
from .test_album import game_over
from .ui import add_bots, create_room_by_api, open_seat, play_until, start_game

__all__ = ["postgres_url", "redis_url"]  # fixtures, used by name

#: Kept by each page: the close code of every WebSocket of the page that closed.
RECORD_CLOSE_CODES = """
window.closeCodes = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("close", (event) => window.closeCodes.push(event.code));
  }
};
"""


@pytest.fixture
def fronted(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[Deployment, Front]]:
    deployment = Deployment(postgres_url, redis_url, tmp_path)
    front: Front | None = None
    try:
        deployment.spawn()
        deployment.spawn()
        front = Front([process.port for process in deployment.processes])
        front.start()
        yield deployment, front
    finally:
        if front is not None:
            front.close()
        deployment.close()


class Acks:
    """Every ack a page received, on any of its WebSockets: message id → seq."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def watch(self, page: Page) -> None:
        page.on("websocket", lambda socket: socket.on("framereceived", self._frame))

    def _frame(self, payload: str | bytes) -> None:
        message = json.loads(payload)
        if isinstance(message, dict) and message.get("type") == "ack":
            self.seen[message["id"]] = message["seq"]


def restart_each(deployment: Deployment, done: threading.Event) -> None:
    """Restart the processes one after the other, as a rolling deploy does."""
    for process in deployment.processes:
        process.stop()
        process.start()
    done.set()


def test_a_rolling_restart_mid_game_loses_no_acked_move_and_the_phones_play_on(
    players: Players, fronted: tuple[Deployment, Front]
) -> None:
    deployment, front = fronted
    seat = create_room_by_api(front.url, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 3})
    code = seat["code"]
    joined = httpx.post(f"{front.url}/api/rooms/{code}/join", json={"name": "Fay", "colour": "pink"})
    assert joined.status_code == 201, joined.text
    acks = Acks()
    host, fay = players.phone(), players.phone()
    for page in (host, fay):
        page.context.add_init_script(RECORD_CLOSE_CODES)
        acks.watch(page)
    open_seat(host, front.url, code, seat)
    open_seat(fay, front.url, code, joined.json())
    add_bots(host, 1)
    start_game(host, [fay])
    for page in (host, fay):
        page.evaluate("() => { window.sameDocument = true; }")

    restarted = threading.Event()
    restarting: list[threading.Thread] = []

    def over_or_restart() -> bool:
        if not restarting and len(acks.seen) >= 3:  # a few moves in: the rolling restart begins
            restarting.append(threading.Thread(target=restart_each, args=(deployment, restarted)))
            restarting[0].start()
        return game_over(host) and game_over(fay)

    play_until([host, fay], over_or_restart, timeout=240)
    assert restarting, "the game ended before the restart began"
    restarting[0].join(timeout=60)
    assert restarted.is_set(), "the game ended before both processes were restarted: make it longer"

    for page in (host, fay):
        assert page.evaluate("() => window.sameDocument") is True, "the page was not reloaded"
        assert 1012 in page.evaluate("() => window.closeCodes"), "told to come back"
    log: list[AnyEntry] = run_aside(lambda: deployment.entries(code))
    by_id: dict[str, list[int]] = {}
    for seq, entry in enumerate(log):
        if entry.client_id is not None:
            by_id.setdefault(entry.client_id, []).append(seq)
    lost = {mid: seq for mid, seq in acks.seen.items() if by_id.get(mid) != [seq]}
    assert lost == {}, "every acked message made its one entry, at the seq its ack named"
    moves = [entry for entry in log if isinstance(entry, Acted) and not entry.auto and entry.by is not None]
    assert len(moves) >= 9, "the people's moves of the game are all there"
    rankings = [page.locator(".ranking li").all_inner_texts() for page in (host, fay)]
    assert rankings[0] == rankings[1]
    assert len(rankings[0]) == 3
