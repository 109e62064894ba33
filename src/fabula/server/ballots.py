"""The audience's votes on their way into the log: checked when they come in, then stored in
batches — one `CrowdVoted` entry for every vote of a room in the last quarter second — and each
voter answered once the batch holding their vote is stored. Two thousand votes in a round cost a
few entries, not two thousand; and a vote acknowledged is durable (a restart replays it).

    crowd_vote → `Ballots.vote` (check) → pending → every `BATCH_SECONDS`: `Rooms.commit(CrowdVoted)` → ack

The batch is made inside the room's lock on the room as it then is (`crowd.check_vote` again): a
vote that no longer fits (the same member's twice, a game that moved on) is refused alone.

A vote waiting for its batch is a list entry, not a suspended coroutine: the voter's connection
reads its next message meanwhile, and the batch, once stored, answers each voter itself. (With
10,000 voting, the waiting coroutines' `asyncio.shield` alone was 2.9 % of the room owner's py-spy
samples; and each waiting vote left a coroutine and two futures for every collection to walk.)
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from fabula import protocol as p
from fabula.errors import ErrorCode
from fabula.protocol.audience import AudienceHello
from fabula.rules import RulesError

from .connections import PACED_PER_TURN, Connection, Watcher
from .crowd import check_vote
from .entries import CrowdVote, CrowdVoted
from .errors import RoomCode, RoomError
from .live_room import LiveRoom
from .room import Room, clean_text
from .room_settings import NAME_MAX
from .rooms import Rooms

#: How long a vote waits for others to be stored with (an audience votes in a burst).
BATCH_SECONDS = 0.25


def audience_id(token: str) -> str:
    """A stable id for an audience token: the room never keeps or shows the token (nor its hash)."""
    return hashlib.sha256(f"fabula-audience:{token}".encode()).hexdigest()[:16]


def watcher_of(hello: AudienceHello) -> Watcher:
    """Who a hello with ``audience`` joins the audience as; `RoomError` for a name a player could
    not have (cleaned and checked the same way)."""
    return Watcher(audience_id(hello.token), clean_text(hello.name, limit=NAME_MAX, what="name"))


@dataclass(eq=False, slots=True)
class Ballot:
    vote: CrowdVote
    #: whom to answer once it is stored: its voter's connection (and another, if the same
    #: message came again meanwhile — a client sending again after a reconnect)
    voters: list[Connection]


@dataclass(eq=False, slots=True)
class Batch:
    """One room's votes waiting to be stored."""

    ballots: list[Ballot] = field(default_factory=list)
    #: audience id → their ballot in ``ballots``
    by_member: dict[str, Ballot] = field(default_factory=dict)


class _NothingToStore(RoomError):
    """Every vote of a batch was answered without storing anything."""


#: How a refusal is answered (`Conversation`'s, which counts it): connection, message id, code, words.
Refuse = Callable[[Connection, str | None, ErrorCode, str], None]


class Ballots:
    def __init__(self, rooms: Rooms, clock: Callable[[], float], refuse: Refuse) -> None:
        self.rooms, self.clock, self.refuse = rooms, clock, refuse
        self._waiting: dict[str, Batch] = {}
        self._flushing: dict[str, asyncio.Task[None]] = {}

    def vote(self, live: LiveRoom, connection: Connection, message: p.CrowdVote) -> None:
        """Take ``message``: answered (the voter's standing, then ``ack``) now if it was stored
        already, else once its batch is stored; a `RulesError` (nothing changed) if it may not be made."""
        watcher = connection.watcher
        if watcher is None:
            raise RoomError(RoomCode.NOT_AUDIENCE, "Join the audience to vote; players vote at the table.")
        room = live.room
        room.check_not_paused()
        round_number = room.game.round if room.game is not None else 0
        vote = CrowdVote(watcher.id, watcher.name, round_number, message.card, message.id)
        seq = check_vote(room.crowd, room.game, vote)
        if seq is not None:
            _answer(live, connection, vote, seq)
            return
        code = room.code
        batch = self._waiting.setdefault(code, Batch())
        twin = batch.by_member.get(vote.audience)
        if twin is not None:
            if twin.vote.client_id != vote.client_id:
                raise RoomError(RoomCode.ALREADY_VOTED, "You have voted in this round already.")
            twin.voters.append(connection)  # the same message again: answered as the first
            return
        ballot = Ballot(vote, [connection])
        batch.ballots.append(ballot)
        batch.by_member[vote.audience] = ballot
        if code not in self._flushing:
            self._flushing[code] = asyncio.create_task(self._flush(live), name=f"audience votes {code}")

    async def _flush(self, live: LiveRoom) -> None:
        """Store the room's waiting votes every `BATCH_SECONDS` until none are left."""
        code = live.room.code
        try:
            while True:
                await asyncio.sleep(BATCH_SECONDS)
                batch = self._waiting.pop(code, None)
                if batch is None:
                    return
                await self._store(live, batch.ballots)
        finally:
            del self._flushing[code]

    async def _store(self, live: LiveRoom, ballots: list[Ballot]) -> None:
        """One entry for ``ballots``, then each answered: its entry's seq, or why not."""
        answers: dict[int, int | RulesError] = {}

        def make(room: Room) -> CrowdVoted:
            answers.clear()  # (made again on the room as stored, if another process got there first)
            votes: list[CrowdVote] = []
            for index, ballot in enumerate(ballots):
                try:
                    done = check_vote(room.crowd, room.game, ballot.vote)
                except RulesError as refused:
                    answers[index] = refused
                    continue
                if done is not None:
                    answers[index] = done
                else:
                    votes.append(ballot.vote)
            if not votes:
                raise _NothingToStore(RoomCode.ALREADY_VOTED, "Nothing to store.")
            return CrowdVoted(at=self.clock(), votes=votes)

        try:
            seq = await self.rooms.commit(live, make)
        except _NothingToStore:
            seq = None
        except RulesError as failed:  # the store is away, say: every vote not answered yet fails
            seq = None
            for index in range(len(ballots)):
                answers.setdefault(index, failed)
        for index, ballot in enumerate(ballots):
            if index and not index % PACED_PER_TURN:
                # a slice of the voters a turn of the event loop: each answer is a standing and
                # an ack, and a batch of hundreds answered in one turn held the loop (and a
                # player's move read meanwhile) for all their sends
                await asyncio.sleep(0)
            answer = answers.get(index, seq)
            if answer is None:
                continue
            for connection in ballot.voters:
                if connection.outbox.closed:  # (gone: nobody reads it; the vote counts all the same)
                    continue
                if isinstance(answer, RulesError):
                    self.refuse(connection, ballot.vote.client_id, answer.code, answer.message)
                else:
                    _answer(live, connection, ballot.vote, answer)

    async def stop(self, wait: float = 2.0) -> None:
        """The server is stopping: the votes waiting are stored (for up to ``wait`` seconds), then
        storing stops — a vote not stored by then was never acknowledged, and its client sends it again."""
        tasks = list(self._flushing.values())
        if tasks:
            await asyncio.wait(tasks, timeout=wait)
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _answer(live: LiveRoom, connection: Connection, vote: CrowdVote, seq: int) -> None:
    """A stored vote's answer: the voter's standing with it, then the ``ack``."""
    watcher = connection.watcher
    assert watcher is not None  # (only an audience member's vote is taken)
    standing = live.room.crowd.standing(watcher.id, watcher.name, vote.round)
    connection.standing = standing
    connection.send(p.AudienceStanding(standing))
    connection.send(p.Ack(vote.client_id, seq))
