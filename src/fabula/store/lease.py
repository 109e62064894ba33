"""Leases: "exactly one process fires each timer deadline".

Every process that holds a room runs its scheduler, so when a phase deadline passes (or a bot,
or an absent player's stand-in, is due to move) each of them would act. Before acting, a process
calls ``try_acquire(key, ttl)`` with a key naming that one deadline — ``f"timer:{code}:{seq}"``,
``seq`` being the room's sequence number when the move is due — and only the process that gets
True acts. The lease is not the safety net, the store is: an auto-move is appended at ``seq``
like any action, so even two processes that both acted (a lease expired under a stalled holder,
Redis restarted and forgot it) cannot both land a move; one gets `SeqTaken`. The lease keeps that
from being the normal case — no wasted bot work, no conflict on every deadline.

A lease is held until it is released or ``ttl`` seconds pass, whichever is first, so a holder
that dies (SIGKILL included) blocks the others for at most ``ttl``. Only the holder can release
or renew it: each `Lease` object is one holder, with a random token of its own.

- `RedisLease` (use this with several processes): ``SET key token NX PX ttl`` to acquire; release
  and renew are Lua scripts that compare the token and delete (or extend) in one step, so a
  holder whose lease expired and was taken by another cannot release the other's. Keys are
  ``"{namespace}:lease:{key}"``. Get one with ``bus.lease()`` (sharing the bus's connections) or
  ``await RedisLease.connect(url)``.
- `LocalLease` (one process; the default): the same rules in a dict. Holders that share a
  `LeaseTable` compete; each process has its own table, so it only serialises one process.

>>> import asyncio
>>> async def demo() -> list[bool]:
...     table = LeaseTable()
...     first, second = LocalLease(table), LocalLease(table)
...     return [
...         await first.try_acquire("timer:ABCDE:7", ttl=10),
...         await second.try_acquire("timer:ABCDE:7", ttl=10),
...         await second.release("timer:ABCDE:7"),
...         await first.release("timer:ABCDE:7"),
...         await second.try_acquire("timer:ABCDE:7", ttl=10),
...     ]
>>> asyncio.run(demo())
[True, False, False, True, True]
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Protocol

from redis.asyncio import Redis

from .redis_client import redis_client


class Lease(Protocol):
    """One holder of time-limited, exclusive leases on string keys."""

    holder: str

    async def try_acquire(self, key: str, ttl: float) -> bool:
        """Take ``key`` for ``ttl`` seconds; False if someone (this holder too) holds it."""
        ...

    async def renew(self, key: str, ttl: float) -> bool:
        """Extend this holder's lease on ``key`` to ``ttl`` seconds from now; False if it is not
        (or no longer) ours."""
        ...

    async def release(self, key: str) -> bool:
        """Give ``key`` up; False (and nothing changes) if this holder does not hold it."""
        ...

    async def close(self) -> None: ...


def _milliseconds(ttl: float) -> int:
    if ttl <= 0:
        raise ValueError(f"a lease needs a positive ttl, not {ttl}")
    return max(1, round(ttl * 1000))


class LeaseTable:
    """The leases of one process: what competing `LocalLease` holders share."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.held: dict[str, tuple[str, float]] = {}  # key → (holder, expires at)

    def holder_of(self, key: str) -> str | None:
        entry = self.held.get(key)
        if entry is None:
            return None
        if entry[1] <= self.clock():
            del self.held[key]
            return None
        return entry[0]


class LocalLease:
    """A holder of leases in a `LeaseTable` (a fresh one of its own unless given)."""

    def __init__(self, table: LeaseTable | None = None) -> None:
        self.table = table or LeaseTable()
        self.holder = secrets.token_hex(16)

    async def try_acquire(self, key: str, ttl: float) -> bool:
        expires = self.table.clock() + _milliseconds(ttl) / 1000
        if self.table.holder_of(key) is not None:
            return False
        self.table.held[key] = (self.holder, expires)
        return True

    async def renew(self, key: str, ttl: float) -> bool:
        expires = self.table.clock() + _milliseconds(ttl) / 1000
        if self.table.holder_of(key) != self.holder:
            return False
        self.table.held[key] = (self.holder, expires)
        return True

    async def release(self, key: str) -> bool:
        if self.table.holder_of(key) != self.holder:
            return False
        del self.table.held[key]
        return True

    async def close(self) -> None:
        return


#: delete KEYS[1] if it still holds ARGV[1] (a holder gives up only what is its own)
CLEAR_IF_HOLDER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


class RedisLease:
    """A holder of leases kept in Redis, shared by every process of a namespace."""

    def __init__(self, redis: Redis, namespace: str = "fabula", *, owns_client: bool = False) -> None:
        """Use ``redis`` (closed with the lease only if ``owns_client``)."""
        self.redis = redis
        self.namespace = namespace
        self.holder = secrets.token_hex(16)
        self._owns_client = owns_client
        self._release = redis.register_script(CLEAR_IF_HOLDER)
        self._renew = redis.register_script(_RENEW)

    @classmethod
    async def connect(cls, url: str, namespace: str = "fabula", *, timeout: float = 5.0) -> RedisLease:
        """A holder with a Redis client of its own; raises `redis.exceptions.RedisError` if Redis
        cannot be reached."""
        redis = redis_client(url, timeout=timeout)
        try:
            await redis.ping()
        except BaseException:
            await redis.aclose()
            raise
        return cls(redis, namespace, owns_client=True)

    def key(self, key: str) -> str:
        return f"{self.namespace}:lease:{key}"

    async def try_acquire(self, key: str, ttl: float) -> bool:
        taken = await self.redis.set(self.key(key), self.holder, nx=True, px=_milliseconds(ttl))
        return bool(taken)

    async def renew(self, key: str, ttl: float) -> bool:
        return bool(await self._renew(keys=[self.key(key)], args=[self.holder, _milliseconds(ttl)]))

    async def release(self, key: str) -> bool:
        return bool(await self._release(keys=[self.key(key)], args=[self.holder]))

    async def close(self) -> None:
        if self._owns_client:
            await self.redis.aclose()
