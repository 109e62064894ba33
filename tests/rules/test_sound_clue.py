"""A recorded sound as the clue: the engine keeps its id (opaque: the server checks whose it is)
with the clue, words optional; the views, the round's result, the JSON of the move and the saved
state carry it; a malformed id is refused."""

from __future__ import annotations

import pytest

from fabula.rules import Game, IllegalAction, Tell, action_from_json
from fabula.rules.results import RoundResult

SOUND = "abcdEFGH1234_-xy"


def test_a_tell_with_a_sound_needs_no_words_and_every_view_carries_it() -> None:
    game = Game.new("odyssey", seats=4, seed=3)
    first = game.legal_actions(game.storyteller)[0]
    assert isinstance(first, Tell)
    told = first.with_clue(None, sound=SOUND)
    assert told.to_json()["sound"] == SOUND
    assert "aloud" not in told.to_json()
    assert action_from_json(told.to_json()) == told
    game.apply(told)
    assert (game.clue, game.sound) == ("", SOUND)
    assert game.view(None).to_json()["sound"] == SOUND
    assert all(game.view(seat).to_json()["sound"] == SOUND for seat in range(4))
    again = Game.from_json(game.to_json())
    assert again.sound == SOUND
    while game.last_result is None:
        seat = game.awaiting[0]
        game.apply(game.legal_actions(seat)[0])
    result = game.last_result
    assert result.sound == SOUND
    assert result.clue == ""
    assert RoundResult.from_json(result.to_json()).sound == SOUND
    assert game.sound is None or game.round == 1  # the next turn starts without one


def test_a_typed_clue_keeps_its_json_and_has_no_sound() -> None:
    action = Tell(0, "c01", "Dawn")
    assert action.to_json() == {"type": "tell", "seat": 0, "card": "c01", "clue": "Dawn"}
    assert Game.new("odyssey", seats=4, seed=3).view(None).to_json()["sound"] is None


@pytest.mark.parametrize("bad", ["", "short", "with space in it", "../../etc/passwd", 12, True, "x" * 65])
def test_a_malformed_sound_is_refused(bad: object) -> None:
    with pytest.raises(IllegalAction) as refused:
        action_from_json({"type": "tell", "seat": 0, "card": "c01", "sound": bad})
    assert refused.value.code == "malformed"
