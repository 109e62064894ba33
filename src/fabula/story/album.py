"""A game's album: who sat where, every round as it was revealed, and how the game ended.

An album holds only what became public: each round's `RoundResult` (the cards laid, their owners,
the votes and the points — all shown at the reveal), the seats a bot played for their person, who
took over a seat from which round (`TakeOver`: a past round keeps the name of who played it), and
the `Outcome`. It never holds a hand, the deck's order or a move of a round not yet revealed, so it
may be shown to anyone who watched the game. A room folds its albums from its log
(`fabula.server.room.Room.albums`), so an album survives restarts and is the same on every process.

>>> album = Album(number=1, mode="odyssey", options={}, players=[], teams=None, started_at=0.0)
>>> album.finished, album.score_lines()
(False, [])
>>> hal, leo = Player(0, "Hal", "red", None), Player(0, "Leo", "red", None)
>>> album = Album(number=1, mode="odyssey", options={}, players=[leo], teams=None, started_at=0.0,
...               takeovers=[TakeOver(seat=0, round=4, former=hal, player=leo)])
>>> [album.players_in(n)[0].name for n in (1, 3, 4, 9)]
['Hal', 'Hal', 'Leo', 'Leo']
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from fabula.rules.results import Outcome, RoundResult


class Player(msgspec.Struct, frozen=True):
    """Who played a seat: in `Album.players` the last person or bot to sit there (should the seat
    have changed hands, `Album.takeovers` says who played it before)."""

    seat: Annotated[int, Meta(description="the game seat")]
    name: Annotated[str, Meta(description="display name")]
    colour: Annotated[str, Meta(description="the rabbit's colour")]
    bot: Annotated[
        str | None, Meta(description="the bot's level for a seat the host filled with a bot; null: a person")
    ]


class TakeOver(msgspec.Struct, frozen=True, kw_only=True):
    """A newcomer took over a seat during the game (from a person who left for good, or from a bot):
    the seat and its score go on, and the rounds before keep the name of who played them."""

    seat: Annotated[int, Meta(description="the game seat")]
    round: Annotated[
        int, Meta(description="the first round the newcomer played: the round being played when they sat down")
    ]
    former: Annotated[Player, Meta(description="who played the seat until then")]
    player: Annotated[Player, Meta(description="the newcomer")]


class CrowdRound(msgspec.Struct, frozen=True, kw_only=True):
    """Where the audience's votes went in one revealed round (the crowd markers)."""

    round: Annotated[int, Meta(description="the round's number")]
    votes: Annotated[dict[str, int], Meta(description="card id → audience votes on it (cards without a vote left out)")]
    total: Annotated[int, Meta(description="audience votes in the round (a card's share: its votes / total)")]
    found: Annotated[int, Meta(description="how many of them were on the storyteller's card")]


class CrowdLeader(msgspec.Struct, frozen=True, kw_only=True):
    """One audience member on the audience's leaderboard (a name, never an id)."""

    name: Annotated[str, Meta(description="the name they watched under")]
    points: Annotated[int, Meta(description="1 per round they found the storyteller's card")]
    votes: Annotated[int, Meta(description="the rounds they voted in")]


class AlbumAudience(msgspec.Struct, frozen=True, kw_only=True):
    """The audience of one game: how many voted, its leaderboard, and each round's crowd vote.
    The players' scores never depend on it."""

    voters: Annotated[int, Meta(description="audience members who voted at least once in the game")]
    leaders: Annotated[
        list[CrowdLeader],
        Meta(description="the top 10 by points (then more votes, then name): the audience's leaderboard"),
    ]
    rounds: Annotated[list[CrowdRound], Meta(description="each revealed round the audience voted in, oldest first")]


