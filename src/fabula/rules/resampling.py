"""A game one seat cannot tell from the real one: what search under hidden information samples.

`resample(game, seat, rng)` keeps everything ``seat`` sees — its view (`Game.view`) is the same —
and draws anew, uniformly, what it cannot see:

- the other seats' hands and the draw pile's content and order (its own hand too while a party
  storyteller's hand is kept from it);
- the cards the others have put down this turn, and the teams' offers, chosen again from the
  new hands (who has acted stays: the view shows it);
- once the table is laid, which seat owns each card that is not the seat's own (nor one its
  legal votes leave out, as a teammate's), and so the others' votes and the red token cast
  this turn, drawn again among the moves the new owners allow;
- the seed, and with it every later shuffle and table order.

The discard pile, the scores, the clue and the past rounds are public and stay. The view is not
perfect recall (it shows the current turn and the last round), so neither is the sample: a card a
party hand passed left is not followed. The sample has no move log (`Game.log` is empty).

>>> import random
>>> from fabula.rules import Game
>>> game = Game.new("odyssey", 4, seed=3)
>>> other = resample(game, 0, random.Random(1))
>>> other.view(0) == game.view(0), other.hand(1) == game.hand(1)
(True, False)
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .actions import PlaceRed, Vote
from .state import PLAY_PHASE, VOTE_PHASE

if TYPE_CHECKING:
    from .game import Game

__all__ = ["resample"]


def resample(game: Game, seat: int, rng: random.Random) -> Game:
    """A game whose view from ``seat`` is ``game``'s, its hidden part drawn anew (module docstring)."""
    from .game import Game

    state = game.to_json()
    seats, storyteller = game.rules.seats, game.storyteller
    hands: list[list[str]] = state["hands"]
    unseen = [s for s in range(seats) if s != seat or game.secrets(seat).hand is None]
    pool = [card for s in unseen for card in hands[s]] + state["pile"]
    rng.shuffle(pool)
    for s in unseen:
        size = len(hands[s])
        hands[s], pool = pool[:size], pool[size:]
    state["pile"] = pool
    others = [s for s in range(seats) if s != seat]
    if game.phase is PLAY_PHASE:
        plays, proposals = state["plays"], state["proposals"]
        for s in others:
            if plays[s] is not None:
                plays[s] = rng.sample(hands[s], len(plays[s]))
            if proposals[s] is not None:
                proposals[s] = rng.choice(hands[s])
    redraw: list[int] = []
    redraw_red = False
    if game.phase is VOTE_PHASE:
        owners: list[int] = state["owners"]
        # the seat knows its own cards, and a voter the cards its legal votes leave out (in teams
        # its teammate's): those owners stay
        allowed = game.rules.may_vote[seat] if seat in game.voters else [True] * seats
        hidden = [slot for slot, owner in enumerate(owners) if owner != seat and allowed[owner]]
        moved = [owners[slot] for slot in hidden]
        rng.shuffle(moved)
        for slot, owner in zip(hidden, moved, strict=True):
            owners[slot] = owner
        redraw = [s for s in others if state["votes"][s] is not None]
        for s in redraw:
            state["votes"][s] = None
        redraw_red = storyteller != seat and state["red"] is not None
        if redraw_red:
            state["red"] = None
    state["seed"] = rng.getrandbits(63)
    state["log"] = []
    sample = Game.from_json(state)
    _cast_again(sample, redraw, storyteller if redraw_red else None, rng)
    return sample


def _cast_again(game: Game, voters: list[int], red_by: int | None, rng: random.Random) -> None:
    """Cast again the votes (and the red token) the sample took back, each chosen at random among
    the legal ones and set straight into the turn: applying them could end it, and who the table
    waits for (public) stays as it was."""
    turn: Any = game._turn
    for voter in voters:
        votes = [action for action in game.legal_actions(voter) if isinstance(action, Vote)]
        turn.votes[voter] = rng.choice(votes).slots
    if red_by is not None:
        reds = [action for action in game.legal_actions(red_by) if isinstance(action, PlaceRed)]
        turn.red = rng.choice(reds).slot
    game._clear_caches()
