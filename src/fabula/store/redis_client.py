"""The store's Redis client: one connection pool a process shares (the bus, the leases), whose
commands wait for a free connection rather than fail, and are retried when a connection breaks."""

from __future__ import annotations

from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import EqualJitterBackoff
from redis.driver_info import DriverInfo

#: Connections a process's Redis client opens at most. A burst of commands waits for a free one
#: rather than failing: redis-py's plain pool refused past 100 connections ("Too many
#: connections"), and 834 rooms starting their games at once, each asking who owns it, got 735
#: refusals in one burst of the 5,004-player benchmark (each logged, together a 0.3–0.6 s stall).
REDIS_CONNECTIONS = 64


def redis_client(url: str, *, timeout: float, **options: Any) -> Redis:
    """A Redis client for ``url`` whose commands wait up to ``timeout`` seconds for a free
    connection of its pool (`REDIS_CONNECTIONS`), time out after as long, and are retried twice
    with a short backoff when a connection breaks; ``options`` go to each connection."""
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=timeout,
        socket_connect_timeout=timeout,
        socket_timeout=timeout,
        retry=Retry(EqualJitterBackoff(cap=0.25, base=0.01), retries=2),
        # read once: else every new connection looks redis-py's version up in the installed
        # packages' metadata (0.5 ms), which doubled the cost of a burst opening the pool's 64
        driver_info=DriverInfo(),
        **options,
    )
    return Redis.from_pool(pool)
