"""An album's picture, for random games of every mode: a PNG 1080 pixels wide whose layout holds
every round drawn — in the whole album a compact row (its clue, storyteller, the storyteller's card,
who found it and everyone's points), in a round's own picture every card with its owner and votes —
whose pictures are looked up only for the cards it draws (`cards_needed`, all laid on a drawn
round's table), in Chinese too, without the fonts it prefers, and for the longest games."""

from __future__ import annotations

import dataclasses
import io
import random
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageDraw, ImageFont

import fabula.web
from fabula.bots.random_player import random_action
from fabula.cards.files import CardFiles
from fabula.cards.library import DeckLibrary
from fabula.cards.original import original_deck
from fabula.protocol.settings import RoomSettings
from fabula.rules import MODES, Phase, numbered_deck
from fabula.rules.results import RoundResult
from fabula.server.entries import Acted, Created, Joined, Started
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS
from fabula.story import Album, picture
from fabula.story import fonts as fonts_module
from fabula.story.fonts import font
from fabula.story.picture import (
    CLUE_LINES,
    MARGIN,
    MAX_HEIGHT,
    ROW_CLUE,
    THUMB_W,
    WIDTH,
    Layout,
    Text,
    TooTall,
    cards_needed,
    layout,
    render_album,
    shown_names,
)
from fabula.story.rabbits import RABBITS
from fabula.story.words import Words

from ..rules.play import examples, option_sets
from .test_album import played_room

DECK = numbered_deck(84)


@cache
def plain_pictures() -> dict[str, bytes]:
    """A small PNG of its own colour for every card of the deck (hands and deck included: the
    renderer could ask for any, and must not)."""
    found: dict[str, bytes] = {}
    for n, card in enumerate(DECK):
        out = io.BytesIO()
        Image.new("RGB", (40, 60), (n * 3 % 256, n * 7 % 256, n * 11 % 256)).save(out, "PNG")
        found[card] = out.getvalue()
    return found


class Watched(Mapping[str, bytes]):
    """The pictures, remembering every card asked for."""

    def __init__(self, pictures: Mapping[str, bytes]) -> None:
        self.pictures, self.asked = pictures, list[str]()

    def __getitem__(self, card: str) -> bytes:
        self.asked.append(card)
        return self.pictures[card]

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("the renderer must ask for cards by id, not list them all")

    def __len__(self) -> int:
        raise AssertionError("the renderer must ask for cards by id")


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    image.load()  # decodes every row: a truncated file fails here
    return image


def sides(album: Album) -> list[list[int]]:
    return [list(pair) for pair in album.teams] if album.teams else [[p.seat] for p in album.players]


def shown_name(album: Album, seat: int, language: str = "en") -> str:
    """A seat's name as the picture (and the page) shows it: a bot's is its colour's, translated."""
    player = album.players[seat]
    if player.bot is None:
        return player.name
    say = Words(language)
    name = say("lobby.bot_name", colour=say(f"colour.{player.colour}"))
    return name[:1].upper() + name[1:]


def bare(text: str) -> str:
    return re.sub(r"\s+", "", text)


def check_layout(album: Album, page: Layout, language: str, round_number: int | None = None) -> None:
    """Every drawn round is in ``page``: its title, storyteller and clue; in a round's picture its
    cards in slot order, each with its owner and votes, and each side's points and total; in the
    whole album the storyteller's card, its finders and each side's points. Nothing left-aligned
    runs past the right margin."""
    say = Words(language)
    drawn = [r for r in album.rounds if round_number is None or r.round == round_number]
    if round_number is None:
        assert page.cards() == [result.storyteller_card for result in drawn]
    else:
        assert page.cards() == [card for result in drawn for card in result.table]
    for result in drawn:
        number = result.round
        assert page.texts("round", number) == [say("reveal.title_round", round=number)]
        teller = shown_name(album, result.storyteller, language)
        assert bare(teller) in bare("".join(page.texts("storyteller", number)))
        clue, lines = bare(say("png.clue", clue=result.clue)), page.texts("clue", number)
        if round_number is None and len(lines) == CLUE_LINES and lines[-1].endswith("…"):
            assert clue.startswith(bare("".join(lines))[:-1])  # a very long clue: its first lines
        else:
            assert bare("".join(lines)) == clue
        if round_number is None:
            check_row(album, page, result, say)
            continue
        expected = [
            say("png.points", points=f"+{result.points[side[0]]}", total=result.scores[side[0]])
            for side in sides(album)
        ]
        assert page.texts("points", number) == expected
        assert page.texts("slot", number) == [str(slot) for slot in range(1, len(result.table) + 1)]
        tokens = sum(len(slots) for slots in result.votes)
        assert len(page.texts("mark", number)) == tokens + sum(len(side) for side in sides(album))
        assert len(page.texts("red", number)) == (result.red is not None)
    for item in page.items:
        if isinstance(item, Text) and item.anchor[0] == "l":
            right = item.x + fonts_module.width_of(item.text, font(language, item.size, bold=item.bold))
            assert right <= WIDTH - MARGIN + 1, item
    assert page.height > 0


