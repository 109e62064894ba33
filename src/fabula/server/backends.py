"""Where a server keeps its rooms and how it hears of the other processes, chosen by the config:

=========================  ===============  ==============  ==================================
options                    store, pictures  bus             leases, presence
=========================  ===============  ==============  ==================================
(none: the default)        SQLite files     in-process      none: one process
``--database``             PostgreSQL       in-process      none: still one process
``--database --redis``     PostgreSQL       Redis pub/sub   Redis: several processes, one room
=========================  ===============  ==============  ==================================

The rooms' own pictures live with the rooms: ``pictures.sqlite3`` in the data folder beside
``rooms.sqlite3``, or the same PostgreSQL schema, so every process that reaches a room reaches
its pictures too; so do the storytellers' recorded clues (``sounds.sqlite3``).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass

import asyncpg
from redis.exceptions import RedisError

from fabula.store import Bus, EventStore, Lease, LocalBus, PostgresStore, RedisBus, RedisPresence, SqliteStore
from fabula.store.pictures import PictureStore, SqlitePictures
from fabula.store.sounds import SoundStore, SqliteSounds

from .cluster.owners import RoomOwners
from .config import Config, redacted

log = logging.getLogger("fabula.server")


@dataclass(eq=False)
class Backends:
    store: EventStore
    bus: Bus
    #: who fires a timer; None with one process (there is nobody to compete with)
    lease: Lease | None = None
    #: who is connected through the other processes; None with one process
    presence: RedisPresence | None = None
    #: the rooms' own pictures (set by `open_backends`; a test may leave it out)
    pictures: PictureStore | None = None
    #: which process makes each room's entries; None with one process (or --no-room-owners)
    owners: RoomOwners | None = None
    #: the storytellers' recorded clues (set by `open_backends`; a test may leave it out)
    sounds: SoundStore | None = None

    @property
    def shared(self) -> bool:
        """Other processes may hold the same rooms."""
        return self.presence is not None

    @property
    def bus_connected(self) -> bool:
        """The bus can hear the other processes now (always true in-process)."""
        return bool(getattr(self.bus, "connected", True))

    async def close(self) -> None:
        # presence first: it withdraws this process's players while Redis is still there
        if self.owners is not None:
            await self.owners.close()
        if self.presence is not None:
            await self.presence.close()
        if self.lease is not None:
            await self.lease.close()
        await self.bus.close()
        await self.store.close()
        if self.pictures is not None:
            await self.pictures.close()
        if self.sounds is not None:
            await self.sounds.close()


def describe(config: Config) -> str:
    """Where the rooms are and who shares them, for the start-up line (no password shown)."""
    if not config.database:
        return f"rooms in SQLite at {config.sqlite_path.resolve()}"
    where = f"rooms in PostgreSQL at {redacted(config.database)} (schema {config.namespace})"
    if not config.redis:
        return f"{where}; this process alone (no --redis)"
    return f"{where}, shared with other processes through Redis at {redacted(config.redis)}"


async def open_backends(config: Config) -> Backends:
    """Connect what ``config`` asks for; `RuntimeError` naming the service that cannot be reached."""
    if not config.database:
        sqlite = SqliteStore(config.sqlite_path, durability="power" if config.durability == "power" else "process")
        pictures = SqlitePictures(config.pictures_path)
        return Backends(sqlite, LocalBus(), pictures=pictures, sounds=SqliteSounds(config.sounds_path))
    try:
        store = await PostgresStore.connect(config.database, schema=config.namespace)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        raise RuntimeError(f"cannot use PostgreSQL at {redacted(config.database)}: {error}") from error
    if not config.redis:
        log.warning("PostgreSQL without --redis: run only this one process on these rooms")
        return Backends(store, LocalBus(), pictures=store.pictures(), sounds=store.sounds())
    bus: RedisBus | None = None
    try:
        bus = await RedisBus.connect(config.redis, config.namespace)
        presence = await RedisPresence.connect(config.redis, config.namespace, linger=config.room_idle_seconds)
    except (OSError, TimeoutError, RedisError) as error:
        if bus is not None:
            await bus.close()
        with contextlib.suppress(Exception):
            await store.close()
        raise RuntimeError(f"cannot use Redis at {redacted(config.redis)}: {error}") from error
    # the pictures beside the rooms: every process reaches them, no shared file system needed
    owners = RoomOwners(bus.redis, config.namespace, host=config.peer_host) if config.room_owners else None
    return Backends(store, bus, bus.lease(), presence, store.pictures(), owners, store.sounds())
