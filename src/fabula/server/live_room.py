"""A room as this process holds it (`LiveRoom`), what hears of its changes (`Listener`), and the
room its stored log makes (`replay`)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from fabula.store import StoredEntry

from .entries import AnyEntry, decode
from .errors import RoomCode, RoomError
from .presence import Presence
from .room import Room

if TYPE_CHECKING:
    from .fanout import CrowdDelivery

#: How many of its newest entries a room keeps as stored (`LiveRoom.recent`).
RECENT = 64


@dataclass(eq=False)
class LiveRoom:
    """A room this process holds: its state, who is here, and the tasks that serve it."""

    room: Room
    presence: Presence = field(default_factory=Presence)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: set whenever something may have changed what is due (the scheduler waits on it)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    scheduler: asyncio.Task[None] | None = None
    #: the address that created the room here (its rooms count toward that address's limit)
    created_by: str = ""
    #: the newest seq another process announced; a task (`follower`) catches up to it
    behind: int = -1
    follower: asyncio.Task[None] | None = None
    #: requests waiting for the room's lock, to be committed together by whoever gets it first
    requests: list[PendingCommit] = field(default_factory=list)
    #: set when memory may hold entries from this seq on that the store does not (an append
    #: failed and the store could not be read either): the room goes back to the store first
    stale_since: int | None = None
    #: the room's newest entries as stored (seq, bytes), made here or followed: what an owner
    #: sends back to a process that asked for one, which applies them without reading the store
    recent: deque[StoredEntry] = field(default_factory=lambda: deque(maxlen=RECENT))
    #: entries another process announced while the room was busy here, by seq: applied by the
    #: follower (`Rooms.catch_up`) instead of reading the store, if they follow on
    carried: dict[int, bytes] = field(default_factory=dict)
    #: the spectators' state as last encoded, and what it was made of (`FanOut.spectator_state`)
    spectator_state: tuple[object, bytes] | None = None
    #: a states' round due soon for the audience's numbers (`FanOut.audience_changed`)
    numbers_due: asyncio.TimerHandle | None = None
    #: what the audience's standings were last looked at for (`FanOut.standings_due`)
    standings_of: object = None
    #: the state on its way to the room's watchers, a slice a turn (`FanOut.states`)
    crowd_delivery: CrowdDelivery | None = None


@dataclass(eq=False, slots=True)
class PendingCommit:
    """A `Rooms.commit` waiting for its room: the entry (or how to make it) and its answer."""

    make: AnyEntry | Callable[[Room], AnyEntry]
    retry: bool
    done: asyncio.Future[int]


class Listener(Protocol):
    """What hears of every change to a held room."""

    async def loaded(self, live: LiveRoom) -> None:
        """Room ``live`` was just loaded from the store and is held from now on (in the order the
        listeners were added: the cluster first learns who is connected to it elsewhere)."""

    def entry(self, live: LiveRoom, entry: AnyEntry, *, here: bool) -> None:
        """``entry`` was applied: committed by this process (``here``) or followed
        from another (then `refreshed` comes once the batch is applied)."""

    def refreshed(self, live: LiveRoom) -> None:
        """The room, or who is in it, changed other than by one entry of this process's own."""


def replay(code: str, stored: list[StoredEntry]) -> Room | None:
    """The room its entries make; None if there are none."""
    if not stored:
        return None
    room = Room(code)
    for item in stored:
        room.apply(decode(item.data))
    return room


def no_room(code: str) -> RoomError:
    return RoomError(RoomCode.NO_ROOM, f"There is no room {code!r}; check the code.")


def store_failed() -> RoomError:
    return RoomError(RoomCode.STORE_FAILED, "The server could not save that; try again.")


def conflict() -> RoomError:
    return RoomError(RoomCode.CONFLICT, "Someone else changed the room at the same moment; try again.")
