"""Seats: making a room and taking a seat in one (the HTTP side), and what anyone may read of a room.

A seat is a member number and the secret token that takes it; only the token's hash is logged.
Creating and joining are made once per client request id (`Requests`): a double tap, or a retry
after a lost answer, gets the same seat again instead of a second one.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fabula import protocol as p
from fabula.cards.library import DeckError, DeckLibrary
from fabula.errors import CommonCode
from fabula.protocol.settings import RoomSettings

from .asks import Ask
from .config import Config
from .entries import Asked, Created, Joined
from .errors import RoomCode, RoomError
from .holding import CODE_ALPHABET, CODE_LENGTH
from .live_room import LiveRoom
from .room import Room
from .room_settings import COLOURS, NAME_MAX
from .rooms import Rooms

log = logging.getLogger("fabula.server")

#: A room counts toward its creator's address limit while someone is in it, and this long after.
IN_USE_SECONDS = 10 * 60
#: How long the answer to a create or join request is kept, to answer the same request again
#: (a double tap, a retry after a lost answer) with the same seat instead of a second one.
REQUEST_SECONDS = 10 * 60
#: Streamer mode: an address may ask to join a room this many times in `ASK_WINDOW` seconds (a
#: request turned away is not asked again and again).
ASKS_PER_ADDRESS = 3
ASK_WINDOW = 10 * 60


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Seat:
    """What joining hands back: the member number and the secret that takes the seat."""

    code: str
    #: None while it is a request to join waiting for the host (streamer mode)
    member: int | None
    token: str
    #: streamer mode: the number of the request to join the token waits with
    ask: int | None = None


class RoomLimit(RoomError):
    """Too many rooms in use from one address; ``retry_after``: seconds until one frees, if known."""

    def __init__(self, code: RoomCode, message: str, retry_after: int | None) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after


class Requests:
    """The seats made for recent client requests, by (address, request id)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._made: dict[tuple[str, str], tuple[float, asyncio.Future[Seat]]] = {}

    async def once(self, address: str, request: object, make: Callable[[], Awaitable[Seat]]) -> Seat:
        """The seat ``make`` gives, made once per ``request`` (a client's id for one tap of a
        button): the same request again gets the same seat, even while the first is still being
        made. No request id: made every time."""
        if not isinstance(request, str) or not 0 < len(request) <= p.ID_MAX:
            return await make()
        now = self.clock()
        for key, (at, _) in list(self._made.items()):
            if now - at > REQUEST_SECONDS:
                del self._made[key]
        key = (address, request)
        known = self._made.get(key)
        if known is None:
            known = (now, asyncio.ensure_future(make()))
            self._made[key] = known
        task = known[1]
        try:
            return await asyncio.shield(task)
        except BaseException:
            if task.done():  # a refusal is not remembered: the client may fix the request and try again
                self._made.pop(key, None)
            raise


