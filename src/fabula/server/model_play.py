"""The moves of a server's model bots: a seat played by a language model (`fabula serve
--model-bot NAME=openai:URL:MODEL`), through the arena's agent (`fabula.bots.language.LLMAgent`).

A model bot never stalls its table. A move has `seconds` in all (a quarter at most for its
pictures to be read, then a free slot awaited, the request and its one corrective retry); at most
`in_flight` requests of this process are under way at once (a dedicated pool of that many
threads: a slow model never takes the threads the built-in bots think in). When no legal move
came in time the caller plays the fallback level's move for it (`ModelMove.action` is None, with
the reason), which the room's log keeps (`Acted.fallback`) and `/metrics` counts
(``fabula_model_bot_moves``). An endpoint that gives no answer is logged once, when it stops
answering, and once when it answers again — not per move.

The model sees exactly what its seat may: the seat's view (`Game.view`), its legal moves, and the
cards of that view only (its hand, the table) — as their descriptions and captions, or, for a
model that sees, as small JPEG data URLs of those same cards.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import random
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from fabula.bots.language import Decision, LLMAgent, ModelBot, OpenAIChat
from fabula.bots.language.pictures import cards_in_view, jpeg_data_url, within_request
from fabula.cards.files import CardFiles
from fabula.cards.library import DeckError, DeckLibrary
from fabula.cards.model import Card
from fabula.rules import Action
from fabula.store.pictures import PictureStore, deck_of_card

from .metrics import Metrics

log = logging.getLogger("fabula.server")

#: Why the fallback level moved for a model bot: its model is not one of this server's (a room
#: made on a server with other model bots), no slot came free in time, the model did not answer in
#: time, answered twice with no legal move, or its endpoint failed (unreachable, an HTTP error).
Fallback = Literal["no_model", "busy", "timeout", "illegal", "endpoint"]
#: The fallbacks after which the host is told the model is not answering.
NOT_ANSWERING: tuple[Fallback, ...] = ("timeout", "endpoint")
#: Corrective messages after a reply that is not a legal move.
RETRIES = 1
#: The most cards' pictures kept as data URLs (a few KB each).
PICTURES_KEPT = 2048
#: The part of a move's time its pictures may take to be read (those not ready are shown by their
#: words this time, and ready for the next move): the rest is the model's.
PICTURE_SHARE = 0.25

#: A card's picture as stored or drawn (None: it has none).
PictureSource = Callable[[str], Awaitable[bytes | None]]


@dataclass(frozen=True, slots=True)
class ModelMove:
    """A model bot's move (None: the fallback level moves, because of ``fallback``)."""

    action: Action | None
    fallback: Fallback | None = None


def picture_source(library: DeckLibrary, store: PictureStore | None) -> PictureSource:
    """A card's picture: a room's own as stored, another deck's as drawn or imported (WebP, 400 px wide)."""
    drawn = CardFiles(library)

    async def picture(card: str) -> bytes | None:
        if deck_of_card(card) is not None:
            return None if store is None else await store.image(card)
        try:
            return (await asyncio.to_thread(drawn.get, card, "webp", 400)).data
        except (DeckError, ValueError):
            return None

    return picture


