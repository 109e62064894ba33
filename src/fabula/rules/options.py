"""Game options: the points where rule sheets disagree, plus the end condition.

Every option has a default that depends on the mode (the official rulebook), and applies only
to the modes where it changes something; giving an option to a mode it does not apply to is
refused rather than silently ignored, so a host never believes a rule is on when it is not.

>>> Options.resolve("classic", 5, {}).decoy_cap is None
True
>>> Options.resolve("odyssey", 8, {"found_if": "all_tokens"}).found_if
'all_tokens'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from .errors import InvalidSetup, RuleCode, quoted

FoundIf = Literal["any_token", "all_tokens"]
PartyScoreBasis = Literal["voter", "owner"]
PartyRedTarget = Literal["any", "not_own_card"]

_ALL_MODES = frozenset({"odyssey", "classic", "party", "teams"})
_DECOY_MODES = frozenset({"odyssey", "classic", "teams"})


@dataclass(frozen=True, slots=True)
class Options:
    """The resolved options of one game (every field set, defaults filled in)."""

    decoy_cap: int | None = 3
    second_token_same_slot: bool = False
    found_if: FoundIf = "any_token"
    single_token_bonus: bool = True
    lone_finder_bonus: bool = False
    party_score_basis: PartyScoreBasis = "voter"
    party_red_target: PartyRedTarget = "any"
    storyteller_cycles: int | None = None
    target_score: int | None = 30
    end_on_empty_deck: bool = False
    team_vote_own_card: bool = False
    first_storyteller: int | None = None

    @classmethod
    def resolve(cls, mode: str, seats: int, given: Mapping[str, Any]) -> Options:
        """Fill in the mode's defaults and check every given option; raise `InvalidSetup`."""
        values: dict[str, Any] = {}
        for name, value in given.items():
            spec = _SPECS.get(name)
            if spec is None:
                known = ", ".join(sorted(_SPECS))
                raise InvalidSetup(RuleCode.UNKNOWN_OPTION, f"Unknown option {quoted(name)}; known options: {known}.")
            if mode not in spec.modes:
                where = ", ".join(sorted(spec.modes))
                raise InvalidSetup(
                    RuleCode.OPTION_NOT_FOR_MODE,
                    f"Option {quoted(name)} does not apply to mode {mode!r} (only {where}).",
                )
            problem = spec.check(value, seats)
            if problem:
                raise InvalidSetup(RuleCode.BAD_OPTION, f"Option {quoted(name)}: {problem}; got {quoted(value)}.")
            values[name] = value
        for name, value in _MODE_DEFAULTS.get(mode, {}).items():
            values.setdefault(name, value)
        options = cls(**values)
        if options.target_score is None and options.storyteller_cycles is None and not options.end_on_empty_deck:
            raise InvalidSetup(
                RuleCode.NO_END_CONDITION,
                "The game would never end: set target_score, storyteller_cycles or end_on_empty_deck.",
            )
        return options

    def to_json(self, mode: str) -> dict[str, Any]:
        """The options that apply to ``mode``, every one explicit (so defaults may change later
        without changing a stored game)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if mode in _SPECS[f.name].modes}


@dataclass(frozen=True, slots=True)
class _Spec:
    modes: frozenset[str]
    check: Callable[[Any, int], str | None]


def _boolean(value: Any, _seats: int) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


def _count(minimum: int, maximum: int, nullable: bool) -> Callable[[Any, int], str | None]:
    """An integer from ``minimum`` to ``maximum``: every number a host sends is bounded."""

    def check(value: Any, _seats: int) -> str | None:
        if value is None and nullable:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= maximum:
            return None
        return f"must be an integer from {minimum} to {maximum}" + (" or null" if nullable else "")

    return check


def _one_of(*choices: str) -> Callable[[Any, int], str | None]:
    def check(value: Any, _seats: int) -> str | None:
        return None if value in choices else "must be one of " + ", ".join(repr(c) for c in choices)

    return check


def _seat(value: Any, seats: int) -> str | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < seats):
        return None
    return f"must be a seat number from 0 to {seats - 1} or null (random)"


_SPECS: dict[str, _Spec] = {
    "decoy_cap": _Spec(_DECOY_MODES, _count(0, 100, nullable=True)),
    "second_token_same_slot": _Spec(frozenset({"odyssey"}), _boolean),
    "found_if": _Spec(frozenset({"odyssey"}), _one_of("any_token", "all_tokens")),
    "single_token_bonus": _Spec(frozenset({"odyssey"}), _boolean),
    "lone_finder_bonus": _Spec(_DECOY_MODES, _boolean),
    "party_score_basis": _Spec(frozenset({"party"}), _one_of("voter", "owner")),
    "party_red_target": _Spec(frozenset({"party"}), _one_of("any", "not_own_card")),
    "storyteller_cycles": _Spec(_ALL_MODES, _count(1, 50, nullable=True)),
    "target_score": _Spec(_ALL_MODES, _count(1, 1000, nullable=True)),
    "end_on_empty_deck": _Spec(_ALL_MODES, _boolean),
    "team_vote_own_card": _Spec(frozenset({"teams"}), _boolean),
    "first_storyteller": _Spec(_ALL_MODES, _seat),
}

_MODE_DEFAULTS: dict[str, dict[str, Any]] = {
    "classic": {"decoy_cap": None, "end_on_empty_deck": True},
    "party": {"storyteller_cycles": 1, "target_score": None},
    "teams": {"storyteller_cycles": 1, "target_score": None},
}
