"""`LLMAgent`: a seat played by a language model, with retries, a fallback and a transcript.

One move: the prompt (`prompt_messages`) goes to the `ChatClient`; the reply is parsed
(`parse_reply`). A reply that names no legal move is answered with a corrective user message
(what was wrong, and the format again), keeping the conversation, up to ``retries`` more times.
An endpoint that fails (`ChatError`) counts as a failed attempt too. When every attempt failed
the **fallback** plays: a uniformly random legal move, with a clue from `RandomBot`'s word list —
so a game always finishes and a model that fails the format shows up as a random player (and in
``fallbacks``), never as an illegal move. But when the *endpoint* failed every attempt of a move
(no reply at all: unreachable, HTTP errors) the agent raises `EndpointFailed` — a run against a
dead endpoint would otherwise measure a random player — unless ``fallback="random"``, which
plays the random move then too.

Every attempt is one line of the `Transcript`, if given: the prompt (on a move's first attempt;
the corrective message on later ones), the raw reply, and the move it was read as or why not.

>>> from fabula.rules import Game
>>> class Says:
...     def complete(self, messages): return "I vote for 2"
>>> game = Game.new("odyssey", seats=4, seed=1)
>>> agent = LLMAgent(Says())
>>> type(agent.choose(game.view(0).to_json(), game.legal_actions(0))).__name__  # no clue: falls back
'Tell'
>>> agent.attempts, agent.fallbacks
(3, 1)
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Literal

from fabula.bots.base import RandomBot
from fabula.cards.model import Card
from fabula.rules import Action

from .asks import Ask, what_is_asked
from .client import ChatClient, ChatError
from .parse import ReplyError, parse_reply
from .prompt import Message, format_hint, prompt_messages

#: Further attempts after a reply that names no legal move.
DEFAULT_RETRIES = 2

#: What an agent does when the endpoint failed every attempt of a move: raise `EndpointFailed`
#: (``"stop"``), or play a random legal move (``"random"``).
Fallback = Literal["stop", "random"]
FALLBACKS: tuple[Fallback, ...] = ("stop", "random")


@dataclass(frozen=True, slots=True)
class Decision:
    """What the model made of one move: ``action`` (None: no attempt gave a legal move),
    whether any reply came at all, and the endpoint's last failure while none came."""

    ask: Ask
    action: Action | None
    replied: bool
    failure: ChatError | None


class EndpointFailed(ChatError):
    """The endpoint failed every attempt of one move (no reply came): the agent cannot play."""

    def __init__(self, agent: str, attempts: int, last: ChatError) -> None:
        self.agent, self.attempts, self.last = agent, attempts, last
        tries = "the one attempt" if attempts == 1 else f"all {attempts} attempts"
        super().__init__(f"{agent}: the endpoint failed {tries} of a move; the last: {last}")


