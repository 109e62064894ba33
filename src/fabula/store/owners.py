"""Room owners: with several processes, one of them makes a room's entries, the others ask it to.

Any process may append to any room — the store's unique (room, seq) keeps the log whole — but two
processes appending to one room at once collide: one loses the seq, rebuilds the room and tries
again. A vote split between two processes does that on every round. So a room has an *owner*:
the process holding the key ``{namespace}:owner:{code}`` in Redis (``SET NX PX``, renewed while it
holds the room). A process whose client wants to change a room it does not own sends the request
to the owner's inbox channel (``{namespace}:inbox:{process}``) and waits for the answer — the
seq the entry was stored at, or the refusal — which it passes on to its client.

Nothing here is needed for correctness, only for speed: when the owner cannot be asked (no
process listens on its inbox, as after a ``kill -9``; Redis away; no answer in time) the process
makes the entry itself and the store decides as before. A dead owner's key is cleared by the
first process that finds nobody at its inbox, so the room has a new owner at once, not after the
key's ttl.

>>> Ask(sender="a1", request=7, code="ABCDE", member=2, message=b'{"type":"say","text":"hi"}').request
7
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

import msgspec
from redis.asyncio import Redis
from redis.exceptions import RedisError

from .lease import CLEAR_IF_HOLDER

log = logging.getLogger("fabula.store")

#: How long an owner's key lives unless renewed (a renewal comes every third of it).
OWNER_SECONDS = 6.0
#: How long a process trusts what it read of a room's owner before reading it again.
KNOWN_SECONDS = 1.0
#: How long a request waits for the owner's answer before the process makes it itself.
ASK_SECONDS = 5.0

_RENEW = """
local renewed = 0
for i, key in ipairs(KEYS) do
    if redis.call('GET', key) == ARGV[1] then
        redis.call('PEXPIRE', key, ARGV[2])
        renewed = renewed + 1
    end
end
return renewed
"""


class Ask(msgspec.Struct, frozen=True, tag="ask"):
    """A request for the owner of room ``code``: client ``message`` (its JSON) of ``member``."""

    sender: str
    request: int
    code: str
    member: int
    message: bytes


class Answer(msgspec.Struct, frozen=True, tag="answer"):
    """The owner's answer: the entry's ``seq`` (and the ``entry`` as stored, when the owner
    still has it at hand), or a refusal's ``error`` code and words."""

    request: int
    seq: int | None = None
    entry: bytes | None = None
    error: str | None = None
    text: str = ""


_Frame = Ask | Answer
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(_Frame)


