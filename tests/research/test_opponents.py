"""Opponents inside the envs (``opponents={...}``): the learners see only their own turns, whole
games finish in every kind of table with both kinds of observation, the rewards add up to the
learners' scores, a seed replays the bots' choices too, and the mistakes are refused clearly."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import json  # noqa: E402 - after the check that the extra is there
import random  # noqa: E402
from collections.abc import Mapping, Sequence  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from fabula.bots.arena import SeatContext  # noqa: E402
from fabula.bots.base import RandomBot  # noqa: E402
from fabula.research.observations import Observation  # noqa: E402
from fabula.research.opponents import Opponent, OpponentError  # noqa: E402
from fabula.research.pettingzoo import FabulaAECEnv, FabulaParallelEnv, env, parallel_env  # noqa: E402
from fabula.rules import Action, Phase, Propose, Vote  # noqa: E402

from .pettingzoo_tests import BY_DESIGN, api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

pytestmark = BY_DESIGN

from .games import SHORT  # noqa: E402

CLUES = ["Freedom", "Dream", "Journey"]
TABLES = [("odyssey", 3), ("odyssey", 4), ("odyssey", 7), ("party", 6), ("teams", 6)]


class RandomPolicy:
    """A policy (observation, agent) -> id: a random id of the mask; it keeps what it was shown."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls: list[tuple[str, Any]] = []

    def __call__(self, observation: Any, agent: str) -> int:
        self.calls.append((agent, observation))
        assert observation["action_mask"].any(), f"{agent} asked to move with no move"
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


def random_bot(context: SeatContext) -> RandomBot:
    """An arena agent factory: a random bot with the seat's derived rng."""
    return RandomBot(context.rng)


def mixed(players: int, policy: RandomPolicy) -> dict[str, Opponent]:
    """Every kind of opponent at seats 1 … players-2 (seat 0 and the last seat are learners)."""
    kinds: list[Opponent] = ["hard", policy, "random", RandomBot(random.Random(3)), random_bot, "easy", "normal"]
    return {f"seat_{seat}": kinds[(seat - 1) % len(kinds)] for seat in range(1, players - 1)}


def learner_episode(aec: FabulaAECEnv, seed: int) -> tuple[dict[str, float], list[str]]:
    """One game, the learners choosing random legal ids: their summed rewards and who was asked."""
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(aec.possible_agents, 0.0)
    asked = []
    for agent in aec.agent_iter():
        observation, reward, termination, truncation, _ = aec.last()
        assert observation is not None
        returns[agent] += reward
        if termination or truncation:
            aec.step(None)
            continue
        asked.append(agent)
        aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return returns, asked


def parallel_episode(par: FabulaParallelEnv, seed: int) -> tuple[dict[str, float], int]:
    """One game in the parallel env, the learners choosing random legal ids: their summed rewards
    and the number of steps; every step's observations are the learners' and wait for one of them."""
    rng = np.random.default_rng(seed)
    observations, _ = par.reset()
    returns = dict.fromkeys(par.possible_agents, 0.0)
    steps = 0
    while par.agents:
        assert set(observations) == set(par.possible_agents)
        moving = {agent: o["action_mask"] for agent, o in observations.items() if o["action_mask"].any()}
        assert moving, "a step in which no learner has a move"
        observations, rewards, terminations, _, _ = par.step(
            {agent: int(rng.choice(np.flatnonzero(mask))) for agent, mask in moving.items()}
        )
        assert set(rewards) == set(par.possible_agents)
        for agent, reward in rewards.items():
            returns[agent] += reward
        steps += 1
    assert all(terminations.values())
    return returns, steps


def seats_of(log: Sequence[Action], agents: Sequence[str]) -> list[Action]:
    wanted = {int(agent.removeprefix("seat_")) for agent in agents}
    return [action for action in log if action.seat in wanted]


