"""Fabula as an OpenSpiel game: ``python_fabula_dixit``, registered when this module is imported.

    import pyspiel
    import fabula.research.openspiel  # registers the game
    game = pyspiel.load_game("python_fabula_dixit", {"mode": "party", "players": 6})

Parameters: ``mode`` (``"odyssey"``), ``players`` (4), ``options`` — the engine's options as a
JSON object (``"{}"``: the mode's defaults), ``clues`` — the clue vocabulary, ``|``-separated
(OpenSpiel's actions are integers, so the clue is always part of the action), ``seeds`` (1024),
and ``terminal_rewards`` (``False``).

- **Actions** are the ids of `fabula.research.actions`, with the vocabulary: the same numbering
  as the PettingZoo env given the same clues. Action strings are `ActionSpace.describe`.
- **Chance** is one node at the start that draws the game's seed uniformly from
  ``range(seeds)``. The engine takes every random decision — the deal, each turn's table order,
  each reshuffle — from keyed draws of that one seed (`fabula.rules.randomness`), so a single
  chance node gives exactly the engine's distribution over games for those seeds, with no
  re-implementation of its shuffles that could drift from it. The seed is hidden from the
  players (no observation names it), so the later shuffles stay unknown to them as they are at a
  table. The cost: games beyond ``seeds`` distinct deals are not reachable; raise it at will.
- **Turns.** OpenSpiel's game is sequential: the engine's simultaneous phases are played one
  seat at a time in the order of `fabula.research.actions.next_seat`. A seat never sees what the
  others did before it in the same phase — the view says who has acted, never what — so the
  order hides nothing it should not.
- **Observations.** ``observation_string(p)`` and ``information_state_string(p)`` are seat
  ``p``'s view as JSON (`fabula.research.observations.view_json`, what its browser gets);
  ``observation_tensor(p)`` and ``information_state_tensor(p)`` the same view as numbers, in the
  layout of `fabula.research.vectors` (the PettingZoo env's ``observations="vector"``; the
  tensor's named parts are the observer's ``dict``). A public-only observer
  (``private_info=NONE``) gives the spectator's view. The view holds the current turn and the
  last round in full, not every earlier round: the information state is not perfect recall
  (keep the earlier turns' observations to get it).
- **Rewards** are each round's points when it is scored; **returns** the scores. General-sum.
  With ``terminal_rewards=True`` the game's reward model is OpenSpiel's *terminal*: no reward
  until the end, then the returns — what `mcts.MCTSBot` and ``pyspiel.MCTSBot`` ask for.
  The bounds OpenSpiel asks for (game length, utility) follow from the end conditions; a game
  whose end does not bound its length (party with only a target score) is refused.
- **Resampling.** ``resample_from_infostate(p, sampler)`` gives a state seat ``p`` cannot tell
  from this one, the hidden hands, deck, owners of the table's cards and this turn's hidden moves
  drawn anew (`fabula.rules.resampling`): what `ismcts.ISMCTSBot` and ``pyspiel.ISMCTSBot`` use.

>>> import pyspiel
>>> game = pyspiel.load_game("python_fabula_dixit", {"players": 3, "options": '{"storyteller_cycles": 1}'})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 1024)
>>> state.apply_action(7)
>>> state.current_player() == json.loads(state.observation_string(0))["storyteller"]
True
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from fabula.cards.original import original_deck
from fabula.rules import Game, Ruleset
from fabula.rules.events import RoundScored
from fabula.rules.resampling import resample

from .actions import ActionSpace, next_seat
from .observations import CardTexts, view_json
from .vectors import CardEmbeddings, VectorLayout

__all__ = ["DEFAULT_CLUES", "GAME_NAME", "FabulaGame", "FabulaObserver", "FabulaState"]

GAME_NAME = "python_fabula_dixit"
#: The default clue vocabulary.
DEFAULT_CLUES = "Freedom|Dream|Journey|Home|Secret|Light|Time|Silence"

_DEFAULTS: dict[str, Any] = {
    "mode": "odyssey",
    "players": 4,
    "options": "{}",
    "clues": DEFAULT_CLUES,
    "seeds": 1024,
    "terminal_rewards": False,
}


def _game_type(reward_model: pyspiel.GameType.RewardModel) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Fabula (Dixit Odyssey)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=reward_model,
        max_num_players=12,
        min_num_players=3,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULTS,
    )


_GAME_TYPE = _game_type(pyspiel.GameType.RewardModel.REWARDS)
#: the type of a game loaded with ``terminal_rewards=True``
_TERMINAL_GAME_TYPE = _game_type(pyspiel.GameType.RewardModel.TERMINAL)


def _rounds_bound(rules: Ruleset, deck: int) -> int:
    """The most rounds a game can last, from its end conditions (`Ruleset.game_ends`)."""
    options, seats = rules.options, rules.seats
    bounds = []
    if options.storyteller_cycles is not None:
        bounds.append(seats * options.storyteller_cycles)
    if options.end_on_empty_deck:
        # every round draws at least one card until the pile is empty
        bounds.append(deck - seats * rules.hand_size + 1)
    if options.target_score is not None and not rules.mode.red_token:
        # in the storytelling modes some seat scores at least 2 every round, so the leader's score
        # (at least the average) reaches the target within target × seats rounds
        bounds.append(options.target_score * seats)
    if not bounds:
        raise ValueError(
            "OpenSpiel needs a bound on the game's length: with only a target score a party game may "
            "never end; set storyteller_cycles or end_on_empty_deck."
        )
    return min(bounds)


class FabulaGame(pyspiel.Game):  # type: ignore[misc]
    """One (mode, players, options, clues, seeds) of ``python_fabula_dixit``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**_DEFAULTS, **(params or {})}
        options = json.loads(given["options"])
        if not isinstance(options, dict):
            raise ValueError(f"options is a JSON object; got {given['options']!r}")
        self.mode, self.players, self.options = str(given["mode"]), int(given["players"]), options
        self.seeds = int(given["seeds"])
        if self.seeds < 1:
            raise ValueError("seeds must be at least 1")
        self.space = ActionSpace.create(self.mode, self.players, options, str(given["clues"]).split("|"))
        self.terminal_rewards = bool(given["terminal_rewards"])
        self.texts = CardTexts.of(None)
        self.layout = VectorLayout.of(self.space)
        self._embeddings: CardEmbeddings | None = None
        rules = self.space.rules
        rounds = _rounds_bound(rules, len(self.texts.ids))
        seats = rules.seats
        info = pyspiel.GameInfo(
            num_distinct_actions=self.space.n,
            max_chance_outcomes=self.seeds,
            num_players=seats,
            min_utility=0.0,
            # a seat's points in a round: 3 as storyteller or finder, a point per decoy vote
            # (two tokens each), the bonuses; party: at most 5 for a card
            max_utility=float(rounds * (2 * seats + 5)),
            utility_sum=None,
            # a round: the clue, a play or offer and a vote from every seat, the red token
            max_game_length=rounds * (3 * seats + 2),
        )
        super().__init__(_TERMINAL_GAME_TYPE if self.terminal_rewards else _GAME_TYPE, info, given)

    @property
    def embeddings(self) -> CardEmbeddings:
        """The deck's card embeddings, computed when a tensor is first asked for."""
        if self._embeddings is None:
            self._embeddings = CardEmbeddings(original_deck().cards)
        return self._embeddings

    def new_initial_state(self) -> FabulaState:
        return FabulaState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> FabulaObserver:
        return FabulaObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _Held:
    """The engine's game inside a state: OpenSpiel clones a Python state by deep-copying its
    attributes, and `Game.copy` is a hundred times cheaper than a deep copy of the game."""

    __slots__ = ("game",)

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(self.game.copy())


