"""Backends for the shared store and bus suites: every test runs against each of them.

PostgreSQL and Redis are the real services named by ``FABULA_TEST_DATABASE_URL`` and
``FABULA_TEST_REDIS_URL``. Where one cannot be reached its tests are skipped with the reason —
unless ``CI=true``, where an unreachable service fails them: CI must not pass by skipping.

Isolation: every PostgreSQL test gets a schema of its own (random name, dropped afterwards) and
every Redis test a namespace of its own (random channel and lease keys), so runs in parallel
(``pytest -n auto``) or one after another never see each other's rooms.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NoReturn

import asyncpg
import pytest
from redis.asyncio import Redis

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

DATABASE_URL = os.environ.get("FABULA_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("FABULA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


def unavailable(reason: str) -> NoReturn:
    if in_ci():
        pytest.fail(f"{reason} (CI=true: a missing service is a failure, not a skip)")
    pytest.skip(reason)


async def _postgres_error() -> str | None:
    try:
        connection = await asyncpg.connect(DATABASE_URL, timeout=3)
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        return f"{type(error).__name__}: {error}"
    await connection.close()
    return None


async def _redis_error() -> str | None:
    redis = Redis.from_url(REDIS_URL, socket_connect_timeout=3, socket_timeout=3)
    try:
        await redis.ping()
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    finally:
        await redis.aclose()
    return None


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """``FABULA_TEST_DATABASE_URL``, reachable (else skip, or fail under CI)."""
    error = run_aside(_postgres_error)
    if error is not None:
        unavailable(f"PostgreSQL at {DATABASE_URL} is unreachable ({error}); set FABULA_TEST_DATABASE_URL")
    return DATABASE_URL


@pytest.fixture(scope="session")
def redis_url() -> str:
    """``FABULA_TEST_REDIS_URL``, reachable (else skip, or fail under CI)."""
    error = run_aside(_redis_error)
    if error is not None:
        unavailable(f"Redis at {REDIS_URL} is unreachable ({error}); set FABULA_TEST_REDIS_URL")
    return REDIS_URL


def run_aside(check: Callable[[], Coroutine[Any, Any, str | None]]) -> str | None:
    """Run an async check on a loop of its own (a fixture may ask while a test's loop runs)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, check()).result()


def unique_name(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{secrets.token_hex(6)}"


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


async def drop_schema(url: str, schema: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await connection.close()


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
