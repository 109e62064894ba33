"""Every game leaves its story (issue 17): the album of each round on the phones and the TV at the
game over, the score chart, the picture to download, the share link for anyone, the history of the
room's games, the replay, and the rounds a player missed while a bot played for them."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from ..server.harness import LiveServer, live_server
from .conftest import Players
from .ui import add_bots, create_room_by_api, join_in_ui, open_seat, play_until, start_game

SHOTS = Path(os.environ.get("FABULA_SHOTS", "/tmp/wt-client-shots"))
PHONE_360 = (360, 740)
TV = (1920, 1080)


def shot(page: Page, name: str, *, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def game_over(page: Page) -> bool:
    return bool(page.locator(".game-over").count()) and not page.locator(".overlay").count()


def alone_with_bots(players: Players, name: str, bots: int, **settings: Any) -> tuple[Page, str]:
    seat = create_room_by_api(players.base, name, **settings)
    page = players.open(*PHONE_360, mobile=True)
    open_seat(page, players.base, seat["code"], seat)
    add_bots(page, bots)
    start_game(page)
    return page, seat["code"]


def test_odyssey_album_on_the_phone_and_the_tv_the_picture_and_the_share_link(players: Players) -> None:
    phone, code = alone_with_bots(players, "Mara", 2, options={"first_storyteller": 0, "storyteller_cycles": 1})
    play_until([phone], lambda: game_over(phone), timeout=60)

    # The album: a round at a time, the storyteller, the clue, the cards with owners and tokens.
    album = phone.locator(".game-over .album")
    expect(album.locator(".album-where")).to_have_text("Round 1 of 3")
    expect(album.locator(".album-round .reveal-card")).to_have_count(5)
    expect(album.locator(".album-teller")).to_contain_text("Storyteller: Mara")
    expect(album.locator(".album-round .reveal-clue")).to_contain_text("A long journey")
    expect(album.locator(".album-round .points li")).to_have_count(3)
    # the chart: a line per player, the names at the ends, the rounds 0–3 along the bottom
    chart = album.locator("svg.score-chart")
    expect(chart.locator(".chart-line")).to_have_count(3)
    expect(chart.locator(".chart-label")).to_have_count(3)
    assert any(label.startswith("Mara ") for label in chart.locator(".chart-label").all_text_contents())
    box = chart.bounding_box()
    assert box is not None
    assert box["width"] <= PHONE_360[0], "the chart fits the phone"
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360[0], "nothing wider than the phone"
    shot(phone, "phone-game-over")
    album.scroll_into_view_if_needed()
    shot(phone, "phone-album-round-1")
    # ← / → step between the rounds, and so do the buttons and a swipe
    phone.keyboard.press("ArrowRight")
    expect(album.locator(".album-where")).to_have_text("Round 2 of 3")
    album.locator(".album-next").click()
    expect(album.locator(".album-where")).to_have_text("Round 3 of 3")
    expect(album.locator(".album-next")).to_be_disabled()
    area = album.locator(".album-round").bounding_box()
    assert area is not None
    swipe(phone, area["x"] + area["width"] * 0.2, area["x"] + area["width"] * 0.8, area["y"] + 100)
    expect(album.locator(".album-where")).to_have_text("Round 2 of 3")

    # The picture of the album, and of one round, in the page's language.
    with phone.expect_download() as download:
        album.get_by_role("button", name="Download as a picture").click()
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert download.value.suggested_filename == f"fabula-{code}-1.png"
    download.value.save_as(SHOTS / "album-download.png")
    with phone.expect_download() as download:
        album.get_by_role("button", name="Download this round").click()
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a game too long for one picture (the server refuses it): the page says what to do instead
    # of "try again in a moment"
    too_tall = {"error": {"code": "album_too_tall", "message": "take it a round at a time"}}
    whole = re.compile(r"/games/\d+/album\.png\?lang=en$")
    phone.route(whole, lambda route: route.fulfill(status=400, json=too_tall))
    album.get_by_role("button", name="Download as a picture").click()
    expect(album.locator(".album-tools .download-note")).to_contain_text("a round at a time (“Download this round”)")
    phone.unroute(whole)

    # The share link: shown as text to copy, and it opens in a browser without a seat.
    album.get_by_role("button", name="Share link").click()
    link = album.locator(".share-url")
    expect(link).to_have_value(re.compile(rf"/album/{code}/[A-Za-z0-9_-]+$"))
    stranger = players.open(*PHONE_360, mobile=True)
    stranger.goto(link.input_value())
    shared = stranger.locator(".shared-album .album")
    expect(shared.locator(".album-where")).to_have_text("Round 1 of 3")
    expect(shared.locator(".album-round .reveal-card")).to_have_count(5)
    assert stranger.evaluate("() => localStorage.getItem('fabula.seats')") is None
    with stranger.expect_download() as download:
        shared.get_by_role("button", name="Download as a picture").click()
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shared.get_by_role("button", name="Watch the replay").click()
    replay = stranger.locator(".replay-overlay .replay")
    expect(replay.locator(".replay-where")).to_contain_text("Round 1 of 3")
    replay.get_by_role("button", name="Next round").click()
    expect(replay.locator(".replay-where")).to_contain_text("Round 2 of 3")
    cards = replay.locator(".replay-cards").bounding_box()
    assert cards is not None
    swipe(stranger, cards["x"] + cards["width"] * 0.8, cards["x"] + cards["width"] * 0.2, cards["y"] + 60)
    expect(replay.locator(".replay-where")).to_contain_text("Round 3 of 3")
    replay.get_by_role("button", name="Previous round").click()
    expect(replay.locator(".replay-where")).to_contain_text("Round 2 of 3")
    stranger.wait_for_timeout(1500)  # the cards turn over
    shot(stranger, "phone-shared-replay")
    replay.get_by_role("button", name="Close").click()
    expect(replay).to_have_count(0)

    # A spectator sees the album too (asked over the socket), without the members' buttons.
    watcher = players.open(*PHONE_360, mobile=True)
    watcher.goto(f"/room/{code}?watch=1")
    expect(watcher.locator(".game-over .album .album-where")).to_have_text("Round 1 of 3")
    expect(watcher.locator(".game-over .album .download, .game-over .album .share")).to_have_count(0)
    expect(watcher.locator(".history")).to_have_count(0)

    # The history of the room's games: this one, with its winner; it opens its album.
    expect(phone.locator(".history-game")).to_have_count(1)
    expect(phone.locator(".history-game")).to_contain_text("Game 1")
    expect(phone.locator(".history-winner")).to_contain_text("winner")
    phone.locator(".history-open").click()
    expect(album.locator(".album-where")).to_have_text("Round 1 of 3")  # from its first round
    phone.locator(".history-replay").click()
    expect(phone.locator(".replay-overlay .replay-where")).to_contain_text("Round 1 of 3")
    # on a phone it waits for the reader (turning by itself, a round went while its card and
    # scores were still below the fold)
    expect(phone.locator(".replay-overlay .replay-play")).to_have_attribute("aria-pressed", "false")
    phone.keyboard.press("Escape")
    expect(phone.locator(".replay-overlay")).to_have_count(0)

    # The TV at the game over: the final scores and the chart, then the game round by round.
    tv = players.open(*TV)
    tv.goto(f"/room/{code}/board")
    board = tv.locator(".board-replay .replay")
    expect(board.locator(".replay-where")).to_have_text("Final scores")
    expect(board.locator("svg.score-chart .chart-line")).to_have_count(3)
    shot(tv, "tv-final")
    board.get_by_role("button", name="Previous round").click()
    expect(board.locator(".replay-where")).to_contain_text("Round 3 of 3")
    expect(board.locator(".reveal-card")).to_have_count(5)
    tv.wait_for_timeout(1500)  # the cards turn over
    shot(tv, "tv-replay-round-3")
    assert not too_small(tv, ".board-replay"), "nothing under 24 px on the TV"
    board.get_by_role("button", name=re.compile("Pause")).click()
    expect(board.get_by_role("button", name=re.compile("Play"))).to_be_visible()
    tv.keyboard.press("ArrowLeft")
    expect(board.locator(".replay-where")).to_contain_text("Round 2 of 3")


def chart_labels_outside(page: Page, within: str) -> list[str]:
    """The score chart's labels under ``within`` that run past the chart's right edge (cut off)."""
    found: list[str] = page.evaluate(
        """(within) => [...document.querySelectorAll(`${within} svg.score-chart .chart-label`)]
            .filter((label) => { const box = label.getBBox();
                return box.x + box.width > label.ownerSVGElement.viewBox.baseVal.width + 0.5; })
            .map((label) => label.textContent)""",
        within,
    )
    return found


def test_seven_seats_the_chart_names_fit_the_phone_and_the_tvs_cards_fit_the_screen(players: Players) -> None:
    """Play-test of issue 17: the labels of long names ran past the chart ("Dark green… 1" for
    14); on the TV seven cards in two rows ran under the controls (their owners cut off)."""
    quick = {"first_storyteller": 0, "storyteller_cycles": 1}
    phone, code = alone_with_bots(players, "Bartholomew-Alexander", 6, options=quick)
    play_until([phone], lambda: game_over(phone), timeout=90)
    album = phone.locator(".game-over .album")
    expect(album.locator("svg.score-chart .chart-line")).to_have_count(7)
    assert not chart_labels_outside(phone, ".game-over .album"), "every name and score inside the chart"
    labels = album.locator(".chart-label").all_text_contents()
    assert all(re.search(r" \d+$", label) for label in labels), labels  # (each with its score)
    tv = players.open(*TV)
    tv.goto(f"/room/{code}/board")
    board = tv.locator(".board-replay .replay")
    expect(board.locator(".replay-where")).to_have_text("Final scores")
    assert not chart_labels_outside(tv, ".board-replay")
    board.get_by_role("button", name=re.compile("Pause")).click()
    board.get_by_role("button", name="Previous round").click()
    expect(board.locator(".reveal-card")).to_have_count(7)
    assert not chart_labels_outside(tv, ".board-replay")
    tv.wait_for_timeout(1500)  # the cards turn over
    # every card with its owner and tokens inside the cards' area (none under the controls)
    below: list[str] = tv.evaluate(
        """() => { const area = document.querySelector(".replay-cards").getBoundingClientRect();
            return [...document.querySelectorAll(".replay-cards .reveal-card")]
                .filter((card) => card.getBoundingClientRect().bottom > area.bottom + 1)
                .map((card) => card.textContent); }"""
    )
    assert not below, below
    # the storyteller's tag stays in its card's column (at 24 px it is wider than a narrow card)
    wider: list[str] = tv.evaluate(
        """() => [...document.querySelectorAll(".replay-cards .tag-inline")].filter((tag) => {
                const card = tag.closest(".reveal-card").getBoundingClientRect();
                const box = tag.getBoundingClientRect();
                return box.left < card.left - 1 || box.right > card.right + 1; }).map((tag) => tag.textContent)"""
    )
    assert not wider, wider
    shot(tv, "tv-seven-cards")


def too_small(page: Page, within: str) -> list[str]:
    """The elements under ``within`` whose own text is set under 24 px (a rabbit's initial is its icon)."""
    found: list[str] = page.evaluate(
        """(within) => [...document.querySelectorAll(`${within} *`)]
            .filter((e) => !e.closest(".rabbit") && parseFloat(getComputedStyle(e).fontSize) < 24
                && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
            .map((e) => `${e.tagName}.${e.className.baseVal ?? e.className}: ${e.textContent}`)""",
        within,
    )
    return found


def swipe(page: Page, from_x: float, to_x: float, y: float) -> None:
    """A finger from ``from_x`` to ``to_x`` (pointer events, as a touch screen sends them)."""
    page.evaluate(
        """([fromX, toX, y]) => {
            const target = document.elementFromPoint(fromX, y);
            const fire = (type, x) => target.dispatchEvent(new PointerEvent(type, {
                bubbles: true, pointerType: "touch", clientX: x, clientY: y, isPrimary: true }));
            fire("pointerdown", fromX);
            fire("pointermove", (fromX + toX) / 2);
            fire("pointerup", toX);
        }""",
        [from_x, to_x, y],
    )


def test_party_album_in_chinese_shows_the_red_token_and_the_picture_asks_in_that_language(players: Players) -> None:
    quick = {"first_storyteller": 0, "target_score": 6, "storyteller_cycles": None}
    phone, _ = alone_with_bots(players, "Mara", 5, mode="party", options=quick)
    play_until([phone], lambda: game_over(phone), timeout=90)
    album = phone.locator(".game-over .album")
    expect(album.locator(".album-where")).to_contain_text("Round 1 of")
    count = int(album.locator(".album-where").inner_text().rsplit(" ", 1)[1])
    expect(album.locator("svg.score-chart .chart-line")).to_have_count(6)
    # every round of a party game has its red token
    for index in range(count):
        expect(album.locator(".album-round .red-tag")).to_have_count(1)
        cards = album.locator(".album-round .reveal-card").count()
        expect(album.locator(".album-round .vote-count")).to_have_count(cards)
        if index < count - 1:
            phone.keyboard.press("ArrowRight")
    # 繁體中文: the album says it in the Taiwanese edition's words, and the picture is asked in it
    phone.select_option("select.language", "zh-Hant")
    expect(album.locator(".album-title")).to_have_text("第 1 局的故事")
    expect(album.locator(".album-teller")).to_contain_text("說書人")
    expect(album.locator(".album-round .red-tag")).to_have_count(1)
    with phone.expect_request(re.compile(r"/album\.png\?lang=zh-Hant$")), phone.expect_download() as download:
        album.get_by_role("button", name="下載成圖片").click()
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    download.value.save_as(SHOTS / "album-download-zh-Hant.png")
    album.scroll_into_view_if_needed()
    shot(phone, "phone-album-zh-Hant")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360[0]


def test_a_game_the_host_ended_after_one_round_has_its_album_its_link_and_one_round(players: Players) -> None:
    phone, code = alone_with_bots(players, "Mara", 2, options={"first_storyteller": 0, "storyteller_cycles": 3})
    round_now = phone.locator(".table-head .round")
    play_until([phone], lambda: round_now.inner_text() == "Round 2" and not phone.locator(".overlay").count())
    phone.get_by_role("button", name="End the game now").click()
    phone.get_by_role("button", name="End the game", exact=True).click()
    album = phone.locator(".game-over .album")
    expect(album.locator(".album-where")).to_have_text("Round 1 of 1")
    expect(album).to_contain_text("The host ended this game early")
    album.get_by_role("button", name="Share link").click()
    expect(album.locator(".share-url")).to_have_value(re.compile(rf"/album/{code}/[A-Za-z0-9_-]+$"))
    # "1 round", not "1 rounds" (play-test of issue 17)
    expect(phone.locator(".history-when")).to_contain_text("· 1 round")
    expect(phone.locator(".history-when")).not_to_contain_text("rounds")


def test_teams_album_and_tv_replay_draw_one_line_per_team(players: Players) -> None:
    quick = {"first_storyteller": 0, "target_score": 5, "storyteller_cycles": None}
    phone, code = alone_with_bots(players, "Mara", 5, mode="teams", options=quick)
    play_until([phone], lambda: game_over(phone), timeout=90)
    album = phone.locator(".game-over .album")
    expect(album.locator("svg.score-chart .chart-line")).to_have_count(3)
    expect(album.locator("svg.score-chart .chart-label").first).to_contain_text("&")
    expect(album.locator(".album-round .points li")).to_have_count(3)
    # the history names the winning team as a team ("A & B won"), not its two members as winners
    expect(phone.locator(".history-winner").first).to_contain_text("&")
    tv = players.open(*TV)
    tv.goto(f"/room/{code}/board")
    board = tv.locator(".board-replay .replay")
    expect(board.locator(".replay-where")).to_have_text("Final scores")
    expect(board.locator("svg.score-chart .chart-line")).to_have_count(3)
    expect(board.locator(".replay-scores li")).to_have_count(3)
    board.get_by_role("button", name=re.compile("Pause")).click()
    tv.keyboard.press("ArrowLeft")
    expect(board.locator(".replay-where")).to_contain_text("Round")
    expect(board.locator(".replay-scores .gain")).to_have_count(3)
    tv.wait_for_timeout(1500)
    shot(tv, "tv-teams-replay")
    assert not too_small(tv, ".board-replay"), "nothing under 24 px on the TV"


@pytest.fixture
def quick_grace(tmp_path: Path) -> Iterator[LiveServer]:
    """A server where a bot stands in for a gone player after 2 seconds."""
    with live_server(
        tmp_path / "data", bot_delay_seconds=0.05, disconnect_grace_seconds=2, max_rooms_per_address=1000
    ) as running:
        yield running


def test_a_player_back_after_two_rounds_sees_the_rounds_they_missed(players: Players, quick_grace: LiveServer) -> None:
    players.base = quick_grace.url
    seat = create_room_by_api(quick_grace.url, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 2})
    code = seat["code"]
    host = players.open()
    open_seat(host, quick_grace.url, code, seat)
    fay = players.open(*PHONE_360, mobile=True)
    join_in_ui(fay, quick_grace.url, code, "Fay")
    add_bots(host, 1)
    start_game(host, [fay])
    context = fay.context
    fay.close()  # Fay closes her tab: a bot plays for her in rounds 1, 2 and 3
    round_now = host.locator(".table-head .round")
    play_until([host], lambda: round_now.inner_text() == "Round 4" and not host.locator(".overlay").count(), timeout=60)
    back = context.new_page()
    back.set_viewport_size({"width": PHONE_360[0], "height": PHONE_360[1]})
    back.goto(f"{quick_grace.url}/room/{code}")
    story = back.locator(".story")
    expect(story).to_contain_text("While you were away, a bot played for you")
    missed = story.locator(".missed-round")
    expect(missed).to_have_count(3)
    expect(missed.nth(0).locator("h4")).to_have_text("Round 1")
    expect(missed.nth(1).locator("h4")).to_have_text("Round 2")
    # three players: two cards each but the storyteller (Mara in round 1, Fay's bot in round 2)
    for index, fays in enumerate([2, 1, 2]):
        expect(missed.nth(index).locator(".reveal-card")).to_have_count(5)
        expect(missed.nth(index).locator(".points li")).to_have_count(3)
        expect(missed.nth(index).locator(".owner-name", has_text="Fay")).to_have_count(fays)
    expect(missed.nth(0).locator(".reveal-clue")).to_have_text("Mara's clue: “A long journey”")
    expect(missed.nth(1).locator(".reveal-clue")).to_contain_text("Fay's clue")
    expect(story).to_contain_text("A bot played for Fay")
    # what the bot did, a line for each of the three rounds (five moves: none left out)
    moves = story.locator(".story-moves li")
    expect(moves).to_have_count(3)
    expect(moves.nth(0)).to_contain_text("Round 1: played, voted for card")
    expect(moves.nth(1)).to_contain_text("Round 2: ")
    expect(moves.nth(2)).to_contain_text("Round 3: played, voted for card")
    story.scroll_into_view_if_needed()
    shot(back, "phone-missed-rounds")
    assert back.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360[0]
    back.get_by_role("button", name="Back to the table").click()
    expect(story).to_have_count(0)
    expect(back.locator(".table-screen")).to_be_visible()


