"""The group's own pictures from the browser: the host adds photos and a .zip through the file
chooser, sees a result per file and the thumbnails, captions one, deals the game from them, and
the pictures are what every player holds; a player who does not host has no upload control. A
picture refused as a copy is shown beside the one it copies, and the host keeps both or skips it."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

from PIL import Image, ImageDraw
from playwright.sync_api import expect

from ..cards.test_likeness import TEMPLATE, template_drawing
from .conftest import Players
from .ui import add_bots, card_sources, create_room_in_ui, join_in_ui, start_game


def photo(seed: int, format: str = "JPEG") -> bytes:
    rng = random.Random(seed)
    image = Image.new("RGB", (300, 420), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    draw = ImageDraw.Draw(image)
    for _ in range(10):
        x, y = rng.randrange(300), rng.randrange(420)
        box = (x, y, x + rng.randrange(30, 150), y + rng.randrange(30, 150))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=(rng.randrange(256), 90, 200))
    buffer = io.BytesIO()
    image.save(buffer, format)
    return buffer.getvalue()


def test_a_host_deals_a_game_from_the_group_s_own_pictures(players: Players, tmp_path: Path) -> None:
    files = []
    for n in range(20):
        path = tmp_path / f"photo{n:02d}.jpg"
        path.write_bytes(photo(n))
        files.append(str(path))
    archive = tmp_path / "drawings.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        for n in range(20, 28):
            packed.writestr(f"drawings/d{n}.png", photo(n, "PNG"))
        packed.writestr("drawings/list.txt", "not a picture")
    files.append(str(archive))

    host = players.open(360, 740, mobile=True)
    host.goto("/")
    host.fill("input[name=name]", "Ana")
    host.get_by_role("button", name="Create the room").click()
    host.locator(".lobby").wait_for()
    code = host.url.rsplit("/", 1)[1]
    guest = players.open(1280, 800)
    join_in_ui(guest, players.base, code, "Ben")
    friend = players.open(390, 800, mobile=True)
    join_in_ui(friend, players.base, code, "Chloé")
    for other in (guest, friend):
        expect(other.locator("details.pictures input[type=file]")).to_have_count(0)

    panel = host.locator("details.pictures")
    upload = panel.locator("input[type=file]")
    expect(upload).to_have_attribute("accept", "image/*,.zip,application/zip")
    upload.set_input_files(files)
    results = panel.locator("ul.upload-results li")
    expect(results).to_have_count(29, timeout=60_000)
    expect(panel.locator("ul.upload-results li.skipped")).to_have_count(1)
    expect(panel.locator("ul.upload-results li.skipped")).to_contain_text("list.txt")
    expect(panel.locator("li.picture img")).to_have_count(28)
    expect(panel.locator("p.blind")).to_be_visible()

    caption = panel.locator("li.picture input.caption").first
    caption.fill("A purple kite over the dunes")
    caption.press("Enter")
    expect(panel.locator("p.blind")).to_have_count(0)

    panel.locator("fieldset.deck-choice input[value=ours]").check()
    expect(guest.locator("details.pictures summary")).to_contain_text("28")
    add_bots(host, 1)
    expect(host.locator("details.pictures p.start-problem")).to_have_count(0)  # 28 = what four need
    start_game(host, [guest, friend])
    for page in (host, guest, friend):
        hand = card_sources(page, ".hand img")
        assert hand, "a hand is shown"
        assert all("/cards/u" in source for source in hand), hand
        assert all(page.request.get(source).status == 200 for source in hand), "every picture of the hand is served"
    assert players.errors == []


def test_a_deck_link_fills_a_friend_s_room_and_the_deck_downloads(players: Players, tmp_path: Path) -> None:
    host = players.open(1280, 800)
    host.goto("/")
    host.fill("input[name=name]", "Ana")
    host.get_by_role("button", name="Create the room").click()
    host.locator(".lobby").wait_for()
    panel = host.locator("details.pictures")
    paths = []
    for n in range(5):
        path = tmp_path / f"p{n}.jpg"
        path.write_bytes(photo(100 + n))
        paths.append(str(path))
    panel.locator("input[type=file]").set_input_files(paths)
    expect(panel.locator("li.picture img")).to_have_count(5, timeout=30_000)
    panel.locator("li.picture input.caption").first.fill("A lighthouse at dusk")
    panel.locator("li.picture input.caption").first.press("Enter")

    with host.expect_download() as downloading:
        panel.get_by_role("button", name="Download the deck (.zip)").click()
    saved = tmp_path / "deck.zip"
    downloading.value.save_as(saved)
    with zipfile.ZipFile(saved) as archive:
        names = sorted(archive.namelist())
        captions = archive.read("captions.csv").decode()
    assert names == ["001.webp", "002.webp", "003.webp", "004.webp", "005.webp", "captions.csv"]
    assert "A lighthouse at dusk" in captions

    panel.get_by_role("button", name="Make a deck link").click()
    link = panel.locator("p.deck-link .link-text").inner_text()
    assert "#deck-link=" in link

    friend = players.open(360, 740, mobile=True)
    friend.goto(link)
    expect(friend.locator("p.deck-link-pending")).to_be_visible()
    assert "#deck-link" not in friend.url, "the secret leaves the address bar"
    friend.fill("input[name=name]", "Ben")
    friend.get_by_role("button", name="Create the room").click()
    friend.locator(".lobby").wait_for()
    theirs = friend.locator("details.pictures")
    theirs.get_by_role("button", name="Add its pictures here").click()
    expect(theirs.locator("li.picture img")).to_have_count(5, timeout=30_000)
    expect(theirs.locator("li.picture input.caption").first).to_have_value("A lighthouse at dusk")
    expect(theirs.locator("p.deck-link-pending")).to_have_count(0)
    assert players.errors == []


def test_a_copy_is_shown_beside_the_picture_it_copies_and_the_host_keeps_both_or_skips_it(
    players: Players, tmp_path: Path
) -> None:
    host = players.open(360, 740, mobile=True)
    create_room_in_ui(host, players.base, "Ana")
    panel = host.locator("details.pictures")
    red, purple = template_drawing(*TEMPLATE[0]), template_drawing(*TEMPLATE[4])
    files = {
        "red.png": (red, "PNG", {}),
        "purple.png": (purple, "PNG", {}),
        "red.jpg": (red, "JPEG", {"quality": 60}),
        "purple-small.jpg": (purple.resize((300, 450)), "JPEG", {"quality": 80}),
    }
    for name, (image, format, options) in files.items():
        image.save(tmp_path / name, format, **options)
    upload = panel.locator("input[type=file]")
    upload.set_input_files([str(tmp_path / "red.png"), str(tmp_path / "purple.png")])
    expect(panel.locator("li.picture img")).to_have_count(2, timeout=30_000)

    upload.set_input_files([str(tmp_path / "red.jpg"), str(tmp_path / "purple-small.jpg")])
    pair = panel.locator("section.duplicate-pair")
    expect(pair).to_contain_text("“red.jpg” looks like the same picture as “red.png”", timeout=30_000)
    expect(pair.locator("figcaption")).to_have_text(["New: red.jpg", "Already taken: red.png"])
    expect(pair.locator(".pairs-left")).to_have_text("1 more to look at")
    expect(pair.locator("img")).to_have_attribute(
        "src", panel.locator("li.picture img").first.get_attribute("src") or ""
    )
    # the new picture, drawn from the file itself: the red circle's middle is red
    host.wait_for_function(
        """() => {
          const canvas = document.querySelector("section.duplicate-pair canvas");
          const [r, g] = canvas.getContext("2d").getImageData(120, 152, 1, 1).data;
          return r > 150 && g < 100;
        }"""
    )
    pair.evaluate("(section) => { section.keptInPlace = true; }")
    pair.get_by_role("button", name="Keep both").click()
    expect(panel.locator("li.picture img")).to_have_count(3)
    expect(pair).to_contain_text("“purple-small.jpg” looks like the same picture as “purple.png”")
    assert pair.evaluate("(section) => section.keptInPlace"), "the next pair, in the same box: changed in place"
    expect(pair.locator(".pairs-left")).to_have_count(0)
    pair.get_by_role("button", name="Skip").click()
    expect(pair).to_have_count(0)
    expect(panel.locator("li.picture img")).to_have_count(3)
    expect(panel.locator("ul.upload-results li")).to_have_text(
        ["red.jpg: added", "purple-small.jpg: skipped — the same picture as one already taken"]
    )
    assert players.errors == []
