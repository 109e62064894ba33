"""The moves the server makes itself: bot seats, and people who are away or out of time.

A bot that reads clues runs its model in a worker thread, so a decision (milliseconds; seconds the
first time a deck is seen) never holds up the event loop. The bots of every room share one model,
one set of card vectors per deck and, when ``--bot-memory`` is on, one memory of the rounds of
games finished on this server — a game's rounds join it only once the game is over, so no bot
ever learns from a game still being played.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Mapping

from fabula.bots.base import RandomBot, make_bot
from fabula.bots.semantic.memory import ClueMemory, PastRound
from fabula.cards.library import DeckError, DeckLibrary
from fabula.cards.model import Card
from fabula.rules import Action, Phase, RoundResult

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


class AutoPlayers:
    """Chooses automatic moves for every room of a process, and keeps what the bots share."""

    def __init__(self, library: DeckLibrary, *, memory: bool) -> None:
        self.library = library
        self.memory_enabled = memory
        self._memory: ClueMemory | None = None
        #: (room code, game number) of the games already learned from
        self._learned: set[tuple[str, int]] = set()
        self._warming: set[tuple[tuple[str, ...], bool, str]] = set()
        self._cards: dict[tuple[str, int], Mapping[str, Card]] = {}

    def cards_of(self, room: Room) -> Mapping[str, Card]:
        """The room's cards by id (empty if its decks are gone: the bots then play blind), read
        once per game rather than from the disk at every move."""
        key = (room.code, room.games_started)
        found = self._cards.get(key)
        if found is None:
            if len(self._cards) > 1000:  # games long over: read again if ever asked
                self._cards.clear()
            try:
                found = {card.id: card for card in self.library.cards(room.settings.decks)}
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

    async def choose(self, room: Room, seat: int, level: str, rng: random.Random, language: str = "en") -> Action:
        """The move ``level``'s bot, giving clues in ``language``, makes for ``seat`` now (the room
        must be awaiting it)."""
        game = room.game
        assert game is not None
        view, legal = game.view(seat), game.legal_actions(seat)
        if level == "random":
            return RandomBot(rng).choose(view, legal)
        bot = make_bot(level, rng, cards=self.cards_of(room), memory=self.memory(), language=language)
        return await asyncio.to_thread(bot.choose, view, legal)

    def warm(self, room: Room, level: str, language: str = "en") -> None:
        """Start reading the room's deck in the background (a new deck takes seconds), so the
        bot's first move is not the one that waits."""
        if level == "random":
            return
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
        embedded in a worker thread)."""
        game = room.game
        key = (room.code, room.games_started)
        if not self.memory_enabled or game is None or game.phase is not Phase.OVER or key in self._learned:
            return
        self._learned.add(key)
        memory = self.memory()
        rounds = [past_round(result) for result in room.rounds]
        if memory is not None and rounds:
            asyncio.get_running_loop().run_in_executor(None, memory.add, rounds).add_done_callback(_report)


def _report(done: asyncio.Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.error("bots could not learn from a game", exc_info=done.exception())
