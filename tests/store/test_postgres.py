"""PostgreSQL-only behaviour: schema migrations on start, and the connection pool."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from fabula.store import PostgresStore, SeqTaken
from fabula.store.postgres import MIGRATIONS, SCHEMA_VERSION, migrate

from .conftest import drop_schema, unique_name

pytestmark = pytest.mark.anyio


@pytest.fixture
async def schema(postgres_url: str) -> AsyncIterator[str]:
    name = unique_name("fabula_test")
    yield name
    await drop_schema(postgres_url, name)


async def applied(url: str, schema: str) -> list[tuple[int, str]]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(f'SELECT version, name FROM "{schema}".schema_migrations ORDER BY version')
    finally:
        await connection.close()
    return [(row[0], row[1]) for row in rows]


async def test_migrations_run_on_start_and_a_second_run_is_a_no_op(postgres_url: str, schema: str) -> None:
    store = await PostgresStore.connect(postgres_url, schema=schema)
    everything = [(m.version, m.name) for m in MIGRATIONS]
    assert await applied(postgres_url, schema) == everything
    await store.create_room("AAAAA", at=1.0)
    await store.append("AAAAA", 0, b"kept", at=1.0)
    assert await migrate(store._pool, schema) == [], "nothing left to apply"
    await store.close()

    again = await PostgresStore.connect(postgres_url, schema=schema)
    assert await applied(postgres_url, schema) == everything
    assert [e.data for e in await again.load("AAAAA")] == [b"kept"], "a restart keeps the rooms"
    await again.close()


async def test_processes_starting_at_once_all_migrate_safely(postgres_url: str, schema: str) -> None:
    """Without the advisory lock, CREATE SCHEMA / CREATE TABLE race and all but one fail."""
    stores = await asyncio.gather(*(PostgresStore.connect(postgres_url, schema=schema) for _ in range(6)))
    assert await applied(postgres_url, schema) == [(m.version, m.name) for m in MIGRATIONS]
    assert await stores[0].create_room("AAAAA", at=1.0)
    assert await stores[5].room_codes() == ["AAAAA"]
    for store in stores:
        await store.close()


async def test_a_schema_from_a_newer_fabula_is_refused(postgres_url: str, schema: str) -> None:
    store = await PostgresStore.connect(postgres_url, schema=schema)
    await store._pool.execute(
        f'INSERT INTO "{schema}".schema_migrations (version, name) VALUES ($1, $2)', SCHEMA_VERSION + 1, "future"
    )
    await store.close()
    with pytest.raises(RuntimeError, match="newer Fabula"):
        await PostgresStore.connect(postgres_url, schema=schema)


async def test_a_schema_name_is_checked(postgres_url: str) -> None:
    for bad in ('x"; DROP TABLE y; --', "Upper", "1st", ""):
        with pytest.raises(ValueError, match="schema name"):
            await PostgresStore.connect(postgres_url, schema=bad)


async def test_an_unreachable_database_fails_fast() -> None:
    with pytest.raises((OSError, asyncpg.PostgresError)):
        await PostgresStore.connect("postgresql://postgres@127.0.0.1:9/test", timeout=2)


async def test_the_pool_replaces_a_connection_the_server_cut(postgres_url: str, schema: str) -> None:
    """A PostgreSQL restart or an administrator's pg_terminate_backend: later calls work again."""
    store = await PostgresStore.connect(postgres_url, schema=schema, min_size=1, max_size=1)
    await store.create_room("AAAAA", at=1.0)
    pid = await store._pool.fetchval("SELECT pg_backend_pid()")
    admin = await asyncpg.connect(postgres_url)
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()
    await asyncio.sleep(0.2)
    await store.append("AAAAA", 0, b"after", at=2.0)
    assert [e.data for e in await store.load("AAAAA")] == [b"after"]
    await store.close()


async def test_appends_that_arrive_together_share_commits_and_each_gets_its_own_answer(
    postgres_url: str, schema: str
) -> None:
    store = await PostgresStore.connect(postgres_url, schema=schema)
    codes = [f"R{n:04d}" for n in range(60)]
    for code in codes:
        await store.create_room(code, at=1.0)
    # the first appends go alone, while nothing else is under way; the others wait, and share
    await store.append(codes[30], 0, b"already", at=1.0)  # so that one append of a shared commit finds its seq taken
    commits = store._group.commits

    outcomes = await asyncio.gather(
        *(store.append(code, 0, code.encode(), at=2.0) for code in codes), return_exceptions=True
    )

    assert isinstance(outcomes[30], SeqTaken)
    assert outcomes[:30] + outcomes[31:] == [None] * 59
    assert store._group.commits - commits < 60 / 4, "most appends shared a commit"
    assert [e.data for e in await store.load(codes[30])] == [b"already"]
    for code in codes[:30] + codes[31:]:
        assert [e.data for e in await store.load(code)] == [code.encode()]
        assert await store.touched(code) == 2.0
    await store.close()


async def test_an_append_to_a_deleted_room_fails_alone_in_its_commit(postgres_url: str, schema: str) -> None:
    store = await PostgresStore.connect(postgres_url, schema=schema)
    codes = [f"D{n:04d}" for n in range(8)]
    for code in codes:
        await store.create_room(code, at=1.0)
    await store.delete_room(codes[5])  # among the appends that share a commit (the first two go alone)
    commits = store._group.commits

    outcomes = await asyncio.gather(*(store.append(code, 0, b"x", at=2.0) for code in codes), return_exceptions=True)

    assert store._group.commits - commits == 3
    assert isinstance(outcomes[5], SeqTaken)
    assert outcomes[:5] + outcomes[6:] == [None] * 7
    assert [len(await store.load(code)) for code in codes] == [1, 1, 1, 1, 1, 0, 1, 1]
    await store.close()


async def test_a_store_closed_with_appends_under_way_commits_them_first(postgres_url: str, schema: str) -> None:
    store = await PostgresStore.connect(postgres_url, schema=schema)
    for n in range(20):
        await store.create_room(f"Q{n:04d}", at=1.0)
    appends = [asyncio.ensure_future(store.append(f"Q{n:04d}", 0, b"x", at=2.0)) for n in range(20)]
    await asyncio.sleep(0)  # every append queued, the first commits under way
    await store.close()
    assert [append.result() for append in appends] == [None] * 20
    again = await PostgresStore.connect(postgres_url, schema=schema)
    assert all([len(await again.load(f"Q{n:04d}")) == 1 for n in range(20)])
    await again.close()