class RoomOwners:
    """This process's side of room ownership, on a Redis client shared with the bus."""

    def __init__(self, redis: Redis, namespace: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.redis, self.namespace, self.clock = redis, namespace, clock
        #: this process, as the owner keys and inbox names say it
        self.me = secrets.token_hex(6)
        self.inbox = self._inbox(self.me)
        #: rooms this process owns (renewed while held)
        self.owned: set[str] = set()
        self._known: dict[str, tuple[str, float]] = {}  # code → (owner, read at)
        self._answers: dict[int, asyncio.Future[Answer]] = {}
        self._requests = itertools.count()
        self._clear_if = redis.register_script(CLEAR_IF_HOLDER)
        self._renew = redis.register_script(_RENEW)
        self._handle: Callable[[Ask], Awaitable[Answer]] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._working: set[asyncio.Task[None]] = set()
        self._subscribed = asyncio.Event()
        #: whether this process still holds a room (an owned room it let go of is given up)
        self.holds: Callable[[str], bool] = lambda code: True  # noqa: ARG005 - until the server says

    def _inbox(self, process: str) -> str:
        return f"{self.namespace}:inbox:{process}"

    def _key(self, code: str) -> str:
        return f"{self.namespace}:owner:{code}"

    # ------------------------------------------------------------------ life cycle

    async def start(self, handle: Callable[[Ask], Awaitable[Answer]], timeout: float = 5.0) -> None:
        """Answer the requests other processes send here with ``handle``; renew the keys of
        the rooms owned here."""
        self._handle = handle
        self._tasks = [
            asyncio.create_task(self._listen_forever(), name="room owners: inbox"),
            asyncio.create_task(self._renew_forever(), name="room owners: renewals"),
        ]
        await asyncio.wait_for(self._subscribed.wait(), timeout)

    async def close(self) -> None:
        for task in [*self._tasks, *self._working]:
            task.cancel()
        for task in [*self._tasks, *self._working]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        with contextlib.suppress(RedisError, OSError):
            for code in list(self.owned):
                await self._clear_if(keys=[self._key(code)], args=[self.me])
        self.owned.clear()

    # ------------------------------------------------------------------ who owns a room

    async def owner(self, code: str) -> str | None:
        """The process that owns room ``code`` — this one (`me`) if nobody did and it took the
        key now; None if Redis cannot say (make the entry here then)."""
        if code in self.owned:
            return self.me
        known = self._known.get(code)
        if known is not None and self.clock() - known[1] < KNOWN_SECONDS:
            return known[0]
        try:
            key = self._key(code)
            if await self.redis.set(key, self.me, nx=True, px=round(OWNER_SECONDS * 1000)):
                self.owned.add(code)
                return self.me
            found = await self.redis.get(key)
        except (RedisError, OSError) as error:
            log.warning("room owners: Redis unavailable", extra={"room": code, "error": str(error)})
            return None
        if found is None:  # it expired in between: take it next time
            return None
        owner = found.decode() if isinstance(found, bytes) else str(found)
        self._known[code] = (owner, self.clock())
        return owner

    async def let_go(self, code: str) -> None:
        """This process holds room ``code`` no more: its key is free for whoever asks next."""
        self._known.pop(code, None)
        if code in self.owned:
            self.owned.discard(code)
            with contextlib.suppress(RedisError, OSError):
                await self._clear_if(keys=[self._key(code)], args=[self.me])

    # ------------------------------------------------------------------ asking the owner

    async def ask(self, owner: str, code: str, member: int, message: bytes) -> Answer | None:
        """Send a request to ``owner`` and wait for its answer; None if it cannot be asked (then
        the caller makes the entry itself: the store still decides)."""
        request = next(self._requests)
        answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._answers[request] = answer
        frame = _encoder.encode(Ask(self.me, request, code, member, message))
        try:
            listening = await self.redis.publish(self._inbox(owner), frame)
            if not listening:  # its process is gone: the room needs a new owner, now
                self._known.pop(code, None)
                await self._clear_if(keys=[self._key(code)], args=[owner])
                return None
            return await asyncio.wait_for(answer, ASK_SECONDS)
        except (RedisError, OSError, TimeoutError) as error:
            log.warning("room owners: no answer from the owner", extra={"room": code, "error": str(error)})
            self._known.pop(code, None)
            return None
        finally:
            self._answers.pop(request, None)

    # ------------------------------------------------------------------ the inbox

    async def _listen_forever(self) -> None:
        delay = 0.05
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(self.inbox)
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    if message["type"] == "subscribe":
                        self._subscribed.set()
                        delay = 0.05
                    elif message["type"] == "message":
                        self._received(message["data"])
            except (RedisError, OSError) as error:
                log.warning("room owners: inbox disconnected, reconnecting", extra={"error": str(error)})
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)

    def _received(self, data: bytes) -> None:
        try:
            frame = _decoder.decode(data)
        except msgspec.DecodeError:
            log.warning("room owners: unreadable message", extra={"data": repr(data[:80])})
            return
        if isinstance(frame, Answer):
            waiting = self._answers.get(frame.request)
            if waiting is not None and not waiting.done():
                waiting.set_result(frame)
            return
        task = asyncio.create_task(self._answer(frame))
        self._working.add(task)
        task.add_done_callback(self._working.discard)

    async def _answer(self, ask: Ask) -> None:
        assert self._handle is not None
        answer = await self._handle(ask)
        with contextlib.suppress(RedisError, OSError):  # (the asker gives up and makes it itself)
            await self.redis.publish(self._inbox(ask.sender), _encoder.encode(answer))

    # ------------------------------------------------------------------ keeping the keys

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(OWNER_SECONDS / 3)
            for code in [code for code in self.owned if not self.holds(code)]:
                await self.let_go(code)
            owned = sorted(self.owned)
            if not owned:
                continue
            try:
                keys = [self._key(code) for code in owned]
                renewed = await self._renew(keys=keys, args=[self.me, round(OWNER_SECONDS * 1000)])
            except (RedisError, OSError) as error:
                log.warning("room owners: renewal failed", extra={"error": str(error)})
                continue
            if renewed != len(owned):  # some expired (Redis restarted, a long pause): ask again
                for code in owned:
                    with contextlib.suppress(RedisError, OSError):
                        if (await self.redis.get(self._key(code))) != self.me.encode():
                            self.owned.discard(code)
