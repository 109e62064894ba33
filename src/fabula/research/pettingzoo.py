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

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.env import AECIterable

from fabula.rules import Action, BlindClue, Game, IllegalAction, Tell, clean_clue
from fabula.rules.events import Event, RoundScored
from fabula.rules.state import GAME_OVER

from .actions import ActionNotAvailable, ActionSpace, next_seat
from .observations import CardTexts, DeckLike, Observation, SeatObserver
from .spaces import action_space, observation_space

_pending = Observation.pending  # (a module global: one attribute lookup less a move)

__all__ = [
    "ILLEGAL_CHOICES",
    "FabulaAECEnv",
    "FabulaParallelEnv",
    "Illegal",
    "NotReset",
    "Table",
    "env",
    "parallel_env",
]

#: A move as the envs take it: an id, or with free-text clues ``(id, clue)`` (a bare id then
#: tells `fabula.research.actions.DEFAULT_CLUE`).
Move = int | np.integer[Any] | tuple[Any, str] | Sequence[Any]

#: What an illegal move does (module docstring): end the episode with a penalty, or raise.
Illegal = Literal["terminate", "raise"]
ILLEGAL_CHOICES: tuple[Illegal, ...] = ("terminate", "raise")

#: A move the env refuses: one the mask does not allow (or no move at all), a clue the engine refuses.
_REFUSALS = (ActionNotAvailable, IllegalAction)


class NotReset(AssertionError):
    """A call that needs a game before `reset` dealt one (`step`, `observe`, `last`, `agent_iter`,
    `render`, `game`). An `AssertionError` with PettingZoo's message, as its
    ``OrderEnforcingWrapper`` raises: code that catches the wrapper's refusal catches this one."""

    def __init__(self, call: str) -> None:
        super().__init__(f"reset() needs to be called before {call}: the env deals its first game at reset().")


