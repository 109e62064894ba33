"""Every bot level plays only legal moves, in every mode at every seat count, and gives fair clues.

The situations are many short stretches of play rather than whole games: each game is dealt with
its own seed, fast-forwarded a random number of rounds by random moves (late hands, reshuffled
decks, party hands passed on), then played for a round or two by bots whose level changes from move
to move, so that each level meets every phase of every table. Every move a bot returns is checked
against the seat's legal moves and then applied.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from fabula.bots.base import BOT_LEVELS, Bot, make_bot
from fabula.bots.playing import MOVES_PER_SEAT_PER_ROUND, blank_clue
from fabula.bots.random_player import random_action
from fabula.cards.original import original_deck
from fabula.rules import (
    CLUE_MAX,
    MODES,
    Action,
    BlindClue,
    Game,
    IllegalAction,
    Phase,
    PlaceRed,
    Play,
    Propose,
    Tell,
    Vote,
    clean_clue,
)

CARDS = {card.id: card for card in original_deck().cards}
DECK = list(CARDS)
LEVELS = list(BOT_LEVELS)
#: every mode at every seat count, and the options that change what is legal
SETUPS: list[tuple[str, int, dict[str, Any]]] = [
    *[(mode, seats, {}) for mode in MODES for seats in MODES[mode].seat_counts],
    ("odyssey", 8, {"second_token_same_slot": True}),
    ("odyssey", 9, {"found_if": "all_tokens", "single_token_bonus": False}),
    ("party", 7, {"party_red_target": "not_own_card"}),
    ("teams", 8, {"team_vote_own_card": True}),
]
#: per setup: games dealt, and rounds the bots play in each after the fast-forward (every level
#: tells at least once: the storytellers' levels take turns)
GAMES, ROUNDS = 2 * len(LEVELS), 3


def check_move(move: object, legal: list[Action], game: Game, seat: int, level: str) -> Action:
    """``move`` is one of ``legal`` (its clue blanked), and any clue is a fair one."""
    where = f"level {level!r}, seat {seat}, {game.mode} {game.seats} seats, seed {game.seed}, round {game.round}"
    assert isinstance(move, Tell | BlindClue | Play | Propose | Vote | PlaceRed), f"{where}: {move!r}"
    assert blank_clue(move) in legal, f"{where}: {move!r} is not among the {len(legal)} legal moves"
    if isinstance(move, Tell | BlindClue):
        clue = move.clue
        assert isinstance(clue, str), where
        assert clue.strip(), f"{where}: empty clue {clue!r}"
        assert len(clue) <= CLUE_MAX, f"{where}: a clue of {len(clue)} characters"
        try:
            clean_clue(clue)
        except IllegalAction as error:
            raise AssertionError(f"{where}: {error.message} {clue!r}") from error
        if isinstance(move, Tell):
            card = CARDS[move.card]
            assert clue.strip().casefold() != card.title.casefold(), f"{where}: the clue is the title {clue!r}"
            assert card.description.casefold() not in clue.casefold(), f"{where}: the clue quotes the description"
    return move


def play_stretch(
    game: Game, rng: random.Random, turns: Counter[str], checked: Counter[tuple[str, str]], rounds: int
) -> None:
    """Let bots play ``game`` for ``rounds`` rounds; each phase hands its moves to the levels in turn,
    and a quarter of the plays and votes are random moves instead (a table of bots and people)."""
    bots: dict[tuple[int, str], Bot] = {}
    stop, moves = game.round + rounds, 0
    while game.phase is not Phase.OVER and game.round < stop:
        moves += 1
        assert moves <= rounds * MOVES_PER_SEAT_PER_ROUND * game.seats, "the bots keep changing their moves"
        awaiting = game.awaiting
        seat = awaiting[rng.randrange(len(awaiting))]
        phase = game.phase
        if phase is not Phase.CLUE and rng.random() < 0.25:
            game.apply(random_action(game, seat, rng))
            continue
        view = game.view(seat).to_json()
        # The party storyteller votes and places the red token in either order: each of the two
        # moves takes its own turns, so that every level makes both.
        situation = f"{phase.value}/{seat == game.storyteller}/{bool(view['my_vote'])}/{view.get('red_token_placed')}"
        level = LEVELS[turns[situation] % len(LEVELS)]
        turns[situation] += 1
        bot = bots.get((seat, level))
        if bot is None:
            bot = bots[seat, level] = make_bot(level, random.Random(rng.getrandbits(32)), cards=CARDS)
        legal = game.legal_actions(seat)
        offered = list(legal)
        move = check_move(bot.choose(view, legal), offered, game, seat, level)
        assert legal == offered, f"level {level!r} changed the list of legal moves"
        checked[level, type(move).__name__] += 1
        game.apply(move)


@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_bots_play_legal_moves_and_fair_clues(mode: str, seats: int, options: dict[str, Any]) -> None:
    rng = random.Random(f"{mode}/{seats}/{sorted(options.items())}")
    turns: Counter[str] = Counter()
    checked: Counter[tuple[str, str]] = Counter()
    for _ in range(GAMES):
        game = Game.new(mode, seats, options=options, seed=rng.getrandbits(63), deck=DECK)
        # Fast-forward 0 to 5 rounds: later hands, a used deck, party hands passed on.
        skip = rng.randrange(6)
        while game.phase is not Phase.OVER and game.round <= skip:
            game.apply(random_action(game, game.awaiting[rng.randrange(len(game.awaiting))], rng))
        play_stretch(game, rng, turns, checked, ROUNDS)
    clue = "BlindClue" if mode == "party" else "Tell"
    for level in LEVELS:
        kinds = {kind for (who, kind), count in checked.items() if who == level and count}
        assert {clue, "Vote"} <= kinds, f"level {level!r} was asked too little: {sorted(kinds)}"
        assert kinds & {"Play", "Propose"}, f"level {level!r} never played: {sorted(kinds)}"
        if mode == "party":
            assert "PlaceRed" in kinds, f"level {level!r} never placed the red token"
    assert checked.total() >= GAMES * ROUNDS * seats // 2


def test_the_checks_catch_an_unfair_clue() -> None:
    """The checks above can fail: the title, the description, an empty or long clue, an illegal move."""
    game = Game.new("odyssey", 4, seed=1, deck=DECK)
    seat = game.storyteller
    legal = game.legal_actions(seat)
    tell = legal[0]
    assert isinstance(tell, Tell)
    card = CARDS[tell.card]
    for clue in (card.title.upper(), f"well: {card.description}", "  ", "x" * (CLUE_MAX + 1), "a\nb"):
        with pytest.raises(AssertionError):
            check_move(tell.with_clue(clue), legal, game, seat, "test")
    with pytest.raises(AssertionError):
        check_move(Tell(seat, "fabula-99", "Dream"), legal, game, seat, "test")
    check_move(tell.with_clue("Dream"), legal, game, seat, "test")
    rng = random.Random(1)
    while game.phase is not Phase.VOTE:
        game.apply(random_action(game, game.awaiting[0], rng))
    voter = game.awaiting[0]
    own = next(slot["slot"] for slot in game.view(voter).to_json()["table"] if slot["yours"])
    with pytest.raises(AssertionError, match="not among"):
        check_move(Vote(voter, (own,)), game.legal_actions(voter), game, voter, "test")
