"""The table both research environments play at (`fabula.research.pettingzoo`): the settings,
the action space, the card texts, the seeded generator, and the game being played with each
seat's observation of its current state."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from fabula.rules import Action, BlindClue, Game, Tell, clean_clue
from fabula.rules.events import Event, RoundScored
from fabula.rules.views import ViewParts

from .actions import ActionNotAvailable, ActionSpace
from .observations import CardTexts, DeckLike, Observation, SeatObserver, card_list
from .vectors import CardEmbeddings, Vector, VectorLayout, VectorWriter

__all__ = ["Move", "NotReset", "Table"]

_pending = Observation.pending  # (a module global: one attribute lookup less a move)

#: A move as the envs take it: an id, or with free-text clues ``(id, clue)`` (a bare id then
#: tells `fabula.research.actions.DEFAULT_CLUE`).
Move = int | np.integer[Any] | tuple[Any, str] | Sequence[Any]


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
        observations: str = "text",
    ) -> None:
        if observations not in ("text", "vector"):
            raise ValueError(f"observations is 'text' or 'vector'; got {observations!r}.")
        if observations == "vector" and clues is None:
            raise ValueError(
                "observations='vector' needs a clue vocabulary (clues=[...]): a learner's action is a"
                " number, and a free-text clue is not one."
            )
        self.mode, self.players, self.options = mode, players, dict(options or {})
        self.space = ActionSpace.create(mode, players, self.options, clues)
        self.texts = CardTexts.of(deck)
        #: the vector layout and the deck's embeddings (``observations="vector"``), else None
        self.vectors: tuple[VectorLayout, CardEmbeddings] | None = None
        self._vector: Callable[[ViewParts], Vector] | None = None
        if observations == "vector":  # (the deck's embeddings: computed here, once)
            self.vectors = (VectorLayout.of(self.space), CardEmbeddings(card_list(deck)))
            self._vector = VectorWriter(*self.vectors).write
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
        observation: Observation
        texts, vector = self._texts, self._vector
        if vector is not None:  # (`VectorLayout.encode` of the seat's view, written from its capture)
            observation = {"observation": vector(texts.capture(game, seat, awaiting)), "action_mask": mask}  # type: ignore[assignment]
        else:
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
