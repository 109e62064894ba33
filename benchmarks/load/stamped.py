"""A client socket that knows when its bytes arrived: the kernel's receive time of each read.

A generator reading 10,000 sockets is late reading them (its loop's lag reached 0.5–0.7 s at
10,000 watchers, docs/deploy.md, *The audience*): the time a message is read there is the
generator's as much as the server's. With ``SO_TIMESTAMPNS`` the kernel stamps each packet as it
reaches the socket, and `recvmsg` hands over the stamp of the last packet of a read: when the
server's bytes were delivered to this machine's socket, whenever this process got round to them.
A read holding several messages stamps them all with its last packet's time (later, never
earlier, than their own).

>>> offset = realtime_offset()
>>> abs(offset - (time.time() - time.monotonic())) < 0.01
True
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import time
from collections.abc import Callable

#: Linux's SO_TIMESTAMPNS (SCM_TIMESTAMPNS the same number): Python's socket module lacks it
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_TIMESPEC = struct.Struct("@qq")
_ANCILLARY = socket.CMSG_SPACE(_TIMESPEC.size)
_READ = 1 << 18


def realtime_offset() -> float:
    """The kernel's stamps are wall-clock time; this is what turns one into `time.monotonic`'s."""
    return time.time() - time.monotonic()


class StampedTransport:
    """A transport over a connected socket that reads with `recvmsg` (uvloop's and asyncio's read
    with `recv` and drop the stamp). ``arrived``: the kernel's time (as `time.monotonic`) of the
    last read's last packet. Enough of `asyncio.Transport` for `WebSocketClient`."""

    def __init__(self, sock: socket.socket, protocol: asyncio.Protocol) -> None:
        self.sock, self.protocol = sock, protocol
        self.loop = asyncio.get_running_loop()
        self.offset = realtime_offset()
        self.arrived = time.monotonic()
        self._pending = bytearray()
        self._closed = False
        self.loop.add_reader(sock.fileno(), self._readable)
        protocol.connection_made(self)  # type: ignore[arg-type]

    def _readable(self) -> None:
        try:
            data, ancillary, _, _ = self.sock.recvmsg(_READ, _ANCILLARY)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as failed:
            self._lose(failed)
            return
        if not data:
            self._lose(None)
            return
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= _TIMESPEC.size:
                seconds, nanoseconds = _TIMESPEC.unpack_from(value)
                self.arrived = seconds + nanoseconds * 1e-9 - self.offset
        self.protocol.data_received(data)

    def write(self, data: bytes) -> None:
        if self._closed:
            return
        if not self._pending:
            try:
                sent = self.sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError as failed:
                self._lose(failed)
                return
            if sent == len(data):
                return
            data = data[sent:]
            self.loop.add_writer(self.sock.fileno(), self._writable)
        self._pending += data

    def _writable(self) -> None:
        try:
            sent = self.sock.send(self._pending)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as failed:
            self._lose(failed)
            return
        del self._pending[:sent]
        if not self._pending:
            self.loop.remove_writer(self.sock.fileno())

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        if self._pending and not self._closed:  # (a goodbye frame is small: it goes now or never)
            with contextlib.suppress(OSError):
                self.sock.send(self._pending)
        self._lose(None)

    def _lose(self, failed: Exception | None) -> None:
        if self._closed:
            return
        self._closed = True
        fd = self.sock.fileno()
        self.loop.remove_reader(fd)
        self.loop.remove_writer(fd)
        self.sock.close()
        self.loop.call_soon(self.protocol.connection_lost, failed)


async def open_stamped(
    make: Callable[[], asyncio.Protocol], host: str, port: int
) -> tuple[StampedTransport, asyncio.Protocol]:
    """Connect to ``host``:``port`` with receive stamps on; like `loop.create_connection`."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        await loop.sock_connect(sock, address)
    except BaseException:
        sock.close()
        raise
    protocol = make()
    return StampedTransport(sock, protocol), protocol
