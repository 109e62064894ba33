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
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from .modes import Ruleset

P = TypeVar("P", bound=Hashable)
#: how a card is named: its id, or (in a live game) its slot number
C = TypeVar("C", bound=Hashable)

#: The most a party voter (or owner) scores for one image.
PARTY_MAX = 5


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


def score_storytelling(facts: RoundFacts[P, C], rules: Ruleset) -> dict[P, int]:
    """`odyssey` and `classic`: the storyteller wants some but not all voters to find the card."""
    options = rules.options
    storyteller, votes = facts.storyteller, facts.votes
    voters = [s for s in facts.seats if s != storyteller]
    found = finders(facts, rules)
    points = dict.fromkeys(facts.seats, 0)
    if not found or len(found) == len(voters):
        for voter in voters:
            points[voter] = 2
    else:
        reward = 4 if options.lone_finder_bonus and len(found) == 1 else 3
        points[storyteller] = reward
        for voter in found:
            points[voter] = reward
    if rules.tokens == 2 and options.single_token_bonus:
        for voter in found:
            if len(votes[voter]) == 1:
                points[voter] += 1
    cap = options.decoy_cap
    for owner, decoys in _decoy_votes(facts).items():
        points[owner] += decoys if cap is None else min(decoys, cap)
    return points


def score_teams(facts: RoundFacts[P, C], rules: Ruleset) -> dict[int, int]:
    """`teams`: points by team index; the storyteller's team wants some but not all to find it."""
    assert facts.teams is not None
    options = rules.options
    team_of = {seat: index for index, pair in enumerate(facts.teams) for seat in pair}
    voters = [s for s in facts.seats if s in facts.votes]
    found = finders(facts, rules)
    points = dict.fromkeys(range(len(facts.teams)), 0)
    if not found or len(found) == len(voters):
        for voter in voters:
            points[team_of[voter]] = 2
    else:
        reward = 4 if options.lone_finder_bonus and len(found) == 1 else 3
        points[team_of[facts.storyteller]] = reward
        for voter in found:
            points[team_of[voter]] = reward
    bonus: dict[int, int] = {}
    for owner, decoys in _decoy_votes(facts).items():
        bonus[team_of[owner]] = bonus.get(team_of[owner], 0) + decoys
    cap = options.decoy_cap
    for team, decoys in bonus.items():
        points[team] += decoys if cap is None else min(decoys, cap)
    return points


def score_party(facts: RoundFacts[P, C], rules: Ruleset) -> dict[P, int]:
    """`party`: an image is worth its number of green votes (at most 5) unless it is alone or red.

    By default the voters who chose it score; with ``party_score_basis="owner"`` its owner does.
    """
    green = Counter(tokens[0] for tokens in facts.votes.values())

    def worth(card: C) -> int:
        votes = green[card]
        return 0 if votes <= 1 or card == facts.red else min(votes, PARTY_MAX)

    points = dict.fromkeys(facts.seats, 0)
    if rules.options.party_score_basis == "owner":
        for owner, cards in facts.played.items():
            points[owner] += sum(worth(card) for card in cards)
    else:
        for voter, tokens in facts.votes.items():
            points[voter] += worth(tokens[0])
    return points
