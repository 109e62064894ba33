"""A clue said aloud (issue 36): the storyteller says the clue at the table and may type a few
words for the album and the bots. The engine's clue is then those words (``""`` for none) and
``aloud`` says so, in the views of every seat and spectator, in the round's result, in the log
and the stored state; an empty clue is never taken without ``aloud``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fabula.cards.original import original_deck
from fabula.rules import BlindClue, Game, IllegalAction, Phase, Tell, action_from_json
from fabula.rules.events import ClueGiven

CARDS = {card.id: card for card in original_deck().cards}


def new_game(mode: str = "odyssey", seats: int = 4) -> Game:
    return Game.new(mode, seats=seats, seed=7, deck=list(CARDS), options={"storyteller_cycles": 1})


def tell_aloud(game: Game, words: str | None) -> list[Any]:
    teller = game.storyteller
    first = game.legal_actions(teller)[0]
    assert isinstance(first, Tell | BlindClue)
    return game.apply(first.with_clue(words, aloud=True))


def play_round(game: Game, rng: random.Random) -> None:
    """Random legal moves until the round is scored."""
    number = game.round
    while game.round == number and game.phase is not Phase.OVER:
        seat = game.awaiting[0]
        game.apply(rng.choice(game.legal_actions(seat)))


@pytest.mark.parametrize(
    ("words", "shown"), [(None, ""), ("", ""), ("   ", ""), ("  a hum, then a wink ", "a hum, then a wink")]
)
def test_a_clue_said_aloud_is_its_words_or_none_and_every_view_says_aloud(words: str | None, shown: str) -> None:
    game = new_game()
    events = tell_aloud(game, words)
    assert events == [ClueGiven(game.storyteller, shown, True)]
    assert (game.clue, game.aloud, game.phase) == (shown, True, Phase.PLAY)
    for seat in [None, *range(game.seats)]:
        view = game.view(seat).to_json()
        assert (view["clue"], view["aloud"]) == (shown, True), seat
    play_round(game, random.Random(1))
    result = game.last_result
    assert result is not None
    assert (result.clue, result.aloud) == (shown, True)
    assert game.view(None).to_json()["last_round"]["aloud"] is True
    # the next round's clue is typed: aloud is the round's, not the game's
    assert game.aloud is False
    assert game.view(0).to_json()["aloud"] is False


def test_a_typed_clue_is_not_aloud_and_its_json_is_as_before() -> None:
    game = new_game()
    first = game.legal_actions(game.storyteller)[0]
    assert isinstance(first, Tell)
    tell = first.with_clue("Dawn")
    assert tell.to_json() == {"type": "tell", "seat": tell.seat, "card": tell.card, "clue": "Dawn"}
    assert game.apply(tell) == [ClueGiven(game.storyteller, "Dawn", False)]
    assert game.view(1).to_json()["aloud"] is False


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "tell", "card": "X", "clue": None}, "clue_required"),
        ({"type": "tell", "card": "X"}, "clue_required"),
        ({"type": "tell", "card": "X", "clue": "   "}, "clue_empty"),
        ({"type": "tell", "card": "X", "clue": "", "aloud": False}, "clue_empty"),
        ({"type": "tell", "card": "X", "aloud": "yes"}, "malformed"),
        ({"type": "tell", "card": "X", "aloud": 1}, "malformed"),
        ({"type": "tell", "card": "X", "aloud": True, "clue": 5}, "malformed"),
        ({"type": "tell", "card": "X", "aloud": True, "clue": "x" * 201}, "clue_too_long"),
        ({"type": "tell", "card": "X", "aloud": True, "clue": "a\u202eb"}, "clue_invalid"),
        ({"type": "blind_clue", "aloud": True}, "wrong_action"),
    ],
)
def test_a_clue_without_words_is_refused_unless_said_aloud(action: dict[str, Any], code: str) -> None:
    game = new_game()
    teller = game.storyteller
    card = game.hand(teller)[0]
    given = {**action, "seat": teller, **({"card": card} if "card" in action else {})}
    with pytest.raises(IllegalAction) as refused:
        game.apply(action_from_json(given))
    assert refused.value.code == code
    assert (game.phase, game.clue, game.log) == (Phase.CLUE, None, [])


def test_party_gives_its_blind_clue_aloud() -> None:
    game = new_game("party", 6)
    teller = game.storyteller
    assert game.view(teller).hand is None
    events = game.apply(action_from_json({"type": "blind_clue", "seat": teller, "aloud": True}))
    assert events == [ClueGiven(teller, "", True)]
    assert game.view(teller).hand is not None  # the hand is the storyteller's again
    assert game.log[-1].to_json() == {"type": "blind_clue", "seat": teller, "clue": None, "aloud": True}


def test_the_log_and_the_stored_state_replay_to_the_same_game() -> None:
    game = new_game()
    rng = random.Random(3)
    tell_aloud(game, None)
    play_round(game, rng)
    tell_aloud(game, "whistle")
    seat = game.awaiting[0]
    game.apply(game.legal_actions(seat)[0])
    again = Game.new("odyssey", seats=4, seed=7, deck=list(CARDS), options={"storyteller_cycles": 1})
    for action in game.log:
        again.apply(action_from_json(action.to_json()))
    assert again == game
    assert (again.clue, again.aloud) == ("whistle", True)
    restored = Game.from_json(game.to_json())
    assert restored == game
    assert restored.aloud is True
    assert restored.view(2).to_json() == game.view(2).to_json()
    stored = game.to_json()
    del stored["aloud"]  # a state stored before clues were said aloud: typed
    assert Game.from_json(stored).aloud is False
