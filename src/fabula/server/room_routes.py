"""A room over HTTP: creating one, reading who is there, taking a seat, its QR code, the log of its
finished game and the descriptions of its cards.

    POST /api/rooms                 {settings?, name, colour} → {code, member, token, join_url}
    GET  /api/rooms/{code}          who is there, which colours are free
    POST /api/rooms/{code}/join     {name, colour} → {code, member, token}; streamer mode: 202 {code, ask, token}
    GET  /api/rooms/{code}/ask      (Authorization: Bearer <token>) what became of that request to join
    GET  /api/rooms/{code}/qr.svg   the join link as a QR code (also qr.png)
    GET  /api/rooms/{code}/log      the moves of its finished game
    GET  /api/rooms/{code}/cards    its cards' titles and descriptions (?lang=zh-Hant: in that language)
"""

from __future__ import annotations

import io
import json
from typing import Any

import segno
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fabula.cards.library import OWN_DECK, DeckError, DeckLibrary
from fabula.errors import CommonCode
from fabula.protocol import ProtocolCode
from fabula.protocol.settings import RoomSettings
from fabula.rules import RulesError

from .config import Config
from .errors import RoomCode
from .invite import Invite, invite_for
from .metrics import Metrics
from .responses import CARDS_ROUTE, error_response
from .room_settings import settings_from
from .seats import RoomLimit
from .service import RoomService

#: The largest HTTP request body read (room settings, a name).
BODY_MAX = 16_384


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def invite(config: Config, request: Request) -> Invite:
    """Where the phones of a room opened from ``request`` join it (its link, or why they cannot)."""
    url = request.url
    return invite_for(config.public_url, config.host, url.scheme, url.hostname, url.port)


class RoomRoutes:
    """The routes above, served by the room ``service`` (its rooms and seats once it runs)."""

    def __init__(self, config: Config, metrics: Metrics, library: DeckLibrary, service: RoomService) -> None:
        self.config, self.metrics, self.library, self.service = config, metrics, library, service

    def routes(self) -> list[Route]:
        return [
            Route("/api/rooms", self.create_room, methods=["POST"]),
            Route("/api/rooms/{code}", self.summary),
            Route("/api/rooms/{code}/join", self.join, methods=["POST"]),
            Route("/api/rooms/{code}/ask", self.ask),
            Route("/api/rooms/{code}/qr.{kind:str}", self.qr),
            Route("/api/rooms/{code}/log", self.log),
            Route(CARDS_ROUTE, self.cards),
        ]

    def join_url(self, request: Request, code: str) -> str:
        return f"{invite(self.config, request).base}/join/{code}"

    def refused(self, error: RulesError) -> JSONResponse:
        self.metrics.errors.labels(error.code).inc()
        if isinstance(error, RoomLimit) and error.retry_after is not None:
            retry = str(max(1, error.retry_after))
            return error_response(error.code, error.message, headers={"Retry-After": retry}, retry_after=int(retry))
        return error_response(error.code, error.message)

    async def create_room(self, request: Request) -> Response:
        try:
            body = await read_json(request)
            settings: RoomSettings = settings_from(body.get("settings"))
            address = client_address(request)
            seat = await self.service.seats.requests.once(
                address,
                body.get("request"),
                lambda: self.service.seats.create_room(settings, body.get("name"), body.get("colour"), address),  # type: ignore[arg-type]
            )
        except RulesError as error:
            return self.refused(error)
        await self.service.cluster.claim(seat.code)
        return JSONResponse(
            {
                "code": seat.code,
                "member": seat.member,
                "token": seat.token,
                "join_url": self.join_url(request, seat.code),
                "invite": invite(self.config, request).to_json(seat.code),
            },
            status_code=201,
        )

    async def summary(self, request: Request) -> Response:
        try:
            summary = await self.service.seats.summary(request.path_params["code"])
        except RulesError as error:
            return self.refused(error)
        found = invite(self.config, request)
        return JSONResponse(
            {**summary, "join_url": self.join_url(request, summary["code"]), "invite": found.to_json(summary["code"])}
        )

    async def join(self, request: Request) -> Response:
        try:
            body = await read_json(request)
            seat = await self.service.seats.requests.once(
                client_address(request),
                body.get("request"),
                lambda: self.service.seats.join(
                    request.path_params["code"],
                    body.get("name"),  # type: ignore[arg-type]
                    body.get("colour"),  # type: ignore[arg-type]
                    body.get("replaces"),
                    body.get("former_token"),
                    address=client_address(request),
                ),
            )
        except RulesError as error:
            return self.refused(error)
        if seat.ask is not None:  # streamer mode: waiting for the host
            return JSONResponse({"code": seat.code, "ask": seat.ask, "token": seat.token}, status_code=202)
        return JSONResponse({"code": seat.code, "member": seat.member, "token": seat.token}, status_code=201)

    async def ask(self, request: Request) -> Response:
        """What became of a request to join, asked with its seat token (the waiting page's poll)."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        try:
            found = await self.service.seats.ask_status(
                request.path_params["code"], token.strip() if scheme.lower() == "bearer" else None
            )
        except RulesError as error:
            return self.refused(error)
        return JSONResponse(found, headers={"Cache-Control": "no-store"})

    async def qr(self, request: Request) -> Response:
        try:
            code = (await self.service.rooms.find(request.path_params["code"])).room.code
        except RulesError as error:
            return self.refused(error)
        qr = segno.make(self.join_url(request, code), error="m")
        out = io.BytesIO()
        if request.path_params["kind"] == "svg":
            qr.save(out, kind="svg", scale=8, border=2, xmldecl=False)
            media = "image/svg+xml"
        else:
            qr.save(out, kind="png", scale=8, border=2)
            media = "image/png"
        return Response(out.getvalue(), media_type=media, headers={"Cache-Control": "no-cache"})

    async def log(self, request: Request) -> Response:
        try:
            return JSONResponse(await self.service.seats.finished_log(request.path_params["code"]))
        except RulesError as error:
            return self.refused(error)

    async def cards(self, request: Request) -> Response:
        """The descriptions of a room's cards: the pictures' alt text (and what bots read). With
        ``?lang=`` one of the client's languages (``en``, ``zh-Hant``, ``zh-Hans``), the original
        deck's in that language; a caption someone wrote stays as written, and any other
        ``lang`` (or none) is English."""
        language = request.query_params.get("lang", "en")
        try:
            room = (await self.service.rooms.find(request.path_params["code"])).room
            own = await self.service.parts.own_cards(room.code) if OWN_DECK in room.settings.decks else ()
            found = self.library.cards(room.settings.decks, own)
        except RulesError as error:
            return self.refused(error)
        except DeckError as error:
            return error_response(RoomCode.BAD_DECKS, error.message, route=CARDS_ROUTE)
        return JSONResponse(
            {
                "cards": [
                    {
                        "id": card.id,
                        "title": card.title,
                        "description": card.description_in(language),
                        "tags": list(card.tags),
                    }
                    for card in found
                ]
            }
        )


async def read_json(request: Request) -> dict[str, Any]:
    """A request's body as a JSON object (`RulesError` if it is too large, not JSON, or not an object)."""
    body = await request.body()
    if len(body) > BODY_MAX:
        raise RulesError(ProtocolCode.TOO_LARGE, f"A request body has at most {BODY_MAX} bytes.")
    try:
        found = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        raise RulesError(CommonCode.MALFORMED, "The request body is not JSON (or is nested too deeply).") from None
    if not isinstance(found, dict):
        raise RulesError(CommonCode.MALFORMED, "The request body is a JSON object.")
    return found
