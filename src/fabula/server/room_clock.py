"""A room's clock, as part of `room.Room`: the phase timer's deadline, the host's pause and resume,
the time the host adds, and the room's ``extended_timers`` (every timer twice as long).

The timer is never stored: it is counted from the entries' times (``at``). A phase's deadline is
when it began, plus its timer (doubled when the timers are extended), plus what the host added,
plus the time it stood paused — so a paused phase, resumed, goes on from where it stopped, and a
server restarted in between rebuilds the same deadline from the same entries.

>>> from fabula.protocol.settings import RoomSettings
>>> from fabula.rules import numbered_deck
>>> from fabula.server.entries import Created, Joined, Paused, Resumed, Started, TimeAdded
>>> from fabula.server.room import Room
>>> room = Room("KX7P")
>>> _ = room.apply(Created(at=0.0, settings=RoomSettings(clue_seconds=60, extended_timers=True)))
>>> for member, colour in enumerate(("blue", "red", "pink")):
...     _ = room.apply(Joined(at=0.0, member=member, name=f"P{member}", colour=colour, token_hash="…"))
>>> _ = room.apply(Started(at=100.0, seed=1, seating=[0, 1, 2], deck=list(numbered_deck(84))))
>>> room.deadline()  # 60 s, doubled
220.0
>>> _ = room.apply(Paused(at=130.0)); room.deadline(), room.time_left()
(None, 90.0)
>>> _ = room.apply(Resumed(at=1000.0)); _ = room.apply(TimeAdded(at=1000.0, seconds=30)); room.deadline()
1120.0
"""

from __future__ import annotations

from fabula.protocol.settings import RoomSettings
from fabula.rules import Game, Phase

from .entries import Paused, Resumed, TimeAdded
from .errors import RoomCode, RoomError

#: Seconds added to the first timer of a round: everyone is looking at the last round's reveal.
REVEAL_SECONDS = 15
#: The most time a timer may have left once the host added some (an hour).
MOST_TIME_LEFT = 3600


class RoomClock:
    """The clock of a `Room` (a mixin: `Room` makes these fields and dispatches the entries)."""

    # (the fields it reads and changes: `Room.__init__` makes them, and says what each holds)
    settings: RoomSettings
    game: Game | None
    phase_since: float
    paused_at: float | None
    paused_for: float
    time_added: int

    # ------------------------------------------------------------------ reading

    @property
    def timer_factor(self) -> int:
        """How many times its set length every timer lasts: 2 with ``extended_timers``."""
        return 2 if self.settings.extended_timers else 1

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def playing(self) -> bool:
        return self.game is not None and self.game.phase is not Phase.OVER

    def phase_seconds(self) -> float | None:
        """How long the current phase's timer is, as set (None: no timer, or no game running)."""
        game = self.game
        if game is None or game.phase is Phase.OVER:
            return None
        seconds = {
            Phase.CLUE: self.settings.clue_seconds,
            Phase.PLAY: self.settings.play_seconds,
            Phase.VOTE: self.settings.vote_seconds,
        }[game.phase]
        if seconds is None:
            return None
        if game.phase is Phase.CLUE and game.last_result is not None:
            seconds += REVEAL_SECONDS  # the reveal does not eat the storyteller's time
        return float(seconds * self.timer_factor)

    def _timer_end(self) -> float | None:
        """When the phase's timer runs out if it is not paused (again)."""
        seconds = self.phase_seconds()
        if seconds is None:
            return None
        return self.phase_since + seconds + self.time_added + self.paused_for

    def deadline(self) -> float | None:
        """When the current phase's timer runs out (None: no timer, no game running, or paused)."""
        return None if self.paused else self._timer_end()

    def time_left(self) -> float | None:
        """While paused, the seconds the phase's timer has left (None: not paused, or no timer)."""
        end = self._timer_end()
        if self.paused_at is None or end is None:
            return None
        return max(0.0, end - self.paused_at)

    def check_not_paused(self) -> None:
        """`RoomError` ``paused`` while the game stands paused: no move is made."""
        if self.paused:
            raise RoomError(RoomCode.PAUSED, "The host paused the game; wait until they resume it.")

    # ------------------------------------------------------------------ changing

    def _new_phase(self, at: float) -> None:
        """A phase began (or the game started, or ended): its timer starts afresh."""
        self.phase_since, self.time_added, self.paused_for, self.paused_at = at, 0, 0.0, None

    def _check_playing(self) -> None:
        if not self.playing():
            raise RoomError(RoomCode.NOT_STARTED, "No game is being played.")

    def _paused(self, entry: Paused) -> None:
        self._check_playing()
        self.check_not_paused()
        self.paused_at = entry.at

    def _resumed(self, entry: Resumed) -> None:
        if self.paused_at is None:
            raise RoomError(RoomCode.NOT_PAUSED, "The game is not paused.")
        self.paused_for += max(0.0, entry.at - self.paused_at)
        self.paused_at = None

    def _time_added(self, entry: TimeAdded) -> None:
        self._check_playing()
        end = self._timer_end()
        if end is None:
            raise RoomError(RoomCode.NO_TIMER, "This phase has no timer to add time to.")
        now = entry.at if self.paused_at is None else self.paused_at
        # a timer that ran out (a bot is about to move) gets its seconds from now
        late = max(0.0, now - end)
        left = end + late - now
        if entry.seconds <= 0 or left + entry.seconds > MOST_TIME_LEFT:
            raise RoomError(
                RoomCode.TOO_MUCH_TIME, f"A timer may have at most {MOST_TIME_LEFT // 60} minutes left; it has enough."
            )
        self.paused_for += late  # (counted as time the timer stood still)
        self.time_added += entry.seconds
