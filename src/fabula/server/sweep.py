"""The sweep: rooms nobody has used for ``room_idle_seconds`` are deleted, every ``sweep_seconds``,
and albums shared by a link longer than ``shared_album_seconds`` ago are forgotten.

With one process the held rooms are all there are; with several, the cluster decides from what
every process knows (`fabula.server.cluster.Cluster.sweep`). Each sweep also reads the games
other processes finished, for the bots' memory.

A deleted room's own pictures go with it — unless its host made a link to them: then the deck is
kept, detached from the room, for ``linked_deck_seconds`` more (a week by default) so the link
can still fill another room's deck, and a later sweep forgets it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from fabula.store.pictures import PictureStore
from fabula.store.sounds import SoundStore

from .autoplay import AutoPlayers
from .config import Config
from .rooms import Rooms

log = logging.getLogger("fabula.server")


class Sweeper:
    def __init__(
        self,
        rooms: Rooms,
        autoplay: AutoPlayers,
        config: Config,
        clock: Callable[[], float],
        *,
        pictures: PictureStore | None,
        cluster_sweep: Callable[[], Awaitable[list[str]]] | None = None,
        sounds: SoundStore | None = None,
    ) -> None:
        """``pictures``: the rooms' own pictures, deleted with their rooms; ``cluster_sweep``:
        with several processes, the cluster's sweep, which knows what the others hold."""
        self.rooms, self.autoplay, self.config, self.clock = rooms, autoplay, config, clock
        self.pictures, self.cluster_sweep, self.sounds = pictures, cluster_sweep, sounds

    async def forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_seconds)
            try:
                await self.sweep()
            except Exception:  # the store or Redis is away: the next sweep tries again
                log.exception("idle sweep failed")
            try:
                await self.autoplay.recall()  # games other processes finished
            except Exception:
                log.exception("kept games could not be read")

    async def sweep(self) -> list[str]:
        """Delete the rooms nobody has been connected to for ``room_idle_seconds``; their codes."""
        await self.rooms.store.forget_shared_albums(self.clock() - self.config.shared_album_seconds)
        if self.cluster_sweep is not None:
            expired = await self.cluster_sweep()
            await self._forget_pictures(expired)
            return expired
        now = self.clock()
        expired = [
            code
            for code, live in self.rooms.held.items()
            if not live.presence.connections
            and now - max(live.presence.idle_since, live.room.last_at) >= self.config.room_idle_seconds
        ]
        for code in expired:
            self.rooms.unload(code)
            await self.rooms.store.delete_room(code)
            log.info("room expired", extra={"room": code})
        await self._forget_pictures(expired)
        return expired

    async def _forget_pictures(self, codes: list[str]) -> None:
        """A deleted room's own pictures go with it (nobody can reach them any more), but for a
        linked deck, kept a while; the linked decks whose time is up are forgotten. Its recorded
        clues go with it."""
        if self.sounds is not None:
            for code in codes:
                await self.sounds.delete_room(code)
        if self.pictures is not None:
            now = self.clock()
            for code in codes:
                await self.pictures.delete_room(code, keep_linked_until=now + self.config.linked_deck_seconds)
            await self.pictures.expire(now)
