"""The scale-out event store: rooms and their logs in PostgreSQL, shared by every Fabula process.

Several ``fabula serve`` processes may hold the same room. The primary key ``(code, seq)`` of
``entries`` is the arbiter between them: of two appends at the same sequence number exactly one
commits, the other raises `SeqTaken` and its process reloads the room (``load(code, since=…)``)
and tries again.

The driver is asyncpg: its binary protocol and Cython codec cost the event loop the least CPU
per statement of the async drivers, and it brings its own connection pool. Every method is one
statement — one round trip — on a pooled connection (no per-release reset query: the store keeps
no session state). Commits are ordinary durable commits (the server's ``synchronous_commit``,
``on`` unless the database administrator chose otherwise): an acknowledged entry survives a crash
of the Fabula process, of PostgreSQL and of its machine.

Schema. Everything lives in one PostgreSQL schema (``fabula`` unless told otherwise), so Fabula
can share a database with other applications, and tests can each use a schema of their own::

    rooms             (code text PRIMARY KEY, created float8, touched float8)
    entries           (code text REFERENCES rooms ON DELETE CASCADE, seq int, data bytea,
                       PRIMARY KEY (code, seq))
    kept_games        (number bigserial PRIMARY KEY, key text UNIQUE, kept float8, data bytea)
    decks, pictures   the rooms' own pictures (fabula.store.postgres_pictures)
    sounds            the storytellers' recorded clues (fabula.store.postgres_sounds)
    schema_migrations (version int PRIMARY KEY, name text, applied_at timestamptz)

Migrations. `MIGRATIONS` is an ordered tuple of SQL scripts, each applied once. `connect` runs
the pending ones in a single transaction that first takes a transaction-scoped advisory lock
derived from the schema name, so two processes starting at once do not race: the second waits
for the first to commit, then finds nothing left to do. A schema already migrated past what this
code knows (a newer Fabula wrote it) is refused. A migration is never edited once released;
a change is a new entry at the end of the tuple.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import asyncpg

from .base import KeptGame, SeqTaken, StoredEntry
from .postgres_pictures import PostgresPictures
from .postgres_sounds import PostgresSounds


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


#: Applied in order with ``search_path`` set to the store's schema; never edit a released one.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "rooms and their logs",
        """
        CREATE TABLE rooms (
            code text PRIMARY KEY,
            created double precision NOT NULL,
            touched double precision NOT NULL
        );
        CREATE INDEX rooms_by_created ON rooms (created, code);
        CREATE TABLE entries (
            code text NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
            seq integer NOT NULL CHECK (seq >= 0),
            data bytea NOT NULL,
            PRIMARY KEY (code, seq)
        );
        """,
    ),
    Migration(
        2,
        "finished games kept for the bots' memory",
        """
        CREATE TABLE kept_games (
            number bigserial PRIMARY KEY,
            key text NOT NULL UNIQUE,
            kept double precision NOT NULL,
            data bytea NOT NULL
        );
        """,
    ),
    Migration(
        3,
        "rooms' own pictures",
        # Not tied to rooms by a foreign key: as in SQLite (another file), a deck outlives a
        # deleted room until `delete_room` forgets it. EXTERNAL storage: the WebP bytes are
        # compressed already, so TOAST keeps them out of line without trying to compress them.
        """
        CREATE TABLE decks (
            deck text PRIMARY KEY,
            room text NOT NULL UNIQUE,
            created double precision NOT NULL,
            last_number integer NOT NULL DEFAULT 0
        );
        CREATE TABLE pictures (
            card text PRIMARY KEY,
            deck text NOT NULL REFERENCES decks (deck) ON DELETE CASCADE,
            number integer NOT NULL CHECK (number > 0),
            name text NOT NULL,
            caption text NOT NULL,
            phash text NOT NULL,
            added double precision NOT NULL,
            webp bytea NOT NULL,
            UNIQUE (deck, number)
        );
        ALTER TABLE pictures ALTER COLUMN webp SET STORAGE EXTERNAL;
        """,
    ),
    Migration(
        4,
        "deck links, and linked decks kept after their room",
        # A linked deck outlives its room detached from it (room NULL: the code may be given to a
        # new room, which must get a deck of its own), until kept_until.
        """
        ALTER TABLE decks ALTER COLUMN room DROP NOT NULL;
        ALTER TABLE decks ADD COLUMN link text UNIQUE;
        ALTER TABLE decks ADD COLUMN kept_until double precision;
        CREATE INDEX decks_by_kept_until ON decks (kept_until) WHERE kept_until IS NOT NULL;
        """,
    ),
    Migration(
        5,
        "albums shared by a link, kept after their room",
        """
        CREATE TABLE shared_albums (
            secret_hash text PRIMARY KEY,
            code text NOT NULL,
            kept double precision NOT NULL,
            data bytea NOT NULL
        );
        CREATE INDEX shared_albums_by_kept ON shared_albums (kept);
        """,
    ),
    Migration(
        6,
        "storytellers' recorded clues",
        # As the pictures: no foreign key to rooms (the sweep forgets a deleted room's sounds), and
        # EXTERNAL storage (MP3 is compressed already).
        """
        CREATE TABLE sounds (
            id text PRIMARY KEY,
            room text NOT NULL,
            member integer NOT NULL,
            seconds double precision NOT NULL,
            added double precision NOT NULL,
            mp3 bytea NOT NULL
        );
        CREATE INDEX sounds_by_room ON sounds (room, added);
        ALTER TABLE sounds ALTER COLUMN mp3 SET STORAGE EXTERNAL;
        """,
    ),
)
SCHEMA_VERSION = MIGRATIONS[-1].version

_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def migration_lock_key(schema: str) -> int:
    """The advisory-lock key (a signed 64-bit integer) that serialises migrations of ``schema``."""
    digest = hashlib.blake2b(f"fabula.migrate:{schema}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def _keep_session(connection: Any) -> None:
    """Pool reset on release: nothing to undo (no SET, LISTEN or session lock is ever used), so
    skip asyncpg's default reset query and its round trip. An open transaction is still rolled
    back by the pool itself."""


class PostgresStore:
    """`EventStore` on PostgreSQL. Open it with ``await PostgresStore.connect(url)``."""

    def __init__(self, pool: asyncpg.Pool, schema: str) -> None:
        """Wrap an open pool whose schema is migrated; `connect` does both."""
        self._pool = pool
        self.schema = schema
        s = f'"{schema}"'
        self._create_room = f"INSERT INTO {s}.rooms (code, created, touched) VALUES ($1, $2, $2) ON CONFLICT DO NOTHING"
        # One statement, so one round trip and one implicit transaction: both happen or neither.
        self._append = (
            f"WITH added AS (INSERT INTO {s}.entries (code, seq, data) VALUES ($1, $2, $3))"
            f" UPDATE {s}.rooms SET touched = $4 WHERE code = $1"
        )
        # Several entries of one room in one statement (`append_many`): seq $2, $2 + 1, …
        self._append_run = (
            f"WITH added AS (INSERT INTO {s}.entries (code, seq, data)"
            f" SELECT $1, $2 + n - 1, d FROM unnest($3::bytea[]) WITH ORDINALITY AS u(d, n))"
            f" UPDATE {s}.rooms SET touched = $4 WHERE code = $1"
        )
        # The appends of several rooms sharing a commit (`GroupCommit`), as arrays: every entry or
        # none (a seq taken anywhere fails it all, and then each room's appends go alone).
        self._append_rooms = (
            f"WITH added AS (INSERT INTO {s}.entries (code, seq, data)"
            f" SELECT * FROM unnest($1::text[], $2::int[], $3::bytea[]))"
            f" UPDATE {s}.rooms SET touched = t.at FROM unnest($4::text[], $5::float8[]) AS t(code, at)"
            f" WHERE rooms.code = t.code"
        )
        self._group = GroupCommit(self)
        self._load = f"SELECT seq, data FROM {s}.entries WHERE code = $1 AND seq >= $2 ORDER BY seq"
        self._room_codes = f"SELECT code FROM {s}.rooms ORDER BY created, code"
        self._touched = f"SELECT touched FROM {s}.rooms WHERE code = $1"
        self._delete_room = f"DELETE FROM {s}.rooms WHERE code = $1"
        self._keep_game = f"INSERT INTO {s}.kept_games (key, kept, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"
        self._kept_games = f"SELECT number, key, data FROM {s}.kept_games WHERE number > $1 ORDER BY number"
        self._share_album = f"INSERT INTO {s}.shared_albums (secret_hash, code, kept, data) VALUES ($1, $2, $3, $4)"
        self._shared_album = f"SELECT code, data FROM {s}.shared_albums WHERE secret_hash = $1"
        self._forget_albums = f"DELETE FROM {s}.shared_albums WHERE kept < $1"

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        schema: str = "fabula",
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 10.0,
        **pool_options: Any,
    ) -> PostgresStore:
        """Open a connection pool to ``url`` (``postgresql://user@host:port/database``), bring
        ``schema`` up to `SCHEMA_VERSION` (creating it if needed) and return the store.

        ``pool_options`` go to `asyncpg.create_pool` (e.g. ``statement_cache_size=0`` behind
        PgBouncer in transaction mode). Raises `OSError` or an `asyncpg.PostgresError` if the
        database cannot be reached, `RuntimeError` if a newer Fabula migrated it."""
        if not _SCHEMA_NAME.fullmatch(schema):
            raise ValueError(f"schema name {schema!r}: lower-case letters, digits and _, not starting with a digit")
        pool = await asyncpg.create_pool(
            url,
            min_size=min_size,
            max_size=max_size,
            timeout=timeout,
            reset=_keep_session,
            server_settings={"application_name": "fabula"},
            **pool_options,
        )
        try:
            await migrate(pool, schema)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, schema)

    async def create_room(self, code: str, at: float) -> bool:
        status = await self._pool.execute(self._create_room, code, at)
        return status == "INSERT 0 1"

    async def append(self, code: str, seq: int, data: bytes, at: float) -> None:
        await self._group.append(code, seq, (data,), at)

    async def append_many(self, code: str, seq: int, data: Sequence[bytes], at: float) -> None:
        await self._group.append(code, seq, data, at)

    async def append_alone(self, code: str, seq: int, data: Sequence[bytes], at: float) -> None:
        """`append_many` in a transaction of its own (what a group commit falls back to)."""
        try:
            if len(data) == 1:
                await self._pool.execute(self._append, code, seq, data[0], at)
            else:
                await self._pool.execute(self._append_run, code, seq, list(data), at)
        except asyncpg.UniqueViolationError as error:
            raise SeqTaken(f"room {code} already has entry {seq}") from error
        except asyncpg.ForeignKeyViolationError as error:
            # As in SQLite: the room is gone (deleted by another process), so this writer is behind.
            raise SeqTaken(f"room {code} does not exist") from error

    async def append_rooms(self, appends: Sequence[_Pending]) -> None:
        """Several rooms' appends in one transaction: every entry or none (`GroupCommit`)."""
        codes, seqs, data = [], [], []
        for item in appends:
            for n, entry in enumerate(item.data):
                codes.append(item.code)
                seqs.append(item.seq + n)
                data.append(entry)
        await self._pool.execute(
            self._append_rooms, codes, seqs, data, [item.code for item in appends], [item.at for item in appends]
        )

    async def load(self, code: str, since: int = 0) -> list[StoredEntry]:
        rows = await self._pool.fetch(self._load, code, since)
        return [StoredEntry(row[0], row[1]) for row in rows]

    async def room_codes(self) -> list[str]:
        return [row[0] for row in await self._pool.fetch(self._room_codes)]

    async def touched(self, code: str) -> float | None:
        value = await self._pool.fetchval(self._touched, code)
        return None if value is None else float(value)

    async def delete_room(self, code: str) -> None:
        await self._pool.execute(self._delete_room, code)

    async def keep_game(self, key: str, data: bytes, at: float) -> bool:
        status = await self._pool.execute(self._keep_game, key, at, data)
        return bool(status == "INSERT 0 1")

    async def kept_games(self, after: int = 0) -> list[KeptGame]:
        rows = await self._pool.fetch(self._kept_games, after)
        return [KeptGame(row[0], row[1], row[2]) for row in rows]

    async def share_album(self, secret_hash: str, code: str, data: bytes, at: float) -> None:
        await self._pool.execute(self._share_album, secret_hash, code, at, data)

    async def shared_album(self, secret_hash: str) -> tuple[str, bytes] | None:
        row = await self._pool.fetchrow(self._shared_album, secret_hash)
        return None if row is None else (row[0], row[1])

    async def forget_shared_albums(self, before: float) -> int:
        status = await self._pool.execute(self._forget_albums, before)
        return int(status.rsplit(" ", 1)[-1])

    def pictures(self) -> PostgresPictures:
        """The rooms' own pictures, in this store's schema and through its pool; closing the store
        closes them too."""
        return PostgresPictures(self._pool, self.schema)

    def sounds(self) -> PostgresSounds:
        """The storytellers' recorded clues, in this store's schema and through its pool."""
        return PostgresSounds(self._pool, self.schema)

    async def close(self) -> None:
        await self._group.close()
        await self._pool.close()


async def migrate(pool: asyncpg.Pool, schema: str) -> list[int]:
    """Apply the pending `MIGRATIONS` to ``schema`` (created if missing); the versions applied.

    One transaction under a transaction-scoped advisory lock: concurrent callers run one after
    the other, and a failed migration leaves nothing behind."""
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", migration_lock_key(schema))
        exists = await connection.fetchval("SELECT 1 FROM pg_namespace WHERE nspname = $1", schema)
        if not exists:
            await connection.execute(f'CREATE SCHEMA "{schema}"')
        await connection.execute(f'SET LOCAL search_path TO "{schema}"')
        await connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        applied = {row[0] for row in await connection.fetch("SELECT version FROM schema_migrations")}
        newest = max(applied, default=0)
        if newest > SCHEMA_VERSION:
            raise RuntimeError(
                f"schema {schema} was migrated by a newer Fabula (version {newest}; this one knows {SCHEMA_VERSION})"
            )
        done = []
        for migration in MIGRATIONS:
            if migration.version in applied:
                continue
            await connection.execute(migration.sql)
            await connection.execute(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", migration.version, migration.name
            )
            done.append(migration.version)
        return done


class _Pending(NamedTuple):
    code: str
    seq: int
    data: Sequence[bytes]
    at: float
    done: asyncio.Future[None]


class GroupCommit:
    """The appends of many rooms that arrive while a commit is under way share the next one.

    An append (one room's entries from ``seq`` on) waits in a queue; whenever fewer than
    ``in_flight`` commits are under way, one takes everything queued (up to ``most`` appends)
    as one statement — one round trip, one transaction, one durable commit. So at a low rate
    each append is committed at once, alone, and under load the appends that arrive during one
    commit go together in the next: commits per second stay about what the database does in
    parallel while entries per commit grow with the load. Every append still returns only once
    its own entries are committed. A shared commit stores every entry or none: if one seq is
    taken (another process got there first) or a room is gone, its appends are made again each
    in a transaction of its own, so that only the ones concerned fail (`SeqTaken`).
    """

    def __init__(self, store: PostgresStore, *, in_flight: int = 2, most: int = 512) -> None:
        self._store, self._in_flight, self._most = store, in_flight, most
        self._queue: list[_Pending] = []
        self._commits: set[asyncio.Task[None]] = set()
        #: how many commits were made, and of how many appends in all (for the benchmarks)
        self.commits = self.appends = 0

    async def append(self, code: str, seq: int, data: Sequence[bytes], at: float) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(_Pending(code, seq, data, at, done))
        self._start()
        # shielded: a request that is cancelled does not cancel its entries' commit, which other
        # appends share (they may be stored, as an append cancelled mid-statement may be)
        await asyncio.shield(done)

    def _start(self) -> None:
        while self._queue and len(self._commits) < self._in_flight:
            batch, self._queue = self._queue[: self._most], self._queue[self._most :]
            task = asyncio.create_task(self._commit(batch), name=f"group commit of {len(batch)}")
            self._commits.add(task)
            task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._commits.discard(task)
        self._start()

    async def _commit(self, batch: list[_Pending]) -> None:
        store = self._store
        self.commits += 1
        self.appends += len(batch)
        if len(batch) == 1:
            await self._alone(batch[0])
            return
        try:
            await store.append_rooms(batch)
        except (asyncpg.UniqueViolationError, asyncpg.ForeignKeyViolationError):
            # a seq taken, a room deleted meanwhile: find whose, each append on its own
            await asyncio.gather(*(self._alone(item) for item in batch))
            return
        except BaseException as error:
            for item in batch:
                if not item.done.done():
                    item.done.set_exception(error)
            if not isinstance(error, Exception):
                raise
            return
        for item in batch:
            if not item.done.done():
                item.done.set_result(None)

    async def _alone(self, item: _Pending) -> None:
        try:
            await self._store.append_alone(item.code, item.seq, item.data, item.at)
        except BaseException as error:
            if not item.done.done():
                item.done.set_exception(error)
            if not isinstance(error, Exception):
                raise
        else:
            if not item.done.done():
                item.done.set_result(None)

    async def close(self) -> None:
        """Wait for the commits under way (the queue empties itself into them)."""
        while self._commits:
            await asyncio.gather(*self._commits, return_exceptions=True)
