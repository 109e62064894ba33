"""Properties that hold in every game: thousands of random games in every mode and seat count."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabula.rules import (
    BlindClue,
    Game,
    IllegalAction,
    Phase,
    PlaceRed,
    Play,
    Propose,
    RoundResult,
    Tell,
    Vote,
)
from fabula.rules.events import HandsPassed, RoundScored, RoundStarted, TableLaid, event_to_json
from fabula.rules.scoring import REASONS

from .play import TABLES, card_leaves, examples, new_games, random_moves

MODES = sorted({mode for mode, _ in TABLES})


def games_of(mode: str) -> st.SearchStrategy[tuple[Game, random.Random]]:
    return new_games([table for table in TABLES if table[0] == mode])


def check_cards(game: Game) -> None:
    """Deck = draw pile + discard + hands + table, with no card twice."""
    held = [card for seat in range(game.seats) for card in game.hand(seat)]
    everywhere = [*game.draw_pile, *game.discard_pile, *held, *game.table]
    assert len(everywhere) == len(game.deck)
    assert set(everywhere) == set(game.deck)


def check_hand_sizes(game: Game) -> None:
    """Hands hold the mode's hand size, less what went on the table this turn."""
    size = game.rules.hand_size
    empty_deck_end = game.rules.options.end_on_empty_deck and not game.draw_pile_size
    for seat in range(game.seats):
        hand = game.hand(seat)
        if game.phase is Phase.VOTE:
            assert len(hand) == size - game.owners.count(seat)
        elif not empty_deck_end:
            assert len(hand) == size


def check_table(game: Game) -> None:
    """The table holds what the mode puts on it: the storyteller's card and the players' cards."""
    rules, owners = game.rules, game.owners
    assert len(game.table) == rules.table_size
    assert owners.count(game.storyteller) == 1 or rules.mode.clue_before_hand
    if rules.teams is not None:
        for first, second in rules.teams:
            assert owners.count(first) + owners.count(second) == (2 if game.storyteller in (first, second) else 1)
        assert len(game.voters) == rules.seats // 2 - 1
    else:
        for seat in range(rules.seats):
            assert owners.count(seat) == (1 if seat == game.storyteller else rules.cards_per_player)


@pytest.mark.parametrize("mode", MODES)
def test_cards_hands_scores_and_turn_order(mode: str) -> None:
    @given(games_of(mode))
    @examples(500)
    def check(setup: tuple[Game, random.Random]) -> None:
        _test_cards_hands_scores_and_turn_order(setup)

    check()


def _test_cards_hands_scores_and_turn_order(setup: tuple[Game, random.Random]) -> None:
    game, rng = setup
    n = game.seats
    previous_scores = list(game.scores)
    storytellers = [game.storyteller]
    check_cards(game)
    for _action, events in random_moves(game, rng):
        check_cards(game)
        check_hand_sizes(game)
        assert all(now >= before for now, before in zip(game.scores, previous_scores, strict=True))
        previous_scores = list(game.scores)
        for event in events:
            if isinstance(event, RoundStarted):
                assert event.storyteller == (storytellers[-1] + 1) % n, "the storyteller passes to the left"
                storytellers.append(event.storyteller)
            if isinstance(event, TableLaid):
                check_table(game)
            if isinstance(event, RoundScored):
                result = event.result
                assert list(result.scores) == game.scores
                # the reveal's explanation adds up to the points, for every seat
                assert [sum(part.points for part in parts) for parts in result.reasons] == list(result.points)
                assert RoundResult.from_json(result.to_json()) == result
                assert {part.reason for parts in result.reasons for part in parts} <= set(REASONS)
                assert result.storyteller == storytellers[-1]
                if game.rules.teams:
                    for first, second in game.rules.teams:
                        assert result.points[first] == result.points[second]
    outcome = game.outcome
    assert outcome is not None
    assert set(outcome.winners) == {s for s in range(n) if game.scores[s] == max(game.scores)}
    options = game.rules.options
    assert (
        (options.target_score is not None and max(game.scores) >= options.target_score)
        or (options.storyteller_cycles is not None and game.round == n * options.storyteller_cycles)
        or (options.end_on_empty_deck and game.draw_pile_size == 0)
    )


