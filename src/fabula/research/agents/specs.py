"""``fabula arena --agent SPEC``: a seat's player named on the command line.

- ``openai:URL:MODEL`` — an `LLMAgent` on an OpenAI-compatible endpoint, e.g.
  ``openai:http://127.0.0.1:8080/v1:qwen2.5-0.5b``. The URL holds colons of its own (the scheme,
  a port), and a model's name may too (``llama3:8b``), so the split is where the URL's authority
  (``host[:port]``) and its path (which holds no colon) end: the rest is the model. Seated as
  ``llm:MODEL``. A spec without a model — ``openai:http://127.0.0.1:8080/v1``, which would
  otherwise read as the URL ``http://127.0.0.1`` and the model ``8080/v1`` — is refused: a
  model's name is never a port and a path.
- ``module:Name`` — ``Name`` imported from ``module``: a class (or any callable) making a `Bot`.
  It is called with those of the keyword arguments ``game``, ``seat``, ``rng``, ``cards`` and
  ``language`` (`fabula.bots.arena.SeatContext`) that its signature takes — none, for a class
  with no arguments. Seated as ``Name``.

>>> parse_openai_spec("openai:http://127.0.0.1:8080/v1:llama3:8b")
('http://127.0.0.1:8080/v1', 'llama3:8b')
>>> parse_openai_spec("openai:https://api.example.com:qwen")
('https://api.example.com', 'qwen')
>>> parse_openai_spec("openai:http://127.0.0.1:8080/v1:meta-llama/Llama-3.1-8B")
('http://127.0.0.1:8080/v1', 'meta-llama/Llama-3.1-8B')
>>> parse_openai_spec("openai:http://127.0.0.1:8080/v1")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
fabula.bots.language.models.AgentSpecError: 'openai:http://127.0.0.1:8080/v1' names no model: ...
>>> agent_from_spec("fabula.bots.base:RandomBot")[0]
'RandomBot'
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from fabula.bots.arena import AgentFactory, SeatContext
from fabula.bots.base import Bot
from fabula.bots.language.agent import DEFAULT_RETRIES, Fallback, LLMAgent, Transcript
from fabula.bots.language.client import DEFAULT_TIMEOUT, OpenAIChat
from fabula.bots.language.models import AgentSpecError, parse_openai_spec

__all__ = ["AgentSpecError", "agent_from_spec", "parse_openai_spec"]

_CONTEXT = ("game", "seat", "rng", "cards", "language")


def _openai(
    spec: str, transcript: Transcript | None, retries: int, fallback: Fallback, settings: Mapping[str, Any]
) -> tuple[str, AgentFactory]:
    """``openai:URL:MODEL``'s seat name and factory; ``settings``: `OpenAIChat`'s keyword arguments."""
    url, model = parse_openai_spec(spec)
    client = OpenAIChat(url, model, **settings)  # one connection pool for every seat it plays
    name = f"llm:{model}"

    def make(context: SeatContext) -> Bot:
        return LLMAgent(
            client,
            context.cards,
            retries=retries,
            rng=context.rng,
            transcript=transcript,
            name=name,
            game=context.game,
            fallback=fallback,
            language=context.language,
        )

    return name, make


def _imported(spec: str) -> tuple[str, AgentFactory]:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise AgentSpecError(f"{spec!r}: expected module:Class or openai:URL:MODEL")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AgentSpecError(f"{spec!r}: cannot import {module_name}: {error}") from error
    maker: Any = module
    for part in attribute.split("."):
        maker = getattr(maker, part, None)
        if maker is None:
            raise AgentSpecError(f"{spec!r}: {module_name} has no {attribute}")
    if not callable(maker):
        raise AgentSpecError(f"{spec!r}: {attribute} is not a class or function")
    try:
        parameters: Mapping[str, inspect.Parameter] = inspect.signature(maker).parameters
    except (TypeError, ValueError):
        parameters = {}  # a builtin without a signature: called with no arguments
    takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    wanted = [name for name in _CONTEXT if takes_all or name in parameters]
    build: Callable[..., Any] = maker

    def make(context: SeatContext) -> Bot:
        player = build(**{name: getattr(context, name) for name in wanted})
        if not callable(getattr(player, "choose", None)):
            raise AgentSpecError(f"{spec!r} made {player!r}, which has no choose(view, legal) method")
        found: Bot = player
        return found

    return attribute.rsplit(".", 1)[-1], make


def agent_from_spec(
    spec: str,
    *,
    transcript: Transcript | None = None,
    retries: int = DEFAULT_RETRIES,
    fallback: Fallback = "stop",
    temperature: float | None = None,
    max_tokens: int | None = None,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    concurrency: int | None = None,
) -> tuple[str, AgentFactory]:
    """The seat name and factory of ``--agent SPEC``. The rest is for a language model:
    ``transcript``, ``retries`` and ``fallback`` its `LLMAgent`'s; ``temperature``,
    ``max_tokens``, ``seed`` (sent with every request), ``timeout`` and ``concurrency`` its
    `OpenAIChat`'s."""
    if spec.lower().startswith("openai:"):
        settings = {
            "temperature": temperature,
            "max_tokens": max_tokens,
            "seed": seed,
            "timeout": timeout,
            "concurrency": concurrency,
        }
        return _openai(spec, transcript, retries, fallback, settings)
    return _imported(spec)