def check_row(album: Album, page: Layout, result: RoundResult, say: Words) -> None:
    """A round's compact row: who found the storyteller's card, each side's "+N", the red token."""
    number = result.round
    assert page.texts("points", number) == [f"+{result.points[side[0]]}" for side in sides(album)]
    found = list(dict.fromkeys(result.finders))
    # the storyteller's token, the finders', and each side's in its chip
    assert len(page.texts("mark", number)) == 1 + len(found) + sum(len(side) for side in sides(album))
    labels = {"png.found", "png.found_nobody", "png.found_everyone", "png.chosen", "png.chosen_nobody"}
    assert page.texts("found", number)[0] in {say(label) for label in labels}
    if not found:
        assert page.texts("found", number)[0] in {say("png.found_nobody"), say("png.chosen_nobody")}
    red = page.texts("red", number)
    assert len(red) == (result.red is not None)
    if result.red is not None:
        owner = shown_names(album, say)[result.owners[result.red - 1]]
        said = say("png.red_on", name=owner)
        assert red[0] == said or (red[0].endswith("…") and said.startswith(red[0][:-1]))  # (a long name: cut)


@pytest.mark.parametrize("mode", MODES)
@examples(3)
@given(st.data())
def test_every_mode_renders_every_round_and_asks_only_for_table_cards(mode: str, data: st.DataObject) -> None:
    seats = data.draw(st.sampled_from(MODES[mode].seat_counts))
    options = data.draw(option_sets(mode, seats))
    options.pop("first_storyteller", None)
    if "target_score" in options:  # (a few rounds are enough)
        options["target_score"] = min(options["target_score"], 10)
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    room, _ = played_room(mode, seats, options, data.draw(st.integers(0, 2**40)), rng, games=1)
    album = room.albums[0]
    language = data.draw(st.sampled_from(["en", "zh-Hant", "zh-Hans"]))
    told = [result.storyteller_card for result in album.rounds]

    assert cards_needed(album) == list(dict.fromkeys(told))
    assert all(result.storyteller_card in result.table for result in album.rounds)  # a table's card
    pictures = Watched(plain_pictures())
    whole = decoded(render_album(album, pictures, language=language))
    assert whole.width == WIDTH
    assert sorted(pictures.asked) == sorted(told)  # the storyteller's card of each row, no other
    assert list(dict.fromkeys(pictures.asked)) == cards_needed(album)
    check_layout(album, layout(album, language=language), language)

    if album.rounds:
        result = data.draw(st.sampled_from(album.rounds))
        assert cards_needed(album, result.round) == list(result.table)
        pictures = Watched(plain_pictures())
        one = decoded(render_album(album, pictures, language=language, round_number=result.round))
        assert one.width == WIDTH
        assert pictures.asked == list(result.table) == cards_needed(album, result.round)
        check_layout(album, layout(album, language=language, round_number=result.round), language, result.round)


def album_of(mode: str, seats: int, seed: int, **options: int) -> Album:
    for attempt in range(20):  # (a game the host ended before any reveal has no round to draw)
        room, _ = played_room(mode, seats, dict(options), seed, random.Random(seed + attempt), games=1)
        if room.albums[0].rounds:
            return room.albums[0]
    raise AssertionError("no game with a round")


def test_real_card_pictures_are_drawn(tmp_path: Path) -> None:
    album = album_of("odyssey", 4, 11, target_score=6)
    files = CardFiles(DeckLibrary(tmp_path, builtin=[original_deck()]))
    # the room dealt the numbered deck: c07 stands for the original deck's seventh card
    pictures = {card: files.get(f"fabula-{card[1:]}", "webp", 200).data for card in cards_needed(album, 1)}
    page = layout(album, round_number=1)
    image = picture.draw(page, pictures)
    first = next(item for item in page.items if isinstance(item, picture.Card))
    blank = picture.draw(page, {})
    # the middle of the card (away from its badges): a real picture, not the blank card's one grey
    box = (first.x + 50, first.y + 60, first.x + first.width - 50, first.y + first.height - 60)
    assert len(blank.crop(box).getcolors() or []) == 1
    assert len(image.crop(box).getcolors(maxcolors=1 << 16) or []) > 20


def test_an_unreadable_or_missing_picture_is_a_blank_card() -> None:
    album = album_of("odyssey", 3, 5, target_score=4)
    pictures = dict.fromkeys(cards_needed(album), b"not a picture")
    assert decoded(render_album(album, pictures)).width == WIDTH
    assert decoded(render_album(album, {})).width == WIDTH


