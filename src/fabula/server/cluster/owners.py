"""Room owners: with several processes, one of them makes a room's entries, the others ask it to.

Any process may append to any room — the store's unique (room, seq) keeps the log whole — but two
processes appending to one room at once collide: one loses the seq, rebuilds the room and tries
again. A vote split between two processes does that on every round. So a room has an *owner*:
the process holding the key ``{namespace}:owner:{code}`` in Redis (``SET NX PX``, renewed while it
holds the room). A process whose client wants to change a room it does not own sends the request
to the owner and waits for the answer — the seq the entry was stored at (with the entry), or the
refusal — which it passes on to its client.

Requests go over *peer links*: direct TCP connections between the processes, not through Redis
(a Redis command or message costs the Python client ten times what a frame on an open socket
does). Each process listens on ``host`` (``--peer-host``) at a port of its own, and the value of
the owner keys it holds is its address, ``TOKEN@HOST:PORT``, so an asker knows where to connect.
A link opens with the deployment's secret (made by the first process, kept in Redis at
``{namespace}:peers:secret``): only processes that can read the deployment's Redis can ask. A
frame is a `fabula.server.cluster.links` message (`Hello`, `Ask`, `Answer`, …).

Nothing here is needed for correctness, only for speed: when the owner cannot be asked (nobody
listens at its address, as after a ``kill -9``; its link breaks; no answer in time; Redis away)
the process makes the entry itself and the store decides as before. A dead owner's key is
cleared by the first process that finds nobody at its address, so the room has a new owner at
once, not after the key's ttl. What an asker read of a room's owner it keeps until that owner
cannot be reached or answers that the room moved (`Answer.moved`): an owner that let a room go
takes it back if nobody else did, or names the process that did.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError

from fabula.store.lease import CLEAR_IF_HOLDER

from .links import (
    Accepted,
    Answer,
    Ask,
    Broadcast,
    Frame,
    Hello,
    Host,
    Inbound,
    Line,
    Open,
    Outbound,
    Peer,
    PeerLink,
    Shut,
)

log = logging.getLogger("fabula.server")

#: How long an owner's key lives unless renewed (a renewal comes every third of it).
OWNER_SECONDS = 6.0
#: How long a process trusts what it read of a room's owner without hearing otherwise.
KNOWN_SECONDS = 60.0
#: How long a request waits for the owner's answer before the process makes it itself.
ASK_SECONDS = 5.0
#: How long opening a link to another process may take.
CONNECT_SECONDS = 1.0

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


class RoomOwners:
    """This process's side of room ownership: the owner keys in Redis (on a client shared with
    the bus) and the peer links to and from the other processes."""

    def __init__(
        self, redis: Redis, namespace: str, *, host: str = "127.0.0.1", clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.redis, self.namespace, self.host, self.clock = redis, namespace, host, clock
        #: this process, as the owner keys say it: ``TOKEN@HOST:PORT`` once `start` listens
        self.me = secrets.token_hex(6)
        #: rooms this process owns (renewed while held)
        self.owned: set[str] = set()
        self._known: dict[str, tuple[str, float]] = {}  # code → (owner, read at)
        self._secret = ""
        self._server: asyncio.Server | None = None
        self._links: dict[str, PeerLink] = {}  # opened to each owner asked, by its address
        self._served_links: set[PeerLink] = set()  # opened to this one by the others
        self._connecting: dict[str, asyncio.Future[PeerLink | None]] = {}
        self._answers: dict[int, tuple[PeerLink, asyncio.Future[Answer | None]]] = {}
        self._requests = itertools.count()
        self._clear_if = redis.register_script(CLEAR_IF_HOLDER)
        self._renew = redis.register_script(_RENEW)
        self._handle: Callable[[Ask], Awaitable[Answer]] | None = None
        self._host: Host | None = None
        #: connections this process relays to their room's owner, by session: the link, this end
        self._relaying: dict[int, tuple[PeerLink, Peer]] = {}
        #: relayed connections waiting for the owner to take them (`Accepted`) or not (`Shut`)
        self._opening: dict[int, asyncio.Future[bool]] = {}
        #: connections other processes relay to this one, by their link and session
        self._hosted: dict[tuple[PeerLink, int], Peer] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._working: set[asyncio.Task[None]] = set()
        #: whether this process still holds a room (an owned room it let go of is given up)
        self.holds: Callable[[str], bool] = lambda code: True  # noqa: ARG005 - until the server says
        #: set once this process is stopping (`retire`): it owns no room from then on
        self.retiring = False

    def _key(self, code: str) -> str:
        return f"{self.namespace}:owner:{code}"

    # ------------------------------------------------------------------ life cycle

    async def start(
        self, handle: Callable[[Ask], Awaitable[Answer]], host: Host | None = None, timeout: float = 5.0
    ) -> None:
        """Answer the requests other processes send here with ``handle``, and take the client
        connections they relay with ``host`` (listening for their links); renew the keys of the
        rooms owned here."""
        self._handle, self._host = handle, host
        secret_key = f"{self.namespace}:peers:secret"
        await asyncio.wait_for(self.redis.set(secret_key, secrets.token_hex(16), nx=True), timeout)
        self._secret = _text(await asyncio.wait_for(self.redis.get(secret_key), timeout))
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._serve_link, host=self.host, port=0)
        port = self._server.sockets[0].getsockname()[1]
        self.me = f"{self.me.partition('@')[0]}@{self.host}:{port}"
        self._tasks = [asyncio.create_task(self._renew_forever(), name="room owners: renewals")]

    def _serve_link(self) -> PeerLink:
        link = PeerLink(self._served, self._gone)
        self._served_links.add(link)
        return link

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for link in [*self._links.values(), *self._served_links]:
            link.close()
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

    async def retire(self) -> None:
        """This process is stopping: the other processes take its rooms now, not once it is gone.
        It gives up every room it owns and takes none again (`owner` never names it), and ends
        the client connections relayed to it (their processes tell their clients to connect again,
        and serve them themselves); it may still ask the others until it closes."""
        self.retiring = True
        for code in list(self.owned):
            await self.let_go(code)
        for (link, session), peer in list(self._hosted.items()):
            del self._hosted[(link, session)]
            Line(link, session).shut()
            peer.ended(None)

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
            if self.retiring:
                found = await self.redis.get(key)
            elif await self.redis.set(key, self.me, nx=True, px=round(OWNER_SECONDS * 1000)):
                self.owned.add(code)
                self._known.pop(code, None)
                return self.me
            else:
                found = await self.redis.get(key)
        except (RedisError, OSError) as error:
            log.warning("room owners: Redis unavailable", extra={"room": code, "error": str(error)})
            return None
        if found is None:  # it expired in between: take it next time
            return None
        owner = _text(found)
        self._known[code] = (owner, self.clock())
        return owner

    async def let_go(self, code: str) -> None:
        """This process holds room ``code`` no more: its key is free for whoever asks next."""
        self._known.pop(code, None)
        if code in self.owned:
            self.owned.discard(code)
            with contextlib.suppress(RedisError, OSError):
                await self._clear_if(keys=[self._key(code)], args=[self.me])

    async def _forget(self, code: str, owner: str) -> None:
        """``owner`` cannot be reached: its key for room ``code`` is cleared (if it still holds
        it), so that the room has a new owner with its next change."""
        if self._known.get(code, ("",))[0] == owner:
            del self._known[code]
        with contextlib.suppress(RedisError, OSError):
            await self._clear_if(keys=[self._key(code)], args=[owner])

    # ------------------------------------------------------------------ asking the owner

    async def ask(self, owner: str, code: str, member: int, message: bytes, since: int = 0) -> Answer | None:
        """Send a request to ``owner`` and wait for its answer; None if it cannot be asked (then
        the caller makes the entry itself: the store still decides). A process that no longer
        owns the room names the one that does, which is asked in turn."""
        for _ in range(3):  # (an owner named by one that let the room go let it go too: rare)
            answer = await self._ask_once(owner, code, member, message, since)
            if answer is None or answer.moved is None:
                return answer
            if not answer.moved or answer.moved == self.me:
                return None  # nobody else to ask: made here (the room's owner now, or nobody)
            owner = answer.moved
            self._known[code] = (owner, self.clock())
        return None

    async def _ask_once(self, owner: str, code: str, member: int, message: bytes, since: int) -> Answer | None:
        link = await self._link(owner)
        if link is None:  # nobody listens there: its process is gone, the room needs a new owner now
            await self._forget(code, owner)
            return None
        request = next(self._requests)
        answer: asyncio.Future[Answer | None] = asyncio.get_running_loop().create_future()
        self._answers[request] = (link, answer)
        try:
            link.send(Ask(request, code, member, message, since))
            found = await asyncio.wait_for(answer, ASK_SECONDS)
        except TimeoutError:
            log.warning("room owners: no answer from the owner", extra={"room": code, "owner": owner})
            self._known.pop(code, None)
            return None
        finally:
            self._answers.pop(request, None)
        if found is None:  # the link broke before the answer came
            await self._forget(code, owner)
        return found

    async def _link(self, owner: str) -> PeerLink | None:
        """The open link to ``owner`` (opened now if there is none); None if it cannot be opened."""
        link = self._links.get(owner)
        if link is not None and link.open:
            return link
        connecting = self._connecting.get(owner)
        if connecting is None:
            connecting = asyncio.ensure_future(self._connect(owner))
            self._connecting[owner] = connecting
            connecting.add_done_callback(lambda _: self._connecting.pop(owner, None))
        return await asyncio.shield(connecting)

    async def _connect(self, owner: str) -> PeerLink | None:
        host, colon, port = owner.partition("@")[2].rpartition(":")
        if not colon or not port.isdigit():
            log.warning("room owners: an owner without an address", extra={"owner": owner})
            return None
        loop = asyncio.get_running_loop()
        try:
            _, link = await asyncio.wait_for(
                loop.create_connection(lambda: PeerLink(self._heard, self._gone), host.strip("[]"), int(port)),
                CONNECT_SECONDS,
            )
        except (OSError, TimeoutError) as error:
            log.info("room owners: cannot reach a process", extra={"owner": owner, "error": str(error)})
            return None
        link.send(Hello(self._secret))
        self._links[owner] = link
        return link

    def _heard(self, link: PeerLink, frame: Frame) -> None:
        """A frame on a link this process opened: an answer, or an owner's traffic for a
        connection relayed to it."""
        if isinstance(frame, Outbound):
            relaying = self._relaying.get(frame.session)
            if relaying is not None and relaying[0] is link:
                relaying[1].received(frame.data, frame.state, paced=frame.paced)
        elif isinstance(frame, Broadcast):
            for session in frame.sessions:
                relaying = self._relaying.get(session)
                if relaying is not None and relaying[0] is link:
                    relaying[1].received(frame.data, frame.state, paced=True)
        elif isinstance(frame, Answer):
            waiting = self._answers.get(frame.request)
            if waiting is not None and waiting[0] is link and not waiting[1].done():
                waiting[1].set_result(frame)
        elif isinstance(frame, Accepted | Shut):
            opening = self._opening.pop(frame.session, None)
            if opening is not None:
                if not opening.done():
                    opening.set_result(isinstance(frame, Accepted))
                return
            relaying = self._relaying.get(frame.session)
            if isinstance(frame, Shut) and relaying is not None and relaying[0] is link:
                del self._relaying[frame.session]
                relaying[1].ended(frame.code)

    def _gone(self, link: PeerLink) -> None:
        """A link closed: whatever waits for an answer on it gets none, and the connections
        relayed over it end."""
        self._served_links.discard(link)
        for owner, known in list(self._links.items()):
            if known is link:
                del self._links[owner]
        for waiting_link, answer in list(self._answers.values()):
            if waiting_link is link and not answer.done():
                answer.set_result(None)
        for session, (relayed_over, end) in list(self._relaying.items()):
            if relayed_over is link:
                del self._relaying[session]
                opening = self._opening.pop(session, None)
                if opening is not None and not opening.done():
                    opening.set_result(False)
                else:
                    end.ended(None)
        for key in [key for key in self._hosted if key[0] is link]:
            self._hosted.pop(key).ended(None)

    # ------------------------------------------------------------------ relaying a connection

    async def relay(self, owner: str, code: str, address: str, end: Peer) -> Line | None:
        """Relay a client connection to room ``code`` to the room's ``owner``: the line to send
        its client's messages on (``end`` hears the owner's), or None if the owner cannot be
        reached or does not own the room any more (then serve the connection here)."""
        link = await self._link(owner)
        if link is None:  # nobody listens there: its process is gone, the room needs a new owner now
            await self._forget(code, owner)
            return None
        session = next(self._requests)
        opening: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._opening[session] = opening
        self._relaying[session] = (link, end)
        link.send(Open(session, code, address))
        try:
            accepted = await asyncio.wait_for(opening, ASK_SECONDS)
        except TimeoutError:
            accepted = False
        finally:
            self._opening.pop(session, None)
        if not accepted:
            self._relaying.pop(session, None)
            self._known.pop(code, None)  # (whoever owns it now is read again next time)
            return None
        return Line(link, session)

    def unrelay(self, line: Line) -> None:
        """The client of relayed connection ``line`` left: tell the owner."""
        if self._relaying.pop(line.session, None) is not None:
            line.shut()

    def unhost(self, line: Line, code: int | None) -> None:
        """Relayed connection ``line`` ended here, at its owner: its relaying process closes it
        (with WebSocket close ``code``) unless its client is what ended it."""
        if self._hosted.pop((line.link, line.session), None) is not None:
            line.shut(code)

    @property
    def relayed(self) -> int:
        """How many client connections this process relays to owners now."""
        return len(self._relaying)

    # ------------------------------------------------------------------ answering

    def _served(self, link: PeerLink, frame: Frame) -> None:
        """A frame on a link another process opened to this one: its secret, then requests."""
        if not link.trusted:
            if isinstance(frame, Hello) and secrets.compare_digest(frame.secret, self._secret):
                link.trusted = True
            else:
                task = asyncio.create_task(self._check_again(link, frame))  # Redis may have a new one
                self._working.add(task)
                task.add_done_callback(self._working.discard)
            return
        if isinstance(frame, Inbound):
            hosted = self._hosted.get((link, frame.session))
            if hosted is not None:
                hosted.received(frame.data, False)
        elif isinstance(frame, Ask | Open):
            task = asyncio.create_task(self._answer(link, frame) if isinstance(frame, Ask) else self._take(link, frame))
            self._working.add(task)
            task.add_done_callback(self._working.discard)
        elif isinstance(frame, Shut):
            hosted = self._hosted.pop((link, frame.session), None)
            if hosted is not None:
                hosted.ended(None)

    async def _check_again(self, link: PeerLink, frame: Frame) -> None:
        """A link that did not open with this process's secret: Redis may have lost it and
        another process made a new one (read it again); anything else is shut out."""
        if isinstance(frame, Hello):
            with contextlib.suppress(RedisError, OSError):
                self._secret = _text(await self.redis.get(f"{self.namespace}:peers:secret"))
            if secrets.compare_digest(frame.secret, self._secret):
                link.trusted = True
                return
        log.warning("room owners: a link without the deployment's secret, closed")
        link.close()

    async def _answer(self, link: PeerLink, ask: Ask) -> None:
        assert self._handle is not None
        if ask.code not in self.owned:
            # this process let the room go (or Redis lost its key): it takes it back if nobody
            # else took it, or names who did
            owner = await self.owner(ask.code)
            if owner != self.me:
                link.send(Answer(ask.request, moved=owner or ""))
                return
        link.send(await self._handle(ask))

    async def _take(self, link: PeerLink, frame: Open) -> None:
        """A client connection relayed here: served as this process's own if it owns the room
        (taking it back if nobody else did), else refused (its process serves it itself)."""
        if self._host is None or (frame.code not in self.owned and await self.owner(frame.code) != self.me):
            link.send(Shut(frame.session))
            return
        self._hosted[(link, frame.session)] = self._host(frame.code, frame.address, Line(link, frame.session))
        link.send(Accepted(frame.session))

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


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else str(value)
