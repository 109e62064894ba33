"""The lean WebSocket client (RFC 6455, with the permessage-deflate of RFC 7692 a browser offers).

The generator must not be what limits the figure, and `fabula.client.Client` costs it 2.8 times
the CPU per action (the package's docstring has the measured figures): that client runs a
task per connection on top of the websockets library's, and decodes every state in full, into
the protocol's typed snapshot, on every connection. This one parses frames as bytes arrive and
hands each message to a callback at once, so one generator process drives thousands of players.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import random
import zlib
from collections.abc import Callable
from typing import Any


class WebSocketClient(asyncio.Protocol):
    """One client connection without a task or a queue of its own: frames are parsed as bytes
    arrive and each message is handed to ``on_message`` at once. Answers pings; compresses what it
    sends when the server agreed to permessage-deflate, as browsers do."""

    def __init__(
        self,
        host: str,
        path: str,
        deflate: bool,
        on_message: Callable[[bytes], None],
        on_close: Callable[[str], None],
        *,
        inflated: dict[bytes, bytes] | None = None,
    ) -> None:
        self.request_head = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\nSec-WebSocket-Version: 13\r\n"
            + ("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" if deflate else "")
            + "\r\n"
        ).encode()
        self.on_message, self.on_close = on_message, on_close
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.open = self.closing = False
        self.inflater: Any = None
        self.deflater: Any = None
        self.inflate_bits = self.deflate_bits = 15
        self.inflate_reset = self.deflate_reset = False
        self.fragments: list[bytes] = []
        self.fragment_compressed = False
        self.close_code: int | None = None
        #: compressed message → its text, shared by the connections of one crowd: a server that
        #: compresses each message alone sends every watcher the very same bytes, inflated once
        #: here for all of them (what a crowd still costs the generator is reading its sockets)
        self.inflated = inflated

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transport does what an asyncio.Transport does without subclassing it
        self.transport = transport  # type: ignore[assignment]
        transport.write(self.request_head)  # type: ignore[attr-defined]

    def connection_lost(self, exc: Exception | None) -> None:
        was_open = self.open
        self.open = False
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed during the handshake: {exc}"))
        if was_open:
            self.on_close("closed" if self.close_code is None else f"closed_{self.close_code}")

    def data_received(self, data: bytes) -> None:
        if self.open and not self.buffer:
            # (most reads hold whole frames: parsed where they are, not copied into the buffer)
            at = self._frames(data)
            if at < len(data):
                self.buffer += data[at:]
            return
        buffer = self.buffer
        buffer += data
        if not self.open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end]).decode("latin-1")
            del buffer[: end + 4]
            self._handshake(head)
            if not self.open:
                return
        at = self._frames(buffer)
        if at:
            # consumed frames are cut once per read, not once per frame: a burst of states is one cut
            del buffer[:at]

    def _handshake(self, head: str) -> None:
        lines = head.split("\r\n")
        if not lines[0].startswith("HTTP/1.1 101"):
            self.opened.set_exception(ConnectionError(f"handshake refused: {lines[0]}"))
            assert self.transport is not None
            self.transport.close()
            return
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-extensions" and "permessage-deflate" in value:
                for parameter in value.split(";")[1:]:
                    key, _, number = parameter.strip().partition("=")
                    if key == "server_max_window_bits":
                        self.inflate_bits = int(number.strip('"'))
                    elif key == "client_max_window_bits" and number:
                        self.deflate_bits = int(number.strip('"'))
                    elif key == "server_no_context_takeover":
                        self.inflate_reset = True
                    elif key == "client_no_context_takeover":
                        self.deflate_reset = True
                self.inflater = zlib.decompressobj(-self.inflate_bits)
                self.deflater = zlib.compressobj(6, zlib.DEFLATED, -self.deflate_bits, 5)
        self.open = True
        self.opened.set_result(None)

    def _frames(self, buffer: bytes | bytearray) -> int:
        """Handle every whole frame at the start of ``buffer``; how many bytes they took."""
        size = len(buffer)
        at = 0
        while size - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            length, head = second & 0x7F, 2
            if length == 126:
                if size - at < 4:
                    break
                length, head = int.from_bytes(buffer[at + 2 : at + 4], "big"), 4
            elif length == 127:
                if size - at < 10:
                    break
                length, head = int.from_bytes(buffer[at + 2 : at + 10], "big"), 10
            if second & 0x80:  # a server never masks; tolerate it anyway
                head += 4
            end = at + head + length
            if end > size:
                break
            payload = bytes(buffer[at + head : end])
            if second & 0x80:
                payload = apply_mask(payload, bytes(buffer[end - length - 4 : end - length]))
            at = end
            self._frame(first, payload)
        return at

    def _frame(self, first: int, payload: bytes) -> None:
        opcode = first & 0x0F
        if opcode >= 8:
            if opcode == 9:
                self._send_frame(0x8A, payload)
            elif opcode == 8:
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                if not self.closing:
                    self.closing = True
                    self._send_frame(0x88, payload[:2])
                if self.transport is not None:
                    self.transport.close()
            return
        if opcode != 0:
            self.fragment_compressed = bool(first & 0x40)
            self.fragments = []
        self.fragments.append(payload)
        if not first & 0x80:
            return
        data = self.fragments[0] if len(self.fragments) == 1 else b"".join(self.fragments)
        self.fragments = []
        if self.fragment_compressed:
            if self.inflate_reset and self.inflated is not None:
                text = self.inflated.get(data)
                if text is None:
                    if len(self.inflated) >= 256:
                        self.inflated.clear()
                    text = self.inflated[data] = zlib.decompressobj(-self.inflate_bits).decompress(
                        data + b"\x00\x00\xff\xff"
                    )
                data = text
            else:
                data = self.inflater.decompress(data + b"\x00\x00\xff\xff")
                if self.inflate_reset:
                    self.inflater = zlib.decompressobj(-self.inflate_bits)
        self.on_message(data)

    def _send_frame(self, first: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        length = len(payload)
        if length < 126:
            head = bytes((first, 0x80 | length))
        elif length < 1 << 16:
            head = bytes((first, 0x80 | 126)) + length.to_bytes(2, "big")
        else:
            head = bytes((first, 0x80 | 127)) + length.to_bytes(8, "big")
        mask = random.randbytes(4)
        self.transport.write(head + mask + apply_mask(payload, mask))

    @property
    def deflate(self) -> bool:
        """Whether the server agreed to permessage-deflate."""
        return self.inflater is not None

    def send_text(self, data: bytes) -> None:
        if not self.open or self.closing:
            return
        if self.deflater is not None:
            data = self.deflater.compress(data) + self.deflater.flush(zlib.Z_SYNC_FLUSH)
            if data.endswith(b"\x00\x00\xff\xff"):
                data = data[:-4]
            if self.deflate_reset:
                self.deflater = zlib.compressobj(6, zlib.DEFLATED, -self.deflate_bits, 5)
            self._send_frame(0xC1, data)
        else:
            self._send_frame(0x81, data)

    def close(self) -> None:
        """Say goodbye (the server's closing frame then closes the connection)."""
        if self.open and not self.closing:
            self.closing = True
            self._send_frame(0x88, (1000).to_bytes(2, "big"))

    def abort(self) -> None:
        """Close the connection at once (one that did not answer the goodbye)."""
        if self.transport is not None:
            self.transport.close()


def python_mask(data: bytes, mask: bytes) -> bytes:
    """XOR ``data`` with the 4-byte ``mask`` repeated (what a client does to every frame it sends)."""
    if not data:
        return data
    repeated = (mask * (len(data) // 4 + 1))[: len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(data), "big")


#: websockets' C mask where it was built (it is faster on large frames), else the one above
apply_mask: Callable[[bytes, bytes], bytes] = python_mask
with contextlib.suppress(ImportError):
    from websockets.speedups import apply_mask as _speedy_mask

    apply_mask = _speedy_mask