class Table:
    """What both envs share: the settings, the action space, the card texts, the seeded generator,
    and the game being played with each seat's observation of its current state."""

    def __init__(
        self,
        mode: str,
        players: int,
        *,
        options: Mapping[str, Any] | None,
        seed: int | None,
        deck: DeckLike,
        clues: Sequence[str] | None,
    ) -> None:
        self.mode, self.players, self.options = mode, players, dict(options or {})
        self.space = ActionSpace.create(mode, players, self.options, clues)
        self.texts = CardTexts.of(deck)
        self._texts = SeatObserver(self.texts)
        self.rng = np.random.default_rng(seed)
        self.agents = [f"seat_{seat}" for seat in range(players)]
        self.seat_of = {agent: seat for seat, agent in enumerate(self.agents)}
        # A game is dealt at `reset`, never here, so that ``seed=s`` then ``reset()`` deals the
        # game ``reset(seed=s)`` deals; one dealt apart (its generator untouched) refuses a deck
        # too small now rather than at the first reset.
        Game.new(mode, players, options=self.options, seed=0, deck=self.texts.ids)
        # each seat's last observation: (moves then, the observation, its legal ids)
        self._observed: list[tuple[int, Observation, tuple[int, ...]] | None] = [None] * players
        #: whether an illegal move ended the episode (the game then stays as it was: no seat may move)
        self.ended = False

    #: the game being played: there is none before the first `reset`
    game: Game

    @property
    def dealt(self) -> bool:
        """Whether `reset` has dealt a game."""
        return hasattr(self, "game")

    def _deal(self) -> Game:
        game_seed = int(self.rng.integers(0, 2**63))
        return Game.new(self.mode, self.players, options=self.options, seed=game_seed, deck=self.texts.ids)

    def reset(self, seed: int | None) -> None:
        """Deal a new game: the next of the generator's, or with ``seed`` the first of a generator
        seeded anew."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.game = self._deal()
        self._observed = [None] * self.players
        self.ended = False

    def end(self) -> None:
        """End the episode where the game stands (an illegal move): every mask is all zero from now."""
        self.ended = True
        self._observed = [None] * self.players

    def observe(self, seat: int) -> Observation:
        """The seat's observation of the game as it is, made once per state (`last`, then
        `step`'s check of the mask, ask for it twice). Its texts are written when first read
        (`Observation`)."""
        game = self.game
        moves = len(game.log)
        found = self._observed[seat]
        if found is not None and found[0] == moves:
            return found[1]
        awaiting = game.awaiting  # (read once for both)
        ids, mask = self.space.legal_with_mask(game, seat, () if self.ended else awaiting)
        texts = self._texts
        observation = _pending(texts.texts_of, texts.capture(game, seat, awaiting), mask)
        self._observed[seat] = (moves, observation, ids)
        return observation

    def apply(self, seat: int, move: Any) -> list[Event]:
        """Apply ``seat``'s move; `ActionNotAvailable` (the game unchanged) unless its mask allows
        it, `fabula.rules.IllegalAction` (likewise) for a clue the engine refuses."""
        return self.game.apply(self._action(seat, move))  # (the engine checks the clue itself)

    def check(self, seat: int, move: Any) -> Action:
        """The engine action of ``seat``'s move, or the refusal `apply` would raise (a clue is
        checked as the engine will check it, so that a parallel step can refuse before any move)."""
        action = self._action(seat, move)
        if type(action) is Tell or type(action) is BlindClue:
            clean_clue(action.clue)
        return action

    def _action(self, seat: int, move: Any) -> Action:
        """The engine action of ``seat``'s move if its mask allows it (its clue unchecked)."""
        if type(move) is int:  # (the common case, first)
            id, clue = move, None
        else:
            id, clue = self.split(move)
        game = self.game
        found = self._observed[seat]  # (the moves the seat was shown, if it was shown this state)
        ids = found[2] if found is not None and found[0] == len(game.log) else self.space.legal(game, seat)
        if id not in ids:
            raise ActionNotAvailable(
                f"Move {id} ({self._name(id)}) is not available to seat_{seat} now; its mask allows {list(ids)}."
            )
        return self.space.decode(game, seat, id, clue)

    def _name(self, id: int) -> str:
        try:
            return self.space.describe(id)
        except ActionNotAvailable:
            return "no such move"

    def split(self, move: Any) -> tuple[int, str | None]:
        """A move's id and free-text clue (``None``: none given)."""
        if isinstance(move, int | np.integer):
            return int(move), None
        pair = isinstance(move, tuple | list) and len(move) == 2 and isinstance(move[0], int | np.integer)
        if pair and self.space.free_text:
            clue = move[1]
            if not isinstance(clue, str):
                raise ActionNotAvailable(f"A clue is text; got {clue!r}.")
            return int(move[0]), clue
        raise ActionNotAvailable(f"A move is an id{' or (id, clue)' if self.space.free_text else ''}; got {move!r}.")

    def points(self, events: list[Event]) -> list[int] | None:
        """The points of the round these events scored, by seat, if they scored one."""
        for event in events:
            if type(event) is RoundScored:
                return list(event.result.points)
        return None

    def render(self) -> str:
        game = self.game
        clue = "" if game.clue is None else f" clue {game.clue!r}"
        return (
            f"{game.mode} round {game.round} {game.phase.value}: storyteller seat_{game.storyteller}{clue}, "
            f"awaiting {[f'seat_{s}' for s in game.awaiting]}, scores {game.scores}"
        )


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
    ) -> None:
        if illegal not in ILLEGAL_CHOICES:
            raise ValueError(f"illegal is one of {', '.join(map(repr, ILLEGAL_CHOICES))}; got {illegal!r}.")
        self.table = Table(mode, players, options=options, seed=seed, deck=deck, clues=clues)
        self.render_mode = render_mode
        #: whether an illegal move raises (``illegal="raise"``) rather than ends the episode
        self.raises = illegal == "raise"
        self.illegal_reward = float(illegal_reward)
        self.possible_agents = list(self.table.agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces: dict[str, spaces.Space[Any]] = {
            a: observation_space(self.table.space) for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: action_space(self.table.space) for a in self.possible_agents
        }

    @property
    def game(self) -> Game:
        """The game being played (all of it, secrets included: for tests and analysis, not agents);
        `NotReset` before the first `reset`."""
        if not self.table.dealt:
            raise NotReset("game")
        return self.table.game

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
        self.agent_selection = self.table.agents[self.game.awaiting[0]]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` reseeds the env's generator; ``options`` is not used (the game's
        options are the env's: make another env for others)."""
        del options
        self.table.reset(seed)
        self._start()

    def observe(self, agent: str) -> Observation:
        if not self.table.dealt:
            raise NotReset("observe")
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
        rewards = self.rewards
        if points is not None:
            for other, seat_points in zip(table.agents, points, strict=True):
                rewards[other] = seat_points
        elif self._rewarded:  # the last step's points are not this one's
            for other in rewards:
                rewards[other] = 0
        self._rewarded = points is not None
        game = table.game
        if game.phase is GAME_OVER:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = table.agents[(seat + 1) % table.players]
        else:
            self.agent_selection = table.agents[next_seat(game, seat)]
        if points is not None:  # (otherwise every reward is 0: nothing to add)
            self._accumulate_rewards()

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
        return {agent: table.observe(seat) for seat, agent in enumerate(table.agents)}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """A new game (``seed`` as in the AEC env; ``options`` not used)."""
        del options
        self.table.reset(seed)
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
        """Every awaited seat's move at once (the others' are ignored: their masks are all zero).
        `ActionNotAvailable` when an awaited seat has no move in ``actions``."""
        table = self.table
        if not table.dealt:
            raise NotReset("step")
        game = table.game
        if game.phase is GAME_OVER or table.ended:
            raise ActionNotAvailable("The episode is over: reset the env.")
        awaiting, phase = game.awaiting, game.phase
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
            points = table.points(game.apply(checked[seat]))
            for other, seat_points in zip(table.agents, points or [0] * table.players, strict=True):
                rewards[other] += seat_points
        if table.game.is_over:
            return self._end(rewards, infos)
        return (
            self._observations(),
            rewards,
            dict.fromkeys(self.agents, False),
            dict.fromkeys(self.agents, False),
            infos,
        )

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
) -> FabulaAECEnv:
    """The AEC environment of one table (module docstring). ``deck``: the original deck if
    ``None`` (`fabula.research.observations.DeckLike`); ``clues``: a clue vocabulary, or ``None``
    for free-text clues; ``illegal``: ``"terminate"`` (an illegal move ends the episode, the mover
    rewarded ``illegal_reward``) or ``"raise"``."""
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
    )
