"""A room's games, as part of `room.Room`: starting one, folding its moves into it and into its
album, ending it early; the room's status, who sits where, and its albums.

`RoomGames` is a mixin: `Room` holds the state (its `__init__` makes every field) and dispatches
each entry (`Room.apply`); the entries that make or move a game come here (`Started`, `Acted`,
`Ended`), and like every handler each checks first and changes nothing when it refuses.

>>> from fabula.protocol.settings import RoomSettings
>>> from fabula.rules import numbered_deck
>>> from fabula.server.entries import Created, Joined
>>> from fabula.server.room import Room
>>> room = Room("KX7P")
>>> _ = room.apply(Created(at=0.0, settings=RoomSettings(mode="odyssey")))
>>> for member, colour in enumerate(("blue", "red", "pink")):
...     _ = room.apply(Joined(at=1.0, member=member, name=f"P{member}", colour=colour, token_hash="…"))
>>> _ = room.apply(Started(at=2.0, seed=1, seating=[2, 0, 1], deck=list(numbered_deck(84))))
>>> room.status, room.seat_of(2), room.album(1).players[0].name
('playing', 0, 'P2')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

import msgspec

from fabula.bots.base import model_of
from fabula.protocol.settings import RoomSettings
from fabula.protocol.snapshot import StoodIn
from fabula.rules import Game, Phase, RoundResult, Ruleset, action_from_json
from fabula.rules.events import GameEnded, RoundScored
from fabula.story import Album, Player, TakeOver

from .entries import Acted, Ended, Started
from .errors import RoomCode, RoomError
from .room_clock import RoomClock

if TYPE_CHECKING:
    from .crowd import Crowd
    from .room import Member

Status = Literal["lobby", "playing", "over"]


class RoomGames(RoomClock):
    """The games of a `Room` (a mixin: `Room` makes these fields and dispatches the entries); its
    phase timer is `RoomClock`'s."""

    # (the fields it reads and changes: `Room.__init__` makes them, and says what each holds)
    settings: RoomSettings
    members: dict[int, Member]
    game: Game | None
    seating: list[int]
    games_started: int
    albums: list[Album]
    crowd: Crowd
    _stood_in_this_round: set[int]
    phase_since: float

    # ------------------------------------------------------------------ reading

    @property
    def status(self) -> Status:
        if self.game is None:
            return "lobby"
        return "over" if self.game.phase is Phase.OVER else "playing"

    def seat_of(self, member: int) -> int | None:
        """The game seat of ``member`` (None before the start or for a member not seated)."""
        try:
            return self.seating.index(member)
        except ValueError:
            return None

    @property
    def rounds(self) -> list[RoundResult]:
        """The revealed rounds of the current (or last) game, oldest first: what bots may learn
        from once the game is over."""
        return self.albums[-1].rounds if self.albums else []

    def album(self, number: int) -> Album | None:
        """Game ``number``'s album (from 1; None: no such game), its audience's leaderboard with it
        (made now: it is asked for far less often than votes come in)."""
        if not 1 <= number <= len(self.albums):
            return None
        album = self.albums[number - 1]
        album.audience = self.crowd.board(number)
        return album

    def finished_albums(self) -> list[Album]:
        return [album for album in self.albums if album.finished]

    # ------------------------------------------------------------------ changing

    def _started(self, entry: Started) -> None:
        if self.status == "playing":
            raise RoomError(RoomCode.GAME_STARTED, "A game is already being played.")
        if sorted(entry.seating) != sorted(self.members):
            raise RoomError(RoomCode.BAD_SEATING, "Every member must have exactly one seat.")
        game = Game.new(
            self.settings.mode, len(entry.seating), options=self.settings.options, seed=entry.seed, deck=entry.deck
        )
        self.game, self.seating = game, list(entry.seating)
        self.games_started += 1
        self.albums.append(
            Album(
                number=self.games_started,
                mode=game.mode,
                options=game.rules.options.to_json(game.mode),
                players=[
                    Player(seat, self.members[m].name, self.members[m].colour, self.members[m].bot)
                    for seat, m in enumerate(self.seating)
                ],
                teams=None if game.rules.teams is None else [list(pair) for pair in game.rules.teams],
                started_at=entry.at,
            )
        )
        self._stood_in_this_round = set()
        self.crowd.new_game(self.games_started)
        self._new_phase(entry.at)
        for member in self.members.values():
            member.stood_in.clear()
            member.fallback_moves, member.not_answering = 0, False

    def _acted(self, entry: Acted) -> Acted:
        game = self.game
        if game is None:
            raise RoomError(RoomCode.NOT_STARTED, "The game has not started.")
        seat = self.seat_of(entry.member)
        if seat is None:
            raise RoomError(RoomCode.NOT_SEATED, "Spectators do not play.")
        self.check_not_paused()
        payload = dict(entry.action)
        if payload.setdefault("seat", seat) != seat:
            raise RoomError(RoomCode.NOT_YOUR_SEAT, "You can only move for your own seat.")
        before = (game.round, game.phase)
        action = action_from_json(payload)
        events = game.apply(action)
        if entry.auto:
            self._stood_in_this_round.add(seat)
        self._chronicle(events, entry.at)
        # the log keeps the move as the engine read it, not whatever else the client sent along
        read = action.to_json()
        mover = self.members[entry.member]
        if entry.fallback is not None:
            mover.fallback_moves += 1
        if mover.bot is not None and model_of(mover.bot) is not None:
            mover.not_answering = entry.fallback in ("timeout", "endpoint")
        if entry.auto:
            mover.stood_in.append(StoodIn(before[0], read, entry.because or "away"))
        else:
            mover.stood_in.clear()
        if (game.round, game.phase) != before:
            self._new_phase(entry.at)
        return entry if read == entry.action else msgspec.structs.replace(entry, action=read)

    def _chronicle(self, events: Iterable[object], at: float) -> None:
        """Put what a move revealed into the game's album."""
        album = self.albums[-1]
        for event in events:
            if type(event) is RoundScored:
                album.rounds.append(event.result)
                # (a bot's move for a person who is a bot's seat already is the bot's own)
                album.stand_ins.append(sorted(s for s in self._stood_in_this_round if album.players[s].bot is None))
                self._stood_in_this_round = set()
                self.crowd.revealed(event.result)
            elif type(event) is GameEnded:
                album.outcome, album.ended_at = event.outcome, at

    def _took_over(self, seat: int, player: Player) -> None:
        """``player`` sits in ``seat`` from the round being played on (a `Joined` that replaces a
        member): the album names them from this round, and who played the seat before for the
        rounds before."""
        album, game = self.albums[-1], self.game
        assert game is not None  # (a seat is taken over only while a game is played)
        album.takeovers.append(TakeOver(seat=seat, round=game.round, former=album.players[seat], player=player))
        album.players[seat] = player

    def _ended(self, entry: Ended) -> None:
        if self.game is None or self.status != "playing":
            raise RoomError(RoomCode.NOT_STARTED, "No game is being played.")
        self._chronicle(self.game.end_now(), entry.at)
        self.albums[-1].ended_by_host = True
        self._new_phase(entry.at)  # (a paused game ends unpaused)

    # ------------------------------------------------------------------ rules for the host

    def check_start(self) -> Ruleset:
        """The game a start would create now, or `RulesError` saying why not."""
        if self.status == "playing":
            raise RoomError(RoomCode.GAME_STARTED, "A game is already being played.")
        return Ruleset.create(self.settings.mode, len(self.members), self.settings.options)
