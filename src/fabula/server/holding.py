"""The rooms this process holds, by code: found, loaded from the store (the one loader, for a
process alone at its start and for one of several when a room is first asked for), let go of.
What hears of their changes is a `Listener`; `Rooms` adds the one way a held room changes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from fabula.rules import RulesError
from fabula.store import Bus, EventStore

from .live_room import Listener, LiveRoom, no_room, replay
from .metrics import Metrics
from .room import Room

log = logging.getLogger("fabula.server")

#: Room codes avoid look-alikes: no 0/O, 1/I/L, no U/V.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ23456789"
CODE_LENGTH = 5


class HeldRooms:
    """The rooms held here, by code, and their listeners."""

    def __init__(
        self, store: EventStore, bus: Bus, metrics: Metrics, clock: Callable[[], float], *, shared: bool = False
    ) -> None:
        """``shared``: other processes hold rooms of ``store`` too (so a room not held here may be
        stored, and a stored room may have entries this process has not heard of yet)."""
        self.store, self.bus, self.metrics, self.clock = store, bus, metrics, clock
        self.shared = shared
        self.held: dict[str, LiveRoom] = {}
        self.listeners: list[Listener] = []
        #: rooms being loaded now, so that two requests share one load
        self._loading: dict[str, asyncio.Task[LiveRoom]] = {}

    # ------------------------------------------------------------------ finding

    def live(self, code: str) -> LiveRoom:
        """Room ``code`` if this process holds it (a greeted connection's room always is)."""
        live = self.held.get(code.upper())
        if live is None:
            raise no_room(code)
        return live

    async def find(self, code: str) -> LiveRoom:
        """Room ``code``; with several processes, loaded from the store if this process does not
        hold it yet. `RoomError` ``no_room`` if there is no such room."""
        key = code.upper()
        if key in self.held or not self.shared:  # (one process holds every room it has)
            return self.live(code)
        if len(key) != CODE_LENGTH or not set(key) <= set(CODE_ALPHABET):
            return self.live(code)  # no code was ever made like that: no need to ask the store
        loading = self._loading.get(key)
        if loading is None:
            loading = asyncio.ensure_future(self._load_missing(key))
            self._loading[key] = loading
            loading.add_done_callback(self._loaded)
        # shielded: a client that goes away does not cancel a load another request waits for
        return await asyncio.shield(loading)

    def _loaded(self, task: asyncio.Task[LiveRoom]) -> None:
        for code, loading in list(self._loading.items()):
            if loading is task:
                del self._loading[code]
        if not task.cancelled():
            task.exception()  # retrieved here too: every client that waited for it may have gone

    async def _load_missing(self, code: str) -> LiveRoom:
        live = await self.load(code)
        if live is None:
            raise no_room(code)
        return live

    async def load(self, code: str) -> LiveRoom | None:
        """Room ``code`` as stored, held from now on (each listener told, `Listener.loaded`); None
        if nothing is stored, or its log is damaged (logged: it must not stop the others)."""
        try:
            room = replay(code, await self.store.load(code))
        except (RulesError, ValueError) as error:
            log.error("room cannot be rebuilt", extra={"room": code, "error": str(error)})
            return None
        if room is None:
            return None
        now = self.clock()
        live = LiveRoom(room)
        live.presence.idle_since = now
        # nobody is connected yet: the cluster's listener says who is, through another process
        live.presence.gone_since = {m.id: now for m in room.members.values() if m.bot is None}
        self.hold(live)
        for listener in self.listeners:
            await listener.loaded(live)
        log.info("room loaded", extra={"room": code, "seq": room.seq})
        return live

    async def load_every_room(self) -> None:
        """Hold every stored room (one process: its timers and bots resume); a room created whose
        first entry never landed (never acknowledged) is deleted."""
        for code in await self.store.room_codes():
            if await self.load(code) is None and not await self.store.load(code):
                await self.store.delete_room(code)

    def hold(self, live: LiveRoom) -> None:
        self.held[live.room.code] = live
        self.bus.hear(live.room.code)
        self.metrics.rooms.set(len(self.held))

    def unload(self, code: str) -> None:
        """Let go of room ``code`` (it stays in the store): nobody here uses it any more."""
        live = self.held.pop(code, None)
        if live is None:
            return
        self.bus.unhear(code)
        self.metrics.rooms.set(len(self.held))
        if live.lock.locked():
            # In the middle of storing an entry: cancelled now, it might be stored and never
            # announced. Its loops see that the room is let go, and end, once it is done.
            live.wake.set()
            return
        for task in (live.scheduler, live.follower):
            if task is not None:
                task.cancel()

    async def rebuild(self, code: str) -> Room | None:
        """Room ``code`` as its stored log makes it; None if nothing is stored."""
        return replay(code, await self.store.load(code))

    def _refreshed(self, live: LiveRoom) -> None:
        for listener in self.listeners:
            listener.refreshed(live)

    def refreshed(self, live: LiveRoom) -> None:
        """Who is in ``live``'s room changed (a connection came or went, here or elsewhere)."""
        self._refreshed(live)
