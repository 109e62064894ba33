"""The ASGI application: HTTP routes for rooms, seats, QR codes, cards and operations, and the
WebSocket endpoint of the play protocol.

HTTP (JSON):
    POST /api/rooms                 {settings?, name, colour} → {code, member, token, join_url}
    GET  /api/rooms/{code}          who is there, which colours are free
    POST /api/rooms/{code}/join     {name, colour} → {code, member, token}
    GET  /api/rooms/{code}/qr.svg   the join link as a QR code (also qr.png)
    GET  /api/rooms/{code}/log      the moves of its finished game
    /api/rooms/{code}/games         its finished games, their albums, pictures and share links
    /api/albums/{code}/{secret}     … an album by its share link (see `fabula.server.history`)
    /api/rooms/{code}/pictures      the room's own pictures (see `fabula.server.pictures`)
    /api/rooms/{code}/pictures.zip  … downloaded, linked, copied (see `fabula.server.deck_sharing`)
    GET  /api/modes, /api/decks     what a room can be
    GET  /cards/{card}.{svg|webp|png}?w=400
    GET  /healthz, /metrics
WebSocket:
    /ws/{code}                      see `fabula.server.protocol`
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import io
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import segno
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from fabula.bots.base import BOT_LEVELS, DEFAULT_BOT_LEVEL, LANGUAGE_NAMES
from fabula.cards.files import CardFiles
from fabula.cards.library import OWN_DECK, DeckError, DeckLibrary
from fabula.cards.original import original_deck
from fabula.errors import CommonCode, ErrorCode, Reach
from fabula.rules import CLUE_MAX, MODES, RulesError, Ruleset
from fabula.store.owners import Line
from fabula.store.pictures import PictureStore, deck_of_card

from .backends import describe, open_backends
from .config import Config
from .connections import CLOSE_BAD_ORIGIN, CLOSE_REASONS, CLOSE_RECONNECT, CLOSE_TOO_MANY, Connection, TokenBucket
from .deck_sharing import DeckSharing
from .entries import TIMER_RANGE
from .errors import RoomCode
from .headers import SecurityHeaders
from .history import History
from .invite import Invite, invite_for
from .logs import quiet_client_mistakes
from .metrics import Metrics
from .pictures import PictureRoutes
from .protocol import ProtocolCode
from .responses import CARDS_ROUTE, error_response
from .room_settings import CHAT_MAX, COLOURS, NAME_MAX, seat_range
from .seats import RoomLimit
from .service import RoomService, settings_from

log = logging.getLogger("fabula.server")

#: The largest HTTP request body read (room settings, a name).
BODY_MAX = 16_384


class HttpCode(ErrorCode):
    """What only the HTTP routes refuse: the card pictures'."""

    BAD_WIDTH = "bad_width", 400, "The picture's width (`w`) is not a whole number of pixels.", Reach.HTTP
    NO_CARD = "no_card", 404, "There is no such card picture, or not in that format.", Reach.HTTP


def room_choices() -> dict[str, Any]:
    """What ``GET /api/modes`` answers: what a room can be, and the lists the client offers."""
    return {
        "modes": [
            {
                "name": mode.name,
                "summary": mode.summary,
                "seats": list(seat_range(mode.name)),
                "seat_counts": list(mode.seat_counts),
                # cards a deck needs at each seat count (hands and a table: the lobby says how many
                # more pictures a group's own deck needs)
                "cards_needed": [Ruleset.create(mode.name, seats).cards_needed for seats in mode.seat_counts],
            }
            for mode in MODES.values()
        ],
        "colours": list(COLOURS),
        # the lobby's order: the levels that read the clue, weakest first, then the one that plays blind
        "bot_levels": sorted(BOT_LEVELS, key=lambda level: level == "random"),
        "default_bot_level": DEFAULT_BOT_LEVEL,
        "languages": [{"code": code, "name": name} for code, name in LANGUAGE_NAMES.items()],
        "timer_seconds": list(TIMER_RANGE),
        # characters, as the server counts them after cleaning (a longer one is refused)
        "text_max": {"name": NAME_MAX, "clue": CLUE_MAX, "chat": CHAT_MAX},
    }


#: Where the client's page carries `room_choices`.
CHOICES_SLOT = '<script type="application/json" id="choices"></script>'


