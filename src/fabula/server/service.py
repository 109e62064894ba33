"""The room service: the parts of the table built from a config and its backends, and their life
cycle.

    socket → `Conversation.handle` (validate, rate-limit) → `commands.entry_for` (authorise, make
    the entry; pure) → `Rooms.commit` (apply, store, publish) → listeners: the cluster's
    `Following` (several processes), `FanOut` (each connection its own view), `Scheduler` (plan
    what is due), `Chronicle` (logs, bots' memory)

The parts, one job each: `conversation` (a client's messages), `connections` (sockets, outboxes,
rate limits), `presence` (who is here), `rooms` (load, replay, commit, resync), `commands`
(message → entry), `fanout`, `scheduler` (bots, timers, hand-off), `seats` (create and join over
HTTP), `sweep` and `cluster` (`Solo` or, with several processes, `Shared`). `build` makes them,
each given what it uses; `docs/architecture.md` follows one vote through them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from fabula.cards.library import DeckLibrary

from .autoplay import AutoPlayers
from .backends import Backends
from .cluster import Shared, Solo
from .config import Config
from .conversation import Conversation
from .entries import Acted, AnyEntry, Ended, Joined, Started
from .fanout import FanOut
from .live_room import LiveRoom
from .metrics import Metrics
from .model_play import ModelPlayers, picture_source
from .own_deck import OwnCards, own_cards_of
from .rooms import Rooms
from .scheduler import Scheduler
from .seats import Seats, new_token
from .sound_owners import sound_owners_of
from .sweep import Sweeper

log = logging.getLogger("fabula.server")


class Chronicle:
    """What the server notes of a game besides its log: the log lines, and — once a game is over —
    the bots' memory of it (a bot added is warmed up for the room's cards at once)."""

    def __init__(self, autoplay: AutoPlayers) -> None:
        self.autoplay = autoplay

    def entry(self, live: LiveRoom, entry: AnyEntry, *, here: bool) -> None:
        if not here:
            return  # (the process that made it notes it; the others recall finished games later)
        room = live.room
        if isinstance(entry, Joined) and entry.bot is not None:
            self.autoplay.warm(room, entry.bot, entry.bot_language or "en")
        elif isinstance(entry, Started):
            log.info("game started", extra={"room": room.code, "mode": room.settings.mode, "seats": len(room.seating)})
        elif isinstance(entry, Acted | Ended) and room.status == "over" and room.game is not None:
            log.info("game over", extra={"room": room.code, "rounds": room.game.round, "scores": room.game.scores})
            self.autoplay.learn(room)

    def refreshed(self, live: LiveRoom) -> None:
        pass

    async def loaded(self, live: LiveRoom) -> None:
        self.autoplay.learn(live.room)  # a game that ended before a restart still teaches


@dataclass(frozen=True, eq=False)
class Parts:
    """The parts of a running service (`build`)."""

    backends: Backends
    rooms: Rooms
    autoplay: AutoPlayers
    fanout: FanOut
    scheduler: Scheduler
    cluster: Solo
    conversation: Conversation
    seats: Seats
    sweeper: Sweeper
    own_cards: OwnCards


def build(
    config: Config,
    backends: Backends,
    library: DeckLibrary,
    metrics: Metrics,
    *,
    clock: Callable[[], float],
    rng: Callable[[], random.Random],
    tokens: Callable[[], str],
) -> Parts:
    """The parts for ``config`` on ``backends``, each given what it uses. ``clock`` and ``rng``
    are read whenever used (tests move the clock and seed the source once the server runs)."""
    rooms = Rooms(backends.store, backends.bus, metrics, clock, shared=backends.shared)
    own_cards = own_cards_of(backends.pictures)
    models = (
        ModelPlayers(
            config.model_bots,
            metrics,
            seconds=config.model_bot_seconds,
            in_flight=config.model_bot_in_flight,
            pictures=picture_source(library, backends.pictures),
        )
        if config.model_bot
        else None
    )
    autoplay = AutoPlayers(
        library,
        memory=config.bot_memory,
        store=backends.store,
        own_cards=own_cards,
        memory_rounds=config.bot_memory_rounds,
        clock=clock,
        models=models,
        model_fallback=config.model_bot_fallback,
    )
    fanout = FanOut(lambda: config.disconnect_grace_seconds)
    scheduler = Scheduler(rooms, autoplay, config, metrics, clock=clock, rng=rng, lease=backends.lease)
    cluster = (
        Shared(
            rooms,
            backends.presence,
            backends.lease,
            owners=backends.owners,
            config=config,
            metrics=metrics,
            clock=clock,
            hears=lambda: backends.bus_connected,
        )
        if backends.presence is not None
        else Solo()
    )
    # the cluster first: it learns who is connected elsewhere to a room just loaded
    rooms.listeners += [*cluster.listeners, fanout, scheduler, Chronicle(autoplay)]
    conversation = Conversation(
        config,
        library,
        metrics,
        rooms,
        fanout,
        cluster=cluster,
        own_cards=own_cards,
        clock=clock,
        rng=rng,
        sound_owner=sound_owners_of(backends.sounds),
    )
    seats = Seats(rooms, config, library, clock=clock, rng=rng, opened=scheduler.start, tokens=tokens)
    sweeper = Sweeper(
        rooms,
        autoplay,
        config,
        clock,
        pictures=backends.pictures,
        cluster_sweep=cluster.sweep if isinstance(cluster, Shared) else None,
        sounds=backends.sounds,
    )
    return Parts(backends, rooms, autoplay, fanout, scheduler, cluster, conversation, seats, sweeper, own_cards)


class RoomService:
    """The service for a config: its parts are built when it starts (`start`, given its backends)
    and stopped with it."""

    def __init__(
        self,
        config: Config,
        library: DeckLibrary,
        metrics: Metrics,
        *,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        tokens: Callable[[], str] = new_token,
    ) -> None:
        self.config, self.library, self.metrics, self.clock = config, library, metrics, clock
        self.tokens = tokens
        #: room codes, game seeds and bots' choices come from here (tests set a seeded one)
        self.rng = rng or random.SystemRandom()
        self._parts: Parts | None = None
        self._sweeping: asyncio.Task[None] | None = None

    @property
    def parts(self) -> Parts:
        if self._parts is None:
            raise RuntimeError("the room service has not started")
        return self._parts

    @property
    def rooms(self) -> Rooms:
        return self.parts.rooms

    @property
    def seats(self) -> Seats:
        return self.parts.seats

    @property
    def conversation(self) -> Conversation:
        return self.parts.conversation

    @property
    def cluster(self) -> Solo:
        return self.parts.cluster

    @property
    def autoplay(self) -> AutoPlayers:
        return self.parts.autoplay

    @property
    def backends(self) -> Backends | None:
        return None if self._parts is None else self._parts.backends

    # ------------------------------------------------------------------ life cycle

    async def start(self, backends: Backends) -> None:
        """Build the parts on ``backends`` (`stop` closes them) and start them.

        One process: every stored room is loaded now (its timers and bots resume). Several: a room
        is loaded when someone asks for it, and the cluster keeps it in step with the others."""
        parts = self._parts = build(
            self.config,
            backends,
            self.library,
            self.metrics,
            clock=self.now,
            rng=lambda: self.rng,
            tokens=self.tokens,
        )
        await parts.autoplay.recall()  # before the rooms: a finished game kept already is not learned twice
        await parts.cluster.start(parts.conversation)
        if not backends.shared:
            await parts.rooms.load_every_room()
        self.metrics.rooms.set(len(parts.rooms.held))
        self._sweeping = asyncio.create_task(parts.sweeper.forever())

    async def retire(self) -> None:
        """The server is stopping: with several processes, the others take this one's rooms (and
        its clients relayed here) now, while it finishes what is under way."""
        if self._parts is not None:
            await self._parts.cluster.retire()

    async def stop(self) -> None:
        parts = self._parts
        if parts is None:
            return
        await parts.conversation.ballots.stop()
        await parts.cluster.stop()
        tasks = [self._sweeping]
        for live in parts.rooms.held.values():
            tasks += [live.scheduler, live.follower]
            if live.numbers_due is not None:
                live.numbers_due.cancel()
        for task in tasks:
            if task is not None:
                task.cancel()
        for task in tasks:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await parts.autoplay.learned()  # a game that just ended reaches the store before it closes
        if parts.autoplay.models is not None:
            parts.autoplay.models.close()
        await parts.backends.close()

    def now(self) -> float:
        return self.clock()

    async def sweep(self) -> list[str]:
        return await self.parts.sweeper.sweep()
