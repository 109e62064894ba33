"""OpenSpiel's own random-simulation test on ``python_fabula_dixit`` in every mode, and what it
does not check: the observation strings are the seats' views, the legal actions the shared
action space's, the rewards the rounds' points and the returns the scores."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import json  # noqa: E402
import random  # noqa: E402
from typing import Any  # noqa: E402

import pyspiel  # noqa: E402
import pytest  # noqa: E402

from fabula.research import openspiel  # noqa: E402
from fabula.research.actions import ActionSpace  # noqa: E402
from fabula.research.observations import view_json  # noqa: E402

from .games import SHORT, TABLES, VARIANTS  # noqa: E402


def load(mode: str, players: int, options: dict[str, Any], **more: Any) -> Any:
    return pyspiel.load_game(
        openspiel.GAME_NAME, {"mode": mode, "players": players, "options": json.dumps(options), **more}
    )


@pytest.mark.parametrize(("mode", "seats"), TABLES)
def test_random_sim_test(mode: str, seats: int) -> None:
    # serializing (a pickle of the state) is checked at the small tables, where it is quick
    pyspiel.random_sim_test(load(mode, seats, SHORT), num_sims=2, serialize=seats < 7, verbose=False)


@pytest.mark.parametrize(("mode", "seats", "options"), VARIANTS)
def test_random_sim_test_with_the_options_that_change_moves(mode: str, seats: int, options: dict[str, Any]) -> None:
    pyspiel.random_sim_test(load(mode, seats, options), num_sims=1, serialize=False, verbose=False)


def test_the_game_is_registered_with_its_parameters() -> None:
    assert openspiel.GAME_NAME in pyspiel.registered_names()
    game = pyspiel.load_game("python_fabula_dixit(mode=teams,players=8)")
    space = ActionSpace.create("teams", 8, {}, openspiel.DEFAULT_CLUES.split("|"))
    assert game.num_players() == 8
    assert game.num_distinct_actions() == space.n
    assert game.max_chance_outcomes() == 1024
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert load("odyssey", 5, {}, clues="Dawn|Dusk", seeds=10).max_chance_outcomes() == 10


def test_a_party_game_without_a_bound_on_its_length_is_refused() -> None:
    with pytest.raises(ValueError, match="bound"):
        load("party", 6, {"storyteller_cycles": None, "target_score": 20})


@pytest.mark.parametrize(("mode", "seats"), TABLES)
def test_strings_moves_rewards_and_returns(mode: str, seats: int) -> None:
    game = load(mode, seats, SHORT, clues="Dawn|Là où la carte s'arrête|月亮")
    space = ActionSpace.create(mode, seats, SHORT, ["Dawn", "Là où la carte s'arrête", "月亮"])
    public = game.make_py_observer(
        pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    rng = random.Random(mode)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.observation_string(0) == "before the deal"
    state.apply_action(rng.randrange(1024))
    summed = [0.0] * seats
    while not state.is_terminal():
        engine = state.engine
        player = state.current_player()
        assert player in engine.awaiting
        for seat in range(seats):
            assert state.observation_string(seat) == view_json(engine, seat)
            assert state.information_state_string(seat) == view_json(engine, seat)
        assert public.string_from(state, 0) == view_json(engine, None)
        assert state.legal_actions() == space.legal_ids(engine, player)
        action = rng.choice(state.legal_actions())
        assert state.action_to_string(player, action) == space.describe(action)
        clone = state.clone()
        state.apply_action(action)
        assert str(clone) != str(state)  # the clone is its own game
        summed = [total + reward for total, reward in zip(summed, state.rewards(), strict=True)]
        if any(state.rewards()):
            assert state.rewards() == [float(p) for p in state.engine.last_result.points]
    assert summed == state.returns() == [float(score) for score in state.engine.scores]
    assert state.engine.outcome is not None
