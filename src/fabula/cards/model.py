"""What a card and a deck are, wherever their pictures come from."""

from __future__ import annotations

from dataclasses import dataclass

#: Every card is a portrait 2:3 picture (Dixit's 80 × 120 mm).
CARD_WIDTH, CARD_HEIGHT = 400, 600


@dataclass(frozen=True, slots=True)
class Card:
    """One picture card.

    ``id`` is unique across every deck (``"{deck}-{number}"``) and never changes; ``description``
    is one literal sentence about the picture (alt text, and what AI players read) — empty for
    an imported picture without a caption. ``translations``: the same sentence in other languages
    of the client, as ``(language, sentence)`` (the original deck's; a caption someone wrote has
    none, and is the same in every language).
    """

    id: str
    title: str
    description: str
    tags: tuple[str, ...] = ()
    translations: tuple[tuple[str, str], ...] = ()

    def description_in(self, language: str) -> str:
        """The description in ``language`` (``en``, ``zh-Hant``, ``zh-Hans``), or, in a language it
        has none in, the one it has.

        >>> card = Card("x-1", "Kite", "A kite.", translations=(("zh-Hant", "一隻風箏。"),))
        >>> card.description_in("zh-Hant"), card.description_in("zh-Hans")
        ('一隻風箏。', 'A kite.')
        """
        return next((text for found, text in self.translations if found == language), self.description)


@dataclass(frozen=True, slots=True)
class Deck:
    """A named set of cards. ``builtin`` decks ship with Fabula; the others were imported."""

    name: str
    title: str
    cards: tuple[Card, ...]
    builtin: bool = False

    @property
    def described(self) -> bool:
        """Whether every card has a description (bots play blind on cards without one)."""
        return all(card.description for card in self.cards)
