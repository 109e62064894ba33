"""The one place where a game's secrets are stripped: what one seat, or a spectator, may see.

A view holds the seat's own hand and moves, the public table, who has acted (never what), the
scores, and the last round's full result. Before the reveal it names no card's owner (except the
seat's own cards) and no vote (except the seat's own).

>>> from fabula.rules import Game
>>> game = Game.new("odyssey", seats=4, seed=3)
>>> spectator = game.view(None)
>>> spectator["hand"] is None and spectator["phase"] == "clue"
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game


def seat_view(game: Game, seat: int | None) -> dict[str, Any]:
    """The view of ``seat`` (``None``: a spectator, who sees only what is public)."""
    return _personal(game, _public(game), seat)


def seat_views(game: Game, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """The views of several seats at once (what a server sends after each change): the public
    part is built once and shared, read-only, by every view."""
    public = _public(game)
    return {seat: _personal(game, public, seat) for seat in seats}


def _public(game: Game) -> dict[str, Any]:
    """The spectator's view: everything public, and every seat's own part empty."""
    from .game import Phase

    rules = game.rules
    phase = game.phase
    storyteller = game.storyteller
    plays, votes = game._plays, game._votes
    if phase is Phase.PLAY:
        if rules.team_of is not None:
            acted = [s for s in range(rules.seats) if s != storyteller and plays[s] is not None]
        else:
            acted = [s for s in range(rules.seats) if plays[s] is not None and game._cards_to_play(s)]
    elif phase is Phase.VOTE:
        acted = [s for s in game.voters if votes[s] is not None]
    else:
        acted = []
    # Every view of a change repeats the same public JSON: built once per round and shared (a view
    # is read-only, like the rest of this dict's values that come from the game).
    shown = game._shown
    if shown[0] is not game.last_result:
        shown[0], shown[1] = game.last_result, None if game.last_result is None else game.last_result.to_json()
    if shown[2] is not game.outcome:
        shown[2], shown[3] = game.outcome, None if game.outcome is None else game.outcome.to_json()
    view: dict[str, Any] = {
        "mode": rules.mode.name,
        "seats": rules.seats,
        "seat": None,
        "options": shown[4],
        "teams": None if rules.teams is None else [list(pair) for pair in rules.teams],
        "round": game.round,
        "phase": phase.value,
        "storyteller": storyteller,
        "awaiting": list(game.awaiting),
        "acted": acted,
        "clue": game.clue,
        "hand": None,
        "hand_hidden": False,
        "cards_to_play": 0,
        "tokens": rules.tokens,
        "my_cards": [],
        "table": [{"slot": i + 1, "card": card, "yours": False} for i, card in enumerate(game._table)],
        "voters": list(game.voters),
        "my_vote": [],
        "scores": list(game.scores),
        "draw_pile": game.draw_pile_size,
        "discard_pile": game.discard_size,
        "last_round": shown[1],
        "outcome": shown[3],
    }
    if rules.mode.red_token:
        view["red_token_placed"] = game._red is not None
        view["my_red"] = None
    if rules.team_of is not None:
        view["my_proposal"] = None
        view["teammate_proposed"] = False
    return view


def _personal(game: Game, public: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """``public`` with ``seat``'s own part filled in (a new dict; ``public`` is not changed)."""
    from .game import Phase

    if seat is None:
        return dict(public)
    rules = game.rules
    if not (type(seat) is int and 0 <= seat < rules.seats):
        raise ValueError(f"no seat {seat!r}")
    phase = game.phase
    view = dict(public)
    view["seat"] = seat
    hand_hidden = rules.mode.clue_before_hand and phase is Phase.CLUE and seat == game.storyteller
    view["hand"] = None if hand_hidden else list(game._hands[seat])
    view["hand_hidden"] = hand_hidden
    view["cards_to_play"] = game._cards_to_play(seat) if phase is Phase.PLAY else 0
    view["my_cards"] = list(game._plays[seat] or ())
    owners = game._owners
    if seat in owners:  # only then does the table differ from the public one
        view["table"] = [
            {"slot": i + 1, "card": card, "yours": owner == seat}
            for i, (card, owner) in enumerate(zip(game._table, owners, strict=True))
        ]
    view["my_vote"] = list(game._votes[seat] or ())
    if rules.mode.red_token:
        view["my_red"] = game._red if seat == game.storyteller else None
    if rules.team_of is not None:
        view["my_proposal"] = game._proposals[seat]
        view["teammate_proposed"] = game._proposals[rules.teammate(seat)] is not None
    return view
