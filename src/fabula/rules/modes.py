"""Modes as data, and the `Ruleset` a mode becomes at one seat count with one set of options.

A mode says how big a hand is, who plays and votes, how many tokens a voter has, what happens to
hands between turns, and which scoring function counts the points. Everything the game engine
decides by mode goes through here, so a house rule touches one place.

>>> rules = Ruleset.create("odyssey", 8)
>>> rules.hand_size, rules.cards_per_player, rules.tokens
(6, 1, 2)
>>> Ruleset.create("odyssey", 3).cards_per_player
2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from .errors import IllegalAction, InvalidSetup, RuleCode
from .options import Options
from .scoring import Points, RoundFacts, explain_party, explain_storytelling, explain_teams, totals

#: A mode's scoring: each seat's (teams: each team's) points of one round, with the reasons.
ExplainFunction = Callable[["RoundFacts[Any, Any]", "Ruleset"], dict[Any, list[Points]]]


@dataclass(frozen=True, slots=True)
class Mode:
    """The fixed rules of one way to play."""

    name: str
    summary: str
    seat_counts: tuple[int, ...]
    hand_size: int
    explain: ExplainFunction
    #: at exactly this seat count the 3-player variant applies: hand + 1, two cards per player
    small_table: int | None = None
    #: from this seat count on, each voter has two tokens
    two_tokens_from: int | None = None
    #: party: the storyteller gives the clue unseen, then plays and votes like everyone
    clue_before_hand: bool = False
    red_token: bool = False
    pass_hands_left: bool = False
    #: teams: seat s and seat s + N/2 form a team
    paired: bool = False

    def score(self, facts: RoundFacts[Any, Any], rules: Ruleset) -> dict[Any, int]:
        """The points of one round by seat (teams: by team index)."""
        return totals(self.explain(facts, rules))

    def seat_problem(self, seats: int) -> str | None:
        if seats in self.seat_counts:
            return None
        counts = self.seat_counts
        if counts == tuple(range(counts[0], counts[-1] + 1)):
            allowed = f"{counts[0]} to {counts[-1]} players"
        else:
            allowed = ", ".join(map(str, counts[:-1])) + f" or {counts[-1]} players"
        return f"Mode {self.name!r} is for {allowed}; {seats} seats were asked for."


MODES: Mapping[str, Mode] = {
    mode.name: mode
    for mode in (
        Mode(
            name="odyssey",
            summary="The basic game for 3–12: find the storyteller's card, but not everyone may.",
            seat_counts=tuple(range(3, 13)),
            hand_size=6,
            explain=explain_storytelling,
            small_table=3,
            two_tokens_from=7,
        ),
        Mode(
            name="party",
            summary="6–12: the storyteller speaks before looking; vote with the crowd, dodge the red token.",
            seat_counts=tuple(range(6, 13)),
            hand_size=5,
            explain=explain_party,
            clue_before_hand=True,
            red_token=True,
            pass_hands_left=True,
        ),
        Mode(
            name="teams",
            summary="6, 8, 10 or 12 in pairs sitting opposite: one partner plays, the other votes.",
            seat_counts=(6, 8, 10, 12),
            hand_size=4,
            explain=explain_teams,
            paired=True,
        ),
        Mode(
            name="classic",
            summary="Classic Dixit for 3–6: no cap on decoy votes, ends when the deck runs out.",
            seat_counts=tuple(range(3, 7)),
            hand_size=6,
            explain=explain_storytelling,
            small_table=3,
        ),
    )
}


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A mode at one seat count with its options: every rule the engine and scorer consult."""

    mode: Mode
    seats: int
    options: Options
    hand_size: int
    #: cards each non-storyteller puts on the table
    cards_per_player: int
    #: voting tokens per voter
    tokens: int
    #: teams mode: the pairs, and each seat's team index
    teams: tuple[tuple[int, int], ...] | None
    team_of: tuple[int, ...] | None
    #: ``(0, 1, …, seats - 1)``
    seat_order: tuple[int, ...]
    #: ``may_vote[voter][owner]``: `may_vote_for`, asked once for every pair when the table is
    #: set, so that checking a vote or listing the legal ones costs an index, not a call
    may_vote: tuple[tuple[bool, ...], ...] = field(init=False, repr=False, compare=False)
    #: ``proposers[storyteller]``: the seats that `may_propose` while ``storyteller`` tells, likewise
    proposers: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    #: the options as every view shows them (`Options.to_json`), built once: shared, read-only
    options_json: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seats = self.seat_order
        may_vote = tuple(tuple(self.may_vote_for(voter, owner) for owner in seats) for voter in seats)
        proposers = tuple(tuple(s for s in seats if self.may_propose(s, teller)) for teller in seats)
        object.__setattr__(self, "may_vote", may_vote)
        object.__setattr__(self, "proposers", proposers)
        object.__setattr__(self, "options_json", self.options.to_json(self.mode.name))

    @classmethod
    def create(cls, mode: str, seats: int, options: Mapping[str, Any] | None = None) -> Ruleset:
        """Check the seat count and options for ``mode``; raise `InvalidSetup` with the reason."""
        try:
            key = (mode, seats, tuple(sorted((options or {}).items())))
            cached = _CREATED.get(key)
        except TypeError:  # an unhashable option value: not cached, and refused below
            key, cached = None, None
        if cached is not None:
            return cached
        rules = cls._create(mode, seats, options or {})
        if key is not None and len(_CREATED) < 4096:
            _CREATED[key] = rules
        return rules

    @classmethod
    def _create(cls, mode: str, seats: int, options: Mapping[str, Any]) -> Ruleset:
        found = MODES.get(mode)
        if found is None:
            raise InvalidSetup(RuleCode.UNKNOWN_MODE, f"Unknown mode {mode!r}; modes: {', '.join(MODES)}.")
        if not isinstance(seats, int) or isinstance(seats, bool):
            raise InvalidSetup(RuleCode.BAD_SEATS, f"The seat count must be an integer; got {seats!r}.")
        problem = found.seat_problem(seats)
        if problem:
            raise InvalidSetup(RuleCode.BAD_SEAT_COUNT, problem)
        resolved = Options.resolve(mode, seats, options)
        small = seats == found.small_table
        teams = team_of = None
        if found.paired:
            half = seats // 2
            teams = tuple((s, s + half) for s in range(half))
            team_of = tuple(s % half for s in range(seats))
        two_tokens = found.two_tokens_from is not None and seats >= found.two_tokens_from
        return cls(
            mode=found,
            seats=seats,
            options=resolved,
            hand_size=found.hand_size + (1 if small else 0),
            cards_per_player=2 if small else 1,
            tokens=2 if two_tokens else 1,
            teams=teams,
            team_of=team_of,
            seat_order=tuple(range(seats)),
        )

    @property
    def table_size(self) -> int:
        """How many cards lie on the table each turn."""
        if self.mode.paired:
            return self.seats // 2 + 1
        if self.mode.clue_before_hand:
            return self.seats
        return 1 + (self.seats - 1) * self.cards_per_player

    @property
    def cards_needed(self) -> int:
        """The smallest deck this game can be played with: every hand plus one table."""
        return self.seats * self.hand_size + self.table_size

    def teammate(self, seat: int) -> int:
        assert self.team_of is not None
        return (seat + self.seats // 2) % self.seats

    # ---------------------------------------------------------------- hooks
    # Who plays, who votes and what a voter may vote for are decided here and nowhere else. The
    # engine asks once and keeps the answers for its fast paths: `may_vote_for` and `may_propose`
    # for every pair when the table is set (`may_vote`, `proposers`), `players` when a turn
    # starts, `voters` and `red_slots` when the cards are laid out. `check_round` asks the same
    # questions. A house rule about any of them changes one of these methods.

    def players(self, storyteller: int) -> tuple[int, ...]:
        """Who may put cards down in the play phase, in seat order (in teams one member of each
        team will; the party storyteller plays like everyone, having given the clue blind)."""
        if self.mode.clue_before_hand:
            return self.seat_order
        return self.seat_order[:storyteller] + self.seat_order[storyteller + 1 :]

    def cards_to_play(self, seat: int, storyteller: int) -> int:
        """How many cards ``seat`` puts on the table in the play phase (0: it does not play)."""
        return self.cards_per_player if seat in self.players(storyteller) else 0

    def voters(self, storyteller: int, players: tuple[int, ...], played: Sequence[object]) -> tuple[int, ...]:
        """Who votes once the table is laid, of this turn's ``players`` (`players`), in seat order;
        ``played``: per seat, what it put on the table (``None`` or empty: nothing)."""
        team_of = self.team_of
        if team_of is None:
            return players
        # One member of each other team played; the other votes for the team.
        told = team_of[storyteller]
        return tuple([s for s in players if not played[s] and team_of[s] != told])

    def may_vote_for(self, voter: int, owner: int) -> bool:
        """Whether a token of ``voter`` may go on a card of ``owner``."""
        if self.mode.clue_before_hand:
            return True
        if self.team_of is not None:
            return self.team_of[voter] != self.team_of[owner] or (self.options.team_vote_own_card and voter != owner)
        return voter != owner

    def votable(self, voter: int, owners: Sequence[int]) -> tuple[int, ...]:
        """The slots (1..n) a token of ``voter`` may go on (`may_vote_for`), given each slot's owner."""
        allowed = self.may_vote[voter]
        return tuple([slot for slot, owner in enumerate(owners, 1) if allowed[owner]])

    def second_tokens(self, votable: Sequence[int]) -> list[tuple[int, int]]:
        """The two-token votes a voter may cast on the ``votable`` slots, in the order
        `Game.legal_actions` lists them after the single tokens (`check_vote` says why any other
        is refused)."""
        if self.tokens != 2:
            return []
        found = list(combinations(votable, 2))
        if self.options.second_token_same_slot:
            found.extend((slot, slot) for slot in votable)
        return found

    def may_propose(self, seat: int, storyteller: int) -> bool:
        """Whether ``seat`` may offer its teammate a card to play (teams, outside the storyteller's team)."""
        team_of = self.team_of
        return team_of is not None and team_of[seat] != team_of[storyteller]

    def red_slots(self, storyteller: int, owners: Sequence[int]) -> tuple[int, ...]:
        """The slots the storyteller's red token may go on (party), given each slot's owner."""
        if not self.mode.red_token:
            return ()
        if self.options.party_red_target == "not_own_card":
            return tuple([slot for slot, owner in enumerate(owners, 1) if owner != storyteller])
        return tuple(range(1, len(owners) + 1))

    def game_ends(self, round: int, scores: Sequence[int], pile: int) -> bool:
        """Whether the game ends after ``round``, with these scores and ``pile`` cards left to draw."""
        options = self.options
        return (
            (options.target_score is not None and max(scores) >= options.target_score)
            or (options.storyteller_cycles is not None and round >= self.seats * options.storyteller_cycles)
            or (options.end_on_empty_deck and not pile)
        )

    def check_vote(self, voter: int, cards: tuple[str, ...], owner_of: Mapping[str, int]) -> None:
        """Raise `IllegalAction` unless ``voter`` may put tokens on exactly these cards."""
        if not 1 <= len(cards) <= self.tokens:
            wanted = "one token" if self.tokens == 1 else "one or two tokens"
            raise IllegalAction(RuleCode.WRONG_TOKEN_COUNT, f"Vote with {wanted}; got {len(cards)}.")
        if len(cards) == 2 and cards[0] == cards[1] and not self.options.second_token_same_slot:
            raise IllegalAction(RuleCode.SAME_SLOT, "The second token must go on a different card.")
        for card in cards:
            owner = owner_of[card]
            if not self.may_vote_for(voter, owner):
                if owner == voter:
                    raise IllegalAction(RuleCode.OWN_CARD, "You cannot vote for your own card.")
                raise IllegalAction(RuleCode.TEAMMATE_CARD, "You cannot vote for your teammate's card.")


#: Rulesets already checked, by (mode, seats, options): a server creates the same ones all day.
_CREATED: dict[tuple[Any, ...], Ruleset] = {}
