"""A client's conversation with its room: the one door for a client's message.

    socket → `Conversation.handle` (validate, rate-limit) → `commands.entry_for` (authorise, make
    the entry; pure) → `Rooms.commit` (apply, store, publish) → listeners

With several processes, a change to a room another process owns is made there
(`Cluster.ask_owner`), and the changes the others ask of this one come in through `asked`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections.abc import Awaitable, Callable

from fabula import protocol as p
from fabula.cards.library import OWN_DECK, DeckLibrary
from fabula.cards.model import Card
from fabula.errors import CommonCode, ErrorCode
from fabula.rules import RulesError
from fabula.story import Album

from . import commands
from .ballots import Ballots, watcher_of
from .cluster import Answer, Ask, Solo
from .config import Config
from .connections import CLOSE_NO_HELLO, CLOSE_NO_ROOM, HELLO_SECONDS, Admission, Connection
from .entries import Returned
from .errors import RoomCode, RoomError
from .fanout import FanOut
from .live_room import LiveRoom
from .metrics import Metrics
from .own_deck import OwnCards
from .room import Room
from .rooms import Rooms
from .seats import token_hash
from .sound_owners import SoundOwner, no_sounds

log = logging.getLogger("fabula.server")

INTERNAL_TEXT = "The server failed on that message; it was not applied."
RATE_LIMITED_TEXT = "Too many messages; slow down."


class Conversation:
    def __init__(
        self,
        config: Config,
        library: DeckLibrary,
        metrics: Metrics,
        rooms: Rooms,
        fanout: FanOut,
        *,
        cluster: Solo,
        own_cards: OwnCards,
        clock: Callable[[], float],
        rng: Callable[[], random.Random],
        sound_owner: SoundOwner = no_sounds,
    ) -> None:
        self.config, self.library, self.metrics, self.rooms, self.fanout = config, library, metrics, rooms, fanout
        #: the model bots a host may add here (every process of a deployment is given the same)
        self.model_bot_names = frozenset(config.model_bots)
        self.cluster, self.own_cards, self.clock, self.rng = cluster, own_cards, clock, rng
        self.sound_owner = sound_owner
        self.admission = Admission(config.max_connections_per_address, metrics)
        #: the audience's votes on their way into the rooms' logs
        self.ballots = Ballots(rooms, clock, self._refuse)

    # ------------------------------------------------------------------ a connection's life

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False if it already holds too many."""
        return self.admission.admit(address)

    def release(self, connection: Connection, *, admitted: bool = True) -> None:
        """Forget a closed connection (``admitted``: counted against its address here)."""
        if admitted:
            self.admission.release(connection.address)
        connection.close()
        live = None if connection.code is None else self.rooms.held.get(connection.code)
        if live is None:
            return
        if live.presence.depart(connection, self.clock()):
            self.rooms.refreshed(live)  # the others see the rabbit go grey
        elif connection.watcher is not None and connection.greeted:
            self.fanout.audience_changed(live)  # (one smaller number, soon)
        if connection.greeted:
            self.cluster.changed_here(live.room.code)

    async def converse(
        self, connection: Connection, receive: Callable[[], Awaitable[bytes | str | None]]
    ) -> int | None:
        """Answer every message ``receive`` brings from ``connection``'s client until it leaves
        (None), or until the connection must be closed: its close code."""
        loop = asyncio.get_running_loop()
        hello_by = loop.time() + HELLO_SECONDS
        while True:
            if connection.greeted:
                data = await receive()
            else:
                try:
                    data = await asyncio.wait_for(receive(), hello_by - loop.time())
                except TimeoutError:
                    return CLOSE_NO_HELLO
            if data is None:
                return None
            await self.handle(connection, data)
            if not connection.greeted and connection.code not in self.rooms.held:
                return CLOSE_NO_ROOM

    def paced(self, connection: Connection, data: bytes | str) -> bool:
        """Whether a relayed connection's client keeps to its message rate; if not, it is told
        so here and the message goes no further. (The owner checks the rate too, but it cannot
        slow down the reading of a socket on another process: this is where a flood stops.)"""
        if connection.bucket.take():
            return True
        self.metrics.messages.inc()
        self._refuse(connection, p.guess_id(data), p.ProtocolCode.RATE_LIMITED, RATE_LIMITED_TEXT)
        return False

    # ------------------------------------------------------------------ one message

    async def handle(self, connection: Connection, data: bytes | str) -> None:
        """Answer one message; never raises for anything the client sent."""
        self.metrics.messages.inc()
        started = time.perf_counter()
        message_id: str | None = None
        try:
            limit = self.config.max_message_bytes
            # a str is measured in UTF-8 bytes (up to 4 per character) unless it is clearly small
            if len(data) > limit or (isinstance(data, str) and len(data) * 4 > limit and len(data.encode()) > limit):
                raise p.BadMessage(
                    p.ProtocolCode.TOO_LARGE, f"A message has at most {self.config.max_message_bytes} bytes."
                )
            if not connection.bucket.take():
                raise p.BadMessage(p.ProtocolCode.RATE_LIMITED, RATE_LIMITED_TEXT, p.guess_id(data))
            message = p.decode_client(data)
            message_id = message.id
            await self._dispatch(connection, message)
        except p.BadMessage as refused:
            self._refuse(connection, refused.message_id or message_id, refused.code, refused.message)
        except RulesError as refused:
            self._refuse(connection, message_id, refused.code, refused.message)
        except Exception:  # a bug of ours: answer, log it, and keep the connection and the room
            log.exception("message failed", extra={"room": connection.code, "member": connection.member})
            self._refuse(connection, message_id, p.ProtocolCode.INTERNAL, INTERNAL_TEXT)
        else:
            if isinstance(message, p.Act):
                self.metrics.actions.inc()
                self.metrics.action_seconds.observe(time.perf_counter() - started)

    def _refuse(self, connection: Connection, message_id: str | None, code: ErrorCode, text: str) -> None:
        self.metrics.errors.labels(code).inc()
        connection.send(p.Error(message_id, code, text))

    async def _dispatch(self, connection: Connection, message: p.AnyClientMessage) -> None:
        if isinstance(message, p.Hello):
            await self._hello(connection, message)
            return
        if not connection.greeted or connection.code is None:
            raise RoomError(RoomCode.HELLO_FIRST, "Say hello (with your seat token, or none to watch) first.")
        if isinstance(message, p.Ping):
            connection.send(p.Pong(message.id))
            return
        live = self.rooms.live(connection.code)
        room = live.room
        member = connection.member
        if isinstance(message, p.GetAlbum):
            connection.send(p.AlbumPage(message.id, album_for(room, member, message.game)))
            return
        if isinstance(message, p.CrowdVote):
            self.ballots.vote(live, connection, message)
            return
        if member is None:
            raise RoomError(RoomCode.SPECTATOR, "Spectators only watch.")
        if isinstance(message, p.Legal):
            seat = room.seat_of(member)
            game = room.game
            actions = [] if game is None or seat is None or room.paused else game.legal_actions(seat)
            connection.send(p.LegalMoves(message.id, [action.to_json() for action in actions]))
            return
        done = await self.rooms.made_before(live, (member, message.id))
        if done is not None:  # a re-sent message: it was made once, it is not made again
            connection.send(p.Ack(message.id, done))
            return
        if isinstance(message, p.Say) and not connection.chat_bucket.take():
            raise RoomError(RoomCode.CHAT_RATE_LIMITED, "That is a lot of chat; wait a moment.")
        assert isinstance(message, (*commands.COMMANDS, p.Rematch))
        seq = await self.cluster.ask_owner(live, member, message)
        if seq is None:
            seq = await self._make_here(live, member, message)
        connection.send(p.Ack(message.id, seq))

    async def _make_here(self, live: LiveRoom, member: int, message: p.AnyClientMessage) -> int:
        assert isinstance(message, (*commands.COMMANDS, p.Rematch))
        room = live.room
        own: tuple[Card, ...] = ()
        if isinstance(message, p.ChangeSettings | p.Start | p.Rematch):  # (not on a move's path)
            dealt = message.settings.decks if isinstance(message, p.ChangeSettings) else room.settings.decks
            own = await self.own_cards(room.code) if OWN_DECK in dealt else ()
        models = self.model_bot_names
        sound = commands.clue_sound(message)
        sound_by = None if sound is None else await self.sound_owner(room.code, sound)
        context = commands.Context(
            member, self.clock(), self.library, lambda: self.rng().getrandbits(63), own, models, sound_by
        )
        return await self.rooms.commit(live, functools.partial(commands.entry_for, message, context))

    async def asked(self, ask: Ask) -> Answer:
        """A change another process's client asked for, in a room this process owns."""
        try:
            live = await self.rooms.find(ask.code)
            message = p.decode_client(ask.message)
            if not isinstance(message, (*commands.COMMANDS, p.Rematch)):
                raise p.BadMessage(CommonCode.MALFORMED, "That message does not change a room.")
            done = await self.rooms.made_before(live, (ask.member, message.id))
            seq = done if done is not None else await self._make_here(live, ask.member, message)
            self.metrics.made_for_others.inc()
        except (RulesError, p.BadMessage) as refused:
            return Answer(ask.request, error=refused.code, text=refused.message)
        except Exception:
            log.exception("asked change failed", extra={"room": ask.code, "member": ask.member})
            return Answer(ask.request, error=p.ProtocolCode.INTERNAL, text=INTERNAL_TEXT)
        return Answer(ask.request, seq=seq, entries=self.rooms.recent_entries(live, ask.since, seq))

    # ------------------------------------------------------------------ hello

    async def _hello(self, connection: Connection, message: p.Hello) -> None:
        if connection.greeted:
            raise RoomError(RoomCode.ALREADY_GREETED, "This connection has said hello already.")
        assert connection.code is not None
        live = await self.rooms.find(connection.code)
        await self.cluster.greeting(live)
        room = live.room
        member = None
        if message.audience is not None and message.token is not None:
            raise p.BadMessage(CommonCode.MALFORMED, "An audience member holds no seat: send token null.", message.id)
        watcher = None if message.audience is None else watcher_of(message.audience)
        if message.token is not None:
            hashed = token_hash(message.token)
            found = room.member_by_token_hash(hashed)
            if found is None and hashed in room.removed_tokens:  # (its page was closed when it happened)
                raise RoomError(RoomCode.REMOVED, "The host removed you from this room.")
            if found is None:
                raise RoomError(RoomCode.BAD_TOKEN, "That seat token is not valid in this room.")
            member = found.id
        connection.member, connection.greeted, connection.watcher = member, True, watcher
        returning = live.presence.arrive(connection, message.language)
        if member is not None:
            live.wake.set()
        self.cluster.changed_here(room.code)
        standing = None
        if watcher is not None:
            round_number = 0 if room.game is None else room.game.round
            standing = connection.standing = room.crowd.standing(watcher.id, watcher.name, round_number)
            self.fanout.audience_changed(live)
        connection.send(p.Welcome(message.id, member, self.fanout.chat_for(live, member), standing))
        if member is not None and room.members[member].away and await self._back_at_the_table(live, member):
            return  # (the entry's states went to everyone, this connection included)
        if returning:
            self.fanout.states(live)  # everyone sees the rabbit light up, this connection included
        else:
            connection.send_state(self.fanout.state_for(live, member))

    async def _back_at_the_table(self, live: LiveRoom, member: int) -> bool:
        """A member who had left the game said hello: they play their seat again (logged, so that
        a restart keeps it). Whether the entry was made."""
        try:
            await self.rooms.commit(live, Returned(at=self.clock(), by=member, member=member))
        except RulesError as error:  # back already (through another process), or the room is gone
            log.info("return not logged", extra={"room": live.room.code, "code": error.code})
            return False
        return True


def album_for(room: Room, member: int | None, number: int | None) -> Album | None:
    """Game ``number``'s album (None: the latest) for ``member``; a spectator (None) sees only the
    latest game, the one they could watch."""
    latest = room.album(len(room.albums)) if room.albums else None
    if number is None or (latest is not None and number == latest.number):
        return latest
    album = room.album(number) if member is not None else None
    if album is None:
        why = "this room has no such game" if member is not None else "a spectator sees only the latest game"
        raise RoomError(RoomCode.NO_GAME, f"No album of game {number}: {why}.")
    return album
