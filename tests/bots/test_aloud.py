"""Bots cannot hear: a clue said aloud at the table without typed words is a mystery clue to
them (every card scores the same for them; their persona's noise picks), and they still play
legal moves to the game's end. With words typed, they read the words."""

from __future__ import annotations

import random

import pytest

from fabula.bots.base import BOT_LEVELS, make_bot
from fabula.bots.language.prompt import prompt_messages, text_of
from fabula.bots.playing import checked_move
from fabula.cards.original import original_deck
from fabula.rules import BlindClue, Game, Phase, Tell

CARDS = {card.id: card for card in original_deck().cards}


@pytest.mark.parametrize("level", BOT_LEVELS)
@pytest.mark.parametrize(("mode", "seats"), [("odyssey", 4), ("party", 6), ("teams", 6)])
def test_bots_move_legally_after_a_clue_said_aloud_without_words(level: str, mode: str, seats: int) -> None:
    """Bots cannot hear: a clue said aloud without words is a mystery clue to them, and they play
    and vote all the same, to the game's end."""
    game = Game.new(mode, seats=seats, seed=7, deck=list(CARDS), options={"storyteller_cycles": 1})
    bots = [make_bot(level, random.Random(seat), cards=CARDS) for seat in range(seats)]
    while game.phase is not Phase.OVER:
        seat = game.awaiting[0]
        if game.phase is Phase.CLUE:  # the people tell aloud; the bots play the rest
            action = game.legal_actions(seat)[0]
            game.apply(action.with_clue(None, aloud=True) if isinstance(action, Tell | BlindClue) else action)
            continue
        game.apply(checked_move(bots[seat], level, game, seat))
    assert game.outcome is not None


@pytest.mark.parametrize(("words", "said"), [(None, "could not hear it"), ("a low whistle", '"a low whistle"')])
def test_a_language_model_is_told_the_clue_was_said_aloud(words: str | None, said: str) -> None:
    game = Game.new("odyssey", seats=4, seed=7, deck=list(CARDS))
    first = game.legal_actions(game.storyteller)[0]
    assert isinstance(first, Tell)
    game.apply(first.with_clue(words, aloud=True))
    seat = game.awaiting[0]
    view = game.view(seat).to_json()
    text = text_of(prompt_messages(view, game.legal_actions(seat), CARDS)[-1])
    assert "said aloud" in text
    assert said in text
    assert 'the clue ""' not in text
    assert 'The clue: ""' not in text
