"""The client's pages and what a room can be: the page itself (with the room's choices written
into it), its static files, ``/api/modes`` and ``/api/decks``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from fabula.bots.base import BOT_LEVELS, DEFAULT_BOT_LEVEL, LANGUAGE_NAMES
from fabula.bots.language.models import ModelBot
from fabula.cards.library import DeckLibrary
from fabula.protocol.settings import TIMER_RANGE
from fabula.rules import CLUE_MAX, MODES, Ruleset
from fabula.rules.scoring import REASONS

from .room_settings import CHAT_MAX, COLOURS, NAME_MAX, seat_range

#: The paths that open the client (it reads the rest of the path itself).
PAGE_PATHS = (
    "/",
    "/join/{code}",
    "/room/{code}",
    "/room/{code}/board",
    "/watch/{code}",  # the audience: watch and vote
    "/rules",
    "/album/{code}/{secret}",
)


def room_choices(model_bots: Sequence[ModelBot] = (), model_bot_fallback: str = "normal") -> dict[str, Any]:
    """What ``GET /api/modes`` answers: what a room can be, and the lists the client offers
    (``model_bots``: the operator's, by name only — never where they run or their key; and the
    level that moves for one whose model does not answer in time)."""
    return {
        "modes": [
            {
                "name": mode.name,
                "summary": mode.summary,
                "seats": list(seat_range(mode.name)),
                "seat_counts": list(mode.seat_counts),
                # cards a deck needs at each seat count (hands and a table: the lobby says how many
                # more pictures a group's own deck needs)
                "cards_needed": [Ruleset.create(mode.name, seats).cards_needed for seats in mode.seat_counts],
            }
            for mode in MODES.values()
        ],
        "colours": list(COLOURS),
        # the lobby's order: the levels that read the clue, weakest first, then the one that plays blind
        "bot_levels": sorted(BOT_LEVELS, key=lambda level: level == "random"),
        "default_bot_level": DEFAULT_BOT_LEVEL,
        # the bots on the operator's language models: "a bot on NAME" (add_bot's level model:NAME)
        "model_bots": [{"name": bot.name, "level": bot.level, "vision": bot.vision} for bot in model_bots],
        "model_bot_fallback": model_bot_fallback,
        "languages": [{"code": code, "name": name} for code, name in LANGUAGE_NAMES.items()],
        "timer_seconds": list(TIMER_RANGE),
        # characters, as the server counts them after cleaning (a longer one is refused)
        "text_max": {"name": NAME_MAX, "clue": CLUE_MAX, "chat": CHAT_MAX},
        # why a round's points are given (`fabula.rules.scoring`): the reveal words each one
        "reasons": list(REASONS),
    }


#: Where the client's page carries `room_choices`.
CHOICES_SLOT = '<script type="application/json" id="choices"></script>'


def client_page(model_bots: Sequence[ModelBot] = (), model_bot_fallback: str = "normal") -> str:
    """index.html with what ``/api/modes`` answers written into it: the client reads its lists
    from there, so its first paint (the language menu in the header, too) waits for no request."""
    page = resources.files("fabula.web").joinpath("index.html").read_text(encoding="utf-8")
    if page.count(CHOICES_SLOT) != 1:
        raise RuntimeError(f"fabula/web/index.html must hold {CHOICES_SLOT} once")
    # "<" escaped: nothing in the JSON can end the script element early
    choices = json.dumps(
        room_choices(model_bots, model_bot_fallback), ensure_ascii=False, separators=(",", ":")
    ).replace("<", "\\u003c")
    return page.replace(CHOICES_SLOT, CHOICES_SLOT.replace("><", f">{choices}<"))


class Pages:
    """The client's page at each of its paths, its files, and the lists it offers."""

    def __init__(
        self, library: DeckLibrary, model_bots: Sequence[ModelBot] = (), model_bot_fallback: str = "normal"
    ) -> None:
        self.library, self.model_bots, self.fallback = library, tuple(model_bots), model_bot_fallback
        self.page = client_page(self.model_bots, self.fallback)

    def routes(self) -> list[BaseRoute]:
        static = StaticFiles(directory=str(resources.files("fabula.web").joinpath("static")))
        return [
            *(Route(path, self.index) for path in PAGE_PATHS),
            Mount("/static", static, name="static"),
            Route("/api/modes", self.modes),
            Route("/api/decks", self.decks),
        ]

    async def index(self, request: Request) -> Response:
        return self._client()

    def _client(self, status_code: int = 200) -> Response:
        return HTMLResponse(self.page, status_code=status_code, headers={"Cache-Control": "no-cache"})

    async def not_found(self, request: Request, exc: Exception) -> Response:
        """An address with no page or file: a browser opening it gets the client, with 404, which
        says so and offers the start (a room's code in the address kept); anything else the plain
        404."""
        del exc
        path = request.url.path
        if (
            request.method in {"GET", "HEAD"}
            and "text/html" in request.headers.get("accept", "")
            and not path.startswith(("/api/", "/static/"))
        ):
            return self._client(404)
        return PlainTextResponse("Not Found", status_code=404)

    async def modes(self, request: Request) -> Response:
        return JSONResponse(room_choices(self.model_bots, self.fallback))

    async def decks(self, request: Request) -> Response:
        return JSONResponse(
            {
                "decks": [
                    {"name": deck.name, "title": deck.title, "cards": len(deck.cards), "described": deck.described}
                    for deck in self.library.decks()
                ]
            }
        )