class ModelPlayers:
    """Asks the operator's models for their seats' moves. ``pictures``: a card's picture bytes,
    for the models that see; ``transport``: httpx's (tests)."""

    def __init__(
        self,
        bots: Mapping[str, ModelBot],
        metrics: Metrics,
        *,
        seconds: float,
        in_flight: int,
        pictures: PictureSource,
        environ: Mapping[str, str] = os.environ,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.bots, self.metrics, self.seconds, self.pictures = dict(bots), metrics, seconds, pictures
        self._clients = {
            name: OpenAIChat(
                bot.url,
                bot.model,
                api_key=bot.api_key(environ),
                timeout=seconds,
                concurrency=in_flight,
                transport=transport,
            )
            for name, bot in self.bots.items()
        }
        self._slots = asyncio.Semaphore(in_flight)
        self._pool = concurrent.futures.ThreadPoolExecutor(in_flight, thread_name_prefix="model-bot")
        self._urls: OrderedDict[str, str | None] = OrderedDict()
        self._read: dict[str, asyncio.Task[None]] = {}
        #: the models whose last move got no answer (logged once, until one comes)
        self.silent: set[str] = set()

    async def move(
        self,
        name: str,
        view: dict[str, Any],
        legal: Sequence[Action],
        *,
        cards: Mapping[str, Card],
        language: str,
        rng: random.Random,
    ) -> ModelMove:
        """Model ``name``'s move for the seat whose ``view`` this is, or why there is none."""
        bot = self.bots.get(name)
        if bot is None:
            return self._counted(name, ModelMove(None, "no_model"))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        agent = LLMAgent(self._clients[name], cards, retries=RETRIES, rng=rng, name=bot.level, language=language)
        shown = await self._shown(view, self.seconds * PICTURE_SHARE) if bot.vision else {}
        busy = self._slots.locked()
        try:
            await asyncio.wait_for(self._slots.acquire(), max(0.0, deadline - loop.time()))
        except TimeoutError:
            return self._counted(name, ModelMove(None, "busy" if busy else "timeout"))
        asking = loop.run_in_executor(self._pool, lambda: agent.decide(view, legal, pictures=shown))
        asking.add_done_callback(lambda _: self._slots.release())  # when it really ends, not when we stop waiting
        try:
            decision: Decision = await asyncio.wait_for(asyncio.shield(asking), max(0.0, deadline - loop.time()))
        except TimeoutError:
            return self._counted(name, ModelMove(None, "timeout"))
        if decision.action is not None:
            return self._counted(name, ModelMove(decision.action))
        return self._counted(name, ModelMove(None, "illegal" if decision.replied else "endpoint"), decision)

    def _counted(self, name: str, move: ModelMove, decision: Decision | None = None) -> ModelMove:
        self.metrics.model_bot_moves.labels(name, move.fallback or "model").inc()
        if move.fallback in NOT_ANSWERING and name not in self.silent:
            self.silent.add(name)
            why = "no answer in time" if move.fallback == "timeout" else str(decision and decision.failure)
            log.warning("a model bot is not answering; the fallback level plays", extra={"model": name, "why": why})
        elif move.action is not None and name in self.silent:
            self.silent.discard(name)
            log.info("a model bot answers again", extra={"model": name})
        return move

    async def _shown(self, view: Mapping[str, Any], seconds: float) -> dict[str, str]:
        """The data URLs of the view's cards that one request may carry: those ready within
        ``seconds`` (the others are read on, for its next moves, and shown by their words now)."""
        cards = cards_in_view(view)
        waiting = [self._reading(card) for card in cards if card not in self._urls]
        if waiting:
            await asyncio.wait(waiting, timeout=seconds)
        found = {card: url for card in cards if (url := self._urls.get(card)) is not None}
        return within_request(cards, found)

    def _reading(self, card: str) -> asyncio.Task[None]:
        """The task reading ``card``'s picture as a data URL into the cache (one per card)."""
        task = self._read.get(card)
        if task is None:
            task = self._read[card] = asyncio.get_running_loop().create_task(self._read_picture(card))
        return task

    async def _read_picture(self, card: str) -> None:
        try:
            data = await self.pictures(card)
            self._urls[card] = None if data is None else await asyncio.to_thread(jpeg_data_url, data)
        except Exception:  # a picture store away: its words, this time
            log.exception("a card's picture could not be read for a model bot", extra={"card": card})
        finally:
            self._read.pop(card, None)
        while len(self._urls) > PICTURES_KEPT:
            self._urls.popitem(last=False)

    def close(self) -> None:
        for client in self._clients.values():
            with contextlib.suppress(Exception):
                client.close()
        self._pool.shutdown(wait=False, cancel_futures=True)
