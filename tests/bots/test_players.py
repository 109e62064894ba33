"""The reading bots' decisions, situation by situation: what a storyteller, a decoy and a voter
choose on tables built for these tests, and the shared machinery under them (the deck matrix, the
vector cache on disk)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fabula.bots.base import BOT_LEVELS, RandomBot, make_bot
from fabula.bots.semantic.cards import DeckMatrix, card_features
from fabula.bots.semantic.encoder import Encoder, shared_encoder
from fabula.bots.semantic.guesser import Guesser
from fabula.bots.semantic.player import PERSONAS, SemanticBot, allowed_clue, deck_plan
from fabula.cards.model import Card
from fabula.cards.original import original_deck
from fabula.rules import Game, Phase, Play, Tell, Vote

DECK = original_deck()
CARDS = {card.id: card for card in DECK.cards}

#: A small deck written for these tests: one card per obvious theme.
THEMES = [
    Card("t-1", "Beacon", "A red lighthouse on a rocky coast sweeps its beam over the sea.", ("lighthouse",)),
    Card("t-2", "Noodles", "A steaming bowl of ramen noodles with chopsticks on a wooden table.", ("food", "soup")),
    Card("t-3", "Recital", "A violin lies on an empty chair in a concert hall.", ("violin", "music")),
    Card("t-4", "Summit", "A climber stands on a snowy mountain peak under a clear blue sky.", ("mountain", "snow")),
    Card("t-5", "Nap", "A black cat sleeps curled up on a sunny windowsill.", ("cat", "sleep")),
    Card("t-6", "Harbour", "Small fishing boats rest in a quiet harbour at dawn.", ("boats", "harbour")),
    Card("t-7", "Library", "Tall shelves of old books rise to the ceiling of a library.", ("books", "reading")),
    Card("t-8", "Orchard", "Apples hang from the trees of an orchard in autumn.", ("apples", "autumn")),
]
THEMED = {card.id: card for card in THEMES}


def vote_view(clue: str, table: list[str], seat: int = 1, tokens: int = 1, mode: str = "odyssey") -> dict[str, Any]:
    return {
        "mode": mode,
        "seats": 7 if tokens == 2 else 4,
        "seat": seat,
        "clue": clue,
        "table": [{"slot": i + 1, "card": card, "yours": False} for i, card in enumerate(table)],
        "options": {},
        "tokens": tokens,
    }


def test_every_level_makes_a_bot_and_an_unknown_one_is_refused() -> None:
    for level in BOT_LEVELS:
        bot = make_bot(level, random.Random(1), cards=CARDS)
        assert isinstance(bot, RandomBot if level == "random" else SemanticBot)
    with pytest.raises(ValueError, match="unknown bot level 'genius'"):
        make_bot("genius")


def test_the_deck_matrix_gives_exactly_the_card_by_card_features() -> None:
    guesser = Guesser()
    cards = [*THEMES, Card("t-blind", "", "")]
    matrix = DeckMatrix(guesser.index, cards)
    clues = guesser.encoder.encode(["Music", "Home sweet home", "a cold morning"])
    together = matrix.features(clues)
    for row, clue in enumerate(clues):
        alone = card_features(clue, [guesser.index.vectors(card) for card in cards])
        np.testing.assert_allclose(together[row], alone, atol=1e-5)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_voter_finds_an_obvious_card(level: str) -> None:
    # The noise of even the easy bot should not often beat a clue this plain.
    table = ["t-1", "t-2", "t-3", "t-4", "t-5"]
    found = 0
    for seed in range(20):
        bot = make_bot(level, random.Random(seed), cards=THEMED)
        legal = [Vote(1, (slot,)) for slot in range(1, 6)]
        choice = bot.choose(vote_view("A bowl of hot soup", table), legal)
        found += choice == Vote(1, (2,))
    assert found >= {"easy": 10, "normal": 15, "hard": 18}[level]


def test_the_hard_voter_uses_one_token_when_sure_and_two_when_torn() -> None:
    bot = make_bot("hard", random.Random(3), cards=THEMED)
    table = ["t-1", "t-2", "t-3", "t-4", "t-5", "t-6", "t-7"]
    legal = [Vote(1, (slot,)) for slot in range(1, 8)]
    legal += [Vote(1, (a, b)) for a in range(1, 8) for b in range(a + 1, 8)]
    sure = bot.choose(vote_view("A violin on a chair in an empty concert hall", table, tokens=2), legal)
    assert sure == Vote(1, (3,))
    torn = bot.choose(vote_view("Water", table, tokens=2), legal)
    assert len(torn.slots) == 2  # type: ignore[union-attr]


def test_a_decoy_plays_the_hand_card_that_fits_the_clue() -> None:
    bot = make_bot("hard", random.Random(5), cards=THEMED)
    hand = ["t-2", "t-3", "t-7", "t-8"]
    view = {"mode": "odyssey", "seats": 4, "clue": "Symphony", "hand": hand, "phase": "play"}
    assert bot.choose(view, [Play(2, (card,)) for card in hand]) == Play(2, ("t-3",))


def test_the_storyteller_never_gives_the_title_or_lifts_the_description() -> None:
    for seed in range(30):
        game = Game.new("odyssey", seats=5, seed=seed, deck=list(CARDS))
        teller = game.awaiting[0]
        for level in ("easy", "normal", "hard"):
            move = make_bot(level, random.Random(seed), cards=CARDS).choose(
                game.view(teller).to_json(), game.legal_actions(teller)
            )
            assert isinstance(move, Tell)
            assert move.clue
            card = CARDS[move.card]
            assert allowed_clue(move.clue, card), (level, move.clue, card)
            assert move.clue.lower() != card.title.lower()
            assert move.clue.lower() not in card.description.lower() or " " not in move.clue


def test_the_hard_storyteller_expects_more_than_the_easy_one() -> None:
    """The hard storyteller picks by expected score, so by its own measure its choice is at least
    as good as the easy one's; over many hands it should be strictly better on average."""
    guesser = Guesser()
    hard = SemanticBot(PERSONAS["hard"], CARDS, random.Random(1))
    easy = SemanticBot(PERSONAS["easy"], CARDS, random.Random(1))
    plan = deck_plan(guesser, list(CARDS.values()), simple=False)
    clue_row = {clue.lower(): i for i, clue in enumerate(plan.clues)}
    gains = []
    for seed in range(12):
        game = Game.new("odyssey", seats=6, seed=seed, deck=list(CARDS))
        teller = game.awaiting[0]
        view, legal = game.view(teller).to_json(), game.legal_actions(teller)
        hand = np.array([plan.matrix.position[action.card] for action in legal])  # type: ignore[union-attr]
        expected = hard._expected_scores(view, plan, hand)
        cards = [action.card for action in legal if isinstance(action, Tell)]
        scores: list[float] = []
        for bot in (hard, easy):
            move = bot.choose(view, legal)
            assert isinstance(move, Tell)
            row = clue_row.get((move.clue or "").lower())
            scores.append(float(expected[row][cards.index(move.card)]) if row is not None else 0.0)
        gains.append(scores[0] - scores[1])
    assert min(gains) >= -1e-9
    assert float(np.mean(gains)) > 0.3


