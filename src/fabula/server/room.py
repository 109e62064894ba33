"""One room as a pure value: members, host, settings and the game, folded from its log entries.

`Room.apply` is the only way a room changes, both live and when a room is rebuilt from the store;
it checks the entry first and raises `RoomError` (or the engine's `RulesError`) without changing
anything, so a refused request leaves the room exactly as it was. It leaves the entry it is
given as it is and returns the entry as the log keeps it (a name or chat line cleaned, a move as
the engine read it). What concerns the room's games — starting one, its moves, its albums — is
`room_games.RoomGames`, a part of `Room`.

>>> room = Room("KX7P")
>>> _ = room.apply(Created(at=0.0, settings=RoomSettings(mode="odyssey")))
>>> room.apply(Joined(at=1.0, member=0, name=" Mara ", colour="blue", token_hash="…")).name
'Mara'
>>> room.host, room.status
(0, 'lobby')
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from fabula.bots.base import BOT_LANGUAGES, BOT_LEVELS, is_bot_level
from fabula.errors import CommonCode
from fabula.protocol.settings import RoomSettings
from fabula.protocol.snapshot import RoomSnapshot, StoodIn
from fabula.rules import Game, Phase
from fabula.rules.errors import RuleCode, quoted
from fabula.story import Album, Player
from fabula.text import Reason, TextRefused, line_text

from . import snapshots
from .asks import RoomAsks
from .crowd import Crowd
from .entries import (
    Acted,
    AnyEntry,
    Asked,
    AskRefused,
    Created,
    CrowdVoted,
    Ended,
    HostPassed,
    Joined,
    Left,
    Paused,
    Resumed,
    Returned,
    Said,
    SettingsChanged,
    Started,
    TeamsSet,
    TimeAdded,
)
from .errors import RoomCode, RoomError
from .room_games import RoomGames
from .room_settings import CHAT_MAX, COLOURS, NAME_MAX, check_settings, seat_range

CHAT_KEPT = 100

#: What people type into a room, besides clues (the engine's).
Typed = Literal["name", "message"]
#: The code of each refusal of `fabula.text.line_text`, by what was typed (a line is never
#: refused as ``invalid``: what a clue would be refused for, a line loses).
LINE_REFUSALS: dict[Typed, dict[Reason, RoomCode]] = {
    "name": {"empty": RoomCode.NAME_EMPTY, "too_long": RoomCode.NAME_TOO_LONG},
    "message": {"empty": RoomCode.MESSAGE_EMPTY, "too_long": RoomCode.MESSAGE_TOO_LONG},
}


def clean_text(text: object, *, limit: int, what: Typed) -> str:
    """``text`` as one line of plain text (`fabula.text.line_text`): control and format characters
    removed, whitespace collapsed; `RoomError` if it is not text, empty or longer than ``limit``.

    >>> clean_text("  Mara\\u202e \\t B ", limit=24, what="name")
    'Mara B'
    """
    if not isinstance(text, str):
        raise RoomError(CommonCode.MALFORMED, f"The {what} must be text.")
    try:
        return line_text(text, limit=limit, what=what)
    except TextRefused as refused:
        raise RoomError(LINE_REFUSALS[what][refused.reason], refused.message) from None


@dataclass(slots=True)
class Member:
    id: int
    name: str
    colour: str
    token_hash: str
    bot: str | None
    #: left the game in progress (or was kicked from it): a bot plays the seat until they return
    #: (a `Returned` entry: coming back is logged, so a rebuilt room is the room that was acknowledged)
    away: bool = False
    #: the language of a bot's clues
    bot_language: str = "en"
    #: the moves a bot made for this person since their own last move (what to tell them on
    #: their return)
    stood_in: list[StoodIn] = field(default_factory=list)
    #: a model bot's moves in this game that its fallback level made (`Acted.fallback`)
    fallback_moves: int = 0
    #: a model bot whose model did not answer its last move (in time): its fallback level plays
    not_answering: bool = False

    @property
    def gone_for_good(self) -> bool:
        """A person who left the game in progress for good (or was removed): their token no
        longer works, and a bot plays their seat."""
        return self.bot is None and self.away and not self.token_hash


class Room(RoomGames):
    """A room's state. Build it with `apply`, one entry at a time, from its ``Created`` entry; its
    games (starting one, its moves, its albums) are `RoomGames`'s part."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.settings = RoomSettings()
        self.members: dict[int, Member] = {}
        self.host: int | None = None
        self.pairs: list[list[int]] = []
        self.game: Game | None = None
        #: each seat's member in the game being (or last) played
        self.seating: list[int] = []
        self.games_started = 0
        #: every game of the room, oldest first, the one being played (if any) last
        self.albums: list[Album] = []
        #: the seats whose moves a bot made for their person in the round being played
        self._stood_in_this_round: set[int] = set()
        #: the sequence number the next entry gets
        self.seq = 0
        self.created_at = 0.0
        self.last_at = 0.0
        #: when the current phase of the game began (deadlines are counted from it: `RoomClock`)
        self.phase_since = 0.0
        #: when the host paused the game (None: it is not paused)
        self.paused_at: float | None = None
        #: how long the current phase stood paused (or its timer had run out before time was added)
        self.paused_for = 0.0
        #: the seconds the host added to the current phase's timer
        self.time_added = 0
        #: the recent chat, each line with who may read it (None: everyone) — fixed when it was
        #: said, so that re-pairing the teams later shows no one a line meant for someone else
        self.chat: deque[tuple[Said, frozenset[int] | None]] = deque(maxlen=CHAT_KEPT)
        #: the entries made by each client message id, to answer a re-sent message
        self.client_ids: dict[tuple[int | None, str], int] = {}
        #: the names of members no longer in the room, for the chat they left behind
        self.former_names: dict[int, str] = {}
        #: the seat tokens (hashed) of those the host removed: a browser that still has one is
        #: not seated again here (`Seats.join`)
        self.removed_tokens: set[str] = set()
        #: streamer mode's requests to join
        self.asks = RoomAsks()
        #: the audience's votes, points and leaderboards (never the game's)
        self.crowd = Crowd()
        self._next_member = 0

    # ------------------------------------------------------------------ reading

    def member_by_token_hash(self, token_hash: str) -> Member | None:
        for member in self.members.values():
            if member.token_hash == token_hash and member.bot is None:
                return member
        return None

    def teammate_members(self, member: int) -> set[int]:
        """Who reads ``member``'s team chat: the pair ``member`` belongs to."""
        if self.game is not None and self.game.rules.teams is not None:
            seat = self.seat_of(member)
            if seat is not None:
                return {self.seating[self.game.rules.teammate(seat)], member}
        for pair in self.pairs:
            if member in pair:
                return set(pair)
        return {member}

    def table_chat_open(self) -> bool:
        """Whether a chat line to the whole table is taken now. From the storyteller's clue (party:
        the blind clue) until the round is scored the table is quiet — the rules ask for no
        discussion before the votes are final — unless the host allowed ``table_talk`` as a house
        rule. Team chat is not the table's: partners may talk (not show cards) all along."""
        return self.settings.table_talk or self.game is None or self.game.phase not in (Phase.PLAY, Phase.VOTE)

    def name_of(self, member: int) -> str:
        """A member's name, or the name they had (for the chat of someone no longer here)."""
        found = self.members.get(member)
        return found.name if found is not None else self.former_names.get(member, "?")

    def open_seats(self) -> list[Member]:
        """During a game, the seats a newcomer may take over: bots', and those left for good."""
        if self.status != "playing":
            return []
        return [m for m in self.members.values() if m.bot is not None or m.gone_for_good]

    @property
    def next_member(self) -> int:
        """The number the next member to join gets."""
        return self._next_member

    @property
    def seats_max(self) -> int:
        return seat_range(self.settings.mode)[1]

    def free_colours(self) -> list[str]:
        """The rabbits nobody plays, nor asked for (streamer mode: those waiting for a new seat)."""
        taken = {member.colour for member in self.members.values()}
        taken |= {ask.colour for ask in self.asks.waiting() if ask.replaces is None}
        return [colour for colour in COLOURS if colour not in taken]

    def default_seating(self) -> list[int]:
        """Join order; in `teams` the pairs, so that teammates sit opposite (seat s and s + N/2)."""
        order = sorted(self.members)
        if self.settings.mode != "teams":
            return order
        pairs = self.full_pairs()
        return [pair[0] for pair in pairs] + [pair[1] for pair in pairs]

    def full_pairs(self) -> list[list[int]]:
        """The host's pairs, completed by pairing the rest in join order."""
        paired = [pair for pair in self.pairs if all(m in self.members for m in pair)]
        taken = {m for pair in paired for m in pair}
        rest = [m for m in sorted(self.members) if m not in taken]
        return paired + [rest[i : i + 2] for i in range(0, len(rest) - 1, 2)]

    def snapshot(
        self,
        member: int | None,
        present: Collection[int] = (),
        stand_in_at: Mapping[int, float] | None = None,
        audience: int = 0,
    ) -> RoomSnapshot:
        """What ``member`` (None: a spectator) may know of the room, its own seat's game view
        included; ``present``: the members connected now (bots always are); ``stand_in_at``:
        when a bot starts playing for each person who is gone (their grace period's end);
        ``audience``: how many audience connections the room has."""
        return self.snapshots([member], present, stand_in_at, audience)[member]

    def snapshots(
        self,
        members: Iterable[int | None],
        present: Collection[int] = (),
        stand_in_at: Mapping[int, float] | None = None,
        audience: int = 0,
    ) -> dict[int | None, RoomSnapshot]:
        """`snapshot` of each of ``members`` at once: the part they share is built once."""
        return snapshots.of(self, members, present, stand_in_at or {}, audience)

    # ------------------------------------------------------------------ changing

    def apply(self, entry: AnyEntry) -> AnyEntry:
        """Fold ``entry`` in and return it as the log keeps it; `RulesError` (nothing changed)
        if the room refuses it."""
        if self.seq == 0 and not isinstance(entry, Created):
            raise RoomError(RoomCode.NO_ROOM, "A room's log starts with its creation.")
        match entry:
            case Created():
                self._created(entry)
            case Joined():
                entry = self._joined(entry)
            case Asked():
                entry = self._asked(entry)
            case AskRefused():
                self.asks.check_answer(entry.ask).state = "refused"
            case Left():
                self._left(entry)
            case HostPassed():
                self._host_passed(entry)
            case SettingsChanged():
                self._settings_changed(entry)
            case TeamsSet():
                self._teams_set(entry)
            case Started():
                self._started(entry)
                self.asks.drop_lobby()
            case Acted():
                entry = self._acted(entry)
            case Ended():
                self._ended(entry)
            case Returned():
                self._returned(entry)
            case Said():
                entry = self._said(entry)
            case Paused():
                self._paused(entry)
            case Resumed():
                self._resumed(entry)
            case TimeAdded():
                self._time_added(entry)
            case CrowdVoted():
                self._crowd_voted(entry)
        if entry.client_id is not None:
            self.client_ids[(entry.by, entry.client_id)] = self.seq
        self.seq += 1
        self.last_at = entry.at
        return entry

    def _created(self, entry: Created) -> None:
        if self.seq != 0:
            raise RoomError(RoomCode.EXISTS, "This room exists already.")
        check_settings(entry.settings, 0)
        self.settings = entry.settings
        self.created_at = entry.at

    def _asked(self, entry: Asked) -> Asked:
        probe = Joined(at=entry.at, member=self._next_member, name=entry.name, colour=entry.colour, token_hash="")
        name, _ = self._newcomer(msgspec.structs.replace(probe, replaces=entry.replaces))
        self.asks.check_new(entry)
        self.asks.add(entry, name)
        return entry if name == entry.name else msgspec.structs.replace(entry, name=name)

    def _joined(self, entry: Joined) -> Joined:
        ask = self.asks.check_approval(entry)
        name, replaced = self._newcomer(entry)
        if entry.member != self._next_member:
            raise RoomError(RoomCode.BAD_MEMBER, "Members are numbered in joining order.")
        self.members[entry.member] = Member(
            entry.member, name, entry.colour, entry.token_hash, entry.bot, bot_language=entry.bot_language or "en"
        )
        self._next_member += 1
        if ask is not None:
            ask.state, ask.member = "approved", entry.member
        if replaced is not None:
            seat = self.seating.index(replaced.id)
            self.seating[seat] = entry.member
            self._forget(replaced.id)
            self._took_over(seat, Player(seat, name, entry.colour, None))
        if self.host is None and entry.bot is None:
            self.host = entry.member
        return entry if name == entry.name else msgspec.structs.replace(entry, name=name)

    def _newcomer(self, entry: Joined) -> tuple[str, Member | None]:
        """The cleaned name of who ``entry`` seats, and whose seat they take over (None: a new
        seat); `RoomError` if they may not sit there."""
        replaced = self._replaced(entry)
        # cleaned here, in the one place every join passes, and stored cleaned (as chat is)
        name = clean_text(entry.name, limit=NAME_MAX, what="name")
        high = self.seats_max
        if replaced is None and len(self.members) >= high:
            raise RoomError(RoomCode.ROOM_FULL, f"Mode {quoted(self.settings.mode)} seats at most {high} players.")
        if entry.colour not in COLOURS:
            raise RoomError(
                RoomCode.UNKNOWN_COLOUR, f"Unknown colour {quoted(entry.colour)}; the rabbits are {', '.join(COLOURS)}."
            )
        for member in self.members.values():
            if member is replaced:
                continue
            if member.colour == entry.colour:
                raise RoomError(RoomCode.COLOUR_TAKEN, f"{member.name} already plays the {entry.colour} rabbit.")
            if member.name.casefold() == name.casefold():
                raise RoomError(RoomCode.NAME_TAKEN, f"Someone here is already called {member.name}.")
        if entry.bot is not None and not is_bot_level(entry.bot):
            raise RoomError(
                RoomCode.UNKNOWN_BOT,
                f"Unknown bot level {quoted(entry.bot)}; the levels are {', '.join(BOT_LEVELS)} and model:NAME.",
            )
        if entry.bot_language is not None and entry.bot_language not in BOT_LANGUAGES:
            raise RoomError(
                RoomCode.UNKNOWN_LANGUAGE,
                f"Bots give clues in {', '.join(BOT_LANGUAGES)}, not {quoted(entry.bot_language)}.",
            )
        return name, replaced

    def _replaced(self, entry: Joined) -> Member | None:
        """The member whose seat ``entry`` takes over (None before a game: a new seat)."""
        if self.status != "playing":
            if self.game is not None:
                raise RoomError(RuleCode.GAME_OVER, "The game is over; wait for the host's rematch, or watch.")
            if entry.replaces is not None:
                raise RoomError(RoomCode.NOT_STARTED, "Seats are taken over during a game; before it, just join.")
            return None
        if entry.replaces is None:
            raise RoomError(
                RoomCode.GAME_STARTED, "The game has started: take over a bot's seat, watch, or wait for the next game."
            )
        replaced = self.members.get(entry.replaces)
        if replaced is None or replaced not in self.open_seats() or entry.bot is not None:
            raise RoomError(RoomCode.SEAT_TAKEN, "That seat is not free to take over (someone plays it).")
        if entry.colour != replaced.colour:
            raise RoomError(RoomCode.COLOUR_TAKEN, "Taking over a seat, you play its rabbit.")
        return replaced

    def _forget(self, member: int) -> None:
        self.former_names[member] = self.members.pop(member).name
        self.pairs = [pair for pair in self.pairs if member not in pair]

    def _left(self, entry: Left) -> None:
        member = self.members.get(entry.member)
        if member is None:
            raise RoomError(RoomCode.UNKNOWN_MEMBER, "There is no such player in this room.")
        if entry.kicked and member.token_hash:
            self.removed_tokens.add(member.token_hash)
        if self.game is None:
            self._forget(entry.member)
        else:
            # The seat stays in the game: a bot plays it, and a kicked person cannot come back.
            member.away = True
            if entry.kicked or entry.for_good:
                member.token_hash = ""
        if self.host == entry.member:
            self.host = self._next_host(entry.member)

    def _next_host(self, leaving: int) -> int | None:
        for member in self.members.values():
            if member.id != leaving and member.bot is None and not member.away:
                return member.id
        return None

    def _host_passed(self, entry: HostPassed) -> None:
        member = self.members.get(entry.member)
        if member is None or member.bot is not None or member.away:
            raise RoomError(RoomCode.UNKNOWN_MEMBER, "Hosting passes only to a person in the room.")
        self.host = entry.member

    def _settings_changed(self, entry: SettingsChanged) -> None:
        if self.game is not None:
            raise RoomError(RoomCode.GAME_STARTED, "Settings change only before the game starts.")
        check_settings(entry.settings, len(self.members))
        high = seat_range(entry.settings.mode)[1]
        if len(self.members) > high:
            raise RoomError(
                RoomCode.ROOM_FULL, f"Mode {entry.settings.mode!r} seats at most {high}; {len(self.members)} are here."
            )
        self.settings = entry.settings

    def _teams_set(self, entry: TeamsSet) -> None:
        if self.game is not None:
            raise RoomError(RoomCode.GAME_STARTED, "Teams are set before the game starts.")
        if self.settings.mode != "teams":
            raise RoomError(RoomCode.NOT_TEAMS, "Teams are only for mode 'teams'.")
        seen: set[int] = set()
        for pair in entry.pairs:
            if len(set(pair)) != 2 or len(pair) != 2 or any(m not in self.members or m in seen for m in pair):
                raise RoomError(RuleCode.BAD_TEAMS, "Teams are pairs of different players of this room.")
            seen.update(pair)
        self.pairs = [list(pair) for pair in entry.pairs]

    def _returned(self, entry: Returned) -> None:
        member = self.members.get(entry.member)
        if member is None or member.bot is not None or not member.token_hash:
            raise RoomError(RoomCode.UNKNOWN_MEMBER, "Only a person who keeps their seat comes back to it.")
        if not member.away:
            raise RoomError(RoomCode.NOT_AWAY, "That player is at the table already.")
        member.away = False

    def _crowd_voted(self, entry: CrowdVoted) -> None:
        if self.game is None:
            raise RoomError(RoomCode.NOT_STARTED, "The audience votes during a game.")
        self.crowd.voted(self.seq, entry.votes)

    def _said(self, entry: Said) -> Said:
        if entry.member not in self.members:
            raise RoomError(RoomCode.UNKNOWN_MEMBER, "Only players chat.")
        text = clean_text(entry.text, limit=CHAT_MAX, what="message")
        if entry.team_only and self.settings.mode != "teams":
            raise RoomError(RoomCode.NOT_TEAMS, "Team chat is only for mode 'teams'.")
        if text != entry.text:
            entry = msgspec.structs.replace(entry, text=text)
        self.chat.append((entry, frozenset(self.teammate_members(entry.member)) if entry.team_only else None))
        return entry
