"""A room's own pictures over HTTP: the host uploads, captions and removes them; every member
lists them. Each request names its seat with ``Authorization: Bearer <seat token>``.

    POST   /api/rooms/{code}/pictures                  multipart ``files`` (pictures or .zip) → 201 [result]
           (field or query ``keep_duplicates=1``: nothing is refused as a copy)
    GET    /api/rooms/{code}/pictures                  {deck, pictures: [{card, name, caption, url}], blind}
    DELETE /api/rooms/{code}/pictures/{card}           → 204
    PUT    /api/rooms/{code}/pictures/{card}/caption   {"caption": "…"} → the picture

An upload's result is a list, one line per file: ``{name, status: "taken", card}``, ``{name,
status: "skipped", reason, code}``, or — for a zip's own ``captions.csv``, whose captions its
pictures take — ``{name, status: "captions", captions: <how many>}``. A picture skipped as the same
picture as another (code ``duplicate``, `fabula.cards.likeness`) names it: ``twin: {name, card,
url}``, a picture already in the deck or one this upload took (``card`` and ``url`` are null if
the deck had no room left for it), so that the browser shows the pair; the host who keeps both
sends the file again with ``keep_duplicates=1``. The deck's zip, its link and copying a deck from
a link are `fabula.server.deck_sharing`'s routes.

The body of an upload is read as it streams in and refused past ``max_upload_bytes``; the files
are spooled to disk, made cards one at a time in a single worker process at the lowest priority
(so an upload of a hundred phone photos holds up neither the moves nor more than one picture's
worth of memory), and stored in one transaction: all of an upload's taken pictures, or none.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import shutil
import signal
import tempfile
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fabula.cards.intake import ImportLimits
from fabula.cards.uploads import Taken, take_files
from fabula.errors import CommonCode, ErrorCode, Reach
from fabula.rules.errors import RulesError
from fabula.store.pictures import DeckFull, NewPicture, PictureStore, StoredPicture
from fabula.text import TextRefused, caption_text

from .config import Config
from .live_room import LiveRoom
from .responses import error_response
from .rooms import Rooms
from .seats import token_hash

log = logging.getLogger("fabula.server")
T = TypeVar("T")


#: How long a stopping server lets its picture worker finish the picture it is making.
WORKER_STOP_SECONDS = 5.0
#: Linux's prctl(2) option: the signal a process gets when the thread that started it ends.
_PR_SET_PDEATHSIG = 1


def _in_the_background(server: int) -> None:
    """A picture worker yields the CPU to the server (moves first, pictures with what is left), is
    stopped by the server alone, and never outlives it."""
    # Ctrl+C in a terminal reaches the whole process group: the server finishes or cancels the
    # picture under way and stops the worker itself (`PictureWorker.stop`)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # ...and should the server die without stopping it (kill -9, out of memory), the kernel ends
    # the worker, and with it the last hold on multiprocessing's resource tracker
    with contextlib.suppress(AttributeError, OSError):  # Linux only
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != server:  # it died before prctl took effect
        os._exit(0)
    os.nice(19)
    with contextlib.suppress(AttributeError, OSError):  # Linux only
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


class PictureCode(ErrorCode):
    """What the picture routes refuse."""

    NO_TOKEN = "no_token", 401, "The request names no seat: send `Authorization: Bearer <seat token>`.", Reach.HTTP
    NOT_A_MEMBER = "not_a_member", 403, "The seat token is not one of this room's players.", Reach.HTTP
    HOST_ONLY = "host_only", 403, "Only the room's host may change its pictures.", Reach.HTTP
    NO_PICTURE = "no_picture", 404, "The room's deck has no such picture.", Reach.HTTP
    NO_PICTURES = "no_pictures", 404, "The room has no pictures of its own to link to.", Reach.HTTP
    NO_DECK_LINK = "no_deck_link", 404, "No deck has that link (it was revoked, or its room is long gone).", Reach.HTTP
    NO_FILES = "no_files", 400, "The upload holds no `files` field with a file in it.", Reach.HTTP
    UPLOAD_TOO_LARGE = "upload_too_large", 413, "The upload is larger than the server takes at once.", Reach.HTTP
    TOO_MANY_UPLOADS = "too_many_uploads", 429, "Too many uploads from this network in the last minute.", Reach.HTTP
    DECK_FULL = "deck_full", 400, "The room's deck holds as many pictures as it may.", Reach.HTTP
    STORE_FULL = "store_full", 507, "The server holds as many pictures (or decks) as it may.", Reach.HTTP
    BAD_CAPTION = "bad_caption", 400, "The caption is not one line of text of a sensible length.", Reach.HTTP


def _saved(files: list[UploadFile], folder: Path) -> list[tuple[str, str, int]]:
    """Each upload copied into ``folder``: (its name as uploaded, its path there, its size)."""
    saved = []
    for number, file in enumerate(files):
        path = folder / f"{number:04d}"
        file.file.seek(0)
        with path.open("wb") as out:
            shutil.copyfileobj(file.file, out, 2**20)
        saved.append((file.filename or "picture", str(path), path.stat().st_size))
    return saved


class PictureWorker:
    """One worker process for a server, started at the first upload: pictures are made one at a
    time whatever the number of uploads, outside the process that runs the event loop (decoding a
    12-megapixel photo holds a CPU for a quarter of a second; a thread would take it from the
    moves), at the lowest priority. Spawned, not forked: the server's threads and sockets stay
    where they are. The server stops it when it stops (`stop`)."""

    def __init__(self) -> None:
        self._executor: ProcessPoolExecutor | None = None

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the worker process."""
        if self._executor is None:
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=_in_the_background, initargs=(os.getpid(),)
            )
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    def pids(self) -> set[int]:
        """The worker's process id (none before the first upload, or once stopped)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return {process.pid for process in processes.values() if process.pid is not None}

    async def stop(self, timeout: float = WORKER_STOP_SECONDS) -> None:
        """End the worker process: the picture under way may finish within ``timeout`` seconds (an
        upload's request is over by now: the server waited for it), any queued are dropped; a
        worker still busy after that is killed."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # taken before shutdown forgets them; Python 3.14 has executor.kill_workers() for this
        processes = list(getattr(executor, "_processes", {}).values())
        stopping = asyncio.ensure_future(asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True))
        try:
            await asyncio.wait_for(asyncio.shield(stopping), timeout)
        except TimeoutError:
            log.warning("the picture worker did not stop in time; killed", extra={"seconds": timeout})
            for process in processes:
                process.kill()
            await stopping


