"""Game flow, one behaviour at a time: setup checks, each kind of action, views and end of game."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from fabula.rules import (
    BlindClue,
    Game,
    IllegalAction,
    InvalidSetup,
    Phase,
    PlaceRed,
    Play,
    Propose,
    Tell,
    Vote,
    numbered_deck,
)
from fabula.rules.events import DeckReshuffled, GameEnded, Played, TableLaid, Voted

from .play import random_moves


def tell(game: Game, clue: str = "Freedom") -> str:
    """The storyteller tells with the first card of the hand; returns that card."""
    card = game.hand(game.storyteller)[0]
    game.apply(Tell(game.storyteller, card, clue))
    return card


def play_all(game: Game) -> None:
    """Every awaited seat plays its first card(s)."""
    while game.phase is Phase.PLAY:
        seat = game.awaiting[0]
        game.apply(Play(seat, game.hand(seat)[: game.rules.cards_per_player]))


def slot_of_owner(game: Game, owner: int) -> int:
    return game.owners.index(owner) + 1


def refused(game: Game, action: object) -> str:
    """The code ``action`` is refused with; the state must be unchanged."""
    before = game.to_json()
    with pytest.raises(IllegalAction) as error:
        game.apply(action)  # type: ignore[arg-type]
    assert game.to_json() == before
    assert error.value.message
    return error.value.code


# ------------------------------------------------------------------ creating a game


@pytest.mark.parametrize(
    ("mode", "seats", "options", "code", "words"),
    [
        ("teams", 7, {}, "bad_seat_count", "6, 8, 10 or 12 players"),
        ("odyssey", 2, {}, "bad_seat_count", "3 to 12 players"),
        ("odyssey", 13, {}, "bad_seat_count", "3 to 12 players"),
        ("party", 5, {}, "bad_seat_count", "6 to 12 players"),
        ("classic", 7, {}, "bad_seat_count", "3 to 6 players"),
        ("chess", 4, {}, "unknown_mode", "odyssey"),
        ("odyssey", 4, {"decoy_kap": 2}, "unknown_option", "decoy_kap"),
        ("odyssey", 4, {"party_score_basis": "owner"}, "option_not_for_mode", "party"),
        ("classic", 4, {"found_if": "all_tokens"}, "option_not_for_mode", "odyssey"),
        ("odyssey", 4, {"decoy_cap": "3"}, "bad_option", "integer"),
        ("odyssey", 4, {"single_token_bonus": 1}, "bad_option", "true or false"),
        ("odyssey", 4, {"target_score": 0}, "bad_option", "from 1 to 1000"),
        ("party", 6, {"storyteller_cycles": 0}, "bad_option", "from 1 to 50"),
        ("odyssey", 4, {"first_storyteller": 4}, "bad_option", "0 to 3"),
        ("odyssey", 4, {"target_score": None}, "no_end_condition", "never end"),
    ],
)
def test_a_game_that_cannot_be_created_is_refused_with_the_reason(
    mode: str, seats: int, options: dict[str, object], code: str, words: str
) -> None:
    with pytest.raises(InvalidSetup) as error:
        Game.new(mode, seats, options=options)
    assert error.value.code == code
    assert words in error.value.message


def test_a_deck_too_small_says_how_many_cards_are_missing() -> None:
    # 12 odyssey players: 12 hands of 6 and a table of 12 = 84 cards.
    with pytest.raises(InvalidSetup) as error:
        Game.new("odyssey", 12, deck=numbered_deck(80))
    assert error.value.code == "deck_too_small"
    assert "needs 84 cards" in error.value.message
    assert "4 missing" in error.value.message
    Game.new("odyssey", 12, deck=numbered_deck(84))


def test_a_deck_with_a_repeated_card_is_refused() -> None:
    with pytest.raises(InvalidSetup, match="twice"):
        Game.new("odyssey", 4, deck=[*numbered_deck(40), "c01"])


def test_the_deal_and_first_storyteller_come_from_the_seed() -> None:
    one, same, other = (Game.new("odyssey", 6, seed=s) for s in (5, 5, 6))
    assert one.to_json() == same.to_json()
    assert [one.hand(s) for s in range(6)] != [other.hand(s) for s in range(6)]
    firsts = Counter(Game.new("odyssey", 5, seed=s).storyteller for s in range(500))
    assert set(firsts) == set(range(5)), "the first storyteller is chosen at random"
    assert all(Game.new("odyssey", 5, options={"first_storyteller": 3}, seed=s).storyteller == 3 for s in range(20))


@pytest.mark.parametrize(
    ("mode", "seats", "hand"),
    [("odyssey", 3, 7), ("odyssey", 4, 6), ("odyssey", 12, 6), ("party", 6, 5), ("teams", 8, 4)],
)
def test_hands_are_dealt_at_the_mode_size(mode: str, seats: int, hand: int) -> None:
    game = Game.new(mode, seats, seed=1)
    assert [len(game.hand(s)) for s in range(seats)] == [hand] * seats
    assert game.draw_pile_size == 84 - seats * hand


# ------------------------------------------------------------------ the storyteller


@pytest.mark.parametrize(
    ("clue", "code"),
    [
        (None, "clue_required"),
        ("", "clue_empty"),
        ("   ", "clue_empty"),
        ("x" * 201, "clue_too_long"),
        ("two\nlines", "clue_invalid"),
        (42, "malformed"),
    ],
)
def test_a_bad_clue_is_refused(clue: object, code: str) -> None:
    game = Game.new("odyssey", 4, seed=2)
    card = game.hand(game.storyteller)[0]
    assert refused(game, Tell(game.storyteller, card, clue)) == code  # type: ignore[arg-type]


def test_the_clue_is_trimmed_and_up_to_200_characters_is_fine() -> None:
    game = Game.new("odyssey", 4, seed=2)
    game.apply(Tell(game.storyteller, game.hand(game.storyteller)[0], "  " + "é" * 200 + " "))
    assert game.clue == "é" * 200


def test_only_the_storyteller_tells_and_only_with_a_card_in_hand() -> None:
    game = Game.new("odyssey", 4, seed=3)
    other = (game.storyteller + 1) % 4
    assert refused(game, Tell(other, game.hand(other)[0], "Freedom")) == "not_your_turn"
    assert refused(game, Tell(game.storyteller, game.hand(other)[0], "Freedom")) == "card_not_in_hand"
    assert refused(game, Play(other, game.hand(other)[:1])) == "wrong_phase"
    assert refused(game, BlindClue(game.storyteller, "Freedom")) == "wrong_action"
    assert refused(game, Tell(7, "c01", "Freedom")) == "bad_seat"


def test_party_storyteller_speaks_before_seeing_the_hand() -> None:
    game = Game.new("party", 6, seed=4)
    storyteller = game.storyteller
    assert game.view(storyteller).to_json()["hand"] is None
    assert game.view(storyteller).to_json()["hand_hidden"] is True
    assert game.view((storyteller + 1) % 6).to_json()["hand"] == list(game.hand((storyteller + 1) % 6))
    assert game.legal_actions(storyteller) == [BlindClue(storyteller, None)]
    assert refused(game, Tell(storyteller, game.hand(storyteller)[0], "Freedom")) == "wrong_action"
    game.apply(BlindClue(storyteller, "Freedom"))
    assert game.view(storyteller).to_json()["hand"] == list(game.hand(storyteller))
    assert storyteller in game.awaiting, "in party the storyteller plays a card like everyone"


# ------------------------------------------------------------------ playing cards


def test_a_play_can_be_changed_until_the_last_card_is_in() -> None:
    game = Game.new("odyssey", 4, seed=5)
    tell(game)
    first, second, third = ((game.storyteller + k) % 4 for k in (1, 2, 3))
    hand = game.hand(first)
    assert game.apply(Play(first, (hand[0],))) == [Played(first, False)]
    assert game.apply(Play(first, (hand[1],))) == [Played(first, True)]
    assert game.view(first).to_json()["my_cards"] == [hand[1]]
    assert game.awaiting == tuple(sorted((second, third)))
    game.apply(Play(second, game.hand(second)[:1]))
    events = game.apply(Play(third, game.hand(third)[:1]))
    assert isinstance(events[-1], TableLaid)
    assert hand[1] in game.table
    assert hand[0] not in game.table
    assert hand[0] in game.hand(first)
    assert hand[1] not in game.hand(first)


def test_play_refusals() -> None:
    game = Game.new("odyssey", 4, seed=6)
    tell(game)
    seat = (game.storyteller + 1) % 4
    hand = game.hand(seat)
    assert refused(game, Play(game.storyteller, game.hand(game.storyteller)[:1])) == "not_your_turn"
    assert refused(game, Play(seat, hand[:2])) == "wrong_card_count"
    assert refused(game, Play(seat, ())) == "wrong_card_count"
    assert refused(game, Play(seat, ("nope",))) == "card_not_in_hand"
    assert refused(game, Vote(seat, (1,))) == "wrong_phase"


def test_three_players_each_play_two_different_cards_and_refill_two() -> None:
    game = Game.new("odyssey", 3, seed=7)
    storyteller = game.storyteller
    tell(game)
    seat = (storyteller + 1) % 3
    hand = game.hand(seat)
    assert refused(game, Play(seat, hand[:1])) == "wrong_card_count"
    assert refused(game, Play(seat, (hand[0], hand[0]))) == "duplicate_card"
    play_all(game)
    assert len(game.table) == 5
    assert [len(game.hand(s)) for s in range(3)] == [5 if s != storyteller else 6 for s in range(3)]
    for voter in game.voters:
        own = [slot for slot in range(1, 6) if game.owners[slot - 1] == voter]
        assert len(own) == 2
        for slot in own:
            assert refused(game, Vote(voter, (slot,))) == "own_card"
        game.apply(Vote(voter, (slot_of_owner(game, storyteller),)))
    assert [len(game.hand(s)) for s in range(3)] == [7, 7, 7]


# ------------------------------------------------------------------ teams


def test_teams_either_member_plays_and_the_other_votes() -> None:
    game = Game.new("teams", 6, options={"first_storyteller": 0}, seed=8)
    tell(game)
    # Seats 0 and 3 are the storyteller's team; 1+4 and 2+5 the others.
    assert list(game.awaiting) == [1, 2, 3, 4, 5]
    assert refused(game, Propose(3, game.hand(3)[0])) == "not_your_turn"
    game.apply(Propose(1, game.hand(1)[0]))
    assert game.view(4).to_json()["teammate_proposed"] is True
    assert game.view(2).to_json()["teammate_proposed"] is False
    assert game.hand(1)[0] not in str(game.view(4)), "the teammate never sees the proposed card"
    game.apply(Play(1, game.hand(1)[:1]))
    assert list(game.awaiting) == [2, 3, 5]
    # Team 1+4 changes its mind: seat 4 plays instead, and seat 1 becomes the voter.
    assert game.apply(Play(4, game.hand(4)[:1])) == [Played(4, True)]
    assert game.view(4).to_json()["acted"] == [4]
    game.apply(Play(3, game.hand(3)[:1]))
    game.apply(Play(2, game.hand(2)[:1]))
    assert game.phase is Phase.VOTE
    assert game.voters == (1, 5)
    assert set(game.owners) == {0, 3, 4, 2}
    assert refused(game, Vote(4, (1,))) == "not_your_turn"
    assert refused(game, Vote(1, (slot_of_owner(game, 4),))) == "teammate_card"
    assert refused(game, Vote(0, (1,))) == "not_your_turn"


def test_teams_option_lets_the_voter_vote_for_the_teammate_card() -> None:
    game = Game.new("teams", 6, options={"first_storyteller": 0, "team_vote_own_card": True}, seed=8)
    tell(game)
    for seat in (4, 2, 3):
        game.apply(Play(seat, game.hand(seat)[:1]))
    game.apply(Vote(1, (slot_of_owner(game, 4),)))
    assert game.view(1).to_json()["my_vote"] == [slot_of_owner(game, 4)]


# ------------------------------------------------------------------ voting


def test_votes_are_secret_changeable_and_the_storyteller_does_not_vote() -> None:
    game = Game.new("odyssey", 5, seed=9)
    storyteller = game.storyteller
    tell(game)
    play_all(game)
    voter = game.voters[0]
    own = slot_of_owner(game, voter)
    other = next(slot for slot in range(1, 6) if slot != own)
    assert refused(game, Vote(storyteller, (other,))) == "not_your_turn"
    assert refused(game, Vote(voter, (own,))) == "own_card"
    assert refused(game, Vote(voter, (0,))) == "bad_slot"
    assert refused(game, Vote(voter, (6,))) == "bad_slot"
    assert refused(game, Vote(voter, (other, other))) == "wrong_token_count"
    assert refused(game, Vote(voter, ())) == "wrong_token_count"
    assert game.apply(Vote(voter, (other,))) == [Voted(voter, False)]
    assert game.apply(Vote(voter, (own % 5 + 1 if own % 5 + 1 != own else 1,)))[0] == Voted(voter, True)
    assert game.view(game.voters[1]).to_json()["my_vote"] == []
    assert game.view(game.voters[1]).to_json()["acted"] == [voter]


def test_seven_or_more_vote_with_one_or_two_tokens_on_different_cards() -> None:
    game = Game.new("odyssey", 7, seed=10)
    tell(game)
    play_all(game)
    voter = game.voters[0]
    free = [slot for slot in range(1, 8) if game.owners[slot - 1] != voter]
    assert refused(game, Vote(voter, (free[0], free[0]))) == "same_slot"
    assert refused(game, Vote(voter, tuple(free[:3]))) == "wrong_token_count"
    game.apply(Vote(voter, (free[1], free[0])))
    assert game.view(voter).to_json()["my_vote"] == sorted(free[:2])
    legal = game.legal_actions(voter)
    assert len(legal) == 6 + 15, "six single votes and every pair of different slots"


def test_party_everyone_votes_even_for_their_own_card_and_the_storyteller_places_red() -> None:
    game = Game.new("party", 6, options={"party_red_target": "not_own_card"}, seed=11)
    storyteller = game.storyteller
    game.apply(BlindClue(storyteller, "Freedom"))
    play_all(game)
    assert game.voters == tuple(range(6))
    own = slot_of_owner(game, storyteller)
    assert refused(game, PlaceRed(storyteller, own)) == "own_card"
    assert refused(game, PlaceRed((storyteller + 1) % 6, 1)) == "not_your_turn"
    for seat in range(6):
        game.apply(Vote(seat, (slot_of_owner(game, seat),)))
    assert list(game.awaiting) == [storyteller], "waiting for the red token"
    game.apply(PlaceRed(storyteller, own % 6 + 1))
    assert game.view(None).to_json()["phase"] == "clue"
    assert game.last_result is not None
    assert game.last_result.red == own % 6 + 1
    # Everyone voted alone for their own card: c = 1 scores nothing.
    assert game.scores == [0] * 6


# ------------------------------------------------------------------ the table and the reveal


def test_the_table_order_is_a_fresh_shuffle_every_turn() -> None:
    repeats = 0
    seat_order = 0
    slots: Counter[int] = Counter()
    for seed in range(60):
        game = Game.new("odyssey", 6, seed=seed)
        previous: tuple[int, ...] = ()
        for _ in range(4):
            tell(game)
            play_all(game)
            repeats += game.owners == previous
            seat_order += game.owners == tuple(range(6))
            previous = game.owners
            slots[slot_of_owner(game, game.storyteller)] += 1
            while game.phase is Phase.VOTE:
                voter = game.awaiting[0]
                game.apply(next(a for a in game.legal_actions(voter)))
    # 720 orders of six cards: a repeat or the plain seat order should hardly ever happen.
    assert repeats <= 2, "the same order as the turn before"
    assert seat_order <= 2, "the seat order"
    assert set(slots) == set(range(1, 7))
    assert min(slots.values()) >= 20


def test_the_reveal_shows_everything_once_the_last_vote_is_in() -> None:
    game = Game.new("odyssey", 4, seed=12)
    storyteller = game.storyteller
    card = tell(game, "Freedom")
    play_all(game)
    target = slot_of_owner(game, storyteller)
    votes = {}
    for voter in game.voters:
        choice = (
            target
            if voter != game.voters[-1]
            else next(s for s in range(1, 5) if s != target and game.owners[s - 1] != voter)
        )
        votes[voter] = choice
        game.apply(Vote(voter, (choice,)))
    result = game.view(None).to_json()["last_round"]
    assert result["clue"] == "Freedom"
    assert result["storyteller_card"] == card
    assert result["owners"] == list(game.last_result.owners)  # type: ignore[union-attr]
    assert {v: result["votes"][v] for v in votes} == {v: [s] for v, s in votes.items()}
    assert result["votes"][storyteller] == []
    assert result["finders"] == sorted(v for v in votes if votes[v] == target)
    assert result["storyteller_scored"] is True
    assert result["points"][storyteller] == 3


# ------------------------------------------------------------------ the end


def test_odyssey_reshuffles_the_discard_and_never_ends_for_lack_of_cards() -> None:
    game = Game.new("odyssey", 6, options={"target_score": 150}, seed=13)
    reshuffles = 0
    for _action, events in random_moves(game, random.Random(1)):
        reshuffles += sum(isinstance(e, DeckReshuffled) for e in events)
    assert reshuffles >= 3
    assert max(game.scores) >= 150


def test_classic_ends_when_the_draw_pile_runs_out() -> None:
    # 6 players: 84 - 36 dealt = 48 in the pile, 6 drawn a turn: the pile is empty after 8 turns.
    game = Game.new("classic", 6, options={"target_score": 1000}, seed=14)
    ended = [e for _a, events in random_moves(game, random.Random(2)) for e in events if isinstance(e, GameEnded)]
    assert len(ended) == 1
    assert game.round == 8
    assert game.draw_pile_size == 0


@pytest.mark.parametrize(("mode", "seats", "cycles"), [("party", 7, 1), ("teams", 8, 2), ("odyssey", 5, 2)])
def test_cycle_games_end_after_everyone_told_k_times(mode: str, seats: int, cycles: int) -> None:
    options: dict[str, object] = {"storyteller_cycles": cycles}
    if mode == "odyssey":
        options["target_score"] = None
    game = Game.new(mode, seats, options=options, seed=15)
    for _ in random_moves(game, random.Random(3)):
        pass
    assert game.round == seats * cycles


def test_after_the_end_nothing_more_is_accepted_and_ties_share_the_win() -> None:
    for seed in range(400):
        game = Game.new("odyssey", 4, options={"target_score": 3}, seed=seed)
        for _ in random_moves(game, random.Random(seed)):
            pass
        assert game.outcome is not None
        if game.outcome.is_tie:
            break
    else:
        pytest.fail("no tie in 400 short games")
    best = max(game.scores)
    assert game.outcome.winners == tuple(s for s in range(4) if game.scores[s] == best)
    assert len(game.outcome.winners) > 1
    assert game.view(0).to_json()["outcome"]["winners"] == list(game.outcome.winners)
    assert game.legal_actions(0) == []
    assert refused(game, Vote(0, (1,))) == "game_over"


def test_teams_outcome_names_the_winning_team_and_both_members() -> None:
    game = Game.new("teams", 6, seed=16)
    for _ in random_moves(game, random.Random(4)):
        pass
    outcome = game.outcome
    assert outcome is not None
    assert outcome.winning_teams
    assert set(outcome.winners) == {seat for team in outcome.winning_teams for seat in (team, team + 3)}
