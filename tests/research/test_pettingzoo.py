"""PettingZoo's own test suites on the Fabula envs — every mode at its smallest and largest table,
with a clue vocabulary and with free-text clues — and what those suites do not check: that the
rewards add up to the scores, that seeds make games reproducible, that the parallel env plays
the simultaneous phases."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import re  # noqa: E402 - after the check that the extra is there
from collections.abc import Callable, Sequence  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from pettingzoo.utils.wrappers import OrderEnforcingWrapper, TerminateIllegalWrapper  # noqa: E402

from fabula.research.actions import ActionNotAvailable  # noqa: E402
from fabula.research.pettingzoo import FabulaAECEnv, FabulaParallelEnv, NotReset, env, parallel_env  # noqa: E402
from fabula.rules import MODES, IllegalAction, Phase  # noqa: E402

from .pettingzoo_tests import BY_DESIGN, api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

pytestmark = BY_DESIGN

from .games import CLUES, SHORT, TABLES, VARIANTS  # noqa: E402

CLUE_CHOICES = [pytest.param(CLUES, id="vocabulary"), pytest.param(None, id="free-text")]


@pytest.mark.parametrize(("mode", "seats"), TABLES)
@pytest.mark.parametrize("clues", CLUE_CHOICES)
def test_pettingzoo_api_tests(mode: str, seats: int, clues: Sequence[str] | None) -> None:
    api_test(env(mode, seats, options=SHORT, seed=1, clues=clues), num_cycles=1000)
    parallel_api_test(parallel_env(mode, seats, options=SHORT, seed=2, clues=clues), num_cycles=1000)
    seed_test(lambda: env(mode, seats, options=SHORT, seed=3, clues=clues), num_cycles=1000)
    # (it steps actions sampled without the mask: illegal ones end the episode, as in its classic games)
    parallel_seed_test(lambda: parallel_env(mode, seats, options=SHORT, seed=3, clues=clues), num_cycles=1000)


@pytest.mark.parametrize(("mode", "seats", "options"), VARIANTS)
def test_the_api_test_with_the_options_that_change_moves(mode: str, seats: int, options: dict[str, Any]) -> None:
    api_test(env(mode, seats, options=options, seed=4), num_cycles=1000)
    parallel_api_test(parallel_env(mode, seats, options=options, seed=4), num_cycles=1000)
    for clues in (CLUES, None):
        parallel_seed_test(lambda: parallel_env(mode, seats, options=options, seed=4, clues=clues), num_cycles=1000)  # noqa: B023 - called at once


def random_episode(aec: FabulaAECEnv, seed: int) -> tuple[dict[str, float], list[int]]:
    """Play one game with random legal ids: (each agent's summed rewards, the ids played)."""
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(aec.possible_agents, 0.0)
    played = []
    for agent in aec.agent_iter():
        observation, reward, termination, truncation, _info = aec.last()
        assert observation is not None
        returns[agent] += reward
        if termination or truncation:
            aec.step(None)
            continue
        id = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        played.append(id)
        aec.step(id)
    return returns, played


@pytest.mark.parametrize(("mode", "seats"), TABLES)
def test_the_rewards_are_the_rounds_points_and_add_up_to_the_scores(mode: str, seats: int) -> None:
    aec = env(mode, seats, options={"storyteller_cycles": 2}, seed=5)
    aec.reset()
    returns, _ = random_episode(aec, 5)
    game = aec.game
    assert game.phase is Phase.OVER
    assert list(returns.values()) == game.scores
    assert game.outcome is not None
    assert aec.agents == []


def test_a_seed_makes_the_games_reproducible_and_reset_reseeds() -> None:
    first, second = env("odyssey", 5, options=SHORT, seed=11), env("odyssey", 5, options=SHORT, seed=11)
    first.reset()
    second.reset()
    assert first.game.to_json() == second.game.to_json()
    assert random_episode(first, 1) == random_episode(second, 1)
    first.reset(seed=7)
    deal = first.game.to_json()
    first.reset()
    assert first.game.to_json() != deal  # the generator goes on: another game
    first.reset(seed=7)
    assert first.game.to_json() == deal
    other = env("odyssey", 5, options=SHORT, seed=12)
    other.reset()
    assert other.game.to_json() != second.game.to_json() or other.game.seed != second.game.seed


@pytest.mark.parametrize(("mode", "seats"), TABLES)
def test_a_seed_given_when_the_env_is_made_deals_what_reset_with_that_seed_deals(mode: str, seats: int) -> None:
    # env(seed=s).reset() and env().reset(seed=s): the same deal, the same first storyteller, and
    # the same games after it
    made, reseeded = env(mode, seats, options=SHORT, seed=7), env(mode, seats, options=SHORT)
    made.reset()
    reseeded.reset(seed=7)
    assert made.game.storyteller == reseeded.game.storyteller
    deal = made.game.to_json()
    assert deal == reseeded.game.to_json()
    assert random_episode(made, 3) == random_episode(reseeded, 3)
    made.reset()
    reseeded.reset()
    assert made.game.to_json() == reseeded.game.to_json()
    par_made, par_reseeded = parallel_env(mode, seats, options=SHORT, seed=7), parallel_env(mode, seats, options=SHORT)
    first, again = par_made.reset()[0], par_reseeded.reset(seed=7)[0]
    assert {agent: o["view"] for agent, o in first.items()} == {agent: o["view"] for agent, o in again.items()}
    assert par_made.game.to_json() == par_reseeded.game.to_json() == deal  # (and the AEC env's game)


def test_nothing_is_dealt_and_no_move_is_taken_before_reset() -> None:
    aec = env("odyssey", 4, options=SHORT, seed=1)
    calls: list[tuple[str, Callable[[], object]]] = [
        ("step", lambda: aec.step(0)),
        ("observe", lambda: aec.observe("seat_0")),
        ("last", aec.last),
        ("agent_iter()", aec.agent_iter),
        ("render", aec.render),
        ("game", lambda: aec.game),
    ]
    for call, make in calls:
        # an AssertionError with PettingZoo's words, as its OrderEnforcingWrapper refuses
        with pytest.raises(NotReset, match=rf"^reset\(\) needs to be called before {re.escape(call)}"):
            make()
    with pytest.raises(AssertionError, match="reset"):
        OrderEnforcingWrapper(env("odyssey", 4, options=SHORT, seed=1)).step(0)
    par = parallel_env("odyssey", 4, options=SHORT, seed=1)
    par_calls: list[tuple[str, Callable[[], object]]] = [
        ("step", lambda: par.step({"seat_0": 0})),
        ("render", par.render),
        ("game", lambda: par.game),
    ]
    for call, make in par_calls:
        with pytest.raises(NotReset, match=rf"^reset\(\) needs to be called before {call}"):
            make()
    # and once reset, both play
    aec.reset()
    aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    observations, _ = par.reset()
    masks = {agent: observation["action_mask"] for agent, observation in observations.items()}
    par.step({agent: int(np.flatnonzero(mask)[0]) for agent, mask in masks.items() if mask.any()})
    assert len(aec.game.log) == len(par.game.log) == 1


def test_the_aec_env_asks_the_awaited_seats_round_the_table() -> None:
    aec = env("odyssey", 5, options={**SHORT, "first_storyteller": 2}, seed=1)
    aec.reset()
    asked = []
    for agent in aec.agent_iter():
        observation, _, termination, _, _ = aec.last()
        assert observation is not None
        if termination:
            aec.step(None)
            continue
        seat = aec.table.seat_of[agent]
        assert seat in aec.game.awaiting
        if aec.game.round == 1:
            asked.append(seat)
        aec.step(int(np.flatnonzero(observation["action_mask"])[0]))
    # the clue, then the plays and the votes from the storyteller's left
    assert asked == [2, 3, 4, 0, 1, 3, 4, 0, 1]


def test_with_illegal_raise_an_unavailable_move_is_refused_and_changes_nothing() -> None:
    aec = env("odyssey", 4, options=SHORT, seed=1, clues=CLUES, illegal="raise")
    aec.reset()
    before = aec.game.to_json()
    mask = aec.observe(aec.agent_selection)["action_mask"]
    with pytest.raises(ActionNotAvailable, match="not available"):
        aec.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ActionNotAvailable):
        aec.step(len(mask))
    with pytest.raises(ActionNotAvailable, match="A move is an id"):
        aec.step((0, "a clue beside an id that holds one"))
    free = env("odyssey", 4, options=SHORT, seed=1, illegal="raise")
    free.reset()
    with pytest.raises(ActionNotAvailable, match="A clue is text"):
        free.step((0, 5))
    assert aec.game.to_json() == before


