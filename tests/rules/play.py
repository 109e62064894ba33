"""Shared helpers for rules tests: tables, random options and a random legal player."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from fabula.bots.random_player import random_action
from fabula.rules import MODES, Action, Event, Game, Phase

#: FABULA_EXAMPLES_SCALE=0.05 makes the property tests quick (e.g. to check that a bug is caught).
_SCALE = float(os.environ.get("FABULA_EXAMPLES_SCALE", "1"))


def examples(count: int) -> settings:
    """Hypothesis settings for ``count`` random games (scaled by FABULA_EXAMPLES_SCALE)."""
    return settings(
        max_examples=max(1, int(count * _SCALE)), deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


#: every mode at every seat count it allows
TABLES: list[tuple[str, int]] = [(mode, seats) for mode in MODES for seats in MODES[mode].seat_counts]


@st.composite
def option_sets(draw: st.DrawFn, mode: str, seats: int) -> dict[str, Any]:
    """Any valid combination of the options that apply to ``mode`` (some left at default)."""
    chosen: dict[str, Any] = {}
    maybe = st.booleans()
    if mode in ("odyssey", "classic", "teams"):
        if draw(maybe):
            chosen["decoy_cap"] = draw(st.none() | st.integers(0, 5))
        if draw(maybe):
            chosen["lone_finder_bonus"] = draw(st.booleans())
    if mode == "odyssey":
        for name in ("second_token_same_slot", "single_token_bonus"):
            if draw(maybe):
                chosen[name] = draw(st.booleans())
        if draw(maybe):
            chosen["found_if"] = draw(st.sampled_from(["any_token", "all_tokens"]))
    if mode == "party":
        if draw(maybe):
            chosen["party_score_basis"] = draw(st.sampled_from(["voter", "owner"]))
        if draw(maybe):
            chosen["party_red_target"] = draw(st.sampled_from(["any", "not_own_card"]))
    if mode == "teams" and draw(maybe):
        chosen["team_vote_own_card"] = draw(st.booleans())
    if draw(maybe):
        chosen["first_storyteller"] = draw(st.integers(0, seats - 1))
    if draw(maybe):
        chosen["end_on_empty_deck"] = draw(st.booleans())
    # Keep games short enough to play thousands of them.
    if mode in ("odyssey", "classic"):
        chosen["target_score"] = draw(st.integers(1, 30))
    else:
        chosen["storyteller_cycles"] = draw(st.integers(1, 2))
    return chosen


@st.composite
def new_games(draw: st.DrawFn, tables: list[tuple[str, int]] = TABLES) -> tuple[Game, random.Random]:
    """A freshly dealt game at a random table with random options, and a player's RNG."""
    mode, seats = draw(st.sampled_from(tables))
    options = draw(option_sets(mode, seats))
    seed = draw(st.integers(0, 2**63 - 1))
    return Game.new(mode, seats, options=options, seed=seed), random.Random(draw(st.integers(0, 2**32)))


def random_moves(game: Game, rng: random.Random) -> Iterator[tuple[Action, list[Event]]]:
    """Play ``game`` to the end with random legal moves, yielding each move and its events."""
    while game.phase is not Phase.OVER:
        awaiting = game.awaiting
        assert awaiting, "a running game always awaits someone"
        action = random_action(game, rng.choice(awaiting), rng)
        yield action, game.apply(action)


def card_leaves(obj: object, cards: set[str]) -> set[str]:
    """Every string anywhere inside ``obj`` (a JSON-like value) that is one of ``cards``."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in cards:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item.keys())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found