def test_a_round_the_album_does_not_have_is_refused() -> None:
    album = album_of("odyssey", 3, 5, target_score=4)
    with pytest.raises(ValueError, match="no round"):
        cards_needed(album, len(album.rounds) + 1)
    with pytest.raises(ValueError, match="no round"):
        render_album(album, {}, round_number=0)


def chinese(album: Album) -> Album:
    """``album`` with Chinese names and a long Chinese clue in its first round."""
    names = ["小美", "小明", "阿華", "大雄", "靜香", "胖虎", "小夫", "老王", "阿強", "小玉", "阿德", "小龍"]
    players = [msgspec.structs.replace(p, name=names[p.seat]) for p in album.players]
    clue = "月亮下面的兔子在跳舞，" * 18 + "到天亮"
    rounds = [dataclasses.replace(album.rounds[0], clue=clue[:200]), *album.rounds[1:]]
    return msgspec.structs.replace(album, players=players, rounds=rounds)


@pytest.mark.parametrize(("language", "title"), [("zh-Hant", "第 1 輪"), ("zh-Hans", "第 1 轮")])
def test_chinese_renders(language: str, title: str) -> None:
    album = chinese(album_of("party", 6, 3, storyteller_cycles=1))
    page = layout(album, language=language)
    check_layout(album, page, language)
    assert page.texts("round", 1) == [title]
    lines = page.texts("clue", 1)
    assert len(lines) == CLUE_LINES
    assert lines[-1].endswith("…")
    column = WIDTH - MARGIN - (MARGIN + THUMB_W + 28)
    assert all(font(language, ROW_CLUE, bold=True).getlength(line) <= column for line in lines)
    assert decoded(render_album(album, plain_pictures(), language=language)).width == WIDTH
    one = layout(album, language=language, round_number=1)  # the round's own picture: all of it
    check_layout(album, one, language, 1)
    assert len(one.texts("clue", 1)) > CLUE_LINES


@pytest.mark.skipif(not (fonts_module.NOTO / "NotoSansCJK-Regular.ttc").exists(), reason="no CJK font here")
@pytest.mark.parametrize(("language", "face"), [("zh-Hant", "TC"), ("zh-Hans", "SC"), ("en", "SC")])
def test_chinese_has_real_glyphs(language: str, face: str) -> None:
    found = font(language, 28)
    assert isinstance(found, ImageFont.FreeTypeFont)
    assert found.getname()[0] == f"Noto Sans CJK {face}"
    # a font without these characters draws the same empty box for both
    assert glyph(found, "說") != glyph(found, "兔")


def glyph(face: fonts_module.Font, text: str) -> bytes:
    image = Image.new("L", (40, 40))
    ImageDraw.Draw(image).text((2, 2), text, fill=255, font=face)
    return image.tobytes()


def test_missing_fonts_fall_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    album = album_of("odyssey", 4, 9, target_score=5)
    dejavu = fonts_module.DEJAVU / "DejaVuSans.ttf"
    nowhere = tmp_path / "none.ttc"
    if dejavu.exists():
        monkeypatch.setattr(fonts_module, "CANDIDATES", [(nowhere, nowhere, None), (dejavu, nowhere, 0)])
        found = font("zh-Hant", 30, bold=True)  # the bold file is missing: the regular one
        assert isinstance(found, ImageFont.FreeTypeFont)
        assert found.getname()[0] == "DejaVu Sans"
        assert decoded(render_album(album, plain_pictures(), language="zh-Hant")).width == WIDTH
    monkeypatch.setattr(fonts_module, "CANDIDATES", [(nowhere, nowhere, None)])
    assert font("en", 30).getbbox("M") != font("en", 60).getbbox("M")  # Pillow's own, still scalable
    assert decoded(render_album(album, plain_pictures())).width == WIDTH