def play_parallel(par: FabulaParallelEnv, seed: int) -> tuple[dict[str, float], int]:
    rng = np.random.default_rng(seed)
    observations, _ = par.reset()
    returns = dict.fromkeys(par.possible_agents, 0.0)
    steps = 0
    while par.agents:
        actions = {
            agent: int(rng.choice(np.flatnonzero(mask))) if (mask := observations[agent]["action_mask"]).any() else 0
            for agent in par.agents
        }
        observations, rewards, terminations, _, _ = par.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
        steps += 1
    assert all(terminations.values())
    return returns, steps


@pytest.mark.parametrize(("mode", "seats"), TABLES)
def test_the_parallel_env_plays_each_simultaneous_phase_in_one_step(mode: str, seats: int) -> None:
    par = parallel_env(mode, seats, options=SHORT, seed=9)
    returns, steps = play_parallel(par, 9)
    assert list(returns.values()) == par.game.scores
    # a clue, the plays, the votes: three steps a turn (party: one more for the red token when
    # the storyteller votes first; teams: more while partners only make offers)
    rounds = par.game.round
    if MODES[mode].red_token:
        assert rounds * 3 <= steps <= rounds * 4
    elif not MODES[mode].paired:
        assert steps == rounds * 3
    else:
        assert steps >= rounds * 3


