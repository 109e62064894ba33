"""What a finished round and a finished game leave behind: public once they exist."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from .scoring import Points


def _lists(value: Any) -> Any:
    """Tuples (at any depth) as lists: the JSON shape."""
    if isinstance(value, tuple | list):
        return [_lists(item) for item in value]
    return value


@dataclass(slots=True)
class RoundResult:
    """One revealed round, everything the table sees at the reveal (a value: do not change it).

    Per-seat tuples are indexed by seat; per-slot tuples by slot - 1.
    """

    round: int
    storyteller: int
    clue: str
    storyteller_card: str
    #: the card in each slot
    table: tuple[str, ...]
    #: the owner of each slot's card
    owners: tuple[int, ...]
    #: the slots each seat's tokens went on (empty for a seat that did not vote)
    votes: tuple[tuple[int, ...], ...]
    #: party: the slot under the red token
    red: int | None
    voters: tuple[int, ...]
    #: the voters who found the storyteller's card
    finders: tuple[int, ...]
    #: points gained this round, by seat (in teams, each member shows the team's points)
    points: tuple[int, ...]
    #: scores after the round
    scores: tuple[int, ...]
    #: whether the storyteller (or their team) scored as storyteller this round
    storyteller_scored: bool
    #: why each seat gained its points: per seat, a list of ``{reason, points, count}`` whose points
    #: add up to the seat's. Reasons: ``told``, ``found``, ``missed``, ``all_found``, ``none_found``,
    #: ``single_token``, ``decoys`` (``count``: the votes, before the cap); party: ``crowd``,
    #: ``alone``, ``red`` (``count``: the image's green votes), or with the owner basis ``owned_crowd``,
    #: ``owned_alone``, ``owned_red``, ``owned_unchosen``. In teams each member shows the team's.
    reasons: tuple[tuple[Points, ...], ...] = ()

    def to_json(self) -> dict[str, Any]:
        # not dataclasses.asdict: its deep copy made this a third of a server's cost per action
        found = {field.name: _lists(getattr(self, field.name)) for field in fields(self) if field.name != "reasons"}
        found["reasons"] = [[part.to_json() for part in parts] for parts in self.reasons]
        return found

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RoundResult:
        return cls(
            round=obj["round"],
            storyteller=obj["storyteller"],
            clue=obj["clue"],
            storyteller_card=obj["storyteller_card"],
            table=tuple(obj["table"]),
            owners=tuple(obj["owners"]),
            votes=tuple(tuple(v) for v in obj["votes"]),
            red=obj["red"],
            voters=tuple(obj["voters"]),
            finders=tuple(obj["finders"]),
            points=tuple(obj["points"]),
            scores=tuple(obj["scores"]),
            storyteller_scored=obj["storyteller_scored"],
            # (records kept before the reasons existed have none)
            reasons=tuple(tuple(Points.from_json(part) for part in parts) for parts in obj.get("reasons", ())),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: everyone tied for the most points wins.

    >>> Outcome(winners=(0, 2), scores=(31, 20, 31), winning_teams=None).is_tie
    True
    """

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    #: teams mode: the winning team indices
    winning_teams: tuple[int, ...] | None

    @classmethod
    def decide(cls, scores: Sequence[int], team_of: Sequence[int] | None) -> Outcome:
        """The outcome of a game that ends with ``scores`` (``team_of``: teams mode, each seat's team)."""
        best = max(scores)
        winners = tuple(s for s, score in enumerate(scores) if score == best)
        teams = None if team_of is None else tuple(sorted({team_of[s] for s in winners}))
        return cls(winners, tuple(scores), teams)

    @property
    def is_tie(self) -> bool:
        return len(self.winning_teams if self.winning_teams is not None else self.winners) > 1

    @property
    def winning_score(self) -> int:
        return max(self.scores)

    def to_json(self) -> dict[str, Any]:
        # not dataclasses.asdict: its deep copy made this a third of a server's cost per action
        return {field.name: _lists(getattr(self, field.name)) for field in fields(self)}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Outcome:
        teams = obj["winning_teams"]
        return cls(tuple(obj["winners"]), tuple(obj["scores"]), None if teams is None else tuple(teams))
