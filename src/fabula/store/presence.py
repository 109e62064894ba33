"""Presence across processes: who is connected to a room, whichever process they are connected to.

With one process, presence is simply that process's open connections. With several, a player
connected to process A must not look gone to process B — B would show their rabbit grey, play
for them after the grace period, or pass their hosting on. So each process announces its own:

- One sorted set per room, ``"{namespace}:here:{CODE}"``. Each element is one member connected
  to one process, ``"MEMBER:PROCESS:SINCE"``, scored with the Unix time at which it expires.
  ``MEMBER`` ``-1`` stands for the spectators of that process; ``SINCE`` is the room's sequence
  number when that member's connection said hello (a member who left the game is back at the
  table only through a hello after their leaving, and every process must agree on when that was).
- A process re-announces everything it holds every ``ttl / 3`` seconds (extending the scores),
  and at once when a member arrives or goes; it removes its own elements when they stop being
  true. A process that dies stops re-announcing, and its elements expire ``ttl`` seconds later:
  from then on its players count as gone (unless they have reconnected elsewhere).
- While anyone is connected to a room, ``"{namespace}:visited:{CODE}"`` exists: each
  announcement with someone in it sets it to expire ``linger`` seconds later (the server's
  ``room_idle_seconds``), so the idle sweep of any process can tell a room nobody has been
  connected to for that long.
- After an announcement that changed a room, the process publishes the room's code on a notice
  bus — a `RedisBus` on namespace ``"{namespace}:presence"`` — and the processes that hold the
  room read its set again. After a Redis reconnection they get `RESYNC` and re-read every room.

Expiry compares the processes' wall clocks, which must agree to within a second or so — as they
must anyway, since phase deadlines are computed from the times written into the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.exceptions import RedisError

from .bus import Subscription
from .redis_bus import RedisBus

#: The member number that stands for a process's spectators of a room.
SPECTATORS = -1
#: Rooms written or read in one Redis call. Each room cost redis-py ~25 µs of Python per
#: command in a pipeline, and building one pipeline's commands or reading its replies holds the
#: event loop: re-announcing and reading back 834 rooms every ``ttl / 3`` seconds took ~107 ms
#: of CPU with the loop held up to 40–60 ms at a stretch (benchmarks/presence.py) — stalls that
#: every move made meanwhile waited out (p95 90 ms, p99 145 ms at 5,004 players, where the median
#: was 3 ms). So a room's commands run in a Lua script (`_ANNOUNCE`, `_READ`), this many rooms a
#: call, the loop free between calls.
ROOMS_A_CALL = 128

#: Per room, KEYS: its set and its visited key; ARGV after the four shared values: the number of
#: stale elements, those elements, the number of elements now, those elements.
_ANNOUNCE = """
local expires, keep, linger, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local a = 5
for i = 1, #KEYS, 2 do
    local stale = tonumber(ARGV[a])
    if stale > 0 then
        redis.call('ZREM', KEYS[i], unpack(ARGV, a + 1, a + stale))
    end
    a = a + stale + 1
    local elements = tonumber(ARGV[a])
    for j = a + 1, a + elements do
        redis.call('ZADD', KEYS[i], expires, ARGV[j])
    end
    a = a + elements + 1
    if elements > 0 then
        redis.call('EXPIRE', KEYS[i], keep)
        redis.call('SET', KEYS[i + 1], 1, 'EX', linger)
    end
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
end
return 0
"""

#: Each room's set's elements that have not expired at ARGV[1].
_READ = """
local found = {}
for i, key in ipairs(KEYS) do
    found[i] = redis.call('ZRANGEBYSCORE', key, ARGV[1], '+inf')
