"""The ASGI application: the server's parts assembled, each with its routes (`room_routes`,
`pictures`, `deck_sharing`, `history`, `pages`, `card_routes`, `operations`, `play_socket`).

HTTP (JSON):
    POST /api/rooms                 {settings?, name, colour} → {code, member, token, join_url}
    GET  /api/rooms/{code}          who is there, which colours are free
    POST /api/rooms/{code}/join     {name, colour} → {code, member, token}
    GET  /api/rooms/{code}/qr.svg   the join link as a QR code (also qr.png)
    GET  /api/rooms/{code}/log      the moves of its finished game
    /api/rooms/{code}/games         its finished games, their albums, pictures and share links
    /api/albums/{code}/{secret}     … an album by its share link (see `fabula.server.history`)
    /api/rooms/{code}/pictures      the room's own pictures (see `fabula.server.pictures`)
    /api/rooms/{code}/sounds        the storytellers' recorded clues (see `fabula.server.sounds`)
    /api/rooms/{code}/pictures.zip  … downloaded, linked, copied (see `fabula.server.deck_sharing`)
    GET  /api/modes, /api/decks     what a room can be
    GET  /cards/{card}.{svg|webp|png}?w=400
    GET  /healthz, /metrics
WebSocket:
    /ws/{code}                      see `fabula.protocol`
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Protocol

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.routing import BaseRoute

from fabula.cards.files import CardFiles
from fabula.cards.library import DeckLibrary
from fabula.cards.original import original_deck
from fabula.store.pictures import PictureStore
from fabula.store.sounds import SoundStore

from .backends import describe, open_backends
from .card_routes import CardRoutes
from .config import Config
from .deck_sharing import DeckSharing
from .headers import SecurityHeaders
from .history import History
from .logs import quiet_client_mistakes
from .metrics import Metrics
from .operations import Operations
from .pages import Pages
from .pictures import PictureRoutes
from .play_socket import PlaySocket
from .room_routes import RoomRoutes, invite
from .seats import new_token
from .service import RoomService
from .sounds import SoundRoutes

log = logging.getLogger("fabula.server")


class Part(Protocol):
    """A part of the server that answers at some paths."""

    def routes(self) -> Sequence[BaseRoute]: ...


def create_app(
    config: Config,
    *,
    clock: Callable[[], float] = time.time,
    rng: random.Random | None = None,
    tokens: Callable[[], str] = new_token,
) -> Starlette:
    """The server for ``config``; its state lives in ``app.state.service``. ``clock``, ``rng`` (room
    codes, seeds) and ``tokens`` (seat tokens) are for tests and documentation that need a
    reproducible server."""
    quiet_client_mistakes()
    library = DeckLibrary(config.data, builtin=[original_deck()])
    cards = CardFiles(library)
    metrics = Metrics()
    service = RoomService(config, library, metrics, clock=clock, rng=rng, tokens=tokens)

    def picture_store() -> PictureStore:
        backends = service.backends
        if backends is None or backends.pictures is None:
            raise RuntimeError("the server has no picture store")
        return backends.pictures

    def invite_base(request: Request) -> str:
        return invite(config, request).base

    def sound_store() -> SoundStore:
        backends = service.backends
        if backends is None or backends.sounds is None:
            raise RuntimeError("the server has no sound store")
        return backends.sounds

    pictures = PictureRoutes(lambda: service.rooms, picture_store, config, service.now)
    sounds = SoundRoutes(pictures, sound_store, config, service.now)
    rooms = RoomRoutes(config, metrics, library, service)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await service.start(await open_backends(config))
        log.info("serving", extra={"backends": describe(config)})
        yield
        # (uvicorn has closed every connection by now: no upload waits for the worker)
        await pictures.worker.stop()
        await sounds.worker.stop()
        await service.stop()

    pages = Pages(library, list(config.model_bots.values()), config.model_bot_fallback)
    parts: list[Part] = [
        pages,
        rooms,
        DeckSharing(pictures),  # before the pictures: its …/pictures/link is no picture's card id
        pictures,
        sounds,
        History(pictures, cards, service.now, invite_base),
        CardRoutes(cards, picture_store),
        Operations(metrics, lambda: service.rooms, lambda: service.backends),
        PlaySocket(config, metrics, service),
    ]
    app = Starlette(
        routes=[route for part in parts for route in part.routes()],
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders), Middleware(GZipMiddleware, minimum_size=1024)],
        exception_handlers={404: pages.not_found},
    )
    app.state.service = service
    app.state.config = config
    app.state.pictures = pictures
    return app


__all__ = ["create_app"]
