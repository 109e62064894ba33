"""A game with its table split between two processes of one deployment (PostgreSQL + Redis),
played through the browser.

The host's phone is on the first process, a bot in the third seat; Fay's phone starts on the
first process too, then the game goes on with her on the second (a phone that came back through
another process: a load balancer's choice, a dropped connection). Her connection closing on the
first process makes it count her gone unless presence tells it she is connected through the
other: with a grace of three seconds, the host would see "Fay is away: a bot plays for them"
within seconds, and a bot would play for her. Neither happens; she reloads mid-game on her
process and the game plays to its end on both phones, with the same ranking.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from ..server.test_scaleout import Deployment
from ..services import postgres_url, redis_url
from .conftest import Players
from .ui import add_bots, create_room_by_api, open_seat, play_until, start_game

__all__ = ["postgres_url", "redis_url"]  # fixtures, used by name

GRACE_SECONDS = 3


@pytest.fixture
def two_processes(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    deployment = Deployment(postgres_url, redis_url, tmp_path)
    try:
        for _ in range(2):  # (the last --disconnect-grace-seconds given is the one taken)
            deployment.spawn("--disconnect-grace-seconds", str(GRACE_SECONDS))
        yield deployment.processes[0].url, deployment.processes[1].url
    finally:
        deployment.close()


def game_over(page: Page) -> bool:
    return bool(page.locator(".game-over").count()) and not page.locator(".overlay").count()


def test_players_on_two_processes_see_each_other_present_and_finish_the_game(
    players: Players, two_processes: tuple[str, str]
) -> None:
    first, second = two_processes
    seat = create_room_by_api(first, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    code = seat["code"]
    host = players.phone()
    open_seat(host, first, code, seat)
    joined = httpx.post(f"{first}/api/rooms/{code}/join", json={"name": "Fay", "colour": "pink"})
    assert joined.status_code == 201, joined.text
    fay_seat = joined.json()
    on_first = players.phone()
    open_seat(on_first, first, code, fay_seat)
    expect(host.locator(".seat", has_text="Fay")).to_be_visible()
    add_bots(host, 1)
    start_game(host, [on_first])
    on_first.context.close()
    fay = players.phone()
    open_seat(fay, second, code, fay_seat)
    host.wait_for_timeout((GRACE_SECONDS + 1) * 1000)  # past the grace: anyone counted gone shows away
    # still the host's clue to give (the first storyteller): no bot gave it for her, on either
    # process, and nobody is shown away
    expect(host.locator(".clue-input")).to_be_visible()
    for page in (host, fay):
        expect(page.locator(".away-line")).to_have_count(0)
        expect(page.locator(".acted li.away")).to_have_count(0)
    table = [host, fay]
    play_until(table, lambda: fay.locator(".overlay .reveal").count() > 0 or game_over(fay), timeout=60)
    fay.reload()  # on her process, mid-game: her seat and the table come back
    fay.locator(".table-screen, .game-over").first.wait_for()
    expect(host.locator(".away-line")).to_have_count(0)
    play_until(table, lambda: game_over(host) and game_over(fay), timeout=90)
    rankings = [page.locator(".ranking li").all_inner_texts() for page in table]
    assert len(rankings[0]) == 3
    assert rankings[0] == rankings[1], "the two processes ended the game differently"
    for page in table:  # nobody was played for: no "while you were away" story
        expect(page.locator(".story")).to_have_count(0)
    assert not players.errors
