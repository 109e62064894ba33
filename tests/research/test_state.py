"""The envs' global ``state()``: every seat's observation together — as text, one JSON object of
every seat's view and the cards they name; as vectors, the seats' observation vectors one after
another — in ``state_space``, and nothing of what no seat knows."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import json  # noqa: E402 - after the check that the extra is there
import warnings  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from typing import Any, cast  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gymnasium import spaces  # noqa: E402
from pettingzoo.test.state_test import state_test as untyped_state_test  # noqa: E402

from fabula.research.pettingzoo import NotReset, env, parallel_env  # noqa: E402

from .games import SHORT, TABLES, VARIANTS  # noqa: E402

CLUES = ["Freedom", "Dream", "Journey"]
state_test = cast("Callable[..., None]", untyped_state_test)
PLAYED = [(mode, seats, SHORT) for mode, seats in TABLES] + VARIANTS


def play(aec: Any, seed: int) -> Iterator[str]:
    """A random game through the AEC env, yielding before every move."""
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in aec.agent_iter():
        observation, _, termination, truncation, _ = aec.last()
        yield agent
        legal = np.flatnonzero(observation["action_mask"])
        aec.step(None if termination or truncation else int(rng.choice(legal)))


@pytest.mark.parametrize(("mode", "seats", "options"), PLAYED, ids=[f"{m}-{n}-{len(o)}" for m, n, o in PLAYED])
def test_the_text_state_is_every_seat_s_view_and_the_cards_they_name(
    mode: str, seats: int, options: dict[str, Any]
) -> None:
    aec = env(mode, seats, options=options, seed=1)
    assert isinstance(aec.state_space, spaces.Text)
    moves = 0
    for _ in play(aec, 4):
        moves += 1
        game, text = aec.game, aec.state()
        assert aec.state_space.contains(text)
        state = json.loads(text)
        assert state["views"] == [game.view(seat).to_json() for seat in range(seats)]
        named: dict[str, Any] = {}
        for seat, agent in enumerate(aec.possible_agents):
            observation = aec.observe(agent)
            assert json.loads(observation["view"]) == state["views"][seat]
            named.update(json.loads(observation["cards"]))
        assert state["cards"] == named
        assert list(state["cards"]) == list(named)
        # every hand its seat has seen (in party, the storyteller's is kept from it before the clue)
        seen = [seat for seat, view in enumerate(state["views"]) if not view["hand_hidden"]]
        hidden = [game.storyteller] if mode == "party" and game.phase.value == "clue" else []
        assert seen == [seat for seat in range(seats) if seat not in hidden]
        hands = {card for seat in seen for card in game.hand(seat)}
        assert hands | set(game.table) <= state["cards"].keys()
        assert str(game.seed) not in text
        if game.draw_pile:
            # the next card to be drawn is no seat's business, unless an earlier round showed it
            last = game.last_result
            assert game.draw_pile[0] not in state["cards"] or (last is not None and game.draw_pile[0] in last.table)
    assert moves > seats


def test_the_vector_state_is_each_seat_s_observation_vector_in_turn() -> None:
    aec = env("odyssey", 4, options=SHORT, seed=2, clues=CLUES, observations="vector")
    space = aec.state_space
    assert isinstance(space, spaces.Box)
    size = aec.table.vectors[0].size if aec.table.vectors else 0
    assert space.shape == (4 * size,)
    assert space.dtype == np.float32
    for _ in play(aec, 5):
        state = aec.state()
        assert state.dtype == np.float32
        assert space.contains(state)
        for seat, agent in enumerate(aec.possible_agents):
            assert np.array_equal(state[seat * size : (seat + 1) * size], aec.observe(agent)["observation"])


@pytest.mark.parametrize(("mode", "seats"), [("odyssey", 3), ("party", 6), ("teams", 6)])
def test_pettingzoo_s_state_test_passes_without_a_warning_in_vector_mode(mode: str, seats: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(
            env(mode, seats, options=SHORT, clues=CLUES, observations="vector"),
            parallel_env(mode, seats, options=SHORT, clues=CLUES, observations="vector"),
            num_cycles=20,
        )
    assert [str(w.message) for w in caught if "state" in str(w.message).lower()] == []


def test_pettingzoo_s_state_test_passes_in_text_mode_warning_only_that_text_is_no_array() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(env("odyssey", 4, options=SHORT), parallel_env("odyssey", 4, options=SHORT), num_cycles=20)
    said = {str(w.message) for w in caught if "state" in str(w.message).lower()}
    assert said <= {
        "State space for each environment probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
        "State is not NumPy array",
    }


def test_the_parallel_env_has_the_same_state_and_every_seat_even_with_opponents() -> None:
    aec, parallel = env("classic", 5, seed=9), parallel_env("classic", 5, seed=9)
    aec.reset()
    parallel.reset()
    assert aec.state() == parallel.state()
    against = env("classic", 5, seed=9, opponents={"seat_1": "random", "seat_3": "random"})
    against.reset()
    assert len(json.loads(against.state())["views"]) == 5
    assert against.state_space == aec.state_space


def test_there_is_no_state_before_the_first_reset() -> None:
    for made in (env("odyssey", 4), parallel_env("odyssey", 4)):
        with pytest.raises(NotReset, match="before state"):
            made.state()
