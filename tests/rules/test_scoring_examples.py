"""Worked scoring examples, one per rule and option of RULES.md (the authority).

Every expected number below was worked out by hand from RULES.md, never copied from the code.
Each example is a legal round: `score` runs `check_round` on it before scoring.

Conventions: seats are 0..N-1; seat ``s`` plays card ``cs`` (and ``ds`` as its second card in a
3-player game). Votes are written ``{voter: "tokens"}``: ``"c0 c3"`` means one token on c0 and
one on c3. Expected points are listed by seat (by team index in `teams`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from fabula.rules import (
    BlindClue,
    Game,
    IllegalAction,
    InvalidSetup,
    Phase,
    PlaceRed,
    Play,
    RoundFacts,
    Ruleset,
    Tell,
    check_round,
    explain_party,
    explain_storytelling,
    explain_teams,
    numbered_deck,
    score_party,
    score_storytelling,
    score_teams,
)

Votes = Mapping[int, str]
Options = Mapping[str, Any]


# ---------------------------------------------------------------- helpers


def _tokens(votes: Votes) -> dict[int, tuple[str, ...]]:
    return {voter: tuple(tokens.split()) for voter, tokens in votes.items()}


def storytelling_round(seats: int, votes: Votes, *, storyteller: int = 0) -> RoundFacts[int, str]:
    """An `odyssey`/`classic` round: the storyteller plays ``c<st>``; with 3 seats the others play two cards."""
    played = {s: (f"c{s}",) if s == storyteller or seats != 3 else (f"c{s}", f"d{s}") for s in range(seats)}
    return RoundFacts(seats=tuple(range(seats)), storyteller=storyteller, played=played, votes=_tokens(votes))


def party_round(seats: int, votes: Votes, red: str | None, *, storyteller: int = 0) -> RoundFacts[int, str]:
    """A `party` round: everyone, the storyteller included, plays ``c<s>`` and votes."""
    played = {s: (f"c{s}",) for s in range(seats)}
    return RoundFacts(seats=tuple(range(seats)), storyteller=storyteller, played=played, votes=_tokens(votes), red=red)


def teams_round(seats: int, players: set[int], votes: Votes, *, storyteller: int = 0) -> RoundFacts[int, str]:
    """A `teams` round: the storyteller, the teammate (seat st + N/2) and ``players`` play ``c<s>``."""
    teams = Ruleset.create("teams", seats).teams
    assert teams == tuple((s, s + seats // 2) for s in range(seats // 2))
    mate = (storyteller + seats // 2) % seats
    played = {s: (f"c{s}",) for s in sorted({storyteller, mate, *players})}
    return RoundFacts(
        seats=tuple(range(seats)), storyteller=storyteller, played=played, votes=_tokens(votes), teams=teams
    )


def score(mode: str, facts: RoundFacts[int, str], options: Options | None = None) -> list[int]:
    """Points gained by seat (by team in `teams`), after checking the round is legal."""
    rules = Ruleset.create(mode, len(facts.seats), options)
    check_round(facts, rules)
    points = rules.mode.score(facts, rules)
    return [points[key] for key in sorted(points)]


def refusal(mode: str, facts: RoundFacts[int, str], options: Options | None = None) -> str:
    """The code `check_round` refuses the round with."""
    rules = Ruleset.create(mode, len(facts.seats), options)
    with pytest.raises(IllegalAction) as refused:
        check_round(facts, rules)
    return refused.value.code


# ---------------------------------------------------------------- table set-up


@pytest.mark.parametrize(
    ("mode", "seats", "expected"),
    [
        # (hand, cards per non-storyteller, cards on the table, tokens per voter)
        ("odyssey", 3, (7, 2, 5, 1)),  # 3 players: hand 7, two cards each, 5 on the table
        ("odyssey", 4, (6, 1, 4, 1)),  # hand 6, one token
        ("odyssey", 6, (6, 1, 6, 1)),
        ("odyssey", 7, (6, 1, 7, 2)),  # 7–12: two tokens
        ("odyssey", 12, (6, 1, 12, 2)),
        ("classic", 3, (7, 2, 5, 1)),  # classic as odyssey 3–6, with the 3-player variant
        ("classic", 6, (6, 1, 6, 1)),
        ("party", 6, (5, 1, 6, 1)),  # hand 5, everyone plays, one green token
        ("party", 12, (5, 1, 12, 1)),
        ("teams", 8, (4, 1, 5, 1)),  # hand 4, one card per team; the 7+ rules never apply
        ("teams", 12, (4, 1, 7, 1)),
    ],
)
def test_hands_cards_and_tokens(mode: str, seats: int, expected: tuple[int, int, int, int]) -> None:
    rules = Ruleset.create(mode, seats)
    assert (rules.hand_size, rules.cards_per_player, rules.table_size, rules.tokens) == expected


@pytest.mark.parametrize(
    ("mode", "seats"),
    [("odyssey", 2), ("odyssey", 13), ("classic", 7), ("party", 5), ("party", 13), ("teams", 7), ("teams", 4)],
)
def test_seat_counts_outside_the_mode_are_refused(mode: str, seats: int) -> None:
    # odyssey 3–12, classic 3–6, party 6–12, teams 6, 8, 10 or 12
    with pytest.raises(InvalidSetup):
        Ruleset.create(mode, seats)


@pytest.mark.parametrize(("mode", "seats"), [("odyssey", 3), ("odyssey", 12), ("classic", 6), ("party", 6)])
def test_seat_counts_inside_the_mode_are_accepted(mode: str, seats: int) -> None:
    assert Ruleset.create(mode, seats).seats == seats


@pytest.mark.parametrize("seats", [6, 8, 10, 12])
def test_teams_pair_opposite_seats(seats: int) -> None:
    # seat s and seat s + N/2 form a team
    half = seats // 2
    assert Ruleset.create("teams", seats).teams == tuple((s, s + half) for s in range(half))


# ---------------------------------------------------------------- odyssey, 3–6 players


def test_worked_example_from_rules_md() -> None:
    # Four players, clue "Freedom": anna tells with k1; ben and carla find it (2 of 3 voters),
    # dora votes for ben's k2. Anna 3, finders 3 each, ben +1 for dora's vote, dora 0.
    facts = RoundFacts(
        seats=("anna", "ben", "carla", "dora"),
        storyteller="anna",
        played={"anna": ("k1",), "ben": ("k2",), "carla": ("k3",), "dora": ("k4",)},
        votes={"ben": ("k1",), "carla": ("k1",), "dora": ("k2",)},
    )
    rules = Ruleset.create("odyssey", 4)
    assert rules.mode.score(facts, rules) == {"anna": 3, "ben": 4, "carla": 3, "dora": 0}
    assert score_storytelling(facts, rules) == {"anna": 3, "ben": 4, "carla": 3, "dora": 0}


@pytest.mark.parametrize(
    ("seats", "storyteller", "votes", "expected"),
    [
        # F = 0: storyteller 0, every other player 2, plus +1 per decoy vote (one each here)
        pytest.param(4, 0, {1: "c2", 2: "c3", 3: "c1"}, [0, 3, 3, 3], id="nobody-finds"),
        # F = 0, the votes bunched: seat 1 gets three decoy votes (2 + 3), seat 2 one (2 + 1)
        pytest.param(5, 0, {1: "c2", 2: "c1", 3: "c1", 4: "c1"}, [0, 5, 3, 2, 2], id="nobody-finds-bunched"),
        # F = V: storyteller 0, every other player 2, no decoy votes
        pytest.param(4, 0, {1: "c0", 2: "c0", 3: "c0"}, [0, 2, 2, 2], id="everyone-finds"),
        # some find: storyteller 3, finders 3 (seat 1 also +2 for two decoy votes), others 0
        pytest.param(5, 0, {1: "c0", 2: "c1", 3: "c1", 4: "c0"}, [3, 5, 0, 0, 3], id="some-find"),
        # decoy cap: four votes on seat 1's card give only +3 (3 + 3)
        pytest.param(6, 0, {1: "c0", 2: "c1", 3: "c1", 4: "c1", 5: "c1"}, [3, 6, 0, 0, 0, 0], id="cap-some-find"),
        # decoy cap when nobody finds: seat 1 2 + min(4, 3), seat 2 2 + 1
        pytest.param(6, 0, {1: "c2", 2: "c1", 3: "c1", 4: "c1", 5: "c1"}, [0, 5, 3, 2, 2, 2], id="cap-none-find"),
        # storyteller at seat 3: finders 0 and 4 (2 of 5) score 3, seat 0 +2 decoys, seat 1 +1 decoy
        pytest.param(6, 3, {0: "c3", 1: "c0", 2: "c0", 4: "c3", 5: "c1"}, [5, 1, 0, 3, 3, 0], id="storyteller-seat-3"),
        # 3 players, some find: seat 2 finds (3) and draws seat 1's vote (+1); seat 1 0
        pytest.param(3, 0, {1: "c2", 2: "c0"}, [3, 0, 4], id="3p-some-find"),
        # 3 players: a vote on a player's second card is a vote for that player
        pytest.param(3, 0, {1: "d2", 2: "c0"}, [3, 0, 4], id="3p-second-card"),
        # 3 players, F = 0: 2 each, +1 each for the vote on one of their two cards
        pytest.param(3, 0, {1: "d2", 2: "c1"}, [0, 3, 3], id="3p-nobody-finds"),
        # 3 players, F = V: 2 each
        pytest.param(3, 0, {1: "c0", 2: "c0"}, [0, 2, 2], id="3p-everyone-finds"),
        # 3 players, storyteller at seat 1: seat 0 finds (1 of 2: storyteller 3, seat 0 3) and
        # seat 2's vote on d0, seat 0's second card, gives seat 0 +1 → 4; seat 2 0
        pytest.param(3, 1, {0: "c1", 2: "d0"}, [4, 3, 0], id="3p-storyteller-seat-1"),
    ],
)
def test_odyssey_small_tables(seats: int, storyteller: int, votes: Votes, expected: list[int]) -> None:
    assert score("odyssey", storytelling_round(seats, votes, storyteller=storyteller)) == expected


def test_three_players_both_cards_count_for_one_player_cap() -> None:
    # 3 players: votes on either card of a player are that player's votes, under one cap. With two
    # one-token voters a player can draw at most one vote, so the shared cap shows with decoy_cap 0:
    # neither card of seat 1 or seat 2 earns anything.
    facts = storytelling_round(3, {1: "d2", 2: "c1"})
    assert score("odyssey", facts, {"decoy_cap": 0}) == [0, 2, 2]
    # and the same round without the option (cap 3): one vote each, on the first or the second card
    assert score("odyssey", facts) == [0, 3, 3]


def test_three_players_refuse_a_vote_for_either_own_card() -> None:
    # 3 players: neither card may be voted for by its owner
    assert refusal("odyssey", storytelling_round(3, {1: "d1", 2: "c0"})) == "own_card"
    assert refusal("odyssey", storytelling_round(3, {1: "c0", 2: "c2"})) == "own_card"


def test_three_players_play_two_cards() -> None:
    # 3 players: each non-storyteller plays 2 cards; one is not enough
    facts = RoundFacts(
        seats=(0, 1, 2),
        storyteller=0,
        played={0: ("c0",), 1: ("c1",), 2: ("c2", "d2")},
        votes={1: ("c0",), 2: ("c1",)},
    )
    assert refusal("odyssey", facts) == "wrong_card_count"


def test_the_storyteller_does_not_vote_and_nobody_votes_for_their_own_card() -> None:
    assert refusal("odyssey", storytelling_round(4, {0: "c1", 1: "c0", 2: "c0", 3: "c0"})) == "storyteller_votes"
    assert refusal("odyssey", storytelling_round(4, {1: "c1", 2: "c0", 3: "c0"})) == "own_card"


def test_fewer_than_seven_players_vote_with_one_token() -> None:
    assert refusal("odyssey", storytelling_round(6, {1: "c0 c2", 2: "c0", 3: "c0", 4: "c0", 5: "c0"})) == (
        "wrong_token_count"
    )


# ---------------------------------------------------------------- odyssey, 7–12 players (two tokens)


@pytest.mark.parametrize(
    ("seats", "storyteller", "votes", "expected"),
    [
        # F = {1, 2} of 6: storyteller 3. Seat 1: one token, found → 3 + 1, plus decoy votes from
        # seats 3 and 4 → 6. Seat 2: two tokens, found → 3 (no +1), plus votes from 4 and 5 → 5.
        # Seat 3: votes from 2 and 5 → 2. Seat 5: one vote (seat 6) → 1. Each token on a decoy counts.
        pytest.param(
            7,
            0,
            {1: "c0", 2: "c0 c3", 3: "c1", 4: "c1 c2", 5: "c2 c3", 6: "c5"},
            [3, 6, 5, 2, 0, 1, 0],
            id="mixed",
        ),
        # found if either token is on the card, even the second: seat 1 (two tokens) is the only
        # finder → 3, no +1; five decoy votes capped at 3 → 6. Seat 2 gets seat 1's other token.
        pytest.param(
            7,
            0,
            {1: "c2 c0", 2: "c1", 3: "c1", 4: "c1", 5: "c1", 6: "c1"},
            [3, 6, 1, 0, 0, 0, 0],
            id="found-with-second-token",
        ),
        # F = V, all single tokens: 2 + 1 each
        pytest.param(7, 0, dict.fromkeys(range(1, 7), "c0"), [0, 3, 3, 3, 3, 3, 3], id="all-find-single-token"),
        # F = V mixed: single-token voters 2 + 1, two-token voters 2; seat 1 +2 decoys (4, 6),
        # seat 2 +1 decoy (5)
        pytest.param(
            7,
            0,
            {1: "c0", 2: "c0", 3: "c0", 4: "c0 c1", 5: "c0 c2", 6: "c1 c0"},
            [0, 5, 4, 3, 2, 2, 2],
            id="all-find-mixed",
        ),
        # F = 0: 2 each plus one per token on the card: seat 1 three (2, 3, 4), seats 2 and 3 two,
        # seats 5 and 6 one each
        pytest.param(
            7,
            0,
            {1: "c2 c3", 2: "c1 c3", 3: "c1 c2", 4: "c1", 5: "c6", 6: "c5"},
            [0, 5, 4, 4, 2, 3, 3],
            id="nobody-finds",
        ),
        # 8 players, cap: seat 1 draws four tokens (2, 3, 4, 5) → +3; finders 2 and 3 used two
        # tokens (3), finder 7 used one (3 + 1); seat 2 +2 (1, 6); seat 6 +1 (5)
        pytest.param(
            8,
            0,
            {1: "c2", 2: "c1 c0", 3: "c1 c0", 4: "c1", 5: "c1 c6", 6: "c2", 7: "c0"},
            [3, 3, 5, 3, 0, 0, 1, 4],
            id="8p-cap",
        ),
        # 12 players, storyteller seat 5: finders 0 (one token: 3 + 1) and 1 (two tokens: 3);
        # seat 0's card draws ten tokens, capped at +3 → 7
        pytest.param(
            12,
            5,
            {0: "c5", 1: "c5 c0", **dict.fromkeys((2, 3, 4, 6, 7, 8, 9, 10, 11), "c0")},
            [7, 3, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0],
            id="12p",
        ),
    ],
)
def test_odyssey_two_tokens(seats: int, storyteller: int, votes: Votes, expected: list[int]) -> None:
    assert score("odyssey", storytelling_round(seats, votes, storyteller=storyteller)) == expected


def test_two_tokens_by_default_go_on_different_slots() -> None:
    facts = storytelling_round(7, {1: "c2 c2", 2: "c0", 3: "c0", 4: "c1", 5: "c1", 6: "c1"})
    assert refusal("odyssey", facts) == "same_slot"


def test_two_tokens_never_on_own_card() -> None:
    facts = storytelling_round(7, {1: "c0 c1", 2: "c0", 3: "c0", 4: "c1", 5: "c1", 6: "c1"})
    assert refusal("odyssey", facts) == "own_card"


# ---------------------------------------------------------------- option decoy_cap


@pytest.mark.parametrize(
    ("cap", "expected_seat_0"),
    [
        # 12 players, storyteller seat 5: seat 0 finds with one token (3 + 1) and its card draws
        # ten decoy tokens: + min(10, cap)
        pytest.param(3, 7, id="default-3"),
        pytest.param(5, 9, id="5"),
        pytest.param(9, 13, id="9"),
        pytest.param(10, 14, id="10"),
        pytest.param(1, 5, id="1"),
        pytest.param(0, 4, id="0"),
        pytest.param(None, 14, id="none"),
    ],
)
def test_decoy_cap(cap: int | None, expected_seat_0: int) -> None:
    votes = {0: "c5", 1: "c5 c0", **dict.fromkeys((2, 3, 4, 6, 7, 8, 9, 10, 11), "c0")}
    points = score("odyssey", storytelling_round(12, votes, storyteller=5), {"decoy_cap": cap})
    assert points == [expected_seat_0, 3, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("cap", "expected"),
    [
        # 6 players, nobody finds: seat 1 draws four votes, seat 2 one; 2 each + min(votes, cap)
        pytest.param(0, [0, 2, 2, 2, 2, 2], id="0"),
        pytest.param(1, [0, 3, 3, 2, 2, 2], id="1"),
        pytest.param(3, [0, 5, 3, 2, 2, 2], id="3"),
        pytest.param(4, [0, 6, 3, 2, 2, 2], id="4"),
        pytest.param(None, [0, 6, 3, 2, 2, 2], id="none"),
    ],
)
def test_decoy_cap_six_players(cap: int | None, expected: list[int]) -> None:
    facts = storytelling_round(6, {1: "c2", 2: "c1", 3: "c1", 4: "c1", 5: "c1"})
    assert score("odyssey", facts, {"decoy_cap": cap}) == expected


# ---------------------------------------------------------------- option second_token_same_slot


def test_second_token_same_slot_counts_two_votes() -> None:
    # both of seat 1's tokens on seat 2's card are two votes. Seat 2 finds with both tokens on c0
    # → 3 (two tokens: no +1) + 2 from seat 1 = 5. Seat 3 finds with one token → 3 + 1.
    # Seat 1: three votes (4, 5, 6) → 3. F = 2 of 6 → storyteller 3.
    facts = storytelling_round(7, {1: "c2 c2", 2: "c0 c0", 3: "c0", 4: "c1", 5: "c1", 6: "c1"})
    assert score("odyssey", facts, {"second_token_same_slot": True}) == [3, 3, 5, 4, 0, 0, 0]


def test_second_token_same_slot_still_capped() -> None:
    # seats 1 and 3 put both tokens on seat 2's card: four votes → +3. Finders 2 and 4 (one
    # token each) 3 + 1; seat 2 3 + 1 + 3 = 7; seat 1 two votes (5, 6) → 2.
    facts = storytelling_round(7, {1: "c2 c2", 3: "c2 c2", 2: "c0", 4: "c0", 5: "c1", 6: "c1"})
    assert score("odyssey", facts, {"second_token_same_slot": True}) == [3, 2, 7, 0, 4, 0, 0]


# ---------------------------------------------------------------- option found_if


@pytest.mark.parametrize(
    ("found_if", "expected"),
    [
        # any_token: seat 2 (c0 + c1) found → F = {1, 2}: seat 1 3 + 1 + 2 decoys (2, 5) = 6,
        # seat 2 3 + 2 decoys (3, 4) = 5, seat 3 one decoy (6) = 1
        pytest.param("any_token", [3, 6, 5, 1, 0, 0, 0], id="any_token"),
        # all_tokens: seat 2 did not find (a token off the card) → F = {1}: seat 2 only its 2 decoys
        pytest.param("all_tokens", [3, 6, 2, 1, 0, 0, 0], id="all_tokens"),
    ],
)
def test_found_if(found_if: str, expected: list[int]) -> None:
    facts = storytelling_round(7, {1: "c0", 2: "c0 c1", 3: "c2", 4: "c2", 5: "c1", 6: "c3"})
    assert score("odyssey", facts, {"found_if": found_if}) == expected


@pytest.mark.parametrize(
    ("found_if", "expected"),
    [
        # any_token: everyone found (F = V): 2 each, +1 for the five single-token voters, seat 1
        # +1 decoy (6)
        pytest.param("any_token", [0, 4, 3, 3, 3, 3, 2], id="any_token"),
        # all_tokens: seat 6 did not find → 5 of 6: storyteller 3, finders 3 + 1, seat 1 +1 decoy
        pytest.param("all_tokens", [3, 5, 4, 4, 4, 4, 0], id="all_tokens"),
    ],
)
def test_found_if_decides_whether_everyone_found(found_if: str, expected: list[int]) -> None:
    facts = storytelling_round(7, {1: "c0", 2: "c0", 3: "c0", 4: "c0", 5: "c0", 6: "c0 c1"})
    assert score("odyssey", facts, {"found_if": found_if}) == expected


def test_found_if_all_tokens_with_both_tokens_on_the_card() -> None:
    # both tokens on the storyteller's card: found under all_tokens, but two tokens → no +1.
    # F = 1 of 6: storyteller 3, seat 1 3 + 2 decoys (2, 3) = 5, seat 2 three decoys (4, 5, 6)
    facts = storytelling_round(7, {1: "c0 c0", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 6: "c2"})
    options = {"found_if": "all_tokens", "second_token_same_slot": True}
    assert score("odyssey", facts, options) == [3, 5, 3, 0, 0, 0, 0]


# ---------------------------------------------------------------- option single_token_bonus


@pytest.mark.parametrize(
    ("bonus", "expected"),
    [
        pytest.param(True, [0, 3, 3, 3, 3, 3, 3], id="on: 2 + 1"),
        pytest.param(False, [0, 2, 2, 2, 2, 2, 2], id="off: 2"),
    ],
)
def test_single_token_bonus_when_everyone_finds(bonus: bool, expected: list[int]) -> None:
    facts = storytelling_round(7, dict.fromkeys(range(1, 7), "c0"))
    assert score("odyssey", facts, {"single_token_bonus": bonus}) == expected


def test_single_token_bonus_off_when_some_find() -> None:
    # the "mixed" two-token example: seat 1 loses its +1 (6 → 5), nothing else changes
    facts = storytelling_round(7, {1: "c0", 2: "c0 c3", 3: "c1", 4: "c1 c2", 5: "c2 c3", 6: "c5"})
    assert score("odyssey", facts, {"single_token_bonus": False}) == [3, 5, 5, 2, 0, 1, 0]


# ---------------------------------------------------------------- option lone_finder_bonus


@pytest.mark.parametrize(
    ("lone", "expected"),
    [
        # exactly one finder (seat 1) of 3: storyteller and seat 1 score 3 (default) or 4;
        # seat 1 also +2 decoys (2, 3)
        pytest.param(False, [3, 5, 0, 0], id="off"),
        pytest.param(True, [4, 6, 0, 0], id="on"),
    ],
)
def test_lone_finder_bonus(lone: bool, expected: list[int]) -> None:
    facts = storytelling_round(4, {1: "c0", 2: "c1", 3: "c1"})
    assert score("odyssey", facts, {"lone_finder_bonus": lone}) == expected


def test_lone_finder_bonus_not_with_two_finders() -> None:
    # the RULES.md example has two finders: still 3 for storyteller and finders
    facts = storytelling_round(4, {1: "c0", 2: "c0", 3: "c1"})
    assert score("odyssey", facts, {"lone_finder_bonus": True}) == [3, 4, 3, 0]


def test_lone_finder_bonus_not_when_everyone_finds() -> None:
    # everyone finds (F = V): 0 for the storyteller, 2 for the others, as without the option
    facts = storytelling_round(4, {1: "c0", 2: "c0", 3: "c0"})
    assert score("odyssey", facts, {"lone_finder_bonus": True}) == [0, 2, 2, 2]


@pytest.mark.parametrize(
    ("lone", "expected"),
    [
        # 7 players: seat 1 the only finder, with one token: 3 + 1 (default) or 4 + 1, plus one
        # decoy vote (2); seat 2 draws four votes → +3
        pytest.param(False, [3, 5, 3, 0, 0, 0, 0], id="off"),
        pytest.param(True, [4, 6, 3, 0, 0, 0, 0], id="on"),
    ],
)
def test_lone_finder_bonus_with_single_token_bonus(lone: bool, expected: list[int]) -> None:
    facts = storytelling_round(7, {1: "c0", 2: "c1", 3: "c2", 4: "c2", 5: "c2", 6: "c2"})
    assert score("odyssey", facts, {"lone_finder_bonus": lone}) == expected


def test_lone_finder_bonus_in_classic() -> None:
    facts = storytelling_round(4, {1: "c0", 2: "c1", 3: "c1"})
    assert score("classic", facts, {"lone_finder_bonus": True}) == [4, 6, 0, 0]


# ---------------------------------------------------------------- classic


@pytest.mark.parametrize(
    ("mode", "votes", "expected"),
    [
        # 6 players, the most votes one card can draw is 4 (five voters, one is its owner).
        # Classic has no cap: seat 1 finds (3) + 4 = 7; odyssey caps it: 3 + 3 = 6
        pytest.param("classic", {1: "c0", 2: "c1", 3: "c1", 4: "c1", 5: "c1"}, [3, 7, 0, 0, 0, 0], id="classic"),
        pytest.param("odyssey", {1: "c0", 2: "c1", 3: "c1", 4: "c1", 5: "c1"}, [3, 6, 0, 0, 0, 0], id="odyssey"),
        # nobody finds: seat 1 2 + 4 in classic, seat 2 2 + 1
        pytest.param("classic", {1: "c2", 2: "c1", 3: "c1", 4: "c1", 5: "c1"}, [0, 6, 3, 2, 2, 2], id="classic-F0"),
        # everyone finds: 0 / 2 as in odyssey
        pytest.param("classic", dict.fromkeys(range(1, 6), "c0"), [0, 2, 2, 2, 2, 2], id="classic-F=V"),
    ],
)
def test_classic_has_no_decoy_cap(mode: str, votes: Votes, expected: list[int]) -> None:
    assert score(mode, storytelling_round(6, votes)) == expected


def test_classic_decoy_cap_option() -> None:
    facts = storytelling_round(6, {1: "c0", 2: "c1", 3: "c1", 4: "c1", 5: "c1"})
    assert score("classic", facts, {"decoy_cap": 3}) == [3, 6, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("votes", "expected"),
    [
        # 3-player classic: two cards each; seat 2 finds (3) and gets seat 1's vote on d2 (+1)
        pytest.param({1: "d2", 2: "c0"}, [3, 0, 4], id="some-find"),
        pytest.param({1: "c0", 2: "c0"}, [0, 2, 2], id="everyone-finds"),
        pytest.param({1: "c2", 2: "d1"}, [0, 3, 3], id="nobody-finds"),
    ],
)
def test_classic_three_players(votes: Votes, expected: list[int]) -> None:
    assert score("classic", storytelling_round(3, votes)) == expected


def test_classic_three_players_play_two_cards() -> None:
    facts = RoundFacts(
        seats=(0, 1, 2),
        storyteller=0,
        played={0: ("c0",), 1: ("c1",), 2: ("c2",)},
        votes={1: ("c0",), 2: ("c0",)},
    )
    assert refusal("classic", facts) == "wrong_card_count"


# ---------------------------------------------------------------- party


PARTY_CASES = [
    # c1 has 3 green votes (seat 1's own included) → its voters 3 each; seat 3 alone on its own
    # card (c = 1) → 0; c5 has 2 votes but the red token → 0.
    # Owner basis: seat 1 owns c1 → 3; c3 single vote → 0; c5 red → 0.
    pytest.param(
        6,
        {0: "c1", 1: "c1", 2: "c1", 3: "c3", 4: "c5", 5: "c5"},
        "c5",
        [3, 3, 3, 0, 0, 0],
        [0, 3, 0, 0, 0, 0],
        id="basic",
    ),
    # eight votes on c1: min(8, 5) = 5 each; red on the storyteller's own card (allowed)
    pytest.param(8, dict.fromkeys(range(8), "c1"), "c0", [5] * 8, [0, 5, 0, 0, 0, 0, 0, 0], id="max-5"),
    # the storyteller scores as a voter and may vote for their own card: c0 has 2 votes (0, 1),
    # c4 has 4 (2, 3, 4 its owner, 5); red on a card nobody chose
    pytest.param(
        6,
        {0: "c0", 1: "c0", 2: "c4", 3: "c4", 4: "c4", 5: "c4"},
        "c2",
        [2, 2, 4, 4, 4, 4],
        [2, 0, 0, 0, 4, 0],
        id="storyteller-votes",
    ),
    # red on a popular card: c2 3 votes → 3 for its voters; c3 3 votes but red → 0
    pytest.param(
        6,
        {0: "c2", 1: "c2", 2: "c3", 3: "c2", 4: "c3", 5: "c3"},
        "c3",
        [3, 3, 0, 3, 0, 0],
        [0, 0, 3, 0, 0, 0],
        id="red-on-popular-card",
    ),
    # everyone alone on their own card: c = 1 everywhere → 0
    pytest.param(6, {v: f"c{v}" for v in range(6)}, "c0", [0] * 6, [0] * 6, id="all-alone"),
    # 12 players: six on c1 (5 each), six on c2 with the red token (0)
    pytest.param(
        12,
        {**dict.fromkeys(range(6), "c1"), **dict.fromkeys(range(6, 12), "c2")},
        "c2",
        [5] * 6 + [0] * 6,
        [0, 5] + [0] * 10,
        id="12p",
    ),
    # exactly two votes: 2 each
    pytest.param(
        7,
        {0: "c3", 1: "c3", 2: "c0", 3: "c4", 4: "c5", 5: "c6", 6: "c2"},
        "c1",
        [2, 2, 0, 0, 0, 0, 0],
        [0, 0, 0, 2, 0, 0, 0],
        id="two-votes",
    ),
]


@pytest.mark.parametrize(("seats", "votes", "red", "voter_basis", "owner_basis"), PARTY_CASES)
def test_party_voter_basis(seats: int, votes: Votes, red: str, voter_basis: list[int], owner_basis: list[int]) -> None:
    facts = party_round(seats, votes, red)
    assert score("party", facts) == voter_basis
    assert score("party", facts, {"party_score_basis": "voter"}) == voter_basis
    assert score_party(facts, Ruleset.create("party", seats)) == dict(enumerate(voter_basis))


@pytest.mark.parametrize(("seats", "votes", "red", "voter_basis", "owner_basis"), PARTY_CASES)
def test_party_owner_basis(seats: int, votes: Votes, red: str, voter_basis: list[int], owner_basis: list[int]) -> None:
    assert score("party", party_round(seats, votes, red), {"party_score_basis": "owner"}) == owner_basis


def test_party_storyteller_not_at_seat_0() -> None:
    # storyteller 4 votes with everyone else; c2 gets 3 (1, 2 its owner, 4), c5 gets 3 (0, 3, 5)
    # but carries the red token
    facts = party_round(6, {0: "c5", 1: "c2", 2: "c2", 3: "c5", 4: "c2", 5: "c5"}, "c5", storyteller=4)
    assert score("party", facts) == [0, 3, 3, 0, 3, 0]


def test_party_everyone_votes_and_the_red_token_is_required() -> None:
    votes = dict.fromkeys(range(6), "c1")
    without_storyteller = dict.fromkeys(range(1, 6), "c1")
    assert refusal("party", party_round(6, without_storyteller, "c1")) == "missing_vote"
    assert refusal("party", party_round(6, votes, None)) == "red_required"


@pytest.mark.parametrize(
    ("target", "red", "allowed"),
    [
        ("any", "c0", True),  # default: the red token may go on the storyteller's own card
        ("any", "c3", True),
        ("not_own_card", "c0", False),  # the option forbids the storyteller's own card
        ("not_own_card", "c3", True),
    ],
)
def test_party_red_target(target: str, red: str, allowed: bool) -> None:
    facts = party_round(6, {0: "c3", 1: "c3", 2: "c3", 3: "c0", 4: "c0", 5: "c1"}, red)
    options = {"party_red_target": target}
    if allowed:
        # c3 has 3 votes (0, 1, 2), c0 2 (3, 4), c1 1; the red card scores 0
        expected = [0, 0, 0, 2, 2, 0] if red == "c3" else [3, 3, 3, 0, 0, 0]
        assert score("party", facts, options) == expected
    else:
        assert refusal("party", facts, options) == "own_card"


def test_party_red_target_in_a_game() -> None:
    game = Game.new("party", 6, options={"party_red_target": "not_own_card"}, seed=11)
    storyteller = game.storyteller
    plays = play_round(game, stop_at=Phase.VOTE)
    own_slot = game.table.index(plays[storyteller][0]) + 1
    red_slots = [a.slot for a in game.legal_actions(storyteller) if isinstance(a, PlaceRed)]
    assert sorted(red_slots) == [s for s in range(1, 7) if s != own_slot]
    with pytest.raises(IllegalAction) as refused:
        game.apply(PlaceRed(storyteller, own_slot))
    assert refused.value.code == "own_card"


def test_party_red_target_any_in_a_game() -> None:
    game = Game.new("party", 6, seed=11)
    play_round(game, stop_at=Phase.VOTE)
    red_slots = [a.slot for a in game.legal_actions(game.storyteller) if isinstance(a, PlaceRed)]
    assert sorted(red_slots) == [1, 2, 3, 4, 5, 6]


# ---------------------------------------------------------------- teams


@pytest.mark.parametrize(
    ("seats", "storyteller", "players", "votes", "expected"),
    [
        # 6 seats, teams (0,3) (1,4) (2,5); storyteller 0, teammate 3 plays c3; seats 1 and 2 play,
        # 4 and 5 vote. One of two finds: storyteller's team 3; team 1 (voter 4 found) 3 + 1 vote
        # on c1; team 2 (voter 5 did not) 0.
        pytest.param(6, 0, {1, 2}, {4: "c0", 5: "c1"}, [3, 4, 0], id="some-find"),
        # everyone finds: storyteller's team 0, other teams 2
        pytest.param(6, 0, {1, 2}, {4: "c0", 5: "c0"}, [0, 2, 2], id="everyone-finds"),
        # nobody finds, both votes on the storyteller's teammate's card: 0 + 2 for team 0
        pytest.param(6, 0, {1, 2}, {4: "c3", 5: "c3"}, [2, 2, 2], id="nobody-finds-teammate-card"),
        # nobody finds, votes on each other's cards: 2 + 1 each
        pytest.param(6, 0, {1, 2}, {4: "c2", 5: "c1"}, [0, 3, 3], id="nobody-finds"),
        # one finds (voter 5): team 0 3 + 1 (teammate's card), team 2 3, team 1 0
        pytest.param(6, 0, {1, 2}, {4: "c3", 5: "c0"}, [4, 0, 3], id="teammate-card-vote"),
        # 8 seats, teams (0,4) (1,5) (2,6) (3,7); storyteller 0, teammate 4; seat 5 plays for
        # team 1 (seat 1 votes), seat 2 for team 2 (6 votes), seat 7 for team 3 (3 votes).
        # Voters 1 and 3 find (2 of 3): team 0 3, team 1 3 + 1 (6's vote on c5), team 3 3.
        pytest.param(8, 0, {5, 2, 7}, {1: "c0", 6: "c5", 3: "c0"}, [3, 4, 0, 3], id="8-seats"),
        # 10 seats, storyteller 2 (team 2), teammate 7. Nobody finds: team 2 0 + min(3 votes, 3),
        # other teams 2, team 0 + 1 (voter 9 on c0)
        pytest.param(10, 2, {0, 1, 3, 4}, {5: "c7", 6: "c7", 8: "c7", 9: "c0"}, [3, 2, 3, 2, 2], id="10-seats"),
        # 12 seats, storyteller 0, teammate 6: four votes on c6 → team 0 3 + 3 (cap); voter 11 the
        # only finder → team 5 3; the others 0
        pytest.param(
            12,
            0,
            {1, 2, 3, 4, 5},
            {7: "c6", 8: "c6", 9: "c6", 10: "c6", 11: "c0"},
            [6, 0, 0, 0, 0, 3],
            id="12-seats-cap-storyteller-team",
        ),
        # 12 seats, nobody finds: four votes on c2 → team 2 2 + 3 (cap), team 1 2 + 1, team 0 0
        pytest.param(
            12,
            0,
            {1, 2, 3, 4, 5},
            {7: "c2", 8: "c1", 9: "c2", 10: "c2", 11: "c2"},
            [0, 3, 5, 2, 2, 2],
            id="12-seats-cap-other-team",
        ),
    ],
)
def test_teams(seats: int, storyteller: int, players: set[int], votes: Votes, expected: list[int]) -> None:
    assert score("teams", teams_round(seats, players, votes, storyteller=storyteller)) == expected


def test_teams_score_function_keys_are_team_indices() -> None:
    facts = teams_round(6, {1, 2}, {4: "c0", 5: "c1"})
    assert score_teams(facts, Ruleset.create("teams", 6)) == {0: 3, 1: 4, 2: 0}


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        # the 12-seat example: four votes on the teammate's card
        pytest.param({}, [6, 0, 0, 0, 0, 3], id="default"),
        pytest.param({"decoy_cap": None}, [7, 0, 0, 0, 0, 3], id="no-cap"),
        pytest.param({"decoy_cap": 1}, [4, 0, 0, 0, 0, 3], id="cap-1"),
        # one finder: storyteller's team and the finder's team 4 instead of 3
        pytest.param({"lone_finder_bonus": True}, [7, 0, 0, 0, 0, 4], id="lone-finder"),
    ],
)
def test_teams_options(options: Options, expected: list[int]) -> None:
    facts = teams_round(12, {1, 2, 3, 4, 5}, {7: "c6", 8: "c6", 9: "c6", 10: "c6", 11: "c0"})
    assert score("teams", facts, options) == expected


def test_teams_lone_finder_bonus_not_with_two_finders() -> None:
    facts = teams_round(8, {5, 2, 7}, {1: "c0", 6: "c5", 3: "c0"})
    assert score("teams", facts, {"lone_finder_bonus": True}) == [3, 4, 0, 3]


def test_team_vote_own_card() -> None:
    # voter 4 (team 1) votes for its teammate's card c1; voter 5 finds (1 of 2): team 0 3,
    # team 2 3; team 1 0 + 1 vote on its card
    facts = teams_round(6, {1, 2}, {4: "c1", 5: "c0"})
    assert refusal("teams", facts) == "teammate_card"
    assert score("teams", facts, {"team_vote_own_card": True}) == [3, 1, 3]


def test_teams_one_token_even_with_eight_seats() -> None:
    facts = teams_round(8, {5, 2, 7}, {1: "c0 c5", 6: "c5", 3: "c0"})
    assert refusal("teams", facts) == "wrong_token_count"


def test_teams_one_card_per_team() -> None:
    # both members of team 1 play: one card per team, the other member votes
    facts = teams_round(6, {1, 4, 2}, {5: "c0"})
    assert refusal("teams", facts) == "wrong_card_count"


# ---------------------------------------------------------------- options that end the game


def play_round(game: Game, stop_at: Phase | None = None) -> dict[int, tuple[str, ...]]:
    """Play the current round with each seat's first legal move (stop early at ``stop_at``).

    Returns the cards each seat put down.
    """
    start = game.round
    acted: set[tuple[int, type]] = set()
    plays: dict[int, tuple[str, ...]] = {}
    while not game.is_over and game.round == start and game.phase is not stop_at:
        seat = game.awaiting[0]
        action = next(a for a in game.legal_actions(seat) if (seat, type(a)) not in acted)
        if isinstance(action, Tell | BlindClue):
            action = action.with_clue("Freedom")
        if isinstance(action, Tell):
            plays[seat] = (action.card,)
        if isinstance(action, Play):
            plays[seat] = action.cards
        game.apply(action)
        acted.add((seat, type(action)))
    return plays


def play_to_the_end(game: Game, limit: int = 500) -> list[int]:
    """Play until the game ends; return the storyteller of each round."""
    storytellers: list[int] = []
    while not game.is_over:
        assert len(storytellers) < limit
        storytellers.append(game.storyteller)
        play_round(game)
    return storytellers


@pytest.mark.parametrize(("target", "seed"), [(30, 1), (30, 2), (12, 3)])
def test_target_score_ends_the_turn_someone_reaches_it(target: int, seed: int) -> None:
    options = {} if target == 30 else {"target_score": target}
    game = Game.new("odyssey", 4, options=options, seed=seed)
    while not game.is_over:
        before = list(game.scores)
        assert max(before) < target
        play_round(game)
    assert max(game.scores) >= target
    # players tied for most points share the victory
    assert game.outcome is not None
    assert game.outcome.winners == tuple(s for s in range(4) if game.scores[s] == max(game.scores))


def test_target_score_one_ends_after_the_first_round() -> None:
    # every round gives someone at least 2 points
    game = Game.new("odyssey", 5, options={"target_score": 1}, seed=4)
    play_round(game)
    assert game.is_over
    assert game.round == 1


@pytest.mark.parametrize(
    ("mode", "seats", "options", "rounds"),
    [
        ("party", 6, {}, 6),  # every player storyteller once
        ("party", 6, {"storyteller_cycles": 2}, 12),
        ("teams", 6, {}, 6),
        ("teams", 8, {"storyteller_cycles": 2}, 16),
        ("odyssey", 5, {"storyteller_cycles": 1, "target_score": None}, 5),
    ],
)
def test_storyteller_cycles(mode: str, seats: int, options: Options, rounds: int) -> None:
    game = Game.new(mode, seats, options=options, seed=5)
    storytellers = play_to_the_end(game)
    assert len(storytellers) == rounds
    # the storyteller passes to the left each turn: each seat the same number of times
    first = storytellers[0]
    assert storytellers == [(first + i) % seats for i in range(rounds)]


def test_classic_ends_when_the_draw_pile_runs_out() -> None:
    # 4 players: 24 cards dealt, 12 left; each round 4 are drawn → the pile is empty after round 3
    game = Game.new("classic", 4, seed=6, deck=numbered_deck(36))
    assert len(play_to_the_end(game)) == 3
    assert max(game.scores) < 30


def test_odyssey_does_not_end_when_the_draw_pile_runs_out() -> None:
    game = Game.new("odyssey", 4, seed=6, deck=numbered_deck(28))
    for _ in range(4):
        play_round(game)
    assert not game.is_over


def test_end_on_empty_deck_option_in_odyssey() -> None:
    # 28 cards, 4 players: 4 left after dealing, all drawn after round 1
    game = Game.new("odyssey", 4, options={"end_on_empty_deck": True}, seed=6, deck=numbered_deck(28))
    play_round(game)
    assert game.is_over


def test_first_storyteller_chosen_by_the_host() -> None:
    game = Game.new("odyssey", 5, options={"first_storyteller": 3}, seed=7)
    assert game.storyteller == 3
    play_round(game)
    assert game.storyteller == 4


# ---------------------------------------------------------------- options validity


@pytest.mark.parametrize(
    ("mode", "options"),
    [
        ("odyssey", {"decoy_cap": 7}),
        ("odyssey", {"decoy_cap": None}),
        ("classic", {"decoy_cap": 3}),
        ("teams", {"decoy_cap": 0}),
        ("odyssey", {"second_token_same_slot": True}),
        ("odyssey", {"found_if": "all_tokens"}),
        ("odyssey", {"single_token_bonus": False}),
        ("odyssey", {"lone_finder_bonus": True}),
        ("party", {"party_score_basis": "owner"}),
        ("party", {"party_red_target": "not_own_card"}),
        ("party", {"storyteller_cycles": 3}),
        ("odyssey", {"target_score": 50}),
        ("classic", {"end_on_empty_deck": False}),
        ("teams", {"team_vote_own_card": True}),
    ],
)
def test_every_option_is_accepted(mode: str, options: Options) -> None:
    seats = 8 if mode in ("party", "teams", "odyssey") else 5
    resolved = Ruleset.create(mode, seats, options).options
    for name, value in options.items():
        assert getattr(resolved, name) == value


@pytest.mark.parametrize(
    ("mode", "name", "default"),
    [
        ("odyssey", "decoy_cap", 3),
        ("classic", "decoy_cap", None),
        ("teams", "decoy_cap", 3),
        ("odyssey", "second_token_same_slot", False),
        ("odyssey", "found_if", "any_token"),
        ("odyssey", "single_token_bonus", True),
        ("odyssey", "lone_finder_bonus", False),
        ("party", "party_score_basis", "voter"),
        ("party", "party_red_target", "any"),
        ("party", "storyteller_cycles", 1),
        ("teams", "storyteller_cycles", 1),
        ("odyssey", "target_score", 30),
        ("classic", "target_score", 30),
        ("odyssey", "end_on_empty_deck", False),
        ("classic", "end_on_empty_deck", True),
        ("teams", "team_vote_own_card", False),
    ],
)
def test_option_defaults(mode: str, name: str, default: object) -> None:
    seats = 6
    assert getattr(Ruleset.create(mode, seats).options, name) == default


@pytest.mark.parametrize(
    "options",
    [
        {"no_such_option": True},
        {"found_if": "some_tokens"},
        {"storyteller_cycles": 0},
        {"target_score": 0},
        {"second_token_same_slot": "yes"},
    ],
)
def test_bad_options_are_refused(options: Options) -> None:
    with pytest.raises(InvalidSetup):
        Ruleset.create("odyssey", 8, options)


# ---------------------------------------------------------------- end of turn: refills


@pytest.mark.parametrize(
    ("mode", "seats", "hand"), [("odyssey", 3, 7), ("odyssey", 4, 6), ("classic", 3, 7), ("teams", 6, 4)]
)
def test_every_player_who_played_refills_to_the_hand_size(mode: str, seats: int, hand: int) -> None:
    # 3 players: the storyteller draws 1, the others 2 — everyone is back to 7
    game = Game.new(mode, seats, seed=8)
    play_round(game)
    assert [len(game.hand(s)) for s in range(seats)] == [hand] * seats


def test_party_hands_pass_to_the_left_after_the_refill() -> None:
    # seat s's hand (less the card it played, plus one drawn card) goes to seat s + 1
    game = Game.new("party", 6, seed=9)
    before = [set(game.hand(s)) for s in range(6)]
    plays = play_round(game)
    for seat in range(6):
        left_over = before[seat] - set(plays[seat])
        received = set(game.hand((seat + 1) % 6))
        assert len(received) == 5
        assert left_over <= received


# ---------------------------------------------------------------- the reasons the reveal gives


def _reasons(explained: Mapping[Any, Any]) -> dict[Any, list[tuple[str, int, int | None]]]:
    return {who: [(part.reason, part.points, part.count) for part in parts] for who, parts in explained.items()}


def test_odyssey_reasons_name_the_finders_the_missers_and_the_decoy_votes() -> None:
    # 4 players: 1 and 2 find c0, 3 votes for c1
    facts = storytelling_round(4, {1: "c0", 2: "c0", 3: "c1"})
    assert _reasons(explain_storytelling(facts, Ruleset.create("odyssey", 4))) == {
        0: [("told", 3, None)],
        1: [("found", 3, None), ("decoys", 1, 1)],
        2: [("found", 3, None)],
        3: [("missed", 0, None)],
    }


def test_odyssey_reasons_say_whether_everyone_or_no_one_found_the_card() -> None:
    everyone = storytelling_round(4, {1: "c0", 2: "c0", 3: "c0"})
    no_one = storytelling_round(4, {1: "c2", 2: "c1", 3: "c1"})
    rules = Ruleset.create("odyssey", 4)
    assert _reasons(explain_storytelling(everyone, rules))[0] == [("all_found", 0, None)]
    assert _reasons(explain_storytelling(everyone, rules))[3] == [("all_found", 2, None)]
    assert _reasons(explain_storytelling(no_one, rules))[0] == [("none_found", 0, None)]
    # seat 1 draws two votes: 2 for no one finding it, 2 more for the votes
    assert _reasons(explain_storytelling(no_one, rules))[1] == [("none_found", 2, None), ("decoys", 2, 2)]


def test_the_single_token_bonus_and_the_decoy_cap_are_their_own_reasons() -> None:
    # 8 players, two tokens: seat 1 finds c0 with one token (+1); seat 2 finds it with two;
    # c3 draws four tokens, capped at 3
    votes = {1: "c0", 2: "c0 c3", 4: "c3", 5: "c3", 6: "c3", 7: "c2"}
    facts = storytelling_round(8, {**votes, 3: "c2"})
    reasons = _reasons(explain_storytelling(facts, Ruleset.create("odyssey", 8)))
    assert reasons[1] == [("found", 3, None), ("single_token", 1, None)]
    assert reasons[2] == [("found", 3, None), ("decoys", 2, 2)]
    assert reasons[3] == [("missed", 0, None), ("decoys", 3, 4)]


def test_party_reasons_are_the_voters_crowds_never_the_storytellers_card() -> None:
    # 6 players; seat 0 tells and votes for its own c0 (with seats 1 and 2: 3 votes); seats 3 and
    # 4 vote c3 under the red token; seat 5 is alone on c1
    facts = party_round(6, {0: "c0", 1: "c0", 2: "c0", 3: "c3", 4: "c3", 5: "c1"}, red="c3")
    reasons = _reasons(explain_party(facts, Ruleset.create("party", 6)))
    assert reasons[0] == reasons[1] == reasons[2] == [("crowd", 3, 3)]
    assert reasons[3] == reasons[4] == [("red", 0, 2)]
    assert reasons[5] == [("alone", 0, 1)]


def test_party_reasons_with_the_owner_basis_go_to_each_cards_owner() -> None:
    facts = party_round(6, {0: "c0", 1: "c0", 2: "c0", 3: "c3", 4: "c3", 5: "c1"}, red="c3")
    reasons = _reasons(explain_party(facts, Ruleset.create("party", 6, {"party_score_basis": "owner"})))
    assert reasons[0] == [("owned_crowd", 3, 3)]
    assert reasons[1] == [("owned_alone", 0, 1)]
    assert reasons[3] == [("owned_red", 0, 2)]
    assert reasons[2] == [("owned_unchosen", 0, 0)]


def test_teams_reasons_are_by_team() -> None:
    # 6 players, teams (0, 3), (1, 4), (2, 5); seat 0 tells, 3 plays for the storyteller's team;
    # seats 1 and 2 play; voters 4 (finds c0) and 5 (votes c1)
    facts = teams_round(6, {1, 2}, {4: "c0", 5: "c1"})
    reasons = _reasons(explain_teams(facts, Ruleset.create("teams", 6)))
    assert reasons == {
        0: [("told", 3, None)],
        1: [("found", 3, None), ("decoys", 1, 1)],
        2: [("missed", 0, None)],
    }