def test_blind_cards_still_get_legal_moves_from_every_level() -> None:
    blind = {card_id: Card(card_id, "", "") for card_id in CARDS}
    game = Game.new("odyssey", seats=4, seed=9, deck=list(CARDS))
    bots = [make_bot(level, random.Random(seat), cards=blind) for seat, level in enumerate(("easy", "normal", "hard"))]
    bots.append(make_bot("hard", random.Random(4)))  # told nothing at all
    rng = random.Random(2)
    for _ in range(60):
        if game.phase is Phase.OVER:
            break
        seat = rng.choice(game.awaiting)
        legal = game.legal_actions(seat)
        move = bots[seat].choose(game.view(seat).to_json(), legal)
        blanked = Tell(move.seat, move.card, None) if isinstance(move, Tell) else move
        assert blanked in legal
        game.apply(move)


def test_vectors_are_kept_on_disk_for_the_next_process(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "vectors.npz"
    first = Encoder(cache_file=path)
    texts = ["A lantern in the fog", "Far from home"]
    vectors = first.encode(texts)
    first.save_cache(texts)
    assert path.is_file()
    second = Encoder(cache_file=path)
    assert set(texts) <= set(second._cache)  # read back, not recomputed
    np.testing.assert_array_equal(second.encode(texts), vectors)
    path.write_bytes(b"not a numpy file")
    third = Encoder(cache_file=path)  # a damaged cache is ignored, not an error
    np.testing.assert_allclose(third.encode(texts), vectors, atol=1e-6)


def test_one_model_per_process() -> None:
    assert Guesser().encoder is shared_encoder()
