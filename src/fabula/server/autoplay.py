"""The moves the server makes itself: bot seats, and people who are away or out of time.

A bot that reads clues runs its model in a worker thread, so a decision (milliseconds; seconds the
first time a deck is seen) never holds up the event loop. The bots of every room share one model,
one set of card vectors per deck and, when ``--bot-memory`` is on, one memory of the rounds of
games finished on this server — a game's rounds join it only once the game is over, so no bot
ever learns from a game still being played. Each finished game is also kept in the store
(`EventStore.keep_game`), so the memory outlives its rooms and restarts, and processes sharing a
store learn each other's games (`recall`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fabula.bots.base import RandomBot, make_bot, model_of
from fabula.bots.semantic.memory import ClueMemory, PastRound
from fabula.cards.library import OWN_DECK, DeckError, DeckLibrary
from fabula.cards.model import Card
from fabula.rules import Action, Phase, RoundResult
from fabula.store import EventStore

from .model_play import Fallback, ModelMove, ModelPlayers
from .room import Room

log = logging.getLogger("fabula.server")

#: Who moves for a person who is away or out of time: a reader of clues, not a coin toss.
STAND_IN_LEVEL = "normal"


def stand_in_language(room: Room) -> str:
    """The language a stand-in clues in for a person whose client's language this process does
    not know: that of the room's bots, which the host added from a client in their language
    (English if there are none)."""
    languages = [m.bot_language for m in room.members.values() if m.bot is not None and m.bot_language != "en"]
    return languages[0] if languages else "en"


def past_round(result: RoundResult) -> PastRound:
    """A revealed round as the memory keeps it: each card's share of the tokens."""
    tokens = [slot for slots in result.votes for slot in slots]
    shares = {card: tokens.count(slot) / len(tokens) for slot, card in enumerate(result.table, 1)} if tokens else {}
    return PastRound(result.clue, result.table, result.storyteller_card, shares)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game as the store keeps it: its rounds (in the evaluation data's format) and, so
    that a process starting later need not read every clue again, the memory's vector of each
    clue with the name of the model that made them (a process with another model reads them anew)."""

    rounds: list[PastRound]
    model: str = ""
    #: one row per round, float32 (None: not kept)
    vectors: npt.NDArray[np.float32] | None = None

    def to_bytes(self) -> bytes:
        data: dict[str, object] = {"rounds": [past.to_json() for past in self.rounds]}
        if self.vectors is not None:
            vectors = np.ascontiguousarray(self.vectors, dtype="<f4")
            data.update(
                model=self.model, dimensions=vectors.shape[1], vectors=base64.b64encode(vectors.tobytes()).decode()
            )
        return json.dumps(data).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> GameRecord:
        """`ValueError` if ``data`` is not a kept game."""
        item = json.loads(data)
        rounds = item.get("rounds") if isinstance(item, dict) else None
        if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
            raise ValueError("a kept game holds a list of rounds")
        record = cls([PastRound.from_json(r) for r in rounds])
        model, dimensions, encoded = item.get("model"), item.get("dimensions"), item.get("vectors")
        if not (isinstance(model, str) and isinstance(dimensions, int) and isinstance(encoded, str)):
            return record
        flat = np.frombuffer(base64.b64decode(encoded, validate=True), dtype="<f4")
        if dimensions < 1 or flat.size != dimensions * len(rounds):
            raise ValueError("a kept game's vectors do not match its rounds")
        return cls(record.rounds, model, flat.reshape(len(rounds), dimensions).astype(np.float32))


class AutoPlayers:
    """Chooses automatic moves for every room of a process, and keeps what the bots share.

    ``store``: where finished games are kept for the memory (None: in this process only).
    ``memory_rounds``: the most rounds `recall` takes from the store at once (the newest).
    """

    def __init__(
        self,
        library: DeckLibrary,
        *,
        memory: bool,
        store: EventStore | None = None,
        own_cards: Callable[[str], Awaitable[tuple[Card, ...]]] | None = None,
        memory_rounds: int = 20_000,
        clock: Callable[[], float] = time.time,
        models: ModelPlayers | None = None,
        model_fallback: str = STAND_IN_LEVEL,
    ) -> None:
        self.library = library
        self.memory_enabled = memory
        self.store = store
        #: reads a room's own pictures as cards (None: no picture store)
        self.own_cards = own_cards
        self.memory_rounds = memory_rounds
        self.clock = clock
        #: the operator's model bots (None: none), and the level that moves when one does not
        self.models, self.model_fallback = models, model_fallback
        self._memory: ClueMemory | None = None
        #: the keys (`game_key`) of the games already learned from
        self._learned: set[str] = set()
        #: the number of the last kept game `recall` read
        self._recalled = 0
        self._learning: set[asyncio.Task[None]] = set()
        self._warming: set[tuple[tuple[str, ...], bool, str]] = set()
        self._cards: dict[tuple[str, int], Mapping[str, Card]] = {}

    @staticmethod
    def _key(room: Room) -> tuple[str, int]:
        return (room.code, room.games_started)

    def cards_of(self, room: Room, own: Sequence[Card] = ()) -> Mapping[str, Card]:
        """The room's cards by id (empty if its decks are gone: the bots then play blind), read
        once per game rather than from the disk at every move; ``own``: the room's own pictures,
        if it deals them."""
        key = self._key(room)
        found = self._cards.get(key)
        if found is None:
            if len(self._cards) > 1000:  # games long over: read again if ever asked
                self._cards.clear()
            try:
                found = {card.id: card for card in self.library.cards(room.settings.decks, own)}
            except DeckError:
                found = {}
            self._cards[key] = found
        return found

    def memory(self) -> ClueMemory | None:
        if not self.memory_enabled:
            return None
        if self._memory is None:
            from fabula.bots.semantic.encoder import shared_encoder

            self._memory = ClueMemory(shared_encoder().published)
        return self._memory

    async def move(
        self, room: Room, seat: int, level: str, rng: random.Random, language: str = "en"
    ) -> tuple[Action, Fallback | None]:
        """The move ``level``'s bot makes for ``seat`` now, and — for a model bot whose model gave
        none in time — why its fallback level (`model_fallback`) made it instead."""
        name = model_of(level)
        if name is None:
            return await self.choose(room, seat, level, rng, language), None
        game = room.game
        assert game is not None
        if self.models is None:
            found = ModelMove(None, "no_model")
        else:
            view, legal = game.view(seat).to_json(), game.legal_actions(seat)
            cards = await self._read_cards(room)
            found = await self.models.move(name, view, legal, cards=cards, language=language, rng=rng)
        if found.action is not None:
            return found.action, None
        return await self.choose(room, seat, self.model_fallback, rng, language), found.fallback

    async def choose(self, room: Room, seat: int, level: str, rng: random.Random, language: str = "en") -> Action:
        """The move ``level``'s bot (a built-in level), giving clues in ``language``, makes for
        ``seat`` now (the room must be awaiting it)."""
        game = room.game
        assert game is not None
        view, legal = game.view(seat).to_json(), game.legal_actions(seat)
        if level == "random":
            return RandomBot(rng, language=language).choose(view, legal)
        bot = make_bot(level, rng, cards=await self._read_cards(room), memory=self.memory(), language=language)
        return await asyncio.to_thread(bot.choose, view, legal)

    async def _read_cards(self, room: Room) -> Mapping[str, Card]:
        if OWN_DECK in room.settings.decks and self.own_cards is not None and self._key(room) not in self._cards:
            # a room's own pictures are read from the picture store, once a game
            return self.cards_of(room, await self.own_cards(room.code))
        return self.cards_of(room)

    def warm(self, room: Room, level: str, language: str = "en") -> None:
        """Start reading the room's deck in the background (a new deck takes seconds), so the
        bot's first move is not the one that waits."""
        if model_of(level) is not None:
            level = self.model_fallback  # what moves when its model does not
        if level == "random" or OWN_DECK in room.settings.decks:
            return  # (a room's own pictures are read from the picture store at the first move)
        from fabula.bots.semantic.player import PERSONAS, deck_plan

        simple = PERSONAS[level].simple_clues  # the plan this level's storyteller will ask for
        key = (tuple(room.settings.decks), simple, language)
        if key in self._warming:
            return
        self._warming.add(key)
        cards = list(self.cards_of(room).values())

        def read() -> None:
            from fabula.bots.semantic.guesser import Guesser

            deck_plan(Guesser(), cards, simple=simple, language=language)

        asyncio.get_running_loop().run_in_executor(None, read).add_done_callback(_report)

    def learn(self, room: Room) -> None:
        """Once the room's game is over, remember its rounds (each game once; the clues are
        embedded in a worker thread) and keep them in the store."""
        game = room.game
        key = game_key(room)
        if not self.memory_enabled or game is None or game.phase is not Phase.OVER or key in self._learned:
            return
        self._learned.add(key)
        # A clue said aloud without words taught nothing a bot could read: it is left out.
        rounds = [past_round(result) for result in room.rounds if result.clue]
        if rounds:
            task = asyncio.get_running_loop().create_task(self._learn(key, rounds))
            self._learning.add(task)
            task.add_done_callback(self._learning.discard)

    async def _learn(self, key: str, rounds: list[PastRound]) -> None:
        """Learn one game in a worker thread, then keep it (with its clues' vectors) in the store."""
        memory = self.memory()
        assert memory is not None

        def learn_now() -> GameRecord:
            memory.add(rounds)
            return GameRecord(rounds, memory.encoder.name, memory.encoder.encode([r.clue for r in rounds]))

        try:
            record = await asyncio.get_running_loop().run_in_executor(None, learn_now)
            if self.store is not None:
                await self.store.keep_game(key, record.to_bytes(), at=self.clock())
        except Exception:  # the store is away: this process still learned it; its room's log still holds it
            log.exception("bots could not learn from a game, or it could not be kept", extra={"game": key})

    async def learned(self) -> None:
        """Wait until every finished game handed over is learned and kept (or its failure logged)."""
        await asyncio.gather(*self._learning)

    async def recall(self) -> int:
        """Learn the games kept in the store that this process has not learned yet — at start,
        those of earlier processes (the newest `memory_rounds` rounds); later, those other
        processes kept. The number of rounds taken."""
        if not self.memory_enabled or self.store is None:
            return 0
        memory = self.memory()
        assert memory is not None
        games = await self.store.kept_games(after=self._recalled)
        self._recalled = max([self._recalled, *(game.number for game in games)])
        # Newest first, and only as many records read as the rounds taken need: older games are
        # merely marked as learned.
        records: list[GameRecord] = []
        taken = 0
        for game in reversed(games):
            if game.key in self._learned:
                continue
            self._learned.add(game.key)
            if taken >= self.memory_rounds:
                continue
            try:
                record = GameRecord.from_bytes(game.data)
            except ValueError as error:  # one damaged record (bad JSON or base64 too) must not cost the others
                log.error("a kept game cannot be read", extra={"game": game.key, "error": str(error)})
                continue
            records.append(record)
            taken += len(record.rounds)
        rounds: list[PastRound] = []
        # each round's kept vector where its model is the memory's (None: its clue is read anew)
        vectors: list[npt.NDArray[np.float32] | None] = []
        for record in reversed(records):
            rounds += record.rounds
            if record.vectors is not None and record.model == memory.encoder.name:
                vectors += list(record.vectors)
            else:
                vectors += [None] * len(record.rounds)
        start = max(len(rounds) - self.memory_rounds, 0)
        rounds, vectors = rounds[start:], vectors[start:]
        kept = [(past.clue, vector) for past, vector in zip(rounds, vectors, strict=True) if vector is not None]
        if kept:
            memory.encoder.prime([clue for clue, _ in kept], np.stack([vector for _, vector in kept]))
        if rounds:
            asyncio.get_running_loop().run_in_executor(None, memory.add, rounds).add_done_callback(_report)
        return len(rounds)


def game_key(room: Room) -> str:
    """What tells one finished game from every other: its room (a code may be used again once a
    room is gone, so with the room's creation time) and its number there."""
    return f"{room.code}/{room.created_at!r}/{room.games_started}"


def _report(done: asyncio.Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.error("bots could not learn from a game", exc_info=done.exception())
