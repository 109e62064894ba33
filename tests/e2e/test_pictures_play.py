"""What tripped a group playing with its own pictures (a play-test of the lobby's picture panel):
the pictures are dealt but do not show, a Chinese table reads the server's English, Start is
offered while the panel says more pictures are needed, and a spectator is told a wrong count."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from .conftest import Players
from .test_pictures import photo
from .ui import add_bots, card_sources, join_in_ui

#: A sentence of English (a word of four letters or more) where the page should read Chinese.
ENGLISH = re.compile(r"[A-Za-z]{4,}")


def photos(tmp_path: Path, count: int, first: int = 0) -> list[str]:
    files = []
    for n in range(first, first + count):
        path = tmp_path / f"photo{n:02d}.jpg"
        path.write_bytes(photo(n))
        files.append(str(path))
    return files


def host_room(players: Players, *, language: str | None = None) -> tuple[Page, str]:
    """A host on a 360 × 740 phone in a new room (in ``language``, chosen from the header's menu)."""
    host = players.open(360, 740, mobile=True)
    host.goto("/")
    host.fill("input[name=name]", "Ana")
    host.get_by_role("button", name="Create the room").click()
    host.locator(".lobby").wait_for()
    if language:
        host.select_option("select.language", language)
        expect(host.locator("html")).to_have_attribute("lang", language)
    return host, host.url.rsplit("/", 1)[1]


def send_pictures(host: Page, files: list[str]) -> None:
    panel = host.locator("details.pictures")
    panel.locator("input[type=file]").set_input_files(files)
    expect(panel.locator("ul.upload-results li")).to_have_count(len(files), timeout=60_000)


def test_the_group_s_pictures_show_in_the_hands_once_dealt(players: Players, tmp_path: Path) -> None:
    """Found: the hands (and the table, the reveal, the TV) show empty "A card" boxes — the client
    asks for /cards/<id>.svg, and a room's own picture is only served as .webp (404)."""
    host, code = host_room(players)
    guest = players.open(1280, 800)
    join_in_ui(guest, players.base, code, "Ben")
    send_pictures(host, photos(tmp_path, 26))
    host.locator("fieldset.deck-choice input[value=ours]").check()
    add_bots(host, 1)
    expect(host.locator("details.pictures p.start-problem")).to_have_count(0)
    host.get_by_role("button", name="Start the game").click()
    for page in (host, guest):
        page.locator(".table-screen").wait_for()
        hand = page.locator(".hand img")
        expect(hand.first).to_be_visible()
        sources = card_sources(page, ".hand img")
        assert sources, "a hand is shown"
        assert all("/cards/u" in source for source in sources), sources  # the group's pictures were dealt
        broken = [source for source in sources if page.request.get(source).status != 200]
        assert broken == [], f"pictures in the hand that do not load: {broken}"


def test_a_chinese_host_reads_why_a_file_was_skipped_in_chinese(players: Players, tmp_path: Path) -> None:
    """Found: in 繁體中文 the result line reads "logo.svg：略過——unsupported image format (SVG; PNG,
    JPEG, WebP and GIF are read)" — the server's English reason inside a Chinese sentence."""
    host, _ = host_room(players, language="zh-Hant")
    svg = tmp_path / "logo.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'
    )
    text = tmp_path / "notes.txt"
    text.write_text("just some notes")
    send_pictures(host, [str(svg), str(text), *photos(tmp_path, 1)])
    skipped = host.locator("details.pictures ul.upload-results li.skipped")
    expect(skipped).to_have_count(2)
    for line in skipped.all_inner_texts():
        reason = line.split("——", 1)[-1]
        assert not ENGLISH.search(reason), f"an English reason in the Chinese page: {line!r}"


def test_start_waits_while_the_panel_says_more_pictures_are_needed(players: Players, tmp_path: Path) -> None:
    """Found: with "Our pictures" and 5 of the 26 cards three players need, the panel says "21 more
    pictures needed", yet "Start the game" is the live primary button (as it is not while seats
    are missing); tapping it gives the rules' English "This game needs 26 cards (3 hands of 7 and
    a table of 5); the deck has 5: 21 missing." even in a Chinese page (deck_too_small has no
    translation)."""
    host, code = host_room(players)
    join_in_ui(players.open(1280, 800), players.base, code, "Ben")
    send_pictures(host, photos(tmp_path, 5))
    host.locator("fieldset.deck-choice input[value=ours]").check()
    add_bots(host, 1)
    expect(host.locator("details.pictures p.start-problem")).to_contain_text("21 more pictures needed")
    expect(host.get_by_role("button", name="Start the game")).to_be_disabled()


def test_a_refused_start_for_too_few_pictures_is_said_in_chinese(players: Players, tmp_path: Path) -> None:
    """Found: in 简体中文 the refusal is the rules' English sentence (no error.deck_too_small)."""
    host, code = host_room(players, language="zh-Hans")
    join_in_ui(players.open(1280, 800), players.base, code, "Ben")
    send_pictures(host, photos(tmp_path, 5))
    host.locator("fieldset.deck-choice input[value=ours]").check()
    expect(host.locator("details.pictures p.start-problem")).to_be_visible()
    host.locator(".lobby button", has_text="添加机器人").click()
    expect(host.locator(".seat")).to_have_count(3)
    start = host.locator(".lobby button.primary", has_text="开始游戏")
    if start.is_enabled():  # (the test above wants it disabled; if it is not, what does a tap say?)
        start.click()
        error = host.locator(".lobby p.error")
        expect(error).to_be_visible()
        assert not ENGLISH.search(error.inner_text()), f"English in the Chinese lobby: {error.inner_text()!r}"


def test_a_spectator_is_told_no_wrong_count(players: Players, tmp_path: Path) -> None:
    """Found: a spectator (…/room/CODE?watch=1, no seat token, so the panel cannot list the
    pictures) saw "Our own pictures (0)" and "26 more pictures needed for 3 players" while the
    room's deck held 9 and the players saw "17 more"."""
    host, code = host_room(players)
    join_in_ui(players.open(1280, 800), players.base, code, "Ben")
    send_pictures(host, photos(tmp_path, 9))
    host.locator("fieldset.deck-choice input[value=ours]").check()
    add_bots(host, 1)
    expect(host.locator("details.pictures p.start-problem")).to_contain_text("17 more")
    watcher = players.open(1280, 800)
    watcher.goto(f"/room/{code}?watch=1")
    panel = watcher.locator("details.pictures")
    expect(panel.locator("fieldset.deck-choice input[value=ours]")).to_be_checked()
    watcher.wait_for_timeout(1_000)  # (time for a listing, were there one)
    # Decided: a spectator may not list the room's pictures (no seat token), so the panel names no
    # count and no shortfall at all, rather than a wrong one.
    expect(panel.locator("summary")).not_to_contain_text("(0)")
    expect(panel.locator("p.start-problem")).to_have_count(0)
