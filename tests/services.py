"""The real PostgreSQL and Redis that the scale-out tests use (tests/store, tests/server).

They are named by ``FABULA_TEST_DATABASE_URL`` and ``FABULA_TEST_REDIS_URL``. Where one cannot be
reached its tests are skipped with the reason — unless ``CI=true``, where an unreachable service
fails them: CI must not pass by skipping.

Isolation: each user takes a name of its own from `unique_name` (a PostgreSQL schema, a Redis
namespace) and drops it afterwards (`drop_schema`, `drop_namespace`), so runs in parallel
(``pytest -n auto``) or one after another never see each other's rooms.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NoReturn

import asyncpg
import pytest
from redis.asyncio import Redis

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


def run_aside(check: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run a coroutine on a loop of its own (a fixture may ask while a test's loop runs)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, check()).result()


def unique_name(prefix: str) -> str:
    """A schema or namespace name nobody else uses (lower-case letters, digits and _)."""
    return f"{prefix}_{os.getpid()}_{secrets.token_hex(6)}"


async def drop_schema(url: str, schema: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await connection.close()


async def drop_namespace(url: str, namespace: str) -> None:
    """Delete every Redis key of ``namespace`` (presence, leases, visited rooms)."""
    redis = Redis.from_url(url)
    try:
        keys = [key async for key in redis.scan_iter(match=f"{namespace}:*", count=500)]
        if keys:
            await redis.delete(*keys)
    finally:
        await redis.aclose()
