"""What a finished round and a finished game leave behind: public once they exist."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Annotated, Any

from msgspec import Meta

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

    round: Annotated[int, Meta(description="the round's number")]
    storyteller: Annotated[int, Meta(description="the storyteller's seat")]
    clue: Annotated[str, Meta(description="the clue (said aloud: the words typed for it, maybe none)")]
    storyteller_card: Annotated[str, Meta(description="the storyteller's card")]
    table: Annotated[tuple[str, ...], Meta(description="the card in each slot")]
    owners: Annotated[tuple[int, ...], Meta(description="the owner of each slot's card")]
    votes: Annotated[
        tuple[tuple[int, ...], ...],
        Meta(description="the slots each seat's tokens went on (empty for a seat that did not vote)"),
    ]
    red: Annotated[int | None, Meta(description="party: the slot under the red token")]
    voters: Annotated[tuple[int, ...], Meta(description="the seats that voted")]
    finders: Annotated[tuple[int, ...], Meta(description="the voters who found the storyteller's card")]
    points: Annotated[
        tuple[int, ...],
        Meta(description="points gained this round, by seat (in teams, each member shows the team's points)"),
    ]
    scores: Annotated[tuple[int, ...], Meta(description="scores after the round")]
    storyteller_scored: Annotated[
        bool, Meta(description="whether the storyteller (or their team) scored as storyteller this round")
    ]
    reasons: Annotated[
        tuple[tuple[Points, ...], ...],
        Meta(
            description="why each seat gained its points: per seat, the `Points` that add up to the seat's "
            "(in teams each member shows the team's)"
        ),
    ] = ()
    aloud: Annotated[bool, Meta(description="whether the storyteller said the clue aloud at the table")] = False
    sound: Annotated[
        str | None, Meta(description="the id of the sound the storyteller recorded for the clue (none: null)")
    ] = None

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
            aloud=obj.get("aloud", False),
            sound=obj.get("sound"),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: everyone tied for the most points wins.

    >>> Outcome(winners=(0, 2), scores=(31, 20, 31), winning_teams=None).is_tie
    True
    """

    winners: Annotated[tuple[int, ...], Meta(description="the seats tied for the most points")]
    scores: Annotated[tuple[int, ...], Meta(description="the final scores by seat")]
    winning_teams: Annotated[tuple[int, ...] | None, Meta(description="teams mode: the winning team indices")]

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
