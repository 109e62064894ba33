"""The original deck's descriptions in each language of the client (issue 34: the pictures' alt
text was English on a 繁體中文 or 简体中文 page): composed, like the English ones, from the words of
each part of the picture — its subject, the thing beside it, its setting and its mood — by the
sentence of its twist."""

from __future__ import annotations

import re

import pytest

from fabula.cards.art.canvas import Canvas, Rng
from fabula.cards.art.palettes import MOODS, palette
from fabula.cards.art.settings import SETTINGS
from fabula.cards.art.subjects import SUBJECTS
from fabula.cards.art.twists import TWISTS
from fabula.cards.art.words import ENGLISH_CHOICES, LANGUAGES, SENTENCES, WORDS
from fabula.cards.model import Card
from fabula.cards.original import original_deck

HAN = re.compile(r"[\u4e00-\u9fff]")
#: Characters the two scripts write differently (those the descriptions use), traditional first.
TRADITIONAL = (
    "個隻頭條顆間門鑰時鐘燈書鯨魚鶴傘蠟燭輛風箏貓鷹蝸殼頂車鋼樹紅舊熱樓"
    "攤墜撐開點腳裡從遠長發溫邊雲層連綿靜飄陽塊還懸掛滿"
)
SIMPLIFIED = (
    "个只头条颗间门钥时钟灯书鲸鱼鹤伞蜡烛辆风筝猫鹰蜗壳顶车钢树红旧热楼"
    "摊坠撑开点脚里从远长发温边云层连绵静飘阳块还悬挂满"
)


def test_the_languages_are_the_clients() -> None:
    assert LANGUAGES == ("en", "zh-Hant", "zh-Hans")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_card_has_a_description_in_each_language(language: str) -> None:
    cards = original_deck().cards
    said = [card.description_in(language) for card in cards]
    assert all(said), "every card described"
    assert len(set(said)) == 84, "each card its own description"
    if language == "en":
        assert said == [card.description for card in cards]
        return
    for text in said:
        assert HAN.search(text), text
        assert not re.search(r"[A-Za-z]", text), f"no English word left: {text}"
        assert text.endswith("。"), text
        assert text.count("。") == 1, f"one sentence: {text}"
        assert not set(text) & set("{}"), text
    script = "".join(said)
    if language == "zh-Hant":
        assert not set(script) & set(SIMPLIFIED), set(script) & set(SIMPLIFIED)
    else:
        assert not set(script) & set(TRADITIONAL), set(script) & set(TRADITIONAL)


def test_the_descriptions_are_composed_of_their_parts_words() -> None:
    """The card of seashells raining in the desert, in each language: the English as it was, and
    the Chinese made of the same parts (the subject many times over, the setting and the mood)."""
    card = next(card for card in original_deck().cards if card.id == "fabula-71")
    assert card.description == (
        "Seashells rain down from a dark cloud in a desert of dunes under a stormy sky onto a small person"
        " holding an umbrella."
    )
    assert card.description_in("zh-Hant") == (
        "暴風雨的天空下，在沙丘起伏的沙漠中，一枚枚貝殼從一片烏雲中紛紛落下，落在一個撐著傘的小小身影身上。"
    )
    assert card.description_in("zh-Hans") == (
        "暴风雨的天空下，在沙丘起伏的沙漠中，一枚枚贝壳从一片乌云中纷纷落下，落在一个撑着伞的小小身影身上。"
    )


def test_every_part_and_twist_has_its_words_in_each_language() -> None:
    """English has its parts' own words (`Subject.noun`, `Scene.phrase`, `Palette.phrase`); each
    other language has a word for every subject, setting, mood and choice, and every sentence."""
    scenes = {setting(Canvas(), palette("day", Rng("probe")), Rng("probe")).name for setting in SETTINGS.values()}
    assert set(WORDS) == set(LANGUAGES) - {"en"}
    for language, words in WORDS.items():
        assert set(words.subjects) == set(SUBJECTS), language
        assert set(words.settings) == scenes, language
        assert set(words.moods) == set(MOODS), language
        assert set(words.choices) == set(ENGLISH_CHOICES), language
    for language in LANGUAGES:
        assert set(SENTENCES[language]) == set(SENTENCES["en"]), language
        assert {key.split(".")[0] for key in SENTENCES[language]} == set(TWISTS), language


def test_a_card_without_translations_keeps_its_own_words_in_every_language() -> None:
    """A host's own picture (or an imported deck's) keeps the caption its owner wrote."""
    kite = Card("pictures-x1", "", "A red kite over the dunes")
    assert [kite.description_in(language) for language in LANGUAGES] == ["A red kite over the dunes"] * 3
    assert kite.description_in("fr") == "A red kite over the dunes"
