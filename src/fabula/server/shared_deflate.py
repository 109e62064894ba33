"""permessage-deflate with each message compressed once, however many connections send it.

A state for a crowd is the very same text for thousands of connections. Compressed the usual way
(each connection's compressor keeps its window between messages, "context takeover") it must be
compressed once per connection — most of what a send costs. Without context takeover a message
compresses to the same bytes on every connection, so the server negotiates
``server_no_context_takeover`` and keeps the newest few compressed messages: the second to the
ten-thousandth connection sending a state take its bytes from there. (A message compresses a little
less well alone; the server keeps no compressor per connection between messages either.) The
frame around them is the same on every such connection too (a server's frames are not masked):
it is kept whole (`FRAMED`), and a connection that writes a kept one at once writes those bytes,
without websockets making the frame again for it.

Served by `FabulaWebSockets`, uvicorn's own WebSocket protocol with this extension in place of
the standard one (`fabula.server.local.uvicorn_config`). It also lets the server write a message
the moment it has it (`WRITE_NOW`), without a task awaiting uvicorn's ASGI ``send``: a crowd's
state then costs each of thousands of idle connections a call, not a task woken and the coroutines
and futures it makes and keeps (`fabula.server.connections.Outbox`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import CONT, CTRL_OPCODES, Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.typing import ExtensionParameter

#: Messages shorter than this are sent uncompressed (permessage-deflate lets each message say
#: whether it is compressed): an ack or an answer gains a few bytes, and a compressor made for
#: it costs more than it saves.
SHARED_FROM_BYTES = 512
#: The ASGI scope's extension of a WebSocket that can be written at once: ``{"write": write_now}``,
#: ``write_now(text)`` sends the UTF-8 ``text`` as a message and says True, or says False — the
#: socket cannot take it without waiting (its buffer full, or closing) — and sends nothing.
WRITE_NOW = "fabula.write_now"
#: How many messages' bytes each `MadeOnce` keeps (a room's newest states; a few rooms' at once).
KEPT = 32


class MadeOnce:
    """The bytes made of the newest messages (compressed, or framed), by their text and how they
    were made (window bits; 0: uncompressed) — one of each for the whole process."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[bytes, int], bytes] = OrderedDict()
        self.made = self.reused = 0

    def get(self, data: bytes, how: int) -> bytes | None:
        found = self._kept.get((data, how))
        if found is not None:
            self.reused += 1
        return found

    def keep(self, data: bytes, how: int, made: bytes) -> None:
        self.made += 1
        self._kept[(data, how)] = made
        if len(self._kept) > KEPT:
            self._kept.popitem(last=False)


#: Long messages compressed alone, by their text and window bits.
COMPRESSED = MadeOnce()
#: Whole frames of long messages as written to connections that compress them alike: by the
#: message's text and 0 (no compression negotiated) or the connection's deflate window bits.
FRAMED = MadeOnce()


class SharedDeflate(PerMessageDeflate):
    """permessage-deflate without the server's context takeover, a long message's compressed
    bytes shared (`COMPRESSED`)."""

    def encode(self, frame: Frame) -> Frame:
        whole = self.local_no_context_takeover and frame.fin and frame.opcode is not CONT
        if not whole or frame.opcode in CTRL_OPCODES:
            return super().encode(frame)
        if len(frame.data) < SHARED_FROM_BYTES:
            return frame
        data = bytes(frame.data)
        compressed = COMPRESSED.get(data, self.local_max_window_bits)
        if compressed is None:
            compressed = bytes(super().encode(frame).data)
            COMPRESSED.keep(data, self.local_max_window_bits, compressed)
        return Frame(frame.opcode, compressed, frame.fin, True, frame.rsv2, frame.rsv3)


class SharedDeflateFactory(ServerPerMessageDeflateFactory):
    """Negotiates permessage-deflate as websockets does, always without the server's context
    takeover, and compresses with `SharedDeflate`."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(server_no_context_takeover=True, **settings)

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, standard = super().process_request_params(params, accepted_extensions)
        shared = SharedDeflate(
            standard.remote_no_context_takeover,
            standard.local_no_context_takeover,
            standard.remote_max_window_bits,
            standard.local_max_window_bits,
            standard.compress_settings,
        )
        return response, shared


#: The factory every connection negotiates with (it keeps no state of its own): the same window and
#: memory settings as uvicorn's own permessage-deflate.
SHARED_DEFLATE = SharedDeflateFactory(
    server_max_window_bits=12, client_max_window_bits=12, compress_settings={"memLevel": 5}
)


class FabulaWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets' sans-I/O core), offering `SHARED_DEFLATE` as its
    permessage-deflate instead of the standard one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn.available_extensions = [SHARED_DEFLATE]
        #: how this connection's long messages are framed (`_framed_alike`), once it is open
        self._frames_as: int | None = None
        self._frames_known = False

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # (a refused handshake makes none)
        if scope is not None:
            scope["extensions"][WRITE_NOW] = {"write": self.write_now}

    def write_now(self, text: bytes) -> bool:
        """Send ``text`` (UTF-8) now, as uvicorn's ASGI ``send`` would once the socket is writable;
        False, sending nothing, if it is not writable now or no longer open."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.initial_response is not None
            or self.disconnected
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        conn = self.conn
        if not self._frames_known:
            self._frames_as, self._frames_known = _framed_alike(conn.extensions), True
        frames_as = self._frames_as
        if (
            frames_as is not None
            and len(text) >= SHARED_FROM_BYTES
            and conn.state is State.OPEN
            and not conn.expect_continuation_frame
            and not conn.writes  # (nothing of websockets' own waits to go before it)
        ):
            frame = FRAMED.get(text, frames_as)
            if frame is None:
                frame = Frame(Opcode.TEXT, text).serialize(mask=False, extensions=conn.extensions)
                FRAMED.keep(text, frames_as, frame)
            self.transport.write(frame)
            return True
        try:
            conn.send_text(text)
        except InvalidState:
            return False
        self.transport.write(b"".join(conn.data_to_send()))
        return True


def _framed_alike(extensions: Sequence[Extension]) -> int | None:
    """What a long message's whole frame on a connection with ``extensions`` shares with others:
    0 without compression, the window bits with `SharedDeflate`; None if it is its own (a
    compressor that keeps its context between messages)."""
    if not extensions:
        return 0
    if len(extensions) == 1 and isinstance(extensions[0], SharedDeflate) and extensions[0].local_no_context_takeover:
        return extensions[0].local_max_window_bits
    return None
