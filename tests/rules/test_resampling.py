"""`resample`: a game the seat cannot tell from the real one, whose hidden part is drawn anew."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from fabula.rules import MODES, BlindClue, Game, Tell
from fabula.rules.resampling import resample
from fabula.rules.state import CLUE_PHASE, PLAY_PHASE, VOTE_PHASE, Phase

TABLES = [
    (mode, seats) for mode in MODES for seats in sorted({MODES[mode].seat_counts[0], MODES[mode].seat_counts[-1]})
]
OPTIONS: dict[str, Any] = {"storyteller_cycles": 1}


def random_move(game: Game, rng: random.Random) -> None:
    seat = rng.choice(game.awaiting)
    action = rng.choice(game.legal_actions(seat))
    if isinstance(action, Tell | BlindClue):
        action = action.with_clue(rng.choice(["Dream", "Home"]))
    game.apply(action)


def every_card(game: Game) -> Counter[str]:
    state = game.to_json()
    return Counter([*(c for hand in state["hands"] for c in hand), *state["pile"], *state["discard"], *state["table"]])


def moments(mode: str, seats: int, seed: int) -> list[Game]:
    """Copies of one random game at each of its moves (the clue, play and vote phases of each round)."""
    rng = random.Random(seed)
    game = Game.new(mode, seats, seed=seed, options=OPTIONS)
    found = []
    while not game.is_over:
        found.append(game.copy())
        random_move(game, rng)
    return found


@pytest.mark.parametrize(("mode", "seats"), TABLES)
def test_every_seat_sees_the_same_and_the_sample_plays_on(mode: str, seats: int) -> None:
    rng = random.Random(5)
    phases: set[Phase] = set()
    for game in moments(mode, seats, seed=seats)[::3]:
        phases.add(game.phase)
        for seat in range(seats):
            sample = resample(game, seat, rng)
            assert sample.view(seat) == game.view(seat)
            assert every_card(sample) == every_card(game)  # no card made or lost
            assert sample.awaiting == game.awaiting
            assert sample.acted == game.acted
            for other in range(seats):  # the others' hidden moves are ones they could have made
                played = sample.played(other)
                if game.phase is PLAY_PHASE and played:
                    assert set(played) <= set(sample.hand(other))
                vote = sample.vote(other)
                if game.phase is VOTE_PHASE and vote:
                    assert all(sample.rules.may_vote[other][sample.owners[slot - 1]] for slot in vote)
            while not sample.is_over:  # and the sample is a game that goes on to its end
                random_move(sample, rng)
    assert {CLUE_PHASE, PLAY_PHASE, VOTE_PHASE} <= phases


def test_what_the_seat_cannot_see_is_drawn_anew() -> None:
    game = moments("odyssey", 6, seed=2)[0]
    assert game.phase is CLUE_PHASE
    samples = [resample(game, 0, random.Random(n)) for n in range(20)]
    assert len({sample.hand(1) for sample in samples}) == 20
    assert {sample.hand(0) for sample in samples} == {game.hand(0)}
    assert len({sample.seed for sample in samples}) == 20


def test_the_owners_and_votes_of_the_table_are_drawn_anew_but_the_seat_s_own_card_stays() -> None:
    game = next(g for g in moments("odyssey", 6, seed=4) if g.phase is VOTE_PHASE and len(g.acted) >= 2)
    seat = next(s for s in game.awaiting if s != game.storyteller)
    mine = {slot for slot, owner in enumerate(game.owners) if owner == seat}
    owners = set()
    for n in range(30):
        sample = resample(game, seat, random.Random(n))
        assert {slot for slot, owner in enumerate(sample.owners) if owner == seat} == mine
        owners.add(sample.owners)
    assert len(owners) > 10


def test_a_party_storyteller_who_has_not_seen_the_hand_does_not_keep_it() -> None:
    game = moments("party", 6, seed=1)[0]
    teller = game.storyteller
    assert game.secrets(teller).hand is None
    assert len({resample(game, teller, random.Random(n)).hand(teller) for n in range(10)}) == 10
