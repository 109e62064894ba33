"""Messages on the wire: client messages encoded as the server reads them, server messages decoded
both as the JSON object sent and as the typed message of `fabula.protocol`.

>>> from fabula.protocol import Ack, Hello
>>> encode(Hello(id="a1", token="secret"))
b'{"type":"hello","id":"a1","token":"secret"}'
>>> received = decode('{"type":"ack","id":"a1","seq":3}')
>>> received.type, received.data["seq"], received.message
('ack', 3, Ack(id='a1', seq=3))
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import msgspec

from fabula.protocol import AnyServerMessage, ClientMessage, Hello

#: The types that answer a message by its id (besides ``welcome``, which answers ``hello``).
REPLY_TYPES = ("ack", "error", "legal", "pong", "album")
HELLO_REPLY_TYPES = ("welcome", "error")

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


@cache
def _defaults(kind: type[ClientMessage]) -> tuple[tuple[str, Any], ...]:
    return tuple(
        (field.encode_name, field.default)
        for field in msgspec.structs.fields(kind)
        if field.default is not msgspec.NODEFAULT
    )


def encode(message: ClientMessage) -> bytes:
    """``message`` as JSON, leaving out the fields that have their default value: the server
    reads the same message, and the frame is what a hand-written client sends."""
    data = msgspec.to_builtins(message)
    for name, default in _defaults(type(message)):
        if data[name] == default:
            del data[name]
    return _encoder.encode(data)


def reply_types(message: ClientMessage) -> tuple[str, ...]:
    """The types of message that may answer ``message``."""
    return HELLO_REPLY_TYPES if isinstance(message, Hello) else REPLY_TYPES


@dataclass(frozen=True, slots=True)
class Received:
    """One message from the server: its ``text``, the JSON object (``data``) and the typed
    ``message`` (None for a type this client does not know: a newer server's)."""

    text: str
    data: dict[str, Any]
    message: AnyServerMessage | None

    @property
    def type(self) -> str:
        kind: str = self.data.get("type", "")
        return kind

    @property
    def id(self) -> str | None:
        """The id of the client message this answers, if it answers one."""
        found = self.data.get("id")
        return found if isinstance(found, str) else None

    def answers(self, message_id: str, types: tuple[str, ...] = REPLY_TYPES) -> bool:
        return self.id == message_id and self.type in types


def decode(text: str) -> Received:
    """The server's message ``text``; `msgspec.DecodeError` if it is not a JSON object."""
    data = _decoder.decode(text)
    if not isinstance(data, dict):
        raise msgspec.DecodeError(f"not a JSON object: {text[:80]!r}")
    try:
        message: AnyServerMessage | None = msgspec.convert(data, AnyServerMessage)
    except msgspec.ValidationError:
        message = None
    return Received(text, data, message)


def message_ids(prefix: str | None = None) -> Iterator[str]:
    """Fresh message ids, ``prefix-0``, ``prefix-1``, …; the default prefix is random, so that a
    client started again with the same seat never reuses an earlier run's id (the server would
    take the message for a resend and not act on it).

    >>> ids = message_ids("b")
    >>> next(ids), next(ids)
    ('b-0', 'b-1')
    """
    head = secrets.token_hex(4) if prefix is None else prefix
    return (f"{head}-{n}" for n in itertools.count())
