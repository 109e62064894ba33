"""A model bot as one `Bot`: the model's move, else a built-in level's — what `fabula bot --level
model:NAME` plays over the network (a server's own model bots go through
`fabula.server.model_play`, which adds a time limit per move and a limit of requests in flight).

The model sees what the seat's view holds (its hand, the table); a model that sees gets those
cards' pictures from the server (``GET /cards/{card}.webp``, what the seat's browser shows), as
small JPEG data URLs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from fabula.rules import Action

from ..base import Bot
from .agent import LLMAgent
from .pictures import cards_in_view, jpeg_data_url, within_request

#: A card's picture as a data URL (None: it has none).
Pictures = Callable[[str], str | None]


def server_pictures(server: str, timeout: float = 10.0) -> Pictures:
    """The cards' pictures as the server ``server`` gives them to a seat's browser, each read once."""
    http = httpx.Client(base_url=server.rstrip("/"), timeout=timeout)
    known: dict[str, str | None] = {}

    def picture(card: str) -> str | None:
        if card not in known:
            try:
                response = http.get(f"/cards/{card}.webp", params={"w": 400})
            except httpx.HTTPError:
                return None  # its words this time; asked again next time
            known[card] = jpeg_data_url(response.content) if response.status_code == 200 else None
        return known[card]

    return picture


class ModelSeat:
    """The model's move when one of its attempts gives a legal one, else ``fallback``'s (counted
    in ``fallbacks``). ``pictures``: for a model that sees."""

    def __init__(self, agent: LLMAgent, fallback: Bot, pictures: Pictures | None = None) -> None:
        self.agent, self.fallback, self.pictures = agent, fallback, pictures
        self.fallbacks = 0

    def shown(self, view: Mapping[str, Any]) -> dict[str, str] | None:
        if self.pictures is None:
            return None
        cards = cards_in_view(view)
        found = {card: url for card in cards if (url := self.pictures(card)) is not None}
        return within_request(cards, found)

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        decision = self.agent.decide(view, legal, pictures=self.shown(view))
        if decision.action is not None:
            return decision.action
        self.fallbacks += 1
        return self.fallback.choose(view, legal)
