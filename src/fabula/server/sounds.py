"""A storyteller's recorded clue over HTTP: recorded in the browser, sent here, kept with the room,
played by everyone who watches the table once the clue is given.

    POST /api/rooms/{code}/sounds          the recording as the body (any type) → 201 {sound, seconds}
    GET  /api/rooms/{code}/sounds/{sound}  → audio/mpeg

A recording is sent by the storyteller (``Authorization: Bearer <seat token>``, as the picture
routes) while the room waits for their clue, in a room whose ``sound_clues`` setting is on. The
server trusts nothing the browser says: the body is refused past `MOST_BYTES` as it streams in
(``sound_too_big``), then decoded in a worker process (`fabula.server.sound_clips`: not audio,
``not_audio``; longer than `MOST_SECONDS`, ``sound_too_long``) and kept as MP3 — or, refused,
not kept at all. The storyteller then names the sound in their ``tell`` (or ``blind_clue``),
which the room refuses for a sound that is not theirs in this room (``unknown_sound``).

Before the clue is given only the member who recorded a sound may fetch it (with their token);
once a clue names it, the sound is as public as the clue: its id, 128 random bits, reaches only
those the room shows the clue to (members, spectators, the TV, the audience), and the URL is
served to whoever has it, cached for a year (a sound never changes).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures.process import BrokenProcessPool

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fabula.errors import ErrorCode, Reach
from fabula.rules.errors import RuleCode
from fabula.rules.state import Phase
from fabula.store.sounds import NewSound, SoundStore, new_sound_id

from .config import Config
from .pictures import Caller, PictureCode, PictureRoutes, PictureWorker, Refused, UploadsPerMinute
from .room import Room
from .sound_clips import convert

log = logging.getLogger("fabula.server")

#: A recording is at most 1 MB as sent (10 s of Opus at a browser's bit rate is about 40 kB; WAV
#: from an odd browser would be ~900 kB) …
MOST_BYTES = 1_000_000
#: … and lasts at most 10 s, with half a second for the time a recorder takes to stop.
MOST_SECONDS = 10.0
TOLERANCE_SECONDS = 0.5
#: A recording is decoded within this long (a 10 s clip takes a fifth of a second; the first after a
#: start two seconds, the worker starting), or refused.
DECODE_SECONDS = 20.0
#: A room keeps at most this many recordings (each recorded again is kept too, until the room
#: goes): a game has at most a few dozen clues.
MOST_PER_ROOM = 300
#: Sent with a sound once its clue is given: its id is never used for other bytes.
PUBLIC_CACHE = "public, max-age=31536000, immutable"


class SoundCode(ErrorCode):
    """What the sound routes refuse."""

    SOUND_TOO_BIG = "sound_too_big", 413, "A recorded clue is at most 1 MB as sent.", Reach.HTTP
    SOUND_TOO_LONG = "sound_too_long", 400, "A recorded clue lasts at most 10 seconds.", Reach.HTTP
    NOT_AUDIO = "not_audio", 400, "The recording holds no sound that can be played.", Reach.HTTP
    NOT_STORYTELLER = "not_storyteller", 403, "Only the storyteller records a clue.", Reach.HTTP
    SOUND_CLUES_OFF = "sound_clues_off", 400, "The room's settings do not allow recorded clues.", Reach.HTTP
    NO_SOUND = "no_sound", 404, "The room has no such sound (or it may not be heard yet).", Reach.HTTP


def given(room: Room, sound: str) -> bool:
    """Whether a clue of ``room`` names ``sound``: the clue being played, or a revealed round's."""
    if room.game is not None and room.game.sound == sound:
        return True
    return any(result.sound == sound for album in room.albums for result in album.rounds)


def check_storyteller(room: Room, member: int) -> None:
    """`Refused` unless ``member`` is the storyteller and the room waits for their clue."""
    if not room.settings.sound_clues:
        raise Refused(SoundCode.SOUND_CLUES_OFF, "This room's settings do not allow recorded clues.")
    game = room.game
    if game is None or room.status != "playing" or game.phase is not Phase.CLUE or game.clue is not None:
        raise Refused(RuleCode.WRONG_PHASE, "A clue is recorded while the room waits for the storyteller's clue.")
    if room.seat_of(member) != game.storyteller:
        raise Refused(SoundCode.NOT_STORYTELLER, "Only the storyteller records a clue.")


