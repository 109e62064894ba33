"""Taking over a seat does not rewrite history (issue 34, bug 4), in the browser: Hal plays rounds 1–3
and leaves for good, Leo takes his seat over from the join link. Fay, back after a bot played for her,
reads "The rounds you missed" with Hal's cards in rounds 1–3 and the take-over in round 4; the album
at the game over names Hal for round 1 and says who took over from when, on a phone and a desktop."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from ..server.harness import LiveServer
from .conftest import Players
from .test_album import PHONE_360, SHOTS, quick_grace, shot
from .ui import create_room_by_api, join_in_ui, open_seat, play_until, start_game

TOOK_OVER = "Leo took over Hal's seat from round 4"
__all__ = ["quick_grace"]  # (a fixture: used by its name)


def at_round(page: Page, number: int) -> bool:
    return page.locator(".table-head .round").inner_text() == f"Round {number}" and not page.locator(".overlay").count()


def test_past_rounds_keep_the_name_of_who_played_them_after_a_take_over(
    players: Players, quick_grace: LiveServer
) -> None:
    base = players.base = quick_grace.url
    seat = create_room_by_api(base, "Mara", options={"first_storyteller": 0, "storyteller_cycles": 3})
    code = seat["code"]
    mara = players.open()
    open_seat(mara, base, code, seat)
    hal = players.open(*PHONE_360, mobile=True)
    join_in_ui(hal, base, code, "Hal")
    fay = players.open(*PHONE_360, mobile=True)
    join_in_ui(fay, base, code, "Fay")
    start_game(mara, [hal, fay])
    fay_context = fay.context
    fay.close()  # Fay closes her tab: a bot plays for her from round 1
    play_until([mara, hal], lambda: at_round(mara, 4), timeout=90)

    # Hal leaves for good; Leo takes his seat over from the join link
    hal.get_by_role("button", name="Leave this room").click()
    hal.get_by_role("button", name="Leave", exact=True).click()
    hal.wait_for_url(f"{base}/")
    leo = players.open(*PHONE_360, mobile=True)
    leo.goto(f"{base}/join/{code}")
    leo.fill("input[name=name]", "Leo")
    expect(leo.locator("fieldset.take-over")).to_contain_text("Hal")
    leo.get_by_role("button", name="Take over this seat").click()
    leo.locator(".table-screen").wait_for()
    play_until([mara, leo], lambda: at_round(mara, 5), timeout=90)

    # Fay is back: the rounds she missed name Hal for his rounds, Leo from round 4
    back = fay_context.new_page()
    back.set_viewport_size({"width": PHONE_360[0], "height": PHONE_360[1]})
    back.goto(f"{base}/room/{code}")
    missed = back.locator(".story .missed-round")
    expect(missed).to_have_count(4)
    # three players: two cards each but the storyteller's one (Mara in round 1, Hal in round 2)
    for index, hals in enumerate([2, 1, 2]):
        expect(missed.nth(index).locator(".owner-name", has_text="Hal")).to_have_count(hals)
        expect(missed.nth(index).locator(".owner-name", has_text="Leo")).to_have_count(0)
        expect(missed.nth(index).locator(".points")).to_contain_text("Hal")
        expect(missed.nth(index).locator(".points")).not_to_contain_text("Leo")
        expect(missed.nth(index).locator(".took-over")).to_have_count(0)
    expect(missed.nth(1).locator(".reveal-clue")).to_contain_text("Hal's clue")
    expect(missed.nth(3).locator(".took-over")).to_have_text(TOOK_OVER)
    expect(missed.nth(3).locator(".owner-name", has_text="Leo")).to_have_count(2)
    expect(missed.nth(3).locator(".owner-name", has_text="Hal")).to_have_count(0)
    missed.nth(3).scroll_into_view_if_needed()
    shot(back, "takeover-missed-rounds-360")
    assert back.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360[0]
    back.get_by_role("button", name="Back to the table").click()

    # The host ends the game: the album names Hal for round 1 and says who took over from when
    mara.get_by_role("button", name="End the game now").click()
    mara.get_by_role("button", name="End the game", exact=True).click()
    for page, name in ((back, "takeover-album-360"), (mara, "takeover-album-desktop")):
        album = page.locator(".game-over .album")
        expect(album.locator(".album-where")).to_have_text("Round 1 of 4")
        expect(album.locator(":scope > .took-over")).to_have_text(TOOK_OVER)
        expect(album.locator(".album-round .owner-name", has_text="Hal")).to_have_count(2)
        expect(album.locator(".album-round .owner-name", has_text="Leo")).to_have_count(0)
        expect(album.locator(".album-round .took-over")).to_have_count(0)
        album.scroll_into_view_if_needed()
        shot(page, f"{name}-round-1")
        page.keyboard.press("ArrowRight")
        expect(album.locator(".album-teller")).to_contain_text("Storyteller: Hal")
        for _ in range(2):
            page.keyboard.press("ArrowRight")
        expect(album.locator(".album-where")).to_have_text("Round 4 of 4")
        expect(album.locator(".album-round .took-over")).to_have_text(TOOK_OVER)
        expect(album.locator(".album-round .owner-name", has_text="Leo")).to_have_count(2)
        album.locator(".album-round").scroll_into_view_if_needed()
        shot(page, f"{name}-round-4")
        # the final ranking and the room's history say whose points Leo carries
        expect(page.locator(".game-over .ranking")).to_contain_text("Leo (took over from Hal in round 4)")
        expect(page.locator(".history-players")).to_contain_text("Leo (took over from Hal in round 4)")
        if page is back:
            assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360[0]

    # the replay names round 1's cards by Hal too, and its final scores say who took over
    mara.locator(".history-replay").click()
    replay = mara.locator(".replay-overlay .replay")
    replay.get_by_role("button", name="‖ Pause").click()
    expect(replay.locator(".replay-where")).to_contain_text("Round 1 of 4")
    expect(replay.locator(".owner-name", has_text="Hal")).to_have_count(2)
    expect(replay.locator(".replay-scores")).to_contain_text("Hal")
    for _ in range(4):
        mara.keyboard.press("ArrowRight")
    expect(replay.locator(".replay-where")).to_have_text("Final scores")
    expect(replay.locator(".replay-scores")).to_contain_text("Leo (took over from Hal in round 4)")
    expect(replay.locator(".took-over")).to_have_text(TOOK_OVER)
    shot(mara, "takeover-replay-final")
    mara.keyboard.press("Escape")
    expect(mara.locator(".replay-overlay")).to_have_count(0)

    # and the picture of the album, for a look
    album = mara.locator(".game-over .album")
    with mara.expect_download() as download:
        album.get_by_role("button", name="Download as a picture").click()
    download.value.save_as(SHOTS / "takeover-album.png")
