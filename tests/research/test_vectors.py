"""``observations="vector"``: the seat's view as numbers, in the documented layout."""

from __future__ import annotations

from .extra import require_extra

require_extra()


import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gymnasium import spaces  # noqa: E402

from fabula.research.pettingzoo import env, parallel_env  # noqa: E402
from fabula.research.vectors import EMBEDDING_WIDTH, CardEmbeddings, VectorLayout  # noqa: E402

from .pettingzoo_tests import BY_DESIGN, api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

pytestmark = BY_DESIGN


SHORT = {"storyteller_cycles": 1}
CLUES = ["Freedom", "Dream", "Journey"]


@pytest.mark.parametrize(("mode", "players"), [("odyssey", 3), ("odyssey", 7), ("party", 6), ("teams", 6)])
def test_the_vector_envs_pass_pettingzoo_s_own_tests(mode: str, players: int) -> None:
    api_test(env(mode, players, options=SHORT, clues=CLUES, observations="vector"), num_cycles=30)
    parallel_api_test(parallel_env(mode, players, options=SHORT, clues=CLUES, observations="vector"), num_cycles=30)
    seed_test(lambda: env(mode, players, options=SHORT, clues=CLUES, observations="vector"), num_cycles=10)
    parallel_seed_test(lambda: parallel_env(mode, players, options=SHORT, clues=CLUES, observations="vector"))


def test_the_observation_is_a_box_and_a_mask_and_flattens() -> None:
    aec = env("odyssey", 4, options=SHORT, clues=CLUES, observations="vector")
    space = aec.observation_space("seat_0")
    assert isinstance(space, spaces.Dict)
    assert set(space.spaces) == {"observation", "action_mask"}
    aec.reset(seed=3)
    observation = aec.observe(aec.agent_selection)
    assert observation["observation"].dtype == np.float32
    assert space.contains(observation)
    assert np.asarray(spaces.flatten(space, observation)).shape == (spaces.flatdim(space),)
    assert spaces.flatdim(space) < 10_000  # numbers, not the text mode's 196,624 character codes


def test_the_fields_hold_the_seat_s_view() -> None:
    aec = env("odyssey", 4, options=SHORT, clues=CLUES, observations="vector")
    text = env("odyssey", 4, options=SHORT, clues=CLUES)
    aec.reset(seed=5)
    text.reset(seed=5)
    layout = aec.table.vectors[0]  # type: ignore[index]
    embeddings: CardEmbeddings = aec.table.vectors[1]  # type: ignore[index]
    agent = aec.agent_selection
    seat = aec.table.seat_of[agent]
    vector = aec.observe(agent)["observation"]
    assert np.array_equal(aec.observe(agent)["action_mask"], text.observe(agent)["action_mask"])
    assert vector[layout.fields["seat"]].tolist() == [float(s == seat) for s in range(4)]
    assert vector[layout.fields["phase"]].tolist() == [1.0, 0.0, 0.0, 0.0]  # the clue phase
    row = 2 + EMBEDDING_WIDTH
    hand = vector[layout.fields["hand"]].reshape(layout.hand_size, row)
    for h, card in enumerate(aec.game.hand(seat)):
        assert hand[h, 0] == 1.0
        assert np.allclose(hand[h, 2:], embeddings[card])
    assert np.linalg.norm(embeddings[aec.game.hand(seat)[0]]) == pytest.approx(1.0, abs=1e-4)
    others = [s for s in range(4) if s != seat]
    secret = {card for s in others for card in aec.game.hand(s)}
    rows = {tuple(np.round(hand[h, 2:], 5)) for h in range(layout.hand_size)}
    assert not any(tuple(np.round(embeddings[c], 5)) in rows for c in secret)  # no other hand leaks in


def test_vector_mode_needs_a_clue_vocabulary_and_a_known_name() -> None:
    with pytest.raises(ValueError, match="clue vocabulary"):
        env("odyssey", 4, observations="vector")
    with pytest.raises(ValueError, match="'text' or 'vector'"):
        env("odyssey", 4, clues=CLUES, observations="numbers")


def test_the_layout_is_documented_field_by_field() -> None:
    from fabula.research import vectors

    layout = VectorLayout.of(env("odyssey", 4, clues=CLUES).table.space)
    for name, _, _ in layout.describe():
        assert f"``{name}``" in (vectors.__doc__ or "")
