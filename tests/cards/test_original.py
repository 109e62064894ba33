"""The original deck: 84 distinct, described, deterministic pictures."""

from __future__ import annotations

import hashlib
import io
import itertools
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from functools import cache

import imagehash
import pytest
from PIL import Image

from fabula.cards.art.compose import paint, plan_deck
from fabula.cards.original import DEFAULT_SEED, SIZE, card_svg, original_deck
from fabula.cards.render import image, png, webp
from fabula.rules import Game

SVG = "{http://www.w3.org/2000/svg}"


def test_84_cards_with_unique_ids_titles_and_descriptions() -> None:
    cards = original_deck().cards
    assert len(cards) == SIZE == 84
    for attribute in ("id", "title", "description"):
        values = [getattr(card, attribute) for card in cards]
        assert len(set(values)) == 84, f"repeated {attribute}"
    assert [card.id for card in cards] == [f"fabula-{n:02d}" for n in range(1, 85)]


def test_every_card_is_described_in_one_sentence_with_6_to_12_tags() -> None:
    for card in original_deck().cards:
        assert 3 <= len(card.title) <= 40
        assert card.description[0].isupper()
        assert card.description.endswith(".")
        assert card.description.count(". ") == 0, "one sentence"
        assert 6 <= len(card.tags) <= 12
        assert len(set(card.tags)) == len(card.tags)


def test_every_svg_parses_is_a_2_3_portrait_and_has_no_text() -> None:
    for card in original_deck().cards:
        root = ET.fromstring(card_svg(card.id))
        assert root.tag == f"{SVG}svg"
        assert root.get("viewBox") == "0 0 400 600"
        assert root.find(f".//{SVG}text") is None
        assert root.find(f".//{SVG}image") is None, "nothing borrowed: every picture is drawn"


def test_the_same_seed_gives_the_same_bytes_in_a_fresh_process() -> None:
    here = hashlib.sha256("".join(card_svg(card.id) for card in original_deck().cards).encode()).hexdigest()
    script = (
        "import hashlib; from fabula.cards.original import original_deck, card_svg; "
        "print(hashlib.sha256(''.join(card_svg(c.id) for c in original_deck().cards).encode()).hexdigest())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert there.stdout.strip() == here
    plan = plan_deck(DEFAULT_SEED, SIZE)[10]
    assert paint(plan, DEFAULT_SEED) == paint(plan, DEFAULT_SEED)


def test_another_seed_gives_another_deck() -> None:
    assert plan_deck(2, SIZE) != plan_deck(DEFAULT_SEED, SIZE)


def test_the_deck_fits_every_game() -> None:
    ids = [card.id for card in original_deck().cards]
    Game.new("odyssey", 12, deck=ids)  # the largest table needs exactly 84 cards
    Game.new("party", 12, deck=ids)


@cache
def renders() -> dict[str, Image.Image]:
    return {card.id: image(card_svg(card.id), 120) for card in original_deck().cards}


def test_no_two_cards_look_alike() -> None:
    # Perceptual hashes (64-bit pHash) of small renders. The same picture re-encoded as a small,
    # low-quality JPEG moves by a few bits; two different cards must be far further apart than
    # that: at least 10 bits, and at least twice the worst same-picture distance measured here.
    hashes = {card: imagehash.phash(picture) for card, picture in renders().items()}
    same = []
    for card, picture in renders().items():
        buffer = io.BytesIO()
        picture.resize((80, 120)).save(buffer, "JPEG", quality=40)
        same.append(imagehash.phash(Image.open(buffer)) - hashes[card])
    closest = min((hashes[a] - hashes[b], a, b) for a, b in itertools.combinations(hashes, 2))
    assert closest[0] >= max(10, 2 * max(same)), f"{closest[1]} and {closest[2]} look alike"


def test_pictures_are_not_blank_or_flat() -> None:
    for card, picture in renders().items():
        low, high = picture.convert("L").getextrema()
        assert isinstance(low, int)
        assert isinstance(high, int)
        assert high - low > 80, f"{card} has almost no contrast"
        assert len(picture.getcolors(maxcolors=100000) or []) > 300, f"{card} has too few colours"


@pytest.mark.parametrize("card_id", ["fabula-01", "fabula-84"])
def test_rasters_have_the_card_frame(card_id: str) -> None:
    picture = Image.open(io.BytesIO(png(card_svg(card_id), 300)))
    assert picture.size == (300, 450)
    still = Image.open(io.BytesIO(webp(card_svg(card_id), 200)))
    assert still.format == "WEBP"
    assert still.size == (200, 300)
