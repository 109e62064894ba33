"""``fabula arena --agent SPEC``: a seat's player named on the command line.

- ``openai:URL:MODEL`` — an `LLMAgent` on an OpenAI-compatible endpoint, e.g.
  ``openai:http://127.0.0.1:8080/v1:qwen2.5-0.5b``. The URL holds colons of its own (the scheme,
  a port), and a model's name may too (``llama3:8b``), so the split is where the URL's authority
  (``host[:port]``) and its path (which holds no colon) end: the rest is the model. Seated as
  ``llm:MODEL``.
- ``module:Name`` — ``Name`` imported from ``module``: a class (or any callable) making a `Bot`.
  It is called with those of the keyword arguments ``game``, ``seat``, ``rng``, ``cards`` and
  ``language`` (`fabula.bots.arena.SeatContext`) that its signature takes — none, for a class
  with no arguments. Seated as ``Name``.

>>> parse_openai_spec("openai:http://127.0.0.1:8080/v1:llama3:8b")
('http://127.0.0.1:8080/v1', 'llama3:8b')
>>> parse_openai_spec("openai:https://api.example.com:qwen")
('https://api.example.com', 'qwen')
>>> agent_from_spec("fabula.bots.base:RandomBot")[0]
'RandomBot'
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any

from fabula.bots.arena import AgentFactory, SeatContext
from fabula.bots.base import Bot

from .agent import DEFAULT_RETRIES, LLMAgent, Transcript
from .client import OpenAIChat

_OPENAI = re.compile(
    r"openai:(?P<url>https?://(?:\[[0-9a-fA-F:.]+\]|[^/:\s\[\]]+)(?::\d+)?(?:/[^:\s]*)?):(?P<model>\S+)", re.IGNORECASE
)
_CONTEXT = ("game", "seat", "rng", "cards", "language")


class AgentSpecError(ValueError):
    """A ``--agent`` that names nothing that can play."""


def parse_openai_spec(spec: str) -> tuple[str, str]:
    """(URL, model) of ``openai:URL:MODEL``; `AgentSpecError` when it is not one."""
    match = _OPENAI.fullmatch(spec.strip())
    if not match or match["model"].isdigit():  # "openai:http://host:8080" is a URL without a model
        raise AgentSpecError(f"{spec!r}: expected openai:URL:MODEL, e.g. openai:http://127.0.0.1:8080/v1:my-model")
    return match["url"], match["model"]


def _openai(spec: str, transcript: Transcript | None, retries: int) -> tuple[str, AgentFactory]:
    url, model = parse_openai_spec(spec)
    client = OpenAIChat(url, model)  # one connection pool for every seat it plays
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
    spec: str, *, transcript: Transcript | None = None, retries: int = DEFAULT_RETRIES
) -> tuple[str, AgentFactory]:
    """The seat name and factory of ``--agent SPEC``; ``transcript`` and ``retries``: of a language model."""
    if spec.lower().startswith("openai:"):
        return _openai(spec, transcript, retries)
    return _imported(spec)