def test_the_parallel_env_wants_every_awaited_seat_and_drops_a_moot_move() -> None:
    par = parallel_env("teams", 6, options={**SHORT, "first_storyteller": 0}, seed=1)
    observations, _ = par.reset()
    teller = "seat_0"
    with pytest.raises(ActionNotAvailable, match="waits for"):
        par.step({})
    observations, *_ = par.step({teller: int(np.flatnonzero(observations[teller]["action_mask"])[0])})
    # seats 1 and 4 are a team: both may put its card down; seat 1 moves first, seat 4's is moot
    play = {f"seat_{seat}": int(np.flatnonzero(observations[f"seat_{seat}"]["action_mask"])[0]) for seat in range(1, 6)}
    _, _, _, _, infos = par.step(play)
    assert "dropped" not in infos["seat_1"]
    assert infos["seat_4"]["dropped"] == play["seat_4"]
    assert par.game.played(1) is not None
    assert par.game.played(4) is None


def test_with_illegal_raise_a_parallel_step_with_one_refused_move_makes_none() -> None:
    par = parallel_env("odyssey", 5, options={**SHORT, "first_storyteller": 0}, seed=1, illegal="raise")
    par.reset()
    observations, *_ = par.step({"seat_0": (0, "Dawn")})
    before = par.game.to_json()
    moves: dict[str, Any] = {
        agent: int(np.flatnonzero(observations[agent]["action_mask"])[0]) for agent in ("seat_1", "seat_2", "seat_3")
    }
    moves["seat_4"] = 10_000  # seat 4 comes last: the three before it are not made either
    with pytest.raises(ActionNotAvailable):
        par.step(moves)
    assert par.game.to_json() == before
    teller = parallel_env("odyssey", 5, options={**SHORT, "first_storyteller": 0}, seed=1, illegal="raise")
    teller.reset()
    with pytest.raises(IllegalAction, match="empty"):
        teller.step({"seat_0": (0, "  ")})
    assert teller.game.clue is None


def illegal_id(observation: dict[str, Any]) -> int:
    return int(np.flatnonzero(observation["action_mask"] == 0)[0])


