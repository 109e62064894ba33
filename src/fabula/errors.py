"""Error codes: what every refusal carries, whichever layer refuses.

A code is a member of a `StrEnum`, one enum per layer, kept next to that layer's errors: the
rules' `fabula.rules.errors.RuleCode`, the room's `fabula.server.errors.RoomCode`, the protocol's
`fabula.protocol.ProtocolCode`, the HTTP routes' `fabula.server.app.HttpCode` — and here,
`CommonCode`, for the one code every layer gives. Each member is declared as

    NAME = "code", status, "what it means, for people", Reach.…

Its value is the code string a client switches on; ``status`` is the HTTP status it is sent
with; ``reach`` says where the server can send it. docs/protocol.md lists them from here.

This module imports nothing of Fabula's, so every layer may use it.

>>> CommonCode.MALFORMED == "malformed", CommonCode.MALFORMED.status
(True, 400)
"""

from __future__ import annotations

from enum import Flag, StrEnum
from typing import Self


class Reach(Flag):
    """Where the server can send a code: as an ``error`` message on the WebSocket, as the
    ``{"error": …}`` body of an HTTP answer, both, or nowhere (raised only outside the server, or
    always caught inside it)."""

    NOWHERE = 0
    SOCKET = 1
    HTTP = 2
    BOTH = SOCKET | HTTP


class ErrorCode(StrEnum):
    """The base of every layer's codes: a code string with its HTTP ``status``, its ``meaning``
    and its ``reach``. A member equals its string, so what compared codes to strings still does."""

    status: int
    meaning: str
    reach: Reach

    def __new__(cls, code: str, status: int, meaning: str, reach: Reach) -> Self:
        member = str.__new__(cls, code)
        member._value_ = code
        member.status = status
        member.meaning = meaning
        member.reach = reach
        return member


class CommonCode(ErrorCode):
    """The one code every layer gives: what cannot be read is ``malformed`` wherever it is read.

    It lives here, below the layers, so that each may give it and it is still one code."""

    MALFORMED = (
        "malformed",
        400,
        "The request cannot be read: not JSON, not an object, or a value of the wrong type or shape.",
        Reach.BOTH,
    )
