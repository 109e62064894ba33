"""The scheduler: the entries nobody sends — bots' moves, timers that run out, absent players'
stand-ins, and hosting passed on from a host who is gone.

One task per held room plans what is due next from the room and its presence, sleeps until then
(or until a change wakes it: it is a `Rooms` listener), and commits the entry. With several
processes only the one that takes the lease on the room's current seq makes it; the others wait
for its entry to reach them through the bus, and if the holder dies first the lease runs out and
one of them makes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from collections.abc import Awaitable, Callable

from fabula.protocol.settings import StandIn
from fabula.rules import Phase, Play, Propose, RulesError
from fabula.store import Lease

from .autoplay import STAND_IN_LEVEL, AutoPlayers, stand_in_language
from .config import Config
from .entries import Acted, AnyEntry, HostPassed, Said
from .errors import RoomCode, RoomError
from .live_room import LiveRoom
from .metrics import Metrics
from .room import Room
from .rooms import Rooms

log = logging.getLogger("fabula.server")

#: Seconds a process has, once it took the lease on a scheduled entry, to store it (a bot's
#: thinking included); if it dies first, another process makes the entry after this long.
LEASE_SECONDS = 5.0
#: How long a room waits before trying a due move again when the store could not take it.
STORE_AWAY_SECONDS = 1.0

#: (when, seat, why a bot stands in for a person — None for a bot's own move)
Due = tuple[float, int, StandIn | None]


class Scheduler:
    def __init__(
        self,
        rooms: Rooms,
        autoplay: AutoPlayers,
        config: Config,
        metrics: Metrics,
        *,
        clock: Callable[[], float],
        rng: Callable[[], random.Random],
        lease: Lease | None = None,
    ) -> None:
        """``rng``: the service's random source (tests replace it), read when a bot moves;
        ``lease``: who makes a scheduled entry (None with one process: this one)."""
        self.rooms, self.autoplay, self.config, self.metrics, self.clock = rooms, autoplay, config, metrics, clock
        self.rng, self.lease = rng, lease

    # ------------------------------------------------------------------ listening

    def entry(self, live: LiveRoom, entry: AnyEntry, *, here: bool) -> None:  # noqa: ARG002 - every entry, wherever made
        if not isinstance(entry, Said):
            live.wake.set()  # plan again: a bot may be awaited now, or a timer started

    def refreshed(self, live: LiveRoom) -> None:
        live.wake.set()

    async def loaded(self, live: LiveRoom) -> None:
        self.start(live)  # its timers and bots resume

    # ------------------------------------------------------------------ the loop

    def start(self, live: LiveRoom) -> None:
        live.scheduler = asyncio.create_task(self._forever(live))

    async def _forever(self, live: LiveRoom) -> None:
        while self.rooms.held.get(live.room.code) is live:
            handoff = self.host_handoff(live)
            if handoff is not None and handoff[0] <= self.clock():
                await self._scheduled(live, functools.partial(self._pass_host, live, handoff[1]))
                continue
            wait = self._due_in(live)
            if wait == 0:
                await self._scheduled(live, functools.partial(self._auto_move, live))
                continue
            if handoff is not None:
                until_handoff = max(0.0, handoff[0] - self.clock())
                wait = until_handoff if wait is None else min(wait, until_handoff)
            live.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(live.wake.wait(), timeout=wait)

    async def _scheduled(self, live: LiveRoom, make: Callable[[], Awaitable[None]]) -> None:
        """Make the entry that is due now — with several processes, only if this one is first to
        take the lease on the room's current seq. (The store would refuse a second entry at that
        seq anyway: the lease spares the wasted work and the conflict.)"""
        lease = self.lease
        if lease is None:
            await make()
            return
        seq = live.room.seq
        key = f"due:{live.room.code}:{seq}"
        # a model bot may think for its whole time limit before the entry is stored
        seconds = LEASE_SECONDS + (self.config.model_bot_seconds if self.config.model_bot else 0.0)
        try:
            ours = await lease.try_acquire(key, seconds)
        except Exception as error:  # Redis is away: the store alone still decides
            log.warning("lease unavailable", extra={"room": live.room.code, "error": str(error)})
            ours = True
        if not ours:
            self.metrics.scheduled_elsewhere.inc()
            if live.room.seq == seq:  # else the other's entry is here already: plan again at once
                live.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(live.wake.wait(), timeout=LEASE_SECONDS)
            return
        try:
            await make()
        finally:
            if live.room.seq == seq:  # nothing landed: free it for the next try, here or elsewhere
                with contextlib.suppress(Exception):
                    await lease.release(key)

    @staticmethod
    async def _after_refusal(error: RulesError) -> None:
        """The store is away (the move is due again at once): wait rather than ask it in a loop."""
        if error.code == RoomCode.STORE_FAILED:
            await asyncio.sleep(STORE_AWAY_SECONDS)

    # ------------------------------------------------------------------ hosting

    def host_handoff(self, live: LiveRoom) -> tuple[float, int] | None:
        """(when, to whom) hosting passes on because the host has been away past the grace
        period while another person is here; None if it does not."""
        room, presence = live.room, live.presence
        host = room.host
        if host is None or not presence.gone(host):
            return None
        here = [m for m in room.members if presence.at_the_table(room, m)]
        if not here:
            return None
        return presence.gone_since[host] + self.config.disconnect_grace_seconds, here[0]

    async def _pass_host(self, live: LiveRoom, member: int) -> None:
        try:
            await self.rooms.commit(live, HostPassed(at=self.clock(), member=member), retry=False)
        except RulesError as error:  # pragma: no cover - the member left in between; re-planned next round
            log.warning("host hand-off refused", extra={"room": live.room.code, "code": error.code})
            await self._after_refusal(error)

    # ------------------------------------------------------------------ moves made for someone

    def _due_in(self, live: LiveRoom) -> float | None:
        """0 if a bot should move now, else seconds until one should (None: nothing pending)."""
        due = self.next_due(live)
        if due is None:
            return None
        return max(0.0, due[0] - self.clock())

    def next_due(self, live: LiveRoom) -> Due | None:
        """The earliest move a bot makes for someone."""
        room, presence, config = live.room, live.presence, self.config
        game = room.game
        if game is None or game.phase is Phase.OVER or room.paused:
            return None  # (paused: nobody moves, a bot neither; hosting may still pass on)
        deadline = room.deadline()
        earliest: Due | None = None
        since_change = max(room.phase_since, room.last_at)
        for seat in game.awaiting:
            member = room.members[room.seating[seat]]
            because: StandIn | None = None
            if member.bot is not None and self._leaves_choice_to_teammate(live, seat):
                when = since_change + config.teammate_wait_seconds * room.timer_factor
                if deadline is not None:
                    when = min(when, deadline)
            elif member.bot is not None:
                when = since_change + self._bot_delay(live)
            elif member.away:
                when, because = since_change + config.bot_delay_seconds, "away"
            elif presence.gone(member.id):
                when, because = presence.gone_since[member.id] + config.disconnect_grace_seconds, "away"
                if deadline is not None and deadline < when:
                    when, because = deadline, "time"
            elif deadline is not None:
                when, because = deadline, "time"
            else:
                continue
            # At the same moment a bot's own move comes before a stand-in's for a person.
            if earliest is None or (when, because is not None) < (earliest[0], earliest[2] is not None):
                earliest = (when, seat, because)
        return earliest

    def _bot_delay(self, live: LiveRoom) -> float:
        """How long a bot waits before its move: its thinking time, or — a storyteller after a
        reveal, with a person at the table — long enough for the table to look at the reveal and
        talk about it (the table chat is open only until the clue)."""
        room, config = live.room, self.config
        game = room.game
        after_a_reveal = game is not None and game.phase is Phase.CLUE and game.round > 1
        if after_a_reveal and any(live.presence.at_the_table(room, member) for member in room.seating):
            return max(config.bot_delay_seconds, config.bot_reveal_seconds)
        return config.bot_delay_seconds

    def _mate_at_the_table(self, live: LiveRoom, seat: int) -> bool:
        """Teams, play phase: whether ``seat``'s teammate is a person who is here."""
        room = live.room
        game = room.game
        if game is None or game.phase is not Phase.PLAY or game.rules.team_of is None:
            return False
        return live.presence.at_the_table(room, room.seating[game.rules.teammate(seat)])

    def _leaves_choice_to_teammate(self, live: LiveRoom, seat: int) -> bool:
        """Whether bot ``seat`` has proposed its card to a teammate who is a person at the table:
        then choosing who plays is theirs, and the bot plays only once the table has been quiet
        for ``teammate_wait_seconds`` (two bots settle it at once)."""
        game = live.room.game
        return game is not None and game.proposal(seat) is not None and self._mate_at_the_table(live, seat)

    async def _auto_move(self, live: LiveRoom) -> None:
        due = self.next_due(live)
        if due is None:
            return
        _, seat, because = due
        room = live.room
        game = room.game
        assert game is not None
        member = room.members[room.seating[seat]]
        planned = room.seq
        level = member.bot or STAND_IN_LEVEL
        if member.bot is not None:
            language = member.bot_language
        else:
            language = live.presence.languages.get(member.id) or stand_in_language(room)
        rng = random.Random(self.rng().getrandbits(64))
        action, fallback = await self.autoplay.move(room, seat, level, rng, language)
        # A person's teammate never decides alone: it offers its card, and plays it only if the
        # person lets the table go quiet (`teammate_wait_seconds`).
        if isinstance(action, Play) and member.bot is not None and self._mate_at_the_table(live, seat):
            offer = Propose(seat, action.cards[0])
            if game.proposal(seat) is None and offer in game.legal_actions(seat):
                action = offer

        def move(current: Room) -> Acted:
            # The bot thought in a worker thread: if anything happened meanwhile (the person came
            # back and played, say), its move is for a table that no longer exists.
            if current is not room or current.seq != planned:
                raise RoomError(RoomCode.STALE, "The table changed while the bot was thinking.")
            # nor for a person who came back meanwhile (a hello is no entry: the seq is the same)
            if because == "away" and live.presence.at_the_table(current, member.id):
                raise RoomError(RoomCode.STALE, "The player came back while the bot was thinking.")
            return Acted(
                at=self.clock(),
                member=member.id,
                action=action.to_json(),
                auto=because is not None,
                because=because,
                fallback=fallback,
            )

        try:
            await self.rooms.commit(live, move)
        except RulesError as error:  # the game moved on under us; the next round of the loop sees that
            log.info("bot move dropped", extra={"room": room.code, "code": error.code})
            await self._after_refusal(error)
        else:
            self.metrics.auto_moves.inc()
