"""The group's own pictures from the browser: the host adds photos and a .zip through the file
chooser, sees a result per file and the thumbnails, captions one, deals the game from them, and
the pictures are what every player holds; a player who does not host has no upload control."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

from PIL import Image, ImageDraw
from playwright.sync_api import expect

from .conftest import Players
from .ui import add_bots, card_sources, join_in_ui, start_game


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
    expect(guest.locator("details.pictures input[type=file]")).to_have_count(0)

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
    expect(host.locator("details.pictures p.start-problem")).to_have_count(0)  # 28 ≥ 26 for three
    expect(guest.locator("details.pictures summary")).to_contain_text("28")
    add_bots(host, 1)
    start_game(host, [guest])
    for page in (host, guest):
        hand = card_sources(page, ".hand img")
        assert hand, "a hand is shown"
        assert all("/cards/u" in source for source in hand), hand
    assert players.errors == []
