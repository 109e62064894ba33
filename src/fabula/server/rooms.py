"""The rooms this process holds: loaded from the store, replayed, changed by commits, kept in step.

    entry → Room.apply (checks; refuses without a change) → store.append → bus.publish → listeners

`Rooms.commit` is the only way a held room changes. Per room one asyncio lock makes that sequence
atomic; a failed append rebuilds the room from the store, so memory never runs ahead of what is
durable. Several processes (``--database`` and ``--redis``) may hold the same room: the store's
unique (room, seq) decides between them, and an append that finds its seq taken rebuilds the room
from the store and makes the request again on the room as it now is.

Whoever must hear of a change — the connections' fan-out, the scheduler, the bots' memory — is a
`Listener`: a commit announces its entry to each, in the order they were added.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from fabula.rules import RulesError
from fabula.store import Bus, EventStore, SeqTaken, StoredEntry

from .entries import AnyEntry, Joined, Said, decode, encode
from .errors import RoomError
from .holding import HeldRooms
from .live_room import RECENT, LiveRoom, PendingCommit, conflict, no_room, replay, store_failed
from .metrics import Metrics
from .room import Room

log = logging.getLogger("fabula.server")

#: How often a request is tried on a room that other processes keep changing under it.
COMMIT_ATTEMPTS = 5


def _answer_as(first: asyncio.Future[int], twin: asyncio.Future[int]) -> None:
    """Give ``twin`` the answer ``first`` gets, when it gets it (the same message twice)."""

    def copy(answered: asyncio.Future[int]) -> None:
        if twin.done():
            return
        if answered.cancelled():
            twin.cancel()
        elif (error := answered.exception()) is not None:
            twin.set_exception(error)
        else:
            twin.set_result(answered.result())

    first.add_done_callback(copy)


def _fail(requests: list[PendingCommit], error: BaseException) -> None:
    """Answer those of ``requests`` not answered yet with ``error``."""
    for request in requests:
        if not request.done.done():
            request.done.set_exception(error)


class Rooms(HeldRooms):
    """The held rooms, and the one way each changes."""

    def __init__(
        self, store: EventStore, bus: Bus, metrics: Metrics, clock: Callable[[], float], *, shared: bool = False
    ) -> None:
        super().__init__(store, bus, metrics, clock, shared=shared)
        #: rooms going back to what is stored after a commit was stopped mid-append
        self._rebuilding: set[asyncio.Future[None]] = set()

    # ------------------------------------------------------------------ the one way a room changes

    async def commit(self, live: LiveRoom, make: AnyEntry | Callable[[Room], AnyEntry], *, retry: bool = True) -> int:
        """Apply the entry (or the entry ``make`` builds inside the room's lock, for one that
        depends on the room), store it, tell everyone; the entry's sequence number.
        `RulesError` (nothing changed) if the room refuses it.

        Requests for one room that arrive while its last entries are being stored wait for the
        room, and the first to get it commits them all: each applied in turn (a refused one
        fails alone), then stored in one append, then announced — as one process over SQLite,
        whose appends never wait, takes a burst of moves in one go. Every request returns once
        its own entry is stored.

        If another process stored an entry at that seq first, the room is rebuilt from the store
        and — with ``retry`` — the entry is made again on the room as it is now: checked again, so
        a move that is no longer legal gets its usual error; a client message id the other
        process has already stored gets that entry's seq, never a second entry. Scheduled entries
        are not made again (the host hand-off passes ``retry=False``; a bot's move refuses itself
        once the room changed): what is due is planned again from the new state instead."""
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        live.requests.append(PendingCommit(make, retry, done))
        async with live.lock:
            if not done.done():
                waiting, live.requests = live.requests, []
                first_seq = live.room.seq
                try:
                    await self._commit_locked(live, waiting)
                except asyncio.CancelledError:
                    # Stopped mid-append (the server shutting down): its entries may or may not be
                    # stored, so memory goes back to the store, and the others are told to retry.
                    for request in waiting:
                        if not request.done.done():
                            request.done.set_exception(store_failed())
                    rebuild = asyncio.ensure_future(self._back_to_the_store(live, first_seq, locked=False))
                    self._rebuilding.add(rebuild)
                    rebuild.add_done_callback(self._rebuilding.discard)
                    raise
        # (a message sent twice at once is answered as its first request is: maybe a moment later)
        return await done

    async def _back_to_the_store(self, live: LiveRoom, since: int, *, locked: bool = True) -> None:
        """Memory may have run ahead of the store from seq ``since`` on (an append failed or was
        stopped): go back to what is durable (``locked``: the caller holds the room's lock). If
        the store cannot be read now either, the room stays marked and goes back before anything
        else is made of it (`_restored`)."""
        if not locked:
            async with live.lock:
                await self._back_to_the_store(live, since)
            return
        live.stale_since = since if live.stale_since is None else min(live.stale_since, since)
        try:
            await self._restored(live)
        except RoomError as error:
            log.warning("the store is away; back to it later", extra={"room": live.room.code, "error": str(error)})

    async def _restored(self, live: LiveRoom) -> None:
        """If ``live`` may be ahead of the store, rebuild it from the store (`RoomError`
        ``store_failed`` if the store cannot be read). Whatever the store holds from the marked
        seq on — another process's entries, or this one's whose append failed only as far as it
        could tell — reaches this process's connections as if caught up."""
        if live.stale_since is None:
            return
        try:
            await self.resync(live, live.stale_since)
        except RoomError:
            raise
        except Exception as error:
            raise store_failed() from error
        live.stale_since = None

    async def made_before(self, live: LiveRoom, key: tuple[int | None, str]) -> int | None:
        """The seq of the entry client message ``key`` (member, message id) made, once that entry
        is stored; None if it made none (then it is made now, as a new message).

        Memory is ahead of the store only while a commit is under way (the room's lock is held)
        or after an append failed (`LiveRoom.stale_since`): then this waits for the room and
        reads it as the store has it, so a message sent again is never acknowledged before its
        entry is durable."""
        room = live.room
        if key not in room.client_ids:
            return None
        if not live.lock.locked() and live.stale_since is None:
            return room.client_ids[key]
        async with live.lock:
            await self._restored(live)
            return live.room.client_ids.get(key)

    async def _commit_locked(self, live: LiveRoom, requests: list[PendingCommit]) -> None:
        """The one commit path, in the room's lock (held): each request applied in turn (a refused
        one fails alone), the entries made stored in one append, then announced. If another
        process stored an entry at that seq first, the room is rebuilt from the store and the
        requests are made again on the room as it now is (a refused one too: the room that
        refused it was behind) — those that may be (`PendingCommit.retry`), up to `COMMIT_ATTEMPTS`."""
        for attempt in range(COMMIT_ATTEMPTS):
            if attempt:
                for request in requests:
                    if not request.retry:
                        request.done.set_exception(conflict())
                requests = [request for request in requests if request.retry]
            try:
                await self._restored(live)
            except RoomError as error:  # the store is still away: nothing can be made now
                _fail(requests, error)
                return
            if live.behind >= live.room.seq:
                # Another process announced entries this one lacks, and the follower that would load
                # them waits for the lock behind these requests: load them now, rather than make the
                # requests on a room that is behind and lose the race for the seq.
                try:
                    await self._catch_up_locked(live)
                except Exception as error:  # the store is away for a moment: the append will say
                    log.warning(
                        "catching up before a commit failed", extra={"room": live.room.code, "error": str(error)}
                    )
            made, refused = self._apply(live.room, requests, again=attempt > 0)
            if not made:
                if refused and await self._behind(live, refused):
                    requests = [request for request, _ in refused]
                    continue
                for request, refusal in refused:
                    _fail([request], refusal)
                return
            if await self._stored(live, made, refused):
                return
            requests = [request for request in requests if not request.done.done()]
        _fail(requests, conflict())

    @staticmethod
    def _apply(
        room: Room, requests: list[PendingCommit], *, again: bool
    ) -> tuple[list[tuple[PendingCommit, AnyEntry]], list[tuple[PendingCommit, RulesError]]]:
        """Apply each request in turn to ``room``: those made (with their entries) and those the
        room refused. A request failing otherwise fails at once. A client message made already
        (the room was rebuilt and another process made it, or it came in just before) is answered
        with its seq; one made earlier in this batch (the same message through two processes at
        once) is answered with that request's answer, once it has one — never before its entry is
        stored."""
        made: list[tuple[PendingCommit, AnyEntry]] = []
        refused: list[tuple[PendingCommit, RulesError]] = []
        made_here: dict[tuple[int | None, str], PendingCommit] = {}
        for request in requests:
            try:
                entry = request.make(room) if callable(request.make) else request.make
                key = None if entry.client_id is None else (entry.by, entry.client_id)
                if key is not None and key in made_here:
                    _answer_as(made_here[key].done, request.done)
                    continue
                if key is not None and (again or key in room.client_ids):
                    done = room.client_ids.get(key)
                    if done is not None:  # (stored: memory runs ahead only inside this commit)
                        request.done.set_result(done)
                        continue
                entry = room.apply(entry)
            except RulesError as error:  # refused (the room unchanged): this request alone
                refused.append((request, error))
            except Exception as error:
                request.done.set_exception(error)
            else:
                made.append((request, entry))
                if key is not None:
                    made_here[key] = request
        return made, refused

    async def _behind(self, live: LiveRoom, refused: list[tuple[PendingCommit, RulesError]]) -> bool:
        """Whether requests the room refused (and nothing else was made with) should be made again:
        with several processes another one may have stored entries this one has not heard of yet
        (its notice is on the way, or it died before sending one), and on the room as stored the
        request may be legal, or even made already (a message sent again through another process).
        The room catches up with the store; if the store cannot say, the requests fail for now."""
        if not self.shared:  # (one process: the room is the store)
            return False
        try:
            return await self._catch_up_locked(live, ask_store=True)
        except RoomError as unread:  # the store cannot say: the client tries again later
            _fail([request for request, _ in refused], unread)
            return False

    async def _stored(
        self,
        live: LiveRoom,
        made: list[tuple[PendingCommit, AnyEntry]],
        refused: list[tuple[PendingCommit, RulesError]],
    ) -> bool:
        """Append ``made``'s entries (applied to ``live``'s room from its seq before them) and
        announce them; False if another process took that seq (the room is rebuilt from the
        store: make the requests again), True once every request has its answer."""
        room = live.room
        first = room.seq - len(made)
        encoded = [encode(entry) for _, entry in made]
        try:
            await self.store.append_many(room.code, first, encoded, made[-1][1].at)
        except SeqTaken:
            self.metrics.conflicts.inc()
            try:
                await self.resync(live, first)
            except Exception as error:
                if not isinstance(error, RoomError):  # (no_room: the room is let go)
                    await self._back_to_the_store(live, first)
                _fail(
                    [request for request, _ in made + refused],
                    error if isinstance(error, RoomError) else store_failed(),
                )
                return True
            return False
        except Exception:
            log.exception("append failed", extra={"room": room.code})
            _fail([request for request, _ in made + refused], store_failed())
            await self._back_to_the_store(live, first)
            return True
        for request, refusal in refused:  # (final: they were refused on the room as stored, the append shows)
            request.done.set_exception(refusal)
        self.bus.publish(room.code, first + len(made) - 1, encoded)
        live.recent.extend(StoredEntry(seq, data) for seq, data in enumerate(encoded, first))
        for seq, (request, entry) in enumerate(made, first):
            request.done.set_result(seq)
            self._tell(live, entry, seq, here=True)
        return True

    def _tell(self, live: LiveRoom, entry: AnyEntry, seq: int, *, here: bool) -> None:
        """Tell every listener of ``entry``, stored at ``seq``. It is stored whatever they do: a
        listener that fails is logged, and the others are told all the same."""
        for listener in self.listeners:
            try:
                listener.entry(live, entry, here=here)
            except Exception:
                log.exception("a listener failed", extra={"room": live.room.code, "seq": seq})

    # ------------------------------------------------------------------ keeping step with the store

    async def resync(self, live: LiveRoom, since: int) -> None:
        """Rebuild ``live``'s room from the store after memory applied an entry the store refused
        at seq ``since``. The entries from ``since`` on are another process's: this process's
        connections hear of them as if they had been caught up."""
        code = live.room.code
        stored = await self.store.load(code)
        if not stored:  # deleted by another process (an idle sweep) in the meantime
            self.unload(code)
            raise no_room(code)
        replayed = replay(code, stored[:since])
        if replayed is None:  # pragma: no cover - an entry at `since` exists, so entry 0 does
            return
        live.room = replayed
        live.recent.clear()
        live.recent.extend(stored[max(0, since - RECENT) : since])
        self.apply_stored(live, stored[since:], announce=False)
        self._refreshed(live)

    @staticmethod
    def recent_entries(live: LiveRoom, since: int, upto: int) -> list[bytes]:
        """The data of ``live``'s entries from ``since`` (or as far back as it keeps them) up to
        ``upto``, as stored, with no gap; empty if it does not keep entry ``upto``."""
        found: list[bytes] = []
        for item in reversed(live.recent):
            if item.seq > upto:
                continue
            if item.seq != upto - len(found) or item.seq < since:
                break
            found.append(item.data)
        found.reverse()
        return found

    async def caught_up_to(self, live: LiveRoom, entries: list[StoredEntry], seq: int) -> None:
        """Make sure ``live`` has its entries up to ``seq``: apply ``entries`` (the newest up to
        ``seq``, as another process stored them) if they follow on from what it has, else read
        what is missing from the store."""
        if live.room.seq > seq:
            return
        async with live.lock:
            if live.room.seq > seq:
                return
            if entries and entries[0].seq <= live.room.seq and live.stale_since is None:
                self.apply_stored(live, entries)
            else:
                await self._catch_up_locked(live, upto=seq)

    async def catch_up(self, live: LiveRoom) -> bool:
        """Apply what other processes appended to ``live``'s room since its seq and tell this
        process's connections; whether there was anything."""
        async with live.lock:
            return await self._catch_up_locked(live)

    async def _catch_up_locked(self, live: LiveRoom, *, upto: int = -1, ask_store: bool = False) -> bool:
        """`catch_up` in the room's lock (held): from the entries announced with their notices
        if they reach ``upto`` and every seq announced, else (and with ``ask_store``) from the store."""
        if live.stale_since is not None:
            await self._restored(live)
            return True
        code = live.room.code
        carried = self._carried(live)
        if carried and not ask_store and carried[-1].seq >= max(live.behind, upto):
            stored = carried
        else:
            try:
                stored = await self.store.load(code, since=live.room.seq)
            except Exception as error:
                raise store_failed() from error
            self.metrics.loaded.inc(len(stored))
        if not stored:
            return False
        try:
            self.apply_stored(live, stored)
        except (RulesError, ValueError) as error:  # memory and the log disagree: the log wins
            log.error("catching up failed; rebuilding", extra={"room": code, "error": str(error)})
            await self.resync(live, live.room.seq)
        return True

    @staticmethod
    def _carried(live: LiveRoom) -> list[StoredEntry]:
        """The entries announced with their notices that follow on from ``live``'s room, in order
        (the others are dropped: what is older is applied, what leaves a gap is read instead)."""
        carried, seq = live.carried, live.room.seq
        found = []
        while seq in carried:
            found.append(StoredEntry(seq, carried[seq]))
            seq += 1
        carried.clear()
        return found

    def apply_stored(self, live: LiveRoom, stored: list[StoredEntry], *, announce: bool = True) -> None:
        """Apply entries another process stored (from ``live.room.seq`` on) and tell the listeners
        (with ``announce``: at the end, once, that the room was refreshed)."""
        room = live.room
        changed = False
        for item in stored:
            if item.seq < room.seq:  # had it already
                continue
            entry = room.apply(decode(item.data))
            live.recent.append(item)
            self.metrics.followed.inc()
            if isinstance(entry, Joined) and entry.bot is None and entry.member not in live.presence.present():
                live.presence.joined(entry.member, self.clock())  # joined over HTTP; not connected yet
            self._tell(live, entry, item.seq, here=False)
            changed = changed or not isinstance(entry, Said)
        if changed and announce:
            self._refreshed(live)