def skipped(name: str, reason: str, code: str | None) -> dict[str, Any]:
    """One file's result in an upload's (or a copy's) answer, when it was passed over."""
    return {"name": name, "status": "skipped", "reason": reason, "code": code}


class Refused(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class _TooLarge(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Caller:
    live: LiveRoom
    member: int
    host: bool


class UploadsPerMinute:
    """How many uploads each address made in the last minute (kept per process)."""

    def __init__(self, most: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.most, self.clock = most, clock
        self._times: dict[str, deque[float]] = {}

    def allow(self, address: str) -> bool:
        now = self.clock()
        times = self._times.setdefault(address, deque())
        while times and times[0] <= now - 60:
            times.popleft()
        if len(times) >= self.most:
            return False
        times.append(now)
        return True


def picture_url(card: str) -> str:
    return f"/cards/{card}.webp"


def picture_json(picture: StoredPicture) -> dict[str, Any]:
    return {"card": picture.card, "name": picture.name, "caption": picture.caption, "url": picture_url(picture.card)}


def twin_json(name: str, card: str | None) -> dict[str, Any]:
    """The picture a skipped copy is the same as: its name, card id and URL (None if not stored)."""
    return {"name": name, "card": card, "url": picture_url(card) if card else None}


class PictureRoutes:
    def __init__(
        self, rooms: Callable[[], Rooms], store: Callable[[], PictureStore], config: Config, now: Callable[[], float]
    ) -> None:
        self.rooms, self.store, self.config, self.now = rooms, store, config, now
        self.limits = ImportLimits(max_bytes=config.max_picture_bytes, max_total_bytes=config.max_upload_bytes)
        self.uploads = UploadsPerMinute(config.uploads_per_minute)
        self.worker = PictureWorker()

    def routes(self) -> list[Route]:
        base = "/api/rooms/{code}/pictures"
        return [
            Route(base, self.answered(self.upload), methods=["POST"]),
            Route(base, self.answered(self.listing), methods=["GET"]),
            Route(base + "/{card}", self.answered(self.remove), methods=["DELETE"]),
            Route(base + "/{card}/caption", self.answered(self.caption), methods=["PUT"]),
        ]

    @staticmethod
    def answered(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        """``handler`` with its refusals answered as error bodies."""

        async def answered(request: Request) -> Response:
            try:
                response: Response = await handler(request)
            except Refused as refused:
                return error_response(refused.code, refused.message)
            except RulesError as error:  # no_room from the rooms
                return error_response(error.code, error.message)
            return response

        return answered

    # ------------------------------------------------------------------ who asks

    async def caller(self, request: Request) -> Caller:
        """Who sends ``request``: a member of the room it names, by seat token; `Refused` if nobody."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(PictureCode.NO_TOKEN, "Name your seat: Authorization: Bearer <seat token>.")
        live = await self.rooms().find(request.path_params["code"])
        member = live.room.member_by_token_hash(token_hash(token.strip()))
        if member is None:
            raise Refused(PictureCode.NOT_A_MEMBER, "That seat token is not one of this room's players.")
        return Caller(live, member.id, member.id == live.room.host)

    async def host(self, request: Request) -> Caller:
        """The room's host sending ``request``; `Refused` for anybody else."""
        caller = await self.caller(request)
        if not caller.host:
            raise Refused(PictureCode.HOST_ONLY, "Only the host adds, captions or removes the room's pictures.")
        return caller

    # ------------------------------------------------------------------ the routes

    async def listing(self, request: Request) -> Response:
        caller = await self.caller(request)
        deck = await self.store().room_deck(caller.live.room.code)
        pictures = [] if deck is None else await self.store().pictures(deck)
        return JSONResponse(
            {
                "deck": deck,
                "pictures": [picture_json(picture) for picture in pictures],
                # the bots read captions; without any they play these pictures blind
                "blind": bool(pictures) and not any(picture.caption for picture in pictures),
                "most": self.config.max_deck_pictures,
            }
        )

    async def upload(self, request: Request) -> Response:
        caller = await self.host(request)
        self.count_upload(request)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.config.max_upload_bytes:
            raise self._too_large()
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            raise Refused(CommonCode.MALFORMED, "Send the pictures as multipart/form-data, in fields named files.")
        parser = MultiPartParser(request.headers, self._limited(request.stream()), max_files=1000, max_fields=10)
        try:
            form = await parser.parse()
        except _TooLarge:
            raise self._too_large() from None
        except MultiPartException as error:
            raise Refused(CommonCode.MALFORMED, f"The upload cannot be read: {error.message}") from None
        try:
            files = [item for item in form.getlist("files") if isinstance(item, UploadFile)]
            if not files:
                raise Refused(PictureCode.NO_FILES, "Choose some pictures (or a .zip of them) to send, as files.")
            field = form.get("keep_duplicates")
            keep = field if isinstance(field, str) else request.query_params.get("keep_duplicates", "")
            return await self._take(caller, files, keep_copies=keep in {"1", "true"})
        finally:
            await form.close()

    def count_upload(self, request: Request) -> None:
        """Count an upload (or a deck copied from a link) from ``request``'s address; `Refused`
        past ``uploads_per_minute``."""
        address = request.client.host if request.client else "unknown"
        if not self.uploads.allow(address):
            raise Refused(PictureCode.TOO_MANY_UPLOADS, "That is a lot of uploads; wait a minute and send the rest.")

    async def deck_to_fill(self, code: str) -> tuple[str, list[StoredPicture]]:
        """Room ``code``'s deck — made now if it has none — and its pictures; `Refused` when the
        server holds as many decks or bytes of pictures as it may."""
        store = self.store()
        decks, stored_bytes = await store.usage()
        deck = await store.room_deck(code)
        if deck is None and decks >= self.config.max_picture_decks:
            raise Refused(PictureCode.STORE_FULL, "This server holds as many rooms' pictures as it may; try later.")
        if stored_bytes >= self.config.max_picture_store_bytes:
            raise Refused(PictureCode.STORE_FULL, "This server holds as many pictures as it may; try later.")
        deck = deck or await store.deck_of(code, self.now())
        return deck, await store.pictures(deck)

    def deck_full(self) -> Refused:
        return Refused(PictureCode.DECK_FULL, "The room's deck is full; remove some pictures first.")

    async def _take(self, caller: Caller, files: list[UploadFile], keep_copies: bool) -> Response:
        store = self.store()
        deck, existing = await self.deck_to_fill(caller.live.room.code)
        known = [(picture.phash, picture.card) for picture in existing]
        with tempfile.TemporaryDirectory(prefix="fabula-upload-") as folder:
            # the spooled files (in memory, or unnamed on disk) become named ones the worker opens
            saved = await asyncio.to_thread(_saved, files, Path(folder))
            results = await self.worker.run(take_files, saved, self.limits, known, keep_copies)
        room_left = self.config.max_deck_pictures - len(existing)
        keep: list[Taken] = []
        answers: list[dict[str, Any]] = []
        for result in results:
            if result.captions is not None:
                answers.append({"name": result.name, "status": "captions", "captions": result.captions})
            elif result.webp is None:
                answers.append(skipped(result.name, result.reason, result.code))
            elif len(keep) >= room_left:
                answers.append(self.no_room_for(result.name))
            else:
                keep.append(result)
                answers.append({"name": result.name, "status": "taken"})
        try:
            added = await store.add(
                deck,
                [NewPicture(r.name, r.webp, r.likeness, r.caption) for r in keep if r.webp is not None],
                self.now(),
                self.config.max_deck_pictures,
            )
        except DeckFull:  # another upload filled it meanwhile
            raise self.deck_full() from None
        cards = iter(added)
        for answer in answers:
            if answer["status"] == "taken":
                answer["card"] = next(cards).card
        in_deck = {picture.card: picture for picture in existing}
        for result, answer in zip(results, answers, strict=True):
            if result.twin_card in in_deck:
                answer["twin"] = twin_json(in_deck[result.twin_card].name, result.twin_card)
            elif result.twin_result is not None:
                twin = answers[result.twin_result]
                answer["twin"] = twin_json(twin["name"], twin.get("card"))
        return JSONResponse(answers, status_code=201)

    async def remove(self, request: Request) -> Response:
        caller = await self.host(request)
        deck = await self.store().room_deck(caller.live.room.code)
        if deck is None or not await self.store().remove(deck, request.path_params["card"]):
            raise Refused(PictureCode.NO_PICTURE, "The room's deck has no such picture.")
        return Response(status_code=204)

    async def caption(self, request: Request) -> Response:
        caller = await self.host(request)
        try:
            body = await request.json()
        except ValueError:
            raise Refused(CommonCode.MALFORMED, 'Send {"caption": "…"} as JSON.') from None
        if not isinstance(body, dict) or not isinstance(body.get("caption"), str):
            raise Refused(CommonCode.MALFORMED, 'Send {"caption": "…"} as JSON.')
        try:
            caption = caption_text(body["caption"], limit=self.limits.max_caption_chars)
        except TextRefused as refused:
            raise Refused(PictureCode.BAD_CAPTION, refused.message) from None
        store = self.store()
        deck = await store.room_deck(caller.live.room.code)
        card = request.path_params["card"]
        if deck is None or not await store.set_caption(deck, card, caption):
            raise Refused(PictureCode.NO_PICTURE, "The room's deck has no such picture.")
        picture = next(p for p in await store.pictures(deck) if p.card == card)
        return JSONResponse(picture_json(picture))

    # ------------------------------------------------------------------ limits

    def no_room_for(self, name: str) -> dict[str, Any]:
        """The result of a picture the deck has no room left for."""
        return skipped(name, f"the deck is full ({self.config.max_deck_pictures} pictures)", "deck_full")

    def _too_large(self) -> Refused:
        most = self.config.max_upload_bytes
        return Refused(PictureCode.UPLOAD_TOO_LARGE, f"An upload is at most {most:,} bytes; send fewer files at once.")

    async def _limited(self, stream: AsyncIterator[bytes]) -> AsyncGenerator[bytes, None]:
        """``stream``, stopped with `_TooLarge` as soon as it passes ``max_upload_bytes``."""
        seen = 0
        async for chunk in stream:
            seen += len(chunk)
            if seen > self.config.max_upload_bytes:
                raise _TooLarge
            yield chunk
