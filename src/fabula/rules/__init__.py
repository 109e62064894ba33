"""The rules of Dixit Odyssey as a pure, deterministic engine (no I/O, no clock, no asyncio).

>>> from fabula.rules import Game
>>> game = Game.new("party", seats=6, seed=42)
>>> game.mode, game.rules.hand_size, game.phase.value
('party', 5, 'clue')
"""

from .actions import Action, BlindClue, PlaceRed, Play, Propose, Tell, Vote, action_from_json
from .clues import CLUE_MAX, clean_clue
from .errors import IllegalAction, InvalidSetup, RulesError
from .events import Event, event_to_json
from .game import Game
from .hands import numbered_deck
from .modes import MODES, Mode, Ruleset
from .options import Options
from .results import Outcome, RoundResult
from .rounds import check_round
from .scoring import (
    Points,
    RoundFacts,
    explain_party,
    explain_storytelling,
    explain_teams,
    score_party,
    score_storytelling,
    score_teams,
)
from .state import GameState, Phase

__all__ = [
    "CLUE_MAX",
    "MODES",
    "Action",
    "BlindClue",
    "Event",
    "Game",
    "GameState",
    "IllegalAction",
    "InvalidSetup",
    "Mode",
    "Options",
    "Outcome",
    "Phase",
    "PlaceRed",
    "Play",
    "Points",
    "Propose",
    "RoundFacts",
    "RoundResult",
    "RulesError",
    "Ruleset",
    "Tell",
    "Vote",
    "action_from_json",
    "check_round",
    "clean_clue",
    "event_to_json",
    "explain_party",
    "explain_storytelling",
    "explain_teams",
    "numbered_deck",
    "score_party",
    "score_storytelling",
    "score_teams",
]