class FabulaState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_fabula_dixit``: before the chance node, or a game of the engine."""

    def __init__(self, game: FabulaGame) -> None:
        super().__init__(game)
        self._held: _Held | None = None
        self._seat = 0
        self._rewards = [0.0] * game.players

    @property
    def engine(self) -> Game | None:
        """The engine's game (secrets included: for tests and analysis), ``None`` before the deal."""
        return None if self._held is None else self._held.game

    def _setup(self) -> FabulaGame:
        game: FabulaGame = self.get_game()
        return game

    def current_player(self) -> int:
        held = self._held
        if held is None:
            return int(pyspiel.PlayerId.CHANCE)
        if held.game.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return self._seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self._held is not None, "the chance node has no player"
        return self._setup().space.legal_ids(self._held.game, player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        seeds = self._setup().seeds
        return [(seed, 1.0 / seeds) for seed in range(seeds)]

    def _apply_action(self, action: int) -> None:
        setup = self._setup()
        if self._held is None:
            game = Game.new(setup.mode, setup.players, options=setup.options, seed=action, deck=setup.texts.ids)
            self._held, self._seat = _Held(game), game.awaiting[0]
            return
        game, seat = self._held.game, self._seat
        events = game.apply(setup.space.action(game, seat, action))
        rewards = [0.0] * setup.players
        for event in events:
            if type(event) is RoundScored:
                rewards = [float(points) for points in event.result.points]
        if setup.terminal_rewards:
            rewards = [float(score) for score in game.scores] if game.is_over else [0.0] * setup.players
        self._rewards = rewards
        if not game.is_over:
            self._seat = next_seat(game, seat)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> FabulaState:
        """A state ``player_id`` cannot tell from this one, its hidden part drawn anew
        (`fabula.rules.resampling`); ``probability_sampler()`` gives the randomness (a float in
        [0, 1), as OpenSpiel passes it)."""
        other: FabulaState = self.clone()
        if self._held is not None and not self._held.game.is_over:
            rng = random.Random(int(probability_sampler() * (1 << 53)))
            other._held = _Held(resample(self._held.game, player_id, rng))
        return other

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        return self._setup().space.describe(action)

    def is_terminal(self) -> bool:
        return self._held is not None and self._held.game.is_over

    def rewards(self) -> list[float]:
        return list(self._rewards)

    def returns(self) -> list[float]:
        if self._held is None:
            return [0.0] * self._setup().players
        return [float(score) for score in self._held.game.scores]

    def __str__(self) -> str:
        """The whole state, secrets included (for debugging, never for a player)."""
        if self._held is None:
            return "before the deal"
        return json.dumps(self._held.game.to_json(), sort_keys=True)


class FabulaObserver:
    """What a player observes: its seat's view (``private_info=SINGLE_PLAYER``), or the
    spectator's (``NONE``), as JSON and as the vector of `fabula.research.vectors` (``tensor``,
    its fields named in ``dict``). Conforms to OpenSpiel's PyObserver interface."""

    def __init__(
        self, game: FabulaGame, iig_obs_type: pyspiel.IIGObservationType, params: dict[str, Any] | None
    ) -> None:
        if params:
            raise ValueError(f"Observation parameters are not supported; got {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("No observer sees every seat's private cards: that is the whole state (str(state)).")
        self._private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._game = game
        self.tensor = np.zeros(game.layout.size, np.float32)
        self.dict: dict[str, Any] = {name: self.tensor[part] for name, part in game.layout.fields.items()}

    def set_from(self, state: FabulaState, player: int) -> None:
        """Write the seat's view into ``tensor`` (zeros before the deal)."""
        game = state.engine
        if game is None:
            self.tensor.fill(0.0)
            return
        view = game.view(player if self._private else None)
        self._game.layout.encode(view, self._game.embeddings, out=self.tensor)

    def string_from(self, state: FabulaState, player: int) -> str:
        game = state.engine
        if game is None:
            return "before the deal"
        return view_json(game, player if self._private else None)


pyspiel.register_game(_GAME_TYPE, FabulaGame)
