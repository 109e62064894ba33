"""Short games of every mode for the research tests: the tables and options they play."""

from __future__ import annotations

from typing import Any

from fabula.rules import MODES

#: Every mode at its smallest and its largest table.
TABLES = [
    (mode, seats) for mode in MODES for seats in sorted({MODES[mode].seat_counts[0], MODES[mode].seat_counts[-1]})
]

#: Options that keep a game short (one storyteller turn each), and the options that change the
#: action space or the mask, each on the modes it applies to.
SHORT: dict[str, Any] = {"storyteller_cycles": 1}
VARIANTS: list[tuple[str, int, dict[str, Any]]] = [
    ("odyssey", 8, {**SHORT, "second_token_same_slot": True}),
    ("odyssey", 7, {**SHORT, "found_if": "all_tokens"}),
    ("party", 7, {**SHORT, "party_red_target": "not_own_card"}),
    ("teams", 8, {**SHORT, "team_vote_own_card": True}),
    ("classic", 4, {**SHORT, "end_on_empty_deck": True}),
]
#: A vocabulary with spaces, accents and Chinese.
CLUES = ["Freedom", "Là où la carte s'arrête", "月亮上的兔子"]
