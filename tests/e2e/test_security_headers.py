"""Every screen works under the server's Content-Security-Policy: a game with the group's own
pictures, from the upload to the album, its picture and the TV, breaks none of it. (`Players`
fails any browser test whose pages break the policy; this one walks every screen on purpose, and
first shows that a breach is caught.)"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from fabula.server.headers import CONTENT_SECURITY_POLICY

from .conftest import Players
from .test_album import game_over
from .test_pictures_play import photos, send_pictures
from .ui import add_bots, create_room_by_api, open_seat, play_until, start_game


def test_a_script_the_policy_forbids_is_refused_and_reported(players: Players) -> None:
    page = players.open()
    response = page.goto("/")
    assert response is not None
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["referrer-policy"] == "no-referrer"
    # an inline script (what an injected one would be) does not run, and the breach is heard
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.injected = true";
            document.head.append(script);
        }"""
    )
    page.wait_for_timeout(200)
    assert page.evaluate("() => window.injected") is None
    assert any("script-src" in violation for violation in players.csp_violations), players.csp_violations
    players.csp_violations.clear()  # (the breach was this test's own)


def test_a_whole_game_with_the_group_s_pictures_breaks_no_rule_of_the_policy(players: Players, tmp_path: Path) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 1})
    code = seat["code"]
    host = players.open(360, 740, mobile=True)
    open_seat(host, players.base, code, seat)
    tv = players.open(1920, 1080)
    tv.goto(f"/room/{code}/board")
    expect(tv.locator("img.board-qr")).to_be_visible()
    send_pictures(host, photos(tmp_path, 26))
    host.locator("fieldset.deck-choice input[value=ours]").check()
    add_bots(host, 2)
    start_game(host)
    expect(host.locator(".hand img").first).to_be_visible()
    play_until([host], lambda: game_over(host), timeout=90)
    album = host.locator(".game-over .album")
    expect(album.locator(".album-round .reveal-card").first).to_be_visible()
    with host.expect_download() as download:
        album.get_by_role("button", name="Download as a picture").click()
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    album.get_by_role("button", name="Share link").click()
    shared = players.open(360, 740, mobile=True)
    shared.goto(album.locator(".share-url").input_value())
    expect(shared.locator(".shared-album .album .reveal-card").first).to_be_visible()
    expect(tv.locator(".board-replay .replay")).to_be_visible(timeout=30_000)
    assert players.csp_violations == []