def client_page() -> str:
    """index.html with what ``/api/modes`` answers written into it: the client reads its lists
    from there, so its first paint (the language menu in the header, too) waits for no request."""
    page = resources.files("fabula.web").joinpath("index.html").read_text(encoding="utf-8")
    if page.count(CHOICES_SLOT) != 1:
        raise RuntimeError(f"fabula/web/index.html must hold {CHOICES_SLOT} once")
    # "<" escaped: nothing in the JSON can end the script element early
    choices = json.dumps(room_choices(), ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return page.replace(CHOICES_SLOT, CHOICES_SLOT.replace("><", f">{choices}<"))


def client_address(request: Request | WebSocket) -> str:
    return request.client.host if request.client else "unknown"


def create_app(
    config: Config, *, clock: Callable[[], float] = time.time, rng: random.Random | None = None
) -> Starlette:
    """The server for ``config``; its state lives in ``app.state.service``. ``clock`` and ``rng``
    (room codes, seeds) are for tests and documentation that need a reproducible server."""
    quiet_client_mistakes()
    library = DeckLibrary(config.data, builtin=[original_deck()])
    cards = CardFiles(library)
    metrics = Metrics()
    service = RoomService(config, library, metrics, clock=clock, rng=rng)

    def picture_store() -> PictureStore:
        backends = service.backends
        if backends is None or backends.pictures is None:
            raise RuntimeError("the server has no picture store")
        return backends.pictures

    pictures = PictureRoutes(lambda: service.rooms, picture_store, config, service.now)
    sharing = DeckSharing(pictures)
    history = History(pictures, cards, service.now, lambda request: invite(request).base)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await service.start(await open_backends(config))
        log.info("serving", extra={"backends": describe(config)})
        app.state.service = service
        yield
        # (uvicorn has closed every connection by now: no upload waits for the worker)
        await pictures.worker.stop()
        await service.stop()

    async def read_json(request: Request) -> dict[str, Any]:
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

    def invite(request: Request) -> Invite:
        url = request.url
        return invite_for(config.public_url, config.host, url.scheme, url.hostname, url.port)

    def join_url(request: Request, code: str) -> str:
        return f"{invite(request).base}/join/{code}"

    def refused(error: RulesError) -> JSONResponse:
        metrics.errors.labels(error.code).inc()
        if isinstance(error, RoomLimit) and error.retry_after is not None:
            retry = str(max(1, error.retry_after))
            return error_response(error.code, error.message, headers={"Retry-After": retry}, retry_after=int(retry))
        return error_response(error.code, error.message)

    async def create_room(request: Request) -> Response:
        try:
            body = await read_json(request)
            settings = settings_from(body.get("settings"))
            address = client_address(request)
            seat = await service.seats.requests.once(
                address,
                body.get("request"),
                lambda: service.seats.create_room(settings, body.get("name"), body.get("colour"), address),  # type: ignore[arg-type]
            )
        except RulesError as error:
            return refused(error)
        await service.claim(seat.code)
        return JSONResponse(
            {
                "code": seat.code,
                "member": seat.member,
                "token": seat.token,
                "join_url": join_url(request, seat.code),
                "invite": invite(request).to_json(seat.code),
            },
            status_code=201,
        )

    async def room_summary(request: Request) -> Response:
        try:
            summary = await service.seats.summary(request.path_params["code"])
        except RulesError as error:
            return refused(error)
        found = invite(request)
        return JSONResponse(
            {**summary, "join_url": join_url(request, summary["code"]), "invite": found.to_json(summary["code"])}
        )

    async def join_room(request: Request) -> Response:
        try:
            body = await read_json(request)
            seat = await service.seats.requests.once(
                client_address(request),
                body.get("request"),
                lambda: service.seats.join(
                    request.path_params["code"],
                    body.get("name"),  # type: ignore[arg-type]
                    body.get("colour"),  # type: ignore[arg-type]
                    body.get("replaces"),
                ),
            )
        except RulesError as error:
            return refused(error)
        return JSONResponse({"code": seat.code, "member": seat.member, "token": seat.token}, status_code=201)

    async def room_qr(request: Request) -> Response:
        try:
            code = (await service.rooms.find(request.path_params["code"])).room.code
        except RulesError as error:
            return refused(error)
        qr = segno.make(join_url(request, code), error="m")
        out = io.BytesIO()
        if request.path_params["kind"] == "svg":
            qr.save(out, kind="svg", scale=8, border=2, xmldecl=False)
            media = "image/svg+xml"
        else:
            qr.save(out, kind="png", scale=8, border=2)
            media = "image/png"
        return Response(out.getvalue(), media_type=media, headers={"Cache-Control": "no-cache"})

    async def room_log(request: Request) -> Response:
        try:
            return JSONResponse(await service.seats.finished_log(request.path_params["code"]))
        except RulesError as error:
            return refused(error)

    async def modes(request: Request) -> Response:
        return JSONResponse(room_choices())

    async def decks(request: Request) -> Response:
        return JSONResponse(
            {
                "decks": [
                    {"name": deck.name, "title": deck.title, "cards": len(deck.cards), "described": deck.described}
                    for deck in library.decks()
                ]
            }
        )

    async def card_file(request: Request) -> Response:
        card_id, kind = request.path_params["card"], request.path_params["kind"]
        if kind not in ("svg", "webp", "png"):
            return error_response(HttpCode.NO_CARD, "Cards come as .svg, .webp or .png.")
        if deck_of_card(card_id) is not None:
            return await room_picture(request, card_id, kind)
        try:
            width = int(request.query_params.get("w", "400"))
            found = await run_in_threadpool(cards.get, card_id, kind, width)
        except ValueError:
            return error_response(HttpCode.BAD_WIDTH, "w is a number of pixels.")
        except DeckError as error:
            return error_response(HttpCode.NO_CARD, error.message)
        etag = f'"{found.fingerprint}"'
        headers = {"ETag": etag, "Cache-Control": "public, max-age=86400"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(found.data, media_type=found.media_type, headers=headers)

    async def room_picture(request: Request, card_id: str, kind: str) -> Response:
        """A room's own picture: its stored WebP at every width. Its URL is the secret (an
        unguessable deck name), so it is cached by the browser only, never by a shared proxy."""
        data = await picture_store().image(card_id) if kind == "webp" else None
        if data is None:
            return error_response(HttpCode.NO_CARD, f'There is no picture "{card_id}" (as {kind}).')
        etag = f'"{hashlib.sha256(data).hexdigest()[:12]}"'
        headers = {"ETag": etag, "Cache-Control": "private, max-age=86400"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(data, media_type="image/webp", headers=headers)

    async def healthz(request: Request) -> Response:
        health: dict[str, Any] = {"status": "ok", "rooms": len(service.rooms.held)}
        backends = service.backends
        if backends is not None and backends.shared:
            # Still "ok" while the bus is down: this process serves its clients, the store keeps
            # them consistent, and taking every process out at once would be worse.
            health |= {"store": "postgresql", "bus": "redis", "bus_connected": backends.bus_connected}
        return JSONResponse(health)

    async def metrics_page(request: Request) -> Response:
        if service.backends is not None:
            metrics.bus_connected.set(1 if service.backends.bus_connected else 0)
        return Response(metrics.render(), media_type="text/plain; version=0.0.4")

    page = client_page()

    async def index(request: Request) -> Response:
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def room_cards(request: Request) -> Response:
        """The descriptions of a room's cards: the pictures' alt text (and what bots read)."""
        try:
            room = (await service.rooms.find(request.path_params["code"])).room
            own = await service.own_cards(room.code) if OWN_DECK in room.settings.decks else ()
            found = library.cards(room.settings.decks, own)
        except RulesError as error:
            return refused(error)
        except DeckError as error:
            return error_response(RoomCode.BAD_DECKS, error.message, route=CARDS_ROUTE)
        return JSONResponse(
            {
                "cards": [
                    {"id": card.id, "title": card.title, "description": card.description, "tags": list(card.tags)}
                    for card in found
                ]
            }
        )

    def origin_allowed(websocket: WebSocket) -> bool:
        """A browser always sends Origin: it must be this server (or one configured); a client
        without Origin is not a browser, so no other site's page can be riding on it."""
        origin = websocket.headers.get("origin")
        if origin is None:
            return True
        origin = origin.rstrip("/")
        if origin in config.allow_origin:
            return True
        if config.public_url and origin == _origin_of(config.public_url):
            return True
        return urlsplit(origin).netloc == websocket.headers.get("host")

    async def play_socket(websocket: WebSocket) -> None:
        # Refusals accept first and then close with a code: a browser cannot read the status of
        # a refused handshake, but it can read a close code and reason.
        if not origin_allowed(websocket):
            metrics.errors.labels("bad_origin").inc()
            await websocket.accept()
            await websocket.close(code=CLOSE_BAD_ORIGIN, reason=CLOSE_REASONS[CLOSE_BAD_ORIGIN])
            return
        address = client_address(websocket)
        if not service.admit(address):
            metrics.errors.labels("too_many_connections").inc()
            await websocket.accept()
            await websocket.close(code=CLOSE_TOO_MANY, reason=CLOSE_REASONS[CLOSE_TOO_MANY])
            return
        connection = Connection(
            address,
            TokenBucket(config.messages_per_second, config.message_burst),
            TokenBucket(config.chat_messages_per_second, config.chat_burst),
        )
        connection.code = websocket.path_params["code"].upper()
        await websocket.accept()
        relaying = Relaying(connection)
        line = await service.relay(connection, relaying)
        if line is not None:
            await _relay(websocket, connection, service, relaying, line)
            return
        sender = asyncio.create_task(_send_forever(websocket, connection))
        closing: int | None = None
        try:
            closing = await service.converse(connection, functools.partial(_receive, websocket))
        except WebSocketDisconnect:
            pass
        finally:
            service.release(connection)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender
            with contextlib.suppress(Exception):  # the client may be gone already
                for data in connection.outbox.drain():  # e.g. the error that explains the close
                    await websocket.send_text(data.decode())
                if closing is not None:
                    await websocket.close(code=closing, reason=CLOSE_REASONS[closing])

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/join/{code}", index),
            Route("/room/{code}", index),
            Route("/room/{code}/board", index),
            Route("/rules", index),
            Route("/album/{code}/{secret}", index),
            Mount(
                "/static", StaticFiles(directory=str(resources.files("fabula.web").joinpath("static"))), name="static"
            ),
            Route("/api/rooms", create_room, methods=["POST"]),
            Route("/api/rooms/{code}", room_summary),
            Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
            Route("/api/rooms/{code}/qr.{kind:str}", room_qr),
            Route("/api/rooms/{code}/log", room_log),
            Route(CARDS_ROUTE, room_cards),
            *sharing.routes(),  # first: its …/pictures/link is no picture's card id
            *pictures.routes(),
            *history.routes(),
            Route("/api/modes", modes),
            Route("/api/decks", decks),
            Route("/cards/{card}.{kind}", card_file),
            Route("/healthz", healthz),
            Route("/metrics", metrics_page),
            WebSocketRoute("/ws/{code}", play_socket),
        ],
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders), Middleware(GZipMiddleware, minimum_size=1024)],
    )
    app.state.service = service
    app.state.config = config
    app.state.pictures = pictures
    return app


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def _send_forever(websocket: WebSocket, connection: Connection) -> None:
    while True:
        data = await connection.outbox.get()
        await websocket.send_text(data.decode())


