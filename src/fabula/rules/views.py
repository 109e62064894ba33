"""The one place where a game's secrets are stripped: what one seat, or a spectator, may see.

A view holds the seat's own hand and moves, the public table, who has acted (never what), the
scores, and the last round's full result. Before the reveal it names no card's owner (except the
seat's own cards) and no vote (except the seat's own).

Views read a game only through `GameState`, its public read-only API, so what a view can know is
written down in one place.

>>> from fabula.rules import Game
>>> game = Game.new("odyssey", seats=4, seed=3)
>>> spectator = game.view(None)
>>> spectator["hand"] is None and spectator["phase"] == "clue"
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .results import Outcome, RoundResult
from .state import GameState, Phase


class SharedJson:
    """The public parts every view repeats, as JSON, built once and shared (read-only) by every
    view: a server sends a view to every seat after every move, and these were most of its cost.

    One belongs to each game (`Game.view` passes its own); each part is rebuilt only when the game
    holds a new value (a new round's result, the outcome)."""

    __slots__ = ("_outcome", "_outcome_json", "_result", "_result_json", "options")

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self._result: RoundResult | None = None
        self._result_json: dict[str, Any] | None = None
        self._outcome: Outcome | None = None
        self._outcome_json: dict[str, Any] | None = None

    @classmethod
    def of(cls, game: GameState) -> SharedJson:
        rules = game.rules
        return cls(rules.options.to_json(rules.mode.name))

    def result(self, result: RoundResult | None) -> dict[str, Any] | None:
        if result is not self._result:
            self._result, self._result_json = result, None if result is None else result.to_json()
        return self._result_json

    def outcome(self, outcome: Outcome | None) -> dict[str, Any] | None:
        if outcome is not self._outcome:
            self._outcome, self._outcome_json = outcome, None if outcome is None else outcome.to_json()
        return self._outcome_json

    def copy(self) -> SharedJson:
        other = SharedJson(self.options)
        other._result, other._result_json = self._result, self._result_json
        other._outcome, other._outcome_json = self._outcome, self._outcome_json
        return other


def seat_view(game: GameState, seat: int | None, shared: SharedJson | None = None) -> dict[str, Any]:
    """The view of ``seat`` (``None``: a spectator, who sees only what is public)."""
    return _personal(game, _public(game, shared or SharedJson.of(game)), seat)


def seat_views(
    game: GameState, seats: Iterable[int | None], shared: SharedJson | None = None
) -> dict[int | None, dict[str, Any]]:
    """The views of several seats at once (what a server sends after each change): the public
    part is built once and shared, read-only, by every view."""
    public = _public(game, shared or SharedJson.of(game))
    return {seat: _personal(game, public, seat) for seat in seats}


def _public(game: GameState, shared: SharedJson) -> dict[str, Any]:
    """The spectator's view: everything public, and every seat's own part empty."""
    rules = game.rules
    view: dict[str, Any] = {
        "mode": rules.mode.name,
        "seats": rules.seats,
        "seat": None,
        "options": shared.options,
        "teams": None if rules.teams is None else [list(pair) for pair in rules.teams],
        "round": game.round,
        "phase": game.phase.value,
        "storyteller": game.storyteller,
        "awaiting": list(game.awaiting),
        "acted": list(game.acted),
        "clue": game.clue,
        "hand": None,
        "hand_hidden": False,
        "cards_to_play": 0,
        "tokens": rules.tokens,
        "my_cards": [],
        "table": [{"slot": i + 1, "card": card, "yours": False} for i, card in enumerate(game.table)],
        "voters": list(game.voters),
        "my_vote": [],
        "scores": list(game.scores),
        "draw_pile": game.draw_pile_size,
        "discard_pile": game.discard_size,
        "last_round": shared.result(game.last_result),
        "outcome": shared.outcome(game.outcome),
    }
    if rules.mode.red_token:
        view["red_token_placed"] = game.red is not None
        view["my_red"] = None
    if rules.team_of is not None:
        view["my_proposal"] = None
        view["teammate_proposed"] = False
    return view


def _personal(game: GameState, public: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """``public`` with ``seat``'s own part filled in (a new dict; ``public`` is not changed)."""
    if seat is None:
        return dict(public)
    rules = game.rules
    if not (type(seat) is int and 0 <= seat < rules.seats):
        raise ValueError(f"no seat {seat!r}")
    phase = game.phase
    view = dict(public)
    view["seat"] = seat
    hand_hidden = rules.mode.clue_before_hand and phase is Phase.CLUE and seat == game.storyteller
    view["hand"] = None if hand_hidden else list(game.hand(seat))
    view["hand_hidden"] = hand_hidden
    view["cards_to_play"] = game.cards_to_play(seat) if phase is Phase.PLAY else 0
    view["my_cards"] = list(game.played(seat) or ())
    owners = game.owners
    if seat in owners:  # only then does the table differ from the public one
        view["table"] = [
            {"slot": i + 1, "card": card, "yours": owner == seat}
            for i, (card, owner) in enumerate(zip(game.table, owners, strict=True))
        ]
    view["my_vote"] = list(game.vote(seat) or ())
    if rules.mode.red_token:
        view["my_red"] = game.red if seat == game.storyteller else None
    if rules.team_of is not None:
        view["my_proposal"] = game.proposal(seat)
        view["teammate_proposed"] = game.proposal(rules.teammate(seat)) is not None
    return view
