"""Decks of picture cards: the original generated deck, and decks imported from a host's images."""