def test_the_aec_learner_sees_only_its_own_turns() -> None:
    policy = RandomPolicy(1)
    aec = env("odyssey", 5, options=SHORT, seed=2, clues=CLUES, opponents=mixed(5, policy))
    assert aec.possible_agents == ["seat_0", "seat_4"]
    assert set(aec.observation_spaces) == set(aec.action_spaces) == {"seat_0", "seat_4"}
    aec.reset()
    rng = np.random.default_rng(0)
    asked = 0
    for agent in aec.agent_iter():
        assert agent in ("seat_0", "seat_4")
        observation, _, termination, _, _ = aec.last()
        assert observation is not None
        if termination:
            aec.step(None)
            continue
        # it is this learner's turn: the table waits for it, its mask has moves
        assert int(agent.removeprefix("seat_")) in aec.game.awaiting
        assert observation["action_mask"].any()
        asked += 1
        aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    log = aec.game.log
    assert aec.game.phase is Phase.OVER
    assert asked == len(seats_of(log, ["seat_0", "seat_4"]))  # each learner move was one turn shown
    assert len(seats_of(log, ["seat_1", "seat_2", "seat_3"])) == len(log) - asked > 0
    # the policy was asked exactly its seat's moves, with its seat's observation and name
    assert len(policy.calls) == len(seats_of(log, ["seat_2"]))
    assert all(agent == "seat_2" and isinstance(o, Observation) and o["action_mask"].any() for agent, o in policy.calls)
    with pytest.raises(ValueError, match="seat_1"):
        aec.observe("seat_1")


def test_the_parallel_learners_see_only_their_own_turns() -> None:
    policy = RandomPolicy(1)
    # teams of six: (0, 3), (1, 4), (2, 5) — a team of two opponents, the policy one of them
    opponents: dict[str, Opponent] = {"seat_1": "hard", "seat_4": policy, "seat_2": "random", "seat_3": random_bot}
    par = parallel_env("teams", 6, options=SHORT, seed=2, clues=CLUES, opponents=opponents)
    assert par.possible_agents == ["seat_0", "seat_5"]
    returns, steps = parallel_episode(par, 4)
    log = par.game.log
    assert par.game.phase is Phase.OVER
    assert list(returns.values()) == [par.game.scores[0], par.game.scores[5]]
    assert 0 < steps <= len(seats_of(log, ["seat_0", "seat_5"]))  # no step without a learner's move
    assert len(policy.calls) == len(seats_of(log, ["seat_4"])) > 0
    assert all(agent == "seat_4" for agent, _ in policy.calls)


@pytest.mark.parametrize(("mode", "players"), TABLES)
@pytest.mark.parametrize("observations", ["text", "vector"])
def test_whole_games_finish_and_the_rewards_add_up_to_the_learners_scores(
    mode: str, players: int, observations: str
) -> None:
    policy = RandomPolicy(5)
    opponents = mixed(players, policy) if players > 3 else {"seat_1": "hard"}
    aec = env(mode, players, options=SHORT, seed=6, clues=CLUES, observations=observations, opponents=opponents)
    aec.reset()
    returns, asked = learner_episode(aec, 7)
    game = aec.game
    assert game.phase is Phase.OVER
    assert returns == {agent: float(game.scores[aec.table.seat_of[agent]]) for agent in aec.possible_agents}
    assert set(asked) == set(aec.possible_agents)
    assert aec.agents == []
    par = parallel_env(
        mode, players, options=SHORT, seed=6, clues=CLUES, observations=observations, opponents=opponents
    )
    returns, _ = parallel_episode(par, 7)
    assert par.game.phase is Phase.OVER
    assert returns == {agent: float(par.game.scores[par.table.seat_of[agent]]) for agent in par.possible_agents}
    if observations == "vector" and players > 3:
        assert "observation" in policy.calls[-1][1]  # the policy is given what the env gives a learner


