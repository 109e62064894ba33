"""The cards' pictures over HTTP: an original card drawn at any width (SVG, WebP or PNG), and a
room's own pictures as they were stored (WebP).

    GET /cards/{card}.{svg|webp|png}?w=400
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fabula.cards.files import CardFiles
from fabula.cards.library import DeckError
from fabula.errors import ErrorCode, Reach
from fabula.store.pictures import PictureStore, deck_of_card

from .responses import error_response


class HttpCode(ErrorCode):
    """What only the HTTP routes refuse: the card pictures'."""

    BAD_WIDTH = "bad_width", 400, "The picture's width (`w`) is not a whole number of pixels.", Reach.HTTP
    NO_CARD = "no_card", 404, "There is no such card picture, or not in that format.", Reach.HTTP


class CardRoutes:
    def __init__(self, cards: CardFiles, pictures: Callable[[], PictureStore]) -> None:
        self.cards, self.pictures = cards, pictures

    def routes(self) -> list[Route]:
        return [Route("/cards/{card}.{kind}", self.card_file)]

    async def card_file(self, request: Request) -> Response:
        card_id, kind = request.path_params["card"], request.path_params["kind"]
        if kind not in ("svg", "webp", "png"):
            return error_response(HttpCode.NO_CARD, "Cards come as .svg, .webp or .png.")
        if deck_of_card(card_id) is not None:
            return await self.room_picture(request, card_id, kind)
        try:
            width = int(request.query_params.get("w", "400"))
            found = await run_in_threadpool(self.cards.get, card_id, kind, width)
        except ValueError:
            return error_response(HttpCode.BAD_WIDTH, "w is a number of pixels.")
        except DeckError as error:
            return error_response(HttpCode.NO_CARD, error.message)
        etag = f'"{found.fingerprint}"'
        headers = {"ETag": etag, "Cache-Control": "public, max-age=86400"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(found.data, media_type=found.media_type, headers=headers)

    async def room_picture(self, request: Request, card_id: str, kind: str) -> Response:
        """A room's own picture: its stored WebP at every width. Its URL is the secret (an
        unguessable deck name), so it is cached by the browser only, never by a shared proxy."""
        data = await self.pictures().image(card_id) if kind == "webp" else None
        if data is None:
            return error_response(HttpCode.NO_CARD, f'There is no picture "{card_id}" (as {kind}).')
        etag = f'"{hashlib.sha256(data).hexdigest()[:12]}"'
        headers = {"ETag": etag, "Cache-Control": "private, max-age=86400"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(data, media_type="image/webp", headers=headers)
