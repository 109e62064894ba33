"""One seat's (or a spectator's) play connection: typed messages out, every message in kept in
order, replies awaited by id, and — if asked — reconnection that re-sends what was unanswered.

>>> from fabula.protocol import Act, Legal, LegalMoves
>>> async def first_move(server: str, code: str, token: str) -> None:
...     async with Client(server, code, token, reconnects=5) as client:
...         await client.wait_state(lambda room: room["game"] is not None)
...         legal = await client.request(Legal(id=client.next_id()))
...         if isinstance(legal, LegalMoves) and legal.actions:
...             await client.request(Act(id=client.next_id(), action=legal.actions[0]))
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from types import TracebackType
from typing import Any, Self

import websockets
from websockets.asyncio.client import ClientConnection

from fabula.protocol import Ack, ClientMessage, Error, Hello, Language, LegalMoves, Pong, Welcome
from fabula.protocol.audience import AudienceHello

from .http import websocket_url
from .wire import HELLO_REPLY_TYPES, REPLY_TYPES, Received, decode, encode, message_ids, reply_types

#: What `Client.request` answers with.
Reply = Ack | Error | LegalMoves | Pong | Welcome
#: The types that answer a message: once one came, it is not sent again.
ANSWERS = frozenset((*REPLY_TYPES, *HELLO_REPLY_TYPES))
#: Refusals of a hello that a reconnecting client tries again after (on a new connection).
RETRY_HELLO = frozenset({"rate_limited"})
#: The longest wait between two attempts to reconnect, in seconds.
BACKOFF_MAX = 5.0


class ConnectionLost(ConnectionError):
    """The connection closed (and, for a client that reconnects, could not be opened again)."""


class Refused(Exception):
    """The server refused the seat on reconnecting (``error.code``: ``bad_token``, ``no_room``, …)."""

    def __init__(self, error: Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error


class Client:
    """A WebSocket to room ``code`` on ``server`` (``http://host:port``), seated with ``token``
    (None: a spectator).

    ``reconnects``: how many connections in a row may fail (never get a ``welcome``) before the
    client gives up; 0 (the default) never reconnects. On reconnecting the client says ``hello``
    again and re-sends, with the same ids, every message still unanswered: the server answers a
    message it already took with its first ``ack``, so nothing is made twice.

    ``received`` holds every message received, in order, across connections (the last
    ``history``, and at least as many, if a bound is given); ``room`` is the newest state's.
    ``on_message`` is called with each as it arrives.
    """

    def __init__(
        self,
        server: str,
        code: str,
        token: str | None = None,
        *,
        language: Language | None = None,
        ids: Iterator[str] | None = None,
        reconnects: int = 0,
        history: int | None = None,
        on_message: Callable[[Received], None] | None = None,
        headers: dict[str, str] | None = None,
        max_size: int = 1 << 22,
        audience: AudienceHello | None = None,
    ) -> None:
        self.server, self.code, self.token, self.language = server, code, token, language
        #: join the room's audience (with ``token`` None): a name, and the token that keeps one's votes
        self.audience = audience
        self.url = websocket_url(server, code)
        self.ids = ids if ids is not None else message_ids()
        self.reconnects, self.history, self.on_message = reconnects, history, on_message
        self.headers, self.max_size = headers or {}, max_size
        self.received: list[Received] = []
        #: messages forgotten from the start of ``received`` (with a ``history``)
        self.dropped = 0
        self.room: dict[str, Any] | None = None
        self.welcome: Welcome | None = None
        #: the answer to the latest hello this client said by itself (`connect`, reconnecting)
        self.greeting: Received | None = None
        #: the latest connection (kept once closed, for its close code)
        self.socket: ClientConnection | None = None
        #: messages sent without an answer yet, by id, as sent
        self.unanswered: dict[str, bytes | str] = {}
        self._live: ClientConnection | None = None  # the socket messages may go out on now
        self._greets = False
        self._hello_id: str | None = None  # the greeting's hello on the current connection
        self._welcomes = 0
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failure: Exception | None = None
        self._closing = False

    # ------------------------------------------------------------------ connecting

    async def connect(self, timeout: float | None = 10) -> Welcome | Error:
        """Open the connection and say hello; the ``welcome`` (once the first state has come in
        too) or the ``error``. A client that reconnects keeps trying to open it."""
        self._greets, self.greeting = True, None
        self._start(await self._dial(quiet=self.reconnects > 0))
        await self._until(lambda: self.greeting is not None, timeout)
        assert self.greeting is not None
        reply = self.greeting.message
        assert isinstance(reply, Welcome | Error), self.greeting.text
        return reply

    async def open(self) -> None:
        """Open the connection without saying hello (the caller says it, or tests the server
        with what a client may send before)."""
        self._start(await self._dial(quiet=False))

    async def close(self) -> None:
        self._closing = True
        if self.socket is not None:
            await self.socket.close()
        if self._task is not None:
            await self._task

    async def __aenter__(self) -> Self:
        """Connect; `Refused` if the server refuses the seat."""
        reply = await self.connect(timeout=None if self.reconnects else 10)
        if isinstance(reply, Error):
            await self.close()
            raise Refused(reply)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    def _start(self, socket: ClientConnection | None) -> None:
        self._closing, self._failure = False, None
        if socket is not None:  # at once, not when the task first runs: the caller may send now
            self.socket = socket
            if not self._greets:
                self._live = socket
        self._task = asyncio.create_task(self._run(socket))

    async def _dial(self, *, quiet: bool) -> ClientConnection | None:
        try:
            return await websockets.connect(self.url, additional_headers=self.headers or None, max_size=self.max_size)
        except (OSError, TimeoutError, websockets.WebSocketException):
            if quiet:
                return None
            raise

    async def _run(self, socket: ClientConnection | None) -> None:
        failures = 0  # connections in a row that never got a welcome
        while True:
            if socket is not None:
                welcomes = self._welcomes
                await self._serve(socket)
                failures = 0 if self._welcomes > welcomes else failures + 1
            else:
                failures += 1
            if self._closing or self._failure is not None or not self.reconnects:
                break
            if failures > self.reconnects:
                self._failure = ConnectionLost(f"lost the connection to {self.url} and could not get it back")
                break
            await asyncio.sleep(min(BACKOFF_MAX, 0.2 * 2**failures))
            socket = await self._dial(quiet=True)
        self._changed.set()

    async def _serve(self, socket: ClientConnection) -> None:
        """Read ``socket`` until it closes (saying hello first, if this client does)."""
        self.socket = socket
        greeting = asyncio.create_task(self._greet(socket)) if self._greets else None
        if greeting is None:
            self._live = socket
        try:
            async for frame in socket:
                self._receive(decode(frame if isinstance(frame, str) else frame.decode()))
        except websockets.ConnectionClosed:
            pass
        finally:
            self._live = None
            if greeting is not None:
                greeting.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await greeting

    async def _greet(self, socket: ClientConnection) -> None:
        hello = Hello(id=self.next_id(), token=self.token, language=self.language, audience=self.audience)
        self._hello_id = hello.id
        start = self.count
        with contextlib.suppress(websockets.ConnectionClosed):
            await socket.send(encode(hello))
            reply = await self.wait_for(lambda r: r.answers(hello.id, HELLO_REPLY_TYPES), start=start, timeout=None)
            if isinstance(reply.message, Error):  # taken note of on arrival (see `_receive`)
                if self.reconnects:
                    await socket.close()
                return
            await self.wait_for(lambda r: r.type == "state", start=start, timeout=None)
            # no await between the copy and going live: a message sent meanwhile goes out once
            pending = list(self.unanswered.values())
            self._live = socket
            for data in pending:
                await socket.send(data)
            self.greeting = reply
            self._changed.set()

    def _receive(self, received: Received) -> None:
        self.received.append(received)
        if self.history is not None and len(self.received) > 2 * self.history:
            # trimmed in halves, not one by one: a list's head is dear to delete from
            forget = len(self.received) - self.history
            del self.received[:forget]
            self.dropped += forget
        message = received.message
        if received.type == "state":
            self.room = received.data["room"]
        elif isinstance(message, Welcome):
            self.welcome = message
            self._welcomes += 1
        message_id = received.id
        if message_id is not None and received.type in ANSWERS:
            self.unanswered.pop(message_id, None)
            if message_id == self._hello_id and isinstance(message, Error):
                # now, not in the greeting's task: the server may close the connection right after
                # (no_room), and the greeting would be cancelled before it could say why
                self.greeting = received
                if self.reconnects and message.code not in RETRY_HELLO:
                    self._failure = Refused(message)
        if self.on_message is not None:
            self.on_message(received)
        self._changed.set()

    # ------------------------------------------------------------------ sending

    def next_id(self) -> str:
        return next(self.ids)

    async def send(self, message: ClientMessage) -> None:
        """Send ``message`` (to be re-sent on reconnecting until it is answered)."""
        await self.send_raw(encode(message), None if isinstance(message, Hello) else message.id)

    async def send_raw(self, data: str | bytes, message_id: str | None = None) -> None:
        """Send ``data`` as it is; with a ``message_id``, it is re-sent on reconnecting until a
        reply names that id. While reconnecting it waits for the new connection."""
        if message_id is not None:
            self.unanswered[message_id] = data
        socket = self._live
        if socket is None and not self.reconnects:
            socket = self.socket
        if socket is None:
            if not self.reconnects:
                raise ConnectionLost("not connected")
            return  # the greeting on the next connection sends it
        try:
            await socket.send(data)
        except websockets.ConnectionClosed:
            if not self.reconnects:
                raise

    async def request(self, message: ClientMessage, timeout: float | None = 10) -> Reply:
        """Send ``message`` and wait for the reply naming its id (`TimeoutError` after
        ``timeout`` seconds)."""
        start = self.count
        await self.send(message)
        received = await self.wait_for(lambda r: r.answers(message.id, reply_types(message)), start, timeout)
        reply = received.message
        assert isinstance(reply, Ack | Error | LegalMoves | Pong | Welcome), received.text
        return reply

    async def request_raw(
        self,
        data: str | bytes,
        message_id: str,
        types: tuple[str, ...] = REPLY_TYPES,
        timeout: float | None = 10,
    ) -> Received:
        """Send ``data`` as it is and wait for the first message of ``types`` naming ``message_id``."""
        start = self.count
        await self.send_raw(data, message_id)
        return await self.wait_for(lambda r: r.answers(message_id, types), start, timeout)

    # ------------------------------------------------------------------ receiving

    @property
    def count(self) -> int:
        """How many messages have been received: the ``start`` that waits for the next one."""
        return self.dropped + len(self.received)

    async def wait_for(self, test: Callable[[Received], bool], start: int = 0, timeout: float | None = 10) -> Received:
        """The first message received from number ``start`` on (0: the first ever; `count`: the
        next) for which ``test`` holds; `ConnectionLost` if the client stops first."""
        seen = start
        found: list[Received] = []

        def look() -> bool:
            nonlocal seen
            for received in self.received[max(0, seen - self.dropped) :]:
                if test(received):
                    found.append(received)
                    return True
            seen = max(seen, self.count)  # a start beyond what has come stays where it is
            return False

        await self._until(look, timeout)
        return found[0]

    async def wait_state(
        self, test: Callable[[dict[str, Any]], bool], start: int = 0, timeout: float | None = 10
    ) -> dict[str, Any]:
        """The room of the first state from number ``start`` on for which ``test(room)`` holds."""
        found = await self.wait_for(lambda r: r.type == "state" and test(r.data["room"]), start, timeout)
        room: dict[str, Any] = found.data["room"]
        return room

    async def messages(self, start: int | None = None) -> AsyncIterator[Received]:
        """Every message from number ``start`` (default: the next) on, as it arrives, until the
        client is closed."""
        at = self.count if start is None else start
        while True:
            try:
                received = await self.wait_for(lambda _: True, at, timeout=None)
            except ConnectionLost:
                if self._closing and self._failure is None:
                    return
                raise
            at = max(at, self.dropped) + 1
            yield received

    async def _until(self, ready: Callable[[], bool], timeout: float | None) -> None:
        async def wait() -> None:
            while not ready():
                if self._task is not None and self._task.done():
                    raise self._stopped()
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), timeout)

    def _stopped(self) -> Exception:
        if self._failure is not None:
            return self._failure
        assert self._task is not None
        error = None if self._task.cancelled() else self._task.exception()
        lost = ConnectionLost("the connection closed")
        lost.__cause__ = error
        return lost