@pytest.mark.parametrize(
    "move",
    [
        pytest.param("masked", id="an-id-the-mask-refuses"),
        pytest.param(10_000, id="no-such-id"),
        pytest.param((0, "a clue beside an id that holds one"), id="not-a-move"),
    ],
)
def test_an_illegal_move_ends_the_episode_as_pettingzoos_terminate_illegal_wrapper_does(move: Any) -> None:
    # the oracle: PettingZoo's own wrapper round the env that raises
    ours = env("odyssey", 4, options=SHORT, seed=1, clues=CLUES)
    theirs = TerminateIllegalWrapper(env("odyssey", 4, options=SHORT, seed=1, clues=CLUES, illegal="raise"), -1)
    ours.reset()
    theirs.reset()
    for _ in range(2):  # (the clue, then a first play: ours moves on, then a seat moves illegally)
        observation, *_ = ours.last()
        assert observation is not None
        ours.step(int(np.flatnonzero(observation["action_mask"])[0]))
        shown = theirs.observe(theirs.agent_selection)
        assert shown is not None
        theirs.step(int(np.flatnonzero(shown["action_mask"])[0]))
    mover = ours.agent_selection
    before = ours.game.to_json()
    observation, *_ = ours.last()
    assert observation is not None
    made = illegal_id(observation) if move == "masked" else move
    # (the wrapper reads its mask at the move: give it an id the mask refuses)
    theirs.observe(theirs.agent_selection)
    theirs.step(illegal_id(observation))
    ours.step(made)
    assert ours.game.to_json() == before  # the move is not made
    seen: dict[str, tuple[float, bool]] = {}
    for agent in ours.agent_iter():
        last, reward, termination, truncation, info = ours.last()
        assert last is not None
        assert not last["action_mask"].any()  # nobody may move now
        seen[agent] = (reward, termination)
        assert ("illegal" in info) == (agent == mover)
        if agent == mover:
            assert re.search("not available|A move is an id", info["illegal"])
        assert not truncation
        ours.step(None)
    expected = {}
    for agent in theirs.agent_iter():
        _, reward, termination, _truncation, _ = theirs.last()
        expected[agent] = (reward, termination)
        theirs.step(None)
    assert seen == expected
    assert seen[mover] == (-1, True)
    assert next(iter(seen)) == mover  # the mover is told first
    assert ours.agents == []


def test_an_illegal_move_in_the_aec_env_says_why_and_the_penalty_is_set_by_illegal_reward() -> None:
    aec = env("odyssey", 4, options=SHORT, seed=1, illegal_reward=-10)
    aec.reset()
    teller = aec.agent_selection
    aec.step((0, "   "))  # a blank clue: the engine refuses it
    _, reward, termination, _, info = aec.last()
    assert (reward, termination) == (-10, True)
    assert "empty" in info["illegal"]
    assert aec.agent_selection == teller
    with pytest.raises(ValueError, match="illegal is one of 'terminate', 'raise'"):
        env("odyssey", 4, illegal="ignore")  # type: ignore[arg-type]


def test_an_illegal_move_in_a_parallel_step_ends_the_episode_and_makes_no_move() -> None:
    par = parallel_env("odyssey", 5, options={**SHORT, "first_storyteller": 0}, seed=1)
    par.reset()
    observations, *_ = par.step({"seat_0": (0, "Dawn")})
    before = par.game.to_json()
    moves: dict[str, Any] = {
        agent: int(np.flatnonzero(observations[agent]["action_mask"])[0]) for agent in ("seat_1", "seat_2")
    }
    moves["seat_3"] = illegal_id(observations["seat_3"])
    moves["seat_4"] = 10_000
    observations, rewards, terminations, truncations, infos = par.step(moves)
    assert par.game.to_json() == before  # none of the four is made
    assert rewards == {"seat_0": 0, "seat_1": 0, "seat_2": 0, "seat_3": -1, "seat_4": -1}
    assert all(terminations.values())
    assert not any(truncations.values())
    assert sorted(agent for agent, info in infos.items() if "illegal" in info) == ["seat_3", "seat_4"]
    assert "not available" in infos["seat_4"]["illegal"]
    assert not any(observation["action_mask"].any() for observation in observations.values())
    assert par.agents == []
    with pytest.raises(ActionNotAvailable, match="episode is over"):
        par.step(moves)
    par.reset()  # and a new episode plays
    assert par.agents == par.possible_agents
    assert par.step({"seat_0": (0, "  ")})[1]["seat_0"] == -1  # a blank clue: refused by the engine


def test_agent_iter_stops_after_max_iter_and_when_every_agent_has_left() -> None:
    aec = env("odyssey", 4, options={"storyteller_cycles": 1}, seed=8)
    aec.reset()

    def first_legal() -> int | None:
        observation, _reward, termination, truncation, _info = aec.last()
        assert observation is not None
        return None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0])

    asked = []
    for agent in aec.agent_iter(3):
        assert agent == aec.agent_selection
        asked.append(agent)
        aec.step(first_legal())
    assert len(asked) == 3
    assert asked[0] == f"seat_{aec.game.storyteller}"
    steps = 0
    for _agent in aec.agent_iter():
        aec.step(first_legal())
        steps += 1
    assert aec.agents == []
    assert aec.game.is_over
    assert steps > len(aec.possible_agents)  # (every seat stepped out once the game was over)