class Seats:
    def __init__(
        self,
        rooms: Rooms,
        config: Config,
        library: DeckLibrary,
        *,
        clock: Callable[[], float],
        rng: Callable[[], random.Random],
        opened: Callable[[LiveRoom], None],
        tokens: Callable[[], str] = new_token,
    ) -> None:
        self.rooms, self.config, self.library, self.clock, self.rng = rooms, config, library, clock, rng
        #: makes each seat's secret token
        self.tokens = tokens
        #: called with every room this process makes (its scheduler starts)
        self.opened = opened
        self.requests = Requests(clock)
        #: when each (address, room) asked to join lately (streamer mode)
        self._asked: dict[tuple[str, str], list[float]] = {}

    # ------------------------------------------------------------------ the address limit

    def rooms_in_use(self, address: str) -> list[LiveRoom]:
        """The rooms ``address`` created that are in use: someone is in them, or was lately."""
        now = self.clock()
        return [live for live in self.rooms.held.values() if live.created_by == address and self._in_use(live, now)]

    @staticmethod
    def _in_use(live: LiveRoom, now: float) -> bool:
        presence = live.presence
        return bool(
            presence.connections
            or presence.remote
            or now - max(presence.idle_since, live.room.last_at) < IN_USE_SECONDS
        )

    def _check_room_limit(self, address: str) -> None:
        in_use = self.rooms_in_use(address)
        limit = self.config.max_rooms_per_address
        if len(in_use) < limit:
            return
        now = self.clock()
        frees = [
            max(live.presence.idle_since, live.room.last_at) + IN_USE_SECONDS
            for live in in_use
            if not live.presence.connections and not live.presence.remote
        ]
        if frees:
            minutes = max(1, round((min(frees) - now) / 60))
            when = f"the next one frees in about {minutes} minute{'s' if minutes != 1 else ''}"
        else:
            minutes = IN_USE_SECONDS // 60
            when = f"one frees {minutes} minutes after everyone has left it"
        raise RoomLimit(
            RoomCode.TOO_MANY_ROOMS,
            f"This network already has {len(in_use)} rooms in use (at most {limit}); {when}.",
            round(min(frees) - now) if frees else None,
        )

    # ------------------------------------------------------------------ creating and joining

    async def create_room(self, settings: RoomSettings, name: str, colour: str, address: str) -> Seat:
        """A new room with its creator seated as host."""
        self._check_room_limit(address)
        now = self.clock()
        try:
            self.library.cards(settings.decks)
        except DeckError as error:
            raise RoomError(RoomCode.BAD_DECKS, error.message) from None
        token = self.tokens()
        created = Created(at=now, settings=settings)
        host = Joined(at=now, member=0, name=name, colour=colour, token_hash=token_hash(token))
        probe = Room("PROBE")  # refused here, before a code is taken
        probe.apply(created)
        probe.apply(host)
        store = self.rooms.store
        for _ in range(100):
            code = "".join(self.rng().choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms.held and await store.create_room(code, now):
                break
        else:  # pragma: no cover - 20 million codes
            raise RoomError(RoomCode.NO_CODE, "No free room code was found; try again.")
        live = LiveRoom(Room(code), created_by=address)
        live.presence.idle_since = now
        self.rooms.hold(live)
        try:
            await self.rooms.commit(live, created)
            await self.rooms.commit(live, host)
        except BaseException:  # a room without its host is not a room: forget it entirely
            self.rooms.held.pop(code, None)
            await store.delete_room(code)
            raise
        self.opened(live)
        live.presence.joined(0, now)
        log.info("room created", extra={"room": code, "mode": settings.mode, "address": address})
        return Seat(code, 0, token)

    async def join(
        self,
        code: str,
        name: str,
        colour: str,
        replaces: int | None = None,
        former_token: object = None,
        *,
        address: str = "",
    ) -> Seat:
        """A seat in room ``code``: a new one before the game, or — ``replaces`` — the seat of a
        bot (or of someone who left for good) during it. ``former_token``: a seat token this
        browser held in the room before; one of a player the host removed is refused a seat.
        In streamer mode, a request to join instead (``Seat.ask``; no member yet), at most
        `ASKS_PER_ADDRESS` in `ASK_WINDOW` from one ``address``."""
        if replaces is not None and (type(replaces) is not int or not 0 <= replaces <= p.NUMBER_MAX):
            raise RoomError(CommonCode.MALFORMED, "replaces is the number of the member whose seat you take over.")
        if former_token is not None and not isinstance(former_token, str):
            raise RoomError(CommonCode.MALFORMED, "former_token is the seat token this browser held in the room.")
        live = await self.rooms.find(code)
        token = self.tokens()
        now = self.clock()

        made: list[Joined | Asked] = []

        def joined(room: Room) -> Joined | Asked:
            if former_token and token_hash(former_token) in room.removed_tokens:
                raise RoomError(RoomCode.REMOVED_HERE, "The host removed you from this room: you may watch it.")
            if room.settings.streamer and room.host is not None:
                self._check_asks(address, room.code, now)
                made.append(
                    Asked(
                        at=now,
                        ask=room.asks.next_number,
                        name=name,
                        colour=colour,
                        token_hash=token_hash(token),
                        replaces=replaces,
                    )
                )
                return made[-1]
            made.append(
                Joined(
                    at=now,
                    member=room.next_member,
                    name=name,
                    colour=colour,
                    token_hash=token_hash(token),
                    replaces=replaces,
                )
            )
            return made[-1]

        await self.rooms.commit(live, joined)
        last = made[-1]  # (the last one made: a retry on a changed room makes it again)
        if isinstance(last, Asked):
            self._asked.setdefault((address, live.room.code), []).append(now)
            log.info("asked to join", extra={"room": live.room.code, "ask": last.ask})
            return Seat(live.room.code, None, token, ask=last.ask)
        live.presence.joined(last.member, now)
        log.info("joined", extra={"room": live.room.code, "member": last.member})
        return Seat(live.room.code, last.member, token)

    def _check_asks(self, address: str, code: str, now: float) -> None:
        """`RoomError` ``too_many_asks`` if ``address`` asked to join ``code`` too often lately (a
        request refused before it was made does not count)."""
        for key, times in list(self._asked.items()):
            times[:] = [at for at in times if now - at < ASK_WINDOW]
            if not times:
                del self._asked[key]
        if len(self._asked.get((address, code), ())) >= ASKS_PER_ADDRESS:
            raise RoomError(
                RoomCode.TOO_MANY_ASKS,
                f"This network asked to join {ASKS_PER_ADDRESS} times in {ASK_WINDOW // 60} minutes; wait a while.",
            )

    async def ask_status(self, code: str, token: object) -> dict[str, Any]:
        """What became of the request to join made with seat ``token`` (streamer mode): ``waiting``,
        ``approved`` (with the ``member`` the token now takes), ``refused``, or ``dropped`` (the game
        started first); `RoomError` ``no_ask`` if the token made none here."""
        room = (await self.rooms.find(code)).room
        ask: Ask | None = room.asks.by_token_hash(token_hash(token)) if isinstance(token, str) and token else None
        if ask is None:
            raise RoomError(RoomCode.NO_ASK, "This token asked to join this room never (or the room forgot).")
        found: dict[str, Any] = {"code": room.code, "ask": ask.number, "status": ask.state}
        if ask.member is not None:
            found["member"] = ask.member
        return found

    # ------------------------------------------------------------------ read-only

    async def summary(self, code: str) -> dict[str, Any]:
        """What anyone with the code may know before joining."""
        room = (await self.rooms.find(code)).room
        return {
            "code": room.code,
            "status": room.status,
            "mode": room.settings.mode,
            "members": [{"name": m.name, "colour": m.colour, "bot": m.bot} for m in room.members.values()],
            "free_colours": room.free_colours(),
            "colours": list(COLOURS),
            "name_max": NAME_MAX,
            "seats_max": room.seats_max,
            #: no seat for a newcomer now: every one is taken, or the game is on with no seat to take over
            "full": len(room.members) >= room.seats_max if room.status == "lobby" else not room.open_seats(),
            #: streamer mode: a join is a request the host answers
            "streamer": room.settings.streamer,
            "open_seats": [
                {"member": m.id, "name": m.name, "colour": m.colour, "bot": m.bot} for m in room.open_seats()
            ],
        }

    async def finished_log(self, code: str) -> dict[str, Any]:
        """The public record of a room's last finished game: who sat where and every move."""
        room = (await self.rooms.find(code)).room
        if room.status != "over" or room.game is None:
            raise RoomError(RoomCode.NOT_OVER, "A game's log is readable once it is over.")
        return {
            "code": room.code,
            "mode": room.settings.mode,
            "options": room.game.rules.options.to_json(room.game.mode),
            "seats": [{"name": room.members[m].name, "colour": room.members[m].colour} for m in room.seating],
            "actions": [action.to_json() for action in room.game.log],
            "outcome": None if room.game.outcome is None else room.game.outcome.to_json(),
            "scores": list(room.game.scores),
        }