async def _receive(websocket: WebSocket) -> bytes | str | None:
    """The client's next message; None once it has left."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    data: bytes | str | None = message.get("text")
    return data if data is not None else message.get("bytes") or b""


#: what a relayed connection's outbox holds last, once the owner closed it (`Relaying`)
_SHUT = b"(shut)"  # (compared by identity: a message that came in is never this object)


class Relaying:
    """This process's end of a connection it relays to its room's owner (`RoomService.relay`):
    what the owner sends goes into the connection's outbox, then, once the owner closes it (or
    is gone), the close."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.closing = CLOSE_RECONNECT

    def received(self, data: bytes, state: bool) -> None:
        self.connection.outbox.put(data, is_state=state)

    def ended(self, code: int | None) -> None:
        self.closing = CLOSE_RECONNECT if code is None else code
        self.connection.outbox.put(_SHUT)


async def _relay(
    websocket: WebSocket, connection: Connection, service: RoomService, relaying: Relaying, line: Line
) -> None:
    """Pass a client connection on to its room's owner until either side closes it."""
    sender = asyncio.create_task(_send_relayed(websocket, connection, relaying))
    # the owner refuses what is over its limit by the first bytes alone: a peer link never
    # carries more than that
    limit = service.config.max_message_bytes + 1
    try:
        while (message := await _receive(websocket)) is not None:
            data = (message.encode() if isinstance(message, str) else message)[:limit]
            if service.paced(connection, data):
                line.inbound(data)
    except WebSocketDisconnect:
        pass
    finally:
        service.unrelay(line)
        service.release(connection)
        if not sender.done():
            sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


async def _send_relayed(websocket: WebSocket, connection: Connection, relaying: Relaying) -> None:
    while (data := await connection.outbox.get()) is not _SHUT:
        await websocket.send_text(data.decode())
    code = relaying.closing
    await websocket.close(code=code, reason=CLOSE_REASONS.get(code, ""))


__all__ = ["create_app"]
