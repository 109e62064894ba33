"""Bots on the group's own model in the browser (issue 37): the lobby's menu offers the server's
models (and none when it has none), a whole game at a phone's 360 px with a model bot at a table
dealt from the group's uploaded photos — every request it makes carries only the pictures of its
own hand and of the table, never a card of another seat's hand — and the host told when a model
does not answer, with the fallback level that plays for it."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from fabula.bots.language.prompt import pictures_of
from fabula.research.agents.standin import StandIn

from ..server.harness import LiveServer, free_port, live_server
from ..server.test_model_bots import SeatWatch
from .conftest import Players
from .test_album import game_over
from .test_pictures import photo
from .ui import add_bots, create_room_by_api, open_seat, play_until, start_game

#: the labels the English menu gives the built-in levels (the session's server has no models)
BUILT_IN = {"easy", "normal", "hard", "random"}


@pytest.fixture(scope="module")
def model_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, StandIn]]:
    """A server with two model bots: ``local`` (sees; the seeded stand-in endpoint) and ``gone``
    (reads; nothing listens at its address), whose fallback level is ``random``."""
    data = tmp_path_factory.mktemp("models") / "data"
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with (
        StandIn(seed=3) as endpoint,
        live_server(
            data,
            model_bot=(f"local=openai:{endpoint.url}:stand-in", f"gone=openai:{dead}:gone"),
            model_bot_vision=("local",),
            model_bot_fallback="random",
            bot_delay_seconds=0.05,
            max_rooms_per_address=10_000,
            max_connections_per_address=10_000,
        ) as server,
    ):
        yield server, endpoint


@pytest.fixture
def model_players(browser: Browser, model_server: tuple[LiveServer, StandIn]) -> Iterator[Players]:
    opened = Players(browser, model_server[0].url)
    yield opened
    opened.close()
    assert not opened.errors, f"script errors in the page: {opened.errors}"
    assert not opened.csp_violations, f"the page broke its Content-Security-Policy: {opened.csp_violations}"
    assert not opened.dialogs, f"the page opened dialogs: {opened.dialogs}"


def menu(page: Page) -> dict[str, str]:
    """The lobby's bot menu: each option's value and label."""
    select = page.locator("label.bot-level select")
    expect(select).to_be_visible()
    found: dict[str, str] = select.evaluate("(s) => Object.fromEntries([...s.options].map((o) => [o.value, o.text]))")
    return found


def host_phone(players: Players, **settings: object) -> tuple[Page, dict[str, object]]:
    """The host on a 360 × 800 phone, in a room made over HTTP with ``settings``."""
    seat = create_room_by_api(players.base, "Ana", "red", **settings)
    phone = players.open(360, 800, mobile=True)
    open_seat(phone, players.base, str(seat["code"]), seat)
    return phone, seat


def add_bot_of(host: Page, level: str, count: int = 1) -> None:
    host.select_option("label.bot-level select", level)
    add_bots(host, count)


def upload_photos(base: str, code: str, token: str, count: int) -> set[str]:
    """``count`` photos sent through the HTTP upload route, as the host's browser sends them; their card ids."""
    files = [("files", (f"photo{n:02d}.jpg", photo(n), "image/jpeg")) for n in range(count)]
    bearer = {"Authorization": f"Bearer {token}"}
    response = httpx.post(f"{base}/api/rooms/{code}/pictures", headers=bearer, files=files, timeout=60)
    assert response.status_code == 201, response.text
    listed = httpx.get(f"{base}/api/rooms/{code}/pictures", headers=bearer, timeout=30).json()
    cards = {picture["card"] for picture in listed["pictures"]}
    assert len(cards) == count, listed
    return cards


def test_the_lobby_menu_offers_no_model_on_a_server_without_one(players: Players) -> None:
    host, _ = host_phone(players)
    levels = menu(host)
    assert set(levels) == BUILT_IN
    assert not any("model" in label for label in levels.values())


