"""Keeping step with the other processes of a deployment (``--database`` with ``--redis``).

Each process holds the rooms its own clients use: a room is loaded from the store when someone
first asks this process for it, and let go once nobody here has been connected to it for a sweep
period (``sweep_seconds``). For the rooms it holds, the cluster

- follows the room bus: a notice "room CODE has entry SEQ" for a held room that is behind makes
  the process load the entries it lacks (``store.load(code, since=…)``), apply them and send its
  connections their new state; after a Redis reconnection (`RESYNC`) every held room asks the
  store, since notices may have been lost;
- keeps presence: it announces who is connected here (`RedisPresence`) and reads what the others
  announce, so that a player connected to another process is neither shown grey here nor played
  for by a bot, and a process that died stops counting after the announcement's ttl;
- sweeps: a room that nobody has been connected to anywhere for ``room_idle_seconds`` and that
  has had no entry for as long is deleted, by the one process that takes the lease on it.

Scheduled entries (timers, bots, absent players, host hand-off) take a lease in
`Scheduler._scheduled`; a request whose append finds its seq taken is retried in `Rooms.commit`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from fabula.rules import RulesError
from fabula.store import HEARD, Lease, RedisPresence, Seen, StoredEntry, Subscription

from ..config import Config
from ..errors import RoomCode
from ..live_room import LiveRoom
from ..rooms import Rooms

log = logging.getLogger("fabula.server")

#: Seconds the process that deletes an idle room holds it (any two would agree anyway).
SWEEP_LEASE_SECONDS = 30.0
#: Failed loads in a row after which a room stops trying to catch up until the next notice.
CATCH_UP_TRIES = 5
#: How often a held room reads the store while the bus is away.
DEAF_POLL_SECONDS = 0.5


class Following:
    def __init__(
        self,
        rooms: Rooms,
        presence: RedisPresence,
        config: Config,
        clock: Callable[[], float],
        lease: Lease | None,
        *,
        hears: Callable[[], bool] = lambda: True,
    ) -> None:
        self.rooms, self.bus, self.presence = rooms, rooms.bus, presence
        self.config, self.clock, self.lease = config, clock, lease
        #: whether the bus hears the other processes now (while it does not, the store is read)
        self.hears = hears
        #: rooms whose presence here changed since the last announcement
        self._announce: set[str] = set()
        #: held rooms whose presence elsewhere changed since the last reading
        self._reread: set[str] = set()
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        # Subscribed before any room is loaded, so that no notice about a loaded room is missed.
        rooms, presence = self.bus.subscribe(), self.presence.changes()
        self._tasks = [
            asyncio.create_task(self._follow_rooms(rooms), name="cluster: room notices"),
            asyncio.create_task(self._follow_presence(presence), name="cluster: presence notices"),
            asyncio.create_task(self._presence_forever(), name="cluster: presence"),
            asyncio.create_task(self._read_the_store_while_deaf(), name="cluster: reading the store"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    # ------------------------------------------------------------------ rooms

    async def _follow_rooms(self, notices: Subscription) -> None:
        async for notice in notices:
            rooms = self.rooms.held
            if notice.room is None:  # RESYNC: notices may have been lost while Redis was away
                for held in list(rooms.values()):
                    self.follow(held, held.room.seq)
                continue
            live = rooms.get(notice.room)
            if live is not None and notice.seq == HEARD:
                # its notices reach this process now: what was stored since it was loaded here
                # and before may have gone unheard
                self.follow(live, live.room.seq)
                continue
            # stale notices name a seq this process has already
            if live is None or notice.seq < live.room.seq:
                continue
            if notice.first <= live.room.seq and not live.lock.locked() and live.stale_since is None:
                # it carries what this process lacks, and nothing is being made of the room here
                # now: applied at once, without reading the store
                try:
                    self.rooms.apply_stored(live, StoredEntry.ending_at(notice.seq, notice.entries))
                except (RulesError, ValueError) as error:  # the log decides: read from it
                    log.error(
                        "a carried entry failed; reading the store", extra={"room": notice.room, "error": str(error)}
                    )
                    self.follow(live, notice.seq)
            else:
                # kept for the follower, which applies them once the room is free (if they follow
                # on from what it has then)
                live.carried.update((item.seq, item.data) for item in StoredEntry.ending_at(notice.seq, notice.entries))
                self.follow(live, notice.seq)

    async def _read_the_store_while_deaf(self) -> None:
        """While the bus cannot hear the other processes (Redis away), every held room reads
        what they stored, every `DEAF_POLL_SECONDS`: play goes on through every process, only a
        little later than with notices."""
        while True:
            await asyncio.sleep(DEAF_POLL_SECONDS)
            if not self.hears():
                for live in list(self.rooms.held.values()):
                    self.follow(live, live.room.seq)

    def follow(self, live: LiveRoom, seq: int) -> None:
        """Room ``live`` has entries up to at least ``seq`` in the store: catch up to them (one
        task per room, so that a slow room holds up no other)."""
        live.behind = max(live.behind, seq)
        if live.follower is None or live.follower.done():
            live.follower = asyncio.create_task(self._catch_up(live), name=f"catch up {live.room.code}")

    async def _catch_up(self, live: LiveRoom) -> None:
        failures = 0
        while live.behind >= live.room.seq and self.rooms.held.get(live.room.code) is live:
            asked = live.behind
            try:
                if not await self.rooms.catch_up(live):
                    if live.behind > asked:
                        continue  # a notice came during the load, which may not have seen its entry
                    return  # nothing (more) stored: a notice of ours, or a resync with nothing missed
            except Exception as error:
                if isinstance(error, RulesError) and error.code != RoomCode.STORE_FAILED:
                    return  # the room is gone (deleted by an idle sweep elsewhere)
                # the store is away for a moment: try again, a few times
                failures += 1
                log.warning("catching up failed", extra={"room": live.room.code, "error": str(error)})
                if failures >= CATCH_UP_TRIES:
                    return
                await asyncio.sleep(0.2 * failures)

    def entry(self, live: LiveRoom, entry: object, *, here: bool) -> None:
        del live, entry, here  # (the bus carries the entries to the others)

    def refreshed(self, live: LiveRoom) -> None:
        del live

    async def loaded(self, live: LiveRoom) -> None:
        """A room just loaded here: who is connected to it elsewhere, and whatever was stored
        between its loading and now (a notice of that came before the room was held)."""
        code = live.room.code
        try:
            found = await self.presence.others([code])
        except Exception as error:  # without Redis, nobody elsewhere is known to be there
            log.warning("presence unavailable", extra={"room": code, "error": str(error)})
        else:
            self.seen_elsewhere(live, found.get(code, []))
        self.follow(live, live.room.seq)

    def seen_elsewhere(self, live: LiveRoom, seen: list[Seen]) -> None:
        """What the other processes announce of ``live``'s room now (see `Presence.elsewhere`)."""
        if not live.presence.elsewhere(live.room, seen, self.clock()):
            return
        self.rooms.refreshed(live)  # their rabbits light up or go grey here too
        # someone went from another process — maybe with it, before it could announce its last
        # entry: ask the store
        self.follow(live, live.room.seq)

    # ------------------------------------------------------------------ presence

    def changed_here(self, code: str) -> None:
        """Someone connected to room ``code`` here, or went: announce it soon."""
        self._announce.add(code)
        self._wake.set()

    async def _follow_presence(self, changes: Subscription) -> None:
        async for notice in changes:
            rooms = self.rooms.held
            if notice.room is None:  # Redis was away (and may have forgotten everything): say it all again
                self._reread.update(rooms)
                self._announce.update(code for code, live in rooms.items() if live.presence.connections)
            elif notice.room in rooms:
                self._reread.add(notice.room)
            else:
                continue
            self._wake.set()

    async def _presence_forever(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + self.presence.refresh_seconds
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(0.0, due - loop.time()))
            self._wake.clear()
            rooms = self.rooms.held
            if loop.time() >= due:  # announce everything again before it expires; re-read everything
                due = loop.time() + self.presence.refresh_seconds
                self._announce.update(code for code, live in rooms.items() if live.presence.connections)
                self._reread.update(rooms)
            announce, self._announce = self._announce, set()
            reread, self._reread = self._reread, set()
            try:
                await self._exchange(announce, reread)
            except Exception as error:
                log.warning("presence: Redis unavailable, trying again", extra={"error": str(error)})
                self._announce |= announce
                self._reread |= reread
                await asyncio.sleep(1.0)

    async def _exchange(self, announce: set[str], reread: set[str]) -> None:
        rooms = self.rooms.held
        if announce:
            # a room no longer held, or without connections, is withdrawn
            await self.presence.announce(
                {code: rooms[code].presence.seen_here() if code in rooms else [] for code in announce}
            )
        held = sorted(code for code in reread if code in rooms)
        if held:
            for code, seen in (await self.presence.others(held)).items():
                live = rooms.get(code)
                if live is not None:
                    self.seen_elsewhere(live, seen)

    # ------------------------------------------------------------------ idle rooms

    async def sweep(self) -> list[str]:
        """Let go of the rooms nobody here has used for a sweep period; delete the rooms nobody
        anywhere has used for ``room_idle_seconds`` (one process deletes each); their codes."""
        rooms, config, store = self.rooms, self.config, self.rooms.store
        now = self.clock()
        for code, held in list(rooms.held.items()):
            if not held.presence.connections and now - held.presence.idle_since >= config.sweep_seconds:
                rooms.unload(code)
        expired = []
        for code in await store.room_codes():
            live = rooms.held.get(code)
            if live is not None and live.presence.connections:
                continue
            touched = await store.touched(code)
            if touched is None or now - touched < config.room_idle_seconds or await self.presence.visited(code):
                continue
            if self.lease is not None and not await self.lease.try_acquire(f"sweep:{code}", SWEEP_LEASE_SECONDS):
                continue
            rooms.unload(code)
            await store.delete_room(code)
            expired.append(code)
            log.info("room expired", extra={"room": code})
        return expired
