"""Streamer mode's requests to join: who waits for the host's answer, and what became of each.

A request is logged (`Asked`) and answered in the log — let in with a `Joined` naming it, or
turned away (`AskRefused`) — so a host's reload, or a restarted server, shows the same requests,
and the asker's waiting page reads its answer from the room (`Seats.ask_status`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .entries import Asked, Joined
from .errors import RoomCode, RoomError

#: At most this many requests wait at once in a room (a flood would bury the host's lobby).
WAITING_MAX = 8

#: ``waiting`` for the host; ``approved`` (seated); ``refused`` by the host; ``dropped``: the game
#: started before the host let them into the lobby.
AskState = Literal["waiting", "approved", "refused", "dropped"]


@dataclass(slots=True)
class Ask:
    number: int
    name: str
    colour: str
    token_hash: str
    replaces: int | None
    state: AskState = "waiting"
    #: the member number they were seated as, once approved
    member: int | None = None


class RoomAsks:
    """A room's requests to join, by number (every one, answered or not: a page may still ask)."""

    def __init__(self) -> None:
        self.all: dict[int, Ask] = {}

    @property
    def next_number(self) -> int:
        return len(self.all)

    def waiting(self) -> list[Ask]:
        return [ask for ask in self.all.values() if ask.state == "waiting"]

    def by_token_hash(self, token_hash: str) -> Ask | None:
        """The latest request made with this seat token."""
        found = [ask for ask in self.all.values() if ask.token_hash == token_hash]
        return found[-1] if found else None

    def check_new(self, entry: Asked) -> None:
        """`RoomError` unless ``entry`` may wait: the next number, a free name and rabbit among
        those waiting, room for one more."""
        if entry.ask != self.next_number:
            raise RoomError(RoomCode.BAD_MEMBER, "Requests to join are numbered in order.")
        waiting = self.waiting()
        if len(waiting) >= WAITING_MAX:
            raise RoomError(
                RoomCode.TOO_MANY_ASKS, f"{WAITING_MAX} requests to join are waiting already; try again later."
            )
        for ask in waiting:
            if ask.name.casefold() == entry.name.casefold():
                raise RoomError(RoomCode.NAME_TAKEN, f"Someone called {ask.name} is waiting to join already.")
            if entry.replaces is None and ask.replaces is None and ask.colour == entry.colour:
                raise RoomError(RoomCode.COLOUR_TAKEN, f"Someone waiting to join asked for the {ask.colour} rabbit.")
            if entry.replaces is not None and ask.replaces == entry.replaces:
                raise RoomError(RoomCode.SEAT_TAKEN, "Someone is waiting to take over that seat already.")

    def add(self, entry: Asked, name: str) -> None:
        self.all[entry.ask] = Ask(entry.ask, name, entry.colour, entry.token_hash, entry.replaces)

    def check_answer(self, number: int) -> Ask:
        """The waiting request ``number``; `RoomError` ``no_ask`` if none waits."""
        ask = self.all.get(number)
        if ask is None or ask.state != "waiting":
            raise RoomError(RoomCode.NO_ASK, "No request to join of that number is waiting (answered already?).")
        return ask

    def check_approval(self, entry: Joined) -> Ask | None:
        """The request ``entry`` lets in (None: a join of its own); `RoomError` if it is not that
        request's seat (another name, rabbit, token or seat)."""
        if entry.ask is None:
            return None
        ask = self.check_answer(entry.ask)
        if (ask.colour, ask.token_hash, ask.replaces) != (entry.colour, entry.token_hash, entry.replaces):
            raise RoomError(RoomCode.NO_ASK, "A request to join is let in with the seat it asked for.")
        return ask

    def drop_lobby(self) -> None:
        """The game started: those who asked for a seat in the lobby are told it is too late."""
        for ask in self.waiting():
            if ask.replaces is None:
                ask.state = "dropped"
