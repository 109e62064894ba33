"""Scoring: pure functions of one round's facts.

A round is described by card ids: who put which cards on the table and where each voter's
tokens went. The same functions score a live game and `fabula score`.

>>> from fabula.rules.modes import Ruleset
>>> facts = RoundFacts(
...     seats=("anna", "ben", "carla", "dora"),
...     storyteller="anna",
...     played={"anna": ("k1",), "ben": ("k2",), "carla": ("k3",), "dora": ("k4",)},
...     votes={"ben": ("k1",), "carla": ("k1",), "dora": ("k2",)},
... )
>>> score_storytelling(facts, Ruleset.create("odyssey", 4))
{'anna': 3, 'ben': 4, 'carla': 3, 'dora': 0}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

from msgspec import Meta

if TYPE_CHECKING:
    from .modes import Ruleset

P = TypeVar("P", bound=Hashable)
#: how a card is named: its id, or (in a live game) its slot number
C = TypeVar("C", bound=Hashable)

#: The most a party voter (or owner) scores for one image.
PARTY_MAX = 5
#: Every reason a round's points are given for (see `Points`).
REASONS = (
    "told",
    "all_found",
    "none_found",
    "found",
    "missed",
    "single_token",
    "decoys",
    "crowd",
    "alone",
    "red",
    "owned_crowd",
    "owned_alone",
    "owned_red",
    "owned_unchosen",
)


@dataclass(slots=True)
class RoundFacts(Generic[P, C]):
    """What happened in one round: all that scoring needs (a value: do not change it).

    Cards are opaque labels here: card ids for `fabula score`, slot numbers in a live game.
    """

    seats: tuple[P, ...]
    storyteller: P
    #: every card put on the table, by owner; the storyteller's card under the storyteller
    played: Mapping[P, tuple[C, ...]]
    #: each voter's tokens, by card; a card twice means both tokens on it
    votes: Mapping[P, tuple[C, ...]]
    #: party: the card under the storyteller's red token
    red: C | None = None
    #: teams: the pairs; a team's index in this tuple is its name
    teams: tuple[tuple[P, P], ...] | None = None

    @property
    def storyteller_card(self) -> C:
        return self.played[self.storyteller][0]

    def owners(self) -> dict[C, P]:
        return {card: seat for seat, cards in self.played.items() for card in cards}


def finders(facts: RoundFacts[P, C], rules: Ruleset) -> list[P]:
    """The voters who found the storyteller's card, in seat order."""
    card, votes = facts.storyteller_card, facts.votes
    if rules.options.found_if == "all_tokens":
        return [v for v in facts.seats if v in votes and all(token == card for token in votes[v])]
    return [v for v in facts.seats if v in votes and card in votes[v]]


def _decoy_votes(facts: RoundFacts[P, C]) -> dict[P, int]:
    """Tokens on every card but the storyteller's, by the card's owner."""
    owners = facts.owners()
    target = facts.storyteller_card
    votes: dict[P, int] = {}
    for tokens in facts.votes.values():
        for token in tokens:
            if token != target:
                owner = owners[token]
                votes[owner] = votes.get(owner, 0) + 1
    return votes


@dataclass(frozen=True, slots=True)
class Points:
    """Some of one seat's (or team's) points in a round, and why: what the reveal explains.

    ``reason`` is one of:

    - ``told``: the storyteller's card was found by some voters, not all (3; 4 with the lone finder);
    - ``all_found`` / ``none_found``: every voter or none found it (storyteller 0, the others 2);
    - ``found`` / ``missed``: this voter found the card (3; 4 as lone finder) or did not (0);
    - ``single_token``: found it with one token only, at 7+ players (+1);
    - ``decoys``: votes on this seat's (team's) other cards, ``count`` of them, capped;
    - party: ``crowd`` (the image voted for drew ``count`` green votes), ``alone`` (the only
      vote on it: 0) and ``red`` (it carries the red token: 0); with the owner basis the same
      as ``owned_crowd``, ``owned_alone``, ``owned_red`` and ``owned_unchosen`` (no vote), per card.
    """

    reason: Annotated[str, Meta(description="why (the list above)")]
    points: Annotated[int, Meta(description="how many points")]
    count: Annotated[
        int | None, Meta(description="`decoys`: the votes, before the cap; `crowd`: the image's green votes")
    ] = None

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "points": self.points, "count": self.count}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Points:
        return cls(obj["reason"], obj["points"], obj.get("count"))


