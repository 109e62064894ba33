"""Keeping step with the other processes of a deployment, behind one small interface the server
calls whatever the deployment: `Solo` for one process (nothing to ask, relay or follow), `Shared`
for several (``--database`` with ``--redis``).

- `following`: the held rooms kept in step with what the others store, and who is connected
  through them (presence), and the shared sweep of idle rooms;
- `owners`: which process makes a room's entries (a Redis key), asking it over a peer link;
- `links`: the peer links and their frames;
- `relay`: both ends of a client connection passed on whole to its room's owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

import msgspec

from fabula import protocol as p
from fabula.errors import CommonCode, ErrorCode
from fabula.rules import RulesError
from fabula.rules.errors import RuleCode
from fabula.store import Lease, RedisPresence, StoredEntry

from ..config import Config
from ..connections import Connection
from ..errors import RoomCode
from ..live_room import Listener, LiveRoom
from ..metrics import Metrics
from ..rooms import Rooms
from .following import Following
from .links import Answer, Ask, Line, Peer
from .owners import RoomOwners
from .relay import Hosted, Serving

log = logging.getLogger("fabula.server")

#: a refusal's code as the owner of a room sends it back, to the code this process refuses with
ERROR_CODES: dict[str, ErrorCode] = {
    code.value: code for codes in (RuleCode, RoomCode, p.ProtocolCode, CommonCode) for code in codes
}


class Served(Serving, Protocol):
    """The conversation, as the cluster serves the others with it: the changes they ask this
    process to make, and the connections they relay to it."""

    async def asked(self, ask: Ask) -> Answer: ...


class Solo:
    """One process: every room is held here; nothing to ask, relay or follow."""

    #: what hears of the held rooms' changes on the cluster's behalf (`Rooms.listeners`, first)
    listeners: tuple[Listener, ...] = ()

    async def start(self, served: Served) -> None:
        del served

    async def claim(self, code: str) -> None:
        """Own room ``code``, just created here."""
        del code

    async def relay(self, connection: Connection, end: Peer) -> Line | None:
        """The line to pass ``connection`` (not greeted yet) on to its room's owner, if another
        process owns the room (``end`` hears the owner); None: serve it here."""
        del connection, end
        return None

    def unrelay(self, line: Line) -> None:
        """A relayed connection's client left."""
        del line

    async def ask_owner(self, live: LiveRoom, member: int, message: p.AnyClientMessage) -> int | None:
        """The seq of the entry ``message`` makes, if another process owns the room and made it
        (`RulesError` if it refused); None: make it here."""
        del live, member, message
        return None

    async def greeting(self, live: LiveRoom) -> None:
        """A client says hello to room ``live``."""
        del live

    def changed_here(self, code: str) -> None:
        """Someone connected to room ``code`` here, or went."""
        del code

    async def retire(self) -> None:
        """The server is stopping (the others take this one's rooms now)."""

    async def stop(self) -> None:
        pass


class Shared(Solo):
    """Several processes on one store, in step through Redis; with room ``owners`` (None:
    ``--room-owners no``), one process makes each room's entries and, with ``config.relay``,
    serves its connections."""

    def __init__(
        self,
        rooms: Rooms,
        presence: RedisPresence,
        lease: Lease | None,
        *,
        owners: RoomOwners | None,
        config: Config,
        metrics: Metrics,
        clock: Callable[[], float],
        hears: Callable[[], bool],
    ) -> None:
        self.rooms, self.owners, self.config, self.metrics = rooms, owners, config, metrics
        self.following = Following(rooms, presence, config, clock, lease, hears=hears)
        self.listeners = (self.following,)
        self._served: Served | None = None
        #: the tasks serving the connections other processes relay here
        self._hosted: set[asyncio.Task[None]] = set()

    async def start(self, served: Served) -> None:
        self._served = served
        if self.owners is not None:
            self.owners.holds = self.rooms.held.__contains__
            await self.owners.start(served.asked, self._host if self.config.relay else None)
        self.following.start()

    async def sweep(self) -> list[str]:
        return await self.following.sweep()

    # ------------------------------------------------------------------ owners

    async def claim(self, code: str) -> None:
        """Its connections to other processes are then relayed to this one, which holds it
        already, and the rooms' owners are spread as their creations are (a round-robin balancer:
        evenly) instead of going to whichever process's first connection asked first."""
        if self.owners is not None:
            await self.owners.owner(code)  # (a new code: nobody owns it, so this process takes it)

    async def relay(self, connection: Connection, end: Peer) -> Line | None:
        owners, code = self.owners, connection.code
        if owners is None or not self.config.relay or code is None:
            return None
        owner = await owners.owner(code)
        if owner is None or owner == owners.me:
            return None
        line = await owners.relay(owner, code, connection.address, end)
        if line is None:
            return None
        self.metrics.relayed.set(owners.relayed)
        held = self.rooms.held.get(code)
        if held is not None and not held.presence.connections:
            # held for an HTTP request (a join) only: following it would apply every entry again
            self.rooms.unload(code)
        return line

    def unrelay(self, line: Line) -> None:
        if self.owners is not None:
            self.owners.unrelay(line)
            self.metrics.relayed.set(self.owners.relayed)

    def _host(self, code: str, address: str, line: Line) -> Peer:
        """A connection to room ``code`` that another process relays to this one, the owner."""
        assert self._served is not None
        assert self.owners is not None
        hosted = Hosted(
            self._served, code, address, line, config=self.config, metrics=self.metrics, ended=self.owners.unhost
        )
        self._hosted.add(hosted.serving)
        hosted.serving.add_done_callback(self._hosted.discard)
        return hosted

    async def ask_owner(self, live: LiveRoom, member: int, message: p.AnyClientMessage) -> int | None:
        owners, code = self.owners, live.room.code
        if owners is None:
            return None
        owner = await owners.owner(code)
        if owner is None or owner == owners.me:
            return None
        answer = await owners.ask(owner, code, member, msgspec.json.encode(message), live.room.seq)
        if answer is None:  # the owner cannot be asked (gone, Redis away, no answer): the store decides
            self.metrics.owner_unreachable.inc()
            return None
        self.metrics.sent_to_owner.inc()
        if answer.error is not None:
            raise RulesError(ERROR_CODES.get(answer.error, p.ProtocolCode.INTERNAL), answer.text)
        assert answer.seq is not None
        # the client's next look at the room must show its own change
        await self.rooms.caught_up_to(live, StoredEntry.ending_at(answer.seq, answer.entries), answer.seq)
        return answer.seq

    # ------------------------------------------------------------------ presence, life cycle

    async def greeting(self, live: LiveRoom) -> None:
        # A process that died between storing an entry and announcing it leaves the others
        # behind without a notice: a client coming over from it must find its last move here.
        await self.rooms.catch_up(live)

    def changed_here(self, code: str) -> None:
        self.following.changed_here(code)

    async def retire(self) -> None:
        """The others take this one's rooms (and its clients relayed here) now, while it finishes
        what is under way."""
        if self.owners is not None:
            await self.owners.retire()

    async def stop(self) -> None:
        await self.following.stop()
        for task in self._hosted:
            task.cancel()
        for task in list(self._hosted):
            with contextlib.suppress(asyncio.CancelledError):
                await task


__all__ = ["ERROR_CODES", "Answer", "Ask", "Line", "Peer", "RoomOwners", "Served", "Shared", "Solo"]