def test_points_scored_during_the_opponents_moves_are_the_learner_s_at_its_next_turn() -> None:
    # seat_0 tells in round 1 and neither plays nor votes in it: the round is scored during the
    # opponents' moves, and the learner is told its points at its next turn (round 2's play)
    scored = 0
    for seed in range(12):
        options = {**SHORT, "first_storyteller": 0}
        aec = env(
            "odyssey", 3, options=options, seed=seed, clues=CLUES, opponents={"seat_1": "normal", "seat_2": "random"}
        )
        aec.reset()
        assert aec.agent_selection == "seat_0"
        assert aec.last()[1] == 0
        aec.step(int(np.flatnonzero(aec.observe("seat_0")["action_mask"])[0]))
        assert aec.game.round == 2
        assert aec.agent_selection == "seat_0"
        assert aec.last()[1] == aec.rewards["seat_0"] == aec.game.scores[0]
        scored += aec.game.scores[0] > 0
        par = parallel_env(
            "odyssey", 3, options=options, seed=seed, clues=CLUES, opponents={"seat_1": "normal", "seat_2": "random"}
        )
        observations, _ = par.reset()
        _, rewards, _, _, _ = par.step({"seat_0": int(np.flatnonzero(observations["seat_0"]["action_mask"])[0])})
        assert par.game.round == 2
        assert rewards == {"seat_0": par.game.scores[0]}
    assert scored > 0  # (some storyteller turns score)


def test_a_seed_replays_the_bots_choices() -> None:
    def make(seed: int | None = None) -> FabulaAECEnv:
        opponents: dict[str, Opponent] = {"seat_1": "hard", "seat_2": random_bot, "seat_3": "normal"}
        return env("odyssey", 5, options=SHORT, seed=seed, clues=CLUES, opponents=opponents)

    first, second, reseeded = make(11), make(11), make()
    first.reset()
    second.reset()
    reseeded.reset(seed=11)
    logs = []
    for aec in (first, second, reseeded):
        learner_episode(aec, 1)
        logs.append([action.to_json() for action in aec.game.log])
    assert logs[0] == logs[1] == logs[2]
    first.reset(seed=12)
    learner_episode(first, 1)
    assert [action.to_json() for action in first.game.log] != logs[0]
    # the same learner moves, another seed for the bots alone: their choices differ
    assert [a.to_json() for a in seats_of(first.game.log, ["seat_1", "seat_2", "seat_3"])] != [
        a.to_json() for a in seats_of(second.game.log, ["seat_1", "seat_2", "seat_3"])
    ]
    seed_test(lambda: make(3), num_cycles=200)
    parallel_seed_test(
        lambda: parallel_env(
            "party", 6, options=SHORT, seed=3, clues=CLUES, opponents={"seat_1": "easy", "seat_4": random_bot}
        )
    )


def test_a_factory_gets_the_seat_s_context_with_an_rng_derived_from_the_game_s_seed() -> None:
    contexts: list[tuple[SeatContext, object]] = []

    def factory(context: SeatContext) -> RandomBot:
        contexts.append((context, context.rng.getstate()))
        return RandomBot(context.rng)

    aec = env("odyssey", 4, options=SHORT, seed=1, clues=CLUES, opponents={"seat_2": factory})
    for game in (1, 2):
        aec.reset()
        assert len(contexts) == game  # a new player each game
        context, state = contexts[-1]
        assert (context.game, context.seat, context.language) == (game, 2, "en")
        assert "fabula-01" in context.cards
        assert state == random.Random(f"{aec.game.seed}/bot/2").getstate()  # as the arena derives it
        learner_episode(aec, game)
    assert contexts[0][1] != contexts[1][1]


def test_a_searching_player_plays_as_an_opponent() -> None:
    from fabula.research.search import search_player

    aec = env("odyssey", 3, options=SHORT, seed=1, clues=CLUES, opponents={"seat_1": search_player("mcts", 4)})
    aec.reset()
    returns, _ = learner_episode(aec, 1)
    assert aec.game.phase is Phase.OVER
    assert returns == {"seat_0": aec.game.scores[0], "seat_2": aec.game.scores[2]}


def test_pettingzoo_s_own_tests_pass_with_opponents() -> None:
    opponents: Mapping[str, Opponent] = {
        "seat_1": "hard",
        "seat_3": RandomBot(random.Random(1)),
        "seat_5": RandomPolicy(2),
    }
    api_test(env("odyssey", 7, options=SHORT, seed=1, clues=CLUES, opponents=opponents), num_cycles=300)
    parallel_api_test(parallel_env("teams", 6, options=SHORT, seed=1, opponents=opponents), num_cycles=300)
    vector: dict[str, Opponent] = {"seat_0": "normal", "seat_2": random_bot}
    api_test(
        env("party", 6, options=SHORT, seed=2, clues=CLUES, observations="vector", opponents=vector), num_cycles=300
    )
    parallel_api_test(
        parallel_env("odyssey", 4, options=SHORT, seed=2, clues=CLUES, observations="vector", opponents=vector)
    )


