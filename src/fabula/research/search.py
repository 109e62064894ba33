"""OpenSpiel's MCTS and IS-MCTS as players of the arena (`fabula arena`, the baselines).

Each is a `fabula.bots.playing.SearchingBot`: at every move the arena hands it a game its seat
cannot tell from the real one (`fabula.rules.resampling`), never the real game. The player puts
that sample into ``python_fabula_dixit`` (`fabula.research.openspiel`, terminal rewards, the
clue vocabulary as actions) and asks OpenSpiel's Python bot for a move:

- ``mcts``: `open_spiel.python.algorithms.mcts.MCTSBot` on the one sample as if it were the whole
  truth (a determinized search: one world per move);
- ``ismcts``: `open_spiel.python.algorithms.ismcts.ISMCTSBot`, which draws a new world for every
  simulation through ``resample_from_infostate``.

Both evaluate a leaf by one random rollout; ``simulations`` is the budget per move. Their clues
come from the vocabulary (`fabula.research.openspiel.DEFAULT_CLUES`) and are chosen by search over
random rollouts, which read no clue: these players search the scoring, not the pictures.

>>> import random
>>> from fabula.bots.arena import run_arena
>>> report = run_arena("odyssey", 3, 1, ["mcts", "random"], seed=1, options={"storyteller_cycles": 1},
...                    agents={"mcts": search_player("mcts", simulations=8)})
>>> report.levels["mcts"].seats
2
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from fabula.bots.arena import SeatContext
from fabula.rules import Action, Game

from .openspiel import FabulaGame, FabulaState, _Held

__all__ = ["KINDS", "SearchPlayer", "search_player"]

#: The searches on offer.
KINDS = ("mcts", "ismcts")
#: UCT's exploration constant, in points: returns are scores (tens of points), not ±1.
UCT_C = 20.0


class SearchPlayer:
    """One seat's MCTS or IS-MCTS player (module docstring)."""

    def __init__(self, kind: str, simulations: int, rng: random.Random) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown search {kind!r}; one of {', '.join(KINDS)}")
        self.kind, self.simulations, self.rng = kind, simulations, rng

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:  # noqa: ARG002 - the Bot protocol's
        raise TypeError("a search player moves by `search` (the arena calls it with a sample of the game)")

    def search(self, sample: Game, seat: int, legal: Sequence[Action]) -> Action:  # noqa: ARG002 - its legal ids
        """The move OpenSpiel's search picks at ``seat`` of ``sample`` (one of ``legal``: the search
        reads them off the sample)."""
        game = _openspiel_game(sample.mode, sample.seats, json.dumps(sample.rules.options.to_json(sample.mode)))
        state: FabulaState = game.new_initial_state()
        state._held, state._seat = _Held(sample.copy()), seat
        numpy_rng = np.random.RandomState(self.rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(1, numpy_rng)
        bot: pyspiel.Bot
        if self.kind == "mcts":
            bot = mcts.MCTSBot(game, UCT_C, self.simulations, evaluator, random_state=numpy_rng)
        else:
            bot = ismcts.ISMCTSBot(game, evaluator, UCT_C, self.simulations, random_state=numpy_rng)
        # (the vocabulary is part of every clue id: the action comes with its clue)
        return game.space.action(sample, seat, int(bot.step(state)))  # (IS-MCTS gives numpy ints)


@cache
def _openspiel_game(mode: str, seats: int, options: str) -> FabulaGame:
    """The game of one table, loaded once per process (an arena makes a player per seat per game)."""
    params = {"mode": mode, "players": seats, "options": options, "terminal_rewards": True}
    game: FabulaGame = pyspiel.load_game("python_fabula_dixit", params)
    return game


def search_player(kind: str, simulations: int = 100) -> Callable[[SeatContext], SearchPlayer]:
    """An arena agent factory (`fabula.bots.arena.AgentFactory`): a ``kind`` search per seat."""
    if kind not in KINDS:
        raise ValueError(f"unknown search {kind!r}; one of {', '.join(KINDS)}")
    return lambda context: SearchPlayer(kind, simulations, context.rng)


def search_agents(simulations: int = 100) -> Mapping[str, Callable[[SeatContext], SearchPlayer]]:
    """Both searches as arena agents, by name."""
    return {kind: search_player(kind, simulations) for kind in KINDS}