def totals(explained: Mapping[P, list[Points]]) -> dict[P, int]:
    """The points of each seat (or team) from their explanation."""
    return {who: sum(part.points for part in parts) for who, parts in explained.items()}


def _decoy_points(count: int, cap: int | None) -> Points:
    return Points("decoys", count if cap is None else min(count, cap), count)


def explain_storytelling(facts: RoundFacts[P, C], rules: Ruleset) -> dict[P, list[Points]]:
    """`odyssey` and `classic`: the storyteller wants some but not all voters to find the card."""
    options = rules.options
    storyteller, votes = facts.storyteller, facts.votes
    voters = [s for s in facts.seats if s != storyteller]
    found = finders(facts, rules)
    parts: dict[P, list[Points]] = {seat: [] for seat in facts.seats}
    if not found or len(found) == len(voters):
        reason = "none_found" if not found else "all_found"
        parts[storyteller].append(Points(reason, 0))
        for voter in voters:
            parts[voter].append(Points(reason, 2))
    else:
        reward = 4 if options.lone_finder_bonus and len(found) == 1 else 3
        parts[storyteller].append(Points("told", reward))
        for voter in voters:
            parts[voter].append(Points("found", reward) if voter in found else Points("missed", 0))
    if rules.tokens == 2 and options.single_token_bonus:
        for voter in found:
            if len(votes[voter]) == 1:
                parts[voter].append(Points("single_token", 1))
    for owner, decoys in _decoy_votes(facts).items():
        parts[owner].append(_decoy_points(decoys, options.decoy_cap))
    return parts


def score_storytelling(facts: RoundFacts[P, C], rules: Ruleset) -> dict[P, int]:
    """The points of `explain_storytelling`."""
    return totals(explain_storytelling(facts, rules))


def explain_teams(facts: RoundFacts[P, C], rules: Ruleset) -> dict[int, list[Points]]:
    """`teams`, by team index: the storyteller's team wants some but not all to find the card."""
    assert facts.teams is not None
    options = rules.options
    team_of = {seat: index for index, pair in enumerate(facts.teams) for seat in pair}
    voters = [s for s in facts.seats if s in facts.votes]
    found = finders(facts, rules)
    parts: dict[int, list[Points]] = {team: [] for team in range(len(facts.teams))}
    told = team_of[facts.storyteller]
    if not found or len(found) == len(voters):
        reason = "none_found" if not found else "all_found"
        parts[told].append(Points(reason, 0))
        for voter in voters:
            parts[team_of[voter]].append(Points(reason, 2))
    else:
        reward = 4 if options.lone_finder_bonus and len(found) == 1 else 3
        parts[told].append(Points("told", reward))
        for voter in voters:
            parts[team_of[voter]].append(Points("found", reward) if voter in found else Points("missed", 0))
    decoys: dict[int, int] = {}
    for owner, count in _decoy_votes(facts).items():
        decoys[team_of[owner]] = decoys.get(team_of[owner], 0) + count
    for team, count in decoys.items():
        parts[team].append(_decoy_points(count, options.decoy_cap))
    return parts


def score_teams(facts: RoundFacts[P, C], rules: Ruleset) -> dict[int, int]:
    """The points of `explain_teams`, by team index."""
    return totals(explain_teams(facts, rules))


def explain_party(facts: RoundFacts[P, C], rules: Ruleset) -> dict[P, list[Points]]:
    """`party`: an image is worth its number of green votes (at most 5) unless it is alone or red.

    By default the voters who chose it score; with ``party_score_basis="owner"`` its owner does.
    """
    green = Counter(tokens[0] for tokens in facts.votes.values())

    def worth(card: C, prefix: str) -> Points:
        votes = green[card]
        if card == facts.red:
            return Points(prefix + "red", 0, votes)
        if votes == 0:  # only a card's owner can hold an image nobody chose
            return Points(prefix + "unchosen", 0, 0)
        if votes == 1:
            return Points(prefix + "alone", 0, 1)
        return Points(prefix + "crowd", min(votes, PARTY_MAX), votes)

    parts: dict[P, list[Points]] = {seat: [] for seat in facts.seats}
    if rules.options.party_score_basis == "owner":
        for owner, cards in facts.played.items():
            parts[owner].extend(worth(card, "owned_") for card in cards)
    else:
        for voter, tokens in facts.votes.items():
            parts[voter].append(worth(tokens[0], ""))
    return parts


def score_party(facts: RoundFacts[P, C], rules: Ruleset) -> dict[P, int]:
    """The points of `explain_party`."""
    return totals(explain_party(facts, rules))