end
return found
"""


@dataclass(frozen=True, slots=True)
class Seen:
    """``member`` (`SPECTATORS`: someone watching) is connected; their hello came at room seq ``since``."""

    member: int
    since: int


class RedisPresence:
    """This process's announcements, and reading the other processes'. Open it with
    ``await RedisPresence.connect(url, namespace)``."""

    def __init__(self, redis: Redis, notices: RedisBus, namespace: str, *, ttl: float, linger: float) -> None:
        self.redis, self.notices, self.namespace, self.ttl, self.linger = redis, notices, namespace, ttl, linger
        #: this process, in the elements it writes
        self.process = secrets.token_hex(6)
        #: room → the elements this process has in Redis now
        self._announced: dict[str, set[str]] = {}
        self._version = 0
        self.rooms_a_call = ROOMS_A_CALL
        self._announce = redis.register_script(_ANNOUNCE)
        self._read = redis.register_script(_READ)

    @classmethod
    async def connect(
        cls, url: str, namespace: str = "fabula", *, ttl: float = 15.0, linger: float = 6 * 3600
    ) -> RedisPresence:
        """Connect to Redis at ``url`` (its own connections, apart from the room bus's); raises
        `redis.exceptions.RedisError` (or `TimeoutError`) if it cannot be reached."""
        notices = await RedisBus.connect(url, f"{namespace}:presence", every_room=True)
        return cls(notices.redis, notices, namespace, ttl=ttl, linger=linger)

    def key(self, code: str) -> str:
        return f"{self.namespace}:here:{code}"

    def visited_key(self, code: str) -> str:
        return f"{self.namespace}:visited:{code}"

    @property
    def refresh_seconds(self) -> float:
        """How often everything held is announced again: three chances before it expires."""
        return self.ttl / 3

    async def announce(self, here: Mapping[str, Iterable[Seen]]) -> list[str]:
        """Make this process's presence in each room of ``here`` exactly what is given (empty:
        nobody here any more), extending it by ``ttl``; tell the other processes of the rooms
        where it changed, and return those. Raises `RedisError` (nothing is then taken as done:
        the next call writes it again). Written `ROOMS_A_CALL` rooms at a time."""
        now = time.time()
        shared = [now + self.ttl, math.ceil(self.ttl * 2), math.ceil(self.linger + self.ttl), now]
        written: dict[str, set[str]] = {}
        rooms = list(here.items())
        for start in range(0, len(rooms), self.rooms_a_call):
            keys: list[str] = []
            args: list[str | int | float] = list(shared)
            for code, seen in rooms[start : start + self.rooms_a_call]:
                elements = {f"{s.member}:{self.process}:{s.since}" for s in seen}
                stale = self._announced.get(code, set()) - elements
                keys += (self.key(code), self.visited_key(code))
                args += (len(stale), *stale, len(elements), *elements)
                written[code] = elements
            await self._announce(keys=keys, args=args)
        changed = []
        for code, elements in written.items():
            if elements != self._announced.get(code, set()):
                changed.append(code)
            if elements:
                self._announced[code] = elements
            else:
                self._announced.pop(code, None)
        for code in changed:
            self._version += 1
            self.notices.publish(code, self._version)
        return changed

    async def others(self, codes: Sequence[str]) -> dict[str, list[Seen]]:
        """Who the other processes announce in each of ``codes`` (expired announcements left
        out). Read `ROOMS_A_CALL` rooms at a time."""
        now = time.time()
        found: dict[str, list[Seen]] = {}
        for start in range(0, len(codes), self.rooms_a_call):
            chunk = codes[start : start + self.rooms_a_call]
            answers = await self._read(keys=[self.key(code) for code in chunk], args=[now])
            for code, elements in zip(chunk, answers, strict=True):
                seen = []
                for element in elements:
                    text = element.decode() if isinstance(element, bytes) else str(element)
                    member, process, since = text.split(":")
                    if process != self.process:
                        seen.append(Seen(int(member), int(since)))
                found[code] = seen
        return found

    async def visited(self, code: str) -> bool:
        """Whether anyone was connected to room ``code`` (through any process) in the last
        ``linger`` seconds."""
        return bool(await self.redis.exists(self.visited_key(code)))

    def changes(self) -> Subscription:
        """Notices naming rooms whose presence changed (their ``seq`` means nothing), and `RESYNC`."""
        return self.notices.subscribe()

    async def close(self) -> None:
        """Withdraw everything this process announced (so the others need not wait for it to
        expire), then disconnect."""
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            await asyncio.wait_for(self.announce(dict.fromkeys(self._announced, ())), 2.0)
        await self.notices.close()  # sends the notices of that withdrawal first