def test_the_lobby_menu_offers_the_server_s_models_and_marks_the_one_that_sees(model_players: Players) -> None:
    host, _ = host_phone(model_players)
    levels = menu(host)
    assert set(levels) == BUILT_IN | {"model:local", "model:gone"}
    assert levels["model:local"] == "local model (sees the pictures)"
    assert levels["model:gone"] == "gone model"
    add_bot_of(host, "model:local")
    badge = host.locator(".seat .badge", has_text="local model")
    expect(badge).to_have_text("bot · local model (sees the pictures)")
    assert "sees the pictures of its hand" in str(badge.get_attribute("title"))
    host.select_option("select.language", "zh-Hant")
    # (the menu is drawn again once the language's strings have loaded)
    expect(host.locator("label.bot-level select option[value='model:local']")).to_have_text("local 模型（看得見圖片）")
    expect(host.locator(".seat .badge", has_text="local 模型")).to_be_visible()


def test_a_model_bot_plays_a_whole_game_of_the_group_s_photos_seeing_only_its_seat_s(
    model_players: Players, model_server: tuple[LiveServer, StandIn]
) -> None:
    server, endpoint = model_server
    host, seat = host_phone(model_players, mode="odyssey", options={"target_score": 12})
    code, token = str(seat["code"]), str(seat["token"])
    photos = upload_photos(model_players.base, code, token, 28)  # 4 seats: 4 hands of 6 and a table of 4
    watch = SeatWatch(server, code)
    endpoint.responder = watch
    first = len(endpoint.requests)
    try:
        host.reload()
        panel = host.locator("details.pictures")
        panel.locator("fieldset.deck-choice input[value=ours]").check()
        # no captions: the built-in bots play these blind, the model that sees does not
        expect(panel.locator("p.blind")).to_contain_text("bots play these pictures blind")
        expect(panel.locator("p.blind")).to_contain_text("The local model sees them all the same.")
        add_bot_of(host, "model:local")
        add_bot_of(host, "normal", 2)
        expect(host.locator(".seat .badge", has_text="local model")).to_have_count(1)
        start_game(host)
        play_until([host], lambda: game_over(host), timeout=240)
    finally:
        endpoint.responder = None
    requests = endpoint.requests[first:]
    # One request a move: a play and a vote each round, a clue instead in a round it tells (one in
    # four at most: four seats). The game ends at 12 points, after three rounds or more.
    games = httpx.get(f"{model_players.base}/api/rooms/{code}/games", headers={"Authorization": f"Bearer {token}"})
    rounds = games.json()[0]["rounds"]
    assert rounds >= 3
    assert watch.checked == len(requests) >= 2 * rounds - math.ceil(rounds / 4), (watch.checked, len(requests), rounds)
    assert not watch.problems, watch.problems[:5]  # own hand and table only, on every request
    urls = server.service.autoplay.models._urls
    cards_of_url = {url: card for card, url in urls.items() if url is not None}
    shown = [[cards_of_url.get(url) for m in r["messages"] for url in pictures_of(m)] for r in requests]
    assert max(len(cards) for cards in shown) >= 4  # a hand, or a table, seen whole
    assert {card for cards in shown for card in cards} <= photos  # the group's photos, nothing else
    expect(host.locator(".model-silent")).to_have_count(0)  # its model answered every move


def test_the_host_is_told_when_a_model_does_not_answer_and_who_plays_for_it(model_players: Players) -> None:
    host, _ = host_phone(model_players, mode="odyssey", options={"target_score": 3})
    add_bot_of(host, "model:gone")
    add_bot_of(host, "random")
    start_game(host)
    silent = host.locator(".table-screen p.model-silent")
    play_until([host], lambda: bool(silent.count()), timeout=60)
    said = r"^The model gone is not answering; its seat plays as a random bot\. \(moves made for it so far: \d+\)$"
    expect(silent).to_have_text(re.compile(said))
    # the host's count beside the bot's name, in the side of the table
    counted = re.compile(r"\(gone model\) \d+ moves? by the random bot")
    expect(host.locator(".model-fallbacks li")).to_contain_text(counted)
