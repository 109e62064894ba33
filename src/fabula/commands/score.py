"""`fabula score`: one round as data → the points each seat (or team) gains.

The input format is the one in RULES.md; seats and cards are named by any strings.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from fabula.rules import IllegalAction, RoundFacts, RulesError, Ruleset, check_round
from fabula.rules.errors import RuleCode


class RoundInput(msgspec.Struct, forbid_unknown_fields=True):
    """One round as `fabula score` reads it."""

    mode: str
    seats: list[str]
    storyteller: str
    played: dict[str, list[str]]
    votes: dict[str, list[str]]
    red: str | None = None
    teams: list[tuple[str, str]] | None = None
    options: dict[str, Any] = msgspec.field(default_factory=dict)


def _seat_order(data: RoundInput, rules: Ruleset) -> list[str]:
    """The seat names in engine order: in teams mode, pair i sits at seats i and i + N/2."""
    if len(set(data.seats)) != len(data.seats):
        raise IllegalAction(RuleCode.BAD_SEATS, "A seat name appears twice in 'seats'.")
    if not rules.mode.paired:
        if data.teams is not None:
            raise IllegalAction(RuleCode.BAD_TEAMS, f"'teams' is only for teams mode; {rules.mode.name} has none.")
        return list(data.seats)
    if data.teams is None:
        raise IllegalAction(RuleCode.BAD_TEAMS, "Teams mode needs 'teams': a list of [seat, seat] pairs.")
    paired = [seat for pair in data.teams for seat in pair]
    if sorted(paired) != sorted(data.seats):
        raise IllegalAction(RuleCode.BAD_TEAMS, "'teams' must pair every seat exactly once.")
    return [first for first, _ in data.teams] + [second for _, second in data.teams]


def score_round(data: RoundInput) -> dict[str, int]:
    """Points gained this round by seat name (by team index as a string in teams mode)."""
    rules = Ruleset.create(data.mode, len(data.seats), data.options)
    names = _seat_order(data, rules)
    index = {name: seat for seat, name in enumerate(names)}

    def seat_of(name: str, where: str) -> int:
        if name not in index:
            raise IllegalAction(RuleCode.UNKNOWN_SEAT, f"{where} names {name!r}, who is not in 'seats'.")
        return index[name]

    facts = RoundFacts(
        seats=tuple(range(len(names))),
        storyteller=seat_of(data.storyteller, "'storyteller'"),
        played={seat_of(name, "'played'"): tuple(cards) for name, cards in data.played.items()},
        votes={seat_of(name, "'votes'"): tuple(cards) for name, cards in data.votes.items()},
        red=data.red,
        teams=rules.teams,
    )
    check_round(facts, rules, names)
    points = rules.mode.score(facts, rules)
    if rules.mode.paired:
        return {str(team): points[team] for team in range(len(names) // 2)}
    return {name: points[index[name]] for name in data.seats}


def _one_line(text: str) -> str:
    """``text`` with any line break or control character escaped: seat names are any strings."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)


def run(text: bytes) -> tuple[int, str]:
    """(exit status, the line to print): 0 and the JSON result, or 2 and a one-line error."""
    try:
        data = msgspec.json.decode(text, type=RoundInput)
        points = score_round(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        return 2, _one_line(f"error: malformed input: {error}")
    except RulesError as error:
        return 2, _one_line(f"error: {error.code}: {error.message}")
    # json.dumps spacing is the one RULES.md shows: {"points": {"anna": 3, ...}}
    return 0, json.dumps({"points": points}, ensure_ascii=False)