class Album(msgspec.Struct, kw_only=True):
    """One game of a room, round by round, as the table saw it revealed."""

    number: Annotated[int, Meta(description="the game's number in its room: 1 for the first, 2 for a rematch, …")]
    mode: Annotated[str, Meta(description="the game's mode")]
    options: Annotated[dict[str, Any], Meta(description="every option of the mode, resolved")]
    players: Annotated[
        list[Player],
        Meta(description="one per seat, in seat order: the last to sit there (`takeovers`: who sat there before)"),
    ]
    teams: Annotated[list[list[int]] | None, Meta(description="mode `teams`: the pairs of seats; null otherwise")]
    rounds: Annotated[list[RoundResult], Meta(description="every revealed round, oldest first")] = msgspec.field(
        default_factory=list
    )
    stand_ins: Annotated[
        list[list[int]],
        Meta(description="per round: the seats whose moves a bot made for their person (away, or out of time)"),
    ] = msgspec.field(default_factory=list)
    takeovers: Annotated[
        list[TakeOver],
        Meta(description="every seat taken over during the game, in order (a round is named by who played it)"),
    ] = msgspec.field(default_factory=list)
    outcome: Annotated[Outcome | None, Meta(description="how the game ended; null while it is being played")] = None
    started_at: Annotated[float, Meta(description="Unix time of the start")]
    ended_at: Annotated[float | None, Meta(description="Unix time of the end; null while it is being played")] = None
    ended_by_host: Annotated[
        bool, Meta(description="the host ended the game early: the scores as they stood decided")
    ] = False
    audience: Annotated[
        AlbumAudience | None,
        Meta(description="the audience's votes and leaderboard; null if no audience member voted in the game"),
    ] = None

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def players_in(self, round_number: int) -> list[Player]:
        """Who played each seat in round ``round_number``: `players`, but a seat taken over keeps
        who played it before for the rounds before its take-over."""
        players = list(self.players)
        for change in reversed(self.takeovers):
            if change.round > round_number and change.seat < len(players):
                players[change.seat] = change.former
        return players

    def score_lines(self) -> list[list[int]]:
        """Each seat's score after every round (the score chart), a line per seat starting at 0.

        In teams both members of a team carry the team's score, so a chart draws one line per team.
        """
        if not self.rounds:
            return []
        seats = len(self.rounds[0].scores)
        return [[0, *(result.scores[seat] for result in self.rounds)] for seat in range(seats)]

    def summary(self) -> GameSummary:
        """The line a room's history shows for this game."""
        return GameSummary(
            number=self.number,
            mode=self.mode,
            players=self.players,
            takeovers=self.takeovers,
            winners=[] if self.outcome is None else list(self.outcome.winners),
            teams=self.teams,
            winning_teams=None
            if self.outcome is None or self.outcome.winning_teams is None
            else list(self.outcome.winning_teams),
            scores=[] if self.outcome is None else list(self.outcome.scores),
            rounds=len(self.rounds),
            started_at=self.started_at,
            ended_at=self.ended_at,
        )

    def to_json(self) -> dict[str, Any]:
        """The album as the JSON object a client receives."""
        found: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(self))
        return found


class GameSummary(msgspec.Struct, kw_only=True):
    """A finished game in its room's history."""

    number: Annotated[int, Meta(description="the game's number in its room (its album: `/games/{number}`)")]
    mode: Annotated[str, Meta(description="the game's mode")]
    players: Annotated[list[Player], Meta(description="one per seat, in seat order: the last to sit there")]
    takeovers: Annotated[list[TakeOver], Meta(description="every seat taken over during the game, in order")]
    winners: Annotated[list[int], Meta(description="the seats tied for the most points")]
    teams: Annotated[list[list[int]] | None, Meta(description="mode `teams`: the pairs of seats; null otherwise")]
    winning_teams: Annotated[
        list[int] | None, Meta(description="mode `teams`: the winning teams (indices into `teams`); null otherwise")
    ]
    scores: Annotated[list[int], Meta(description="the final scores by seat")]
    rounds: Annotated[int, Meta(description="how many rounds were revealed")]
    started_at: Annotated[float, Meta(description="Unix time of the start")]
    ended_at: Annotated[float | None, Meta(description="Unix time of the end")]