def test_tied_players_lines_are_drawn_apart_so_each_colour_shows(players: Players) -> None:
    page = players.open(1280, 800)
    page.goto("/")
    player: dict[str, Any] = {"name": "", "bot": None}
    rounds: list[dict[str, Any]] = [
        {"round": r, "scores": [2 * r, 2 * r, r], "votes": [[], [], []], "table": [], "owners": []} for r in (1, 2, 3)
    ]
    album = {
        "mode": "odyssey",
        "teams": None,
        "rounds": rounds,
        "players": [
            {**player, "seat": s, "name": n, "colour": c}
            for s, n, c in ((0, "Ann", "red"), (1, "Bo", "blue"), (2, "Cy", "yellow"))
        ],
    }
    lines = page.evaluate(
        """async (album) => {
            const { scoreChart } = await import("/static/screens/chart.js");
            const chart = scoreChart(album);
            const lines = [...chart.querySelectorAll(".chart-line")];
            return lines.map((g) => g.querySelectorAll("polyline")[1].getAttribute("points"));
        }""",
        album,
    )
    assert len(lines) == 3
    assert lines[0] != lines[1], "Ann and Bo tie every round: their lines must not lie on one another"
    assert len(set(lines)) == 3


def test_the_albums_chart_is_drawn_again_for_a_narrower_window_so_its_names_stay_readable(players: Players) -> None:
    page = players.open(1280, 800)
    page.goto("/")
    rounds: list[dict[str, Any]] = [
        {
            "round": r,
            "storyteller": 0,
            "clue": "Home",
            "storyteller_card": "fabula-01",
            "table": ["fabula-01", "fabula-02", "fabula-03"],
            "owners": [0, 1, 2],
            "votes": [[], [1], [2]],
            "red": None,
            "voters": [1, 2],
            "finders": [1],
            "points": [3, 3, 0],
            "scores": [3 * r, 3 * r, 0],
            "storyteller_scored": True,
            "reasons": [],
        }
        for r in (1, 2)
    ]
    players_json = [
        {"seat": s, "name": n, "colour": c, "bot": None}
        for s, n, c in ((0, "Ann", "red"), (1, "Bo", "blue"), (2, "Cy", "yellow"))
    ]
    album: dict[str, Any] = {
        **{"number": 1, "mode": "odyssey", "options": {}, "players": players_json, "teams": None, "rounds": rounds},
        **{"stand_ins": [[], []], "outcome": None, "started_at": 0, "ended_at": None, "ended_by_host": False},
    }
    page.evaluate(
        """async (album) => {
            const { createAlbumView } = await import("/static/screens/album.js");
            const view = createAlbumView();
            document.body.replaceChildren(view.element);
            view.show(album);
        }""",
        album,
    )
    chart = page.locator("svg.score-chart")
    assert int(chart.get_attribute("width") or 0) > 700
    page.set_viewport_size({"width": 360, "height": 740})
    expect(chart).to_have_attribute("width", re.compile(r"^3[0-3]\d$"))
    label = page.locator("svg.score-chart .chart-label").first
    assert label.bounding_box()["height"] >= 12, "the names are drawn at their size, not scaled down"  # type: ignore[index]
