"""Bots cannot hear a recorded sound either: a sound-only clue is a mystery clue to them (as one
said aloud without words), and they still play and vote legally to the game's end; a model bot is
told the clue was a sound it could not hear."""

from __future__ import annotations

import random

import pytest

from fabula.bots.base import BOT_LEVELS, make_bot
from fabula.bots.language.prompt import prompt_messages, text_of
from fabula.bots.playing import checked_move
from fabula.cards.original import original_deck
from fabula.rules import BlindClue, Game, Phase, Tell

CARDS = {card.id: card for card in original_deck().cards}
SOUND = "s0und-1d-0f-a-cl1p"


@pytest.mark.parametrize("level", BOT_LEVELS)
@pytest.mark.parametrize(("mode", "seats"), [("odyssey", 4), ("party", 6)])
def test_bots_vote_legally_after_a_sound_only_clue(level: str, mode: str, seats: int) -> None:
    game = Game.new(mode, seats=seats, seed=11, deck=list(CARDS), options={"storyteller_cycles": 1})
    bots = [make_bot(level, random.Random(seat), cards=CARDS) for seat in range(seats)]
    votes = 0
    while game.phase is not Phase.OVER:
        seat = game.awaiting[0]
        if game.phase is Phase.CLUE:  # the people record a sound; the bots play the rest
            action = game.legal_actions(seat)[0]
            game.apply(action.with_clue(None, sound=SOUND) if isinstance(action, Tell | BlindClue) else action)
            assert (game.clue, game.sound) == ("", SOUND)
            continue
        votes += game.phase is Phase.VOTE
        game.apply(checked_move(bots[seat], level, game, seat))
    assert game.outcome is not None
    assert votes > 0


def test_a_language_model_is_told_the_clue_was_a_sound_it_could_not_hear() -> None:
    game = Game.new("odyssey", seats=4, seed=7, deck=list(CARDS))
    first = game.legal_actions(game.storyteller)[0]
    assert isinstance(first, Tell)
    game.apply(first.with_clue(None, sound=SOUND))
    seat = game.awaiting[0]
    view = game.view(seat).to_json()
    assert view["sound"] == SOUND
    text = text_of(prompt_messages(view, game.legal_actions(seat), CARDS)[-1])
    assert "recorded" in text
    assert "could not hear" in text
    assert 'the clue ""' not in text