def three_arguments(observation: Any, agent: str, more: int) -> int:
    """Neither a factory (one argument) nor a policy (two)."""
    return len(agent) + more + len(observation)


@pytest.mark.parametrize(
    ("opponents", "message"),
    [
        ({"seat_9": "hard"}, r"no such seat: \['seat_9'\]"),
        ({"player_1": "hard"}, "no such seat"),
        ({"seat_1": "expert"}, r"opponents\['seat_1'\]: unknown bot level 'expert'; the levels are random, easy"),
        ({f"seat_{seat}": "random" for seat in range(4)}, "every seat"),
        ({"seat_1": RandomBot}, "is the class RandomBot: give a bot object"),
        ({"seat_1": three_arguments}, "takes neither one argument"),
        ({"seat_1": 3}, "is not a bot level, a bot"),
    ],
)
def test_mistakes_are_refused_when_the_env_is_made(opponents: dict[str, Any], message: str) -> None:
    for make in (env, parallel_env):
        with pytest.raises(ValueError, match=message):
            make("odyssey", 4, clues=CLUES, opponents=opponents)


def test_an_opponent_s_illegal_move_raises_naming_the_seat() -> None:
    def never_legal(observation: Any, agent: str) -> int:
        del agent
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    class VotesForItself:
        def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
            if type(legal[0]) is Vote:
                own = next(slot["slot"] for slot in view["table"] if slot["yours"])
                return Vote(view["seat"], (own,))
            return RandomBot(random.Random(0)).choose(view, legal)

    cases: list[tuple[dict[str, Opponent], str, str]] = [
        ({"seat_2": never_legal}, "seat_2", "never_legal"),
        ({"seat_1": VotesForItself()}, "seat_1", "VotesForItself"),
    ]
    for opponents, seat, label in cases:
        aec = env("odyssey", 4, options=SHORT, seed=1, clues=CLUES, opponents=opponents)
        aec.reset()
        with pytest.raises(OpponentError, match=f"opponent {seat} \\({label}\\) made an illegal move") as raised:
            learner_episode(aec, 1)
        assert raised.value.agent == seat
        assert not any(aec.terminations.values())  # no learner was penalised: the episode did not end
        assert all(reward == 0 for reward in aec.rewards.values())
        par = parallel_env("odyssey", 4, options=SHORT, seed=1, clues=CLUES, opponents=opponents)
        with pytest.raises(OpponentError, match=f"opponent {seat}"):
            parallel_episode(par, 1)


def test_with_free_text_clues_a_policy_may_give_its_own_clue() -> None:
    def teller(observation: Any, agent: str) -> Any:
        del agent
        id = int(np.flatnonzero(observation["action_mask"])[0])
        return (id, "Moonlight") if json.loads(observation["view"])["phase"] == "clue" else id

    aec = env("odyssey", 3, options={**SHORT, "first_storyteller": 1}, seed=1, opponents={"seat_1": teller})
    aec.reset()
    assert aec.game.clue == "Moonlight"
    learner_episode(aec, 2)
    assert aec.game.phase is Phase.OVER


def test_opponents_that_never_settle_a_round_are_stopped_naming_one() -> None:
    class AlwaysOffers:
        """A teams player that only ever offers its teammate a card (when it may)."""

        def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
            offers = [move for move in legal if type(move) is Propose]
            return offers[0] if offers else RandomBot(random.Random(0)).choose(view, legal)

    # teams of six: (0, 3), (1, 4), (2, 5); seats 1 and 4 offer each other cards for ever
    opponents: dict[str, Opponent] = {"seat_1": AlwaysOffers(), "seat_4": AlwaysOffers()}
    aec = env("teams", 6, options={**SHORT, "first_storyteller": 0}, seed=1, clues=CLUES, opponents=opponents)
    aec.reset()
    with pytest.raises(OpponentError, match=r"opponent seat_[14] \(AlwaysOffers\).*over 300 moves in round 1"):
        learner_episode(aec, 1)
