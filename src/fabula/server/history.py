"""A room's finished games, their albums and the albums as pictures; share links to one album.

    GET  /api/rooms/{code}/games                           member → the finished games, newest first
    GET  /api/rooms/{code}/games/{number}                  member → the game's album (JSON)
    GET  /api/rooms/{code}/games/{number}/album.png        member → the album as a picture
    POST /api/rooms/{code}/games/{number}/share            member → 201 {"url", "path"}: a share link
    GET  /api/albums/{code}/{secret}                       anyone with the link → the album (JSON)
    GET  /api/albums/{code}/{secret}/album.png             anyone with the link → the picture

A member names their seat with ``Authorization: Bearer <seat token>``: without one the answer is
401, with another room's 403, and neither says anything of the room. ``album.png`` takes
``round`` (one round only) and ``lang`` (`en`, `zh-Hant`, `zh-Hans`; else the request's
Accept-Language, else English): the words of the picture are the reader's.

A share link is ``/album/{code}/{secret}``: 128 random bits made on demand, a new one per request.
The store keeps the album (a finished game's never changes) under the secret's SHA-256 only
(`EventStore.share_album`), so the link works on every process, after a restart, and after its
room is deleted: for ``shared_album_days`` (30 by default; `fabula.server.sweep` forgets older
ones). The room's own pictures go with their room, though: an album kept longer shows those
cards blank. An album holds only what every reveal showed the table (`fabula.story.album`).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Callable

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fabula.cards.files import CardFiles
from fabula.cards.library import DeckError
from fabula.errors import CommonCode
from fabula.store.pictures import deck_of_card
from fabula.story import Album
from fabula.story.picture import TooTall, cards_needed, render_album

from .errors import RoomCode, RoomError
from .live_room import LiveRoom
from .pictures import PictureRoutes, Refused

LANGUAGES = ("en", "zh-Hant", "zh-Hans")
#: The card width the picture is drawn from: its thumbnails are smaller (a card drawn the first
#: time costs ~45 ms at 200 px, ~165 ms at 400).
CARD_WIDTH = 200


def language_of(request: Request) -> str:
    """The picture's language: ``?lang=``, else the first of Accept-Language this server speaks."""
    asked = request.query_params.get("lang")
    if asked in LANGUAGES:
        return asked
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag in ("zh-hant", "zh-tw", "zh-hk", "zh-mo") or tag.startswith("zh-hant"):
            return "zh-Hant"
        if tag.startswith("zh"):
            return "zh-Hans"
        if tag.startswith("en"):
            return "en"
    return "en"


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class History:
    """The routes of a room's story, on the `PictureRoutes`' seat checks."""

    def __init__(
        self,
        pictures: PictureRoutes,
        cards: CardFiles,
        now: Callable[[], float],
        base_url: Callable[[Request], str],
    ) -> None:
        self.pictures, self.cards, self.now, self.base_url = pictures, cards, now, base_url

    def routes(self) -> list[Route]:
        answered = self.pictures.answered
        base = "/api/rooms/{code}/games"
        return [
            Route(base, answered(self.games)),
            Route(base + "/{number:int}", answered(self.album)),
            Route(base + "/{number:int}/album.png", answered(self.picture)),
            Route(base + "/{number:int}/share", answered(self.share), methods=["POST"]),
            Route("/api/albums/{code}/{secret}", answered(self.shared_album)),
            Route("/api/albums/{code}/{secret}/album.png", answered(self.shared_picture)),
        ]

    # ------------------------------------------------------------------ members

    async def games(self, request: Request) -> Response:
        caller = await self.pictures.caller(request)
        finished = reversed(caller.live.room.finished_albums())
        return JSONResponse(msgspec.to_builtins([album.summary() for album in finished]))

    async def album(self, request: Request) -> Response:
        caller = await self.pictures.caller(request)
        return JSONResponse(_album(caller.live, request.path_params["number"], finished=False).to_json())

    async def picture(self, request: Request) -> Response:
        caller = await self.pictures.caller(request)
        album = _album(caller.live, request.path_params["number"], finished=False)
        return await self._png(request, album, caller.live.room.code)

    async def share(self, request: Request) -> Response:
        caller = await self.pictures.caller(request)
        number = request.path_params["number"]
        album = _album(caller.live, number, finished=True)
        secret, code = secrets.token_urlsafe(16), caller.live.room.code
        await self.pictures.rooms().store.share_album(secret_hash(secret), code, msgspec.json.encode(album), self.now())
        path = f"/album/{code}/{secret}"
        return JSONResponse({"url": self.base_url(request) + path, "path": path}, status_code=201)

    # ------------------------------------------------------------------ anyone with a link

    async def shared_album(self, request: Request) -> Response:
        return JSONResponse((await self._shared(request)).to_json())

    async def shared_picture(self, request: Request) -> Response:
        return await self._png(request, await self._shared(request), request.path_params["code"].upper())

    async def _shared(self, request: Request) -> Album:
        """The album a share link names; one `no_game` answer for every wrong link."""
        found = await self.pictures.rooms().store.shared_album(secret_hash(request.path_params["secret"]))
        if found is None or found[0] != request.path_params["code"].upper():
            raise Refused(RoomCode.NO_GAME, "No album has that link (or it has expired).")
        return msgspec.json.decode(found[1], type=Album)

    # ------------------------------------------------------------------ the picture

    async def _png(self, request: Request, album: Album, code: str) -> Response:
        asked = request.query_params.get("round")
        number: int | None = None
        if asked is not None:
            if not asked.isdigit() or not 1 <= int(asked) <= len(album.rounds):
                raise Refused(CommonCode.MALFORMED, f"round is a revealed round's number, 1 to {len(album.rounds)}.")
            number = int(asked)
        language = language_of(request)
        needed = cards_needed(album, number)
        pictures = dict(zip(needed, await asyncio.gather(*(self._card(card) for card in needed)), strict=True))
        try:
            data = await asyncio.to_thread(render_album, album, pictures, language=language, round_number=number)
        except TooTall:
            raise Refused(
                RoomCode.ALBUM_TOO_TALL,
                f"{len(album.rounds)} rounds make too long a picture; take it a round at a time (?round=1 …).",
            ) from None
        name = f"fabula-{code}-{album.number}" + ("" if number is None else f"-round-{number}") + ".png"
        headers = {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "private, no-cache"}
        return Response(data, media_type="image/png", headers=headers)

    async def _card(self, card: str) -> bytes:
        """A card's picture: a room's own from the picture store, the others from the card files."""
        if deck_of_card(card) is not None:
            found = await self.pictures.store().image(card)
            return found if found is not None else b""
        try:
            return (await asyncio.to_thread(self.cards.get, card, "png", CARD_WIDTH)).data
        except DeckError:  # a deck the server no longer has: the picture draws a blank card
            return b""


def _album(live: LiveRoom, number: int, *, finished: bool) -> Album:
    album = live.room.album(number)
    if album is None or (finished and not album.finished):
        raise RoomError(RoomCode.NO_GAME, f"This room has no {'finished ' if finished else ''}game {number}.")
    return album
