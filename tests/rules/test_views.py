"""The view encoder writes each seat's view exactly as the view itself encodes."""

from __future__ import annotations

import random

import msgspec
import pytest

from fabula.bots.random_player import random_action
from fabula.rules import MODES, Game
from fabula.rules.views import ViewEncoder

SETUPS = [(mode, seats) for mode, m in MODES.items() for seats in sorted({m.seat_counts[0], m.seat_counts[-1]})]
SHORT = {"storyteller_cycles": 1}


@pytest.mark.parametrize(("mode", "seats"), SETUPS)
def test_every_seat_s_view_is_encoded_byte_for_byte_at_every_move(mode: str, seats: int) -> None:
    encoder, rng = ViewEncoder(), random.Random(f"{mode}/{seats}")
    for game_number in range(2):  # one encoder for two games: nothing of the first leaks into the second
        game = Game.new(mode, seats, options=SHORT, seed=game_number)
        while True:
            for seat in range(seats):  # every seat, awaited or not
                assert encoder(game, seat) == msgspec.json.encode(game.view(seat))
            if game.is_over:
                break
            awaiting = game.awaiting
            game.apply(random_action(game, awaiting[int(rng.random() * len(awaiting))], rng))


def test_the_encoder_names_the_seat_s_own_fields_as_its_view_holds_them() -> None:
    game = Game.new("party", 6, seed=4)
    raw, own = ViewEncoder().encode(game, game.storyteller)
    view = msgspec.json.decode(raw)
    assert own["hand"] is None  # the party storyteller's, before the blind clue
    assert view["hand"] is None
    assert view["hand_hidden"] is True
    assert {name: view[name] for name in own} == msgspec.to_builtins(own)


def test_a_seat_that_is_not_at_the_table_is_refused() -> None:
    with pytest.raises(ValueError, match="no seat 4"):
        ViewEncoder()(Game.new("odyssey", 4, seed=1), 4)
