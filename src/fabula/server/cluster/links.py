"""Peer links: the direct TCP connections between the processes of a deployment, and the frames
they carry — a room owner's asks and answers, and the traffic of client connections relayed whole
to a room's owner (`fabula.server.cluster.owners`).

A frame is a 4-byte big-endian length and a msgpack message. A link opens with the deployment's
secret (`Hello`); then either side sends what it has, many frames in one write a turn of the loop.

>>> Ask(request=7, code="ABCDE", member=2, message=b'{"type":"say","text":"hi"}').request
7
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, cast

import msgspec

log = logging.getLogger("fabula.server")

#: The largest frame a link reads (a client message is at most a few tens of KB).
MAX_FRAME = 1 << 22


class Hello(msgspec.Struct, frozen=True, tag="hello"):
    """The first frame on a link: the deployment's secret."""

    secret: str


class Ask(msgspec.Struct, frozen=True, tag="ask"):
    """A request for the owner of room ``code``: client ``message`` (its JSON) of ``member``,
    from a process whose room is at ``since`` (the owner's answer brings it the entries from
    there on)."""

    request: int
    code: str
    member: int
    message: bytes
    since: int = 0


class Answer(msgspec.Struct, frozen=True, tag="answer"):
    """The owner's answer: the entry's ``seq`` (and the room's ``entries`` as stored, the last
    at ``seq``, from the asker's ``since`` on as far as the owner has them at hand), or a
    refusal's ``error`` code and words; or, from a process that no longer owns the room, who
    does (``moved``; ``""``: nobody could be named)."""

    request: int
    seq: int | None = None
    entries: list[bytes] = msgspec.field(default_factory=list)
    error: str | None = None
    text: str = ""
    moved: str | None = None


class Open(msgspec.Struct, frozen=True, tag="open"):
    """A client connection to room ``code``, relayed whole to the room's owner by the process it
    reached (``address``: the client's, for the owner's logs). The owner answers `Shut` if it
    does not own the room, else takes the connection as its own; the relaying process forwards
    nothing before (`Accepted`)."""

    session: int
    code: str
    address: str


class Accepted(msgspec.Struct, frozen=True, tag="accepted"):
    """The owner serves relayed connection ``session`` from now on."""

    session: int


class Inbound(msgspec.Struct, frozen=True, tag="in"):
    """A message from a relayed connection's client, as it came."""

    session: int
    data: bytes


class Outbound(msgspec.Struct, frozen=True, tag="out"):
    """A message for a relayed connection's client; ``state``: a room state, which replaces an
    unsent older one in the client's outbox; ``paced``: for an audience member (an answer to a
    vote, say), sent out paced as a crowd's state is — a link's frames read in one go can hold
    thousands, and each written to its socket there and then held a relayed player's state
    behind them all."""

    session: int
    data: bytes
    state: bool = False
    paced: bool = False


class Broadcast(msgspec.Struct, frozen=True, tag="all"):
    """One message for several relayed connections' clients: a room's state encoded once for all
    its spectators and audience (the same bytes), sent over the link once, not once a connection."""

    sessions: list[int]
    data: bytes
    state: bool = False


class Shut(msgspec.Struct, frozen=True, tag="shut"):
    """A relayed connection ends: its client left (to the owner), or the owner closes it with
    WebSocket close ``code`` (None: no particular reason) — or, in answer to `Open`, does not
    take it (it does not own the room)."""

    session: int
    code: int | None = None


Frame = Hello | Ask | Answer | Open | Accepted | Inbound | Outbound | Broadcast | Shut
_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(Frame).decode
_LENGTH = struct.Struct(">I")


