"""The real PostgreSQL and Redis that the scale-out tests use (tests/store, tests/server).

They are named by ``FABULA_TEST_DATABASE_URL`` and ``FABULA_TEST_REDIS_URL``. Where one cannot be
reached its tests are skipped with the reason — unless ``CI=true``, where an unreachable service
fails them: CI must not pass by skipping.

Isolation: each user takes a name of its own from `unique_name` (a PostgreSQL schema, a Redis
namespace) and drops it afterwards (`drop_schema`, `drop_namespace`), so runs in parallel
(``pytest -n auto``) or one after another never see each other's rooms.

A test that must stop and start a service (the fault tests) runs one of its own instead:
`PrivateRedis` (a ``redis-server`` on a free port) and `PrivatePostgres` (a cluster ``initdb``
makes in a temporary folder, run as the ``postgres`` user when the tests run as root, since
PostgreSQL refuses to run as root). Either is skipped, or under CI failed, where its programs
are not installed.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, what: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise RuntimeError(f"{what} did not start on port {port}")


class PrivateRedis:
    """A redis-server of this test's own, which it may kill and start again (on the same port)."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            unavailable("redis-server is not installed (needed to restart a Redis under test)")
        self.binary, self.directory, self.port = binary, directory, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--dir", str(self.directory)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, "redis-server")

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def postgres_programs() -> Path | None:
    """The folder of PostgreSQL's server programs (``initdb``, ``pg_ctl``), if installed."""
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False).stdout.strip()
        if found and (Path(found) / "initdb").exists():
            return Path(found)
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    return candidates[0].parent if candidates else None


class PrivatePostgres:
    """A PostgreSQL cluster of this test's own, which it may stop and start again (same port and
    data: what was committed before a stop is there after it). Trust authentication, user
    ``postgres``, database ``postgres``; ``fsync`` off (a stop here is not a power cut)."""

    def __init__(self) -> None:
        programs = postgres_programs()
        if programs is None:
            unavailable("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
        self.programs, self.port = programs, free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="fabula-pg-"))
        self.data = self.directory / "data"
        self._as_postgres: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            self._as_postgres = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.directory, "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *arguments: str) -> None:
        command = [*self._as_postgres, str(self.programs / program), *arguments]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = self.directory / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr or done.stdout}\n{tail}")

    def start(self) -> None:
        settings = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.directory / "log"), "-w", "-o", settings, "start")
        wait_for_port(self.port, "PostgreSQL")

    def stop(self, mode: str = "immediate") -> None:
        """Stop it: ``immediate`` is a crash as far as the clients can tell (their sessions cut,
        no goodbye); what was committed stays."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    """A `PrivatePostgres`, started, removed afterwards."""
    server = PrivatePostgres()
    try:
        server.start()
        yield server
    finally:
        server.remove()
