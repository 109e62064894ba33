"""The action space: its layout in every mode, and its mask, which at every move of games of
every mode is exactly the engine's legal actions of the awaited seat (less a move that would
replace one already made), each id decoding to one of them and back."""

from __future__ import annotations

import random
from math import comb
from typing import Any

import numpy as np
import pytest

from fabula.bots.random_player import random_action
from fabula.research.actions import ActionNotAvailable, ActionSpace, next_seat
from fabula.rules import MODES, Action, BlindClue, Game, PlaceRed, Propose, Ruleset, Tell, Vote

from .games import CLUES, SHORT, TABLES, VARIANTS

GAMES: list[tuple[str, int, dict[str, Any]]] = [(mode, seats, SHORT) for mode, seats in TABLES] + VARIANTS


def without_clue(action: Action) -> Action:
    """The action as `Game.legal_actions` lists it (a clue move's clue is not part of it)."""
    if isinstance(action, Tell | BlindClue):
        return action.with_clue(None)
    return action


def expected_moves(game: Game, seat: int) -> set[Action]:
    """The engine's legal actions that the mask offers: the awaited seats', less the moves that
    would replace one already made this phase."""
    if seat not in game.awaiting:
        return set()
    found = set(game.legal_actions(seat))
    if game.vote(seat) is not None:
        found = {a for a in found if not isinstance(a, Vote)}
    if seat == game.storyteller and game.red is not None:
        found = {a for a in found if not isinstance(a, PlaceRed)}
    if game.proposal(seat) is not None:
        found = {a for a in found if not isinstance(a, Propose)}
    return found


def check_every_seat(space: ActionSpace, game: Game) -> int:
    checked = 0
    k = 1 if space.clues is None else len(space.clues)
    for seat in range(game.seats):
        ids = space.legal_ids(game, seat)
        assert ids == sorted(ids)
        assert np.flatnonzero(space.mask(game, seat)).tolist() == ids
        assert space.mask(game, seat).dtype == np.int8
        decoded = [space.decode(game, seat, id, "Une clé") for id in ids]
        expected = expected_moves(game, seat)
        assert {without_clue(a) for a in decoded} == expected
        clue_moves = sum(isinstance(a, Tell | BlindClue) for a in expected)
        assert len(ids) == len(expected) + clue_moves * (k - 1)
        for id, action in zip(ids, decoded, strict=True):
            assert space.id_of(game, action) == id
            assert space.action(game, seat, id, "Une clé") == action
        checked += len(ids)
    return checked


@pytest.mark.parametrize(("mode", "seats", "options"), GAMES)
@pytest.mark.parametrize("clues", [CLUES, None], ids=["vocabulary", "free-text"])
def test_the_mask_is_the_legal_actions_at_every_move(
    mode: str, seats: int, options: dict[str, Any], clues: list[str] | None
) -> None:
    space = ActionSpace.create(mode, seats, options, clues)
    rng = random.Random(f"{mode}/{seats}")
    checked = 0
    for seed in range(1 if seats >= 10 else 2):
        game = Game.new(mode, seats, options=options, seed=seed)
        while not game.is_over:
            checked += check_every_seat(space, game)
            game.apply(random_action(game, next_seat(game, game.storyteller), rng))
        assert all(space.legal_ids(game, seat) == [] for seat in range(seats))
    assert checked > 0


def test_every_move_of_every_id_applies() -> None:
    space = ActionSpace.create("teams", 6, SHORT, CLUES)
    game = Game.new("teams", 6, options=SHORT, seed=3)
    rng = random.Random(3)
    while not game.is_over:
        for seat in game.awaiting:
            for id in space.legal_ids(game, seat):
                game.copy().apply(space.action(game, seat, id))
        game.apply(random_action(game, game.awaiting[0], rng))


@pytest.mark.parametrize(("mode", "seats", "options"), [*((m, s, {}) for m, s in TABLES), *VARIANTS])
def test_the_layout_of_the_space(mode: str, seats: int, options: dict[str, Any]) -> None:
    rules = Ruleset.create(mode, seats, options)
    space = ActionSpace.create(mode, seats, options, CLUES)
    hand, table, k = rules.hand_size, rules.table_size, len(CLUES)
    party, teams = MODES[mode].red_token, MODES[mode].paired
    assert len(space.tell) == (0 if party else hand * k)
    assert len(space.blind) == (k if party else 0)
    assert len(space.play) == (comb(hand, 2) if seats == 3 else hand)
    assert len(space.propose) == (hand if teams else 0)
    votes = table
    if rules.tokens == 2:
        votes += comb(table, 2) + (table if rules.options.second_token_same_slot else 0)
    assert len(space.vote) == votes
    assert len(space.red) == (table if party else 0)
    assert space.n == sum(map(len, (space.tell, space.blind, space.play, space.propose, space.vote, space.red)))
    names = [space.describe(id) for id in range(space.n)]
    assert len(set(names)) == space.n
    with pytest.raises(ActionNotAvailable):
        space.describe(space.n)


def test_the_three_player_variant_plays_pairs_and_seven_seats_vote_twice() -> None:
    three = ActionSpace.create("odyssey", 3)
    assert three.plays[:3] == ((0, 1), (0, 2), (0, 3))
    assert three.describe(three.play.start) == "play hand[0]+hand[1]"
    seven = ActionSpace.create("odyssey", 7)
    assert seven.votes[:7] == tuple((s,) for s in range(1, 8))
    assert seven.votes[7] == (1, 2)
    same = ActionSpace.create("odyssey", 7, {"second_token_same_slot": True})
    assert same.votes[-1] == (7, 7)


def test_a_vocabulary_must_hold_clues_the_engine_keeps() -> None:
    with pytest.raises(ValueError, match="empty"):
        ActionSpace.create("odyssey", 4, clues=[])
    with pytest.raises(ValueError, match="twice"):
        ActionSpace.create("odyssey", 4, clues=["a", "a"])
    with pytest.raises(ValueError, match="trimmed"):
        ActionSpace.create("odyssey", 4, clues=[" a"])
    with pytest.raises(ValueError, match="Vocabulary clue"):
        ActionSpace.create("odyssey", 4, clues=["x" * 201])
    with pytest.raises(ValueError, match="list of clues"):
        ActionSpace.create("odyssey", 4, clues="Freedom")
