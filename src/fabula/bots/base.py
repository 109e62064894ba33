"""The one interface every player that is not a person implements.

A bot sees exactly what a person in its seat would: that seat's view as the JSON object a
browser receives (`SeatView.to_json`), plus the list of moves the seat may make now. The same
bots run inside a room on the server and as external clients over the WebSocket protocol
(`fabula bot`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from fabula.cards.model import Card
from fabula.rules import Action, BlindClue, Tell

if TYPE_CHECKING:
    from .semantic.memory import ClueMemory

#: Clue words for a bot that does not look at pictures, in each language it may give clues in.
_WORDS = {
    "en": (
        "Journey", "Memory", "Silence", "Home", "Freedom", "Waiting", "Secret", "Dream", "Balance",
        "Courage", "Hope", "Far away", "Once upon a time", "Lost", "Together", "Night", "Growing", "Escape",
    ),
    "zh-Hant": (
        "旅程", "回憶", "寂靜", "家", "自由", "等待", "秘密", "夢", "平衡",
        "勇氣", "希望", "遠方", "從前從前", "迷失", "一起", "夜晚", "成長", "逃離",
    ),
    "zh-Hans": (
        "旅程", "回忆", "寂静", "家", "自由", "等待", "秘密", "梦", "平衡",
        "勇气", "希望", "远方", "从前从前", "迷失", "一起", "夜晚", "成长", "逃离",
    ),
}  # fmt: skip


class Bot(Protocol):
    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """One of ``legal`` (never empty), with a clue filled in where one is needed."""
        ...


class RandomBot:
    """Uniformly random legal moves, clues from a small word list: the floor every bot must beat.

    >>> from fabula.rules import Game
    >>> game = Game.new("odyssey", seats=4, seed=1)
    >>> seat = game.awaiting[0]
    >>> move = RandomBot(random.Random(0)).choose(game.view(seat).to_json(), game.legal_actions(seat))
    >>> type(move).__name__, bool(move.clue)
    ('Tell', True)
    """

    def __init__(self, rng: random.Random | None = None, *, language: str = "en") -> None:
        """``language``: of its clues (``en``, ``zh-Hant`` or ``zh-Hans``; another: English)."""
        self.rng = rng or random.Random()
        self.words = _WORDS.get(language, _WORDS["en"])

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:  # noqa: ARG002 - blind by design
        action = legal[self.rng.randrange(len(legal))]
        if isinstance(action, (Tell, BlindClue)):
            return action.with_clue(self.rng.choice(self.words))
        return action


#: What a host can pick, weakest first: "random" plays blind; the others read the clue (see
#: `fabula.bots.semantic.player`).
BOT_LEVELS = ("random", "easy", "normal", "hard")
#: The level the host is offered first.
DEFAULT_BOT_LEVEL = "normal"
#: A seat played by one of the server's language models (`fabula.bots.language.models`):
#: ``model:NAME``, NAME as the operator named it (`MODEL_NAME`).
MODEL_LEVEL = "model:"
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


def model_of(level: str) -> str | None:
    """The model bot's name in a level ``model:NAME`` (None for a built-in level).

    >>> model_of("model:qwen"), model_of("hard")
    ('qwen', None)
    """
    if level.startswith(MODEL_LEVEL) and MODEL_NAME.fullmatch(level[len(MODEL_LEVEL) :]):
        return level[len(MODEL_LEVEL) :]
    return None


def is_bot_level(level: str) -> bool:
    """Whether a room's log may hold ``level`` for a bot: a built-in level, or ``model:NAME`` of a
    well-formed name (whether this server has that model is asked when the bot is added: a log
    written by a server with other models still replays)."""
    return level in BOT_LEVELS or model_of(level) is not None


#: The languages of the web client, each with its name in itself (what its language menu shows;
#: `/api/modes` serves them).
LANGUAGE_NAMES = {"en": "English", "zh-Hant": "繁體中文", "zh-Hans": "简体中文"}
#: The languages a reading bot gives its clues in (those of the web client).
BOT_LANGUAGES = tuple(LANGUAGE_NAMES)


def make_bot(
    level: str,
    rng: random.Random | None = None,
    *,
    cards: Mapping[str, Card] | None = None,
    memory: ClueMemory | None = None,
    language: str = "en",
) -> Bot:
    """The bot of ``level`` for a table whose cards are ``cards`` (card id → card; a card it is
    not told about it plays blind); ``memory``: finished rounds a hard bot may learn from;
    ``language``: the language of its clues (``en``, ``zh-Hant`` or ``zh-Hans``). `ValueError` for
    an unknown level."""
    if level == "random":
        return RandomBot(rng, language=language)
    if level in BOT_LEVELS:
        from .semantic.player import PERSONAS, SemanticBot  # the model loads only when a reader is asked for

        return SemanticBot(PERSONAS[level], cards or {}, rng, memory, language=language)
    raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(BOT_LEVELS)}")