@given(new_games([table for table in TABLES if table[0] == "party"]))
@examples(200)
def test_party_hands_move_left(setup: tuple[Game, random.Random]) -> None:
    game, rng = setup
    n = game.seats
    before: list[tuple[str, ...]] = []
    for _action, events in random_moves(game, rng):
        if any(isinstance(event, HandsPassed) for event in events):
            # Each hand, refilled, went to the left neighbour: its old cards come first.
            for seat in range(n):
                kept = before[seat]
                assert game.hand((seat + 1) % n)[: len(kept)] == kept
        if game.phase is Phase.VOTE:
            before = [game.hand(seat) for seat in range(n)]


@pytest.mark.parametrize("mode", MODES)
def test_replay_and_json_round_trip_reproduce_the_state(mode: str) -> None:
    @given(games_of(mode))
    @examples(75)
    def check(setup: tuple[Game, random.Random]) -> None:
        _test_replay_and_json_round_trip_reproduce_the_state(setup)

    check()


def _test_replay_and_json_round_trip_reproduce_the_state(setup: tuple[Game, random.Random]) -> None:
    game, rng = setup
    checkpoints = {rng.randrange(200) for _ in range(3)}
    for step, _ in enumerate(random_moves(game, rng)):
        if step in checkpoints or game.phase is Phase.OVER:
            state = game.to_json()
            restored = Game.from_json(json.loads(json.dumps(state)))
            assert restored.to_json() == state
            replayed = Game.replay(
                game.mode, game.seats, game.log, options=state["options"], seed=game.seed, deck=game.deck
            )
            assert replayed.to_json() == state
            # The restored game goes on exactly like the original.
            for seat in game.awaiting:
                assert restored.legal_actions(seat) == game.legal_actions(seat)


def random_attempt(game: Game, rng: random.Random) -> Tell | BlindClue | Play | Propose | Vote | PlaceRed:
    """Any action at all, legal or not: random seat, kind, cards and slots."""
    seat = rng.randrange(game.seats + 1) - (1 if rng.random() < 0.05 else 0)
    card = rng.choice(game.deck) if rng.random() < 0.5 or seat >= game.seats else rng.choice(game.hand(seat))
    slot = rng.randrange(0, 14)
    clue = rng.choice(["Freedom", "", "  ", "x" * 201, "ok\nno", None])
    attempts: list[Tell | BlindClue | Play | Propose | Vote | PlaceRed] = [
        Tell(seat, card, clue),
        BlindClue(seat, clue),
        Play(seat, (card,)),
        Play(seat, (card, rng.choice(game.deck))),
        Propose(seat, card),
        Vote(seat, (slot,)),
        Vote(seat, (slot, rng.randrange(0, 14))),
        PlaceRed(seat, slot),
    ]
    return rng.choice(attempts)


def same_kind(action: Any, legal: Any) -> bool:
    """``legal`` from legal_actions (clue left open) allows ``action``."""
    if isinstance(action, Tell | BlindClue):
        return action.clue is not None and type(legal) is type(action) and legal.with_clue(action.clue) == action
    if isinstance(action, Vote) and isinstance(legal, Vote):
        return action.seat == legal.seat and tuple(sorted(action.slots)) == legal.slots
    if isinstance(action, Play) and isinstance(legal, Play):
        return action.seat == legal.seat and set(action.cards) == set(legal.cards)
    return bool(action == legal)


@pytest.mark.parametrize("mode", MODES)
def test_apply_accepts_exactly_the_legal_actions_and_refusals_change_nothing(mode: str) -> None:
    @given(games_of(mode))
    @examples(50)
    def check(setup: tuple[Game, random.Random]) -> None:
        _test_apply_accepts_exactly_the_legal_actions_and_refusals_change_nothing(setup)

    check()


def _test_apply_accepts_exactly_the_legal_actions_and_refusals_change_nothing(
    setup: tuple[Game, random.Random],
) -> None:
    game, rng = setup
    for _ in random_moves(game, rng):
        if game.phase is Phase.OVER:
            break
        for _attempt in range(3):
            attempt = random_attempt(game, rng)
            before = game.to_json()
            trial = game.copy()
            try:
                trial.apply(attempt)
            except IllegalAction as refused:
                refusal: IllegalAction | None = refused
            else:
                refusal = None
            if refusal is not None:
                assert refusal.code
                assert refusal.message
                assert trial.to_json() == before
                continue
            assert 0 <= attempt.seat < game.seats
            legal = game.legal_actions(attempt.seat)
            assert any(same_kind(attempt, option) for option in legal), attempt


