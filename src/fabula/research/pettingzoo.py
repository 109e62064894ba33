"""Fabula as PettingZoo environments: `env` (AEC, one seat at a time) and `parallel_env`.

Agents are ``"seat_0"`` … ``"seat_{players-1}"``. Every mode and option of the engine is
available (``options`` as `fabula.rules.Options` takes them).

- **Who acts.** The engine's play and vote phases are simultaneous; the AEC env asks one seat
  at a time: the first seat the table waits for (`Game.awaiting`) after the seat that moved last,
  going round the table — so in seat order from the storyteller's left, and a teams member who
  made an offer lets the others speak before it is asked again. The parallel env asks every
  awaited seat at once and applies their moves in seat order; a move made moot by one before it
  (a teammate already put the team's card down) is dropped and named in that seat's info.
- **Spaces.** Actions: `fabula.research.actions` (the ids), `fabula.research.spaces` (Gymnasium:
  ``Discrete(n)`` with a clue vocabulary, ``(id, clue)`` with free-text clues). Observations:
  ``{"view", "cards", "action_mask"}`` (`fabula.research.observations`): exactly the seat's view,
  an `Observation` whose texts are written when first read (an agent that reads only the mask
  does not pay for them).
  A seat the table is not waiting for has an all-zero mask.
- **Rewards** are each round's points (`RoundResult.points`) when it is scored; the episode
  returns are the final scores. **Terminations** when the game is over; **truncations** never
  (every game ends: give small ``storyteller_cycles`` or ``target_score`` for short ones).
- **Randomness.** ``seed`` seeds the env's generator, which draws each game's seed at `reset`;
  ``reset(seed=s)`` reseeds it. The same seed gives the same games: ``env(seed=s)`` then
  ``reset()`` plays the game ``env()`` then ``reset(seed=s)`` plays (the game is dealt at
  `reset`, never when the env is made).
- **Order.** Nothing is dealt before the first `reset`: `step`, `observe`, `last`, `agent_iter`,
  `render` and `game` raise `NotReset` (PettingZoo's ``OrderEnforcingWrapper``'s refusal) until
  then — in the env itself, not only in a wrapper.
- **Illegal moves** follow PettingZoo's classic games (its ``TerminateIllegalWrapper``): a move
  the mask does not allow, one that is no move at all, or a clue the engine refuses ends the
  episode — every agent terminates, the mover's reward is ``illegal_reward`` (-1), the others'
  0, the mover's info says why (``info["illegal"]``), every mask is then all zero, and the game is
  left as it was before the move. A parallel step checks every move before it makes any: with one
  illegal move it makes none (each illegal mover gets the penalty). ``illegal="raise"`` raises
  instead — `ActionNotAvailable` (a `ValueError`) or `fabula.rules.IllegalAction` — and the game
  is unchanged, the episode goes on.
- **Opponents.** ``opponents={"seat_1": "hard", "seat_2": policy, …}`` seats built-in bots,
  bots, arena agent factories or policies (`fabula.research.opponents`) that the env plays
  itself whenever the table waits for them: its agents are the other seats, which see only their
  own turns; points scored during the opponents' moves are the agents' rewards at their next
  turn. In the AEC env the opponents move in `next_seat` order like any seat; in a parallel step,
  after the agents' moves. An opponent's illegal move raises `OpponentError`.
- **State.** ``state()`` is every seat's observation together (`fabula.research.state`: one JSON
  text, or with vectors a flat ``float32`` array), in ``state_space``: for centralised critics.

>>> import numpy as np
>>> aec = env(mode="odyssey", players=4, options={"storyteller_cycles": 1}, seed=1, clues=["Freedom"])
>>> aec.reset()
>>> rng, returns = np.random.default_rng(0), dict.fromkeys(aec.possible_agents, 0.0)
>>> for agent in aec.agent_iter():
...     observation, reward, termination, truncation, info = aec.last()
...     returns[agent] += reward
...     legal = np.flatnonzero(observation["action_mask"])
...     aec.step(None if termination or truncation else int(rng.choice(legal)))
>>> list(returns.values()) == aec.game.scores
True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.env import AECIterable

from fabula.rules import Action, Game, IllegalAction
from fabula.rules.state import GAME_OVER

from .actions import ActionNotAvailable, next_seat
from .observations import DeckLike, Observation, card_list
from .opponents import Opponent, OpponentError, Opponents, add_points
from .spaces import action_space, observation_space, vector_space
from .state import state_space, table_state
from .table import Move, NotReset, Table

__all__ = [
    "ILLEGAL_CHOICES",
    "FabulaAECEnv",
    "FabulaParallelEnv",
    "Illegal",
    "NotReset",
    "Opponent",
    "OpponentError",
    "Table",
    "env",
    "parallel_env",
]

#: What an illegal move does (module docstring): end the episode with a penalty, or raise.
Illegal = Literal["terminate", "raise"]
ILLEGAL_CHOICES: tuple[Illegal, ...] = ("terminate", "raise")

#: A move the env refuses: one the mask does not allow (or no move at all), a clue the engine refuses.
_REFUSALS = (ActionNotAvailable, IllegalAction)


class _TableEnv:
    """What the AEC and the parallel environment share: the table, the agents and their spaces,
    the game, rendering."""

    def __init__(
        self,
        mode: str = "odyssey",
        players: int = 6,
        *,
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
        deck: DeckLike = None,
        clues: Sequence[str] | None = None,
        render_mode: str | None = None,
        illegal: Illegal = "terminate",
        illegal_reward: float = -1.0,
        observations: str = "text",
        opponents: Mapping[str, Opponent] | None = None,
    ) -> None:
        if illegal not in ILLEGAL_CHOICES:
            raise ValueError(f"illegal is one of {', '.join(map(repr, ILLEGAL_CHOICES))}; got {illegal!r}.")
        self.table = Table(mode, players, options=options, seed=seed, deck=deck, clues=clues, observations=observations)
        self.render_mode = render_mode
        #: whether an illegal move raises (``illegal="raise"``) rather than ends the episode
        self.raises = illegal == "raise"
        self.illegal_reward = float(illegal_reward)
        #: the seats the env plays itself (`fabula.research.opponents`), or None
        self.opponents = Opponents(self.table, opponents, card_list(deck)) if opponents else None
        self.possible_agents = list(self.table.agents if self.opponents is None else self.opponents.learners)
        self.agents = list(self.possible_agents)
        self.observation_spaces: dict[str, spaces.Space[Any]] = {
            a: observation_space(self.table.space)
            if self.table.vectors is None
            else vector_space(self.table.space, self.table.vectors[0])
            for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: action_space(self.table.space) for a in self.possible_agents
        }
        #: the space of `state`
        self.state_space = state_space(self.table)

    @property
    def game(self) -> Game:
        """The game being played (all of it, secrets included: for tests and analysis, not agents);
        `NotReset` before the first `reset`."""
        if not self.table.dealt:
            raise NotReset("game")
        return self.table.game

    def _deal(self, seed: int | None) -> None:
        """Deal a new game (``seed`` as `reset`'s); with opponents, they move until the table waits
        for a learner."""
        self.table.reset(seed)
        if self.opponents is not None:
            self.opponents.deal()
            scored = self.opponents.settle()
            # (every seat moves in every round — tells, plays or votes — so no round is over
            # before the learners' first move)
            assert scored is None, "a round was scored before any learner moved"

    def state(self) -> Any:
        """The whole table now, every seat's observation together (`fabula.research.state`): a JSON
        text, or with ``observations="vector"`` a ``float32`` array; `NotReset` before `reset`."""
        if not self.table.dealt:
            raise NotReset("state")
        return table_state(self.table)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def render(self) -> str | None:
        if not self.table.dealt:
            raise NotReset("render")
        return self.table.render() if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass


class FabulaAECEnv(_TableEnv, AECEnv[str, dict[str, Any], Move | None]):
    """The AEC environment (module docstring); make one with `env`."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo's own declaration
        "name": "fabula_dixit_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": True,
    }

    def _start(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rewarded = False
        # the first seat the table waits for (with opponents: the first learner it waits for)
        opponents = self.opponents
        first = next(seat for seat in self.game.awaiting if opponents is None or seat not in opponents.seats)
        self.agent_selection = self.table.agents[first]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` reseeds the env's generator; ``options`` is not used (the game's
        options are the env's: make another env for others)."""
        del options
        self._deal(seed)
        self._start()

    def observe(self, agent: str) -> Observation:
        if not self.table.dealt:
            raise NotReset("observe")
        if agent not in self.observation_spaces:
            raise ValueError(f"{agent!r} is no agent of this env (its agents: {self.possible_agents}).")
        return self.table.observe(self.table.seat_of[agent])

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable[str, dict[str, Any], Move | None]:
        """`AECEnv.agent_iter`, its iterator a generator (PettingZoo's costs twice as much a move)."""
        if not self.table.dealt:
            raise NotReset("agent_iter()")
        return _AgentIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[dict[str, Any] | None, float, bool, bool, dict[str, Any]]:
        """`AECEnv.last`, with the observation asked of the table directly (one call less a move)."""
        try:
            agent = self.agent_selection
        except AttributeError:  # (set by the first reset: no check a move)
            raise NotReset("last") from None
        table = self.table
        return (
            table.observe(table.seat_of[agent]) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Move | None) -> None:
        try:
            agent = self.agent_selection
        except AttributeError:  # (set by the first reset: no check a move)
            raise NotReset("step") from None
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        seat = table.seat_of[agent]
        try:
            events = table.game.apply(table._action(seat, action))  # (`Table.apply`, one call less)
        except _REFUSALS as refusal:
            if self.raises:
                raise
            self._end_illegally(agent, refusal)
            return
        self._cumulative_rewards[agent] = 0
        points = None if len(events) == 1 else table.points(events)  # (one event: nothing scored)
        game = table.game
        following = None if game.phase is GAME_OVER else next_seat(game, seat)
        opponents = self.opponents
        if opponents is not None and following in opponents.seats:  # they move until a learner's turn
            following, more = opponents.play_turns(following)
            points = add_points(points, more)
        if points is not None:
            self._reward(points)
        elif self._rewarded:  # the last step's points are not this one's
            rewards = self.rewards
            for other in rewards:
                rewards[other] = 0
        self._rewarded = points is not None
        if following is None:  # the game is over
            self.terminations = dict.fromkeys(self.agents, True)
            agents = self.agents
            self.agent_selection = agents[(agents.index(agent) + 1) % len(agents)]
        else:
            self.agent_selection = table.agents[following]
        if points is not None:  # (otherwise every reward is 0: nothing to add)
            self._accumulate_rewards()

    def _reward(self, points: list[int]) -> None:
        """Each agent's reward: its points, by seat (an opponent's are nobody's reward)."""
        rewards, seat_of = self.rewards, self.table.seat_of
        for other in rewards:
            rewards[other] = points[seat_of[other]]

    def _end_illegally(self, agent: str, refusal: Exception) -> None:
        """End the episode on ``agent``'s illegal move, as PettingZoo's ``TerminateIllegalWrapper``
        does: the mover's reward `illegal_reward`, the others' 0, every agent terminated; the mover
        is asked first (its penalty and ``info["illegal"]``), then round the table."""
        self.table.end()
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        self._rewarded = True
        self._accumulate_rewards()
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent] = {**self.infos[agent], "illegal": str(refusal)}
        self.agent_selection = agent


class _AgentIterable(AECIterable[str, dict[str, Any], Move | None]):
    def __init__(self, env: FabulaAECEnv, max_iter: int) -> None:
        self.env, self.max_iter = env, max_iter

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]  # (a generator, not an AECIterator)
        env, left = self.env, self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection


class FabulaParallelEnv(_TableEnv, ParallelEnv[str, dict[str, Any], Move]):
    """The parallel environment (module docstring); make one with `parallel_env`."""

    metadata: dict[str, Any] = {"name": "fabula_dixit_v0", "render_modes": ["ansi"]}  # noqa: RUF012 - as PettingZoo declares it

    def _observations(self) -> dict[str, dict[str, Any]]:
        table = self.table
        return {agent: table.observe(table.seat_of[agent]) for agent in self.possible_agents}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """A new game (``seed`` as in the AEC env; ``options`` not used)."""
        del options
        self._deal(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {agent: {} for agent in self.agents}

    def step(
        self, actions: Mapping[str, Move]
    ) -> tuple[
        dict[str, dict[str, Any]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Every awaited seat's move at once (the others' are ignored: their masks are all zero),
        then the opponents' (`Opponents.settle`). `ActionNotAvailable` when an awaited seat has no
        move in ``actions``."""
        table = self.table
        if not table.dealt:
            raise NotReset("step")
        game = table.game
        if game.phase is GAME_OVER or table.ended:
            raise ActionNotAvailable("The episode is over: reset the env.")
        awaiting, phase, opponents = game.awaiting, game.phase, self.opponents
        if opponents is not None:  # (they move after the learners)
            awaiting = tuple(seat for seat in awaiting if seat not in opponents.seats)
        missing = [table.agents[seat] for seat in awaiting if table.agents[seat] not in actions]
        if missing:
            raise ActionNotAvailable(f"The table waits for {missing}: give their moves too.")
        # Every move is checked before any is made, so that a refusal changes nothing. (The masks
        # stay those of the step's start while its moves are made: a move in a simultaneous
        # phase changes no other seat's choices, only, in teams, whether its partner still plays.)
        rewards = dict.fromkeys(self.agents, 0.0)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        checked: dict[int, Action] = {}
        for seat in awaiting:
            try:
                checked[seat] = table.check(seat, actions[table.agents[seat]])
            except _REFUSALS as refusal:
                if self.raises:
                    raise
                rewards[table.agents[seat]] = self.illegal_reward
                infos[table.agents[seat]]["illegal"] = str(refusal)
        if len(checked) < len(awaiting):  # an illegal move: the episode ends, no move is made
            table.end()
            return self._end(rewards, infos)
        for seat in awaiting:
            agent = table.agents[seat]
            if game.phase is not phase or seat not in game.awaiting:
                # a teammate put the team's card down first (or the phase is complete)
                infos[agent]["dropped"] = actions[agent]
                continue
            self._add(rewards, table.points(game.apply(checked[seat])))
        if opponents is not None and not game.is_over:
            self._add(rewards, opponents.settle())
        if game.is_over:
            return self._end(rewards, infos)
        return (
            self._observations(),
            rewards,
            dict.fromkeys(self.agents, False),
            dict.fromkeys(self.agents, False),
            infos,
        )

    def _add(self, rewards: dict[str, float], points: list[int] | None) -> None:
        """Add points, by seat, to the agents' rewards (an opponent's are nobody's reward)."""
        if points is not None:
            seat_of = self.table.seat_of
            for agent in rewards:
                rewards[agent] += points[seat_of[agent]]

    def _end(
        self, rewards: dict[str, float], infos: dict[str, dict[str, Any]]
    ) -> tuple[
        dict[str, dict[str, Any]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """The last step's answer: every agent terminated, and gone."""
        terminations = dict.fromkeys(self.agents, True)
        truncations = dict.fromkeys(self.agents, False)
        observations = self._observations()
        self.agents = []
        return observations, rewards, terminations, truncations, infos


def env(
    mode: str = "odyssey",
    players: int = 6,
    *,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    deck: DeckLike = None,
    clues: Sequence[str] | None = None,
    render_mode: str | None = None,
    illegal: Illegal = "terminate",
    illegal_reward: float = -1.0,
    observations: str = "text",
    opponents: Mapping[str, Opponent] | None = None,
) -> FabulaAECEnv:
    """The AEC environment of one table (module docstring). ``deck``: the original deck if
    ``None`` (`fabula.research.observations.DeckLike`); ``clues``: a clue vocabulary, or ``None``
    for free-text clues; ``illegal``: ``"terminate"`` (an illegal move ends the episode, the mover
    rewarded ``illegal_reward``) or ``"raise"``; ``observations``: ``"text"`` (the default: exactly the
    seat's view, what a language model reads) or ``"vector"`` (``Dict(observation=Box(float32),
    action_mask=Box(int8))``, `fabula.research.vectors`; needs ``clues``); ``opponents``: the seats the
    env plays itself, by name — a bot level, a bot, an arena agent factory or a policy
    (`fabula.research.opponents`) — which are then no agents of the env."""
    return FabulaAECEnv(
        mode,
        players,
        options=options,
        seed=seed,
        deck=deck,
        clues=clues,
        render_mode=render_mode,
        illegal=illegal,
        illegal_reward=illegal_reward,
        observations=observations,
        opponents=opponents,
    )


def parallel_env(
    mode: str = "odyssey",
    players: int = 6,
    *,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    deck: DeckLike = None,
    clues: Sequence[str] | None = None,
    render_mode: str | None = None,
    illegal: Illegal = "terminate",
    illegal_reward: float = -1.0,
    observations: str = "text",
    opponents: Mapping[str, Opponent] | None = None,
) -> FabulaParallelEnv:
    """The parallel environment of one table (arguments as `env`)."""
    return FabulaParallelEnv(
        mode,
        players,
        options=options,
        seed=seed,
        deck=deck,
        clues=clues,
        render_mode=render_mode,
        illegal=illegal,
        illegal_reward=illegal_reward,
        observations=observations,
        opponents=opponents,
    )
