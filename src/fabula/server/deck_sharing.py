"""A room's own pictures taken elsewhere: downloaded as a zip, or handed on by a secret link.

    GET    /api/rooms/{code}/pictures.zip        any member → the deck as a zip (below)
    POST   /api/rooms/{code}/pictures/link       host → {"link": "<secret>", "url": "/#deck-link=<secret>"}
    DELETE /api/rooms/{code}/pictures/link       host → 204: the link names nothing any more
    POST   /api/rooms/{code}/pictures/from-link  host, {"link": "…"} → 201 [result], as an upload

The zip holds the pictures as ``001.webp``, ``002.webp``, … in the deck's order (numbered by
place, not by card id: an id has gaps where pictures were removed, and the original file names
may say more than their owner meant to share), and a ``captions.csv`` (``file,description``).
It is the format both ways: uploaded back into any room, or imported with ``fabula deck import``,
it gives the same pictures with the same captions. It is written to a spooled temporary file one
picture at a time (a big deck goes to disk, not memory) and then streamed.

A link is a secret of 192 random bits kept with the deck: asked again, the host gets the same
one, until they revoke it. Whoever holds it may, as host of another room, copy the deck's
pictures and captions into that room's deck (a picture the deck has already is skipped as in
an upload — compared by likeness, `fabula.cards.likeness`, in the picture worker — naming the
picture it copies, and the deck's limit holds). The ``url`` carries the link in its
fragment, which browsers never send to a server, so it stays out of access logs and Referer
headers; the page reads it from there.

How long a link works: as long as its deck exists. A linked deck outlives its room — when the
room is deleted the deck is detached from it and kept ``linked_deck_seconds`` more (a week by
default; `fabula.server.sweep`) — so the link can still fill a room made later, or by a friend.
Copying takes the pictures as they are at that moment; later changes to either deck stay there.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
import zipfile
from collections.abc import AsyncIterator
from typing import IO, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from fabula.cards.captions import CAPTIONS_FILE, captions_csv
from fabula.cards.importer import copies
from fabula.errors import CommonCode
from fabula.store.pictures import DeckFull, NoDeck, StoredPicture

from .pictures import PictureCode, PictureRoutes, Refused, skipped, twin_json

#: A deck's zip is kept in memory up to this size, on disk past it (a full deck is ~50 MB).
SPOOL_BYTES = 8 * 2**20
#: The zip is streamed in chunks of this size.
CHUNK_BYTES = 256 * 2**10
#: What the url of a link carries it as, in its fragment.
LINK_FRAGMENT = "deck-link="
_LINK = re.compile(r"[A-Za-z0-9_-]{16,64}")


class DeckSharing:
    """The routes that take a room's pictures elsewhere, on the `PictureRoutes`' store and checks."""

    def __init__(self, pictures: PictureRoutes) -> None:
        self.pictures = pictures

    def routes(self) -> list[Route]:
        """Before the picture routes in the app: ``DELETE …/pictures/link`` would otherwise be
        taken for the removal of a picture called ``link``."""
        base, answered = "/api/rooms/{code}/pictures", self.pictures.answered
        return [
            Route(base + ".zip", answered(self.download), methods=["GET"]),
            Route(base + "/link", answered(self.make_link), methods=["POST"]),
            Route(base + "/link", answered(self.revoke_link), methods=["DELETE"]),
            Route(base + "/from-link", answered(self.from_link), methods=["POST"]),
        ]

    # ------------------------------------------------------------------ the zip

    async def download(self, request: Request) -> Response:
        caller = await self.pictures.caller(request)
        store, code = self.pictures.store(), caller.live.room.code
        deck = await store.room_deck(code)
        pictures = [] if deck is None else await store.pictures(deck)
        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 - closed by _streamed
        try:
            size = await self._write_zip(spool, pictures)
        except BaseException:
            spool.close()
            raise
        headers = {
            "Content-Disposition": f'attachment; filename="fabula-{code}-pictures.zip"',
            "Content-Length": str(size),
            "Cache-Control": "private, no-store",
        }
        return StreamingResponse(_streamed(spool), media_type="application/zip", headers=headers)

    async def _write_zip(self, spool: IO[bytes], pictures: list[StoredPicture]) -> int:
        """The deck's zip written to ``spool``, one picture in memory at a time; its size."""
        store = self.pictures.store()
        width = max(3, len(str(len(pictures))))  # names that sort in the deck's order
        rows: list[tuple[str, str]] = []
        with zipfile.ZipFile(spool, "w") as archive:
            for picture in pictures:
                data = await store.image(picture.card)
                if data is None:  # removed meanwhile
                    continue
                name = f"{len(rows) + 1:0{width}d}.webp"
                # stored, not deflated: WebP is compressed already
                await asyncio.to_thread(archive.writestr, name, data, zipfile.ZIP_STORED)
                rows.append((name, picture.caption))
            archive.writestr(CAPTIONS_FILE, captions_csv(rows), zipfile.ZIP_DEFLATED)
        size = spool.tell()
        spool.seek(0)
        return size

    # ------------------------------------------------------------------ the link

    async def make_link(self, request: Request) -> Response:
        caller = await self.pictures.host(request)
        store = self.pictures.store()
        deck = await store.room_deck(caller.live.room.code)
        link = None if deck is None else await store.link(deck)
        if link is None:  # no deck is made for a link: there would be nothing to hand on
            raise Refused(PictureCode.NO_PICTURES, "The room has no pictures of its own yet; upload some first.")
        return JSONResponse({"link": link, "url": f"/#{LINK_FRAGMENT}{link}"})

    async def revoke_link(self, request: Request) -> Response:
        caller = await self.pictures.host(request)
        store = self.pictures.store()
        deck = await store.room_deck(caller.live.room.code)
        if deck is not None:
            await store.unlink(deck)
        return Response(status_code=204)  # no link either way: asking twice is no mistake

    async def from_link(self, request: Request) -> Response:
        caller = await self.pictures.host(request)
        self.pictures.count_upload(request)
        link = _link_in(await _json_body(request))
        store, config = self.pictures.store(), self.pictures.config
        source = None if link is None else await store.linked(link)
        if source is None:
            raise Refused(PictureCode.NO_DECK_LINK, "No deck has that link: it was revoked, or its room is long gone.")
        deck, existing = await self.pictures.deck_to_fill(caller.live.room.code)
        named = {picture.card: picture.name for picture in existing}
        offered = await store.pictures(source)
        twins = await self.pictures.worker.run(
            copies, [(p.phash, p.name) for p in offered], [(p.phash, p.card) for p in existing]
        )
        room_left = config.max_deck_pictures - len(existing)
        chosen: list[StoredPicture] = []
        answers: list[dict[str, Any]] = []
        for picture, twin in zip(offered, twins, strict=True):
            if twin is not None:
                twin_name, twin_card = twin
                answer = skipped(picture.name, f"same picture as {twin_name}", "duplicate")
                if twin_card:  # (one copied just now has no card yet: the browser shows no pair)
                    answer["twin"] = twin_json(named[twin_card], twin_card)
                answers.append(answer)
            elif len(chosen) >= room_left:
                answers.append(self.pictures.no_room_for(picture.name))
            else:
                chosen.append(picture)
                answers.append({"name": picture.name, "status": "taken"})
        try:
            copied = await store.copy(
                source, [p.card for p in chosen], deck, self.pictures.now(), config.max_deck_pictures
            )
        except DeckFull:  # an upload filled it meanwhile
            raise self.pictures.deck_full() from None
        except NoDeck:  # the room was deleted meanwhile
            raise Refused(PictureCode.NO_PICTURES, "The room's deck is gone.") from None
        results = iter(copied)
        for answer in answers:
            if answer["status"] == "taken":
                stored = next(results)
                if stored is None:
                    answer.update(status="skipped", reason="removed from the linked deck meanwhile", code="unreadable")
                else:
                    answer["card"] = stored.card
        return JSONResponse(answers, status_code=201)


async def _json_body(request: Request) -> Any:
    try:
        return await request.json()
    except ValueError:
        raise Refused(CommonCode.MALFORMED, 'Send {"link": "…"} as JSON.') from None


def _link_in(body: Any) -> str | None:
    """The secret in ``{"link": …}``: the link itself or a url carrying it; None if it cannot be one."""
    if not isinstance(body, dict) or not isinstance(body.get("link"), str):
        raise Refused(CommonCode.MALFORMED, 'Send {"link": "…"} as JSON.')
    text: str = body["link"].strip()
    secret = text.rpartition(LINK_FRAGMENT)[2]
    return secret if _LINK.fullmatch(secret) else None


async def _streamed(spool: IO[bytes]) -> AsyncIterator[bytes]:
    try:
        while chunk := await asyncio.to_thread(spool.read, CHUNK_BYTES):
            yield chunk
    finally:
        spool.close()
