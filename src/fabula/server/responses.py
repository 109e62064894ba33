"""The HTTP error body every route answers a refusal with, and its status."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse

from fabula.errors import ErrorCode

from .errors import RoomCode

#: The route that lists a room's cards, and the one refusal sent with another status than its
#: code's: a room whose decks this server no longer has has no cards to find (404), where
#: choosing such decks for a room is refused (400).
CARDS_ROUTE = "/api/rooms/{code}/cards"
ROUTE_STATUS: dict[tuple[str, ErrorCode], int] = {(CARDS_ROUTE, RoomCode.BAD_DECKS): 404}


class AsciiJSONResponse(JSONResponse):
    """JSON with every non-ASCII character escaped: an error may quote what the client sent,
    lone surrogates included, and must still be sendable."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode()


def error_response(
    code: ErrorCode, message: str, *, route: str = "", headers: dict[str, str] | None = None, **more: Any
) -> JSONResponse:
    """The usual error body, ``{"error": {"code", "message", …more}}``, with the code's status
    (or the one `ROUTE_STATUS` gives it on ``route``)."""
    status = ROUTE_STATUS.get((route, code), code.status)
    return AsciiJSONResponse({"error": {"code": code, "message": message, **more}}, status_code=status, headers=headers)
