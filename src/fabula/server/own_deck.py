"""A room's own pictures as cards: what a deal of the room's own deck holds, and what bots read
(each picture's caption is its card's description)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fabula.cards.model import Card
from fabula.store.pictures import PictureStore

#: room code → its own pictures as cards (none without a picture store or an own deck)
OwnCards = Callable[[str], Awaitable[tuple[Card, ...]]]


def own_cards_of(store: PictureStore | None) -> OwnCards:
    """Room ``code``'s own pictures in ``store`` as cards."""

    async def own_cards(code: str) -> tuple[Card, ...]:
        deck = None if store is None else await store.room_deck(code)
        if store is None or deck is None:
            return ()
        return tuple(Card(picture.card, picture.name, picture.caption) for picture in await store.pictures(deck))

    return own_cards
