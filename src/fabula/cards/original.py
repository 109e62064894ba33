"""Fabula's own deck: 84 generated pictures, the same for the same seed.

>>> deck = original_deck()
>>> len(deck.cards), deck.cards[0].id
(84, 'fabula-01')
>>> card_svg("fabula-01").startswith("<svg")
True
"""

from __future__ import annotations

from functools import cache

from .art.compose import paint, plan_deck
from .art.subjects import SUBJECTS
from .model import Card, Deck

NAME = "fabula"
SIZE = 84
#: The seed of the shipped deck. Changing it (or the drawing code) changes the pictures, never the ids.
DEFAULT_SEED = 1

_TITLES: dict[str, tuple[str, ...]] = {
    "giant": ("The Tall {N}", "A {N} of the Hills", "Great {N}", "The Patient {N}", "Hill-High {N}"),
    "floating": ("The {N} on a String", "Loose {N}", "Borrowed Air", "The Drifting {N}", "Held {N}"),
    "upside_down": ("The Hanging {N}", "Falling Upward", "Topsy {N}", "The Other Way Up", "Ceiling {N}"),
    "bubble": ("The Kept {N}", "Glass Keeping", "{N} Under Glass", "The Sealed {N}", "Small Weather"),
    "reflection": ("The Other {N}", "What the Water Knows", "Second Face", "{N} and Mirror", "Still Water"),
    "world_inside": ("A World in a {N}", "Pocket Country", "The Inner {N}", "Small Kingdom", "Kept Safe"),
    "rain": ("{N} Weather", "Raining {N}s", "Forecast", "The Downpour", "Umbrella Day"),
    "stairs_up": ("The Way Up", "Steps to the {N}", "Climbing Season", "The Long Stair", "Almost There"),
    "sky_swim": ("Deep Sky", "The Air {N}", "Swimming Lessons", "Far from the Sea", "Current"),
    "glow": ("Night {N}", "The Lit {N}", "Only Light", "Ember", "The Warm {N}"),
    "rooted": ("The Growing {N}", "Staying Put", "{N} in Leaf", "Roots", "Late Spring"),
    "balloons": ("Lift", "The Escaping {N}", "Party Weather", "Up and Away", "Light Luggage"),
    "moon_swap": ("The {N} Moon", "Night Shift", "Replacement Moon", "Borrowed Moon", "Moonless"),
    "shadow": ("The {N}'s Shadow", "Secret Shape", "Long Afternoon", "Who You Are", "Shadow Play"),
    "carries": ("Passenger", "The Long Carry", "Home on the Move", "Burden", "The {N}'s Load"),
}
#: Title words for subjects whose name would read oddly in a title.
_SHORT = {"figure": "Stranger", "fish": "Goldfish"}


@cache
def _painted(seed: int) -> tuple[tuple[Card, str], ...]:
    titles: set[str] = set()
    out = []
    for plan in plan_deck(seed, SIZE):
        painting = paint(plan, seed)
        noun = _SHORT.get(plan.subject, SUBJECTS[plan.subject].name.capitalize())
        templates = _TITLES[plan.twist]
        candidates = [templates[(plan.number + k) % len(templates)].replace("{N}", noun) for k in range(len(templates))]
        fallback = f"{templates[0].replace('{N}', noun)} {plan.number}"
        title = next((t for t in candidates if t not in titles), fallback)
        titles.add(title)
        card = Card(
            id=f"{NAME}-{plan.number:02d}",
            title=title,
            description=painting.description,
            tags=painting.tags,
            translations=painting.translations,
        )
        out.append((card, painting.svg))
    return tuple(out)


def original_deck(seed: int = DEFAULT_SEED) -> Deck:
    """The generated deck (cached per seed)."""
    return Deck(NAME, "Fabula", tuple(card for card, _ in _painted(seed)), builtin=True)


def card_svg(card_id: str, seed: int = DEFAULT_SEED) -> str:
    """The SVG of one card of the original deck; `KeyError` for an unknown id."""
    for card, svg in _painted(seed):
        if card.id == card_id:
            return svg
    raise KeyError(card_id)
