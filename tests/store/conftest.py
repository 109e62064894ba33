"""Backends for the shared store and bus suites: every test runs against each of them.

PostgreSQL and Redis are the real services of `tests.services` (``FABULA_TEST_DATABASE_URL``,
``FABULA_TEST_REDIS_URL``). Where one cannot be reached its tests are skipped with the reason —
unless ``CI=true``, where an unreachable service fails them: CI must not pass by skipping.

Isolation: every PostgreSQL test gets a schema of its own (random name, dropped afterwards) and
every Redis test a namespace of its own (random channel and lease keys), so runs in parallel
(``pytest -n auto``) or one after another never see each other's rooms.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fabula.store import (
    Bus,
    EventStore,
    Lease,
    LeaseTable,
    LocalBus,
    LocalLease,
    PostgresStore,
    RedisBus,
    RedisLease,
    SqliteStore,
)
from fabula.store.pictures import PictureStore, SqlitePictures

from ..services import drop_schema, postgres_url, redis_url, unavailable, unique_name

# re-exported: the suites here import them from this conftest
__all__ = ["drop_schema", "postgres_url", "redis_url", "unavailable", "unique_name"]

# ---------------------------------------------------------------------- event stores


class StoreBackend:
    """Opens stores on one database, as separate processes would (each its own connections)."""

    name = ""

    def __init__(self) -> None:
        self.opened: list[EventStore] = []

    async def open(self) -> EventStore:
        store = await self._open()
        self.opened.append(store)
        return store

    async def _open(self) -> EventStore:
        raise NotImplementedError

    async def cleanup(self) -> None:
        for store in self.opened:
            await store.close()


class SqliteBackend(StoreBackend):
    name = "sqlite"

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    async def _open(self) -> EventStore:
        return SqliteStore(self.path)


class PostgresBackend(StoreBackend):
    name = "postgres"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.schema = unique_name("fabula_test")

    async def _open(self) -> EventStore:
        return await PostgresStore.connect(self.url, schema=self.schema, min_size=1, max_size=4)

    async def cleanup(self) -> None:
        await super().cleanup()
        await drop_schema(self.url, self.schema)


@pytest.fixture(params=["sqlite", "postgres"])
async def store_backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreBackend]:
    backend: StoreBackend
    if request.param == "sqlite":
        backend = SqliteBackend(tmp_path / "rooms.sqlite3")
    else:
        backend = PostgresBackend(request.getfixturevalue("postgres_url"))
    try:
        yield backend
    finally:
        await backend.cleanup()


@pytest.fixture
async def store(store_backend: StoreBackend) -> EventStore:
    return await store_backend.open()


# ---------------------------------------------------------------------- picture stores


class PictureBackend:
    """Opens picture stores on one database, as separate processes would."""

    name = ""

    def __init__(self) -> None:
        self.closers: list[PictureStore | EventStore] = []

    async def open(self) -> PictureStore:
        raise NotImplementedError

    async def cleanup(self) -> None:
        for closer in self.closers:
            await closer.close()


class SqlitePictureBackend(PictureBackend):
    name = "sqlite"

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    async def open(self) -> PictureStore:
        pictures = SqlitePictures(self.path)
        self.closers.append(pictures)
        return pictures


class PostgresPictureBackend(PictureBackend):
    """Each "process" a `PostgresStore` of its own (its own pool) handing out its pictures."""

    name = "postgres"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.schema = unique_name("fabula_test")

    async def open(self) -> PictureStore:
        store = await PostgresStore.connect(self.url, schema=self.schema, min_size=1, max_size=4)
        self.closers.append(store)
        return store.pictures()

    async def cleanup(self) -> None:
        await super().cleanup()
        await drop_schema(self.url, self.schema)


@pytest.fixture(params=["sqlite", "postgres"])
async def picture_backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[PictureBackend]:
    backend: PictureBackend
    if request.param == "sqlite":
        backend = SqlitePictureBackend(tmp_path / "pictures.sqlite3")
    else:
        backend = PostgresPictureBackend(request.getfixturevalue("postgres_url"))
    try:
        yield backend
    finally:
        await backend.cleanup()


@pytest.fixture
async def pictures(picture_backend: PictureBackend) -> PictureStore:
    return await picture_backend.open()


# ---------------------------------------------------------------------- buses and leases


class BusBackend:
    """Opens buses and lease holders the way separate processes of one deployment would."""

    name = ""

    def __init__(self) -> None:
        self.buses: list[Bus] = []
        self.leases: list[Lease] = []

    async def bus(self) -> Bus:
        """A process's bus (for the local bus: the one bus of this process)."""
        raise NotImplementedError

    async def lease(self) -> Lease:
        """Another lease holder, competing with the others of this backend."""
        raise NotImplementedError

    async def cleanup(self) -> None:
        for bus in self.buses:
            await bus.close()
        for lease in self.leases:
            await lease.close()


class LocalBackend(BusBackend):
    name = "local"

    def __init__(self) -> None:
        super().__init__()
        self.table = LeaseTable()
        self.local = LocalBus()
        self.buses.append(self.local)

    async def bus(self) -> Bus:
        return self.local

    async def lease(self) -> Lease:
        holder = LocalLease(self.table)
        self.leases.append(holder)
        return holder


class RedisBackend(BusBackend):
    name = "redis"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.namespace = unique_name("fabula-test")

    async def bus(self) -> Bus:
        bus = await RedisBus.connect(self.url, self.namespace)
        self.buses.append(bus)
        return bus

    async def lease(self) -> Lease:
        holder = await RedisLease.connect(self.url, self.namespace)
        self.leases.append(holder)
        return holder


@pytest.fixture(params=["local", "redis"])
async def bus_backend(request: pytest.FixtureRequest) -> AsyncIterator[BusBackend]:
    local = request.param == "local"
    backend: BusBackend = LocalBackend() if local else RedisBackend(request.getfixturevalue("redis_url"))
    try:
        yield backend
    finally:
        await backend.cleanup()
