"""A client of Fabula's play protocol (docs/protocol.md): what `fabula bot`, the server tests and
the protocol's documentation play through.

Seats are taken over HTTP (`create_room`, `join_room`); play is one `Client` per seat, sending
the typed messages of `fabula.protocol` and receiving its server messages.

>>> import asyncio
>>> from fabula.protocol import Ping, Pong, Start
>>> async def host_a_game(server: str) -> None:
...     seat = await create_room(server, "Ana", "red")
...     async with Client(server, seat["code"], seat["token"]) as ana:
...         assert isinstance(await ana.request(Ping(id=ana.next_id())), Pong)
...         await ana.wait_state(lambda room: len(room["members"]) >= 3)  # others join
...         await ana.request(Start(id=ana.next_id()))
"""

from .connection import BACKOFF_MAX, Client, ConnectionLost, Refused, Reply
from .http import HttpError, create_room, join_room, room_summary, websocket_url
from .wire import REPLY_TYPES, Received, decode, encode, message_ids

__all__ = [
    "BACKOFF_MAX",
    "REPLY_TYPES",
    "Client",
    "ConnectionLost",
    "HttpError",
    "Received",
    "Refused",
    "Reply",
    "create_room",
    "decode",
    "encode",
    "join_room",
    "message_ids",
    "room_summary",
    "websocket_url",
]