def test_too_tall_an_album_is_refused_and_drawn_by_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    album = album_of("odyssey", 5, 2, target_score=12)
    height = layout(album).height
    monkeypatch.setattr(picture, "MAX_HEIGHT", height // 2)
    with pytest.raises(TooTall):
        render_album(album, plain_pictures())
    assert decoded(render_album(album, plain_pictures(), round_number=1)).width == WIDTH


def test_teams_show_each_team_once() -> None:
    album = album_of("teams", 8, 4, storyteller_cycles=1)
    assert album.teams is not None
    page = layout(album)
    ranked = page.texts("ranked")
    assert len(ranked) == 4
    for pair in album.teams:
        assert " & ".join(shown_name(album, seat) for seat in pair) in ranked
    assert len(page.texts("points", 1)) == 4


def test_a_bot_is_named_and_marked_as_the_page_shows_it_in_the_pictures_language() -> None:
    """Not by its server name ("Bot Dark Green") in every language: by its colour, translated, and
    marked by the colour's first character, as rabbits.js marks it (play-test of issue 17)."""
    album = album_of("odyssey", 4, 3, storyteller_cycles=1)
    raw = msgspec.to_builtins(album)
    # seat 0 a person called Dee, seat 1 the dark green bot (its English mark: DG, Dee has D)
    bot = {"name": "Bot Dark Green", "colour": "dark green", "bot": "easy"}
    raw["players"] = [{**player, **(bot if player["seat"] == 1 else {"bot": None})} for player in raw["players"]]
    raw["players"][0]["name"] = "Dee"
    with_bot = msgspec.convert(raw, Album)
    for language, name, mark in [
        ("en", "Dark green bot", "DG"),
        ("zh-Hant", "深綠色機器人", "深"),
        ("zh-Hans", "深绿色机器人", "深"),
    ]:
        page = layout(with_bot, language=language)
        ranked = page.texts("ranked")
        assert name in ranked, ranked
        assert not any("Bot Dark Green" in text for text in ranked)
        assert mark in page.texts("mark"), (language, set(page.texts("mark")))


def test_the_rabbits_are_the_clients() -> None:
    source = (Path(fabula.web.__file__).parent / "static" / "rabbits.js").read_text(encoding="utf-8")
    table = re.search(r"RABBITS = \{(.*?)\};", source, flags=re.DOTALL)
    assert table
    client = {
        (quoted or plain): value
        for quoted, plain, value in re.findall(r'(?:"([^"]+)"|(\w+)):\s*"(#[0-9A-Fa-f]{6})"', table[1])
    }
    assert client == RABBITS
    assert list(RABBITS) == list(COLOURS)


def full_album(mode: str, seats: int, seed: int, **options: object) -> Album:
    """A game of random moves played to its end (no host ending it early)."""
    rng = random.Random(seed)
    room = Room("LONG")
    room.apply(Created(at=0.0, settings=RoomSettings(mode=mode, options=dict(options))))
    for member in range(seats):
        room.apply(
            Joined(at=1.0, member=member, name=f"P{member}", colour=COLOURS[member], token_hash=f"h{member}", bot=None)
        )
    room.apply(Started(at=2.0, seed=seed, seating=room.default_seating(), deck=list(DECK)))
    game = room.game
    assert game is not None
    at = 2.0
    while game.phase is not Phase.OVER:
        at += 1.0
        seat = rng.choice(game.awaiting)
        move = random_action(game, seat, rng)
        room.apply(Acted(at=at, member=room.seating[seat], action=move.to_json(), auto=False, because=None))
    return room.albums[-1]


@pytest.mark.parametrize(("mode", "seats", "cycles"), [("party", 12, 2), ("teams", 12, 3), ("party", 12, 4)])
def test_long_party_and_team_games_render_whole(mode: str, seats: int, cycles: int) -> None:
    album = full_album(mode, seats, 7, storyteller_cycles=cycles)
    assert len(album.rounds) == seats * cycles
    assert album.finished
    page = layout(album)
    check_layout(album, page, "en")
    assert page.height <= MAX_HEIGHT
    # a row of 12 seats (two lines of chips) stays about 270 pixels
    assert page.height < 1700 + 280 * len(album.rounds)
    pictures = Watched(plain_pictures())
    image = decoded(render_album(album, pictures))
    assert image.size == (WIDTH, page.height)
    assert list(dict.fromkeys(pictures.asked)) == cards_needed(album)


def test_a_long_odyssey_at_three_renders_whole() -> None:
    album = full_album("odyssey", 3, 3, target_score=100)  # (30 is the default; a long game all the same)
    assert len(album.rounds) >= 40
    page = layout(album, language="zh-Hans")
    check_layout(album, page, "zh-Hans")
    assert decoded(render_album(album, plain_pictures(), language="zh-Hans")).height == page.height <= MAX_HEIGHT


def test_sixty_rounds_of_twelve_with_the_longest_clues_fit() -> None:
    """The worst row there is (12 seats, a 200-character clue, the red token), 60 times."""
    album = full_album("party", 12, 5, storyteller_cycles=1)
    clue = "月亮下面的兔子在跳舞，" * 18 + "到天亮"
    rounds = [dataclasses.replace(album.rounds[k % len(album.rounds)], round=k + 1, clue=clue[:200]) for k in range(60)]
    names = ["Alexandrina Konstantinopoulou"] * 12
    players = [msgspec.structs.replace(p, name=names[p.seat]) for p in album.players]
    album = msgspec.structs.replace(album, rounds=rounds, players=players)
    for language in ("en", "zh-Hant"):
        page = layout(album, language=language)
        check_layout(album, page, language)
        assert page.height <= MAX_HEIGHT
    assert decoded(render_album(album, plain_pictures(), language="zh-Hant")).width == WIDTH