def hidden_cards(game: Game, seat: int | None) -> set[str]:
    """Cards ``seat`` must not see: other hands (incl. cards played face down) and the pile."""
    state = game.to_json()
    hidden = set(state["pile"])
    for other, hand in enumerate(state["hands"]):
        if other != seat:
            hidden.update(hand)
    if seat is not None:
        hidden.difference_update(state["hands"][seat])
    hidden.difference_update(state["table"])
    if game.last_result is not None:
        # Revealed last turn; after a reshuffle such a card may already be in a new hand.
        hidden.difference_update(game.last_result.table)
    return hidden


def editable(state: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``state`` whose top-level lists may be changed in place (a perturbation replaces an
    entry of them, never changes it): the rest, the log of every move above all, is shared. A deep
    copy of the whole state was two thirds of this module's time."""
    return {key: list(value) if isinstance(value, list) else value for key, value in state.items()}


def perturbed_views(game: Game, seat: int | None, rng: random.Random) -> list[dict[str, Any]]:
    """Views of ``seat`` in games that differ from ``game`` only in what ``seat`` may not know."""
    state = game.to_json()
    views = []
    if game.phase is Phase.VOTE:
        # Who owns which of the others' table cards.
        others = [i for i, owner in enumerate(state["owners"]) if owner != seat]
        pairs = [(i, j) for i in others for j in others if state["owners"][i] != state["owners"][j]]
        if pairs:
            i, j = rng.choice(pairs)
            changed = editable(state)
            owners, table, plays = changed["owners"], changed["table"], changed["plays"]
            a, b = owners[i], owners[j]
            plays[a] = [table[j] if card == table[i] else card for card in plays[a]]
            plays[b] = [table[i] if card == table[j] else card for card in plays[b]]
            owners[i], owners[j] = b, a
            views.append(Game.from_json(changed).view(seat).to_json())
        # Where the others' tokens went.
        changed = editable(state)
        for voter in state["voters"]:
            if voter != seat and changed["votes"][voter] is not None:
                legal = [a for a in game.legal_actions(voter) if isinstance(a, Vote)]
                changed["votes"][voter] = list(rng.choice(legal).slots)
        if state["red"] is not None and seat != game.storyteller:
            changed["red"] = rng.randrange(1, len(state["table"]) + 1)
        views.append(Game.from_json(changed).view(seat).to_json())
    # What the others hold and what lies in the pile.
    changed = editable(state)
    pool = [c for other, hand in enumerate(changed["hands"]) if other != seat for c in hand] + changed["pile"]
    played = {c for cards in changed["plays"] if cards for c in cards}
    free = [c for c in pool if c not in played]
    shuffled = free[:]
    rng.shuffle(shuffled)
    swap = dict(zip(free, shuffled, strict=True))
    for other, hand in enumerate(changed["hands"]):
        if other != seat:
            changed["hands"][other] = [swap.get(c, c) for c in hand]
    changed["pile"] = [swap.get(c, c) for c in changed["pile"]]
    views.append(Game.from_json(changed).view(seat).to_json())
    return views


@pytest.mark.parametrize("mode", MODES)
def test_views_show_only_what_the_seat_may_know(mode: str) -> None:
    @given(games_of(mode), st.integers(0, 2**32))
    @examples(40)
    def check(setup: tuple[Game, random.Random], chaos_seed: int) -> None:
        _test_views_show_only_what_the_seat_may_know(setup, chaos_seed)

    check()


def _test_views_show_only_what_the_seat_may_know(setup: tuple[Game, random.Random], chaos_seed: int) -> None:
    game, rng = setup
    chaos = random.Random(chaos_seed)
    for _action, events in random_moves(game, rng):
        public = card_leaves([event_to_json(event) for event in events], hidden_cards(game, None))
        assert not public, "an event names a hidden card"
        if chaos.random() < 0.85:
            continue
        for seat in [None, *range(game.seats)]:
            view = game.view(seat).to_json()
            assert json.loads(json.dumps(view)) == view, "a view is plain JSON"
            assert not card_leaves(view, hidden_cards(game, seat)), "a view shows a hidden card"
            for other in perturbed_views(game, seat, chaos):
                assert other == view, "a view depends on something its seat may not know"
            if game.phase is not Phase.OVER and seat is not None:
                # Before the reveal a seat sees its own cards marked and nobody else's owner.
                assert all(
                    entry["yours"] == (game.table[entry["slot"] - 1] in view["my_cards"]) for entry in view["table"]
                )