class PeerLink(asyncio.Protocol):
    """One TCP connection between two processes: length-prefixed msgpack frames either way."""

    def __init__(self, on_frame: Callable[[PeerLink, Frame], None], on_lost: Callable[[PeerLink], None]) -> None:
        self._on_frame, self._on_lost = on_frame, on_lost
        self._buffer = bytearray()
        #: frames sent in this turn of the event loop, written together at its end (one system
        #: call for the states of a whole table, not one a state)
        self._unwritten: list[bytes] = []
        self._write_due = False
        #: the latest outbound message, with the sessions it goes to so far: the same bytes for
        #: several connections in a row make one `Broadcast` (`send_out`)
        self._shared: tuple[bytes, bool, bool, list[int]] | None = None
        self.transport: asyncio.Transport | None = None
        #: the other side said the deployment's secret (a served link; an opened one is trusted)
        self.trusted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is one, though not a subclass)

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        if buffer:
            buffer += data
            whole: bytes | bytearray = buffer
        else:  # (the common case: the data ends with a whole frame, and nothing is copied)
            whole = data
        frames: list[Frame] = []
        start, length = 0, len(whole)
        with memoryview(whole) as view:
            while length - start >= _LENGTH.size:
                (size,) = _LENGTH.unpack_from(whole, start)
                if size > MAX_FRAME:
                    self.close()
                    return
                end = start + _LENGTH.size + size
                if length < end:
                    break
                try:
                    frames.append(_decode(view[start + _LENGTH.size : end]))
                except msgspec.DecodeError:
                    log.warning("room owners: unreadable frame", extra={"data": repr(bytes(view[start : start + 80]))})
                    self.close()
                    return
                start = end
        # the rest, the start of a frame, waits for what follows (one copy, not one a frame)
        if whole is buffer:
            del buffer[:start]
        else:
            buffer += data[start:]
        for frame in frames:
            self._on_frame(self, frame)

    def connection_lost(self, exc: Exception | None) -> None:
        del exc  # (closed or broken: either way the link is gone)
        self.transport = None
        self._on_lost(self)

    @property
    def open(self) -> bool:
        return self.transport is not None and not self.transport.is_closing()

    def send(self, frame: Frame) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self._flush_shared()  # (what was sent before goes first)
            data = _encode(frame)
            self._unwritten += (_LENGTH.pack(len(data)), data)
            self._due()

    def send_out(self, session: int, data: bytes, state: bool, paced: bool = False) -> None:
        """A message for relayed connection ``session``'s client. The very same ``data`` for
        several sessions in a row (a state shared by every spectator) goes as one frame."""
        if self.transport is None or self.transport.is_closing():
            return
        shared = self._shared
        if shared is not None and shared[0] is data and shared[1] == state and shared[2] == paced:
            shared[3].append(session)
            return
        self._flush_shared()
        self._shared = (data, state, paced, [session])
        self._due()

    def _flush_shared(self) -> None:
        if self._shared is None:
            return
        data, state, paced, sessions = self._shared
        self._shared = None
        frame = Outbound(sessions[0], data, state, paced) if len(sessions) == 1 else Broadcast(sessions, data, state)
        encoded = _encode(frame)
        self._unwritten += (_LENGTH.pack(len(encoded)), encoded)

    def _due(self) -> None:
        if not self._write_due:
            self._write_due = True
            asyncio.get_running_loop().call_soon(self._write)

    def _write(self) -> None:
        self._write_due = False
        self._flush_shared()
        unwritten, self._unwritten = self._unwritten, []
        if unwritten and self.transport is not None and not self.transport.is_closing():
            self.transport.write(b"".join(unwritten))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class Peer(Protocol):
    """One end of a relayed connection: what hears of the traffic from the other end."""

    def received(self, data: bytes, state: bool, *, paced: bool = False) -> None:
        """A message from the other end (``state``: a room state, from the owner; ``paced``: sent
        out in the `Pacer`'s slices — a crowd's state, an audience member's own messages)."""

    def ended(self, code: int | None) -> None:
        """The other end closed the connection (with WebSocket close ``code``), or the link broke
        (None)."""


@dataclass(frozen=True, slots=True)
class Line:
    """A relayed connection as either end sends on it: its link and session number."""

    link: PeerLink
    session: int

    def inbound(self, data: bytes) -> None:
        self.link.send(Inbound(self.session, data))

    def outbound(self, data: bytes, state: bool, paced: bool = False) -> None:
        self.link.send_out(self.session, data, state, paced)

    def shut(self, code: int | None = None) -> None:
        self.link.send(Shut(self.session, code))


#: What the owner does with a connection relayed to it (room, client address, line): the end that
#: hears its client.
Host = Callable[[str, str, Line], Peer]