class Transcript:
    """A JSON-lines log of every attempt of every agent writing to it (thread-safe; each line
    flushed, so a long run can be watched and a crash loses nothing).

    >>> import io
    >>> out = io.StringIO()
    >>> Transcript(out).write({"reply": "3"})
    >>> out.getvalue()
    '{"reply": "3"}\\n'
    """

    def __init__(self, stream: IO[str]) -> None:
        self._stream, self._lock = stream, threading.Lock()
        self._owned = False

    @classmethod
    def open(cls, path: str | Path) -> Transcript:
        """A transcript appended to the file ``path``; `close` it (or use it in a ``with``)."""
        transcript = cls(open(path, "a", encoding="utf-8"))  # noqa: SIM115 - closed by close()
        transcript._owned = True
        return transcript

    def write(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False)
        with self._lock:
            self._stream.write(line + "\n")
            self._stream.flush()

    def close(self) -> None:
        if self._owned:
            self._stream.close()

    def __enter__(self) -> Transcript:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class LLMAgent:
    """A `fabula.bots.base.Bot` whose moves a chat model chooses.

    ``cards``: card id → card (titles and descriptions for the prompt; a card not in it is shown
    by its id); ``retries``: corrective messages after a reply that names no legal move;
    ``rng``: the fallback's randomness; ``name``: how the transcript names this agent;
    ``game``: a game number the transcript carries (the arena's); ``fallback``: when the endpoint
    fails every attempt of a move, ``"stop"`` (raise `EndpointFailed`) or ``"random"`` (a random
    legal move, as after replies that name none); ``language``: the table's (the rules and the
    clues are asked in it).
    """

    def __init__(
        self,
        client: ChatClient,
        cards: Mapping[str, Card] | None = None,
        *,
        retries: int = DEFAULT_RETRIES,
        rng: random.Random | None = None,
        transcript: Transcript | None = None,
        name: str = "llm",
        game: int | None = None,
        fallback: Fallback = "stop",
        language: str = "en",
    ) -> None:
        if retries < 0:
            raise ValueError("retries cannot be negative")
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback is one of {', '.join(map(repr, FALLBACKS))}; got {fallback!r}")
        self.client, self.cards, self.retries = client, dict(cards or {}), retries
        self.fallback = RandomBot(rng or random.Random())
        self.on_endpoint_failure: Fallback = fallback
        self.transcript, self.name, self.game = transcript, name, game
        #: the table's language: of the rules in the system message, and of the clues
        self.language = language
        #: counts over this agent's life: moves, attempts (replies asked for), fallbacks, endpoint failures
        self.moves = self.attempts = self.fallbacks = self.failures = 0

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        decision = self.decide(view, legal)
        if decision.action is not None:
            return decision.action
        if not decision.replied and decision.failure is not None and self.on_endpoint_failure == "stop":
            raise EndpointFailed(self.name, self.retries + 1, decision.failure)
        return self.fall_back(view, legal, decision.ask)

    def fall_back(self, view: dict[str, Any], legal: Sequence[Action], ask: Ask) -> Action:
        """The random legal move played when no attempt gave one (counted, and in the transcript)."""
        self.fallbacks += 1
        action = self.fallback.choose(view, legal)
        if self.transcript is not None:
            self.transcript.write({**self._about(view, ask), "fallback": action.to_json()})
        return action

    def decide(
        self, view: dict[str, Any], legal: Sequence[Action], *, pictures: Mapping[str, str] | None = None
    ) -> Decision:
        """The model's move, if one of its attempts gave a legal one: the whole conversation of a
        move without its fallback (the live table plays a built-in level's move instead of a
        random one). ``pictures``: card id → data URL, for a model that sees."""
        ask = what_is_asked(view, legal, self.cards)
        messages: list[Message] = prompt_messages(
            view, legal, self.cards, ask, pictures=pictures, language=self.language
        )
        self.moves += 1
        failed: ChatError | None = None  # the endpoint's last failure, while no reply came
        replied = False
        for attempt in range(1, self.retries + 2):
            self.attempts += 1
            start = time.perf_counter()
            record = {
                **self._about(view, ask),
                "attempt": attempt,
                "prompt": messages if attempt == 1 else messages[-1:],
            }
            try:
                reply = self.client.complete(messages)
            except ChatError as error:
                self.failures += 1
                failed = error
                self._log(record, reply=None, error=f"endpoint: {error}", start=start)
                continue  # the conversation is unchanged: ask again
            replied = True
            try:
                action = parse_reply(reply, ask)
            except ReplyError as error:
                self._log(record, reply=reply, error=str(error), start=start)
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply},
                    {
                        "role": "user",
                        "content": f"That reply cannot be played: {error}. Reply again, JSON only: {format_hint(ask)}",
                    },
                ]
                continue
            self._log(record, reply=reply, action=action.to_json(), start=start)
            return Decision(ask, action, True, None)
        return Decision(ask, None, replied, failed)

    def _about(self, view: dict[str, Any], ask: Ask) -> dict[str, Any]:
        """What every transcript line of one move says first: whose move, where, what was asked."""
        return {
            "agent": self.name,
            "game": self.game,
            "seat": ask.seat,
            "round": view.get("round"),
            "phase": view.get("phase"),
            "asked": ask.kind,
        }

    def _log(self, record: dict[str, Any], *, start: float, **found: Any) -> None:
        if self.transcript is not None:
            self.transcript.write({**record, **found, "seconds": round(time.perf_counter() - start, 3)})