class SoundRoutes:
    def __init__(
        self, pictures: PictureRoutes, store: Callable[[], SoundStore], config: Config, now: Callable[[], float]
    ) -> None:
        """``pictures``: who asks is found as for the pictures (`PictureRoutes.caller`)."""
        self.pictures, self.store, self.now = pictures, store, now
        self.uploads = UploadsPerMinute(config.uploads_per_minute)
        #: sounds are made in a worker of their own: a recorded clue never waits behind a deck's photos
        self.worker = PictureWorker()

    def routes(self) -> list[Route]:
        base = "/api/rooms/{code}/sounds"
        return [
            Route(base, PictureRoutes.answered(self.upload), methods=["POST"]),
            Route(base + "/{sound}", PictureRoutes.answered(self.play), methods=["GET"]),
        ]

    async def upload(self, request: Request) -> Response:
        caller = await self.pictures.caller(request)
        check_storyteller(caller.live.room, caller.member)
        address = request.client.host if request.client else "unknown"
        if not self.uploads.allow(address):
            raise Refused(PictureCode.TOO_MANY_UPLOADS, "That is a lot of recordings; wait a minute and record again.")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MOST_BYTES:
            raise self._too_big()
        data = await self._body(request.stream())
        try:
            clip = await asyncio.wait_for(
                self.worker.run(convert, data, MOST_SECONDS + TOLERANCE_SECONDS), DECODE_SECONDS
            )
        except (BrokenProcessPool, TimeoutError):
            # FFmpeg died on what was sent, or is stuck in it (decoding is kept out of the server's
            # process for that): the worker is ended, and a new one takes the next recording
            log.warning("the sound worker failed on a recording; started again", extra={"bytes": len(data)})
            await self.worker.stop(timeout=0.1)
            raise Refused(SoundCode.NOT_AUDIO, "That recording could not be decoded; record again.") from None
        if clip.refused == "sound_too_long":
            raise Refused(SoundCode.SOUND_TOO_LONG, f"A recorded clue lasts at most {MOST_SECONDS:g} seconds.")
        if clip.refused is not None or not clip.mp3:
            raise Refused(SoundCode.NOT_AUDIO, "That recording holds no sound that can be played; record again.")
        return await self._keep(caller, clip.mp3, clip.seconds)

    async def _keep(self, caller: Caller, mp3: bytes, seconds: float) -> Response:
        # the room as it is now: the clue may have been given (or the game ended) while converting
        check_storyteller(caller.live.room, caller.member)
        if len(await self.store().room_sounds(caller.live.room.code)) >= MOST_PER_ROOM:
            raise Refused(PictureCode.STORE_FULL, "This room holds as many recordings as it may.")
        sound = NewSound(caller.live.room.code, new_sound_id(), caller.member, mp3, seconds)
        await self.store().add(sound, self.now())
        return JSONResponse({"sound": sound.id, "seconds": seconds}, status_code=201)

    async def play(self, request: Request) -> Response:
        code, sound_id = request.path_params["code"], request.path_params["sound"]
        live = await self.pictures.rooms().find(code)
        sound = await self.store().sound(live.room.code, sound_id)
        if sound is None:
            raise Refused(SoundCode.NO_SOUND, "The room has no such sound.")
        if given(live.room, sound_id):
            cache = PUBLIC_CACHE
        else:  # not yet a clue: its recorder alone may listen (a browser plays its own recording anyway)
            caller = await self.pictures.caller(request)
            if caller.member != sound.member:
                raise Refused(SoundCode.NO_SOUND, "The room has no such sound that you may hear yet.")
            cache = "private, no-store"
        return Response(sound.mp3, media_type="audio/mpeg", headers={"Cache-Control": cache})

    def _too_big(self) -> Refused:
        return Refused(SoundCode.SOUND_TOO_BIG, f"A recorded clue is at most {MOST_BYTES:,} bytes as sent.")

    async def _body(self, stream: AsyncIterator[bytes]) -> bytes:
        """The request's body, refused as soon as it passes `MOST_BYTES`."""
        parts: list[bytes] = []
        seen = 0
        async for chunk in stream:
            seen += len(chunk)
            if seen > MOST_BYTES:
                raise self._too_big()
            parts.append(chunk)
        return b"".join(parts)
